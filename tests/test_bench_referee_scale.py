"""bench/bench_referee_scale.py runs on tiny stores, so it cannot rot unnoticed (no time is
checked: timings on a shared machine mean nothing)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench" / "bench_referee_scale.py"


@pytest.mark.slow
def test_bench_referee_scale_prints_every_figure():
    done = subprocess.run([sys.executable, str(BENCH), "--games", "20", "--small-games", "4",
                           "--messages", "200", "--repeat", "1", "--actions", "3"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    for label in ("deliver", "tick ", "page ", "tick_peak", "page_peak", "growth"):
        line = next(line for line in done.stdout.splitlines() if line.startswith(label))
        assert "large" in line and "small" in line
    ratio = next(line for line in done.stdout.splitlines() if line.startswith("deliver"))
    assert float(ratio.split("ratio")[1].strip().rstrip("x")) > 0
