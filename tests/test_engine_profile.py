"""bench/profile_engine.py's search mode runs, so it cannot rot unnoticed (no time is checked)."""

from __future__ import annotations

from conftest import bench_output as run


def test_profile_engine_searches_the_stored_positions():
    text = run("profile_engine.py", "--mode", "search", "--nodes", "50", "--top", "5")
    assert "nodes over the stored positions" in text and "evaluate" in text
