"""The notation of notation.md: reading games into tokens, action decoding, syntax errors in words.

The grammar (``grammar/tomis.lark``, shipped as ``tomis.grammar``) makes one terminal of
every action, tag, comment and annotation, and reads one game as a flat run of tokens.
:func:`parse_games` cuts a file into games at result tokens before parsing, so a syntax
error in one game never hides the games after it. Each game goes through
:mod:`tomis.lalr` (Lark's tables, run without importing Lark); only a game those tables
do not accept goes to the real Lark parser, built once, lazily, whose error is then
explained here.

Each parsed game reads as a sequence of typed items (:func:`game_items`): a
:class:`TagItem` per tag pair, then the movetext: actions (an :class:`~tomis.actions.Action`
is its own item; it carries ``line`` and ``column``), :class:`MoveNumber`,
:class:`CommentItem`, :class:`GlyphItem`, :class:`NagItem`, :class:`DestroyedItem`,
:class:`DrawOfferItem` (``(=)``), :class:`VariationStart` and :class:`VariationEnd` (``(``
and ``)`` around a variation), and last a :class:`ResultItem`. Every item carries the 1-based ``line`` and ``column`` where
it stood in the file.

Only syntax is checked here. Whether an action is legal, a move number right or a result
true is :mod:`tomis.record`'s business (with :mod:`tomis.rules`).

Every problem is a :class:`~tomis.errors.NotationError` with 1-based ``line`` and
``column`` and a message in words ("expected a square like e4 ..."), never a Lark
terminal name; :func:`caret_context` shows the source line with a caret under the spot.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Iterator, NamedTuple

from ..rules.actions import (
    ACTION_TERMINALS, ACTION_TYPES, DECODERS, Action, action_word, builder, explain_action,
)
from ..rules.board import SQUARE_INDEX
from ..errors import NotationError, visible
from . import lalr
from ..util.plain import Plain
from ..util.textio import MAX_GAMES_PER_FILE, MAX_TOKENS_PER_GAME

GLYPHS = ("!", "?", "!!", "??", "!?", "?!")
RESULT_WORDS = "a result (1-0, 0-1, 1/2-1/2 or *)"

# ---------------------------------------------------------------------------
# The parser, built once per process


def grammar_text() -> str:
    """The grammar: from the installed package, else from the checkout's grammar/."""
    try:
        from importlib import resources    # only a syntax error builds the Lark parser that reads this
        return resources.files("tomis.grammar").joinpath("tomis.lark").read_text(encoding="utf-8")
    except (ImportError, FileNotFoundError, ModuleNotFoundError, OSError):
        # A plain checkout on sys.path without an install: grammar/ sits beside tomis/.
        return (Path(__file__).resolve().parent.parent / "grammar" / "tomis.lark").read_text(
            encoding="utf-8")


@lru_cache(maxsize=1)
def parser():
    """The LALR parser; building it costs ~10 ms, so it happens once, on first use.

    No ``cache=True``: Lark's cache is a pickle at a predictable name in the shared
    temporary folder, so another local user could plant one there and run code as us,
    or plant a symlink that the cache write follows (docs/SECURITY.md, finding 1). The
    build is paid only by a process that meets a syntax error. The transformer's only callback returns the tokens, so no tree is ever built. Used only
    for texts :mod:`tomis.lalr` does not accept, to find and explain the error.
    """
    from lark import Lark, Transformer     # 30 ms that a valid record never pays

    class _KeepTokens(Transformer):
        def start(self, children):
            return children

    return Lark(grammar_text(), parser="lalr", lexer="basic", transformer=_KeepTokens())


# ---------------------------------------------------------------------------
# Actions: one decoder per terminal, results cached per text

_BUILDERS = {cls: builder(cls) for cls in ACTION_TYPES}

# text -> (builder, fields); bounded by the ~42 000 well-formed action texts.
_decoded: dict[str, tuple] = {}


def make_action(kind: str, text: str, line: int, column: int) -> Action:
    """The action for a token of terminal ``kind`` (one of ``ACTION_TERMINALS``).

    ``text`` may end in the blanks the token carries (see the grammar's ``_WS``).
    """
    entry = _decoded.get(text)
    if entry is None:
        cls, fields = DECODERS[kind](text.rstrip())
        entry = _decoded[text] = (_BUILDERS[cls], fields)
    build, fields = entry
    return build(*fields, line, column)


def parse_action(text: str) -> Action:
    """One action in notation, e.g. ``"Fa2-a3"``; surrounding blanks are allowed.

    Raises :class:`NotationError` with the 1-based column of the first wrong character.
    Legality is not checked (that is :func:`tomis.rules.check`).
    """
    word, lead = action_word(text)
    found = lalr.tokens(word)
    if found is not None and len(found) == 1 and found[0].type in ACTION_TERMINALS:
        return make_action(found[0].type, word, 1, lead + 1)     # no Lark import needed
    from lark.exceptions import UnexpectedInput     # the error path only, as above
    try:
        tokens = list(parser().lex(word))
    except UnexpectedInput as exc:
        # A word that starts like an action is explained as one, whatever odd character
        # (an escape sequence, a bracket) comes later in it.
        offset, message = explain_action(word) if word[0].isalpha() else _explain_word(word, exc.pos_in_stream)
        raise NotationError(message, 1, lead + offset + 1) from None
    first = tokens[0]
    if first.type in ACTION_TERMINALS and len(tokens) == 1:
        return make_action(first.type, word, 1, lead + 1)
    if first.type == "BAD_ACTION" and len(tokens) == 1:
        offset, message = explain_action(word)
        raise NotationError(message, 1, lead + offset + 1)
    if first.type in ACTION_TERMINALS:
        rest = word[len(first):]
        raise NotationError(
            f"expected only the action '{first}', found '{rest}' after it", 1, lead + len(first) + 1)
    raise NotationError(f"expected an action like Fa2-a3, found '{word}'", 1, lead + 1)


# ---------------------------------------------------------------------------
# Explaining a word that is not an action

# ---------------------------------------------------------------------------
# Explaining characters the lexer cannot read at all

# Words the lexer stops at that start with a digit or '½' (those starting with a letter are
# BAD_ACTION words, explained by explain_action).
_RESULT_FIXES = {
    "1-O": "1-0", "1-o": "1-0", "1/2": "1/2-1/2", "½-½": "1/2-1/2", "0.5-0.5": "1/2-1/2", "½": "1/2-1/2",
}


def _word_at(text: str, pos: int) -> str:
    match = re.compile(r"\S*").match(text, pos)
    return match.group()


def _explain_word(text: str, pos: int) -> tuple[int, str]:
    """(offset into ``text``, message) for the spot at ``pos`` the lexer cannot read."""
    char = text[pos]
    word = _word_at(text, pos)
    if char == "[":
        return _explain_tag(text, pos)
    if char == "{":
        return pos, "a comment opened with '{' is never closed with '}'"
    if char == "}":
        return pos, "'}' closes no comment; comments are written {like this}"
    if char == "]":
        return pos, "']' closes no tag; tags are written [Name \"value\"]"
    if char == '"':
        return pos, 'a double quote belongs in a tag pair like [White "Ana"]'
    if char == "(":
        if text.startswith("(=", pos):
            return pos, f"a draw offer is written (=) after an action; found '{word}'"
        return pos, ("expected the squares the combat destroyed, sorted and separated by "
                     f"commas without spaces, like (e6,f6); found '{word}'")
    if char == "$":
        return pos, f"expected a number from 1 to 255 after '$', found '{word}'"
    if char == "." or char.isdigit():   # the lexer may have taken "12." and stopped after it
        start = pos
        while start > 0 and (text[start - 1].isdigit() or text[start - 1] == "."):
            start -= 1
        if start < pos and text[start].isdigit():
            return start, _explain_number(_word_at(text, start))
    if char.isdigit() or char == "½":
        return pos, _explain_number(word)
    if char == "-":
        return pos, f"unexpected '{word}': expected an action, a move number or {RESULT_WORDS}"
    shown = repr(char) if not char.isprintable() else f"'{char}'"
    return pos, (f"unexpected character {shown}: expected an action, a move number, "
                 f"a comment or {RESULT_WORDS}")


def _explain_number(word: str) -> str:
    core = word.rstrip("!?")
    if core in _RESULT_FIXES:
        return f"'{core}' is not a result: did you mean '{_RESULT_FIXES[core]}'?"
    if re.fullmatch(r"0-0(-0)?", core):
        return f"'{core}' is chess castling, not a Tomis result; results are 1-0, 0-1, 1/2-1/2 or *"
    match = re.match(r"([0-9]+)(\.*)", core)
    if match is None:
        return f"unexpected '{word}': expected a move number like 12. or {RESULT_WORDS}"
    digits, dots = match.group(1), match.group(2)
    if dots == "..":
        return f"'{digits}..' has two periods: write '{digits}.' before White's action or '{digits}...' before Black's"
    if len(dots) > 3:
        return f"'{digits}{dots}' has too many periods: write '{digits}.' or '{digits}...'"
    if not dots and core == digits:
        return f"expected a period after the move number: write '{digits}.'"
    if re.fullmatch(r"[0-9]+-[0-9]+", core) or "/" in core:
        return f"'{core}' is not a result; results are 1-0, 0-1, 1/2-1/2 or *"
    return f"unexpected '{word}': expected a move number like 12. or {RESULT_WORDS}"


_TAG_START = re.compile(r"\[[ \t]*")
_TAG_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_BLANKS = re.compile(r"[ \t]*")


def _explain_tag(text: str, pos: int) -> tuple[int, str]:
    """(absolute offset, message) for the first fault in a tag pair starting at ``pos``."""
    end = text.find("\n", pos)
    end = len(text) if end < 0 else end
    i = _TAG_START.match(text, pos).end()
    name = _TAG_NAME.match(text, i, end)
    if name is None:
        return i, "expected a tag name like Event after '['"
    j = name.end()
    k = _BLANKS.match(text, j, end).end()
    if k < end and text[k] == '"' and k == j:
        return j, f"expected a space between the tag name '{name.group()}' and its value"
    if k >= end or text[k] != '"':
        return k, f"expected the value of tag '{name.group()}' in double quotes, like [{name.group()} \"...\"]"
    i = k + 1
    while i < end:
        char = text[i]
        if char == "\\":
            if text[i + 1:i + 2] not in ('"', "\\"):
                return i, 'only \\" and \\\\ are escapes in a tag value'
            i += 2
            continue
        if char == '"':
            break
        i += 1
    else:
        return k, f"the value of tag '{name.group()}' is not closed with '\"' on its line"
    close = _BLANKS.match(text, i + 1, end).end()
    if close >= end or text[close] != "]":
        return close, f"expected ']' to close the tag '{name.group()}'"
    return pos, "unreadable tag pair"      # the lexer refused it, so some rule above failed


# ---------------------------------------------------------------------------
# Other tokens

def tag_pair(text: str) -> tuple[str, str, int]:
    """(name, value, offset of the value's opening quote) of a TAG token's text."""
    quote = text.index('"')
    name = text[1:quote].strip()
    raw = text[quote + 1:text.rindex('"')]
    value = raw.replace('\\"', '"').replace("\\\\", "\\") if "\\" in raw else raw
    return name, value, quote


def quote_tag_value(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def comment_text(token: str) -> str:
    """The words of a ``{...}`` or ``;...`` comment, whitespace runs made one space.

    Comments are reflowed by the writer, so their line breaks are not kept.
    """
    token = token.rstrip()
    body = token[1:-1] if token[0] == "{" else token[1:]
    return " ".join(body.split())


def destroyed_squares(token: str) -> tuple[int, ...]:
    """The squares of a ``(e6,f6)`` suffix, in the order written."""
    inner = token.rstrip()[1:-1]
    return tuple(SQUARE_INDEX[name] for name in inner.split(",")) if inner else ()


# ---------------------------------------------------------------------------
# Files: cutting into games, parsing each, syntax errors located


class Chunk(Plain):
    """One game's tokens (or its syntax error) and where its text starts in the file.

    A token at chunk line ``l``, column ``c`` is at file line ``l + line - 1`` and, on the
    chunk's first line, file column ``c + column - 1``.
    """

    __slots__ = ("tokens", "line", "column", "error")

    def __init__(self, tokens: list | None, line: int, column: int,
                 error: NotationError | None = None):
        self.tokens = tokens
        self.line = line
        self.column = column
        self.error = error

    def where(self, token) -> tuple[int, int]:
        line = token.line
        return line + self.line - 1, token.column + self.column - 1 if line == 1 else token.column


# ---------------------------------------------------------------------------
# Typed items: what a game's tokens mean, each with its file line and column.
# ``text`` is what the record said (trailing blanks dropped), for messages that quote it.

class TagItem(NamedTuple):
    """``[Name "value"]``: the value unescaped; ``column`` is the ``[``'s and
    ``value_column`` the opening quote's."""

    name: str
    value: str
    line: int
    column: int
    value_column: int


class MoveNumber(NamedTuple):
    """``12.`` (before White's action) or ``12...`` (before Black's), as written.

    Its number is read by :mod:`tomis.record`, which says what is wrong with it (R4).
    """

    text: str
    line: int
    column: int


class CommentItem(NamedTuple):
    """A ``{...}`` or ``;...`` comment: its words joined by single spaces, and how many
    characters stood between its delimiters (the size limit counts those)."""

    text: str
    size: int
    line: int
    column: int


class GlyphItem(NamedTuple):
    """A run of ``!`` and ``?`` after an action, not yet checked against the six glyphs."""

    text: str
    line: int
    column: int


class NagItem(NamedTuple):
    """``$n``, a numeric annotation, as written (its range is checked by the record)."""

    text: str
    line: int
    column: int


class DestroyedItem(NamedTuple):
    """``(e6,f6)``: the squares the combat after an action destroyed, in the order written."""

    squares: tuple[int, ...]
    text: str
    line: int
    column: int


class DrawOfferItem(NamedTuple):
    """``(=)`` after an action: its side offers a draw (R23)."""

    text: str
    line: int
    column: int


class VariationStart(NamedTuple):
    """``(``: a variation, replacing the action before it, starts here."""

    line: int
    column: int


class VariationEnd(NamedTuple):
    """``)``: the innermost open variation ends here."""

    line: int
    column: int


class ResultItem(NamedTuple):
    """The result token that ends the game: ``1-0``, ``0-1``, ``1/2-1/2`` or ``*``."""

    result: str
    line: int
    column: int


# Built with tuple.__new__ where a game has one per action or so (move numbers,
# destroyed squares): the named tuples' own constructors are Python functions, twice
# as slow.
_new_item = tuple.__new__


def _tag_item(text: str, line: int, column: int) -> TagItem:
    name, value, quote = tag_pair(text)
    return TagItem(name, value, line, column, column + quote)


def _comment_item(text: str, line: int, column: int) -> CommentItem:
    size = len(text.rstrip()) - (2 if text[0] == "{" else 1)
    return CommentItem(comment_text(text), size, line, column)


def _bad_action(text: str, line: int, column: int):
    offset, message = explain_action(text.rstrip())
    raise NotationError(message, line, column + offset)


_ITEM_MAKERS = {
    "TAG": _tag_item,
    "COMMENT": _comment_item,
    "LINE_COMMENT": _comment_item,
    "GLYPH": lambda text, line, column: GlyphItem(text.rstrip(), line, column),
    "NAG": lambda text, line, column: NagItem(text.rstrip(), line, column),
    "DESTROYED": lambda text, line, column: _new_item(
        DestroyedItem, (destroyed_squares(text), text.rstrip(), line, column)),
    "RESULT": lambda text, line, column: ResultItem(text, line, column),
    "BAD_ACTION": _bad_action,
    "DRAW_OFFER": lambda text, line, column: DrawOfferItem("(=)", line, column),
    "VARIATION_START": lambda text, line, column: VariationStart(line, column),
    "VARIATION_END": lambda text, line, column: VariationEnd(line, column),
}


def game_items(chunk: Chunk) -> Iterator:
    """The items of one parsed game (``chunk.tokens``), in the order written.

    Tags (if any) come first and a :class:`ResultItem` last, as the grammar has it. Lazy:
    a word that is no action (``BAD_ACTION``) raises its :class:`NotationError` only when
    reached, so a reader that stops at an earlier problem reports that one first.
    """
    first_line = chunk.line - 1       # token line 1 is the chunk's line
    first_column = chunk.column - 1   # ... and on it, columns start at the chunk's column
    makers = _ITEM_MAKERS
    decoded = _decoded
    new_item = _new_item
    # Each token unpacked whole (type, value, line, column): one step, not four attribute reads.
    for kind, value, line, column in chunk.tokens:
        if line == 1:           # chunk.where(token), inlined: this runs once per token
            column += first_column
        line += first_line
        if kind in DECODERS:
            entry = decoded.get(value)      # make_action's cache, read without the call
            if entry is None:
                yield make_action(kind, value, line, column)
            else:
                yield entry[0](*entry[1], line, column)
        elif kind == "MOVE_NUMBER":                # the next most common: half the actions
            yield new_item(MoveNumber, (value.rstrip(), line, column))
        else:
            yield makers[kind](value, line, column)


# Result tokens outside comments and tag values end a game. A digit result glued to
# something that would lex as part of another word is not a cut.
# Comments and quoted values (where a result token means nothing) are skipped; a run of
# them separated by blanks is one match, so millions of comments cost few Python steps.
# Blanks alone never start a match: between ordinary tokens the C scanner moves on by
# itself. The run is bounded because the regex engine keeps a backtracking entry per
# repetition.
_SKIP = r'\{[^}]*\}?|;[^\n]*|"(?:[^"\\\n]|\\.)*"?'
_CUT = re.compile(
    rf"(?:{_SKIP})(?:\s*(?:{_SKIP})){{0,4095}}"
    r"|(?P<result>(?<![\w@=:>^./$\-])(?:1-0|0-1|1/2-1/2)|\*)"
)


def game_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of each game's text: cut after every result token.

    At most ``MAX_GAMES_PER_FILE + 1`` spans: the reader refuses the game after the
    limit, so cutting further would only spend memory on games nobody reads.
    """
    spans = []
    for span in iter_game_spans(text):
        spans.append(span)
        if len(spans) > MAX_GAMES_PER_FILE:
            break
    return spans


def iter_game_spans(text: str, start: int = 0):
    """Like :func:`game_spans`, one span at a time and without a limit: a reader that
    keeps one game at a time needs no list of every span (8 MiB for 100,000 games).

    ``start`` is where the first game begins (a span's end, to resume a cut).
    """
    for match in _CUT.finditer(text, start):
        if match.lastgroup == "result":
            yield start, match.end()
            start = match.end()
    if text[start:].strip():
        yield start, len(text)


def parse_games(text: str):
    """Yield a :class:`Chunk` per game of ``text``, in order."""
    line, line_start = 1, 0
    counted = 0
    for start, end in iter_game_spans(text):
        line += text.count("\n", counted, start)
        counted = start
        newline = text.rfind("\n", 0, start)
        line_start = newline + 1
        yield from _parse_span(text, start, end, line, start - line_start + 1)


def parse_span(text: str, start: int, end: int, line: int = 1, column: int = 1):
    """Yield the :class:`Chunk` (usually one) of the game ``text[start:end]``, a span that
    :func:`iter_game_spans` cut, which starts at file ``line`` and ``column``.

    For a reader that cuts a file itself and parses its games elsewhere (another process).
    """
    return _parse_span(text, start, end, line, column)


def _parse_span(text: str, start: int, end: int, line: int, column: int):
    chunk_text = text[start:end]
    try:
        tokens = lalr.parse(chunk_text, MAX_TOKENS_PER_GAME)   # Lark's tables, Lark not imported
    except lalr.TooManyTokens as exc:
        chunk = Chunk(None, line, column)
        chunk.error = NotationError(
            f"a game may hold at most {MAX_TOKENS_PER_GAME:,} tokens (actions, move numbers, "
            f"comments, annotations; MAX_TOKENS_PER_GAME); this one has more", *chunk.where(exc.token))
        yield chunk
        return
    if tokens is not None:
        yield Chunk(tokens, line, column)
        return
    # Not accepted: the real Lark parser finds the error, and it is explained below (the
    # only time lark is loaded while reading a file).
    from lark.exceptions import UnexpectedInput, UnexpectedToken
    try:
        # Lark's tokens made plain (type, value, line, column), as game_items unpacks them.
        yield Chunk([lalr.Token(token.type, str(token), token.line, token.column)
                     for token in parser().parse(chunk_text)], line, column)
        return
    except UnexpectedInput as exc:     # the one place Lark's syntax errors become ours
        chunk = Chunk(None, line, column)
        token = getattr(exc, "token", None)
        if isinstance(exc, UnexpectedToken) and token.type == "TAG":
            # A game without its result, then the next game's tags: end this game here
            # and read on from the tags, so the next game is not lost.
            where = chunk.where(token)
            chunk.error = _bad_word_before(chunk_text, token.start_pos, chunk) or NotationError(
                f"expected {RESULT_WORDS} to end the game before the next game's tags", *where)
            yield chunk
            tag_start = start + token.start_pos
            # Counted from the span's own start, so a span cut out of a bigger text
            # (tomis.archive sends pieces of a file elsewhere) gives file columns too.
            newline = text.rfind("\n", start, tag_start)
            tag_column = column + (tag_start - start) if newline < 0 else tag_start - newline
            yield from _parse_span(text, tag_start, end, where[0], tag_column)
            return
        chunk.error = _lark_error(chunk_text, exc, chunk)
        yield chunk


def _lark_error(chunk_text: str, exc, chunk: Chunk) -> NotationError:
    from lark.exceptions import UnexpectedCharacters, UnexpectedToken   # loaded by the caller already
    if isinstance(exc, UnexpectedCharacters):
        offset, message = _explain_word(chunk_text, exc.pos_in_stream)
        return _at_offset(chunk_text, offset, message, chunk)
    token = getattr(exc, "token", None)
    if not isinstance(exc, UnexpectedToken) or token.type == "$END":
        end = len(chunk_text.rstrip())
        return _bad_word_before(chunk_text, end, chunk) or _at_offset(
            chunk_text, end, f"at end of file: expected {RESULT_WORDS} to end the game", chunk)
    # Only $END may follow a result; the cut missed this one because it is glued to a
    # move number ("12.1-0"), which the lexer reads as two tokens.
    before = lalr.tokens(chunk_text[:token.start_pos]) or [token]
    return NotationError(f"unexpected '{token.value.rstrip()}' after the result '{before[-1].value}', "
                         f"which ends the game", *chunk.where(token))


def _bad_word_before(chunk_text: str, end: int, chunk: Chunk) -> NotationError | None:
    """The first word before ``end`` that is not an action, explained; None if there is none.

    For a game the parser refused for lack of its result: such a word comes first in the
    text, and is often the reason (``O-1`` meant as ``0-1``).
    """
    for token in lalr.tokens(chunk_text[:end]) or ():
        if token.type == "BAD_ACTION":
            offset, message = explain_action(token.value.rstrip())
            line, column = chunk.where(token)
            return NotationError(message, line, column + offset)
    return None


def _at_offset(chunk_text: str, offset: int, message: str, chunk: Chunk) -> NotationError:
    line = chunk_text.count("\n", 0, offset) + 1
    column = offset - (chunk_text.rfind("\n", 0, offset) + 1) + 1
    if line == 1:
        column += chunk.column - 1
    return NotationError(message, line + chunk.line - 1, column)


def caret_context(text: str, line: int | None, column: int | None) -> str:
    """The source line ``line`` of ``text`` and a caret under ``column`` (1-based).

    The line is shown as :func:`~tomis.errors.visible` shows outside text (a control
    character, a tab too, escaped: it is printed to a terminal) and the caret stands
    under the escaped text. Empty when the position is unknown or outside the text.
    """
    if not line or line < 1:
        return ""
    lines = text.split("\n")         # only "\n" ends a line, as for the reader
    if text.endswith("\n"):
        lines.pop()
    if line > len(lines):
        return ""
    source = lines[line - 1]
    column = max(1, column or 1)
    before = source[:column - 1]
    pad = " " * (len(visible(before)) + column - 1 - len(before))
    return f"{visible(source)}\n{pad}^"
