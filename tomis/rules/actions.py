"""Actions: one small frozen type per kind, each knowing its canonical notation.

Actions record intent only; whether one is legal is decided by :mod:`tomis.rules`.
They are immutable, and compare and hash by kind and values. ``Action.parse(text)``
reads one from notation and ``repr(action)`` is that call, so a repr reads back. ``line`` and ``column``
say where a parsed action stood in its source text; they take no part in comparison,
so a parsed ``Fa2-a3`` equals the one the move generator produces.

The types are written by hand on one small base class rather than as frozen
dataclasses: creating eight slotted dataclasses cost about 6 ms at import, a visible
share of a one-file ``tomis validate``.
"""

from __future__ import annotations

from operator import attrgetter

from .board import DIRECTION_NAMES, PIECE_LETTERS, SQUARE_NAMES


class Action:
    """Base of the action types: immutable values with a source position."""

    __slots__ = ("line", "column")
    _fields: tuple[str, ...] = ()       # the value fields, in order (set by each type)
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
        from ..notation.syntax import parse_action      # notation is the layer above; import on use
        action = parse_action(text)
        if not isinstance(action, cls):
            from ..errors import NotationError
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

    def __str__(self) -> str:
        return f"{PIECE_LETTERS[self.piece]}@{SQUARE_NAMES[self.square]}"


class Move(Action):
    """``Xfrom-to``: a ship moves (R9)."""

    __slots__ = _fields = ("piece", "origin", "target")

    def __str__(self) -> str:
        return f"{PIECE_LETTERS[self.piece]}{SQUARE_NAMES[self.origin]}-{SQUARE_NAMES[self.target]}"


class Toggle(Action):
    """``Fsq=A`` / ``Fsq=I``: the frigate on a gate activates or deactivates it (R10)."""

    __slots__ = _fields = ("square", "activate")

    def __str__(self) -> str:
        return f"F{SQUARE_NAMES[self.square]}={'A' if self.activate else 'I'}"


class PlaceMarker(Action):
    """``M@sq:DIR``: a marker from reserve onto an own active gate (R11)."""

    __slots__ = _fields = ("square", "direction")

    def __str__(self) -> str:
        return f"M@{SQUARE_NAMES[self.square]}:{DIRECTION_NAMES[self.direction]}"


class RotateMarker(Action):
    """``Msq:DIR``: give an own jump gate a new direction (R11)."""

    __slots__ = _fields = ("square", "direction")

    def __str__(self) -> str:
        return f"M{SQUARE_NAMES[self.square]}:{DIRECTION_NAMES[self.direction]}"


class GateJump(Action):
    """``Ffrom>to``: a frigate on an active gate moves to the next gate up or down (R12)."""

    __slots__ = _fields = ("origin", "target")

    def __str__(self) -> str:
        return f"F{SQUARE_NAMES[self.origin]}>{SQUARE_NAMES[self.target]}"


class GateStrike(Action):
    """``Ffromxto``: a frigate on an active gate strikes the enemy frigate on the next (R13)."""

    __slots__ = _fields = ("origin", "target")

    def __str__(self) -> str:
        return f"F{SQUARE_NAMES[self.origin]}x{SQUARE_NAMES[self.target]}"


class Jump(Action):
    """``Ffrom^to``: a frigate beside a jump gate flies to its landing square (R14)."""

    __slots__ = _fields = ("origin", "target")

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
