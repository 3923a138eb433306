"""The notation layer: .tgn text to games and back.

:mod:`._parser_tables` (generated) and :mod:`.lalr` run the grammar's LALR tables
without Lark; :mod:`.syntax` cuts a file into games and reads each as typed items, with
syntax errors in words; :mod:`.clock`, :mod:`.conditional` and :mod:`.correspondence`
read the correspondence facts a record states (time controls, stamps, draw offers,
claims, conditional lines); :mod:`.digest` fingerprints a game's history and
:mod:`.record` reads and checks a whole record (replaying it through :mod:`tomis.rules`)
and writes it back.

``tomis.notation`` was the module that is now :mod:`.syntax`; its names
(``tomis.notation.parse_action``, ``game_items`` and the rest) still answer here,
loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:          # for type checkers; at run time __getattr__ does it lazily
    from .syntax import *  # noqa: F403


def _syntax():
    # import_module, not "from . import syntax": that form asks this module for the name
    # first, which would come back here.
    from importlib import import_module
    return import_module(".syntax", __name__)


def __getattr__(name: str):
    try:
        return getattr(_syntax(), name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(dir(_syntax())))
