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


# The independent opponent of issue 45: bench/plain_ab.py.

def test_the_plain_opponent_uses_the_rules_and_nothing_of_the_engine():
    import ast

    tree = ast.parse((ROOT / "bench" / "plain_ab.py").read_text(encoding="utf-8"))
    imported = [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    imported += [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    ours = [name for name in imported if name.split(".")[0] == "tomis"]
    assert ours and all(name.startswith(("tomis.rules", "tomis.errors")) for name in ours), ours


def test_the_plain_opponent_answers_a_legal_action_and_refuses_an_illegal_record():
    from tomis.rules.actions import Action
    from tomis.rules.core import apply, legal_actions, new_game

    opening = ["B@e1", "B@d8", "G@b1", "G@g8"]
    session = "\n".join(["ugi", "isready", "position startpos moves " + " ".join(opening), "go nodes 300",
                         "position startpos moves B@e1 B@e1", "quit"]) + "\n"
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "plain_ab.py")], input=session,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:3] == ["id name plain-ab", "id author the tomis authors", "ugiok"] and "readyok" in lines
    state = new_game()
    for word in opening:
        state, _report = apply(state, Action.parse(word))
    answer = next(line for line in lines if line.startswith("bestmove ")).split()[1]
    assert Action.parse(answer) in legal_actions(state)
    assert lines[-1].startswith("info string error:")     # the second B@e1 is illegal


def test_vs_plain_plays_level_against_the_plain_opponent_and_sums_up(tmp_path):
    text = run("vs_plain.py", "--games", "2", "--level", "1", "--nodes", "200", "--max-actions", "24",
               "-o", str(tmp_path / "games.tgn"))
    games = [line for line in text.splitlines() if line.startswith("game ")]
    assert len(games) == 2 and "plain_ab.py --nodes 200 (Black)" in games[0]
    assert "forfeits" not in text
    summary = text.splitlines()[-3:]
    assert summary[0].startswith("games 2: level wins ")
    log = tmp_path / "log.txt"
    log.write_text(text)
    assert run("vs_plain.py", "--summarize", str(log)).splitlines() == summary
    from tomis.notation import record
    assert len(record.read((tmp_path / "games.tgn").read_text(encoding="utf-8"))) == 2
