"""Tomis: rules engine, notation, game records and command line for the space board game.

The names a script needs live here::

    import tomis
    for game in tomis.read_games("club.tgn"):
        for position in game.positions():
            print(position.to_string())

``Position``, ``Game``, ``read_games`` and ``read_game`` come from :mod:`tomis.game`,
``Action`` from :mod:`tomis.actions`, the errors from :mod:`tomis.errors`. docs/API.md
is the tour. They load on first use (PEP 562), so ``import tomis`` (and ``tomis --help``)
stays as fast as before: nothing below is imported until a name is asked for.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

__version__ = "0.1.0"

from . import _oldpaths

_oldpaths.install(__name__)          # ``import tomis.record`` and the other paths from before the layers

# name -> the module that defines it
_EXPORTS = {
    "Position": "game", "Game": "game", "Node": "game", "LastAction": "game", "Removed": "game",
    "Unit": "game", "GateInfo": "game", "read_games": "game", "read_game": "game",
    "Action": "rules.actions",
    "TomisError": "errors", "NotationError": "errors", "IllegalActionError": "errors",
    "PositionError": "errors", "RecordError": "errors", "FileError": "errors",
}

__all__ = ["__version__", *_EXPORTS]

if TYPE_CHECKING:      # for type checkers and editors; at run time __getattr__ does it lazily
    from .rules.actions import Action
    from .errors import (
        FileError, IllegalActionError, NotationError, PositionError, RecordError, TomisError,
    )
    from .game import GateInfo, Game, LastAction, Node, Position, Removed, Unit, read_game, read_games


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'tomis' has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value          # the next lookup skips this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
