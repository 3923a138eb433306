"""What ``pip install .`` ships: every package under tomis/, the grammar, and a working CLI.

The editable install the tests run on reads the checkout, so a package missing from the
wheel shows only in a real install. The fast test asks setuptools which files it would
ship (``egg_info`` on a copy of the sources); the slow one builds the wheel, installs it
in a fresh virtual environment (no system site packages, away from the checkout) and
runs ``tomis validate`` on a sample.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ("pyproject.toml", "setup.py", "README.md", "tools", "tomis", "grammar")   # tools: the build backend


def _copy_sources(into: Path) -> Path:
    """The files a build reads, copied so that building never writes into the checkout."""
    into.mkdir()
    for name in SHIPPED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, into / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, into / name)
    return into


def _files_setuptools_ships(sources: Path, out: Path) -> set[str]:
    out.mkdir()
    subprocess.run([sys.executable, "setup.py", "-q", "egg_info", "-e", str(out)],
                   cwd=sources, check=True, capture_output=True)
    return set((out / "tomis.egg-info" / "SOURCES.txt").read_text(encoding="utf-8").split())


def _modules_under(directory: Path) -> set[str]:
    return {path.relative_to(directory.parent).as_posix() for path in directory.rglob("*.py")
            if "__pycache__" not in path.parts}


def test_every_module_under_tomis_and_the_grammar_ship(tmp_path):
    sources = _copy_sources(tmp_path / "src")
    # A package added after the package list was written must ship too.
    (sources / "tomis" / "added_later").mkdir()
    (sources / "tomis" / "added_later" / "__init__.py").write_text("", encoding="utf-8")
    shipped = _files_setuptools_ships(sources, tmp_path / "egg")
    missing = _modules_under(sources / "tomis") - shipped
    assert not missing, f"not in the wheel: {sorted(missing)}"
    assert "tomis/added_later/__init__.py" in shipped
    assert {"grammar/tomis.lark", "tomis/data/tomis.1", "tomis/py.typed"} <= shipped


@pytest.mark.slow
def test_the_wheel_installs_and_validates_a_sample(tmp_path):
    sources = _copy_sources(tmp_path / "src")
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels),
                    str(sources)], check=True, capture_output=True)
    [wheel] = wheels.glob("tomis-*.whl")
    env_dir = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)   # no system site packages
    python = env_dir / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", str(wheel)], check=True,
                   capture_output=True)
    sample = ROOT / "samples" / "readme-win.tgn"
    # Run away from the checkout, so nothing can be imported from it.
    where = subprocess.run([str(python), "-c", "import tomis; print(tomis.__file__)"],
                           cwd=tmp_path, check=True, capture_output=True, text=True).stdout
    assert Path(where.strip()).is_relative_to(env_dir)
    done = subprocess.run([str(env_dir / "bin" / "tomis"), "validate", str(sample)],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "readme-win.tgn" in done.stdout + done.stderr


def test_the_editable_wheel_carries_the_same_data_files_as_the_wheel():
    # setuptools leaves data files out of an editable install; the build backend adds
    # them (issue 44: `man tomis` after Quick start's `pip install -e`), from its own list,
    # which must stay what pyproject.toml's [tool.setuptools.data-files] says.
    import re

    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import build_backend
    finally:
        sys.path.remove(str(ROOT / "tools"))
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    section = text.split("[tool.setuptools.data-files]", 1)[1].split("\n[", 1)[0]
    listed = {(folder, path) for folder, files in re.findall(r'^"([^"]+)" = \[([^\]]*)\]', section, re.M)
              for path in re.findall(r'"([^"]+)"', files)}
    assert listed == set(build_backend.DATA_FILES)


@pytest.mark.slow
def test_an_editable_install_installs_the_man_page(tmp_path):
    sources = _copy_sources(tmp_path / "src")
    env_dir = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)
    subprocess.run([str(env_dir / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps",
                    "-e", str(sources)], check=True, capture_output=True)
    page = env_dir / "share" / "man" / "man1" / "tomis.1"
    assert page.read_bytes() == (ROOT / "tomis" / "data" / "tomis.1").read_bytes()
    if shutil.which("man"):          # man-db finds <prefix>/share/man for <prefix>/bin on PATH
        found = subprocess.run(["man", "-w", "tomis"], capture_output=True, text=True,
                               env={"PATH": f"{env_dir / 'bin'}:/usr/bin:/bin"})
        assert found.stdout.strip() == str(page)
