"""Whether the rules run compiled: the optional mypyc build (docs/PERFORMANCE.md).

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
COMPILABLE = ("tomis.rules.board", "tomis.rules.combat", "tomis.rules.core")


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
    """``"pure Python"``, or which rules modules run compiled, for version lines and figures."""
    compiled = compiled_modules()
    if not compiled:
        return "pure Python"
    return "rules compiled with mypyc: " + ", ".join(name.rsplit(".", 1)[1] for name in compiled)
