"""Lazy answers for a package that took the place of a module of the same name.

``tomis.rules``, ``tomis.notation`` and ``tomis.archive`` were modules; each is now a
package whose ``__init__`` answers the old module's names (private ones too) from the
module that holds them, importing it on first use.
"""

from __future__ import annotations

from importlib import import_module


def answered_by(package: str, module: str):
    """``(__getattr__, __dir__)`` for ``package`` that look names up in ``package + module``."""

    def home():
        # import_module, not "from . import x": that form asks the package for the name
        # first, which would come back to __getattr__.
        return import_module(module, package)

    def __getattr__(name: str):
        try:
            value = getattr(home(), name)
        except AttributeError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        # Kept on the package, so the next lookup is an ordinary attribute read: without
        # this every call of tomis.rules.apply paid an import_module lookup (about 1 us).
        setattr(import_module(package), name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(import_module(package))) | set(dir(home())))

    return __getattr__, __dir__
