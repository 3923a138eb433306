"""Correspondence play: ``tomis clock``, ``claim``, ``draw --accept``, ``resign``, and
what ``new --time-control`` and ``move --time --offer-draw --then`` do (:mod:`.records`).

The commands read a record and check it whole (as every command does); the three that end
a game change it through the record API and write it back atomically under the file lock,
printing a summary, the new Digest and the record, ready to paste into a reply. The rules
they follow are docs/NOTATION.md's "Correspondence play".
"""

from __future__ import annotations

import click

from ..rules.board import SIDE_NAMES

from .files import editing, load_game, output_option, read_record
from .output import digest_line

SIDES = SIDE_NAMES      # defined once, in tomis.rules.board


def now_option(help_text: str):
    return click.option("--now", "now", metavar="TIME",
                        help=f"{help_text} A UTC time like 2026-11-23T10:15Z; default: now.")


def side_option(help_text: str):
    return click.option("--as", "as_side", type=click.Choice(SIDES), required=True, help=help_text)


def parse_now(text: str | None, option: str = "--now") -> int:
    """``text`` as a stamp, or this minute; a bad value is a usage error naming the option."""
    from datetime import datetime, timezone

    from ..notation import clock
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
    game = load_game(source)
    facts, ran = _clocks(game, source)
    from ..errors import visible

    click.echo(visible("\n".join(clock_lines(game.record, facts, ran, at, source.name)), lines=True))


def _clocks(game, source):
    """The game's facts and clocks; a game without a TimeControl tag has no clock."""
    from ..errors import RecordError

    try:
        return game.clock()
    except RecordError as error:
        raise source.failure(error) from None


def clock_lines(game, facts, ran, now: int, name: str = "FILE") -> list[str]:
    """The clocks in words: the control, one line per side, the leave, then who may claim."""
    from ..notation import clock as _clock
    from ..pictures import words
    from ..rules.board import SIDE_TITLES

    state = game.final
    over = game.result != "*" or state.is_over
    to_move = None if over else state.to_move
    heading = words.control_heading(game.tags[_clock.TIME_CONTROL_TAG], facts.control)
    # The leave is shown once the record speaks of it: a game without leave reads short.
    any_leave = facts.leaves or facts.leave_days is not None
    lines = words.clock_lines(heading, ran, to_move, now, leave=facts if any_leave else None)
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


# --------------------------------------------------------------------------- ending a game

class Ending:
    """Read FILE under its lock, let ``change(game)`` end the game, write, report.

    FILE that is one message of a mailbox, or ``output`` (-o), sends the record elsewhere:
    to ``output``, else WHITE-vs-BLACK.tgn (see :func:`~tomis.cli.files.editing`)."""

    def __init__(self, file: str, output: str | None = None):
        self.file, self.output = file, output
        if output is not None and file == "-":
            raise click.BadParameter("with FILE - the new record goes to stdout", param_hint="-o")

    def run(self, change) -> None:
        from ..errors import RecordError, visible

        with editing(self.file, output=self.output) as edit:
            try:
                summary = change(edit.game)
            except RecordError as error:
                raise edit.source.failure(error) from None
        if self.file == "-":
            click.echo(summary, err=True)
            return
        # For a person: the record's control characters made visible (FILE keeps them).
        click.echo("\n".join([summary, "", digest_line(edit.game), "",
                              visible(edit.text.rstrip("\n"), lines=True)]))
        if edit.elsewhere:
            from .mail import remember_reply

            remember_reply(edit.target, edit.source.origin)


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@side_option("The side claiming: its opponent's time must have run out.")
@now_option("The time of the claim.")
@output_option("the ended record")
def claim(file, as_side, now, output):
    """Win the game in FILE because the opponent's time ran out (TimeControl tag).

    Writes the result, [Termination "time forfeit"] and {[%claim TIME]}.
    """
    at = None if now is None else parse_now(now)
    Ending(file, output).run(lambda game: claim_words(game, as_side, at))


def claim_words(game, side: str, at: int | None) -> str:
    """Claim for ``side`` at ``at`` (None: now, as :func:`stamp_now` says it; the library
    refuses a claim too early); the summary."""
    from ..notation.clock import format_stamp
    from ..rules.board import SIDE_TITLES

    fall = game.claim_time(side, stamp_now(game) if at is None else at)
    claimant = SIDES.index(side)
    return (f"{SIDE_TITLES[claimant]} claims: {SIDE_TITLES[1 - claimant]}'s time ran out at "
            f"{format_stamp(fall.deadline)}. Result {game.result} (time forfeit)")


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--accept", is_flag=True, required=True,
              help="Accept the draw the opponent offered with its last action (=).")
@side_option("The side accepting: the side to act.")
@output_option("the ended record")
def draw(file, accept, as_side, output):
    """Accept the draw offered with the opponent's last action: result 1/2-1/2 (R23).

    Offer one with `tomis move FILE ACTION --offer-draw`; any action declines it.
    """
    if not accept:
        raise click.UsageError("say --accept: a draw is offered with tomis move --offer-draw")
    Ending(file, output).run(lambda game: accept_words(game, as_side))


def accept_words(game, side: str) -> str:
    from ..rules.board import SIDE_TITLES

    game.accept_draw(side)
    accepting = SIDES.index(side)
    return f"{SIDE_TITLES[accepting]} accepts {SIDE_TITLES[1 - accepting]}'s draw offer. Result 1/2-1/2 (R23)"


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@side_option("The side resigning (either side may, at any time).")
@output_option("the ended record")
def resign(file, as_side, output):
    """Resign the game in FILE for the side given: its opponent wins (R23)."""
    Ending(file, output).run(lambda game: resign_words(game, as_side))


def resign_words(game, side: str) -> str:
    from ..rules.board import SIDE_TITLES

    game.check_not_ended()
    game.resign(side)
    return f"{SIDE_TITLES[SIDES.index(side)]} resigns. Result {game.result} (R23)"


COMMANDS = (clock, claim, draw, resign)


# --------------------------------------------------------------------------- inside tomis new / move

def start_clock(game, time_control: str, at: int, leave_days: int | None = None) -> None:
    """``tomis new --time-control TC [--leave-days N]``: a control that is none is a usage
    error."""
    from ..errors import RecordError

    try:
        game.start_clock(time_control, at, leave_days)
    except RecordError as error:
        raise click.BadParameter(error.message, param_hint="--time-control") from None


def parse_then(lines: tuple[str, ...]) -> list[tuple[str, ...]]:
    """``--then`` values as lines of canonical texts, checked for form (before anything is played)."""
    from ..notation import conditional
    from ..errors import NotationError

    parsed = []
    for text in lines:
        try:
            parsed.append(conditional.parse_line(text))
        except NotationError as error:
            raise click.BadParameter(f"{error.message} (at column {error.column} of '{text}')",
                                     param_hint="--then") from None
    return parsed


def stamp_now(game) -> int:
    """The stamp of an action played now, when no time is given: this minute, or the
    record's last stamp when that lies later in this same minute (a referee stamps to
    the second, and stamps never go backwards). A record stamped after this minute is a
    :class:`~tomis.errors.RecordError` that names this computer's clock, not an option."""
    from ..notation import clock, correspondence
    from ..errors import RecordError

    now = parse_now(None)
    facts = correspondence.read_facts(game.record)
    last = max((at for at in (facts.start, *facts.stamps) if at is not None), default=None)
    if last is None or last <= now:
        return now
    if last < now + clock.MINUTE:
        return last
    raise RecordError(f"the record's last timestamp, {clock.format_stamp(last)}, is later than "
                      f"this computer's clock says it is ({clock.format_stamp(now)}, UTC): "
                      f"set the clock, or give the time the action was played (tomis move --time)")


def after_action(game, at: int | None, offer: bool, lines: list[tuple[str, ...]]) -> list[str]:
    """What ``tomis move`` adds after the action it played (docs/NOTATION.md): the stamp
    ``at`` (None: none), the draw offer, the conditional lines, then every reply they
    fire, played at once with the same stamp. Returns what happened, in words.

    A stamp earlier than the record's last is a usage error; a line that cannot be
    played raises its :class:`~tomis.errors.RecordError` (``line``: which ``--then``).
    Nothing is written either way.
    """
    from ..errors import RecordError
    from ..rules.board import SIDE_TITLES

    played = len(game.record.nodes)        # the mover's action; replies it fires come after it
    if at is not None:
        try:
            game.stamp(at)
        except RecordError as error:
            raise click.BadParameter(error.message, param_hint="--time") from None
    if offer:
        game.offer_draw()
    game.add_lines(lines)
    words = []
    if offer:
        words.append(f"{_side_title(game, played)} offers a draw (=)")
    words.extend(f"stored the conditional line [%if {' '.join(line)}]" for line in lines)
    for owed in game.play_fired_lines(at, stamp=at is not None):
        line = owed.line
        words.append(f"{SIDE_TITLES[owed.side]}'s conditional line stored after action "
                     f"{line.stored_at} answers {line.waiting_for} with {line.reply} "
                     f"(action {owed.number})")
    return words + _late_note(game, played)


def _late_note(game, index: int) -> list[str]:
    """A note when the action at ``index`` (1-based) came after its side's time ran out."""
    from ..notation.correspondence import flag_fall_words

    fall = game.flag_fall_of(game.record.start.ply + index)
    return [] if fall is None else [f"note: {flag_fall_words(fall)}"]


def _side_title(game, index: int) -> str:
    from ..rules.board import SIDE_TITLES

    return SIDE_TITLES[(game.record.start.ply + index - 1) & 1]
