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

from ..util.oldnames import answered_by

if TYPE_CHECKING:          # for type checkers; at run time __getattr__ does it lazily
    from .syntax import *  # noqa: F403


__getattr__, __dir__ = answered_by(__name__, ".syntax")
