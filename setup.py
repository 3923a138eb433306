"""The package list, found rather than written (everything else is in pyproject.toml),
and the optional compiled build of the rules.

``[tool.setuptools.packages.find]`` cannot add a package from outside the folder it
searches, and ``tomis.grammar`` comes from ``grammar/`` at the top of the checkout; so
the list is computed here: every package under ``tomis/`` plus that one.

``TOMIS_COMPILE=1 pip install .`` compiles the modules listed in tomis/rules/compiled.py
with mypyc (the build backend, tools/build_backend.py, then asks for mypy, and a C
compiler must be present). Without it the build is pure Python and needs nothing but
setuptools.
"""

import os
import runpy

from setuptools import find_packages, setup


def compiled_extensions() -> list:
    """The mypyc extensions of the rules when TOMIS_COMPILE=1 asks for them, else none."""
    if os.environ.get("TOMIS_COMPILE", "") in ("", "0"):    # as tools/build_backend.py reads it
        return []
    from mypyc.build import mypycify     # only the opt-in build needs mypy

    modules = runpy.run_path(os.path.join("tomis", "rules", "compiled.py"))["COMPILABLE"]
    paths = [os.path.join(*name.split(".")) + ".py" for name in modules]
    # The rest of the package is read for its types but not checked: only the compiled
    # modules have to type-check, and their annotations are what the compiled code enforces.
    # One group, so calls between the modules stay native; its shared library goes inside
    # the package (tomis/rules/native__mypyc...), not beside it at the top of site-packages.
    # No mypy cache: pip runs this file once per build step, and a later run that found the
    # cache fresh gave the group's library no C source, so the wheel's did not import.
    return mypycify(["--follow-imports=silent", "--cache-dir=/dev/null", *paths], opt_level="3",
                    separate=[(paths, "tomis.rules.native")])


setup(
    packages=[*find_packages(include=["tomis", "tomis.*"]), "tomis.grammar"],
    ext_modules=compiled_extensions(),
)
