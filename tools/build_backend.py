"""The build backend: setuptools', plus mypy as a build requirement of the optional
compiled build, so that ``TOMIS_COMPILE=1 pip install .`` needs nothing installed first.

A default build (no TOMIS_COMPILE) asks for exactly what setuptools asks for: pure
Python, no compiler, no mypy. setup.py reads the same variable and compiles the rules
modules that tomis/rules/compiled.py lists (docs/PERFORMANCE.md has what that pays).
"""

from __future__ import annotations

import os

from setuptools import build_meta
from setuptools.build_meta import *  # noqa: F401,F403  (every hook not redefined here)

# mypyc ships with mypy. Pinned: the rules were compiled, tested and measured with this
# release, and mypyc's output may change from one release to the next.
COMPILE_REQUIRES = ["mypy==1.13.0"]


def compiling() -> bool:
    """Whether TOMIS_COMPILE asks for the compiled build (any value but empty or 0)."""
    return os.environ.get("TOMIS_COMPILE", "") not in ("", "0")


def _with_compile_requires(setuptools_hook, config_settings) -> list[str]:
    """setuptools' requirements, plus mypy for a compiled build.

    setuptools finds its requirements by running setup.py, before any of them is
    installed; so that run is made as a pure build's (setup.py would import mypyc),
    and mypy is added here."""
    if not compiling():
        return setuptools_hook(config_settings)
    asked = os.environ.pop("TOMIS_COMPILE")
    try:
        requires = setuptools_hook(config_settings)
    finally:
        os.environ["TOMIS_COMPILE"] = asked
    return [*requires, *COMPILE_REQUIRES]


def get_requires_for_build_wheel(config_settings=None) -> list[str]:
    return _with_compile_requires(build_meta.get_requires_for_build_wheel, config_settings)


def get_requires_for_build_editable(config_settings=None) -> list[str]:
    return _with_compile_requires(build_meta.get_requires_for_build_editable, config_settings)
