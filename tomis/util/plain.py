"""A base for small data classes written out by hand, for modules every command loads.

``@dataclass`` writes each class's methods as source text and compiles it when the module
loads: about half a millisecond a class, paid at every start by the modules on a plain
``tomis validate``'s path (docs/PERFORMANCE.md, start-up). A :class:`Plain` subclass
names its fields in ``__slots__`` and writes its ``__init__``; equality and ``repr``
come from here, field by field, as a dataclass's would. A class that replaced a dataclass
without slots adds ``OPEN`` to its slots (``__dict__`` and ``__weakref__``), so scripts can
still set attributes of their own on it and hold weak references to it, as they could.
"""

from __future__ import annotations


# The two slots that give an instance what a class without __slots__ has; not fields.
OPEN = ("__dict__", "__weakref__")


def field_names(cls) -> tuple:
    """The fields of a Plain class: its ``__slots__`` without the dunder ones."""
    return tuple(name for name in cls.__slots__ if not name.startswith("__"))


class Plain:
    """Fields are the class's ``__slots__``, in order; equal when the type and every field are."""

    __slots__ = ()

    def _fields(self) -> tuple:
        return tuple(getattr(self, name) for name in field_names(type(self)))

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()

    __hash__ = None          # mutable, like a dataclass with eq and without frozen

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in field_names(type(self)))
        return f"{type(self).__name__}({shown})"
