"""bench/bench_season.py runs on a small event, so it cannot rot unnoticed (no time is
checked: timings on a shared machine mean nothing)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench" / "bench_season.py"


def test_bench_season_prints_every_figure():
    done = subprocess.run([sys.executable, str(BENCH), "--players", "15", "--rounds", "4",
                           "--round-robin", "7"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1] == "Swiss of 15 players, 4 rounds, seed 43; per round:"
    for label in ("pair ", "standings "):
        line = next(line for line in lines if line.startswith(label))
        assert line.count("min") == 2 and line.count("median") == 2 and line.count("max") == 2
    assert "round robin of 7: 7 rounds, 21 games" in lines[-1]
