"""Whether the rules (and the engine's search) run compiled: the optional mypyc build
(docs/PERFORMANCE.md, docs/ENGINE.md).

The default install is pure Python. ``TOMIS_COMPILE=1 pip install .`` compiles the
modules named here with mypyc (a C compiler is needed; the build fetches mypy); setup.py
reads the list from this file, so the build and this report cannot disagree. Each compiled module
then loads from an extension file beside its ``.py`` source, which this module looks
for without importing the rules.
"""

from __future__ import annotations

import sys
from importlib.util import find_spec

# Dotted names, in import order. tomis.rules.actions stays pure: its types are built
# by __init_subclass__ and set their slots through object.__setattr__, neither of which
# a compiled class allows, and compiled callers read their fields as fast either way.
# The engine's evaluation and search (issue 45) are in the same build, one group with
# the rules, so their calls into the rules stay native; they are named here, as text,
# so that the build and this report read one list (nothing of the engine is imported).
COMPILABLE = ("tomis.rules.board", "tomis.rules.combat", "tomis.rules.core",
              "tomis.engine.evaluate", "tomis.engine.search")


def compiled_modules() -> tuple[str, ...]:
    """Those of :data:`COMPILABLE` that this installation loads compiled."""
    return tuple(name for name in COMPILABLE if not (_source(name) or ".py").endswith(".py"))


def _source(name: str) -> str | None:
    # A module already imported says in __file__ what was loaded (under pytest, find_spec
    # gave the .py source for a compiled tomis.rules.board); otherwise find, not import.
    module = sys.modules.get(name)
    if module is not None:
        return getattr(module, "__file__", None)
    spec = find_spec(name)
    return spec.origin if spec is not None else None


def build_name() -> str:
    """``"pure Python"``, or which modules run compiled, for version lines and figures:
    ``rules compiled with mypyc: board, combat, core; engine: evaluate, search``."""
    compiled = compiled_modules()
    if not compiled:
        return "pure Python"
    groups: dict[str, list[str]] = {}
    for name in compiled:
        package, module = name.rsplit(".", 1)
        groups.setdefault(package.rsplit(".", 1)[1], []).append(module)
    return "; ".join(f"{package}{' compiled with mypyc' if index == 0 else ''}: {', '.join(modules)}"
                     for index, (package, modules) in enumerate(groups.items()))
