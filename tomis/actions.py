"""Actions: one small frozen type per kind, each knowing its canonical notation.

Actions record intent only; whether one is legal is decided by :mod:`tomis.rules`.
They compare and hash by value. ``line`` and ``column`` say where a parsed action
stood in its source text; they take no part in comparison, so a parsed ``Fa2-a3``
equals the one the move generator produces.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .board import DIRECTION_NAMES, PIECE_LETTERS, SQUARE_NAMES

_POS = dict(default=0, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Place:
    """``X@sq``: put a base or gate (opening, R5-R6) or a ship (deploy, R8) on a square."""

    piece: int
    square: int
    line: int = field(**_POS)
    column: int = field(**_POS)

    def __str__(self) -> str:
        return f"{PIECE_LETTERS[self.piece]}@{SQUARE_NAMES[self.square]}"


@dataclass(frozen=True, slots=True)
class Move:
    """``Xfrom-to``: a ship moves (R9)."""

    piece: int
    origin: int
    target: int
    line: int = field(**_POS)
    column: int = field(**_POS)

    def __str__(self) -> str:
        return f"{PIECE_LETTERS[self.piece]}{SQUARE_NAMES[self.origin]}-{SQUARE_NAMES[self.target]}"


@dataclass(frozen=True, slots=True)
class Toggle:
    """``Fsq=A`` / ``Fsq=I``: the frigate on a gate activates or deactivates it (R10)."""

    square: int
    activate: bool
    line: int = field(**_POS)
    column: int = field(**_POS)

    def __str__(self) -> str:
        return f"F{SQUARE_NAMES[self.square]}={'A' if self.activate else 'I'}"


@dataclass(frozen=True, slots=True)
class PlaceMarker:
    """``M@sq:DIR``: a marker from reserve onto an own active gate (R11)."""

    square: int
    direction: int
    line: int = field(**_POS)
    column: int = field(**_POS)

    def __str__(self) -> str:
        return f"M@{SQUARE_NAMES[self.square]}:{DIRECTION_NAMES[self.direction]}"


@dataclass(frozen=True, slots=True)
class RotateMarker:
    """``Msq:DIR``: give an own jump gate a new direction (R11)."""

    square: int
    direction: int
    line: int = field(**_POS)
    column: int = field(**_POS)

    def __str__(self) -> str:
        return f"M{SQUARE_NAMES[self.square]}:{DIRECTION_NAMES[self.direction]}"


@dataclass(frozen=True, slots=True)
class GateJump:
    """``Ffrom>to``: a frigate on an active gate moves to the next gate up or down (R12)."""

    origin: int
    target: int
    line: int = field(**_POS)
    column: int = field(**_POS)

    def __str__(self) -> str:
        return f"F{SQUARE_NAMES[self.origin]}>{SQUARE_NAMES[self.target]}"


@dataclass(frozen=True, slots=True)
class GateStrike:
    """``Ffromxto``: a frigate on an active gate strikes the enemy frigate on the next (R13)."""

    origin: int
    target: int
    line: int = field(**_POS)
    column: int = field(**_POS)

    def __str__(self) -> str:
        return f"F{SQUARE_NAMES[self.origin]}x{SQUARE_NAMES[self.target]}"


@dataclass(frozen=True, slots=True)
class Jump:
    """``Ffrom^to``: a frigate beside a jump gate flies to its landing square (R14)."""

    origin: int
    target: int
    line: int = field(**_POS)
    column: int = field(**_POS)

    def __str__(self) -> str:
        return f"F{SQUARE_NAMES[self.origin]}^{SQUARE_NAMES[self.target]}"


Action = Place | Move | Toggle | PlaceMarker | RotateMarker | GateJump | GateStrike | Jump
ACTION_TYPES = (Place, Move, Toggle, PlaceMarker, RotateMarker, GateJump, GateStrike, Jump)


def at(action: Action, line: int, column: int) -> Action:
    """The same action, marked as found at ``line``:``column`` of its source."""
    fields = {name: getattr(action, name) for name in action.__dataclass_fields__}
    fields.update(line=line, column=column)
    return type(action)(**fields)


def builder(cls):
    """A constructor for action type ``cls`` taking every field positionally.

    About four times faster than the generated ``__init__`` of a frozen dataclass
    (which sets each field through ``object.__setattr__``): it sets the slots directly.
    The parser builds one action per token with it; values are not checked, exactly as
    ``__init__`` does not check them.
    """
    setters = tuple(cls.__dict__[name].__set__ for name in cls.__dataclass_fields__)
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
