"""The computer opponent's commands: ``hint``, ``analyse``, ``engine``, ``match``, and
:class:`ComputerPlayer`, the computer as a :class:`~tomis.cli.play.Player` of ``tomis play``.

The search itself lives in :mod:`tomis.engine` (no I/O); this module reads records,
prints and writes, like every command module.
"""

from __future__ import annotations

import math
import sys

import click

from .base import EXIT_INVALID, Failure
from .files import OUTPUT_PATH, load_game, read_record, refuse_a_non_file, write_new, write_over
from .output import echo_json, echo_record

# Without --time, hints and analyses search a fixed number of nodes: the same answer on
# every machine (about half a second for a hint, a tenth of one per action analysed).
HINT_NODES = 15_000
ANALYSE_NODES = 4_000
MAX_SECONDS = 3600.0
MAX_LINES = 20               # hint --lines: more is a list of every action, not advice


def _limits(seconds, depth, nodes):
    from ..engine.search import Limits

    if seconds is not None:
        if not (seconds == seconds and 0 < seconds <= MAX_SECONDS):
            raise click.BadParameter(f"{seconds} is not a number of seconds from 0 to {MAX_SECONDS:g}",
                                     param_hint="--time")
        return Limits(time=seconds)
    if depth is not None:
        return Limits(depth=depth)
    return Limits(nodes=nodes)


def _undecided_final(source, game):
    """The position to search: the record's last, which must still be undecided."""
    from ..errors import RecordError

    state = game.final
    if state.to_move is None or game.result != "*":
        why = state.reason or "resigned or agreed, R23"
        last = game.nodes[-1].action if game.nodes else None     # point at the last action
        raise Failure(source.locate(RecordError(
            f"the game is over ({game.result}, {why}); there is no action to search",
            last.line if last else 1, last.column if last else 1)), EXIT_INVALID)
    return state


def line_text(state, actions) -> str:
    """Actions from ``state`` in notation with move numbers: ``12. Fa2-a3 Fb7-b6 13. ...``."""
    words = []
    ply = state.ply
    for index, action in enumerate(actions):
        acting = ply + index + 1
        if acting % 2:
            words.append(f"{(acting + 1) // 2}. {action}")
        elif index == 0:
            words.append(f"{acting // 2}... {action}")
        else:
            words.append(str(action))
    return " ".join(words)


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--time", "seconds", type=float, help="Search this many seconds.")
@click.option("--depth", type=click.IntRange(1, 64), help="Search this many actions deep.")
@click.option("--lines", "count", type=click.IntRange(1, MAX_LINES), default=1, show_default=True,
              help="Show this many best actions, each with its score and line.")
@click.option("--try", "tried", metavar="ACTION",
              help="Also score ACTION, the action you have in mind, against the best.")
@click.option("--json", "as_json", is_flag=True, help="Print the hint as JSON.")
def hint(file, seconds, depth, count, tried, as_json):
    """The best action for the side to act in FILE, its score and the expected line.

    The score is from the acting side's view, in frigates (+1.0 is a frigate ahead),
    of the last odd depth the search finished (the depth given with --depth), without
    the tempo term (docs/ENGINE.md, "Analysis").
    --lines K shows the K best actions, best first, the first one with the score hint
    gives it alone; --try ACTION scores your own candidate at the same depth. A forced
    win is shown to the game's end. Without --time or --depth the search is a fixed
    15,000 nodes (the same answer on any machine). Writes nothing.
    """
    from ..engine.analysis import hint as search_hint

    if seconds is not None and depth is not None:
        raise click.UsageError("give --time or --depth, not both")
    source = read_record(file)
    game = load_game(source).record
    state = _undecided_final(source, game)
    candidate = _tried_action(state, tried) if tried is not None else None
    result = search_hint(state, _limits(seconds, depth, HINT_NODES), lines=count,
                         exact=() if candidate is None else (candidate,),
                         previous=[node.action for node in game.nodes[-2:]])
    shown = result.lines[:count]
    if as_json:
        echo_json(_hint_json(state, result, shown, candidate))
        return
    for line in hint_text(state, result, shown, candidate):
        click.echo(line)
    click.echo(f"searched {result.depth} actions deep, {result.nodes} nodes in {result.time:.2f} s")


def hint_text(state, result, shown, candidate) -> list[str]:
    """The hint as printed: the best action and its line, the other lines, the candidate."""
    from ..rules.board import SIDE_TITLES
    from ..engine.player import score_text

    side = SIDE_TITLES[state.to_move]
    text = [f"{side} to act: {line_text(state, [result.action])} ({score_text(result.score)})",
            f"expected line: {line_text(state, result.pv)}"]
    if len(shown) > 1:
        text += [f"line {rank}: {score_text(line.score)}: {line_text(state, line.pv)}"
                 for rank, line in enumerate(shown, 1)]
    if candidate is not None:
        text.append(_tried_text(state, result, candidate))
    return text


def _tried_text(state, result, candidate) -> str:
    from ..engine.player import score_text

    from ..engine.search import MATE_BOUND

    mine = result.line_of(candidate)
    if candidate == result.action:
        return f"your action {candidate}: {score_text(mine.score)}, the best there is"
    if mine.score == result.score:
        verdict = f"as good as the best ({result.action})"
    elif max(abs(mine.score), abs(result.score)) > MATE_BOUND:     # no frigates between wins
        verdict = f"against the best {result.action}, {score_text(result.score)}"
    else:
        verdict = f"{(result.score - mine.score) / 100:.2f} frigates below the best ({result.action})"
    return f"your action {candidate}: {score_text(mine.score)}, {verdict}; its line: {line_text(state, mine.pv)}"


def _line_json(line) -> dict:
    from ..engine.player import score_text

    return {"action": str(line.action), "score": line.score, "score_text": score_text(line.score),
            "pv": [str(a) for a in line.pv]}


def _hint_json(state, result, shown, candidate) -> dict:
    from ..rules.board import SIDE_TITLES
    from ..engine.player import score_text

    data = {
        "side": SIDE_TITLES[state.to_move].lower(), "action": str(result.action),
        "action_number": state.ply + 1, "score": result.score,
        "score_text": score_text(result.score), "pv": [str(a) for a in result.pv],
        "depth": result.depth, "nodes": result.nodes, "seconds": round(result.time, 3),
        "lines": [_line_json(line) for line in shown],
    }
    if candidate is not None:
        mine = result.line_of(candidate)
        data["try"] = dict(_line_json(mine), below_best=result.score - mine.score)
    return data


def _tried_action(state, text: str):
    """The action of ``--try``: readable (else a usage error) and legal here (else exit 1)."""
    from ..errors import IllegalActionError, TomisError, visible
    from ..notation import parse_action
    from ..rules.core import iter_legal_actions

    try:
        action = parse_action(text)
    except TomisError as error:
        raise click.BadParameter(f"{visible(text[:40])!r} is no action: {error.message}",
                                 param_hint="--try") from None
    if action not in iter_legal_actions(state):
        from ..rules.board import SIDE_TITLES

        error = IllegalActionError(f"{action} is not a legal action for {SIDE_TITLES[state.to_move]} "
                                   f"(action {state.ply + 1})")
        error.path = "--try"
        raise error
    return action


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--time", "seconds", type=float, help="Seconds per search (two searches per action).")
@click.option("-o", "--output", type=OUTPUT_PATH, callback=refuse_a_non_file, metavar="FILE",
              help="Write the analysed record here (a new file; - for stdout).")
@click.option("--json", "as_json", is_flag=True, help="Print the analysis as JSON instead of a table.")
def analyse(file, seconds, output, as_json):
    """Score every action of the game in FILE; mark mistakes in an analysed record.

    Each action gets the score of the best action there and of the action played, both
    searched from the same position to the same depth, without the tempo term. A
    drop of more than 1.5 frigates beyond what the last ply of search moved the scores
    earns '?', of more than 3 frigates '??', and the better line as a variation
    (docs/ENGINE.md, "Analysis"). The table and every evaluation are from White's side,
    as in chess GUIs: in the analysed record every action, the variations' too, carries
    an evaluation comment {[%eval +1.25]}: frigates, or #N (#-N) for a forced win by
    White (Black) in N of its own actions. Without --time each search is a fixed 4,000
    nodes. A table (or --json) goes to stdout; -o OUT writes the analysed record (still valid) to a new file, -o - to
    stdout (the table then goes to stderr; --json cannot share it).
    """
    from ..notation import record
    from ..engine.analysis import judge

    if as_json and output == "-":
        raise click.UsageError("--json and -o - would both write to stdout; give the record a file")
    source = read_record(file)
    game = load_game(source)
    played = game.record           # read only: the position before and after each action
    limits = _limits(seconds, None, ANALYSE_NODES)
    if output is not None and output != "-":
        _refuse_existing(output, "analyse")
    rows = []
    for index, (node, before) in enumerate(zip(played.nodes, played.states)):
        after = played.states[index + 1]
        verdict = judge(before, node.action, limits,
                        [earlier.action for earlier in played.nodes[max(0, index - 2):index]])
        glyph = verdict.glyph
        rows.append(_analysis_json(before, node.action, verdict, glyph))
        if not as_json:
            mark = glyph or ("" if verdict.best_action != node.action else "  (best)")
            mover = before.to_move
            click.echo(f"{line_text(before, [node.action])}{glyph}  {eval_text(verdict.played, mover)}"
                       + (f"; better {verdict.best_action} {eval_text(verdict.best, mover)}" if glyph else mark),
                       err=output == "-")        # with the record on stdout, the table goes aside
        annotate(game, before, after, verdict, glyph)
    if as_json:
        echo_json(rows)
    text = str(game)
    record.read_game(text)                     # the analysed record must stay valid
    if output == "-":
        echo_record(text)
    elif output is not None:
        write_new(output, text)
        click.echo(f"{output}: analysed record written", err=True)


def annotate(game, before, after, verdict, glyph: str) -> None:
    """Mark the analysed action played from ``before`` in ``game`` (a :class:`tomis.Game`):
    its glyph (unless the record gives one), its evaluation, and after a mistake the
    better line as a variation, an evaluation after each of its actions (none where the
    game is decided). A better line the record already holds is not added twice."""
    from ..rules.core import apply_unchecked

    number = before.ply + 1
    node = game.node(number)
    evaluation = eval_comment(verdict.played, before.to_move, 1) if after.to_move is not None else None
    game.annotate(number, glyph=glyph if glyph and not node.glyphs else None, comment=evaluation)
    if not glyph:
        return
    comments, state = [], before
    for played, action in enumerate(verdict.best_line, 1):
        state, _report = apply_unchecked(state, action)
        comments.append([eval_comment(verdict.best, before.to_move, played)] if state.to_move is not None else [])
    best = list(verdict.best_line)
    if best not in ([side.action for side in line] for line in node.variations):
        game.add_variation(number, best, comments)


def eval_comment(score: int, mover: int, played: int) -> str:
    """``[%eval ...]`` for the position ``played`` actions into a line worth ``score`` to ``mover``."""
    return f"[%eval {eval_text(score, mover, played)}]"


def eval_text(score: int, mover: int, played: int = 1) -> str:
    """A score worth ``score`` to ``mover``, ``played`` actions into its line, as White's
    evaluation: frigates with two decimals from White's side (``+1.25``, ``-0.40``); a
    forced win as ``#N`` (White wins) or ``#-N`` (Black wins), N the winner's own actions
    still to come (R21, R22)."""
    from ..engine.analysis import white_view
    from ..engine.search import MATE, MATE_BOUND

    white = white_view(score, mover)
    if abs(score) > MATE_BOUND:
        left = MATE - abs(score) - played        # plies still to come; the winner's is the last
        own = (left + 1) // 2
        return f"#{own if white > 0 else -own}"
    return f"{white / 100:+.2f}"


def _analysis_json(before, action, verdict, glyph: str) -> dict:
    from ..engine.player import score_text

    return {
        "action_number": before.ply + 1, "action": str(action), "glyph": glyph,
        "played": verdict.played, "played_text": score_text(verdict.played),
        "best_action": str(verdict.best_action), "best": verdict.best,
        "best_text": score_text(verdict.best), "best_line": [str(a) for a in verdict.best_line],
        "eval": eval_text(verdict.played, before.to_move), "drop": verdict.drop, "depth": verdict.depth,
    }


def _refuse_existing(path: str, command: str) -> None:
    """Check before a long search that the new file can be written (it never replaces one)."""
    import os

    if os.path.exists(path):
        raise click.BadParameter(f"{path} exists; {command} writes a new file and never replaces one",
                                 param_hint="-o")


@click.command()
def engine():
    """Speak UGI (the Universal Game Interface) on stdin and stdout; see docs/ENGINE.md."""
    from ..engine.ugi import run

    sys.exit(run())


def _parse_openings(text: str) -> int:
    head, _, count = text.partition(":")
    if head != "random" or not count.isdigit():
        raise click.BadParameter(f"expected random:K (K actions from the start), found {text!r}",
                                 param_hint="--openings")
    return int(count)


def _parse_sprt(text: str | None):
    if text is None:
        return None
    try:
        low, high = (float(part) for part in text.split(","))
    except ValueError:
        raise click.BadParameter(f"expected ELO0,ELO1 like 0,10, found {text!r}", param_hint="--sprt") from None
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise click.BadParameter(f"ELO0 must be below ELO1, both finite; found {text!r}", param_hint="--sprt")
    return low, high


@click.command()
@click.argument("a")
@click.argument("b")
@click.option("--games", type=click.IntRange(1, 100_000), default=10, show_default=True)
@click.option("--time", "seconds", type=float, help="Seconds per action for a UGI program "
              "(go movetime); also caps a level's search.")
@click.option("--openings", default="random:12", show_default=True,
              help="random:K: each pair of games starts from the same K seeded random actions.")
@click.option("--seed", type=click.IntRange(0, 2**31 - 1), default=0, show_default=True)
@click.option("--concurrency", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Games played at once (worker processes).")
@click.option("--sprt", "sprt_text", help="ELO0,ELO1: also test H1 Elo1 against H0 Elo0.")
@click.option("--rules", type=click.Choice(["manual", "readme"]), default="manual", show_default=True)
@click.option("--max-actions", type=click.IntRange(20, 10_000), default=400, show_default=True,
              help="Adjudicate a draw after this many actions.")
@click.option("-o", "--output", type=OUTPUT_PATH, callback=refuse_a_non_file, metavar="FILE",
              help="Write every game here (a new file).")
def match(a, b, games, seconds, openings, seed, concurrency, sprt_text, rules, max_actions, output):
    """Play A against B: each is level:N or the command line of a UGI engine.

    Games come in colour-swapped pairs from the same seeded random opening. Prints A's
    wins, draws and losses, its score, the Elo difference with a 95 % interval and, with
    --sprt, the log-likelihood ratio and verdict; the match then ends after the first
    pair at which the test has decided. A program that crashes, hangs past its time or
    answers an illegal action loses that game and is named.
    """
    from ..engine import match as matches
    from ..errors import visible

    try:
        first, second = matches.parse_player(a), matches.parse_player(b)
    except ValueError as problem:
        raise click.BadParameter(str(problem), param_hint="A/B") from None
    if seconds is not None and not (seconds == seconds and 0 < seconds <= MAX_SECONDS):
        raise click.BadParameter(f"{seconds} is not a number of seconds from 0 to {MAX_SECONDS:g}",
                                 param_hint="--time")
    bounds = _parse_sprt(sprt_text)
    if output is not None:
        _refuse_existing(output, "match")
    settings = matches.MatchSettings(first, second, games, seconds, _parse_openings(openings), seed,
                                     concurrency, rules, max_actions)

    finished: list[str] = []          # each finished game's record, in game order

    def progress(outcome, score):
        if output is not None:
            _save_games(output, finished, outcome.record)
        # Names and reasons can come from another program (its id name, what it answered).
        click.echo(visible(f"game {outcome.number}: {outcome.white} (White) vs {outcome.black} "
                           f"(Black): {outcome.result}, {outcome.reason}; "
                           f"A {score.points:g}/{score.games}"), err=True)

    stop = matches.sprt_stop(*bounds) if bounds is not None else None
    score, outcomes = matches.run_match(settings, progress, stop)
    if score.games < games:
        click.echo(f"the sequential test decided after {score.games} games; "
                   f"the other {games - score.games} were not played", err=True)
    for line in score_table(first.name, second.name, score, bounds):
        click.echo(visible(line))


def _save_games(path: str, finished: list[str], text: str) -> None:
    """Add one finished game to ``path``, rewritten whole and atomically after every game:
    a match stopped early (Ctrl-C, a deadline) leaves a valid file of the games it
    finished, and a reader never sees half a game. The first game creates the file."""
    from ..notation import record

    finished.append(record.write(record.read_game(text)))   # read back: only valid records
    whole = "\n".join(finished)                               # as record.write_all joins them
    if len(finished) == 1:
        write_new(path, whole)
    else:
        write_over(path, whole)


def score_table(a_name: str, b_name: str, score, bounds) -> list[str]:
    """The match summary as printed, A's view."""
    from ..engine.match import elo, sprt

    diff, low, high = elo(score)
    lines = [
        f"A: {a_name}",
        f"B: {b_name}",
        f"games {score.games}: A wins {score.wins}, draws {score.draws}, losses {score.losses}",
        f"score {score.points:g}/{score.games} = {100 * score.fraction:.1f} %",
        elo_line(diff, low, high, score.games),
    ]
    if bounds is not None:
        llr, lower, upper, verdict = sprt(score, *bounds)
        lines.append(f"SPRT Elo0 {bounds[0]:g} Elo1 {bounds[1]:g}: LLR {llr:.2f} "
                     f"(bounds {lower:.2f}, {upper:.2f}): {verdict}")
    for name, count in sorted(score.forfeits.items()):
        lines.append(f"forfeits: {name} lost {count} game(s) by crash, hang or illegal action")
    return lines


def elo_line(diff: float, low: float, high: float, games: int) -> str:
    """The Elo difference with its 95 % interval, never a bare infinity.

    When every game went one way the estimate itself is infinite; what the games show
    is the one-sided bound (docs/ENGINE.md: the exact binomial p**n = 2.5 %), so that
    bound is printed, and the interval says which side stays open.
    """
    interval = f"95 % interval {_interval_text(low, high)}"
    if math.isinf(diff):
        # Rounded outward, so the printed bound still holds.
        bound, sign, how = (math.floor(low), "\u2265", "won") if diff > 0 else (math.ceil(high), "\u2264", "lost")
        return f"Elo difference {sign} {bound:+d} (A {how} all {games} game(s); {interval})"
    return f"Elo difference {diff:+.1f} ({interval})"


def _interval_text(low: float, high: float) -> str:
    """``-12.0 to +80.5``, or an interval open on one side (too few games to close it)."""
    if math.isinf(low) and math.isinf(high):
        return "unbounded"
    if math.isinf(low):
        return f"at most {high:+.1f}"
    if math.isinf(high):
        return f"at least {low:+.1f}"
    return f"{low:+.1f} to {high:+.1f}"


# --------------------------------------------------------------------------- tomis play

DRAW_ACCEPT = -50            # the computer accepts a draw when it stands this badly or worse
DRAW_NODES = 2_000           # the search behind that judgement


class ComputerOpponent:
    """The computer as a :class:`~tomis.cli.play.Player`: at its turn, its action.

    The play loop shows its action and the board as it shows a human's. Once the game is
    over it has nothing to say, so the session ends (the game is saved already).
    ``side`` (``"white"``/``"black"``) is the side it plays: a draw offer is judged from
    there, whoever is to act.
    """

    def __init__(self, level: int, seed: int = 0, side: str | None = None, think: float | None = None):
        self.seed = seed
        self.side = side
        self.set_level(level, think)

    def set_level(self, level: int, think: float | None = None) -> None:
        """Play at ``level`` from the next action on (the same seed); ``think``: seconds
        per action instead of the level's limits."""
        from ..engine.player import ComputerPlayer

        self.computer = ComputerPlayer(level, self.seed, think)
        self.level = level
        self.name = self.computer.name

    def turn(self, game):
        from .turns import Quit

        if game.is_over:
            return Quit()
        action = self.computer.choose(game.position.state, previous=game.actions[-2:])
        click.echo(f"{self.name} plays {action}")
        return action

    def confirm(self, question: str, game) -> bool | None:
        """A draw offer: accepted when a short search finds this side clearly worse, and
        the reason said. Asked anything once the game is over (quit without saving?), it
        agrees."""
        if game.is_over:
            return True
        accept, reason = judge_draw(game.position.state, self.side)
        click.echo(f"{self.name} {'accepts' if accept else 'declines'} the draw: {reason}")
        return accept


def judge_draw(state, side: str | None) -> tuple[bool, str]:
    """Whether ``side`` (default: the side to act) accepts a draw in ``state``, and why.

    The search scores the position for the side to act; when the offer comes from that
    side, the score is turned round, so the judgement is always the accepting side's own
    (docs/ENGINE.md: it accepts when it stands at least half a frigate worse).
    """
    from ..rules.board import SIDE_NAMES
    from ..engine.evaluate import frigates_text
    from ..engine.player import hint, score_text
    from ..engine.search import Limits

    score = hint(state, Limits(nodes=DRAW_NODES)).score
    if side is not None and SIDE_NAMES[state.to_move] != side:
        score = -score
    accept = score <= DRAW_ACCEPT
    threshold = frigates_text(DRAW_ACCEPT)
    if accept:
        return True, f"it stands {score_text(score)}, at or below {threshold}"
    return False, f"it stands {score_text(score)}; it accepts only at {threshold} or worse"


def hint_lines(state, nodes: int = HINT_NODES) -> list[str]:
    """The computer's suggestion for the side to act in ``state`` and its expected line,
    as ``tomis hint`` gives them."""
    from ..engine.analysis import hint
    from ..engine.player import score_text
    from ..engine.search import Limits

    result = hint(state, Limits(nodes=nodes))
    return [f"hint: {line_text(state, [result.action])} ({score_text(result.score)})",
            f"expected line: {line_text(state, result.pv)}"]


def parse_level(text: str, option: str) -> int:
    """``computer`` (the default level) or ``computer:N`` -> the level, else a usage error."""
    from ..engine.levels import DEFAULT_LEVEL, MAX_LEVEL, MIN_LEVEL

    if text == "computer":
        return DEFAULT_LEVEL
    number = text[len("computer:"):]
    if not number.isdigit() or not MIN_LEVEL <= int(number) <= MAX_LEVEL:
        raise click.BadParameter(f"expected computer:N with N from {MIN_LEVEL} to {MAX_LEVEL}, found {text!r}",
                                 param_hint=option)
    return int(number)
