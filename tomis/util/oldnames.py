"""Lazy answers for a package that took the place of a module.

``tomis.rules``, ``tomis.notation``, ``tomis.archive`` and ``tomis.mail`` were modules;
each is now a package whose ``__init__`` answers the old module's names (private ones
too) from the modules that hold them, importing them on first use. ``tomis.mailout`` is
answered the same way by ``tomis.outgoing``.
"""

from __future__ import annotations

from importlib import import_module
from importlib.util import find_spec


def answered_by(package: str, *modules: str):
    """``(__getattr__, __dir__)`` for ``package`` that look names up in ``package + module``
    for each of ``modules`` in turn."""

    def homes():
        # import_module, not "from . import x": that form asks the package for the name
        # first, which would come back to __getattr__.
        return [import_module(module, package) for module in modules]

    def __getattr__(name: str):
        # A submodule not imported yet ("from . import settings" inside the package asks
        # the package first): imported as itself, before the homes, which may be the
        # very module whose import is under way.
        if find_spec(f"{package}.{name}") is not None:
            return import_module(f"{package}.{name}")
        for home in homes():
            if hasattr(home, name):
                value = getattr(home, name)
                break
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        # Kept on the package, so the next lookup is an ordinary attribute read: without
        # this every call of tomis.rules.apply paid an import_module lookup (about 1 us).
        setattr(import_module(package), name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(import_module(package))).union(*(dir(home) for home in homes())))

    return __getattr__, __dir__
