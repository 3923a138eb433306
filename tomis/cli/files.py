"""Reading and writing records for the commands: sources, games, locks, atomic writes.

Unreadable input is a :class:`~tomis.cli.Failure` with exit 2; an invalid record one with
exit 1, located in the text the user has open. A command that changes a game does it in
:func:`editing`: read under the lock, change, check, write atomically. Only click and the
CLI's own printing are imported here at module level; the readers and
:mod:`tomis.safefile` load on first use (``tomis validate`` needs neither).
"""

from __future__ import annotations

import contextlib
import sys

import click

from .base import EXIT_INVALID, EXIT_USAGE, Failure
from .output import echo_record

STDIN_NAME = "<stdin>"
# A FILE to read. click is not asked to check it: a folder, like a missing or unreadable
# file, is then reported by tomis in its one style ("games: is a folder, not a game
# file", exit 2), not in click's usage message.
INPUT_PATH = click.Path(allow_dash=True)
# A file to write: whatever is there that is not a regular file (a folder, a FIFO, a
# device, or a link to one) is refused at once, before anything is done (so a move is not
# saved and then its message refused, and a long export is not made for nothing), and in
# the words every writer uses (tomis.safefile.writable_target). Give it the callback
# refuse_a_non_file.
OUTPUT_PATH = click.Path(allow_dash=True)


def refuse_a_non_file(_ctx, _param, value):
    """click callback for an OUTPUT_PATH option: only a regular file or nothing may be
    replaced (finding 6); anything else is one line and exit 1."""
    from ..util import safefile
    from ..errors import FileError

    if value not in (None, "-"):
        try:
            safefile.writable_target(value)
        except FileError as error:
            error.path = shown(value)
            raise Failure(error, EXIT_INVALID) from None
    return value


def located(error, path: str | None):
    """``error`` with its path filled in when the reader did not know the file name."""
    if error.path is None:
        error.path = path
    return error


def shown(path: str) -> str:
    """A path as the output names it: one line however odd the file name."""
    from ..errors import one_line

    return STDIN_NAME if path == "-" else one_line(path)


# --------------------------------------------------------------------------- reading

def read_text(path: str, pinned=None) -> str:
    """The decoded text of ``path`` (``-`` is stdin); unreadable input exits 2.

    With ``pinned`` (see :func:`pinned_and_locked`) the file opened then is read, not
    whatever the name holds now.
    """
    from ..util import textio
    from ..errors import FileError

    try:
        if pinned is not None:
            return textio.read_stream(pinned.stream, shown(path))
        if path == "-":
            require_stdin("cannot read: stdin is closed; name a file or pipe the record in")
            return textio.read_stream(sys.stdin, STDIN_NAME)  # its .buffer gives the raw bytes
        return textio.read_path(path)
    except FileError as error:
        raise Failure(located(error, shown(path)), EXIT_USAGE) from None


def require_stdin(message: str) -> None:
    """Refuse, with ``message`` and exit 2, when the process was started without stdin.

    ``tomis ... <&-`` leaves Python's ``sys.stdin`` as None; reading it then raised an
    AttributeError or RuntimeError instead of saying what is wrong (finding 5).
    """
    from ..errors import FileError

    if sys.stdin is None:
        error = FileError(message)
        error.path = STDIN_NAME
        raise Failure(error, EXIT_USAGE)


class RecordText:
    """A record's text as read (``raw``) and as handed to the reader (``text``).

    They differ when the record was dug out of a pasted email; errors are mapped back to
    ``raw`` so that line numbers and the caret point at what the user has open.
    """

    def __init__(self, path: str, raw: str, text: str, origin=None, mailbox: bool = False,
                 found=None):
        self.path, self.raw, self.text = path, raw, text
        self.origin = origin        # the message it came from (tomis.mail.mime.Origin), for a reply
        self.mailbox = mailbox      # one message of an mbox or Maildir: never written back
        self.found = found          # the tomis.sources.Source read, which places errors

    @property
    def name(self) -> str:
        return shown(self.path)

    def locate(self, error):
        """``error`` with its path set and its place mapped back to the raw text."""
        if self.found is not None:
            error = self.found.located(error)
        return located(error, self.name)

    def failure(self, error) -> Failure:
        return Failure(self.locate(error), EXIT_INVALID, self.raw)

    def refuse_prose(self) -> None:
        """A text with nothing of a record in it (a letter, say) is "no game found", not a
        complaint about its first word: raise that located failure."""
        from ..util.hints import looks_like_a_record, no_record_hint

        # isspace, not strip: strip would copy a 16 MiB archive to ask the question.
        if self.text and not self.text.isspace() and not looks_like_a_record(self.text):
            error = no_game_error()
            error.message += f": {no_record_hint()}"
            raise self.failure(error)

    def read(self, reader):
        """``reader(text, path=...)``; a TomisError it raises becomes a located Failure.

        A text with nothing of a record in it (a letter, say) is "no game found", not a
        complaint about its first word.
        """
        from ..errors import TomisError

        self.refuse_prose()
        try:
            return reader(self.text, path=self.name)
        except TomisError as error:
            raise self.failure(error) from None


def read_record(path: str, *, extract: bool = True, pinned=None) -> RecordText:
    """Read ``path`` (``-`` is stdin); with ``extract``, dig the record out of whatever was
    saved: plain text, a pasted email, a saved message, one message of a mailbox (see
    tomis.mail; ``--message`` picks it). With ``pinned`` the file opened then is read.

    What was taken, skipped or repaired is said on stderr as a note, so nobody is surprised.
    """
    from .. import sources
    from ..errors import FileError, TomisError, visible

    if not extract:
        raw = read_text(path, pinned)
        return RecordText(path, raw, raw)
    if path == "-" and pinned is None:
        require_stdin("cannot read: stdin is closed; name a file or pipe the record in")
    stream = pinned.stream if pinned is not None else (sys.stdin if path == "-" else None)
    try:
        found = sources.read_source(path, message=_message_wanted(path), stream=stream,
                                    name=shown(path), password=imap_password)
    except FileError as error:
        raise Failure(located(error, shown(path)), EXIT_USAGE) from None
    except TomisError as error:
        raise Failure(located(error, shown(path)), EXIT_INVALID,
                      getattr(error, "source_text", None)) from None
    for note in found.notes:
        click.echo(f"{shown(path)}: note: {visible(note)}", err=True)    # names from the message
    return RecordText(path, found.raw, found.text, found.origin, found.mailbox, found)


def imap_password(place) -> str:
    """From TOMIS_IMAP_PASSWORD, else asked on the terminal (once: the answer is kept for
    the rest of the run, worker processes included); never from argv or a file."""
    import os

    from ..mail import imap

    if os.environ.get(imap.PASSWORD_ENV) is None and sys.stdin is not None and sys.stdin.isatty():
        os.environ[imap.PASSWORD_ENV] = click.prompt(
            f"IMAP password for {place.user} at {place.host}", hide_input=True, err=True)
    return imap.env_password(place)


def ask_imap_password_first(paths) -> None:
    """Before a walk whose workers cannot prompt: ask now for the first IMAP place's password."""
    from ..mail.sniff import is_place

    for path in paths:
        if is_place(path):
            from ..mail import imap     # only then: it loads ssl and imaplib

            with contextlib.suppress(imap.ImapError):     # a bad place is said when it is read
                imap_password(imap.parse_place(path))
            return


def _message_wanted(path: str) -> str | None:
    """``--message`` of the running command, for the FILE(s) it names (not for --since)."""
    ctx = click.get_current_context(silent=True)
    if ctx is None or ctx.meta.get("tomis.message") is None:
        return None
    named = ctx.params.get("file"), *ctx.params.get("files", ())
    return ctx.meta["tomis.message"] if path in named else None


def _remember_message(ctx, _param, value):
    ctx.meta["tomis.message"] = value
    return value


def message_option(command):
    """Give a command that reads records ``--message N|ID`` (which message of an mbox or
    a Maildir). Its FILE may be a Maildir folder: FILE is an INPUT_PATH, which click
    does not check, and tomis.mail reads a Maildir and refuses any other folder in
    tomis's own words."""
    for param in command.params:
        if param.name in ("file", "files"):
            param.type = INPUT_PATH
    command.params.append(click.Option(
        ["--message"], metavar="N|ID", expose_value=False, callback=_remember_message,
        help="For an mbox or a Maildir: the message to read (1-based number or Message-ID); "
             "for an IMAP folder (imaps://USER@HOST/FOLDER): its UID or Message-ID."))
    return command


def load_game(source: RecordText):
    """The one game of the record as a :class:`tomis.Game`; a problem in it exits 1, located."""
    from ..notation import record
    from ..game import Game

    return Game.from_record(source.read(record.read_game))


def load_games(source: RecordText) -> list:
    """Every game of the record as the reader checked it (``Checked`` items)."""
    from ..notation import record

    return source.read(record.read)


def game_option(command):
    """``--game K``, the game of a file with several that :func:`pick_game` takes (1-based)."""
    return click.option("--game", "game_number", type=click.IntRange(min=1), default=1,
                        show_default=True, help="Which game of the file.")(command)


class ActionNumber(click.ParamType):
    """An action number for ``--at``, ``--from``, ``--to``: a whole number, 0 or more,
    refused in a player's words rather than click's ("x>=0")."""

    name = "N"

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            number = value
        else:
            text = str(value).strip()
            if not text.lstrip("-").isdigit():
                self.fail(f"an action number is a whole number like 12, not {value!r}", param, ctx)
            number = int(text)
        if number < 0:
            self.fail(f"an action number is 0 (the start) or more, not {number}", param, ctx)
        return number


ACTION_NUMBER = ActionNumber()


MAX_DELAY = 3600.0             # --delay (replay, play), seconds; time.sleep refuses inf and huge values
MAX_THINK = 3600.0             # play --think, seconds per computer action: an hour, as hint --time


def finite(_ctx, param, value):
    """click callback for a FloatRange option: FloatRange lets nan through (every
    comparison with it is false), so refuse it here."""
    if value is not None and value != value:
        raise click.BadParameter(f"{value} is not a number", param_hint=param.opts[0])
    return value


def pick_game(source: RecordText, number: int):
    """Game ``number`` (1-based) of the file as a :class:`tomis.Game`, refusing a number
    the file does not have."""
    from ..notation import record
    from ..game import Game

    # One game at a time: a 16 MiB archive is never held whole to show one of its games.
    source.refuse_prose()
    item, count = None, 0
    games = record.iter_read(source.text, source.name)
    for count, checked in enumerate(games, 1):
        if count == number:
            item = checked
            break
    if item is not None and number == 1 and not _game_chosen() and next(games, None) is not None:
        # A file of several games shown as its first without a word hid the others.
        click.echo(f"{source.name}: note: the file holds more than one game; this is game 1 "
                   f"(--game K for another)", err=True)
    if count == 0:
        raise source.failure(no_game_error())
    if item is None:
        raise click.BadParameter(
            f"{source.name} holds {count} game(s), there is no game {number}",
            param_hint="--game")
    if item.error is not None:
        raise source.failure(item.error)
    return Game.from_record(item.game)


def _game_chosen() -> bool:
    """Whether ``--game`` was given on the command line (not left at its default)."""
    from click.core import ParameterSource

    context = click.get_current_context(silent=True)
    if context is None or "game_number" not in context.params:
        return True         # called from outside a command with --game: nothing to remind of
    return context.get_parameter_source("game_number") is not ParameterSource.DEFAULT


def no_game_error():
    from ..notation import record       # the reader's own wording, so every command says the same

    return record.no_game_error()


def today_tag() -> str:
    """Today's date in UTC as the Date tag writes it: ``2026.11.22``."""
    from datetime import datetime, timezone

    return datetime.now(timezone.utc).strftime("%Y.%m.%d")


def new_game(**fields):
    """``tomis.Game(**fields)``, dated today (UTC) unless ``date`` says otherwise; a value
    it refuses is a usage error naming the option."""
    import re

    from ..errors import TomisError
    from ..game import Game

    if fields.get("date") is None:
        fields["date"] = today_tag()
    try:
        return Game(**fields)
    except TomisError as error:
        # Tag values fail as "the White tag ..."; anything else is the start position.
        tag = re.match(r"the (\w+) tag ", error.message)
        option = f"--{tag[1].lower()}" if tag else "--position"
        raise click.BadParameter(error.message, param_hint=option) from None


# --------------------------------------------------------------------------- writing

def write_new(path: str, text: str) -> None:
    """Create ``path`` holding ``text``; refuse to replace a file that exists."""
    from ..util import safefile

    note_removed(path, safefile.create_new(path, text))


def write_over(path: str, text, pinned=None) -> None:
    """Replace ``path`` with ``text`` (a string or bytes, or pieces of either) atomically:
    readers see the old text or the new, never half.

    With ``pinned``, only if the name still holds the file that was read (finding 2).
    """
    from ..util import safefile

    note_removed(path, safefile.atomic_write(path, text, pinned))


def note_removed(path: str, removed: list[str]) -> None:
    """Name on stderr each temporary file a killed tomis had left and this write removed,
    so nobody wonders where it went (finding 7)."""
    from ..errors import one_line

    for temporary in removed:
        click.echo(f"{shown(path)}: note: removed {one_line(temporary)}, a temporary "
                   "file an interrupted tomis left behind", err=True)


@contextlib.contextmanager
def locked(path: str, name: str | None = None):
    """The tomis lock on ``path`` (refused at once if taken); ``name`` is what the user typed.

    Temporary files a killed tomis left beside the file are removed as the lock is
    taken; each is named on stderr so nobody wonders where it went (finding 7).
    """
    from ..util import safefile
    from ..errors import FileError

    with contextlib.ExitStack() as stack:
        try:
            swept = stack.enter_context(safefile.locked(path))
        except FileError as error:
            error.path = name or error.path    # the name the user gave, not the one resolved
            raise
        note_removed(name or path, swept)
        yield


@contextlib.contextmanager
def pinned_and_locked(path: str):
    """Open ``path`` once, lock it, and yield the pinned file (None if it cannot be opened).

    Opened before locking so that the lock is taken on the file that was opened; then
    checked again, since another tomis may have replaced it just before we locked.
    """
    from ..util import safefile

    pinned = safefile.pin(path)
    try:
        with locked(path if pinned is None else pinned.target, name=path):
            if pinned is not None:
                pinned = _still_pinned(path, pinned)
            yield pinned
    finally:
        if pinned is not None:
            pinned.close()


def _still_pinned(path: str, pinned):
    """``pinned``, or the file now at ``path`` if another tomis saved it between our open
    and our lock (its save replaces the file). Holding the lock, no tomis can be writing
    now, so a regular file at the same place is that save; anything else -- a link where
    there was none -- is refused as :meth:`Pinned.check` refuses it."""
    from ..util import safefile
    from ..errors import FileError

    try:
        pinned.check(path)
        return pinned
    except FileError as replaced:
        fresh = safefile.pin(path)
        if fresh is None or fresh.target != pinned.target:
            if fresh is not None:
                fresh.close()
            raise replaced from None
        pinned.close()
        return fresh


# --------------------------------------------------------------------------- changing a game file

class Edit:
    """A game file open for change, as :func:`editing` yields it.

    ``game`` is the :class:`tomis.Game` to change through its verbs; ``source`` the text
    read (:meth:`RecordText.failure` locates an error in it); ``target`` where the new record
    goes (FILE, another file, ``-`` for stdout, None for a dry run); ``text``, once the
    block has ended cleanly, the new record of the whole file, checked.
    """

    def __init__(self, source: RecordText, games: list, index: int, target: str | None, pinned=None):
        self.source = source
        self.games = games          # every game of the file (tomis.Game), written back in order
        self.index = index          # which of them is changed
        self.game = games[index]
        self.target = target
        self.pinned = pinned        # the target as opened under its lock (safefile.pin), or None
        self.elsewhere = False      # written to another file than the one read
        self.text: str | None = None

    def check(self) -> str:
        """The new record of the file; the changed game must read back valid (a bug here,
        never a bad file: the verbs check what they write)."""
        from ..notation import record

        parts = [str(game) for game in self.games]
        record.read_game(parts[self.index])
        self.text = "\n".join(parts)       # as record.write_all joins them
        return self.text

    def write(self) -> None:
        text = self.check()
        if self.target == "-":
            echo_record(text)
        elif self.target is not None:
            write_over(self.target, text, self.pinned)


@contextlib.contextmanager
def editing(path: str, *, output: str | None = None, dry_run: bool = False,
            game_number: int | None = None):
    """Open the game in ``path`` for change: read it with its lock held, yield an
    :class:`Edit`, and when the block ends cleanly check the new record and write it
    atomically; when it raises, nothing is written. Every command that writes a game
    writes it so.

    ``path`` ``-`` is read from stdin and the new record goes to stdout. With ``dry_run``
    the file is read, unlocked, and nothing is written. When ``path`` is one message of a
    mailbox, or ``output`` is given, ``path`` is read and never written: the new record
    goes to ``output``, else WHITE-vs-BLACK.tgn, which is locked meanwhile and may only hold
    an earlier record of the game. With ``game_number`` the file may hold several games
    and is read as written (no record dug out of mail): game K is changed and every game
    written back.
    """
    if dry_run or path == "-":
        edit = _read_for_edit(path, None, game_number, None if dry_run else "-")
        yield edit
        edit.write()
    elif output is not None or is_mailbox(path):
        edit = _read_for_edit(path, None, game_number, None)
        target = output or record_file_name(edit.game)
        with pinned_and_locked(target) as pinned:
            refuse_unless_earlier(target, pinned, edit.game.record)
            edit.target, edit.pinned, edit.elsewhere = target, pinned, True
            yield edit
            edit.write()
        say_written_elsewhere(path, target)
    else:
        with pinned_and_locked(path) as pinned:
            edit = _read_for_edit(path, pinned, game_number, path)
            yield edit
            edit.write()


def _read_for_edit(path: str, pinned, game_number: int | None, target: str | None) -> Edit:
    """The :class:`Edit` of ``path``: its one game, or game ``game_number`` of several."""
    if game_number is None:
        source = read_record(path, pinned=pinned)
        return Edit(source, [load_game(source)], 0, target, pinned)
    from ..notation import record
    from ..game import Game

    source = read_record(path, extract=False, pinned=pinned)
    source.refuse_prose()
    games = []
    for item in record.iter_read(source.text, source.name):
        if item.error is not None:
            raise source.failure(item.error)
        games.append(Game.from_record(item.game))
    if game_number > len(games):
        raise click.BadParameter(f"{path} holds {len(games)} game(s), not {game_number}",
                                 param_hint="--game")
    return Edit(source, games, game_number - 1, target, pinned)


# --------------------------------------------------------------------------- records out of a mailbox

def is_mailbox(path: str) -> bool:
    """Is ``path`` a mailbox (an mbox, a Maildir, an IMAP folder), of which one message is
    read and which is never written back?"""
    import os

    from ..mail import sniff

    if path == "-":
        return False
    return sniff.is_place(path) or (os.path.isdir(path) and sniff.is_maildir(path)) \
        or sniff.is_mbox(path)


def output_option(what: str):
    """``-o FILE``: where a command that writes puts the new record instead of FILE."""
    return click.option(
        "-o", "--output", "output", type=OUTPUT_PATH, callback=refuse_a_non_file,
        metavar="FILE",
        help=f"Write {what} to this file, which must be new or hold an earlier record of "
             "the same game. Default: back to FILE; for one message of a mailbox, "
             "WHITE-vs-BLACK.tgn in the current folder (the mailbox is never written).")


def record_file_name(record) -> str:
    """``WHITE-vs-BLACK.tgn`` from the record's tags, each reduced to ``[A-Za-z0-9._-]``
    (accents dropped, any other run of characters one ``_``), so that no tag value can
    name a folder, a hidden file or a device."""
    tags = record.tags
    return (f"{_file_word(tags.get('White'), 'White')}-vs-"
            f"{_file_word(tags.get('Black'), 'Black')}.tgn")


_MAX_NAME_WORD = 60


def _file_word(value: str | None, fallback: str) -> str:
    import re
    import unicodedata

    plain = unicodedata.normalize("NFKD", value or "").encode("ascii", "ignore").decode("ascii")
    word = re.sub(r"[^A-Za-z0-9._-]+", "_", plain).strip("._-")[:_MAX_NAME_WORD].strip("._-")
    return word if word and word != "?" else fallback


def refuse_unless_earlier(target: str, pinned, record) -> None:
    """Writing ``record`` to ``target`` (``pinned``: the file there, locked, or None when
    there is none) may only replace an earlier record of the same game, or this one: a
    Failure (exit 1) otherwise, before anything is written."""
    from ..sources import regions
    from ..notation import record as records
    from ..errors import FileError, TomisError

    if pinned is None:
        import os

        if not os.path.lexists(target):
            return
    try:
        old = records.read_game(read_text(target, pinned))
    except (TomisError, Failure):
        old = None
    if old is None or not regions.extends(old, record):
        error = FileError("already exists and is not an earlier record of this game; nothing "
                          "was written: move it away or name another file with -o FILE")
        raise Failure(located(error, shown(target)), EXIT_INVALID)


def say_written_elsewhere(source_path: str, target: str) -> None:
    """Where the new record went, when not back to FILE."""
    from ..errors import visible

    if is_mailbox(source_path):
        words = "the mailbox is left as it is"
    else:
        words = f"{shown(source_path)} is left as it is"
    click.echo(visible(f"{shown(target)}: the new record is written here; {words}"), err=True)
