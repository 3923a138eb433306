"""A small LALR(1) runtime for the tables Lark computes from grammar/tomis.lark.

Why: importing Lark costs more than a whole bare click app takes to start, and a
one-file ``tomis validate`` should not pay that. Lark stays the authority: it
computes the tables (tools/gen_parser_tables.py writes them to
:mod:`tomis._parser_tables`), and tomis/notation.py hands any text these tables do
not accept to the real Lark parser, whose errors it explains in words. So this
module only ever says "accepted, here are the tokens" or "not mine" (None);
tests/test_parser_tables.py checks that it agrees with Lark on both counts.
"""

from __future__ import annotations

import re

from . import _parser_tables as _tables

SHIFT = 0
_END = "$END"


class Token:
    """One token as Lark's basic lexer makes it: terminal name, text, 1-based position."""

    __slots__ = ("type", "value", "line", "column")

    def __init__(self, type: str, value: str, line: int, column: int):
        self.type = type
        self.value = value
        self.line = line
        self.column = column

    def __repr__(self) -> str:
        return f"Token({self.type!r}, {self.value!r}, {self.line}, {self.column})"


_scanner: re.Pattern | None = None


def _scan() -> re.Pattern:
    """One alternation of every terminal, in the lexer's order: the first that matches wins."""
    global _scanner
    if _scanner is None:
        union = "|".join(f"(?P<{name}>{regex})" for name, regex in _tables.TERMINALS)
        _scanner = re.compile(union, _tables.REGEX_FLAGS)
    return _scanner


_IGNORE = frozenset(_tables.IGNORE)
_NEWLINES = frozenset(_tables.NEWLINE_TYPES)


class TooManyTokens(Exception):
    """More tokens than the caller's limit; ``token`` is the first one past it."""

    def __init__(self, token: Token):
        super().__init__(token)
        self.token = token


def tokens(text: str, limit: int | None = None) -> list[Token] | None:
    """The tokens of ``text`` (ignored blanks left out), or None where Lark's lexer would fail.

    Raises :class:`TooManyTokens` as soon as there are more than ``limit``, so an
    absurd text stops early instead of filling memory.
    """
    if limit is None:
        limit = len(text) + 1
    match = _scan().match
    out = []
    append = out.append
    pos, end, line, line_start = 0, len(text), 1, 0
    while pos < end:
        found = match(text, pos)
        if found is None or found.end() == pos:
            return None
        kind = found.lastgroup
        value = found.group()
        if kind not in _IGNORE:
            append(Token(kind, value, line, pos - line_start + 1))
            if len(out) > limit:
                raise TooManyTokens(out[-1])
        if kind in _NEWLINES:
            newlines = value.count("\n")
            if newlines:
                line += newlines
                line_start = pos + value.rindex("\n") + 1
        pos = found.end()
    return out


def accepts(types) -> bool:
    """Whether the grammar's start rule derives this sequence of terminal names."""
    states = _tables.STATES
    stack = [_tables.START_STATE]
    for kind in types:
        while True:
            action = states[stack[-1]].get(kind)
            if action is None:
                return False
            step, arg = action
            if step == SHIFT:
                stack.append(arg)
                break
            origin, size = arg
            if size:
                del stack[-size:]
            stack.append(states[stack[-1]][origin][1])
    while True:                       # the end of input: reduce until the start rule is done
        action = states[stack[-1]].get(_END)
        if action is None or action[0] == SHIFT:
            return False
        origin, size = action[1]
        if size:
            del stack[-size:]
        stack.append(states[stack[-1]][origin][1])
        if stack[-1] == _tables.END_STATE:
            return True


def parse(text: str, limit: int | None = None) -> list[Token] | None:
    """The tokens of ``text`` if the grammar accepts it, else None (ask Lark why).

    Raises :class:`TooManyTokens` past ``limit`` tokens.
    """
    found = tokens(text, limit)
    if found is None or not accepts(token.type for token in found):
        return None
    return found
