"""Old import paths, kept for scripts: ``tomis.record`` is :mod:`tomis.notation.record`.

Until the package was split into layers, every module sat directly in ``tomis/``, and
scripts, bench/ and the docs name those paths (``tomis.record.read``, ``tomis.svg.COLORS``).
Importing an old path gives the moved module itself, the same object, so every name,
private ones too, and any monkeypatch is shared. The paths live in this one table rather
than as files at the old places, so that the folder list shows only the layers.
``tomis.rules``, ``tomis.notation`` and ``tomis.archive`` were modules and are now
packages: their ``__init__`` answers the old module's names (:mod:`tomis.util.oldnames`).
"""

from __future__ import annotations

import sys
from importlib import import_module
from importlib.machinery import ModuleSpec

# old module path -> where the module lives now
MOVED = {
    "tomis._parser_tables": "tomis.notation._parser_tables",
    "tomis.actions": "tomis.rules.actions",
    "tomis.board": "tomis.rules.board",
    "tomis.clock": "tomis.notation.clock",
    "tomis.combat": "tomis.rules.combat",
    "tomis.conditional": "tomis.notation.conditional",
    "tomis.correspondence": "tomis.notation.correspondence",
    "tomis.dedupe": "tomis.archive.dedupe",
    "tomis.digest": "tomis.notation.digest",
    "tomis.findings": "tomis.archive.findings",
    "tomis.hints": "tomis.util.hints",
    "tomis.html": "tomis.pictures.html",
    "tomis.images": "tomis.pictures.images",
    "tomis.jsonl": "tomis.archive.jsonl",
    "tomis.lalr": "tomis.notation.lalr",
    "tomis.lineedit": "tomis.cli.lineedit",
    "tomis.position": "tomis.rules.position",
    "tomis.record": "tomis.notation.record",
    "tomis.render": "tomis.pictures.render",
    "tomis.reports": "tomis.archive.reports",
    "tomis.safefile": "tomis.util.safefile",
    "tomis.select": "tomis.archive.select",
    "tomis.stats": "tomis.archive.stats",
    "tomis.svg": "tomis.pictures.svg",
    "tomis.terminal": "tomis.util.terminal",
    "tomis.textio": "tomis.util.textio",
    "tomis.words": "tomis.pictures.words",
}


class OldPathFinder:
    """A meta path finder (and loader) that answers an old path with the moved module."""

    def find_spec(self, name: str, path=None, target=None):
        return ModuleSpec(name, self) if name in MOVED else None

    def create_module(self, spec: ModuleSpec):
        return import_module(MOVED[spec.name])

    def exec_module(self, module) -> None:
        """Nothing to run: the moved module ran when it was imported."""


def install() -> None:
    """Put the finder on ``sys.meta_path`` once (``import tomis`` does it)."""
    if not any(isinstance(finder, OldPathFinder) for finder in sys.meta_path):
        sys.meta_path.append(OldPathFinder())
