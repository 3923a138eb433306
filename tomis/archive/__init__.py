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

if TYPE_CHECKING:          # for type checkers; at run time __getattr__ does it lazily
    from .walker import *  # noqa: F403


def _walker():
    # import_module, not "from . import walker": that form asks this module for the name
    # first, which would come back here.
    from importlib import import_module
    return import_module(".walker", __name__)


def __getattr__(name: str):
    try:
        return getattr(_walker(), name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(dir(_walker())))
