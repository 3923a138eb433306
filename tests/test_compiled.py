"""The optional compiled build of the rules and the engine's search (TOMIS_COMPILE=1,
setup.py; docs/PERFORMANCE.md, docs/ENGINE.md).

The whole suite runs on whichever build is installed; these tests check that the report
of which one it is tells the truth, and (slow) that a compiled build plays exactly as
the pure Python one: the same positions, reports, legal actions and refusals, action by
action, over seeded random games of both editions; and that its search gives the same
best action, score, depth and line as the pure one on 50 seeded positions at a fixed
node count.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tomis.rules.compiled import COMPILABLE, build_name, compiled_modules

ROOT = Path(__file__).resolve().parent.parent


def test_the_build_name_names_the_modules_that_loaded_compiled():
    loaded_compiled = tuple(name for name in COMPILABLE
                            if not importlib.import_module(name).__file__.endswith(".py"))
    assert compiled_modules() == loaded_compiled
    if loaded_compiled:
        rules = [name.rsplit(".", 1)[1] for name in loaded_compiled if name.startswith("tomis.rules.")]
        engine = [name.rsplit(".", 1)[1] for name in loaded_compiled if name.startswith("tomis.engine.")]
        parts = [f"rules: {', '.join(rules)}"] * bool(rules) + [f"engine: {', '.join(engine)}"] * bool(engine)
        assert build_name() == "; ".join(parts).replace(":", " compiled with mypyc:", 1)
    else:
        assert build_name() == "pure Python"


def test_the_version_line_says_which_build_runs():
    from click.testing import CliRunner

    from tomis.cli import cli

    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0
    assert result.output.startswith("tomis, version ")
    assert ("compiled" in result.output) == bool(compiled_modules())


# Run in a child from a copy of the sources: prints, per action of seeded random games,
# everything the rules say about it, and for each position what they say of an action
# taken from the position before (legal there, mostly illegal here).
PLAY = r"""
import random
from tomis.rules import apply, check, legal_actions, new_game
from tomis.rules.compiled import build_name
from tomis.rules.position import to_string
from tomis.errors import IllegalActionError

print(build_name())
for seed in range(24):
    pick = random.Random(seed)
    state = new_game(("manual", "readme")[seed % 2])
    before = []
    while state.to_move is not None and state.ply < 400:
        actions = legal_actions(state)
        print(to_string(state), state.hash, [str(a) for a in actions])
        for other in pick.sample(before, min(3, len(before))):
            try:
                check(state, other)
                print("legal", other)
            except IllegalActionError as error:
                print(error)
        before = actions
        state, report = apply(state, pick.choice(actions))
        print(report)
    print(to_string(state), state.result, state.reason)
"""


# The same for the engine (issue 45): per seeded position, the search's best action,
# score, depth and line at a fixed node count. A node limit makes the search the same
# on any machine and in either build; only the time differs.
SEARCH = r"""
import random
from tomis.rules import apply, legal_actions, new_game
from tomis.rules.compiled import build_name
from tomis.engine.search import Limits, Search

print(build_name())
for seed in range(50):
    pick = random.Random(seed)
    state = new_game(("manual", "readme")[seed % 2])
    for _ in range(pick.randrange(14, 60)):
        actions = legal_actions(state)
        after, _report = apply(state, pick.choice(actions))
        if after.to_move is None:
            break
        state = after
    found = Search(seed).run(state, Limits(nodes=1500, min_depth=2))
    print(seed, state.hash, found.action, found.score, found.depth, found.nodes, [str(a) for a in found.pv])
"""


def _sources(into: Path) -> Path:
    into.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, into / name)
    for name in ("tools", "tomis", "grammar"):
        shutil.copytree(ROOT / name, into / name, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    return into


def _install(sources: Path, env_dir: Path, compile_: bool) -> Path:
    """Install ``sources`` as a user would (``[TOMIS_COMPILE=1] pip install .``) into a new
    virtual environment; its python."""
    subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)
    python = env_dir / "bin" / "python"
    env = {**os.environ, "TOMIS_COMPILE": "1" if compile_ else "0"}
    done = subprocess.run([str(python), "-m", "pip", "install", "-q", str(sources)],
                          env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return python


def _play(python: Path, where: Path, script: str = PLAY) -> list[str]:
    # Run away from the sources, so the installed package is what is imported.
    done = subprocess.run([str(python), "-c", script], cwd=where, capture_output=True, text=True,
                          check=True)
    return done.stdout.splitlines()


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    """The pure and the compiled install of these sources, made once for the module's tests."""
    if shutil.which(os.environ.get("CC", "cc")) is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler")
    where = tmp_path_factory.mktemp("builds")
    sources = _sources(where / "sources")
    return (where, _install(sources, where / "pure", compile_=False),
            _install(sources, where / "compiled", compile_=True))


COMPILED_NAME = "rules compiled with mypyc: board, combat, core; engine: evaluate, search"


@pytest.mark.slow
def test_a_compiled_build_plays_exactly_as_pure_python(builds):
    where, pure, compiled = builds
    pure_lines, compiled_lines = _play(pure, where), _play(compiled, where)
    assert pure_lines[0] == "pure Python"
    assert compiled_lines[0] == COMPILED_NAME
    assert len(pure_lines) > 1000
    assert pure_lines[1:] == compiled_lines[1:]


@pytest.mark.slow
def test_the_compiled_search_finds_what_the_pure_one_finds(builds):
    where, pure, compiled = builds
    pure_lines, compiled_lines = _play(pure, where, SEARCH), _play(compiled, where, SEARCH)
    assert (pure_lines[0], compiled_lines[0]) == ("pure Python", COMPILED_NAME)
    assert len(pure_lines) == 51 and len({line.split()[1] for line in pure_lines[1:]}) == 50   # 50 positions
    assert pure_lines[1:] == compiled_lines[1:]
