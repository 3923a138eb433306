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

from ..util.oldnames import answered_by

if TYPE_CHECKING:          # for type checkers; at run time __getattr__ does it lazily
    from .core import *  # noqa: F403


__getattr__, __dir__ = answered_by(__name__, ".core")
