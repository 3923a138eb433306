"""The rules layer: the game itself.

:mod:`.board` (squares, sides, piece kinds, directions, the shared constants and
precomputed tables), :mod:`.actions` (one frozen type per kind of action),
:mod:`.combat` (attack resolution, R15-R19), :mod:`.core` (``State``, ``legal_actions``,
``check``, ``apply``, the end rules) and :mod:`.position` (position strings and the JSON
view). Nothing here reads a file or imports lark or click.

``tomis.rules`` was the module that is now :mod:`.core`; its names (``tomis.rules.apply``,
``tomis.rules.State`` and the rest) still answer here, loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:          # for type checkers; at run time __getattr__ does it lazily
    from .core import *  # noqa: F403


def _core():
    # import_module, not "from . import core": that form asks this module for the name
    # first, which would come back here.
    from importlib import import_module
    return import_module(".core", __name__)


def __getattr__(name: str):
    try:
        return getattr(_core(), name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(dir(_core())))
