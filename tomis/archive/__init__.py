"""Archives: many records at once.

:mod:`.walker` reads files one game at a time and shares them among worker processes;
:mod:`.findings` names what a check found; :mod:`.select`, :mod:`.dedupe`,
:mod:`.stats`, :mod:`.reports` (validate's report formats) and :mod:`.jsonl` (one JSON
row per action) work on what the walk gives.

``tomis.archive`` was the module that is now :mod:`.walker`; its names still answer here,
loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..util.oldnames import answered_by

if TYPE_CHECKING:          # for type checkers; at run time __getattr__ does it lazily
    from .walker import *  # noqa: F403


__getattr__, __dir__ = answered_by(__name__, ".walker")
