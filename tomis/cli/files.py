"""Reading and writing records for the commands: sources, games, locks, atomic writes.

Unreadable input is a :class:`~tomis.cli.Failure` with exit 2; an invalid record one with
exit 1, located in the text the user has open. Only click is imported here at module
level; the readers and :mod:`tomis.safefile` load on first use.
"""

from __future__ import annotations

import contextlib
import sys

import click

from . import EXIT_INVALID, EXIT_USAGE, Failure

STDIN_NAME = "<stdin>"


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
    from .. import textio
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


class Source:
    """A record's text as read (``raw``) and as handed to the reader (``text``).

    They differ when the record was dug out of a pasted email; errors are mapped back to
    ``raw`` so that line numbers and the caret point at what the user has open.
    """

    def __init__(self, path: str, raw: str, text: str):
        self.path, self.raw, self.text = path, raw, text

    @property
    def name(self) -> str:
        return shown(self.path)

    def locate(self, error):
        """``error`` with its path set and its place mapped back to the raw text."""
        relocate = getattr(self.text, "relocate", None)
        if relocate is not None:
            relocate(error)
        return located(error, self.name)

    def failure(self, error) -> Failure:
        return Failure(self.locate(error), EXIT_INVALID, self.raw)

    def read(self, reader):
        """``reader(text, path=...)``; a TomisError it raises becomes a located Failure."""
        from ..errors import TomisError

        try:
            return reader(self.text, path=self.name)
        except TomisError as error:
            raise self.failure(error) from None


def read_record(path: str, *, extract: bool = True, pinned=None) -> Source:
    """Read ``path`` (``-`` is stdin); with ``extract``, dig the record out of an email.

    What extraction removed is said on stderr as a note, so nobody is surprised.
    """
    from .. import textio

    raw = read_text(path, pinned)
    if not extract:
        return Source(path, raw, raw)
    extracted = textio.extract_record(raw)
    for note in extracted.notes:
        click.echo(f"{shown(path)}: note: {note}", err=True)
    return Source(path, raw, extracted)


def load_game(source: Source):
    """The one game of the record as a :class:`tomis.Game`; a problem in it exits 1, located."""
    from .. import record
    from ..game import Game

    return Game.from_record(source.read(record.read_game))


def load_games(source: Source) -> list:
    """Every game of the record as the reader checked it (``Checked`` items)."""
    from .. import record

    return source.read(record.read)


def pick_game(source: Source, number: int):
    """Game ``number`` (1-based) of the file as a :class:`tomis.Game`, refusing a number
    the file does not have."""
    from ..game import Game

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
    return Game.from_record(item.game)


def no_game_error():
    from .. import record       # the reader's own wording, so every command says the same

    return record.no_game_error()


def new_game(**fields):
    """``tomis.Game(**fields)``; a value it refuses is a usage error naming the option."""
    import re

    from ..errors import TomisError
    from ..game import Game

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
    from .. import safefile

    safefile.create_new(path, text)


def write_over(path: str, text: str, pinned=None) -> None:
    """Replace ``path`` atomically: readers see the old text or the new, never half.

    With ``pinned``, only if the name still holds the file that was read (finding 2).
    """
    from .. import safefile

    safefile.atomic_write(path, text, pinned)


@contextlib.contextmanager
def locked(path: str, name: str | None = None):
    """The tomis lock on ``path`` (refused at once if taken); ``name`` is what the user typed.

    Temporary files a killed tomis left beside the file are removed as the lock is
    taken; each is named on stderr so nobody wonders where it went (finding 7).
    """
    from .. import safefile
    from ..errors import FileError, one_line

    with contextlib.ExitStack() as stack:
        try:
            swept = stack.enter_context(safefile.locked(path))
        except FileError as error:
            error.path = name or error.path    # the name the user gave, not the one resolved
            raise
        for temporary in swept:
            click.echo(f"{shown(name or path)}: note: removed {one_line(temporary)}, a temporary "
                       "file an interrupted tomis left behind", err=True)
        yield


@contextlib.contextmanager
def pinned_and_locked(path: str):
    """Open ``path`` once, lock it, and yield the pinned file (None if it cannot be opened).

    Opened before locking so that the lock is taken on the file that was opened; then
    checked again, since another tomis may have replaced it just before we locked.
    """
    from .. import safefile

    pinned = safefile.pin(path)
    try:
        with locked(path if pinned is None else pinned.target, name=path):
            if pinned is not None:
                pinned.check(path)
            yield pinned
    finally:
        if pinned is not None:
            pinned.close()
