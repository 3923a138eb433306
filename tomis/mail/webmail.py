"""Webmail debris in a record: repaired where its meaning is sure, explained where not.

Unicode spaces, zero-width characters and soft hyphens are repaired anywhere; curly double
quotes, dashes and full-width letters on record lines outside tag values and comments.
Anything left that the reader trips over is explained by name and cause
(:func:`describe`). :class:`Repaired` keeps each repair, so places map back.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass


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
