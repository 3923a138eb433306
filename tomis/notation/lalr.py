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
from typing import NamedTuple

from . import _parser_tables as _tables

SHIFT = 0
_END = "$END"


class Token(NamedTuple):
    """One token as Lark's basic lexer makes it: terminal name, text, 1-based position.

    A named tuple made with ``tuple.__new__``: a class with its own ``__init__`` cost a
    Python call per token, the tokenizer's largest single expense.
    """

    type: str
    value: str
    line: int
    column: int


_new_token = tuple.__new__


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
    out = []
    append = out.append
    ignore, newline_types = _IGNORE, _NEWLINES
    new_token = _new_token
    pos, line, line_start = 0, 1, 0
    # finditer steps over text no terminal matches: a match that does not begin where
    # the last one ended is a character Lark's lexer would refuse.
    for found in _scan().finditer(text):
        value = found.group()
        if found.start() != pos or not value:
            return None
        kind = found.lastgroup
        if kind not in ignore:
            append(new_token(Token, (kind, value, line, pos - line_start + 1)))
            if len(out) > limit:
                raise TooManyTokens(out[-1])
        if "\n" in value and kind in newline_types:
            line += value.count("\n")
            line_start = pos + value.rindex("\n") + 1
        pos += len(value)
    if pos != len(text):
        return None
    return out


def _step(stack: tuple, kind: str):
    """The stack after reading terminal ``kind`` (reductions, then the shift), or None.

    For ``$END`` the result is the accepting stack, or None.
    """
    states = _tables.STATES
    stack = list(stack)
    while True:
        action = states[stack[-1]].get(kind)
        if action is None:
            return None
        step, arg = action
        if step == SHIFT:
            if kind == _END:
                return None
            stack.append(arg)
            return tuple(stack)
        origin, size = arg
        if size:
            del stack[-size:]
        stack.append(states[stack[-1]][origin][1])
        if kind == _END and stack[-1] == _tables.END_STATE:
            return tuple(stack)


# stack -> {terminal: next stack}. The grammar is a flat run of tokens, so only a
# handful of stacks ever occur; each token costs one lookup in its stack's own table
# (a (stack, terminal) key hashed the whole stack tuple again for every token).
_steps: dict[tuple, dict] = {}
_MAX_STEPS = 4096            # a bound on the entries kept, in case some text produces many stacks
_kept = 0


def accepts(types) -> bool:
    """Whether the grammar's start rule derives this sequence of terminal names."""
    steps = _steps
    stack = (_tables.START_STATE,)
    for kind in types + [_END]:
        table = steps.get(stack)
        if table is None:
            table = _new_table(stack)
        following = table.get(kind, False)
        if following is False:
            following = _learn(stack, table, kind)
        if following is None:
            return False
        stack = following
    return True


def _new_table(stack: tuple) -> dict:
    """An empty table for ``stack``, kept while the bound allows (else used once)."""
    table: dict = {}
    if _kept < _MAX_STEPS:
        _steps[stack] = table
    return table


def _learn(stack: tuple, table: dict, kind: str):
    """The stack after ``kind`` (or None), worked out and kept in ``table`` while the bound allows."""
    global _kept
    following = _step(stack, kind)
    if _kept < _MAX_STEPS:
        table[kind] = following
        _kept += 1
    return following


def parse(text: str, limit: int | None = None) -> list[Token] | None:
    """The tokens of ``text`` if the grammar accepts it, else None (ask Lark why).

    Raises :class:`TooManyTokens` past ``limit`` tokens.
    """
    found = tokens(text, limit)
    if found is None or not accepts([token.type for token in found]):
        return None
    return found
