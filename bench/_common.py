"""Helpers shared by the bench scripts: the corpus layout, timing, machine facts.

The bench scripts are run as ``python bench/<name>.py`` from the checkout, so this module
is imported as a sibling (the script's directory is first on ``sys.path``). Nothing here
is part of the ``tomis`` package, and python-chess is imported only where a script
compares against it: it is a benchmark-only extra.
"""

from __future__ import annotations

import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO_DIR = BENCH_DIR.parent
# Outside the working tree by default: several engineers share it, and a corpus of
# thousands of files would clutter everyone's `git status`.
DEFAULT_CORPUS = Path(os.environ.get("TOMIS_BENCH_CORPUS", Path(tempfile.gettempdir()) / "tomis-bench-corpus"))
MANIFEST = "manifest.json"


def machine() -> str:
    """One line naming what the figures were measured on."""
    try:
        from importlib.metadata import version
        chess_version = version("chess")
    except Exception:                       # the bench extra is not installed
        chess_version = "not installed"
    return (
        f"{platform.python_implementation()} {platform.python_version()}, "
        f"{os.cpu_count()} cores, {platform.machine()}, {platform.system()} {platform.release()}, "
        f"python-chess {chess_version}"
    )


def load_manifest(corpus: Path) -> dict:
    path = Path(corpus) / MANIFEST
    if not path.exists():
        sys.exit(f"no corpus at {corpus}: run `python bench/gen_games.py --out {corpus}` first")
    return json.loads(path.read_text())


def tomis_command() -> list[str]:
    """How to run the CLI of the tomis this interpreter imports: the console script
    installed beside it, else an import of the CLI by this interpreter.

    Not the first ``tomis`` on PATH: from a virtual environment that is not activated,
    that is another environment's, which may hold another build or none at all.
    """
    exe = Path(sys.executable).parent / "tomis"
    if exe.is_file():
        return [str(exe)]
    return [sys.executable, "-c", "from tomis.cli import main; main()"]


def cli_available() -> bool:
    try:
        import tomis.cli  # noqa: F401
    except ImportError:
        return False
    return True


def record_available() -> bool:
    try:
        from tomis.notation import record
    except ImportError:
        return False
    return hasattr(record, "read")


def user_env() -> dict[str, str]:
    """The environment a user's shell would give: bytecode caching allowed.

    Some shells here set PYTHONDONTWRITEBYTECODE, which makes every run recompile the
    project's sources; an installed package has its .pyc files, so timing without them
    would measure the compiler, not tomis.
    """
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def wall(cmd: list[str], **kwargs) -> tuple[float, subprocess.CompletedProcess]:
    """Run ``cmd`` once, as a user would (see :func:`user_env`); wall seconds and the process."""
    kwargs.setdefault("env", user_env())
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    return time.perf_counter() - start, proc


def median_wall(cmd: list[str], repeat: int, **kwargs) -> tuple[float, subprocess.CompletedProcess]:
    """Median wall time of ``repeat`` runs (after one untimed warm-up for the file cache)."""
    _, proc = wall(cmd, **kwargs)
    times = []
    for _ in range(repeat):
        elapsed, proc = wall(cmd, **kwargs)
        times.append(elapsed)
    return statistics.median(times), proc


def median_cpu_and_wall(cmd: list[str], repeat: int, **kwargs):
    """Median CPU seconds (user + system) and median wall seconds of ``repeat`` runs.

    CPU time is what the child itself spent, read from ``RUSAGE_CHILDREN`` around each
    run; on a machine shared with other work it moves far less than wall time does, so
    it is the figure to compare two versions by. Wall only where ``resource`` is missing.
    """
    try:
        import resource
    except ImportError:                 # not POSIX: CPU time is not available
        seconds, proc = median_wall(cmd, repeat, **kwargs)
        return None, seconds, proc
    _, proc = wall(cmd, **kwargs)        # warm-up, untimed
    cpus, walls = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        elapsed, proc = wall(cmd, **kwargs)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        walls.append(elapsed)
    return statistics.median(cpus), statistics.median(walls), proc


def rate(count: float, seconds: float) -> float:
    return count / seconds if seconds > 0 else float("inf")


def fmt(n: float) -> str:
    """Thousands separators for counts and rates."""
    return f"{n:,.0f}"


def random_play(index: int, seed: int, max_actions: int):
    """Game ``index`` of a seeded random legal corpus: yields (position, action) per ply.

    Game ``index`` plays the manual edition when even, the readme edition when odd, so
    every script that draws from the same seed sees the same games.
    """
    from tomis import rules

    rng = random.Random(seed * 1_000_003 + index)
    state = rules.new_game(index % 2)
    while not state.is_over and state.ply < max_actions:
        action = rng.choice(rules.legal_actions(state))
        yield state, action
        state, _ = rules.apply_unchecked(state, action)

