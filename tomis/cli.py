"""The ``tomis`` command line: the only module that prints, prompts or exits.

Only click is imported at module level, so ``tomis --help`` starts as fast as a bare click
app; the engine, the record reader and lark load inside the commands that need them.

Exit codes: 0 ok; 1 an invalid game, an illegal action or a file we could not write or
lock; 2 a usage error (click's own) or an input file we could not read.
Every error is one ``path:line:column: message`` line on stderr; when stderr is a
terminal, the offending source line and a caret follow it.
"""

from __future__ import annotations

import contextlib
import os
import sys

import click

EXIT_INVALID = 1
EXIT_USAGE = 2
SIDES = ("white", "black")
ACTION_PATH = "<action>"       # where errors in the ACTION argument are located
STDIN_NAME = "<stdin>"
PROGRESS_MIN_FILES = 20        # fewer files finish before a progress bar helps
MAX_DELAY = 3600.0             # replay --delay, seconds; time.sleep refuses inf and huge values


class Failure(Exception):
    """A TomisError on its way out, with its exit code and the text it was found in."""

    def __init__(self, error, code: int = EXIT_INVALID, text: str | None = None):
        super().__init__(str(error))
        self.error = error
        self.code = code
        self.text = text


class TomisGroup(click.Group):
    """The one place where project errors become a located line and an exit code."""

    def invoke(self, ctx):
        from .errors import TomisError

        try:
            return super().invoke(ctx)
        except Failure as failure:
            _print_error(failure.error, failure.text)
            ctx.exit(failure.code)
        except TomisError as error:
            _print_error(error, None)
            ctx.exit(EXIT_INVALID)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except BrokenPipeError:
            # The reader went away (`tomis moves | head`): nothing left to say to it.
            _silence_stdout()
            ctx.exit(EXIT_INVALID)
        except Exception as error:  # a bug of ours: one line, not a traceback, for users
            if os.environ.get("TOMIS_DEBUG"):
                raise
            click.echo(f"tomis: internal error: {type(error).__name__}: {error} "
                       "(please report it; TOMIS_DEBUG=1 shows the traceback)", err=True)
            ctx.exit(EXIT_INVALID)


def _silence_stdout() -> None:
    """Point stdout at the null device so Python's exit-time flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _print_error(error, text: str | None) -> None:
    click.echo(error.located(), err=True)
    if text is not None and _is_terminal(sys.stderr):
        for line in caret_lines(text, error.line, error.column):
            click.echo(line, err=True)


def caret_lines(text: str, line: int | None, column: int | None) -> list[str]:
    """The source line an error points at and a caret under its column, indented, if both exist."""
    from .notation import caret_context     # only on the error path

    context = caret_context(text, line, column)
    if not context:
        return []
    source, caret = context.split("\n")
    if not column or column < 1:
        return ["  " + source]
    return ["  " + source, "  " + caret]


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _located(error, path: str | None):
    """``error`` with its path filled in when the reader did not know the file name."""
    if error.path is None:
        error.path = path
    return error


# --------------------------------------------------------------------------- reading

def read_text(path: str) -> str:
    """The decoded text of ``path`` (``-`` is stdin); unreadable input exits 2."""
    from . import textio
    from .errors import FileError

    try:
        if path == "-":
            return textio.read_stream(sys.stdin, STDIN_NAME)  # its .buffer gives the raw bytes
        return textio.read_path(path)
    except FileError as error:
        raise Failure(_located(error, _shown(path)), EXIT_USAGE) from None


def _shown(path: str) -> str:
    """A path as the output names it: one line however odd the file name."""
    from .errors import one_line

    return STDIN_NAME if path == "-" else one_line(path)


class Source:
    """A record's text as read (``raw``) and as handed to the reader (``text``).

    They differ when the record was dug out of a pasted email; errors are mapped back to
    ``raw`` so that line numbers and the caret point at what the user has open.
    """

    def __init__(self, path: str, raw: str, text: str, origin=None, mailbox: bool = False):
        self.path, self.raw, self.text = path, raw, text
        self.origin = origin        # the message it came from (tomis.mail.Origin), for a reply
        self.mailbox = mailbox      # one message of an mbox or Maildir: never written back

    @property
    def name(self) -> str:
        return _shown(self.path)

    def locate(self, error):
        """``error`` with its path set and its place mapped back to the raw text."""
        relocate = getattr(self.text, "relocate", None)
        if relocate is not None:
            relocate(error)
        return _located(error, self.name)

    def failure(self, error) -> Failure:
        return Failure(self.locate(error), EXIT_INVALID, self.raw)

    def read(self, reader):
        """``reader(text, path=...)``; a TomisError it raises becomes a located Failure."""
        from .errors import TomisError

        try:
            return reader(self.text, path=self.name)
        except TomisError as error:
            raise self.failure(error) from None


def read_record(path: str, *, extract: bool = True) -> Source:
    """Read ``path`` (``-`` is stdin); with ``extract``, dig the record out of whatever was
    saved: plain text, a pasted email, a saved message, one message of a mailbox (see
    tomis.mail; ``--message`` picks it).

    What was taken, skipped or repaired is said on stderr as a note, so nobody is surprised.
    """
    from . import mail
    from .errors import FileError, TomisError

    if not extract:
        raw = read_text(path)
        return Source(path, raw, raw)
    try:
        found = mail.read_source(path, message=_message_option(path),
                                 stream=sys.stdin if path == "-" else None, name=_shown(path))
    except FileError as error:
        raise Failure(_located(error, _shown(path)), EXIT_USAGE) from None
    except TomisError as error:
        raise Failure(_located(error, _shown(path)), EXIT_INVALID,
                      getattr(error, "source_text", None)) from None
    for note in found.notes:
        click.echo(f"{_shown(path)}: note: {note}", err=True)
    return Source(path, found.raw, found.text, found.origin, found.mailbox)


def _message_option(path: str) -> str | None:
    """``--message`` of the running command, for the FILE(s) it names (not for --since)."""
    ctx = click.get_current_context(silent=True)
    if ctx is None or ctx.meta.get("tomis.message") is None:
        return None
    named = ctx.params.get("file"), *ctx.params.get("files", ())
    return ctx.meta["tomis.message"] if path in named else None


def _remember_message(ctx, _param, value):
    ctx.meta["tomis.message"] = value
    return value


class _RecordPath(click.Path):
    """A file, or a Maildir folder (any other folder is refused as click refuses it)."""

    def convert(self, value, param, ctx):
        from .mail import is_maildir

        if isinstance(value, str) and os.path.isdir(value) and is_maildir(value):
            return value
        return super().convert(value, param, ctx)


def message_option(command):
    """Give a command that reads records ``--message N|ID`` (which message of a mailbox),
    and let its FILE be a Maildir folder."""
    for param in command.params:
        if param.name in ("file", "files"):
            param.type = _RecordPath(dir_okay=False, allow_dash=True)
    command.params.append(click.Option(
        ["--message"], metavar="N|ID", expose_value=False, callback=_remember_message,
        help="For an mbox or a Maildir: the message to read (1-based number or Message-ID)."))
    return command


def load_game(source: Source):
    """The one game of the record; a problem in it exits 1 with the error located."""
    from . import record

    return source.read(record.read_game)


def load_games(source: Source) -> list:
    """Every game of the record as the reader checked it (``Checked`` items)."""
    from . import record

    return source.read(record.read)


def pick_game(source: Source, number: int):
    """Game ``number`` (1-based) of the file, refusing a number the file does not have."""
    checked = load_games(source)
    if not checked:
        raise source.failure(no_game_error())
    if not 1 <= number <= len(checked):
        raise click.BadParameter(
            f"{source.name} holds {len(checked)} game(s), there is no game {number}",
            param_hint="--game")
    item = checked[number - 1]
    if item.error is not None:
        raise source.failure(item.error)
    return item.game


def state_at(game, at: int | None):
    """The position after action ``at`` (0: the start; None: after the last action)."""
    if at is None:
        return game.final
    if not 0 <= at <= len(game.nodes):
        raise click.BadParameter(_past_the_end(game, 0), param_hint="--at")
    return game.states[at]


def _past_the_end(game, lowest: int) -> str:
    """Why an action number past the end of ``game`` cannot be shown, and what can."""
    count = len(game.nodes)
    if count < lowest:
        return "the game has no actions yet"
    return f"the game has {count} action{'' if count == 1 else 's'}; choose {lowest} to {count}"


def _finite(value: float, option: str) -> float:
    """click's FloatRange lets nan through (every comparison with it is false)."""
    if value != value:
        raise click.BadParameter(f"{value} is not a number", param_hint=option)
    return value


# --------------------------------------------------------------------------- writing

def write_new(path: str, text: str) -> None:
    """Create ``path`` holding ``text``; refuse to replace a file that exists."""
    from . import safefile

    safefile.create_new(path, text)


def write_over(path: str, text: str) -> None:
    """Replace ``path`` atomically: readers see the old text or the new, never half."""
    from . import safefile

    safefile.atomic_write(path, text)


def _locked(path: str):
    """The tomis lock on ``path`` as a context manager (refused at once if taken)."""
    from . import safefile

    return safefile.locked(path)


# --------------------------------------------------------------------------- output

def use_colour(ascii_only: bool) -> bool:
    """Colour (and arrow glyphs) only for a terminal that can show them and wants them."""
    if ascii_only or "NO_COLOR" in os.environ or not _is_terminal(sys.stdout):
        return False
    encoding = (getattr(sys.stdout, "encoding", None) or "ascii").lower()
    return "utf" in encoding


def echo_json(data) -> None:
    import json

    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def game_heading(game) -> str | None:
    """``Ana (White) vs Bo (Black), Club ladder`` from the tags that are present."""
    tags = game.tags
    names = [f"{tags[t]} ({t})" for t in ("White", "Black") if tags.get(t) not in (None, "", "?")]
    heading = " vs ".join(names)
    event = tags.get("Event")
    if event not in (None, "", "?"):
        heading = f"{heading}, {event}" if heading else event
    return heading or None


# --------------------------------------------------------------------------- commands

@click.group(cls=TomisGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="tomis", prog_name="tomis")
def cli():
    """Tomis: keep, check and play game records of the space board game.

    Records are .tgn files (see docs/NOTATION.md). FILE may be - for stdin.
    Exit codes: 0 ok, 1 invalid game or illegal action, 2 usage or unreadable file.
    """


@cli.command()
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
    from . import record, render

    game = new_game(white=white, black=black, rules=rules, event=event, site=site,
                    date=date, round=round_, position=position)
    text = record.write(game)
    if file == "-":
        click.echo(text, nl=False)
        return
    write_new(file, text)
    click.echo(f"{file}: new game, {render.turn_words(game.final)}")


def new_game(**fields):
    """``record.new_record(**fields)``; a value it refuses is a usage error naming the option."""
    import re

    from . import record
    from .errors import TomisError

    try:
        return record.new_record(**fields)
    except TomisError as error:
        # Tag values fail as "the White tag ..."; anything else is the start position.
        tag = re.match(r"the (\w+) tag ", error.message)
        option = f"--{tag[1].lower()}" if tag else "--position"
        raise click.BadParameter(error.message, param_hint=option) from None


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.argument("action")
@click.option("--as", "as_side", type=click.Choice(SIDES),
              help="Refuse unless it is this side's turn (play-by-email safety).")
@click.option("--dry-run", is_flag=True, help="Show the outcome, write nothing.")
@click.option("--since", "since", type=click.Path(dir_okay=False, allow_dash=False),
              help="The record you sent last: refuse unless FILE is exactly it plus the "
                   "opponent's new action(s) (play-by-email safety).")
@click.option("--mail", "mail_out", type=click.Path(dir_okay=False),
              help="Also write the reply as a ready-to-send message (.eml) to this file.")
@click.option("--to", "to", metavar="ADDR",
              help="The opponent's address (remembered beside FILE for this game).")
@click.option("--send", "send", is_flag=True,
              help="Also send the reply by SMTP (settings: TOMIS_SMTP_* or the config file).")
def move(file, action, as_side, dry_run, since, mail_out, to, send):
    """Play ACTION in the game in FILE and write the record back.

    The whole record is checked first. The new record is written atomically under a file
    lock, in canonical form. Then the action, what it destroyed, the board and whose turn
    it is are printed, ready to paste into a reply. With FILE -, the record is read from
    stdin, the new record goes to stdout and the summary to stderr.
    """
    if since == "-":
        raise click.BadParameter("the record you sent must be a file you kept, not - (stdin)",
                                 param_hint="--since")
    from . import mail_cli

    mailing = mail_cli.MoveMail(file, mail_out, to, send, dry_run)
    step = MoveStep(file, action, as_side, dry_run, since)
    if file == "-" or dry_run:
        step.run()
    else:
        with _locked(file):
            step.run()
    mailing.after(step)


class MoveStep:
    """One play-by-email step, split into checks that can be extended (e.g. ``--since``)."""

    def __init__(self, file: str, action: str, as_side: str | None, dry_run: bool,
                 since: str | None = None):
        self.file, self.action, self.as_side, self.dry_run = file, action, as_side, dry_run
        self.since = since

    def run(self) -> None:
        from . import record

        source = read_record(self.file)
        if source.mailbox:
            raise click.UsageError(f"{source.name} is a mailbox, and move writes the record "
                                   f"back to FILE: save the message as a file first")
        game = load_game(source)
        self.check_since(game, source)
        self.check_turn(game)
        report = self.play(game)
        new_text = record.write(game)
        self.save(new_text)
        self.summarise(game, report, new_text)
        # Kept for what follows the move (--mail, --send).
        self.game, self.new_text, self.origin = game, new_text, source.origin

    def check_since(self, game, source: Source) -> None:
        """With ``--since``: the received record must extend the one we sent, exactly."""
        if self.since is None:
            return
        from . import digest
        from .errors import TomisError

        sent = load_game(read_record(self.since))
        try:
            digest.check_extends(sent, game, self.since, source.text)
        except TomisError as error:
            raise source.failure(error) from None

    def check_turn(self, game) -> None:
        from .board import SIDE_TITLES
        from .errors import IllegalActionError

        state = game.final
        if state.to_move is None:
            message = f"the game is over ({state.result}); no action can follow"
        elif self.as_side is not None and SIDES[state.to_move] != self.as_side:
            message = (f"it is {SIDE_TITLES[state.to_move]}'s turn (action {state.ply + 1}), "
                       f"not {self.as_side.capitalize()}'s (--as {self.as_side})")
        else:
            return
        raise Failure(_located(IllegalActionError(message, 1, 1), ACTION_PATH))

    def play(self, game):
        from . import record
        from .errors import TomisError

        try:
            return record.append(game, self.action)
        except TomisError as error:
            # The action came from the command line, so locate it there, not in the file.
            error.path = ACTION_PATH
            error.line = 1
            raise Failure(error, EXIT_INVALID, self.action) from None

    def save(self, new_text: str) -> None:
        if self.dry_run:
            return
        if self.file == "-":
            click.echo(new_text, nl=False)
        else:
            write_over(self.file, new_text)

    def summarise(self, game, report, new_text: str) -> None:
        from . import render

        to_stderr = self.file == "-"
        lines = render.report_lines(report, len(game.nodes))
        if self.dry_run:
            lines.insert(0, "dry run: nothing written")
        colour = not to_stderr and use_colour(False)
        lines += ["", render.position_text(game.final, color=colour), "", digest_line(game)]
        if not to_stderr:
            # The record itself closes the summary, so one paste makes a complete reply
            # that the opponent's `tomis move` can read straight from the saved email.
            lines += ["", new_text.rstrip("\n")]
        click.echo("\n".join(lines), err=to_stderr)


def digest_line(game) -> str:
    """The new Digest and why to keep it (docs/SECURITY.md)."""
    from . import digest

    return (f"Digest after action {len(game.nodes)}: {digest.game_digest(game)} (keep it, or the "
            f"file you send: a reply that rewrites the past will not match; see --since)")


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--at", "at", type=click.IntRange(min=0), help="Show the position after action N (0: start).")
@click.option("--json", "as_json", is_flag=True, help="Print the position as JSON and nothing else.")
@click.option("--ascii", "ascii_only", is_flag=True, help="Plain ASCII, no colour.")
@click.option("--game", "game_number", type=click.IntRange(min=1), default=1, show_default=True,
              help="Which game of the file.")
def show(file, at, as_json, ascii_only, game_number):
    """Show the position of a game: board, reserves, unlocks, side to act, result."""
    from . import position, render

    game = pick_game(read_record(file), game_number)
    state = state_at(game, at)
    if as_json:
        echo_json(position.to_json(state))
        return
    lines = []
    heading = game_heading(game)
    if heading:
        lines.append(heading)
    number = len(game.nodes) if at is None else at
    if number:
        lines += render.report_lines(game.nodes[number - 1].report, number) + [""]
    result = game.result if at is None or at == len(game.nodes) else "*"
    lines.append(render.position_text(state, color=use_colour(ascii_only), result=result))
    click.echo("\n".join(lines))


def _action_square(action) -> int:
    """The square an action starts from (or places on), for ``moves --square``."""
    origin = getattr(action, "origin", None)
    return origin if origin is not None else action.square


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--json", "as_json", is_flag=True, help='Print {"moves": [...]} and nothing else.')
@click.option("--square", help="Only actions starting from (or placing on) this square.")
def moves(file, as_json, square):
    """List the legal actions in the final position of the game in FILE."""
    wanted = _parse_square_option(square)
    game = load_game(read_record(file))
    texts = legal_texts(game, wanted)
    if as_json:
        echo_json({"moves": texts})
        return
    click.echo(_moves_words(game, texts, square))


def game_over(game) -> bool:
    """Decided by the rules, or ended by resignation or agreement (R23)."""
    return game.final.to_move is None or game.result != "*"


def legal_texts(game, square: int | None) -> list[str]:
    """Sorted canonical texts of the legal actions; none once the game has ended."""
    from . import rules

    if game_over(game):
        return []
    actions = rules.legal_actions(game.final)
    if square is not None:
        actions = [a for a in actions if _action_square(a) == square]
    return sorted(str(a) for a in actions)


def _parse_square_option(square: str | None) -> int | None:
    if square is None:
        return None
    from .board import parse_square

    try:
        return parse_square(square)
    except ValueError:
        raise click.BadParameter(f"{square!r} is not a square like e4", param_hint="--square") from None


def _moves_words(game, texts: list[str], square: str | None) -> str:
    import textwrap

    from . import render
    from .board import SIDE_TITLES

    state = game.final
    where = f" from {square}" if square else ""
    if game_over(game):
        return render.turn_words(state, game.result)
    side = SIDE_TITLES[state.to_move]
    head = f"{side} to act (action {state.ply + 1}): {len(texts)} legal action(s){where}"
    return "\n".join([head] + textwrap.wrap("  ".join(texts), width=72))


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--game", "game_number", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--from", "first", type=click.IntRange(min=1), help="First action to show.")
@click.option("--to", "last", type=click.IntRange(min=1), help="Last action to show.")
@click.option("--step", is_flag=True, help="Wait for Enter after each action (q then Enter stops).")
@click.option("--delay", type=click.FloatRange(min=0, max=MAX_DELAY), default=0.0,
              callback=lambda _ctx, _param, value: _finite(value, "--delay"),
              help="Seconds between actions.")
@click.option("--ascii", "ascii_only", is_flag=True, help="Plain ASCII, no colour.")
def replay(file, game_number, first, last, step, delay, ascii_only):
    """Replay a game action by action, with the board and combat after each."""
    from . import render

    if step and file == "-":
        raise click.UsageError("--step reads Enter from stdin, so FILE cannot be - as well")
    if first is not None and last is not None and last < first:
        raise click.BadParameter(f"--to {last} comes before --from {first}", param_hint="--to")
    game = pick_game(read_record(file), game_number)
    if first is None:
        first = 1
    elif first > len(game.nodes):
        raise click.BadParameter(_past_the_end(game, 1), param_hint="--from")
    last = len(game.nodes) if last is None else min(last, len(game.nodes))
    colour = use_colour(ascii_only)
    for number in range(first, last + 1):
        node = game.nodes[number - 1]
        result = game.result if number == len(game.nodes) else "*"
        lines = render.report_lines(node.report, number) + [
            render.position_text(game.states[number], color=colour, result=result), ""]
        click.echo("\n".join(lines))
        if number < last and not _pause(step, delay):
            break


def _pause(step: bool, delay: float) -> bool:
    """Wait between actions; False when the viewer asked to stop.

    With ``--step`` and no more input (EOF, e.g. no terminal), the replay simply goes on.
    """
    if delay:
        import time

        time.sleep(delay)
    if not step:
        return True
    click.echo("-- Enter: next action, q: stop --", err=True)
    answer = sys.stdin.readline()
    return answer.strip().lower() not in ("q", "quit")


@cli.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--json", "as_json", is_flag=True, help="Print a JSON report and nothing else.")
@click.option("--quiet", "-q", is_flag=True, help="Print only the problems.")
def validate(files, as_json, quiet):
    """Check every game in every FILE. Exit 0 all valid, 1 any invalid, 2 unreadable file.

    Problems go to stderr, one ``path:line:column: message`` line each; with --json,
    stdout gets {"files": [...]} (shape in the README) and nothing else is printed.
    """
    # Each file is reported as soon as it is read and then forgotten, so memory stays
    # flat however many files a club archive holds.
    worst = 0
    json_out = _JsonList("files") if as_json else None
    for path in _with_progress(files):
        result = validate_file(path)
        worst = max(worst, result.exit_code)
        if json_out is not None:
            json_out.add(result.as_json())
            continue
        for line in result.problem_lines():
            click.echo(line, err=True)
        if not quiet and result.exit_code == 0:
            click.echo(result.ok_line())
    if json_out is not None:
        json_out.close()
    sys.exit(worst)


class _JsonList:
    """Writes ``{"<key>": [item, ...]}`` item by item, byte-identical to ``echo_json``."""

    def __init__(self, key: str):
        import json

        self._dumps = json.dumps
        self._key = key
        self._count = 0

    def add(self, item: dict) -> None:
        text = self._dumps(item, indent=2, ensure_ascii=False).replace("\n", "\n    ")
        head = f'{{\n  "{self._key}": [\n    ' if self._count == 0 else ",\n    "
        click.echo(head + text, nl=False)
        self._count += 1

    def close(self) -> None:
        click.echo(f'{{\n  "{self._key}": []\n}}' if self._count == 0 else "\n  ]\n}")


def _with_progress(files):
    """The files, with a progress bar on stderr only for many files and a terminal."""
    if len(files) < PROGRESS_MIN_FILES or not _is_terminal(sys.stderr):
        return list(files)
    return _progress_iter(files)


def _progress_iter(files):
    with click.progressbar(files, label="validating", file=sys.stderr) as bar:
        yield from bar


class FileResult:
    """What ``validate`` found in one file.

    ``games`` holds one ``(actions, result, error)`` per game: the number of actions read
    (for a failing game, those before the failing one), the result, the first error.
    ``error`` is a file-level problem: unreadable (``unreadable`` True, exit 2), or
    readable but holding no game at all.
    """

    def __init__(self, name: str, games=(), error=None, unreadable: bool = False):
        self.name = name
        self.games = list(games)
        self.error = error
        self.unreadable = unreadable

    @property
    def exit_code(self) -> int:
        if self.unreadable:
            return EXIT_USAGE
        if self.error is not None or any(error is not None for _a, _r, error in self.games):
            return EXIT_INVALID
        return 0

    def as_json(self) -> dict:
        data = {"path": self.name, "ok": self.exit_code == 0, "games": [
            {"ok": error is None, "actions": actions, "result": result,
             "error": error_json(error)}
            for actions, result, error in self.games]}
        if self.error is not None:
            data["error"] = error_json(self.error)
        return data

    def problem_lines(self) -> list[str]:
        errors = [self.error] + [error for _a, _r, error in self.games]
        return [error.located() for error in errors if error is not None]

    def ok_line(self) -> str:
        return f"{self.name}: ok, {len(self.games)} game(s)"


def error_json(error) -> dict | None:
    """An error as validate --json shows it; ``action`` is 1-based or null."""
    if error is None:
        return None
    return {"line": error.line, "column": error.column, "action": error.action,
            "message": error.message}


def no_game_error():
    from . import record       # the reader's own wording, so every command says the same

    return record.no_game_error()


def validate_file(path: str) -> FileResult:
    name = _shown(path)
    try:
        source = read_record(path)
    except Failure as failure:
        return FileResult(name, error=failure.error, unreadable=failure.code == EXIT_USAGE)
    try:
        checked = load_games(source)
    except Failure as failure:
        return FileResult(name, error=failure.error)
    games = []
    for item in checked:
        if item.error is not None:
            error = source.locate(item.error)
            games.append((error.action - 1 if error.action else 0, None, error))
        else:
            games.append((len(item.game.nodes), item.game.result, None))
    if not games:
        return FileResult(name, error=source.locate(no_game_error()))
    return FileResult(name, games)


@cli.command()
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
    from . import record

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
        click.echo(f"{_shown(path)}: reformatted", err=True)
    return 0


def _replace_if_unchanged(path: str, seen: str, text: str) -> None:
    """Write ``text`` over ``path`` under the lock, unless someone changed it meanwhile."""
    from .errors import FileError

    with _locked(path):
        if read_text(path) != seen:
            error = FileError("the file changed while it was being formatted; run fmt again")
            error.path = path
            raise error
        write_over(path, text)


@cli.command()
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.option("--rules", type=click.Choice(["manual", "readme"]), default=None,
              help="Edition for a new game (default manual); a resumed game keeps its own.")
@click.option("--white", help="White player's name, for a new game.")
@click.option("--black", help="Black player's name, for a new game.")
@click.option("--ascii", "ascii_only", is_flag=True, help="Plain ASCII, no colour.")
def play(file, rules, white, black, ascii_only):
    """Two players at one terminal; FILE is saved after every action, resumed if it exists.

    At the prompt type an action in the notation (like F@a1 or Fa2-a3), or one of:
    help, moves [SQUARE], undo, show, resign, draw, save [FILE], quit.
    End of input (Ctrl-D) quits; the game is already saved.
    """
    session = PlaySession(file, colour=use_colour(ascii_only))
    with session.locks:
        if file is not None:
            # Held from the first read to the last save: a `tomis move` on the same file
            # meanwhile is refused, and nothing it wrote can be overwritten by our saves.
            session.hold(file)
        session.open(rules, white, black)
        session.run()


PLAY_HELP = """\
Type an action in the notation, e.g.  B@e1  G@c1  F@a1  Fa2-a3  Fc3=A  M@c3:NE  Fb2^e5
Commands:
  moves [SQUARE]  legal actions (all, or those starting from SQUARE)
  show            the board again
  undo            take back the last action
  resign          the side to act resigns
  draw            offer a draw; the other player answers y or n
  save [FILE]     save now (to FILE, which then becomes the game's file)
  help            this text
  quit            leave; the game is saved after every action"""


class PlaySession:
    """The loop behind ``tomis play``: read a line, act on it, show what happened, save."""

    def __init__(self, file: str | None, colour: bool):
        self.file = file
        self.colour = colour
        self.game = None
        self.locks = contextlib.ExitStack()     # the file locks held until the session ends
        self.commands = {
            "help": self.do_help, "?": self.do_help, "moves": self.do_moves,
            "show": self.do_show, "undo": self.do_undo, "resign": self.do_resign,
            "draw": self.do_draw, "save": self.do_save, "quit": self.do_quit,
            "exit": self.do_quit,
        }

    # -- start ------------------------------------------------------------------
    def open(self, rules: str | None, white: str | None, black: str | None) -> None:
        """Resume ``file`` when it exists, otherwise start (and save) a new game."""
        from . import record

        if self.file is not None and os.path.exists(self.file):
            self.game = load_game(read_record(self.file, extract=False))
            if rules is not None and rules != self.game.final.edition_name:
                click.echo(f"note: this game uses the {self.game.final.edition_name} rules; "
                           f"--rules {rules} applies only to new games", err=True)
            click.echo(f"resumed {self.file} after {len(self.game.nodes)} action(s)")
            return
        self.game = new_game(white=white, black=black, rules=rules or "manual")
        if self.file is not None:
            write_new(self.file, record.write(self.game))
            click.echo(f"new game saved in {self.file}")

    # -- loop -------------------------------------------------------------------
    def run(self) -> None:
        click.echo("Type help for the commands.")
        self.do_show("")
        while True:
            line = self.ask(self.prompt())
            if line is None:
                click.echo()
                self.do_quit("")
                return
            word, _, rest = line.strip().partition(" ")
            if not word:
                continue
            command = self.commands.get(word.lower())
            if command is None:
                self.do_action(line.strip())
            elif command(rest.strip()) is False:
                return

    def prompt(self) -> str:
        from .board import SIDE_TITLES

        state = self.game.final
        if game_over(self.game):
            return f"game over ({self.game.result})> "
        return f"{SIDE_TITLES[state.to_move]} (action {state.ply + 1})> "

    @staticmethod
    def ask(prompt: str) -> str | None:
        """One line from the players, or None at end of input."""
        try:
            return input(prompt)
        except EOFError:
            return None

    def say_error(self, error) -> None:
        click.echo(f"  {error.message}", err=True)

    # -- actions and commands -----------------------------------------------------
    def do_action(self, text: str) -> None:
        from . import record, render
        from .errors import TomisError

        if game_over(self.game):
            click.echo("  the game is over; undo, save or quit", err=True)
            return
        try:
            report = record.append(self.game, text)
        except TomisError as error:
            self.say_error(error)
            if error.column and error.line in (None, 1):
                click.echo("  " + text + "\n  " + " " * (error.column - 1) + "^", err=True)
            return
        self.save()
        click.echo("\n".join(render.report_lines(report, len(self.game.nodes))))
        self.do_show("")

    def do_help(self, _rest: str) -> None:
        click.echo(PLAY_HELP)

    def do_show(self, _rest: str) -> None:
        from . import render

        click.echo(render.position_text(self.game.final, color=self.colour, result=self.game.result))

    def do_moves(self, rest: str) -> None:
        from .board import parse_square

        square = None
        if rest:
            try:
                square = parse_square(rest)
            except ValueError:
                click.echo(f"  {rest!r} is not a square like e4", err=True)
                return
        texts = legal_texts(self.game, square)
        click.echo(_moves_words(self.game, texts, rest or None))

    def do_undo(self, _rest: str) -> None:
        if not self.game.nodes and self.game.result == "*":
            click.echo("  nothing to undo", err=True)
            return
        self.game = replay_without_last(self.game)
        self.save()
        click.echo("took back the last action")
        self.do_show("")

    def do_resign(self, _rest: str) -> None:
        from .board import SIDE_TITLES

        if game_over(self.game):
            click.echo("  the game is already over", err=True)
            return
        loser = self.game.final.to_move
        self.finish(("0-1", "1-0")[loser], f"{SIDE_TITLES[loser]} resigns")

    def do_draw(self, _rest: str) -> None:
        from .board import SIDE_TITLES

        if game_over(self.game):
            click.echo("  the game is already over", err=True)
            return
        other = SIDE_TITLES[1 - self.game.final.to_move]
        answer = self.ask(f"{other}, do you accept a draw? [y/N] ")
        if answer is not None and answer.strip().lower() in ("y", "yes"):
            self.finish("1/2-1/2", "draw agreed")
        else:
            click.echo("draw declined; play on")

    def finish(self, result: str, words: str) -> None:
        from . import record

        record.finish(self.game, result)
        self.save()
        click.echo(f"{words}: {result} (R23)")

    def hold(self, path: str) -> None:
        """Lock ``path`` until the session ends (refused if another process holds it)."""
        self.locks.enter_context(_locked(path))

    def do_save(self, rest: str) -> None:
        from . import record
        from .errors import TomisError

        if rest and rest != self.file:
            # A new name must be a new file: never replace some other record, and a
            # failure here must not end the session and lose the game being played.
            try:
                with contextlib.ExitStack() as attempt:
                    attempt.enter_context(_locked(rest))
                    write_new(rest, record.write(self.game))
                    self.locks.push(attempt.pop_all())      # held from now on, as hold() does
            except TomisError as error:
                click.echo(f"  {error.located()}", err=True)
                return
            self.file = rest
        elif self.file is None:
            click.echo("  save where? type: save FILE", err=True)
            return
        else:
            self.save()
        click.echo(f"saved {self.file}")

    def do_quit(self, _rest: str) -> bool:
        if self.file is not None:
            click.echo(f"bye; the game is in {self.file}")
        else:
            click.echo("bye; this game was not saved (play FILE saves as you go)")
        return False

    def save(self) -> None:
        """Write the record atomically, so a closed terminal never loses an action."""
        from . import record

        if self.file is not None:
            write_over(self.file, record.write(self.game))


def replay_without_last(game):
    """A copy of ``game`` without its last action, or, after a resignation or agreed draw
    (R23), without that result. What stays keeps its comments."""
    import dataclasses

    agreed = game.result != "*" and not game.final.is_over
    keep = len(game.nodes) if agreed else len(game.nodes) - 1
    tags = dict(game.tags, Result="*")
    # An earlier position of a game cannot be decided: an action followed it.
    return dataclasses.replace(game, tags=tags, nodes=game.nodes[:keep],
                               states=game.states[:keep + 1], result="*")


for _command in (show, moves, replay, validate):
    message_option(_command)


def main(argv=None) -> None:
    """The console script's entry point (``tomis = "tomis.cli:main"``)."""
    cli.main(args=argv, prog_name="tomis")
