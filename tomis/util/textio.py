"""Bytes in, text out: decoding, size limits and digging a record out of an email.

Game files reach us through mail clients, editors and opponents. Everything here turns
bad input into a :class:`~tomis.errors.FileError` with a one-line message; nothing here
raises anything else on bad bytes or text.

Limits (documented values, one source for the reader, the CLI and the docs):

``MAX_FILE_BYTES``        16 MiB; a longer file or stream is refused, and never read whole.
``MAX_LINE``              10,000 characters per line, checked by :func:`decode`.
``MAX_COMMENT``           10,000 characters per comment, enforced by the record reader.
``MAX_ACTIONS_PER_GAME``  20,000 actions per game, enforced by the record reader. R22's
                          100-quiet-actions draw keeps real games far below this.
``MAX_GAMES_PER_FILE``    100,000 games per file, enforced by the record reader: 16 MiB of
                          ``*`` lines would otherwise be 8.4 million empty games and
                          gigabytes of memory (docs/SECURITY.md, finding 6).
``MAX_TOKENS_PER_GAME``   400,000 tokens (actions, move numbers, comments, annotations) per
                          game, counted while lexing, so a game of millions of empty
                          comments is refused before it fills memory.

What ``decode`` does not do: it does not reject control characters other than NUL, and it
does not guess other encodings (Latin-1, UTF-16 without a byte order mark); those are
reported as not UTF-8 or as binary, with a hint to save the file as UTF-8.
"""

from __future__ import annotations

from tomis.errors import FileError
import os


MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_LINE = 10_000
MAX_COMMENT = 10_000
MAX_ACTIONS_PER_GAME = 20_000
MAX_TOKENS_PER_GAME = 400_000
MAX_GAMES_PER_FILE = 100_000

_UTF8_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_CHUNK = 64 * 1024


# --------------------------------------------------------------------------- decoding

def decode(data: bytes, path: str | None = None) -> str:
    """Turn a file's bytes into text with ``\\n`` line ends.

    Accepts UTF-8 with or without a byte order mark (the mark is dropped) and turns CRLF
    and lone CR into LF. Plain LF UTF-8 text comes back unchanged.

    Raises :class:`FileError` (``.path`` = *path*) when the data is longer than
    ``MAX_FILE_BYTES``, starts with a UTF-16 byte order mark, contains a NUL byte
    ("looks like a binary file"), holds a byte that is not UTF-8 (message names the byte
    in hex, its line and column; ``.line``/``.column`` set) or has a line longer than
    ``MAX_LINE`` characters (``.line`` set, ``.column`` = ``MAX_LINE + 1``).
    Columns count characters, 1-based, after the byte order mark.
    """
    if len(data) > MAX_FILE_BYTES:
        raise _error(_too_large_message(), path)
    if data.startswith(_UTF16_BOMS):
        raise _error("the file is UTF-16, not UTF-8; save the file as UTF-8", path)
    if data.startswith(_UTF8_BOM):
        data = data[len(_UTF8_BOM):]
    _refuse_binary(data, path)
    text = _strict_utf8(data, path)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    _refuse_long_lines(text, path)
    return text


def _too_large_message() -> str:
    return f"the file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB; a game record is never that big"


def _error(message: str, path: str | None, line: int | None = None,
           column: int | None = None) -> FileError:
    err = FileError(message, line, column)
    err.path = path
    return err


def _refuse_binary(data: bytes, path: str | None) -> None:
    # A NUL never appears in a text record; it is the surest sign of an image, archive or
    # a UTF-16 file without a byte order mark.
    at = data.find(b"\x00")
    if at < 0:
        return
    line, column = _place_of_byte(data, at)
    raise _error(f"looks like a binary file (NUL byte at line {line}, column {column}), "
                 f"not a text game record", path, line, column)


def _strict_utf8(data: bytes, path: str | None) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _place_of_byte(data, exc.start)
        byte = data[exc.start]
        raise _error(f"byte 0x{byte:02x} at line {line}, column {column} is not UTF-8; "
                     f"save the file as UTF-8", path, line, column) from None


def _place_of_byte(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and character column of byte *offset*, counting CRLF, CR and LF as line ends."""
    # Everything before the first bad byte decodes; a NUL's prefix may itself be bad, so replace.
    before = data[:offset].decode("utf-8", errors="replace")
    before = before.replace("\r\n", "\n").replace("\r", "\n")
    line = before.count("\n") + 1
    column = len(before) - (before.rfind("\n") + 1) + 1
    return line, column


def _refuse_long_lines(text: str, path: str | None) -> None:
    # A linear scan: a regular expression for "too many non-newlines" backtracks badly
    # on files made of many lines just under the limit.
    start = 0
    line = 1
    size = len(text)
    while start <= size:
        end = text.find("\n", start)
        if end < 0:
            end = size
        if end - start > MAX_LINE:
            raise _error(f"line {line} is longer than {MAX_LINE:,} characters; "
                         f"a game record never needs lines that long", path, line, MAX_LINE + 1)
        start = end + 1
        line += 1


# --------------------------------------------------------------------------- reading

def read_path(path: str | os.PathLike[str]) -> str:
    """Read and :func:`decode` the file at *path*.

    Reads at most ``MAX_FILE_BYTES + 1`` bytes, so a huge file (or ``/dev/zero``) is refused
    without being loaded. ``-`` is an ordinary file name here; the CLI handles stdin through
    :func:`read_stream`. A named pipe is read like a file (``tomis check <(...)`` works), so
    opening one nobody writes to waits, as ``cat`` would.

    Raises :class:`FileError` with ``.path`` set for a missing file, a folder, a file we may
    not read, any other OS error, and everything :func:`decode` refuses.
    """
    name = os.fspath(path)
    return decode(read_bytes(name), name)


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The bytes of the file at *path*, undecoded (a saved email declares its own charsets).

    The same size limit and the same :class:`FileError` messages as :func:`read_path`,
    except the ones :func:`decode` adds.
    """
    name = os.fspath(path)
    try:
        with open(name, "rb") as stream:
            return _read_limited(stream, name)
    except FileError:
        raise
    except FileNotFoundError:
        raise _error("no such file", name) from None
    except IsADirectoryError:
        raise _error("is a folder, not a game file", name) from None
    except PermissionError:
        if os.path.isdir(name):  # Windows says "permission denied" for a folder
            raise _error("is a folder, not a game file", name) from None
        raise _error("permission denied: cannot read this file", name) from None
    except OSError as exc:
        raise _error(f"cannot read this file: {_reason(exc)}", name) from None
    except ValueError:  # a NUL inside the name itself
        raise _error("is not a valid file name", name.replace("\0", "\\0")) from None


def read_stream(stream, name: str = "<stdin>") -> str:
    """Read and :func:`decode` a binary stream (``sys.stdin.buffer``, a click ``File('rb')``).

    Same limits and errors as :func:`read_path`; *name* becomes the error's ``.path``.
    A text stream is accepted through its ``.buffer`` when it has one.
    """
    return decode(read_stream_bytes(stream, name), name)


def read_stream_bytes(stream, name: str = "<stdin>") -> bytes:
    """The bytes of a stream, undecoded, with :func:`read_stream`'s limit and read errors."""
    stream = getattr(stream, "buffer", stream)
    try:
        data = _read_limited(stream, name)
    except FileError:
        raise
    except OSError as exc:
        raise _error(f"cannot read: {_reason(exc)}", name) from None
    if isinstance(data, str):  # a text stream without .buffer, e.g. io.StringIO
        data = data.encode("utf-8", errors="surrogateescape")
    return data


def _read_limited(stream, name: str):
    """At most MAX_FILE_BYTES + 1 bytes; pipes return short reads, so loop until EOF."""
    parts = []
    total = 0
    while total <= MAX_FILE_BYTES:
        chunk = stream.read(min(_CHUNK, MAX_FILE_BYTES + 1 - total))
        if not chunk:
            break
        parts.append(chunk)
        total += len(chunk)
    if total > MAX_FILE_BYTES:
        raise _error(_too_large_message(), name)
    empty = "" if parts and isinstance(parts[0], str) else b""
    return empty.join(parts)


def _reason(exc: OSError) -> str:
    return (exc.strerror or str(exc)).lower()
