"""bench/bench_ratings.py runs on a tiny event, so it cannot rot unnoticed (no time is
checked: timings on a shared machine mean nothing)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench" / "bench_ratings.py"


@pytest.mark.slow
def test_bench_ratings_prints_every_figure_and_draws_only_the_changed_players():
    done = subprocess.run([sys.executable, str(BENCH), "--players", "6", "--rounds", "2"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    for label in ("rating a round (2 games)", "page, a fresh folder", "page after one game"):
        assert any(line.startswith(label) and line.endswith(" s") for line in lines), lines
    written = next(line for line in lines if "wrote" in line)
    assert written.count("player-") == 2 and "game-6.html" in written
