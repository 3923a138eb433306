"""bench/bench_referee.py runs on two messages, so it cannot rot unnoticed (no time is
checked: timings on a shared machine mean nothing)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench" / "bench_referee.py"


@pytest.mark.slow
def test_bench_referee_prints_every_figure():
    done = subprocess.run([sys.executable, str(BENCH), "--messages", "2", "--jobs", "2"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    for label in ("one process at a time", "2 processes at once", "anchor",
                  "with the PNG board", "without the PNG board"):
        line = next(line for line in done.stdout.splitlines() if label in line)
        assert float(line.split(":")[-1].split()[0]) > 0
