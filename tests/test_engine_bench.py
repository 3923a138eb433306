"""The engine's bench scripts run, so they cannot rot unnoticed (no time is checked)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import bench_output as run

ROOT = Path(__file__).resolve().parent.parent


def test_profile_engine_searches_the_stored_positions():
    # Every function listed (about 170), not the top 5: which five lead depends on the
    # machine's load, and evaluate fell out of them once, beside a second test worker.
    text = run("profile_engine.py", "--mode", "search", "--nodes", "50", "--top", "1000")
    assert "nodes over the stored positions" in text and "evaluate" in text


def test_bench_search_compares_two_versions_searches():
    if subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True).returncode != 0:
        pytest.skip("not a git checkout")
    # The committed engine against itself: the search is deterministic, so both agree.
    text = run("bench_search.py", "--before", "HEAD", "--compare", "150", "--positions", "2")
    assert "searches that differ: 0 of 2" in text
    assert text.count(": same: ") == 2


def test_bench_search_refuses_an_unknown_weight():
    result = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_search.py"), "--weight", "nonsense=1"],
                            capture_output=True, text=True)
    assert result.returncode != 0 and "no term 'nonsense'" in result.stderr
