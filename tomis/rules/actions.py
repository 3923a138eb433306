"""Actions: one small frozen type per kind, each knowing its canonical notation.

Actions record intent only; whether one is legal is decided by :mod:`tomis.rules`.
They are immutable, and compare and hash by kind and values. ``Action.parse(text)``
reads one from notation and ``repr(action)`` is that call, so a repr reads back. ``line`` and ``column``
say where a parsed action stood in its source text; they take no part in comparison,
so a parsed ``Fa2-a3`` equals the one the move generator produces.

Reading one action word lives here, below the notation layer, so that the action types
need nothing above them: the patterns of the grammar's action terminals, one decoder per
terminal (the parser of :mod:`tomis.notation.syntax` uses them too) and the explanation,
in words, of a word that is not an action. Whole records, and Lark, are the notation
layer's.

The types are written by hand on one small base class rather than as frozen
dataclasses: creating eight slotted dataclasses cost about 6 ms at import, a visible
share of a one-file ``tomis validate``.
"""

from __future__ import annotations

import re
from operator import attrgetter

from .board import (
    DIRECTION_INDEX, DIRECTION_NAMES, LETTER_TO_PIECE, PIECE_LETTERS, SQUARE_INDEX, SQUARE_NAMES,
)
from ..errors import NotationError
from ..util.lazyre import LazyPattern


class Action:
    """Base of the action types: immutable values with a source position."""

    __slots__ = ("line", "column")
    _fields: tuple[str, ...] = ()       # the value fields, in order (set by each type)
    # Each type names its fields twice: in ``__slots__ = _fields`` for Python, and as
    # annotations for type checkers (the package ships py.typed), which read no slots.
    line: int
    column: int
    _key = staticmethod(lambda action: ())

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._key = staticmethod(attrgetter(*cls._fields))

    def __init__(self, *values, line: int = 0, column: int = 0):
        if len(values) != len(self._fields):
            raise TypeError(f"{type(self).__name__} takes {', '.join(self._fields)}; got {len(values)} values")
        store = object.__setattr__       # the type's own __setattr__ refuses every change
        for name, value in zip(self._fields, values):
            store(self, name, value)
        store(self, "line", line)
        store(self, "column", column)

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is immutable; cannot set {name!r}")

    def __delattr__(self, name):
        raise AttributeError(f"{type(self).__name__} is immutable; cannot delete {name!r}")

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return self._key(self) == other._key(other)

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._key(self)))

    def __repr__(self) -> str:
        return f"Action.parse({str(self)!r})"

    @classmethod
    def parse(cls, text: str) -> Action:
        """The action written ``text`` in notation (``"Fa2-a3"``); blanks around it are allowed.

        Raises :class:`~tomis.errors.NotationError` (with the column of the first wrong
        character) for a text that is not one action, or not one of ``cls``'s kind when
        called on a subclass (``Move.parse("F@a1")``). Legality is :mod:`tomis.rules`'s.
        """
        action = read_action(text)
        if not isinstance(action, cls):
            raise NotationError(f"expected a {cls.__name__} action, found '{text.strip()}' "
                                f"(a {type(action).__name__})", 1, len(text) - len(text.lstrip()) + 1)
        return action

    def __reduce__(self):
        return (_rebuild, (type(self), self._key(self), self.line, self.column))


def _rebuild(cls, values, line, column):
    return cls(*values, line=line, column=column)


class Place(Action):
    """``X@sq``: put a base or gate (opening, R5-R6) or a ship (deploy, R8) on a square."""

    __slots__ = _fields = ("piece", "square")
    piece: int
    square: int

    def __str__(self) -> str:
        return f"{PIECE_LETTERS[self.piece]}@{SQUARE_NAMES[self.square]}"


class Move(Action):
    """``Xfrom-to``: a ship moves (R9)."""

    __slots__ = _fields = ("piece", "origin", "target")
    piece: int
    origin: int
    target: int

    def __str__(self) -> str:
        return f"{PIECE_LETTERS[self.piece]}{SQUARE_NAMES[self.origin]}-{SQUARE_NAMES[self.target]}"


class Toggle(Action):
    """``Fsq=A`` / ``Fsq=I``: the frigate on a gate activates or deactivates it (R10)."""

    __slots__ = _fields = ("square", "activate")
    square: int
    activate: bool

    def __str__(self) -> str:
        return f"F{SQUARE_NAMES[self.square]}={'A' if self.activate else 'I'}"


class PlaceMarker(Action):
    """``M@sq:DIR``: a marker from reserve onto an own active gate (R11)."""

    __slots__ = _fields = ("square", "direction")
    square: int
    direction: int

    def __str__(self) -> str:
        return f"M@{SQUARE_NAMES[self.square]}:{DIRECTION_NAMES[self.direction]}"


class RotateMarker(Action):
    """``Msq:DIR``: give an own jump gate a new direction (R11)."""

    __slots__ = _fields = ("square", "direction")
    square: int
    direction: int

    def __str__(self) -> str:
        return f"M{SQUARE_NAMES[self.square]}:{DIRECTION_NAMES[self.direction]}"


class GateJump(Action):
    """``Ffrom>to``: a frigate on an active gate moves to the next gate up or down (R12)."""

    __slots__ = _fields = ("origin", "target")
    origin: int
    target: int

    def __str__(self) -> str:
        return f"F{SQUARE_NAMES[self.origin]}>{SQUARE_NAMES[self.target]}"


class GateStrike(Action):
    """``Ffromxto``: a frigate on an active gate strikes the enemy frigate on the next (R13)."""

    __slots__ = _fields = ("origin", "target")
    origin: int
    target: int

    def __str__(self) -> str:
        return f"F{SQUARE_NAMES[self.origin]}x{SQUARE_NAMES[self.target]}"


class Jump(Action):
    """``Ffrom^to``: a frigate beside a jump gate flies to its landing square (R14)."""

    __slots__ = _fields = ("origin", "target")
    origin: int
    target: int

    def __str__(self) -> str:
        return f"F{SQUARE_NAMES[self.origin]}^{SQUARE_NAMES[self.target]}"


ACTION_TYPES = (Place, Move, Toggle, PlaceMarker, RotateMarker, GateJump, GateStrike, Jump)


def values(action: Action) -> tuple:
    """The action's value fields in order (its identity, without line and column)."""
    return action._key(action)


def at(action: Action, line: int, column: int) -> Action:
    """The same action, marked as found at ``line``:``column`` of its source."""
    return type(action)(*values(action), line=line, column=column)


def builder(cls):
    """A constructor for action type ``cls`` taking every value, then line and column.

    About four times faster than ``cls(...)``, whose ``__init__`` goes through
    ``object.__setattr__`` for each field: it sets the slots directly. The parser builds
    one action per token with it; values are not checked, as ``__init__`` does not
    check them either.
    """
    setters = tuple(getattr(cls, name).__set__ for name in cls._fields + ("line", "column"))
    new = object.__new__
    if len(setters) == 4:
        set_a, set_b, set_c, set_d = setters

        def build4(a, b, c, d):
            action = new(cls)
            set_a(action, a)
            set_b(action, b)
            set_c(action, c)
            set_d(action, d)
            return action
        return build4
    set_a, set_b, set_c, set_d, set_e = setters

    def build5(a, b, c, d, e):
        action = new(cls)
        set_a(action, a)
        set_b(action, b)
        set_c(action, c)
        set_d(action, d)
        set_e(action, e)
        return action
    return build5


# ---------------------------------------------------------------------------
# Reading one action word

# The grammar's action terminals (grammar/tomis.lark), each for one whole word: the
# grammar stays the authority, and tests/test_named_data.py checks these say what the
# generated parser tables say.
_SQUARE_WORD = "[a-h][1-8]"
_DIRECTION_WORD = "(?:NE|NW|SE|SW|N|E|S|W)"
WORD_PATTERNS = {
    "PLACE_MARKER": f"M@{_SQUARE_WORD}:{_DIRECTION_WORD}",
    "ROTATE_MARKER": f"M{_SQUARE_WORD}:{_DIRECTION_WORD}",
    "MOVE": f"[BGMFSTQ]{_SQUARE_WORD}-{_SQUARE_WORD}",
    "JUMP": f"F{_SQUARE_WORD}\\^{_SQUARE_WORD}",
    "GATE_JUMP": f"F{_SQUARE_WORD}>{_SQUARE_WORD}",
    "GATE_STRIKE": f"F{_SQUARE_WORD}x{_SQUARE_WORD}",
    "PLACE": f"[BGMFSTQ]@{_SQUARE_WORD}",
    "TOGGLE": f"F{_SQUARE_WORD}=[AI]",
}
# Compiled when the first word is read this way (the record reader has its own tokenizer).
_ONE_ACTION = LazyPattern("|".join(f"(?P<{kind}>{pattern})" for kind, pattern in WORD_PATTERNS.items()))

def _place(t):
    return Place, (LETTER_TO_PIECE[t[0]], SQUARE_INDEX[t[2:4]])


def _move(t):
    return Move, (LETTER_TO_PIECE[t[0]], SQUARE_INDEX[t[1:3]], SQUARE_INDEX[t[4:6]])


def _toggle(t):
    return Toggle, (SQUARE_INDEX[t[1:3]], t[4] == "A")


def _place_marker(t):
    return PlaceMarker, (SQUARE_INDEX[t[2:4]], DIRECTION_INDEX[t[5:]])


def _rotate_marker(t):
    return RotateMarker, (SQUARE_INDEX[t[1:3]], DIRECTION_INDEX[t[4:]])


def _two_squares(kind):
    def decode(t):
        return kind, (SQUARE_INDEX[t[1:3]], SQUARE_INDEX[t[4:6]])
    return decode


DECODERS = {
    "PLACE": _place, "MOVE": _move, "TOGGLE": _toggle, "PLACE_MARKER": _place_marker,
    "ROTATE_MARKER": _rotate_marker, "GATE_JUMP": _two_squares(GateJump),
    "GATE_STRIKE": _two_squares(GateStrike), "JUMP": _two_squares(Jump),
}

ACTION_TERMINALS = frozenset(DECODERS)


def read_action(text: str) -> Action:
    """The one action written ``text`` (``"Fa2-a3"``; blanks around it are allowed).

    Raises :class:`~tomis.errors.NotationError` with the 1-based column of the first
    wrong character. Legality is :mod:`tomis.rules`'s.
    """
    word, lead = action_word(text)
    match = _ONE_ACTION.fullmatch(word)
    if match is not None:
        cls, fields = DECODERS[match.lastgroup](word)
        return cls(*fields, line=1, column=lead + 1)
    offset, message = (explain_action(word) if word[0].isalpha()
                       else (0, f"expected an action like Fa2-a3, found '{word}'"))
    raise NotationError(message, 1, lead + offset + 1)


def action_word(text: str) -> tuple[str, int]:
    """(the word, the blanks before it) of a text meant to hold one action; raises
    :class:`~tomis.errors.NotationError` for nothing, several words or a long text."""
    stripped = text.strip()
    lead = len(text) - len(text.lstrip())
    if not stripped:
        raise NotationError("expected an action like Fa2-a3, found nothing", 1, 1)
    if len(stripped) > _LONGEST_ACTION_TEXT:
        raise NotationError(
            f"expected one action like Fa2-a3, found {len(stripped):,} characters starting "
            f"'{stripped[:12]}...'", 1, lead + 1)
    if "\n" in stripped:
        raise NotationError("expected one action on one line", 1, lead + stripped.index("\n") + 1)
    word = stripped.split()[0]
    if len(word) < len(stripped):
        raise _several_words(stripped, word, lead)
    return word, lead


_LONGEST_ACTION_TEXT = 64        # the longest action, M@c3:NE, has 7 characters
_MOVE_NUMBER_WORD = re.compile(r"[0-9]+\.(?:\.\.)?")


def _several_words(text: str, first: str, lead: int) -> NotationError:
    """The error for an action argument holding more than one word, with the fix if obvious."""
    words = text.split()
    if len(words) == 2 and _MOVE_NUMBER_WORD.fullmatch(words[0]) and _is_action(words[1]):
        return NotationError(
            f"a move number is not part of the action (tomis numbers actions itself): "
            f"write '{words[1]}'", 1, lead + 1)
    joined = "".join(words)
    if _is_action(joined):
        return NotationError(
            f"an action is written without spaces: did you mean '{joined}'?", 1, lead + len(first) + 1)
    return NotationError(f"expected one action, found more after '{first}'", 1, lead + len(first) + 1)


def _is_action(word: str) -> bool:
    return _ONE_ACTION.fullmatch(word) is not None



# ---------------------------------------------------------------------------
# Explaining a word that is not an action

_DIRECTIONS_WORDS = "a direction (N NE E SE S SW W NW)"
_FRIGATE_ONLY = {"=": "a gate toggle (R10)", ">": "a gate jump (R12)",
                 "x": "a gate strike (R13)", "^": "a jump (R14)"}


def _square_at(word: str, i: int) -> bool:
    return word[i:i + 2] in SQUARE_INDEX


def _direction_at(word: str, i: int) -> int:
    """Length of the direction name at ``word[i:]`` (0 if none)."""
    two = word[i:i + 2]
    if len(two) == 2 and two in DIRECTION_INDEX:      # at the word's end the slice is shorter
        return 2
    if word[i:i + 1] in DIRECTION_INDEX:
        return 1
    return 0


def _after(word: str, end: int) -> tuple[int, str] | None:
    """The fault in what follows a complete action ``word[:end]``, or None if nothing does."""
    if end == len(word):
        return None
    rest = word[end:]
    why = "; Tomis has no check signs" if rest[0] in "+#" else ""
    return end, f"unexpected '{rest}' after the action '{word[:end]}'{why}"


def _fault(word: str) -> tuple[int, str] | None:
    """(offset, message) of the first character that breaks ``word`` as an action."""
    piece = word[0]
    if piece not in PIECE_LETTERS:
        return 0, f"expected a piece letter (B G M F S T Q) at the start of '{word}'"
    if word[1:2] == "@":
        if not _square_at(word, 2):
            return 2, f"expected a square like e4 after '{word[:2]}' in '{word}'"
        if piece == "M" and word[4:5] == ":":
            size = _direction_at(word, 5)
            if not size:
                return 5, f"expected {_DIRECTIONS_WORDS} after '{word[:5]}' in '{word}'"
            return _after(word, 5 + size)
        return _after(word, 4)
    if not _square_at(word, 1):
        return 1, f"expected a square like e4 after '{piece}' in '{word}'"
    sep = word[3:4]
    if sep in _FRIGATE_ONLY and piece != "F":
        return 0, (f"{_FRIGATE_ONLY[sep]} is a frigate's action, written 'F{word[1:]}'; "
                   f"found '{piece}' in '{word}'")
    if sep == ":" and piece != "M":
        return 0, f"a rotation is written with 'M' like 'M{word[1:]}' (R11); found '{piece}' in '{word}'"
    if sep in ("-", ">", "x", "^"):
        if not _square_at(word, 4):
            return 4, f"expected a square like e4 after '{word[:4]}' in '{word}'"
        return _after(word, 6)
    if sep == "=":
        if word[4:5] not in ("A", "I"):
            return 4, f"expected A (activate) or I (deactivate) after '{word[:4]}' in '{word}'"
        return _after(word, 5)
    if sep == ":":
        size = _direction_at(word, 4)
        if not size:
            return 4, f"expected {_DIRECTIONS_WORDS} after '{word[:4]}' in '{word}'"
        return _after(word, 4 + size)
    forms = {"F": "-, =, >, x or ^", "M": "- or :"}.get(piece, "-")
    found = f"'{sep}'" if sep else "the end of the word"
    return 3, f"expected {forms} after '{word[:3]}' in '{word}', found {found}"


def _fix(word: str) -> str | None:
    """An obvious correction of ``word`` that is a valid action, if there is one."""
    candidates = []
    dashed = re.sub("[\u2010-\u2015\u2212]", "-", word)     # typographic dashes
    if dashed != word:
        candidates.append(dashed)
    if word[0].upper() in PIECE_LETTERS and word[0].islower():
        candidates.append(word[0].upper() + word[1:])
    for guess in list(candidates) + [word]:
        # Squares written with capital files: FA2-A3, F@A1.
        lowered = guess[0] + re.sub(r"[A-H](?=[1-8])", lambda m: m.group().lower(), guess[1:])
        if lowered != guess:
            candidates.append(lowered)
    for guess in candidates:
        if _fault(guess) is None:
            return guess
    return None


def explain_action(word: str) -> tuple[int, str]:
    """(0-based offset, message) for a word in action position that is not an action."""
    if re.fullmatch(r"[Oo]-[Oo](-[Oo])?", word):
        return 0, f"'{word}' is chess castling; Tomis has none"
    if word in ("O-1", "o-1"):
        return 0, f"'{word}' is not an action; results use the digit zero: did you mean '0-1'?"
    fault = _fault(word)
    if fault is None:       # cannot happen for a BAD_ACTION token; say something useful anyway
        return 0, f"expected an action like Fa2-a3, found '{word}'"
    offset, message = fault
    fixed = _fix(word)
    if fixed is not None:
        why = ("piece letters are uppercase" if word[0].islower()
               else "a move is written with the plain '-'" if "-" in fixed and "-" not in word
               else "squares are written in lowercase")
        message += f"; {why}: did you mean '{fixed}'?"
    return offset, message



