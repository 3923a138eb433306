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


# What pyproject.toml's [tool.setuptools.data-files] installs, as (folder, file) pairs:
# setuptools leaves data files out of an editable install, so `pip install -e .` would
# install no man page and `man tomis` would find none (issue 44). The editable wheel
# gets them here, as a regular wheel does (tests/test_packaging.py keeps the two equal).
DATA_FILES = (("share/man/man1", "tomis/data/tomis.1"),)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None) -> str:
    name = build_meta.build_editable(wheel_directory, config_settings, metadata_directory)
    _add_data_files(os.path.join(wheel_directory, name), DATA_FILES)
    return name


def _add_data_files(wheel: str, files) -> None:
    """Put ``files`` in ``wheel``'s ``.data/data`` folder (installed under the environment's
    prefix, as the data files of a regular wheel) and list them in its RECORD."""
    import base64
    import hashlib
    import zipfile

    with zipfile.ZipFile(wheel) as old:
        entries = [(info, old.read(info)) for info in old.infolist()]
    record = next(info.filename for info, _data in entries if info.filename.endswith(".dist-info/RECORD"))
    data_dir = record[:-len(".dist-info/RECORD")] + ".data/data"
    added = []
    for folder, path in files:
        with open(path, "rb") as handle:
            content = handle.read()
        digest = base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b"=").decode()
        arcname = f"{data_dir}/{folder}/{os.path.basename(path)}"
        added.append((arcname, content, f"{arcname},sha256={digest},{len(content)}\n"))
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as new:
        for info, data in entries:
            if info.filename == record:
                data = b"".join(line.encode() for *_rest, line in added) + data
            new.writestr(info, data)
        for arcname, content, _line in added:
            new.writestr(arcname, content)
