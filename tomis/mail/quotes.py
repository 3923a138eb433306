"""A record in mail text: the letter around it left out, quoting removed, wrapped tag lines
rejoined, each place traced back to the text it came from (:func:`extract_record`).
"""

from __future__ import annotations

import bisect
import re
from typing import NamedTuple

from ..util.lazyre import LazyPattern


# A tag line's start: "[Name" then a quoted value or the end of the line (mail may wrap
# right after the name). "[1] see link" is not a tag.
# "\s*" before the quote: a tag missing its space ([White"Ana"]) still starts the record,
# so the reader reports it instead of it being skipped as mail text.
_TAG_OPEN = re.compile(r'\s*\[[A-Za-z][A-Za-z0-9_]*(?:\s*"|\s*$)')
# The patterns below serve mail text only (a plain record is recognised by is_plain_record
# without them): compiled on first use, not at every command's start-up.
_TAG_FULL = LazyPattern(r'\s*\[[A-Za-z][A-Za-z0-9_]*\s*"(?:[^"\\\n]|\\.)*"\s*\]')
_FIRST_MOVE = LazyPattern(r"\s*1\.\s*(?:\.\.)?\s*[BGFSTQM]")
_QUOTE = LazyPattern(r"(?:> ?)+")
# What may follow a result and still be record: another game, a comment, an action (a
# line starting with an action or a move number is checked further: _is_movetext_line).
_CONTINUES = LazyPattern(r'\[[A-Za-z]|\{|;|(?P<movetext>\d+\.|[BGFSTQM](?:@|[a-h][1-8]))')
# One word of movetext (docs/NOTATION.md): a move number, an action with its destroyed
# squares and glyph, a NAG, a draw offer, a result, variation brackets around any of them.
# A line after a result that starts like an action or a move number continues the record
# only when each of its words is one of these, or when it ends in a result: "B@h8. Draw?"
# or "B@h8, and I offer a draw" is a reply's prose.
_DIRECTION = r"(?:NE|NW|SE|SW|N|E|S|W)"
_MOVETEXT_WORD = LazyPattern(
    r"\(*(?:"
    r"(?:\d+\.(?:\.\.)?)?(?:[BGFSTQM](?:@[a-h][1-8](?::" + _DIRECTION + r")?"
    r"|[a-h][1-8](?:[-x>^][a-h][1-8]|=[AI]|:" + _DIRECTION + r"))"
    r"(?:\([a-h1-8,]*\))?(?:!!|\?\?|!\?|\?!|!|\?)?)?"
    r"|\$\d+|\(=\)|1-0|0-1|1/2-1/2|\*"
    r")\)*")
_SPACE = re.compile(r"\s*")
# One pass in C over the movetext: comments and tags are consumed whole so that a result
# token inside them does not count; a result counts only as a whole token. The leading
# look-ahead lets the engine skip ordinary characters quickly (3x faster on big files).
_SCAN = LazyPattern(r"""
    (?= [{;\[01*] ) (?:
      (?P<comment> \{ [^}]* \}? | ; [^\n]* )
    | (?P<tag> \[ [A-Za-z][A-Za-z0-9_]* \s+ " (?: [^"\\\n] | \\. )* " \s* \] )
    | (?<! [^\s}] ) (?P<result> 1/2-1/2 | 1-0 | 0-1 | \* ) (?= [\s{;] | $ )
    )
""", re.VERBOSE)
_MAX_TAG_JOIN = 3  # a wrapped tag rarely spans more than a few mail lines


class _Piece(NamedTuple):
    """Part of an extracted line: from extracted column *start* on, it is original *line* at *column*."""
    start: int
    line: int
    column: int


class Extracted:
    """The text of a record dug out of a message, remembering where each part came from.

    - ``text``: the cleaned text (``\\n`` line ends), for the record reader;
    - ``locate(line, column) -> (line, column)``: the place in the original text of a
      1-based place in ``text``. ``column`` may be ``None``. A line past the end maps past
      the original's last kept line;
    - ``notes``: a tuple of one-line remarks on what was removed or rejoined (empty when
      the text came through unchanged), for the CLI to show as warnings.
    """

    __slots__ = ("text", "_lines", "notes")

    def __init__(self, text: str, lines=None, notes=()):
        self.text = text
        self._lines = None if lines is None else tuple(tuple(pieces) for pieces in lines)
        self.notes = tuple(notes)

    @property
    def changed(self) -> bool:
        """Does ``text`` differ from the original (so that places must be mapped back)?"""
        return self._lines is not None

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


def extract_record(text: str, one_game: bool = False) -> Extracted:
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

    With ``one_game`` (a message's body, where each record is a message's), a record also
    ends before another game's tags, and where the mail quoting changes depth.

    Line and column numbers of errors found in the result are mapped back to *text* with
    ``result.locate``. Never raises on any ``str``.
    """
    if not one_game and is_plain_record(text):
        return Extracted(text)
    lines = text.split("\n")
    start = _record_start(lines)
    if start is None:
        return Extracted(text)
    quoted = _QUOTE.match(lines[start]) is not None
    keep_from = start if _has_mail_text(lines[:start]) else 0

    rows = [_strip_quote(lines[i], i + 1, quoted) for i in range(keep_from, len(lines))]
    # Quoted, the record ends where the quoting does: the text below is another message's.
    depths = [_quote_depth(line) for line in lines] if quoted or one_game else None
    notes = []
    if keep_from:
        notes.append(f"skipped {keep_from} line(s) of mail text before the record")
    if quoted:
        notes.append("removed mail quoting ('>') in front of the record's lines")
    rows = _rejoin_tags(rows, notes)
    rows = _cut_tail(rows, notes, depths, one_game)

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
# (where it means nothing), or before a line that starts like an action (which may be
# prose), so no match proves there is no end and a match only means
# "look properly". The blanks are taken whole (captured in a look-ahead, then matched),
# as _continues skips them, so that backing off a blank cannot fake a non-continuation.
_MAYBE_RECORD_END = re.compile(
    r"(?<![^\s}])(?:1/2-1/2|1-0|0-1|\*)(?=[\s{;]|\Z)(?=(?P<blank>\s*))(?P=blank)"
    r"(?!\Z|\[[A-Za-z]|\{|;)")


def is_plain_record(text: str) -> bool:
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


def _quote_depth(line: str) -> int:
    """How many ``>`` quote ``line``."""
    return line[:_quote_length(line)].count(">")


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


def _depth_changes(rows, depths) -> list[int] | None:
    """Offsets in the joined rows where a non-blank row's quote depth (``depths``: one
    per original line) differs from the previous non-blank row's; None without depths."""
    if depths is None:
        return None
    changes, offset, last = [], 0, None
    for content, pieces in rows:
        if content.strip():
            depth = depths[pieces[0].line - 1]
            if last is not None and depth != last:
                changes.append(offset)
            last = depth
        offset += len(content) + 1
    return changes


def _cut_tail(rows, notes, depths=None, one_game=False):
    end = _record_end(rows, depths, one_game)
    if end is None:
        return rows
    row, column = end
    content, pieces = rows[row]
    notes.append(f"ignored the text after the last result (from original line {pieces[-1].line})")
    # Keep a final line end, mapped to the line after the result, so the text ends as files do.
    return rows[:row] + [(content[:column], pieces), ("", [_Piece(1, pieces[-1].line + 1, 1)])]


def _record_end(rows, depths=None, one_game=False):
    """(row, column) just after the result token that ends the record, or None to keep all.

    ``depths`` (the quote depth of each line of the original) mark where quoting changes."""
    text = "\n".join(content for content, _ in rows)
    end = _record_end_offset(text, _depth_changes(rows, depths), one_game)
    if end is None:
        return None
    return text.count("\n", 0, end), end - (text.rfind("\n", 0, end) + 1)


def _record_end_offset(text: str, boundaries=None, one_game: bool = False) -> int | None:
    """The offset just after the result token that ends the record, or None to keep all."""
    for match in _SCAN.finditer(text):
        if match.lastgroup == "result" and not _continues(text, match.end(), boundaries, one_game):
            return match.end()
    return None


def _continues(text: str, at: int, boundaries=None, one_game: bool = False) -> bool:
    """Does record text (a game, a comment, an action) follow *at*, or nothing at all?

    ``boundaries`` (sorted offsets) are where the text changes quote depth: a record
    never runs on across one (a quoted record and the new one below it are two). With
    ``one_game``, another game's tags do not continue it either.
    """
    after = _SPACE.match(text, at).end()
    if after == len(text):
        return True
    if boundaries and bisect.bisect_right(boundaries, at) != bisect.bisect_right(boundaries, after):
        return False
    match = _CONTINUES.match(text, after)
    if match is None or one_game and text[after] == "[":
        return False
    return match.group("movetext") is None or _is_movetext_line(text, after)


_RESULTS = frozenset({"1-0", "0-1", "1/2-1/2", "*"})


def _is_movetext_line(text: str, at: int) -> bool:
    """Is the line from *at* on record text: movetext words only (up to a comment), or
    ending in a result (a game of its own, maybe with a mistake the reader will name)?"""
    end = text.find("\n", at)
    line = text[at:] if end < 0 else text[at:end]
    words = line.split()
    if words and words[-1] in _RESULTS:
        return True
    for word in words:
        if word[0] in "{;":
            return True        # a comment's text is free
        if _MOVETEXT_WORD.fullmatch(word) is None:
            return False
    return True
