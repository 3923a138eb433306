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

# old module name -> where the module lives now, both below the package
MOVED = {
    "_parser_tables": "notation._parser_tables",
    "actions": "rules.actions",
    "board": "rules.board",
    "clock": "notation.clock",
    "combat": "rules.combat",
    "conditional": "notation.conditional",
    "correspondence": "notation.correspondence",
    "dedupe": "archive.dedupe",
    "digest": "notation.digest",
    "findings": "archive.findings",
    "hints": "util.hints",
    "html": "pictures.html",
    "images": "pictures.images",
    "jsonl": "archive.jsonl",
    "lalr": "notation.lalr",
    "lineedit": "cli.lineedit",
    "position": "rules.position",
    "record": "notation.record",
    "render": "pictures.render",
    "reports": "archive.reports",
    "safefile": "util.safefile",
    "select": "archive.select",
    "stats": "archive.stats",
    "svg": "pictures.svg",
    "terminal": "util.terminal",
    "textio": "util.textio",
    "words": "pictures.words",
}


class OldPathFinder:
    """A meta path finder (and loader) that answers an old path with the moved module.

    It knows the package by the name it was imported under (``tomis``, or another name
    for a copy of an older commit that bench/bench_versions.py loads beside this one)."""

    def __init__(self, package: str):
        self.package = package

    def moved(self, name: str) -> str | None:
        package, _, old = name.rpartition(".")
        return f"{package}.{MOVED[old]}" if package == self.package and old in MOVED else None

    def find_spec(self, name: str, path=None, target=None):
        return ModuleSpec(name, self) if self.moved(name) else None

    def create_module(self, spec: ModuleSpec):
        return import_module(self.moved(spec.name))

    def exec_module(self, module) -> None:
        """Nothing to run: the moved module ran when it was imported."""


def install(package: str) -> None:
    """Put a finder for ``package`` on ``sys.meta_path`` once (``import tomis`` does it)."""
    if not any(getattr(finder, "package", None) == package and isinstance(finder, OldPathFinder)
               for finder in sys.meta_path):
        sys.meta_path.append(OldPathFinder(package))
