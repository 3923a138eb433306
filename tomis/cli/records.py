"""The commands that write records: ``new``, ``move`` (play by email) and ``fmt``."""

from __future__ import annotations

import sys
from typing import NamedTuple

import click

from ..rules.board import SIDE_NAMES

from ..util.terminal import PLAIN
from .base import EXIT_INVALID, EXIT_USAGE, Failure
from .correspondence import after_action, parse_now, parse_then, stamp_now, start_clock
from .files import (
    INPUT_PATH, OUTPUT_PATH, editing, is_mailbox, load_game, located, new_game, no_game_error,
    output_option, pinned_and_locked, read_record, read_text, refuse_a_non_file, shown, write_new,
    write_over,
)
from .output import colour_options, digest_line, display, echo_position, echo_record

SIDES = SIDE_NAMES      # defined once, in tomis.rules.board
ACTION_PATH = "<action>"       # where errors in the ACTION argument are located
THEN_PATH = "<then>"           # ... and in a --then line


@click.command()
@click.argument("file", type=click.Path(allow_dash=True))
@click.option("--white", help="White player's name.")
@click.option("--black", help="Black player's name.")
@click.option("--rules", type=click.Choice(["manual", "readme"], case_sensitive=False), default="manual",
              show_default=True, help="Edition of the rules (E1-E4).")
@click.option("--event", help="Event tag.")
@click.option("--site", help="Site tag.")
@click.option("--date", help="Date tag, like 2026.11.22.")
@click.option("--round", "round_", help="Round tag.")
@click.option("--position", help="Start from this position string instead of the empty board.")
@click.option("--time-control", "time_control", metavar="TC",
              help="A correspondence clock: 30d+3d (start, increment per own action), "
                   "bank:240h+36h (a bank never above its start) or 10/30d (10 own actions in "
                   "30 days, cumulative); see docs/NOTATION.md.")
@click.option("--time", "start_time", metavar="TIME",
              help="When the clocks start, a UTC time like 2026-11-23T10:15Z (default: now).")
@click.option("--leave-days", "leave_days", type=click.IntRange(0, 366), metavar="N",
              help="Days of leave each side may take per calendar year (the LeaveDays tag; "
                   "without it, 45).")
def new(file, white, black, rules, event, site, date, round_, position, time_control, start_time,
        leave_days):
    """Start a new game record in FILE (never overwrites an existing file)."""
    from ..pictures import render

    game = new_game(white=white, black=black, rules=rules, event=event, site=site,
                    date=date, round=round_, position=position)
    if time_control is not None:
        start_clock(game, time_control, parse_now(start_time, "--time"), leave_days)
    else:
        for value, option in ((start_time, "--time"), (leave_days, "--leave-days")):
            if value is not None:
                raise click.BadParameter(f"{option} is for a game with a clock: give "
                                         f"--time-control too", param_hint=option)
    text = str(game)
    if file == "-":
        echo_record(text)
        return
    write_new(file, text)
    click.echo(f"{file}: new game, {render.turn_words(game.position.state)}")


def _complete_action(ctx, _param, incomplete: str):
    """Shell completion of ACTION: the legal actions of the game in FILE.

    Runs inside the shell's completion, so it must never print (a mail note on stderr
    would land in the user's prompt) and never fail: anything unreadable offers nothing.
    """
    from click.shell_completion import CompletionItem

    from ..mail import quotes
    from ..notation import record
    from ..util import textio

    try:
        text = quotes.extract_record(textio.read_path(ctx.params["file"])).text
        game = record.read_game(text)
        from ..game import Game

        texts = [str(action) for action in Game.from_record(game).legal_actions()]
    except Exception:   # noqa: BLE001 -- no file yet, a broken record, anything: no offers
        return []
    return [CompletionItem(t) for t in texts if t.lower().startswith(incomplete.lower())]


@click.command()
@click.argument("file", type=INPUT_PATH)
@click.argument("action", shell_complete=_complete_action)
@click.option("--as", "as_side", type=click.Choice(SIDES, case_sensitive=False),
              help="Refuse unless it is this side's turn (play-by-email safety).")
@click.option("--dry-run", is_flag=True, help="Show the outcome, write nothing.")
@click.option("--since", "since", type=click.Path(),
              help="The record you sent last: refuse unless FILE is exactly it plus the "
                   "opponent's new action(s) (play-by-email safety).")
@click.option("--mail", "mail_out", type=OUTPUT_PATH, callback=refuse_a_non_file,
              help="Also write the reply as a ready-to-send message (.eml) to this file.")
@click.option("--to", "to", metavar="ADDR",
              help="The opponent's address (remembered beside FILE for this game).")
@click.option("--send", "send", is_flag=True,
              help="Also send the reply by SMTP (settings: TOMIS_SMTP_* or the config file).")
@click.option("--time", "time", metavar="TIME",
              help="When the action was played, a UTC time like 2026-11-23T10:15Z (default: "
                   "now; the action is stamped in a game with a TimeControl or when given).")
@click.option("--offer-draw", "offer_draw", is_flag=True,
              help="Offer a draw with this action, (=); any action of the opponent declines it.")
@click.option("--then", "then", metavar="LINE", multiple=True,
              help='A binding line "THEIRS MINE [THEIRS MINE ...]": when the opponent plays '
                   "THEIRS, MINE is played at once; anything else cancels it. Repeatable.")
@output_option("the new record")
@colour_options
def move(file, action, as_side, dry_run, since, mail_out, to, send, time, offer_draw, then,
         output, color, ascii_only):
    """Play ACTION in the game in FILE and write the record back.

    The whole record is checked first. The new record is written atomically under a file
    lock, in canonical form. Then the action, what it destroyed, the board and whose turn
    it is are printed, ready to paste into a reply. With FILE -, the record is read from
    stdin, the new record goes to stdout and the summary to stderr. FILE may be one
    message of a mailbox (an mbox, a Maildir, an IMAP folder; --message): the new record
    then goes to -o FILE or WHITE-vs-BLACK.tgn, never into the mailbox.
    """
    if since == "-":
        raise click.BadParameter("the record you sent must be a file you kept, not - (stdin)",
                                 param_hint="--since")
    from .mail import MoveMail

    elsewhere = file != "-" and (output is not None or is_mailbox(file))
    if output is not None and file == "-":
        raise click.BadParameter("with FILE - the new record goes to stdout", param_hint="-o")
    # Its usage errors come first; the record it remembers the address beside is the one
    # written (for a mailbox without -o, known once the message is read).
    mailing = MoveMail(output or file, mail_out, to, send, dry_run,
                       check_sidecar=not elsewhere or output is not None)
    _refuse_swapped_arguments(file, action)
    extras = MoveExtras(parse_now(time, "--time") if time is not None else None, time is not None,
                        offer_draw, parse_then(then))
    step = MoveStep(file, action, as_side, dry_run, since, extras)
    step.display = display(ascii_only, color)
    step.run(output)
    mailing.after(step)       # the move is saved: mail comes after, outside the lock


def _refuse_swapped_arguments(file: str, action: str) -> None:
    """``tomis move B@e1 game.tgn``: say which way round they go, before anything else."""
    import os

    from ..errors import FileError
    from ..util.hints import swapped_arguments

    hint = None if os.path.lexists(file) else swapped_arguments("move", file, action)
    if hint is not None:
        raise Failure(located(FileError(f"no such file; {hint}"), shown(file)), EXIT_USAGE)


class MoveExtras(NamedTuple):
    """The correspondence options of ``tomis move`` (docs/NOTATION.md): when the action was
    played (None: now), whether ``--time`` was given, a draw offer, conditional lines."""

    at: int | None
    time_given: bool
    offer: bool
    lines: list[tuple[str, ...]]


class MoveStep:
    """One play-by-email step, split into checks that can be extended (e.g. ``--since``)."""

    def __init__(self, file: str, action: str, as_side: str | None, dry_run: bool,
                 since: str | None = None, extras: MoveExtras | None = None):
        self.file, self.action, self.as_side, self.dry_run = file, action, as_side, dry_run
        self.since = since
        self.extras = extras or MoveExtras(None, False, False, [])
        self.played = 0         # the number of nodes once ACTION is played
        self.words: list[str] = []      # what the correspondence options did, for the summary
        self.display = None     # how to draw the board (a tomis.terminal.Display)
        self.target = file      # where the new record is written

    def run(self, output: str | None = None) -> None:
        """Play and write (see :func:`~tomis.cli.files.editing`: FILE, or ``output`` or
        WHITE-vs-BLACK.tgn for one message of a mailbox), then print the summary."""
        with editing(self.file, output=output, dry_run=self.dry_run) as edit:
            source, game = edit.source, edit.game
            self.check_since(game, source)
            self.check_turn(game)
            report = self.play(game)
            self.played = game.position.action_number - 1   # over the whole game (a Position tag counts on)
            self.words = self.correspond(game)
        self.target = edit.target if edit.target not in (None, "-") else self.file
        self.summarise(game, report, edit.text)
        # Kept for what follows the move (--mail, --send).
        self.game, self.new_text, self.origin = game, edit.text, source.origin

    def correspond(self, game) -> list[str]:
        """Stamp, offer, store lines, and play the replies they fire (docs/NOTATION.md)."""
        from ..errors import TomisError

        extras = self.extras
        at = None
        if game.stamps_actions(extras.time_given):
            at = extras.at if extras.at is not None else self.stamp_now(game)
        try:
            return after_action(game, at, extras.offer, extras.lines)
        except TomisError as error:
            # A line given with --then cannot be played: locate it on the command line.
            raise Failure(located(error, THEN_PATH), EXIT_INVALID) from None

    def stamp_now(self, game) -> int:
        """When the action was played, without --time: now (:func:`stamp_now`); a record
        stamped later than that is its file's error, never the option's."""
        from ..errors import RecordError

        try:
            return stamp_now(game)
        except RecordError as error:
            raise Failure(located(error, shown(self.file)), EXIT_INVALID) from None

    def check_since(self, game, source) -> None:
        """With ``--since``: the received record must extend the one we sent, exactly."""
        if self.since is None:
            return
        from ..notation import digest
        from ..errors import TomisError

        sent = load_game(read_record(self.since))
        try:
            digest.check_extends(sent.record, game.record, self.since)
        except TomisError as error:
            raise source.failure(error) from None

    def check_turn(self, game) -> None:
        from ..errors import IllegalActionError

        position = game.position
        if position.is_over:
            message = f"the game is over ({position.result}); no action can follow"
        elif self.as_side is not None and position.turn != self.as_side:
            message = (f"it is {position.turn.capitalize()}'s turn (action "
                       f"{position.action_number}), not {self.as_side.capitalize()}'s "
                       f"(--as {self.as_side})")
        else:
            return
        raise Failure(located(IllegalActionError(message, 1, 1), ACTION_PATH), EXIT_INVALID,
                      self.action)

    def play(self, game):
        """Play the action; what it did, as the engine reports it (for render)."""
        from ..errors import TomisError

        from ..util.hints import shell_took_a_redirect

        try:
            game.play(self.action)
        except TomisError as error:
            # The action came from the command line, so locate it there, not in the file.
            error.path = ACTION_PATH
            error.line = 1
            hint = shell_took_a_redirect(self.action)
            if hint is not None:
                error.message += f"; {hint}"
            raise Failure(error, EXIT_INVALID, self.action) from None
        return game.record.nodes[-1].report

    def summarise(self, game, report, new_text: str) -> None:
        from ..pictures import render
        from ..errors import visible

        to_stderr = self.file == "-"
        lines = render.report_lines(report, self.played) + self.words
        if self.dry_run:
            lines.insert(0, "dry run: nothing written")
        # With FILE -, the summary shares stderr with any errors: kept plain.
        shown = PLAIN if to_stderr else (self.display or display())
        lines += ["", render.position_text(game.position.state, color=shown.colour,
                                           arrows=shown.glyphs), "", digest_line(game)]
        if not to_stderr:
            # The record itself closes the summary, so one paste makes a complete reply
            # that the opponent's `tomis move` can read straight from the saved email.
            # Shown to a person, so its control characters are made visible; FILE keeps
            # the record byte for byte.
            lines += ["", visible(new_text.rstrip("\n"), lines=True)]
        echo_position("\n".join(lines), shown, err=to_stderr)


@click.command()
@click.argument("files", nargs=-1, required=True, type=INPUT_PATH)
@click.option("--check", is_flag=True, help="Write nothing; exit 1 if any file would change.")
def fmt(files, check):
    """Rewrite records in canonical form (atomically), or with --check only report.

    FILE - reads stdin and writes the canonical record to stdout. Mail text around a
    record is not removed here: fmt rewrites record files, it does not edit messages.
    """
    codes = [format_file(path, check) for path in files]
    sys.exit(max(codes, default=0))


def format_file(path: str, check: bool) -> int:
    """Format one file; the exit code it earns (1: --check found a difference).

    The file is read one game at a time, twice when it changes: once to check every game
    and compare, once to write. So nothing is written, even to stdout, before every game
    is known valid, and no more than one game is held (a 16 MiB archive is not kept whole).
    """
    source = read_record(path, extract=False)
    _refuse_a_saved_message(source)
    changed = _differs(source)
    if check:
        if changed:
            click.echo(f"{source.name}: would reformat", err=True)
        return EXIT_INVALID if changed else 0
    if path == "-":
        for part in _canonical(source):
            echo_record(part)
    elif changed:
        _replace_if_unchanged(path, source.raw, _canonical(source))
        click.echo(f"{shown(path)}: reformatted", err=True)
    return 0


def _canonical(source):
    """The canonical text of every game, game by game (``record.write_all`` in pieces);
    the first invalid game, or a file without any, raises its located failure."""
    from ..notation import record

    source.refuse_prose()
    count = 0
    for count, item in enumerate(record.iter_read(source.text, source.name), 1):
        if item.error is not None:
            raise source.failure(item.error)
        yield ("\n" if count > 1 else "") + record.write(item.game)
    if count == 0:              # else an empty or blank file would be "formatted" to nothing
        raise source.failure(no_game_error())


def _differs(source) -> bool:
    """Whether the canonical text differs from the file; checks every game on the way."""
    raw, at, same = source.raw, 0, True
    for part in _canonical(source):
        if same and raw.startswith(part, at):
            at += len(part)
        else:
            same = False        # read on all the same: every game must be valid
    return not (same and at == len(raw))


def _refuse_a_saved_message(source) -> None:
    """A saved message would only fail on its first header line; say what it is instead,
    and which command keeps its record."""
    from ..mail import mime
    from ..errors import FileError, TomisError

    try:
        if mime.parse_message(source.raw.encode("utf-8")) is None:
            return
    except FileError as error:      # a message past a MIME limit (docs/SECURITY.md)
        raise Failure(located(error, source.name), EXIT_USAGE) from None
    name = "-" if source.path == "-" else shown(source.path)    # the command reads stdin too
    raise source.failure(TomisError(
        f"a saved message, not a record file: fmt rewrites records only; keep its record "
        f"with  tomis extract {name} > game.tgn"))


def _replace_if_unchanged(path: str, seen: str, text) -> None:
    """Write ``text`` (a string, or pieces of one) over ``path`` under the lock, unless
    someone changed it meanwhile."""
    from ..errors import FileError

    with pinned_and_locked(path) as pinned:
        if read_text(path, pinned) != seen:
            error = FileError("the file changed while it was being formatted; run fmt again")
            error.path = path
            raise error
        write_over(path, text, pinned)
