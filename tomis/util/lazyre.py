"""Regular expressions compiled when first used rather than when their module loads.

Compiling a long pattern costs a few hundred microseconds in the ``re`` module's Python
code, every time a process starts. Patterns that serve only some inputs (mail text,
an error's hints, a failing game's finding) are :class:`LazyPattern` so that a command
that never meets such input does not pay for them (docs/PERFORMANCE.md, start-up).
"""

from __future__ import annotations

import re


class LazyPattern:
    """Stands in for ``re.compile(source, flags)``: the first use compiles it, and every
    attribute (``match``, ``finditer``, ``pattern`` ...) is the compiled pattern's."""

    __slots__ = ("_source", "_flags", "_compiled")

    def __init__(self, source: str | bytes, flags: int = 0):
        self._source = source
        self._flags = flags
        self._compiled: re.Pattern | None = None

    def compiled(self) -> re.Pattern:
        if self._compiled is None:
            self._compiled = re.compile(self._source, self._flags)
        return self._compiled

    def __getattr__(self, name: str):
        # Only names the instance lacks come here: the pattern's methods and attributes.
        return getattr(self.compiled(), name)

    def __repr__(self) -> str:
        return f"LazyPattern({self._source!r})"
