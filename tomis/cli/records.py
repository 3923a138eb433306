"""The commands that write records: ``new``, ``move`` (play by email) and ``fmt``."""

from __future__ import annotations

import sys

import click

from . import EXIT_INVALID, Failure
from .files import (
    load_game, load_games, located, new_game, no_game_error, pinned_and_locked, read_record,
    read_text, shown, write_new, write_over,
)
from .output import use_colour

SIDES = ("white", "black")
ACTION_PATH = "<action>"       # where errors in the ACTION argument are located


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--white", help="White player's name.")
@click.option("--black", help="Black player's name.")
@click.option("--rules", type=click.Choice(["manual", "readme"]), default="manual",
              show_default=True, help="Edition of the rules (E1-E4).")
@click.option("--event", help="Event tag.")
@click.option("--site", help="Site tag.")
@click.option("--date", help="Date tag, like 2026.11.22.")
@click.option("--round", "round_", help="Round tag.")
@click.option("--position", help="Start from this position string instead of the empty board.")
def new(file, white, black, rules, event, site, date, round_, position):
    """Start a new game record in FILE (never overwrites an existing file)."""
    from .. import render

    game = new_game(white=white, black=black, rules=rules, event=event, site=site,
                    date=date, round=round_, position=position)
    text = str(game)
    if file == "-":
        click.echo(text, nl=False)
        return
    write_new(file, text)
    click.echo(f"{file}: new game, {render.turn_words(game.position.state)}")


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.argument("action")
@click.option("--as", "as_side", type=click.Choice(SIDES),
              help="Refuse unless it is this side's turn (play-by-email safety).")
@click.option("--dry-run", is_flag=True, help="Show the outcome, write nothing.")
@click.option("--since", "since", type=click.Path(dir_okay=False, allow_dash=False),
              help="The record you sent last: refuse unless FILE is exactly it plus the "
                   "opponent's new action(s) (play-by-email safety).")
def move(file, action, as_side, dry_run, since):
    """Play ACTION in the game in FILE and write the record back.

    The whole record is checked first. The new record is written atomically under a file
    lock, in canonical form. Then the action, what it destroyed, the board and whose turn
    it is are printed, ready to paste into a reply. With FILE -, the record is read from
    stdin, the new record goes to stdout and the summary to stderr.
    """
    if since == "-":
        raise click.BadParameter("the record you sent must be a file you kept, not - (stdin)",
                                 param_hint="--since")
    step = MoveStep(file, action, as_side, dry_run, since)
    if file == "-" or dry_run:
        step.run()
        return
    with pinned_and_locked(file) as step.pinned:
        step.run()


class MoveStep:
    """One play-by-email step, split into checks that can be extended (e.g. ``--since``)."""

    def __init__(self, file: str, action: str, as_side: str | None, dry_run: bool,
                 since: str | None = None):
        self.file, self.action, self.as_side, self.dry_run = file, action, as_side, dry_run
        self.since = since
        self.pinned = None      # the game file as opened under the lock (safefile.pin)

    def run(self) -> None:
        source = read_record(self.file, pinned=self.pinned)
        game = load_game(source)
        self.check_since(game, source)
        self.check_turn(game)
        report = self.play(game)
        new_text = str(game)
        self.save(new_text)
        self.summarise(game, report, new_text)

    def check_since(self, game, source) -> None:
        """With ``--since``: the received record must extend the one we sent, exactly."""
        if self.since is None:
            return
        from .. import digest
        from ..errors import TomisError

        sent = load_game(read_record(self.since))
        try:
            digest.check_extends(sent.record, game.record, self.since, source.text)
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
        raise Failure(located(IllegalActionError(message, 1, 1), ACTION_PATH))

    def play(self, game):
        """Play the action; what it did, as the engine reports it (for render)."""
        from ..errors import TomisError

        try:
            game.play(self.action)
        except TomisError as error:
            # The action came from the command line, so locate it there, not in the file.
            error.path = ACTION_PATH
            error.line = 1
            raise Failure(error, EXIT_INVALID, self.action) from None
        return game.record.nodes[-1].report

    def save(self, new_text: str) -> None:
        if self.dry_run:
            return
        if self.file == "-":
            click.echo(new_text, nl=False)
        else:
            write_over(self.file, new_text, self.pinned)

    def summarise(self, game, report, new_text: str) -> None:
        from .. import render

        to_stderr = self.file == "-"
        count = len(game.record.nodes)
        lines = render.report_lines(report, count)
        if self.dry_run:
            lines.insert(0, "dry run: nothing written")
        colour = not to_stderr and use_colour(False)
        lines += ["", render.position_text(game.position.state, color=colour), "",
                  digest_line(game)]
        if not to_stderr:
            # The record itself closes the summary, so one paste makes a complete reply
            # that the opponent's `tomis move` can read straight from the saved email.
            lines += ["", new_text.rstrip("\n")]
        click.echo("\n".join(lines), err=to_stderr)


def digest_line(game) -> str:
    """The new Digest and why to keep it (docs/SECURITY.md)."""
    return (f"Digest after action {len(game.record.nodes)}: {game.digest} (keep it, or the "
            f"file you send: a reply that rewrites the past will not match; see --since)")


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--check", is_flag=True, help="Write nothing; exit 1 if any file would change.")
def fmt(files, check):
    """Rewrite records in canonical form (atomically), or with --check only report.

    FILE - reads stdin and writes the canonical record to stdout. Mail text around a
    record is not removed here: fmt rewrites record files, it does not edit messages.
    """
    codes = [format_file(path, check) for path in files]
    sys.exit(max(codes, default=0))


def format_file(path: str, check: bool) -> int:
    """Format one file; the exit code it earns (1: --check found a difference)."""
    from .. import record

    source = read_record(path, extract=False)
    checked = load_games(source)
    if not checked:             # else an empty or blank file would be "formatted" to nothing
        raise source.failure(no_game_error())
    for item in checked:
        if item.error is not None:
            raise source.failure(item.error)
    canonical = record.write_all([item.game for item in checked])
    changed = canonical != source.raw
    if check:
        if changed:
            click.echo(f"{source.name}: would reformat", err=True)
        return EXIT_INVALID if changed else 0
    if path == "-":
        click.echo(canonical, nl=False)
    elif changed:
        _replace_if_unchanged(path, source.raw, canonical)
        click.echo(f"{shown(path)}: reformatted", err=True)
    return 0


def _replace_if_unchanged(path: str, seen: str, text: str) -> None:
    """Write ``text`` over ``path`` under the lock, unless someone changed it meanwhile."""
    from ..errors import FileError

    with pinned_and_locked(path) as pinned:
        if read_text(path, pinned) != seen:
            error = FileError("the file changed while it was being formatted; run fmt again")
            error.path = path
            raise error
        write_over(path, text, pinned)
