"""A game record out of whatever a player saved from their mail program.

A layer above :mod:`tomis.textio` and :mod:`tomis.record`, below the CLI; it prints
nothing. :func:`read_source` takes a path (``-`` for a stream) and gives a :class:`Found`:
the record text for the reader, the text that error places count in, notes on what was
taken and repaired, and the message it came from (for a reply).

What it reads:

- plain text (a ``.tgn`` file or a pasted email): decoded strictly as UTF-8, as before;
- a saved message (``.eml``, or a pasted message with its headers), one message of an
  ``mbox`` file or a Maildir folder (``message``: 1-based number, or Message-ID, or Maildir
  key). MIME is left to the standard :mod:`email` package: a ``.tgn`` attachment is
  preferred, then the text/plain body, then text derived from text/html;
  quoted-printable, base64 and declared charsets are decoded by it, and
  ``format=flowed`` (RFC 3676) is undone here, since :mod:`email` keeps the wrapping;
- every quoting style: top-posted, bottom-posted, interleaved, nested ``> >``, Outlook's
  unquoted "-----Original Message-----". When the text holds several records separated by
  mail text, the one that extends all others (same game, their actions a prefix of its
  own) is taken; two that diverge are refused, naming both places; a quoted record that
  no longer reads (an answer typed inside it) is passed over, with a note, when an
  unquoted one reads;
- webmail debris (:func:`repair`): Unicode spaces, zero-width characters and soft hyphens
  anywhere; curly double quotes, dashes and full-width letters on record lines outside
  tag values and comments. Anything left that the reader trips over is explained by
  name and cause (:func:`describe`).

Line numbers: errors count lines of the saved file when the record's part is stored
as-is (plain text, 7bit or 8bit); for a quoted-printable, base64, flowed or HTML part
they count lines of the decoded text, and a note says so.
"""

from __future__ import annotations

import functools
import os
import re
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .util import textio
from .errors import FileError, RecordError, TomisError

if TYPE_CHECKING:
    from datetime import datetime

# email, mailbox, datetime and html.parser are imported where they are needed: a plain record file
# (by far the most common input) must not pay for them (docs/PERFORMANCE.md, start-up).

# Headers that show a text is a message and not a pasted record ("Note: ..." is not one).
MAIL_HEADERS = frozenset({
    "from", "to", "cc", "subject", "date", "message-id", "mime-version", "content-type",
    "received", "return-path", "in-reply-to", "references", "reply-to", "delivered-to",
    "user-agent", "x-mailer", "content-transfer-encoding", "sender",
})
RECORD_SUFFIX = ".tgn"
_MBOX_FROM = re.compile(rb"From \S+ ")
# A first line that could start a message's header: a known name and a colon. Anything
# else (a tag, a move, a greeting) is plain text and never reaches the email parser.
_HEADER_NAME = re.compile(rb"([A-Za-z][A-Za-z0-9-]*)[ \t]*:")
_VERBATIM = ("7bit", "8bit", "binary")


# --------------------------------------------------------------------------- results

@dataclass(frozen=True)
class Origin:
    """The message a record came from, as far as a reply needs it."""

    message_id: str | None = None
    references: tuple[str, ...] = ()
    reply_to: str | None = None        # Reply-To, else From, as written: where an answer goes
    sender: str | None = None          # From
    subject: str | None = None
    date: datetime | None = None


@dataclass
class Found:
    """What :func:`read_source` found.

    ``text`` goes to the record reader; it has ``relocate(error)`` whenever it differs from
    what was saved, mapping places back to ``raw``, the text error places count in.
    """

    text: str
    raw: str
    notes: list[str] = field(default_factory=list)
    origin: Origin | None = None
    mailbox: bool = False          # one message of an mbox or a Maildir, not a file of its own


@dataclass
class Body:
    """The text a record is looked for in, and where it came from."""

    text: str
    what: str                      # for notes: "the text/plain part", "the attachment a.tgn"
    first_line: int | None         # the saved file's line holding text line 1; None if decoded
    notes: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- debris

@dataclass(frozen=True)
class _Kind:
    words: str                     # "a non-breaking space"
    cause: str                     # "usually added by a webmail editor"
    becomes: str | None            # the repair; None when its meaning is never certain


_WEBMAIL = "usually added by a webmail editor"
_EAST_ASIAN = "usually typed with an East Asian input method"
_SMART = "usually made from a straight quote by an editor's smart quotes"
_AUTOCORRECT = "usually made from '-' by an editor's autocorrect"
_INVISIBLE = "invisible, usually left by a webmail editor or a copy from a web page"

_KINDS: dict[str, _Kind] = {
    "\u00a0": _Kind("a non-breaking space", _WEBMAIL, " "),
    "\u202f": _Kind("a narrow non-breaking space", _WEBMAIL, " "),
    "\u2007": _Kind("a figure space", _WEBMAIL, " "),
    "\u2009": _Kind("a thin space", _WEBMAIL, " "),
    "\u200a": _Kind("a hair space", _WEBMAIL, " "),
    "\u205f": _Kind("a mathematical space", _WEBMAIL, " "),
    "\u3000": _Kind("a full-width space", _EAST_ASIAN, " "),
    "\u200b": _Kind("a zero-width space", _INVISIBLE, ""),
    "\u200c": _Kind("a zero-width non-joiner", _INVISIBLE, ""),
    "\u200d": _Kind("a zero-width joiner", _INVISIBLE, ""),
    "\u2060": _Kind("a word joiner", _INVISIBLE, ""),
    "\ufeff": _Kind("a zero-width no-break space (byte order mark)", _INVISIBLE, ""),
    "\u00ad": _Kind("a soft hyphen", "invisible, usually added by a mail program that hyphenates", ""),
    "\u201c": _Kind("a curly quote", _SMART, '"'),
    "\u201d": _Kind("a curly quote", _SMART, '"'),
    "\u201e": _Kind("a low curly quote", _SMART, '"'),
    "\u201f": _Kind("a curly quote", _SMART, '"'),
    "\u2033": _Kind("a double prime", _SMART, '"'),
    "\u2018": _Kind("a curly apostrophe", _SMART + "; the notation has no apostrophe", None),
    "\u2019": _Kind("a curly apostrophe", _SMART + "; the notation has no apostrophe", None),
    "\u2010": _Kind("a hyphen", _AUTOCORRECT, "-"),
    "\u2011": _Kind("a non-breaking hyphen", _AUTOCORRECT, "-"),
    "\u2012": _Kind("a figure dash", _AUTOCORRECT, "-"),
    "\u2013": _Kind("an en dash", _AUTOCORRECT, "-"),
    "\u2014": _Kind("an em dash", _AUTOCORRECT, "-"),
    "\u2212": _Kind("a minus sign", _AUTOCORRECT, "-"),
    "\ufffd": _Kind("a replacement character",
                    "put where the message's bytes did not fit its declared charset", None),
}
for _code in range(0x2000, 0x2007):      # en quad ... six-per-em space
    _KINDS[chr(_code)] = _Kind("a Unicode space", _WEBMAIL, " ")
_KINDS["\u2008"] = _Kind("a punctuation space", _WEBMAIL, " ")
# Invisible characters are repaired even inside tag values: nobody types them on purpose.
# Joiners are the exception where they sit between two letters of a script that uses
# them (a Persian or Indic name); between ASCII characters they are debris too.
_JOINERS = "\u200c\u200d"
_ANYWHERE = frozenset(ch for ch, kind in _KINDS.items()
                      if kind.becomes in (" ", "") and ch not in _JOINERS)
_WHOLE_VALUE_TAGS = ("Result", "Digest")    # values with one meaning: repaired like notation
_FULL_WIDTH = range(0xFF01, 0xFF5F)      # full-width ASCII: subtract 0xFEE0


@functools.lru_cache(maxsize=None)
def _debris_pattern(visible: bool):
    """A character class of the debris repaired, compiled on first use: a class reaching
    past U+00FF costs milliseconds to compile, and an ASCII file never needs it."""
    chars = "".join(re.escape(ch) for ch in (_KINDS if visible else _ANYWHERE))
    return re.compile(f"[{chars}\uff01-\uff5e]" if visible else f"[{chars}]")


def _kind(char: str) -> _Kind | None:
    kind = _KINDS.get(char)
    if kind is None and ord(char) in _FULL_WIDTH:
        plain = chr(ord(char) - 0xFEE0)
        return _Kind(f"a full-width '{plain}'", _EAST_ASIAN, plain)
    return kind


def describe(char: str) -> str | None:
    """``a non-breaking space (U+00A0), usually added by a webmail editor``, or None for an
    ordinary character."""
    kind = _kind(char)
    if kind is None:
        return None
    return f"{kind.words} (U+{ord(char):04X}), {kind.cause}"


@dataclass(frozen=True)
class Repair:
    """One character replaced (``becomes`` one character) or removed (``becomes`` empty)."""

    line: int
    column: int
    char: str
    becomes: str


@dataclass
class Repaired:
    """Text after :func:`repair`, the repairs, and the way back to the original columns."""

    text: str
    repairs: list[Repair]

    def __post_init__(self):
        self._removed: dict[int, list[int]] = {}
        for item in self.repairs:
            if not item.becomes:
                self._removed.setdefault(item.line, []).append(item.column)

    def original_column(self, line: int, column: int) -> int:
        """Repaired text's ``column`` on ``line`` as a column of the original line."""
        shift = 0
        for removed in self._removed.get(line, ()):
            if removed <= column + shift:
                shift += 1
        return column + shift

    def on_lines(self, first: int, last: int) -> list[Repair]:
        return [item for item in self.repairs if first <= item.line <= last]


_QUOTE_PREFIX = re.compile(r"(?:[>\uff1e][ \u00a0]?)+")
_TAG_LINE = re.compile(r'\s*\[\s*([A-Za-z][A-Za-z0-9_]*)(?:\s*"|\s*$)')
_MOVETEXT_LINE = re.compile(r"\s*(?:\d+\.|[BGFSTQM](?:@|[a-h][1-8])|1-0|0-1|1/2-1/2|\*|\{)")
_OPEN_QUOTES = '"\u201c\u201d\u201e\u201f\u2033\uff02'


def _full_fold(text: str) -> str:
    out = []
    for char in text:
        kind = _kind(char)
        out.append(char if kind is None or kind.becomes is None else kind.becomes)
    return "".join(out)


def repair(text: str, visible: bool = True) -> Repaired:
    """Repair webmail debris where its meaning is certain.

    Invisible characters (Unicode spaces, zero-width characters, soft hyphens) become a
    space or nothing on every line. With ``visible`` (text that came through mail), on
    lines that read as a tag or as movetext once repaired, curly double quotes, dashes and
    full-width letters also become their ASCII selves, except inside tag values (only the
    ``Result`` value is repaired: it has one meaning) and comments, which are free text.
    What is left is explained by :func:`describe` when the reader stumbles on it.
    """
    # Most texts and most lines hold no debris at all: find that out in C.
    if text.isascii():
        return Repaired(text, [])
    debris = _debris_pattern(visible)
    if not debris.search(text):
        return Repaired(text, [])
    lines = text.split("\n")
    repairs: list[Repair] = []
    in_comment = False
    out = []
    for number, line in enumerate(lines, 1):
        if line.isascii() or not debris.search(line):
            in_comment = visible and _comment_open_after(line, in_comment)
            out.append(line)
            continue
        prefix = _QUOTE_PREFIX.match(line)
        start = prefix.end() if prefix else 0
        folded = _full_fold(line[start:])
        tag = _TAG_LINE.match(folded) if visible else None
        if not visible:
            fixed = _fix(line, number, repairs, keep_from=(0, len(line)))
        elif tag:
            in_comment = False
            keep = None if tag[1] in _WHOLE_VALUE_TAGS else _tag_value_span(line, start)
            fixed = _fix(line, number, repairs, keep_from=keep, quote_end=start)
        elif in_comment or _MOVETEXT_LINE.match(folded):
            fixed, in_comment = _fix_movetext(line, number, repairs, start, in_comment)
        else:
            fixed = _fix(line, number, repairs, keep_from=(start, len(line)), quote_end=start)
        out.append(fixed)
    return Repaired("\n".join(out), repairs)


_COMMENT_MARKS = re.compile(r"[{};]")


def _comment_open_after(line: str, in_comment: bool) -> bool:
    """Is a brace comment open after this ASCII line (which needs no repair itself)?"""
    prefix = _QUOTE_PREFIX.match(line)
    content = line[prefix.end():] if prefix else line
    if _TAG_LINE.match(content) or not (in_comment or _MOVETEXT_LINE.match(content)):
        return False
    for mark in _COMMENT_MARKS.finditer(content):
        if in_comment:
            in_comment = mark[0] != "}"
        elif mark[0] == "{":
            in_comment = True
        elif mark[0] == ";":
            return False
    return in_comment


def _tag_value_span(line: str, start: int) -> tuple[int, int] | None:
    """(first, end) index of a tag's value inside its quotes, or None if it has no quotes."""
    opening = next((i for i in range(start, len(line)) if line[i] in _OPEN_QUOTES), None)
    if opening is None:
        return None
    close_bracket = max(line.rfind("]"), line.rfind("\uff3d"))
    end = close_bracket if close_bracket > opening else len(line)
    closing = next((i for i in range(end - 1, opening, -1) if line[i] in _OPEN_QUOTES), None)
    return opening + 1, closing if closing is not None else len(line)


def _fix(line: str, number: int, repairs: list[Repair], keep_from=None, quote_end: int = 0,
         begin: int = 0) -> str:
    """Repair ``line[begin:]``; inside ``keep_from`` (a span) and the quote marks only the
    invisible characters."""
    out = []
    for index in range(begin, len(line)):
        char = line[index]
        inside = keep_from is not None and keep_from[0] <= index < keep_from[1]
        if (inside or index < quote_end) and char not in _ANYWHERE and not (
                char in _JOINERS and not _joiner_meant(line, index)):
            out.append(char)
            continue
        out.append(_fix_char(char, number, index, repairs))
    return "".join(out)


def _joiner_meant(line: str, index: int) -> bool:
    """Is the joiner at ``index`` between two characters outside ASCII (so maybe meant)?"""
    return 0 < index < len(line) - 1 and not line[index - 1].isascii() \
        and not line[index + 1].isascii()


def _fix_char(char: str, number: int, index: int, repairs: list[Repair]) -> str:
    kind = _kind(char)
    if kind is None or kind.becomes is None:
        return char
    repairs.append(Repair(number, index + 1, char, kind.becomes))
    return kind.becomes


def _fix_movetext(line, number, repairs, start, in_comment) -> tuple[str, bool]:
    """Repair a movetext line outside its comments; say whether a brace comment stays open."""
    out = list(line[:start])
    for index in range(start, len(line)):
        char = line[index]
        plain = _full_fold(char)
        if in_comment:
            out.append(_fix_char(char, number, index, repairs) if char in _ANYWHERE else char)
            in_comment = plain != "}"
            continue
        if plain == ";":       # a line comment: the rest is free text
            out.append(_fix_char(char, number, index, repairs))
            out.append(_fix(line, number, repairs, keep_from=(index + 1, len(line)),
                            begin=index + 1))
            return "".join(out), False
        out.append(_fix_char(char, number, index, repairs))
        in_comment = plain == "{"
    return "".join(out), in_comment


def repair_note(repairs: list[Repair]) -> str | None:
    """One line naming what was repaired, grouped by kind, or None."""
    if not repairs:
        return None
    counts: dict[str, int] = {}
    for item in repairs:
        kind = _kind(item.char)
        becomes = f"read as {item.becomes!r}" if item.becomes else "removed"
        key = f"{kind.words} (U+{ord(item.char):04X}) {becomes}"
        counts[key] = counts.get(key, 0) + 1
    parts = [f"{count} x {key}" for key, count in counts.items()]
    return "repaired webmail debris in the record: " + ", ".join(parts)


# --------------------------------------------------------------------------- records in a text

@dataclass
class _Region:
    """One record found in the text: the extracted text and the body lines it spans."""

    extracted: textio.Extracted
    offset: int            # body lines before the slice the extraction ran on
    first: int             # body line of its first line
    last: int              # body line of its last line (the result's)
    shown_shift: int = 0   # saved-file lines before the body, when they are known

    def locate(self, line: int, column: int | None) -> tuple[int, int | None]:
        line, column = self.extracted.locate(line, column)
        return line + self.offset, column

    @property
    def quoted(self) -> bool:
        """Was it quoted mail (``>``), i.e. part of an earlier message?"""
        return any(note.startswith("removed mail quoting") for note in self.extracted.notes)

    @property
    def span(self) -> str:
        return f"lines {self.first + self.shown_shift}-{self.last + self.shown_shift}"


_TAIL_NOTE = "ignored the text after the last result"
_FIRST_WINDOW = 256            # lines; doubled while a record runs past it
MAX_RECORDS_PER_MESSAGE = 100
_DIGEST_TAG = re.compile(r'^\s*\[\s*Digest\s+"', re.MULTILINE)


def find_regions(text: str) -> list[_Region]:
    """The records in ``text``: the first as :func:`textio.extract_record` finds it, then one
    more after each result that mail text follows, as long as another record starts.

    One pass over the text, not one per record (a message of many small records took
    minutes, issue 23): after the first record, the lines are split once, where a record
    may start is found once, and each further record is extracted from a window of lines just large enough that the result
    is the one the whole rest of the text would give (see :func:`_extract_window`). At most
    :data:`MAX_RECORDS_PER_MESSAGE` records are kept.
    """
    # The first record as the whole text gives it; most texts hold one, and a 16 MiB
    # archive should not be split into lines to learn that (issue 16).
    extracted = textio.extract_record(text)
    regions = [_region(extracted, 0)]
    if not _was_cut(extracted) or regions[0].last <= 0:
        return regions
    lines = text.split("\n")
    tag_lines, move_lines = textio.record_start_lines(lines)
    offset = regions[0].last
    while offset < len(lines):
        if regions and not _starts_at_or_after(offset, tag_lines, move_lines):
            break
        if len(regions) == MAX_RECORDS_PER_MESSAGE:
            raise FileError(f"this text holds more than {MAX_RECORDS_PER_MESSAGE} records; "
                            "a reply never quotes that many: save the one you mean on its own")
        extracted, cut = _extract_window(lines, offset, tag_lines)
        regions.append(_region(extracted, offset))
        if not cut or regions[-1].last <= offset:
            break
        offset = regions[-1].last
    return regions


def _region(extracted, offset: int) -> _Region:
    # The last row holding more than blanks (a cut leaves an empty row at the end),
    # counted in place: copies of a 16 MiB archive cost 16 MiB each (issue 16).
    content_rows = extracted.count("\n", 0, _content_end(extracted)) + 1
    first = extracted.locate(1)[0] + offset
    last = extracted.locate(content_rows)[0] + offset
    return _Region(extracted, offset, first, last)


def _was_cut(extracted) -> bool:
    return any(note.startswith(_TAIL_NOTE) for note in extracted.notes)


def _starts_at_or_after(offset: int, tag_lines: list[int], move_lines: list[int]) -> bool:
    return bool(tag_lines and tag_lines[-1] >= offset or move_lines and move_lines[-1] >= offset)


def _extract_window(lines: list[str], offset: int, tag_lines: list[int]):
    """``(extracted, cut)``: the record of ``lines[offset:]``, extracted from the fewest
    lines that give the same answer as all of them.

    A window of whole lines, doubled until the extraction ends at a result inside it (the
    text after that result, up to the next line's end, decides the cut, and it is the same
    in the window as in the whole), and, when the record it found starts without a tag,
    until no tag line lies beyond (a tag line anywhere is preferred as the start).
    """
    size = _FIRST_WINDOW
    while True:
        end = min(len(lines), offset + size)
        extracted = textio.extract_record("\n".join(lines[offset:end]))
        cut = _was_cut(extracted)
        if end == len(lines):
            return extracted, cut
        next_tag = bisect_left(tag_lines, offset)
        tag_settled = next_tag == len(tag_lines) or tag_lines[next_tag] < end
        if cut and tag_settled:
            return extracted, cut
        size *= 2


def _content_end(text: str) -> int:
    """The length of ``text`` without its trailing blanks (``len(text.rstrip())``, no copy)."""
    end = len(text)
    while end and text[end - 1].isspace():
        end -= 1
    return end


def _same_game(one, other) -> bool:
    from .rules.position import to_string

    names = ("White", "Black", "Event", "Site", "Round", "Date")
    return (to_string(one.start) == to_string(other.start)
            and all(one.tags.get(n) == other.tags.get(n) for n in names))


def _first_difference(short, long) -> int | None:
    """0-based index of the first action where ``short`` leaves ``long``, or None if a prefix."""
    for index, (a, b) in enumerate(zip(short.nodes, long.nodes)):
        if str(a.action) != str(b.action):
            return index
    return None if len(short.nodes) <= len(long.nodes) else len(long.nodes)


def choose_region(regions: list[_Region], locate_body) -> tuple[_Region, list[str]]:
    """The record to take among several, and notes on why; a divergence is a RecordError.

    ``locate_body(line, column)`` maps a body place to the saved file's (for messages).
    """
    from .notation import record

    if len(regions) == 1:
        return regions[0], []
    read = [(region, record.read(str(region.extracted))) for region in regions]
    read, notes = _pass_over_broken_quotes(read)
    for region, checked in read:
        if not _one_valid_game(checked):
            spans = ", ".join(r.span for r, _ in read)
            return region, notes + [
                f"found {len(read)} records ({spans}); the one at {region.span} does not "
                f"read as one valid game, so it is the one checked"]
    if len(read) == 1:
        return read[0][0], notes
    games = [(region, checked[0].game) for region, checked in read]
    newest_region, newest = max(games, key=lambda pair: len(pair[1].nodes))
    for region, game in games:
        if region is newest_region:
            continue
        difference = None if _same_game(game, newest) else 0
        if difference is None:
            difference = _first_difference(game, newest)
        if difference is not None:
            raise _divergence(region, game, newest_region, newest, difference, locate_body)
    others = [r.span for r, _ in games if r is not newest_region]
    shorter = sum(1 for _, g in games if len(g.nodes) < len(newest.nodes))
    why = ("it extends the other record(s): their actions are its first ones"
           if shorter else "all hold the same actions; the first is taken")
    # The reader checks a Digest tag and then drops it: look for the tag in the text.
    digest = ("and its Digest checks" if _DIGEST_TAG.search(str(newest_region.extracted))
              else "but it has no Digest tag to check")
    return newest_region, notes + [
        f"found {len(games)} records of this game; took the one at {newest_region.span} "
        f"({len(newest.nodes)} actions), not {', '.join(others)}: {why}, {digest}"]


def _one_valid_game(checked) -> bool:
    return len(checked) == 1 and checked[0].error is None


def _pass_over_broken_quotes(read):
    """Drop quoted records that do not read when an unquoted one does: a quote is an old
    message, often damaged by the reply (an answer typed inside it, a client re-wrapping
    it), while the unquoted record is the new one. Each dropped record gets a note."""
    fresh = [region for region, checked in read
             if not region.quoted and _one_valid_game(checked)]
    if not fresh:
        return read, []
    kept, notes = [], []
    for region, checked in read:
        if region.quoted and not _one_valid_game(checked):
            problem = next((c.error for c in checked if c.error is not None), None)
            why = f" ({problem.message})" if problem is not None else ""
            notes.append(f"passed over the quoted record at {region.span}: it does not read "
                         f"as one valid game{why}")
        else:
            kept.append((region, checked))
    return kept, notes


def _divergence(region, game, newest_region, newest, index, locate_body) -> RecordError:
    """Both places, the earlier first; located at the differing action of ``newest``."""
    upper, lower = sorted((region, newest_region), key=lambda r: r.first)
    if index >= len(game.nodes) or index >= len(newest.nodes) or not _same_game(game, newest):
        where = newest_region.locate(newest.line, 1)
        what = "hold different games"
    else:
        action = newest.nodes[index].action
        where = newest_region.locate(action.line, action.column)
        by_region = {id(region): game.nodes[index].action, id(newest_region): action}
        what = (f"diverge at action {index + 1}: {by_region[id(upper)]} at {upper.span} "
                f"but {by_region[id(lower)]} at {lower.span}")
    line, column = locate_body(*where)
    return RecordError(f"the records at {upper.span} and {lower.span} {what}; "
                       f"keep the one you mean and delete the other", line, column)


# --------------------------------------------------------------------------- the text handed on

class MailRecord(str):
    """The record text, with ``locate``/``relocate`` back to the saved file, like
    :class:`tomis.textio.Extracted`, through the extraction, the repairs and the message."""

    def __new__(cls, text: str, region: _Region, repaired: Repaired, first_line: int):
        self = super().__new__(cls, text)
        self._region, self._repaired, self._shift = region, repaired, first_line - 1
        self.notes = ()
        return self

    def locate(self, line: int, column: int | None = None) -> tuple[int, int | None]:
        return self._to_file(*self._region.locate(line, column))

    def _to_file(self, line: int, column: int | None) -> tuple[int, int | None]:
        if column is not None:
            column = self._repaired.original_column(line, column)
        return line + self._shift, column

    def relocate(self, error):
        if error.line is None or error.line < 1:
            return error
        seen = _char_at(self, error.line, error.column)
        body_line, _ = self._region.locate(error.line, error.column)
        error.line, error.column = self.locate(error.line, error.column)
        hint = describe(seen) if seen else None
        if hint is None:
            hint = self._repaired_hint(body_line)
        if hint:
            error.message = f"{error.message}; {hint}"
        return error

    def _repaired_hint(self, body_line: int) -> str | None:
        near = self._repaired.on_lines(body_line, body_line)
        if not near:
            return None
        item = near[0]
        return (f"this line had {describe(item.char)}, read as "
                f"{repr(item.becomes) if item.becomes else 'nothing'}")


def _char_at(text: str, line: int, column: int | None) -> str | None:
    if not column or column < 1:
        return None
    lines = text.split("\n")
    if line > len(lines) or column > len(lines[line - 1]):
        return None
    return lines[line - 1][column - 1]


# --------------------------------------------------------------------------- messages

def read_source(path: str, message: str | None = None, stream=None,
                name: str | None = None, password=None) -> Found:
    """Read ``path`` and find the record in it; see the module docstring.

    ``stream`` (binary, or text with ``.buffer``) is read instead of opening ``path``: stdin
    for ``-``, or a file the caller opened already (and locked); mailboxes are looked for
    only when ``path`` is opened here. ``name`` is how messages name the input (default
    ``path``, ``<stdin>`` for ``-``).

    Raises :class:`FileError` for what cannot be read (exit 2 in the CLI: a missing file,
    no such ``message``, an unknown charset, bytes that are not text) and
    :class:`RecordError` for two records that diverge. Errors carry ``.path``;
    ``.source_text`` is the text their place counts in.

    A ``path`` like ``imaps://USER@HOST/FOLDER`` is read from the server (:mod:`tomis.imap`;
    ``message`` is then a UID or Message-ID); ``password(place)`` gives its password.
    """
    if name is None:
        name = "<stdin>" if path == "-" else path
    try:
        if stream is None and is_place(path):
            return _from_imap(path, message, name, password)
        if stream is None and os.path.isdir(path) and is_maildir(path):
            msg, label = _pick(_maildir(path), message, name)
            return _from_message(msg, None, name, label)
        if stream is None and is_mbox(path):      # before reading: a mailbox may be big
            msg, label = _pick(_mbox(path), message, name)
            return _from_message(msg, None, name, label)
        data = textio.read_bytes(path) if stream is None else textio.read_stream_bytes(stream, name)
        if _MBOX_FROM.match(data):
            # Read through a stream: stdin, or a file opened to be written back (move).
            raise FileError("this is an mbox mailbox: its messages are read by name with "
                            "--message (show, moves, replay, validate, extract), and a record "
                            "is never written into it; save the message as a file first")
        msg = _as_message(data)
        if msg is None:
            if message is not None:
                raise FileError(f"--message {message}: this file is not a mailbox")
            body = Body(textio.decode(data, name), "the text", 1)
            del data        # 16 MiB of bytes need not live on beside their text (issue 16)
            return _found(body, None, name, None)
        return _from_message(msg, data, name, None)
    except TomisError as error:
        if error.path is None:
            error.path = name
        raise
    except OSError as exc:      # a mailbox's own files: permissions, a message gone meanwhile
        error = FileError(f"cannot read this mailbox: {exc.strerror or exc}")
        error.path = name
        raise error from None


def is_place(path: str) -> bool:
    """Does ``path`` name an IMAP folder (``imaps://...``) rather than a file?"""
    from . import imap

    return imap.is_place(path)


def _from_imap(place: str, wanted: str | None, name: str, password) -> Found:
    from . import imap

    fetched = imap.read_message(place, wanted, password)
    return _from_message(_parse(fetched.data), None, name, f"UID {fetched.uid}")


def _imap_items(place: str, password):
    from . import imap

    for fetched in imap.read_folder(place, password):
        label = f"{place} --message {fetched.uid}"
        try:
            found = _from_message(_parse(fetched.data), None, label, None)
        except TomisError as error:
            yield Item(label, None, None, error)
            continue
        yield Item(label, found, _aware(found.origin.date) if found.origin.date else None)


def _maildir(path: str):
    import mailbox

    return mailbox.Maildir(path, factory=None, create=False)


def _mbox(path: str):
    import mailbox

    return mailbox.mbox(path, factory=None, create=False)


def is_mbox(path: str) -> bool:
    """Does the file start as an mbox does ("From " and an address)? Reads 64 bytes; a file
    that cannot be opened is not one (reading it later says why)."""
    try:
        with open(path, "rb") as stream:
            return _MBOX_FROM.match(stream.read(64)) is not None
    except (OSError, ValueError):
        return False


def is_maildir(path: str) -> bool:
    """A folder with ``cur`` and ``new`` inside, as every Maildir has."""
    return all(os.path.isdir(os.path.join(path, sub)) for sub in ("cur", "new"))


def parse_message(data: bytes):
    """``data`` as an :class:`email.message.EmailMessage` when it starts with mail
    headers, else None (a record, or pasted text)."""
    return _as_message(data)


def _as_message(data: bytes):
    first = _HEADER_NAME.match(data.lstrip(b"\r\n")[:200])
    if first is None or first[1].decode("ascii").lower() not in MAIL_HEADERS:
        return None
    msg = _parse(data)
    if not any(key.lower() in MAIL_HEADERS for key in msg.keys()):
        return None
    return msg


def mailbox_messages(box) -> list[tuple[str, object]]:
    """The keys of ``box`` in order: an mbox's own, a Maildir's by delivery (its keys
    start with the delivery time)."""
    import mailbox

    keys = list(box.keys())
    if isinstance(box, mailbox.Maildir):
        keys.sort()
    return keys


def message_of(box, key):
    """One message of a mailbox, refused when larger than a file may be."""
    return _parse(box.get_bytes(key))


def _parse(data: bytes):
    """The standard library's parser, with the modern policy (EmailMessage, get_body), on
    a message within :func:`check_bounds`."""
    import email
    import email.policy

    check_bounds(data)
    return email.message_from_bytes(data, policy=email.policy.default)


# The shape of a message tomis reads (issue 23). The standard library parses nesting and
# nested comments by recursion and some long shapes in quadratic time, so a message is
# measured on its bytes, by regular expressions, before it is parsed; a real reply is far
# inside every bound. Beyond one: a one-line FileError (exit 2).
MAX_PARTS = 1_000              # lines starting "--" and a word: every MIME part has one
MAX_CONTAINERS = 50            # multipart/* and message/* parts (nesting is at most this deep)
MAX_HEADER_LINES = 10_000      # lines of one header field, folds included
MAX_HEADER_BYTES = 256 * 1024  # bytes of one header field, folds included
MAX_COMMENT_DEPTH = 20         # ( ) nested in one header field

_BOUNDARY_LINE = re.compile(rb"^--[^\s-]", re.MULTILINE)
_FIELD = re.compile(rb"^[!-9;-~]+:[^\n]*(?:\n[ \t][^\n]*)*", re.MULTILINE)
_CONTENT_TYPE = re.compile(rb"^content-type:[^\n]*(?:\n[ \t][^\n]*)*", re.MULTILINE | re.IGNORECASE)
_CONTAINER = re.compile(rb"multipart|message", re.IGNORECASE)


def check_bounds(data: bytes) -> None:
    """Refuse, with a :class:`FileError`, a message beyond the limits above."""
    if len(data) > textio.MAX_FILE_BYTES:
        raise FileError(f"this message is larger than {textio.MAX_FILE_BYTES // 2**20} MiB; "
                        "a game record is never that big")
    if len(_BOUNDARY_LINE.findall(data)) > MAX_PARTS:
        raise _beyond(f"more than {MAX_PARTS:,} MIME parts")
    containers = sum(1 for field in _CONTENT_TYPE.finditer(data)
                     if _CONTAINER.search(field.group()))
    if containers > MAX_CONTAINERS:
        raise _beyond(f"more than {MAX_CONTAINERS} multipart or message parts (nested mail)")
    for field in _FIELD.finditer(data):
        text = field.group()
        if len(text) > MAX_HEADER_BYTES or text.count(b"\n") >= MAX_HEADER_LINES:
            name = text[:text.index(b":")].decode("ascii")[:40]
            raise _beyond(f"a header field ({name}) longer than {MAX_HEADER_BYTES // 1024} KiB "
                          f"or {MAX_HEADER_LINES:,} lines")
        if text.count(b"(") > MAX_COMMENT_DEPTH and _comment_depth(text) > MAX_COMMENT_DEPTH:
            raise _beyond(f"comments nested more than {MAX_COMMENT_DEPTH} deep in a header field")


def _comment_depth(field: bytes) -> int:
    depth = deepest = 0
    for byte in field:
        if byte == 0x28:                       # (
            depth += 1
            deepest = max(deepest, depth)
        elif byte == 0x29 and depth:           # )
            depth -= 1
    return deepest


def _beyond(what: str) -> FileError:
    return FileError(f"this message has {what}; tomis reads no message of that shape "
                     "(docs/SECURITY.md, limits)")


def _pick(box, wanted: str | None, name: str):
    """The message ``wanted`` names (number, Message-ID or Maildir key) and a label for it."""
    keys = mailbox_messages(box)
    count = len(keys)
    if count == 0:
        raise FileError("this mailbox holds no message")
    if wanted is None:
        if count > 1:
            raise FileError(f"this mailbox holds {count} messages; choose one with "
                            f"--message N (1-{count}) or --message MESSAGE-ID")
        return message_of(box, keys[0]), "message 1"
    if wanted.isdigit():
        number = int(wanted)
        if not 1 <= number <= count:
            raise FileError(f"--message {wanted}: this mailbox holds {count} message(s)")
        return message_of(box, keys[number - 1]), f"message {number}"
    bare = wanted.strip("<>")
    for number, key in enumerate(keys, 1):
        msg = message_of(box, key)
        if key == wanted or str(msg.get("Message-ID", "")).strip().strip("<>") == bare:
            return msg, f"message {number}"
    raise FileError(f"--message {wanted}: no message with this Message-ID in the mailbox")


@dataclass
class Item:
    """One record-holding thing of a place (a file, or one message of a mailbox)."""

    label: str
    found: Found | None
    when: datetime | None          # the message's Date, else the file's last change
    error: TomisError | None = None


def place_items(place: str, password=None):
    """Every file of a folder, every message of an mbox or a Maildir, or the one file, each
    read with :func:`read_source` rules; what cannot be read comes with its ``error``.
    Hidden files and ``.json`` files (what tomis keeps beside records) are passed over.
    A place that cannot be listed at all is a :class:`FileError`; an IMAP place
    (``imaps://...``) is read from the server, ``password(place)`` giving its password."""
    try:
        if is_place(place):
            yield from _imap_items(place, password)
            return
        yield from _place_items(place)
    except OSError as exc:
        error = FileError(f"cannot read this place: {exc.strerror or exc}")
        error.path = place
        raise error from None


def _place_items(place: str):
    if os.path.isdir(place):
        if is_maildir(place):
            yield from _box_items(_maildir(place), place)
            return
        for name in sorted(os.listdir(place)):
            path = os.path.join(place, name)
            if os.path.isfile(path) and not name.startswith(".") and not name.endswith(".json"):
                yield _file_item(path)
        return
    if is_mbox(place):
        yield from _box_items(_mbox(place), place)
    else:
        yield _file_item(place)


def _file_item(path: str) -> Item:
    try:
        found = read_source(path)
    except TomisError as error:
        return Item(path, None, None, error)
    when = found.origin.date if found.origin is not None else None
    if when is None:
        from datetime import datetime, timezone

        when = datetime.fromtimestamp(os.stat(path).st_mtime, timezone.utc)
    return Item(path, found, _aware(when))


def _box_items(box, place: str):
    for number, key in enumerate(mailbox_messages(box), 1):
        label = f"{place} message {number}"
        try:
            msg = message_of(box, key)
            found = _from_message(msg, None, label, None)
        except TomisError as error:
            yield Item(label, None, None, error)
            continue
        except (OSError, KeyError) as exc:      # removed or unreadable meanwhile
            yield Item(label, None, None, FileError(f"cannot read this message: {exc}"))
            continue
        yield Item(label, found, _aware(found.origin.date) if found.origin.date else None)


def _aware(when: datetime) -> datetime:
    """A Date header without a zone ("-0000") is taken as UTC, so all times compare."""
    from datetime import timezone

    return when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)


def origin_of(msg) -> Origin:
    """The headers a reply needs; a malformed header is simply absent.

    The ids and the address to answer are the sender's words as written (unfolded),
    before the email package decodes any encoded word (a message id never holds one);
    tomis.mailout checks each before it reaches a header.
    """
    def header(name: str):
        try:
            return msg.get(name)
        except Exception:      # a header the email package cannot parse at all
            return None

    def address(name: str) -> str | None:
        value = header(name)
        addresses = getattr(value, "addresses", ()) if value is not None else ()
        return addresses[0].addr_spec if addresses else None

    def written(name: str) -> str | None:
        for key, value in msg.raw_items():
            if key.lower() == name.lower():
                return " ".join(str(value).split()) or None
        return None

    date = getattr(header("Date"), "datetime", None)
    references = tuple((written("References") or "").split())
    subject = str(header("Subject") or "").strip() or None
    reply_to = written("Reply-To") or written("From")
    return Origin(written("Message-ID"), references, reply_to, address("From"), subject, date)


def _from_message(msg, data: bytes | None, name: str, label: str | None) -> Found:
    body = message_body(msg, name, data)
    if label:
        body.notes.insert(0, f"read {label} of the mailbox")
    found = _found(body, data, name, origin_of(msg))
    found.mailbox = label is not None
    return found


def message_body(msg, name: str, data: bytes | None = None) -> Body:
    """The part to read: a ``.tgn`` attachment, else the text/plain body, else the HTML one."""
    try:
        return _message_body(msg, name, data)
    except _PARAMETER_FAULTS:
        # The email package's own parser fails on some malformed MIME headers while it
        # chooses parts (issue 23): say so in one line.
        raise FileError("a Content-Type or Content-Disposition header of the message does not "
                        "parse (RFC 2045, 2183, 2231); save the record as a file") from None


def _message_body(msg, name: str, data: bytes | None) -> Body:
    attachments = [part for part in msg.iter_attachments()
                   if (filename_of(part) or "").lower().endswith(RECORD_SUFFIX)]
    if attachments:
        part = attachments[0]
        notes = [f"took the record from the attachment {filename_of(part)}"]
        if len(attachments) > 1:
            notes[0] += f" (the first of {len(attachments)} .tgn attachments)"
        return Body(_part_text(part, name), f"the attachment {filename_of(part)}",
                    _verbatim_line(part, data), notes)
    part = msg.get_body(preferencelist=("plain", "html"))
    if part is None:
        raise FileError("the message has no text part and no .tgn attachment")
    first_line = _verbatim_line(part, data)
    text = _part_text(part, name, first_line)
    notes = []
    kind = part.get_content_subtype()
    if kind == "html":
        text = html_to_text(text)
        notes.append("the message has no text/plain part; read the text of its HTML part "
                     "(line numbers count lines of that text)")
        first_line = None
    elif str(param_of(part, "format", "")).lower() == "flowed":
        text = unflow(text, str(param_of(part, "delsp", "")).lower() == "yes")
        notes.append("undid format=flowed line wrapping (RFC 3676); line numbers count "
                     "lines of the unwrapped text")
        first_line = None
    elif first_line is None:
        notes.append("line numbers count lines of the message's text/plain part, "
                     "not of the saved file")
    if "\ufffd" in text:
        notes.append(f"some bytes of the message do not fit its declared charset "
                     f"{param_of(part, 'charset')!r} and were replaced by U+FFFD")
    return Body(text, f"the text/{kind} part", first_line, notes)


# What the email package's parameter parser (RFC 2231 continuations) raises on some
# malformed values, e.g. ``Content-Disposition: =;filename*0*;filename*`` (issue 23).
_PARAMETER_FAULTS = (IndexError, ValueError, TypeError, LookupError, AttributeError)


def filename_of(part) -> str | None:
    """A part's file name, or None when it has none or its parameters do not parse."""
    try:
        return part.get_filename()
    except _PARAMETER_FAULTS:
        return None


def param_of(part, name: str, default=None):
    """A ``Content-Type`` parameter, or ``default`` when absent or unreadable."""
    try:
        return part.get_param(name, default)
    except _PARAMETER_FAULTS:
        return default


def _part_text(part, name: str, first_line: int | None = None) -> str:
    """A part's decoded text: its declared charset, or strict UTF-8 when it declares none
    (RFC 2045 says US-ASCII then; UTF-8 is its superset and what clients mean)."""
    charset = param_of(part, "charset")
    if charset is None or part.get_content_maintype() != "text":
        data = part.get_payload(decode=True) or b""
        try:
            return textio.decode(data, name)
        except FileError as error:
            if error.line is None or not data or data[:1] == b"\x00":
                raise
            raise _undeclared(error, first_line) from None
    try:
        text = part.get_content()
    except LookupError:
        raise FileError(f"the message declares the charset {str(charset)!r}, which is not "
                        f"known; save the message as UTF-8 text") from None
    # The same limits and line ends as a file: long lines, NUL bytes, CRLF.
    return textio.decode(text.encode("utf-8", "surrogateescape"), name)


def _undeclared(error: FileError, first_line: int | None) -> FileError:
    """A byte that is not UTF-8 in a part without a charset, placed in the saved file."""
    shift = (first_line or 1) - 1
    line = error.line + shift
    what = error.message.split(" at line ")[0]
    return FileError(f"{what} at line {line}, column {error.column} is not UTF-8 and the "
                     f"message declares no charset; save the message as UTF-8",
                     line, error.column)


def _verbatim_line(part, data: bytes | None) -> int | None:
    """The saved file's line where a part stored as-is starts, or None (encoded, or unknown)."""
    if data is None:
        return None
    encoding = str(part.get("Content-Transfer-Encoding", "7bit")).strip().lower()
    if encoding not in _VERBATIM or part.is_multipart():
        return None
    # For a part stored as-is, the "decoded" payload is exactly the bytes in the file.
    stored = part.get_payload(decode=True)
    if not stored or not stored.strip():
        return None
    at = data.find(stored)
    return None if at < 0 else data.count(b"\n", 0, at) + 1


def _found(body: Body, data: bytes | None, name: str, origin: Origin | None) -> Found:
    # A record file edited by hand is read literally but for invisible characters (its
    # typos get the reader's own hints); text that came through mail gets every repair.
    repaired = repair(body.text, visible=origin is not None)
    regions = find_regions(repaired.text)
    if origin is None and (len(regions) > 1 or regions[0].extracted.notes):
        repaired = repair(body.text)
        regions = find_regions(repaired.text)
    shift = (body.first_line or 1) - 1

    def locate_body(line, column):
        if column is not None:
            column = repaired.original_column(line, column)
        return line + shift, column

    for region in regions:
        region.shown_shift = shift
    raw = body.text
    if body.first_line is not None and data is not None and origin is not None:
        raw = data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
    try:
        region, choice_notes = choose_region(regions, locate_body)
    except RecordError as error:
        error.source_text = raw
        raise
    repairs = repaired.on_lines(region.first, region.last)
    # A record file read as before keeps the reader's own messages; mail gets MailRecord,
    # which also names debris the reader stumbles on.
    plain = origin is None and not repaired.repairs and len(regions) == 1
    if plain:
        text = region.extracted
    else:
        text = MailRecord(str(region.extracted), region, repaired, shift + 1)
    notes = list(body.notes) + choice_notes
    if len(regions) == 1 or not choice_notes:
        notes += list(region.extracted.notes)
    else:
        notes += [note for note in region.extracted.notes if note.startswith("removed mail")]
    note = repair_note(repairs)
    if note:
        notes.append(note)
    return Found(text, raw, notes, origin)


# --------------------------------------------------------------------------- text transforms

def unflow(text: str, delsp: bool = False) -> str:
    """Undo RFC 3676 ``format=flowed``: a line ending in a space continues on the next line
    of the same quote depth; space-stuffing is removed; ``-- `` (a signature) never flows.
    Quote marks are written back as ``>`` per level and one space."""
    out: list[str] = []
    # The open paragraph as its pieces, joined once: adding each line to one string made a
    # long flowed body quadratic (issue 23).
    paragraph: list[str] = []
    depth_open = 0

    def flush():
        if paragraph:
            out.append((">" * depth_open + " " if depth_open else "") + "".join(paragraph))
            paragraph.clear()

    for line in text.split("\n"):
        depth = len(line) - len(line.lstrip(">"))
        content = line[depth:]
        if content.startswith(" "):
            content = content[1:]
        if paragraph and depth != depth_open:
            flush()
        if not paragraph:
            depth_open = depth
        flowed = content.endswith(" ") and content != "-- "
        paragraph.append(content[:-1] if flowed and delsp else content)
        if not flowed:
            flush()
    flush()
    return "\n".join(out)


def html_to_text(html: str) -> str:
    """The text of an HTML body, a line per block, quoted blocks marked ``> ``."""
    parser = _html_text_class()()
    parser.feed(_tags_only(html))
    parser.close()
    parser.end_line()
    return "\n".join(parser.lines) + "\n"


# A "<" that opens no whole tag before the next "<" (issue 23): html.parser took minutes
# on 200 KB of "<p" and raised AssertionError on "<![", so such a "<" is text.
_NOT_A_TAG = re.compile(r"<(?!(?:[A-Za-z/?]|![A-Za-z])[^<>]*>)")


def _tags_only(html: str) -> str:
    """``html`` with complete comments dropped and every other stray ``<`` written ``&lt;``;
    linear: an unclosed comment ends the search for comments."""
    pieces, at = [], 0
    while (start := html.find("<!--", at)) >= 0:
        end = html.find("-->", start + 4)
        if end < 0:
            break
        pieces.append(html[at:start])
        at = end + 3
    pieces.append(html[at:])
    return _NOT_A_TAG.sub("&lt;", "".join(pieces))


def _html_text_class():
    """The HTML-to-text parser, defined on first use (html.parser stays unimported)."""
    from html.parser import HTMLParser

    class _HtmlText(HTMLParser):
        """Text of an HTML mail body: a line per block or <br>, ``> `` per <blockquote> level."""

        BLOCKS = frozenset({"p", "div", "tr", "li", "ul", "ol", "table", "pre", "blockquote",
                            "h1", "h2", "h3", "h4", "h5", "h6", "hr"})
        HIDDEN = frozenset({"style", "script", "head", "title"})

        def __init__(self):
            super().__init__(convert_charrefs=True)
            self.lines: list[str] = []
            self.buffer: list[str] = []
            self.depth = self.pre = self.hidden = 0

        def handle_starttag(self, tag, attrs):
            if tag in self.HIDDEN:
                self.hidden += 1
            elif tag == "br":
                self.end_line(always=True)
            elif tag in self.BLOCKS:
                self.end_line()
                self.depth += tag == "blockquote"
                self.pre += tag == "pre"

        def handle_endtag(self, tag):
            if tag in self.HIDDEN:
                self.hidden = max(0, self.hidden - 1)
            elif tag in self.BLOCKS:
                self.end_line()
                if tag == "blockquote":
                    self.depth = max(0, self.depth - 1)
                if tag == "pre":
                    self.pre = max(0, self.pre - 1)

        def handle_data(self, data):
            if self.hidden:
                return
            if not self.pre:
                self.buffer.append(re.sub(r"[ \t\r\n\f]+", " ", data))
                return
            pieces = data.replace("\r\n", "\n").split("\n")
            for index, piece in enumerate(pieces):
                if index:
                    self.end_line(always=True)
                self.buffer.append(piece)

        def end_line(self, always: bool = False):
            line = "".join(self.buffer)
            if not self.pre:
                line = line.strip(" ")
            self.buffer = []
            if line or always:
                self.lines.append(("> " * self.depth) + line)

    return _HtmlText
