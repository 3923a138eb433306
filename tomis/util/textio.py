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

import os
import re
from dataclasses import dataclass

from tomis.errors import FileError

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


# --------------------------------------------------------------------------- mail extraction

# A tag line's start: "[Name" then a quoted value or the end of the line (mail may wrap
# right after the name). "[1] see link" is not a tag.
# "\s*" before the quote: a tag missing its space ([White"Ana"]) still starts the record,
# so the reader reports it instead of it being skipped as mail text.
_TAG_OPEN = re.compile(r'\s*\[[A-Za-z][A-Za-z0-9_]*(?:\s*"|\s*$)')
_TAG_FULL = re.compile(r'\s*\[[A-Za-z][A-Za-z0-9_]*\s*"(?:[^"\\\n]|\\.)*"\s*\]')
_FIRST_MOVE = re.compile(r"\s*1\.\s*(?:\.\.)?\s*[BGFSTQM]")
_QUOTE = re.compile(r"(?:> ?)+")
# What may follow a result and still be record: another game, a comment, an action.
_CONTINUES = re.compile(r'\[[A-Za-z]|\{|;|\d+\.|[BGFSTQM](?:@|[a-h][1-8])')
_SPACE = re.compile(r"\s*")
# One pass in C over the movetext: comments and tags are consumed whole so that a result
# token inside them does not count; a result counts only as a whole token. The leading
# look-ahead lets the engine skip ordinary characters quickly (3x faster on big files).
_SCAN = re.compile(r"""
    (?= [{;\[01*] ) (?:
      (?P<comment> \{ [^}]* \}? | ; [^\n]* )
    | (?P<tag> \[ [A-Za-z][A-Za-z0-9_]* \s+ " (?: [^"\\\n] | \\. )* " \s* \] )
    | (?<! [^\s}] ) (?P<result> 1/2-1/2 | 1-0 | 0-1 | \* ) (?= [\s{;] | $ )
    )
""", re.VERBOSE)
_MAX_TAG_JOIN = 3  # a wrapped tag rarely spans more than a few mail lines


@dataclass(frozen=True)
class _Piece:
    """Part of an extracted line: from extracted column *start* on, it is original *line* at *column*."""
    start: int
    line: int
    column: int


class Extracted(str):
    """The text of a record dug out of a message, remembering where each part came from.

    It *is* a ``str`` (the cleaned text, ``\\n`` line ends), so it can go straight to the
    record reader. Extra members:

    - ``locate(line, column) -> (line, column)``: the place in the original text of a
      1-based place in this text. ``column`` may be ``None``. A line past the end maps past
      the original's last kept line.
    - ``relocate(error)``: rewrite a :class:`~tomis.errors.TomisError`'s ``.line`` and
      ``.column`` in place with :meth:`locate` and return it, so the CLI reports the line of
      the message the user has in front of them.
    - ``notes``: a tuple of one-line remarks on what was removed or rejoined (empty when
      the text came through unchanged), for the CLI to show as warnings.
    """

    _lines: tuple[tuple[_Piece, ...], ...] | None
    notes: tuple[str, ...]

    def __new__(cls, text: str, lines=None, notes=()):
        self = super().__new__(cls, text)
        self._lines = None if lines is None else tuple(tuple(pieces) for pieces in lines)
        self.notes = tuple(notes)
        return self

    def locate(self, line: int, column: int | None = None) -> tuple[int, int | None]:
        if self._lines is None or not self._lines or line < 1:
            return line, column
        if line > len(self._lines):
            last = self._lines[-1][-1]
            return last.line + (line - len(self._lines)), column
        pieces = self._lines[line - 1]
        if column is None:
            return pieces[0].line, None
        piece = pieces[0]
        for candidate in pieces:
            if candidate.start <= column:
                piece = candidate
        return piece.line, piece.column + (column - piece.start)

    def relocate(self, error):
        if error.line is not None and error.line >= 1:
            error.line, error.column = self.locate(error.line, error.column)
        return error


def extract_record(text: str) -> Extracted:
    """Dig the game record(s) out of *text* (the output of :func:`decode`), e.g. a pasted email.

    Steps, each applied only when needed, so a plain record comes back unchanged
    (``result == text`` and ``locate`` is the identity):

    1. The record starts at the first tag line ``[Name "value"]`` (or, when the text has no
       tag line, the first line starting ``1.`` and an action). Mail quoting in front of
       lines (``>``, ``> ``, ``>> ``, ``> > ``) is found on that line; if it is quoted, each
       line's own quote marks are removed, so a reflowed line with other spacing still works.
    2. Lines before that start are dropped when at least one of them is ordinary text
       (greetings, "On ... wrote:"); blank lines and ``;`` comments alone are kept.
    3. A tag line cut by a mail client (``[Event "a long`` / ``value"]``) is rejoined with a
       space (none when the first part already ends in one), over at most a few lines, and
       only when the join gives a complete tag. Wrapped movetext needs nothing: the reader
       treats a line end as a space. A wrapped ``;`` comment cannot be recognised and is not
       repaired.
    4. The record ends after a result token (``1-0 0-1 1/2-1/2 *``, outside comments and tag
       values) that is followed neither by another game, a comment nor an action; the rest is
       mail text and is dropped. A last game without a result keeps everything after it, so
       the reader reports the problem rather than this function hiding it.

    Line and column numbers of errors found in the result are mapped back to *text* with
    ``result.locate`` / ``result.relocate``. Never raises on any ``str``.
    """
    if _is_plain_record(text):
        return Extracted(text)
    lines = text.split("\n")
    start = _record_start(lines)
    if start is None:
        return Extracted(text)
    quoted = _QUOTE.match(lines[start]) is not None
    keep_from = start if _has_mail_text(lines[:start]) else 0

    rows = [_strip_quote(lines[i], i + 1, quoted) for i in range(keep_from, len(lines))]
    notes = []
    if keep_from:
        notes.append(f"skipped {keep_from} line(s) of mail text before the record")
    if quoted:
        notes.append("removed mail quoting ('>') in front of the record's lines")
    rows = _rejoin_tags(rows, notes)
    rows = _cut_tail(rows, notes)

    if not notes:
        return Extracted(text)
    return Extracted("\n".join(content for content, _ in rows),
                     [pieces for _, pieces in rows], notes)


# A whole-text form of "a line that opens a tag but does not hold a whole one" (the lines
# _rejoin_tags works on); [^\S\n] keeps each blank run on its own line, as per-line matching does.
_OPEN_NOT_FULL_LINE = re.compile(
    r'^(?![^\S\n]*\[[A-Za-z][A-Za-z0-9_]*[^\S\n]*"(?:[^"\\\n]|\\.)*"[^\S\n]*\])'
    r'[^\S\n]*\[[A-Za-z][A-Za-z0-9_]*(?:[^\S\n]*"|[^\S\n]*$)', re.MULTILINE)


# A result token followed by something that is neither more record nor the end: the
# record's end as _record_end_offset finds it, but also inside comments and tag values
# (where it means nothing), so no match proves there is no end and a match only means
# "look properly". The blanks are taken whole (captured in a look-ahead, then matched),
# as _continues skips them, so that backing off a blank cannot fake a non-continuation.
_MAYBE_RECORD_END = re.compile(
    r"(?<![^\s}])(?:1/2-1/2|1-0|0-1|\*)(?=[\s{;]|\Z)(?=(?P<blank>\s*))(?P=blank)"
    r"(?!\Z|\[[A-Za-z]|\{|;|\d+\.|[BGFSTQM](?:@|[a-h][1-8]))")


def _is_plain_record(text: str) -> bool:
    """True when :func:`extract_record` would return ``text`` unchanged, decided without
    splitting it into lines.

    A club archive of 16 MiB has about a million short lines; the general path keeps a list
    entry and a position map per line (about 350 MiB for such a file). A plain record starts
    with its first tag line (nothing but blanks before it, no quoting), has no tag line cut
    in two, and has no text after its last result: then nothing is removed, so the text
    comes back as it is. Anything else takes the general path, which decides the same way.
    """
    start = _SPACE.match(text).end()
    if not _TAG_OPEN.match(text, start) or text[start] != "[":
        return False
    if _OPEN_NOT_FULL_LINE.search(text) is not None:
        return False
    if _MAYBE_RECORD_END.search(text) is None:
        return True          # no result anywhere that mail text follows: one search in C
    return _record_end_offset(text) is None


def record_start_lines(lines: list[str]) -> tuple[list[int], list[int]]:
    """The 0-based indexes of the lines where a record could start, in one pass: those that
    open a tag, and those that start ``1.`` and an action (:func:`extract_record` prefers
    the first of the first kind, anywhere, to the first of the second)."""
    tags, moves = [], []
    for index, line in enumerate(lines):
        content = line[_quote_length(line):]
        if _TAG_OPEN.match(content):
            tags.append(index)
        elif _FIRST_MOVE.match(content):
            moves.append(index)
    return tags, moves


def record_start_line(text: str) -> int | None:
    """The 1-based line where :func:`extract_record` would start a record in *text*, or None."""
    start = _record_start(text.split("\n"))
    return None if start is None else start + 1


def _record_start(lines: list[str]) -> int | None:
    contents = [line[_quote_length(line):] for line in lines]
    for pattern in (_TAG_OPEN, _FIRST_MOVE):
        for index, content in enumerate(contents):
            if pattern.match(content):
                return index
    return None


def _has_mail_text(lines: list[str]) -> bool:
    return any(line.strip() and not line.lstrip().startswith(";") for line in lines)


def _quote_length(line: str) -> int:
    match = _QUOTE.match(line)
    return match.end() if match else 0


def _strip_quote(line: str, number: int, quoted: bool) -> tuple[str, list[_Piece]]:
    cut = _quote_length(line) if quoted else 0
    return line[cut:], [_Piece(1, number, cut + 1)]


def _rejoin_tags(rows, notes):
    result = []
    index = 0
    while index < len(rows):
        content, pieces = rows[index]
        joined = _try_join(rows, index) if _is_open_tag(content) else None
        if joined is None:
            result.append((content, pieces))
            index += 1
            continue
        (content, pieces), used = joined
        first = pieces[0].line
        notes.append(f"rejoined the tag line split over lines {first}-{first + used - 1}")
        result.append((content, pieces))
        index += used
    return result


def _is_open_tag(content: str) -> bool:
    return _TAG_OPEN.match(content) is not None and _TAG_FULL.match(content) is None


def _try_join(rows, index):
    """The tag at rows[index] joined with following rows, and how many rows it used; or None."""
    content, pieces = rows[index]
    pieces = list(pieces)
    for used in range(2, _MAX_TAG_JOIN + 2):
        if index + used - 1 >= len(rows):
            return None
        more, more_pieces = rows[index + used - 1]
        if not more.strip() or _TAG_OPEN.match(more):
            return None
        glue = "" if content.endswith((" ", "\t")) else " "
        offset = len(content) + len(glue)
        content = content + glue + more
        pieces += [_Piece(p.start + offset, p.line, p.column) for p in more_pieces]
        if _TAG_FULL.match(content):
            return (content, pieces), used
    return None


def _cut_tail(rows, notes):
    end = _record_end(rows)
    if end is None:
        return rows
    row, column = end
    content, pieces = rows[row]
    notes.append(f"ignored the text after the last result (from original line {pieces[-1].line})")
    # Keep a final line end, mapped to the line after the result, so the text ends as files do.
    return rows[:row] + [(content[:column], pieces), ("", [_Piece(1, pieces[-1].line + 1, 1)])]


def _record_end(rows):
    """(row, column) just after the result token that ends the record, or None to keep all."""
    text = "\n".join(content for content, _ in rows)
    end = _record_end_offset(text)
    if end is None:
        return None
    return text.count("\n", 0, end), end - (text.rfind("\n", 0, end) + 1)


def _record_end_offset(text: str) -> int | None:
    """The offset just after the result token that ends the record, or None to keep all."""
    for match in _SCAN.finditer(text):
        if match.lastgroup == "result" and not _continues(text, match.end()):
            return match.end()
    return None


def _continues(text: str, at: int) -> bool:
    """Does record text (a game, a comment, an action) follow *at*, or nothing at all?"""
    at = _SPACE.match(text, at).end()
    return at == len(text) or _CONTINUES.match(text, at) is not None
