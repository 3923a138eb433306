"""Correspondence play: ``tomis clock``, ``claim``, ``draw --accept``, ``resign``, and
what ``new --time-control`` and ``move --time --offer-draw --then`` do (:mod:`.records`).

The commands read a record and check it whole (as every command does); the three that end
a game change it through the record API and write it back atomically under the file lock,
printing a summary, the new Digest and the record, ready to paste into a reply. The rules
they follow are docs/NOTATION.md's "Correspondence play".
"""

from __future__ import annotations

import click

from .files import load_game, pinned_and_locked, read_record, write_over
from .output import echo_record

SIDES = ("white", "black")


def now_option(help_text: str):
    return click.option("--now", "now", metavar="TIME",
                        help=f"{help_text} A UTC time like 2026-11-23T10:15Z; default: now.")


def side_option(help_text: str):
    return click.option("--as", "as_side", type=click.Choice(SIDES), required=True, help=help_text)


def parse_now(text: str | None, option: str = "--now") -> int:
    """``text`` as a stamp, or this minute; a bad value is a usage error naming the option."""
    from datetime import datetime, timezone

    from .. import clock
    from ..errors import RecordError

    if text is None:
        return clock.stamp_of(datetime.now(timezone.utc))
    try:
        return clock.parse_stamp(text)
    except RecordError as error:
        raise click.BadParameter(error.message, param_hint=option) from None


# --------------------------------------------------------------------------- tomis clock

@click.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@now_option("Show the clocks at this time.")
def clock(file, now):
    """Show each side's time left in the game in FILE (its TimeControl tag)."""
    at = parse_now(now)
    source = read_record(file)
    game = load_game(source).record
    facts, ran = _clocks(game, source)
    from ..errors import visible

    click.echo(visible("\n".join(clock_lines(game, facts, ran, at, source.name)), lines=True))


def _clocks(game, source):
    """The game's facts and clocks; a game without a TimeControl tag has no clock."""
    from .. import correspondence
    from ..errors import RecordError

    facts = correspondence.read_facts(game)
    if facts.control is None:
        raise source.failure(RecordError("this game has no TimeControl tag, so no clock "
                                         "(tomis new --time-control 30d+3d starts one)", 1, 1))
    return facts, correspondence.check(game, facts).clock


def clock_lines(game, facts, ran, now: int, name: str = "FILE") -> list[str]:
    """The clocks in words: the control, one line per side, the leave, then who may claim."""
    from .. import clock as _clock
    from ..board import SIDE_TITLES

    state = game.final
    over = game.result != "*" or state.is_over
    to_move = None if over else state.to_move
    lines = [f"TimeControl {game.tags[_clock.TIME_CONTROL_TAG]}: {_control_words(facts.control)}"]
    lines.extend(_side_line(ran, side, to_move, now) for side in (0, 1))
    if facts.leaves or facts.leave_days is not None:
        lines.extend(_leave_lines(facts, now))
    if over:
        lines.append(f"The game has ended ({game.result}); the clocks are stopped.")
        return lines
    for side in (0, 1):
        fall = _clock.ran_out(ran, side, to_move, now)
        if fall is not None:
            claimant = SIDES[1 - side]
            late = "" if fall.number is None else f" (action {fall.number} was late)"
            lines.append(f"{SIDE_TITLES[side]}'s time ran out at {_clock.format_stamp(fall.deadline)}"
                         f"{late}: {SIDE_TITLES[1 - side]} may claim the game "
                         f"(tomis claim {name} --as {claimant})")
    return lines


def _side_line(ran, side: int, to_move, now: int) -> str:
    """``Black: 15d 2h left, to act since ...; time runs out at ...``."""
    from .. import clock as _clock
    from ..board import SIDE_TITLES

    left = ran.time_left(side, to_move, now)
    words = (f"{SIDE_TITLES[side]}: {_clock.describe_duration(left)} left" if left >= 0
             else f"{SIDE_TITLES[side]}: no time left")
    target = ran.next_control(side)
    if target is not None and left >= 0:
        words += f" until its {_ordinal(target)} action"
    if side == to_move and ran.since is not None:
        words += f", to act since {_clock.format_stamp(ran.since)}"
        if left >= 0:
            words += f"; time runs out at {_clock.format_stamp(ran.deadline(side))}"
    elif side == to_move:
        words += ", to act; the clocks start with White's first action"
    return words


def _leave_lines(facts, now: int) -> list[str]:
    """Leave taken and left in ``now``'s year, and each side's leave not yet over."""
    from .. import clock as _clock
    from ..board import SIDE_TITLES

    year = _clock.year_of(now)
    allowance = facts.leave_allowance
    taken = [_clock.leave_days_in_year(facts.leaves, side, year) for side in (0, 1)]
    lines = [f"Leave in {year} ({allowance} days a side per calendar year): " + "; ".join(
        f"{SIDE_TITLES[side]} {taken[side]} taken, {max(0, allowance - taken[side])} left"
        for side in (0, 1))]
    for leave in sorted(facts.leaves, key=lambda leave: leave.begins):
        first, last = _clock.format_date(leave.begins), _clock.format_date(leave.ends - _clock.DAY)
        side = SIDE_TITLES[leave.side]
        if leave.covers(now):
            lines.append(f"{side} is on leave from {first} to {last}: its clock stands still")
        elif leave.begins > now:
            lines.append(f"{side} takes leave from {first} to {last}")
    return lines


def _ordinal(number: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``11th``, ``22nd``."""
    if number % 100 in (11, 12, 13):
        return f"{number}th"
    return f"{number}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(number % 10, 'th')}"


def _control_words(control) -> str:
    from .. import clock as _clock

    start = _clock.describe_duration(control.start)
    if control.per is not None:
        return f"{control.per} own actions in {start}, cumulative (time saved carries forward)"
    plus = _clock.describe_duration(control.increment)
    if control.cap is None:
        return f"{start} each, {plus} more after each own action"
    return (f"a bank of {start} each, {plus} more after each own action, "
            f"never above {_clock.describe_duration(control.cap)}")


# --------------------------------------------------------------------------- ending a game

class Ending:
    """Read FILE under its lock, let ``change(game, source)`` end the game, write, report."""

    def __init__(self, file: str):
        self.file = file

    def run(self, change) -> None:
        if self.file == "-":
            self._once(None, change)
            return
        with pinned_and_locked(self.file) as pinned:
            self._once(pinned, change)

    def _once(self, pinned, change) -> None:
        from ..errors import visible
        from .records import digest_line

        source = read_record(self.file, pinned=pinned)
        if source.mailbox:
            raise click.UsageError(f"{source.name} is a mailbox, and this command writes the "
                                   f"record back to FILE: save the message as a file first")
        game = load_game(source)
        summary = change(game.record, source)
        text = str(game)
        _read_back(text)
        if self.file == "-":
            echo_record(text)
            click.echo(summary, err=True)
            return
        write_over(self.file, text, pinned)
        # For a person: the record's control characters made visible (FILE keeps them).
        click.echo("\n".join([summary, "", digest_line(game), "",
                              visible(text.rstrip("\n"), lines=True)]))


def _read_back(text: str) -> None:
    """The record about to be written must read back as valid: a bug here, never a bad file."""
    from .. import record

    record.read_game(text)


def refuse_if_over(game, source) -> None:
    from ..errors import RecordError

    state = game.final
    if state.is_over:
        raise source.failure(RecordError(f"the game is over ({state.result}: {state.reason}); "
                                         f"it cannot end again (R22)", 1, 1))
    if game.result != "*":
        raise source.failure(RecordError(f"the game has already ended {game.result} (R23)", 1, 1))


def add_command(game, command: str) -> None:
    """Write ``command`` in a comment after the last action (before the first if none)."""
    (game.nodes[-1].comments if game.nodes else game.comments).append(command)


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@side_option("The side claiming: its opponent's time must have run out.")
@now_option("The time of the claim.")
def claim(file, as_side, now):
    """Win the game in FILE because the opponent's time ran out (TimeControl tag).

    Writes the result, [Termination "time forfeit"] and {[%claim TIME]}.
    """
    at = parse_now(now)
    Ending(file).run(lambda game, source: claim_game(game, source, SIDES.index(as_side), at))


def claim_game(game, source, side: int, at: int) -> str:
    from .. import clock as _clock
    from .. import correspondence, record
    from ..board import SIDE_TITLES
    from ..errors import RecordError

    refuse_if_over(game, source)
    facts, ran = _clocks(game, source)
    opponent = 1 - side
    to_move = game.final.to_move
    if ran.since is not None and at < ran.since:
        raise source.failure(RecordError(
            f"the claim at {_clock.format_stamp(at)} is earlier than the last timestamp, "
            f"{_clock.format_stamp(ran.since)}", 1, 1))
    fall = _clock.ran_out(ran, opponent, to_move, at)
    if fall is None:
        left = _clock.describe_duration(ran.time_left(opponent, to_move, at))
        raise source.failure(RecordError(
            f"{SIDE_TITLES[opponent]}'s time has not run out: {left} left at "
            f"{_clock.format_stamp(at)} (TimeControl {game.tags[_clock.TIME_CONTROL_TAG]})", 1, 1))
    add_command(game, f"[%claim {_clock.format_stamp(at)}]")
    game.tags[correspondence.TERMINATION_TAG] = correspondence.TIME_FORFEIT
    record.finish(game, correspondence.WIN_FOR[side])
    return (f"{SIDE_TITLES[side]} claims: {SIDE_TITLES[opponent]}'s time ran out at "
            f"{_clock.format_stamp(fall.deadline)}. Result {game.result} (time forfeit)")


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--accept", is_flag=True, required=True,
              help="Accept the draw the opponent offered with its last action (=).")
@side_option("The side accepting: the side to act.")
def draw(file, accept, as_side):
    """Accept the draw offered with the opponent's last action: result 1/2-1/2 (R23).

    Offer one with `tomis move FILE ACTION --offer-draw`; any action declines it.
    """
    if not accept:
        raise click.UsageError("say --accept: a draw is offered with tomis move --offer-draw")
    Ending(file).run(lambda game, source: accept_draw(game, source, SIDES.index(as_side)))


def accept_draw(game, source, side: int) -> str:
    from .. import correspondence, record
    from ..board import SIDE_TITLES
    from ..errors import RecordError

    refuse_if_over(game, source)
    state = game.final
    if state.to_move != side:
        raise source.failure(RecordError(
            f"only the side to act may accept a draw offer, and that is {SIDE_TITLES[state.to_move]} "
            f"(action {state.ply + 1}), not {SIDE_TITLES[side]} (--as {SIDES[side]})", 1, 1))
    if not game.nodes or not getattr(game.nodes[-1], "offer", False):
        raise source.failure(RecordError(
            f"{SIDE_TITLES[1 - side]} has not offered a draw: its last action carries no (=) "
            f"(an offer stands until the next action) (R23)", 1, 1))
    add_command(game, "[%draw accept]")
    record.finish(game, correspondence.DRAW)
    return f"{SIDE_TITLES[side]} accepts {SIDE_TITLES[1 - side]}'s draw offer. Result 1/2-1/2 (R23)"


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@side_option("The side resigning (either side may, at any time).")
def resign(file, as_side):
    """Resign the game in FILE for the side given: its opponent wins (R23)."""
    Ending(file).run(lambda game, source: resign_game(game, source, SIDES.index(as_side)))


def resign_game(game, source, side: int) -> str:
    from .. import correspondence, record
    from ..board import SIDE_TITLES

    refuse_if_over(game, source)
    record.finish(game, correspondence.WIN_FOR[1 - side])
    return f"{SIDE_TITLES[side]} resigns. Result {game.result} (R23)"


COMMANDS = (clock, claim, draw, resign)


# --------------------------------------------------------------------------- inside tomis new / move

def start_clock(game, time_control: str, at: int, leave_days: int | None = None) -> None:
    """``tomis new --time-control TC [--leave-days N]``: the tags, and the game's start
    stamp (docs/NOTATION.md)."""
    from .. import clock as _clock
    from ..errors import RecordError

    try:
        _clock.parse_time_control(time_control)
    except RecordError as error:
        raise click.BadParameter(error.message, param_hint="--time-control") from None
    game.tags[_clock.TIME_CONTROL_TAG] = time_control
    if leave_days is not None:
        game.tags[_clock.LEAVE_DAYS_TAG] = str(leave_days)
    game.comments.append(f"[%ts {_clock.format_stamp(at)}]")


def parse_then(lines: tuple[str, ...]) -> list[tuple[str, ...]]:
    """``--then`` values as lines of canonical texts, checked for form (before anything is played)."""
    from .. import conditional
    from ..errors import NotationError

    parsed = []
    for text in lines:
        try:
            parsed.append(conditional.parse_line(text))
        except NotationError as error:
            raise click.BadParameter(f"{error.message} (at column {error.column} of '{text}')",
                                     param_hint="--then") from None
    return parsed


def stamps_moves(game, time_given: bool) -> bool:
    """Whether ``tomis move`` stamps its actions: under a TimeControl always, else on --time."""
    from ..clock import TIME_CONTROL_TAG

    return time_given or TIME_CONTROL_TAG in game.tags


def after_action(game, at: int | None, offer: bool, lines: list[tuple[str, ...]]) -> list[str]:
    """Annotate the action ``tomis move`` just appended, then play every reply it fires.

    The stamp ``at`` (None: no stamp), the draw offer and the conditional lines (each
    checked playable from the position after the action, docs/NOTATION.md) go after it.
    Then, while the last action fires a stored line, its reply is played at once, with
    the same stamp. Returns what happened, in words, for the summary. Raises a
    :class:`~tomis.errors.TomisError` (nothing is written then).
    """
    from .. import conditional, record
    from ..errors import TomisError
    from ..game import Position

    node = game.nodes[-1]
    played = len(game.nodes)        # the mover's action; replies it fires come after it
    if at is not None:
        _refuse_backwards(game, at)
        node.comments.append(f"[%ts {_format(at)}]")
    if offer:
        node.offer = True
    after = Position.from_state(game.final)
    for number, line in enumerate(lines, 1):
        try:
            conditional.check_playable(after, line)
        except TomisError as error:
            error.line, error.column = number, 1      # the number-th --then line
            raise
        node.comments.append(f"[%if {' '.join(line)}]")
    words = []
    if offer:
        words.append(f"{_side_title(game, len(game.nodes))} offers a draw (=)")
    words.extend(f"stored the conditional line [%if {' '.join(line)}]" for line in lines)
    while True:
        owed = _follow(game).owed
        if owed is None:
            return words + _late_note(game, played)
        record.append(game, owed.reply)
        if at is not None:
            game.nodes[-1].comments.append(f"[%ts {_format(at)}]")
        line = owed.line
        words.append(f"{_side_title(game, len(game.nodes))}'s conditional line stored after action "
                     f"{line.stored_at} answers {line.waiting_for} with {line.reply} "
                     f"(action {owed.number})")


def _refuse_backwards(game, at: int) -> None:
    """A new stamp may not be earlier than the last one (docs/NOTATION.md)."""
    from .. import correspondence

    facts = correspondence.read_facts(game)
    stamped = [s for s in (facts.start, *facts.stamps[:-1]) if s is not None]
    if stamped and at < stamped[-1]:
        raise click.BadParameter(f"{_format(at)} is earlier than the record's last timestamp, "
                                 f"{_format(stamped[-1])}; timestamps never go backwards",
                                 param_hint="--time")


def _late_note(game, index: int) -> list[str]:
    """A note when the action at ``index`` (1-based) came after its side's time ran out."""
    from .. import clock as _clock
    from .. import correspondence

    facts = correspondence.read_facts(game)
    if facts.control is None or any(stamp is None for stamp in facts.stamps):
        return []
    first = game.start.ply + 1
    stamps = [_clock.Stamp(first + i, (first + i - 1) & 1, at) for i, at in enumerate(facts.stamps)]
    ran = _clock.run(facts.control, facts.start, stamps, facts.leaves)
    number = game.start.ply + index
    for fall in ran.flag_falls:
        if fall.number == number:
            from ..correspondence import flag_fall_words
            return [f"note: {flag_fall_words(fall)}"]
    return []


def _follow(game):
    from .. import conditional, correspondence

    facts = correspondence.read_facts(game)
    first = game.start.ply + 1
    stored = {game.start.ply + index: lines for index, lines in facts.lines.items()}
    return conditional.follow(first, [str(node.action) for node in game.nodes], stored)


def _format(at: int) -> str:
    from ..clock import format_stamp

    return format_stamp(at)


def _side_title(game, index: int) -> str:
    from ..board import SIDE_TITLES

    return SIDE_TITLES[(game.start.ply + index - 1) & 1]
