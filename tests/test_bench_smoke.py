"""The bench scripts run on a tiny corpus, so they cannot rot unnoticed.

Only exit codes and the presence of each figure are checked, never a time: timings on a
shared CI machine mean nothing. python-chess is a bench-only extra; without it these
tests are skipped.
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import tomis
from conftest import bench_output as run

pytest.importorskip("chess")

BENCH = Path(__file__).resolve().parent.parent / "bench"



@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("corpus")
    text = run("gen_games.py", "--games", "3", "--max-actions", "80", "--out", str(out))
    assert "tomis games: 3" in text
    assert "chess games: 3" in text
    assert len(list((out / "tgn").glob("*.tgn"))) == 3
    assert len(list((out / "pgn").glob("*.pgn"))) == 3
    return out


def test_generator_is_deterministic(corpus, tmp_path):
    run("gen_games.py", "--games", "3", "--max-actions", "80", "--out", str(tmp_path))
    for sub in ("tgn", "pgn"):
        for path in sorted((corpus / sub).iterdir()):
            assert (tmp_path / sub / path.name).read_text() == path.read_text()


def test_validate(corpus):
    text = run("bench_validate.py", "--corpus", str(corpus))
    assert "tomis engine only (rules.apply):" in text
    assert "python-chess read_game + replay:" in text
    assert "moves/s" in text
    assert "ratio tomis actions/s / python-chess moves/s, -j 1, CPU: runs" in text


def test_movegen():
    text = run("bench_movegen.py", "--games", "3", "--repeat", "1",
               "--perft-depth", "2", "--perft-positions", "2")
    assert "tomis legal_actions:" in text
    assert "python-chess legal_moves:" in text
    assert "ratio generated tomis actions/s / chess moves/s:" in text
    assert "tomis perft total:" in text and "chess perft total:" in text


def test_startup():
    text = run("bench_startup.py", "--repeat", "1", "--actions", "20")
    assert "python -c pass" in text
    assert "bare click --help" in text


def test_memory(corpus):
    text = run("bench_memory.py", "--corpus", str(corpus), "--sizes", "2", "3")
    assert "peak RSS" in text or "skipped" in text


def test_profile_engine():
    text = run("profile_engine.py", "--games", "2", "--top", "5", "--mode", "replay")
    assert "us/action" in text and "tottime" in text


def test_mail_regions_beside_an_older_commit():
    if subprocess.run(["git", "-C", str(BENCH.parent), "rev-parse", "HEAD"],
                      capture_output=True).returncode != 0:
        pytest.skip("not a git checkout")
    text = run("bench_mail_regions.py", "--before", "HEAD", "--records", "3", "--chat", "2", "--repeat", "1")
    assert "3 records, 2 chat lines after each" in text and "same records: True" in text


def test_search_beside_an_older_commit():
    if subprocess.run(["git", "-C", str(BENCH.parent), "rev-parse", "HEAD"],
                      capture_output=True).returncode != 0:
        pytest.skip("not a git checkout")
    text = run("bench_search.py", "--before", "HEAD", "--positions", "2", "--nodes", "300",
               "--repeat", "1", "--depth", "1", "--no-levels")
    assert "2 positions from search_positions.txt" in text
    # Both versions searched each stored position to the same node limit.
    rows = [line for line in text.splitlines() if line.startswith("  position ")]
    assert len(rows) == 2 and all(row.count(" 300 nodes") == 2 for row in rows)
    assert "ratio this/HEAD: " in text


def test_count_shuffles():
    text = run("count_shuffles.py", "--levels", "1", "--games", "1", "--max-actions", "40")
    line = next(row for row in text.splitlines() if row.startswith("level 1 this: "))
    found = re.search(r"(\d+) engine actions: slides (\d+), undone (\d+)", line)
    assert found, line
    actions, slides, undone = map(int, found.groups())
    assert 0 < actions <= 40 - 12 and undone <= slides <= actions


def _game_with_undone_slides(opening: int, slides: int) -> tuple[str, int, int]:
    """A record whose White ("tomis level 4") slides ``slides`` times after ``opening``
    actions that do not count, taking its last slide straight back whenever it can, and
    whose Black ("someone else") is not an engine level. Returns the text, how many of
    White's slides undid its previous one, and how many of those destroyed nothing."""
    from tomis.rules.actions import Move
    game = tomis.Game(white="tomis level 4", black="someone else")
    while len(game.actions) < opening:
        game.play(sorted(game.legal_actions(), key=str)[0])
    undone = idle = 0
    while len(game.actions) < opening + 2 * slides:
        legal = sorted(game.legal_actions(), key=str)
        if game.position.turn == "black":
            game.play(legal[0])
            continue
        last = game.actions[-2]
        back = [a for a in legal if type(a) is Move and type(last) is Move
                and (a.origin, a.target) == (last.target, last.origin)]
        game.play((back or [a for a in legal if type(a) is Move])[0])
        undone += bool(back)
        last = game.position.last
        idle += bool(back) and not (last.captured or last.destroyed)
    return str(game), undone, idle


def test_count_shuffles_in_records(tmp_path):
    text, undone, idle = _game_with_undone_slides(opening=12, slides=6)
    assert undone >= 3                  # the game shows what it is meant to
    path = tmp_path / "match.tgn"
    path.write_text(text, encoding="utf-8")
    out = run("count_shuffles.py", "--records", str(path), "--opening", "12")
    # Only the level a tag names is counted (one line, level 4), and only after the opening.
    assert out.splitlines()[0].startswith(
        f"match.tgn level 4: 1 games, 6 engine actions: slides 6, undone {undone} ({100 * undone / 6:.1f} %)")
    assert out.splitlines()[0].endswith(f"; undone destroying nothing {idle} ({100 * idle / 6:.1f} %)")
    assert len(out.splitlines()) == 1


def test_count_shuffles_splits_long_games_and_counts_other_programs(tmp_path):
    long_text, long_undone, _ = _game_with_undone_slides(opening=12, slides=6)      # 24 actions
    short_text, short_undone, _ = _game_with_undone_slides(opening=12, slides=2)    # 16 actions
    path = tmp_path / "match.tgn"
    path.write_text(long_text + "\n\n" + short_text, encoding="utf-8")
    lines = run("count_shuffles.py", "--records", str(path), "--split-at", "20", "--others").splitlines()
    assert [line.split(":")[0] for line in lines] == [
        "match.tgn level 4, games of 20+ actions", "match.tgn level 4, games under 20 actions",
        "match.tgn another program, games of 20+ actions", "match.tgn another program, games under 20 actions"]
    assert f"1 games, 6 engine actions: slides 6, undone {long_undone} " in lines[0]
    assert f"1 games, 2 engine actions: slides 2, undone {short_undone} " in lines[1]
    assert ": 1 games, 6 engine actions" in lines[2] and ": 1 games, 2 engine actions" in lines[3]
    # Without the options the same file gives one line, both games together.
    whole = run("count_shuffles.py", "--records", str(path)).splitlines()
    assert len(whole) == 1 and f"2 games, 8 engine actions: slides 8, undone {long_undone + short_undone} " in whole[0]


def test_validate_times_this_interpreters_tomis_not_the_first_on_path(corpus, tmp_path):
    # A `tomis` of another environment first on PATH (here one that always fails) must
    # not be what the CLI figures time: they are of the tomis this interpreter imports.
    stranger = tmp_path / "bin" / "tomis"
    stranger.parent.mkdir()
    stranger.write_text("#!/bin/sh\nexit 3\n")
    stranger.chmod(0o755)
    env = {**os.environ, "PATH": f"{stranger.parent}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.run([sys.executable, str(BENCH / "bench_validate.py"), "--corpus", str(corpus),
                           "--cli-repeat", "1"], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ratio tomis actions/s / python-chess moves/s, -j 2, CPU: runs" in proc.stdout


def test_validate_gives_no_ratio_for_a_cli_run_that_failed(corpus, monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(BENCH))
    bench_validate = importlib.import_module("bench_validate")
    manifest = bench_validate._common.load_manifest(corpus)
    monkeypatch.setattr(bench_validate._common, "tomis_command",
                        lambda: [sys.executable, "-c", "raise SystemExit(3)"])
    status = bench_validate.bench_cli(corpus, manifest["tgn"], manifest["pgn"], 100, 100, 1)
    out = capsys.readouterr().out
    assert status == 1
    assert "tomis validate -j 1 exited 3, so no ratio" in out
    assert "ratio tomis" not in out


@pytest.mark.slow
def test_analysis_beside_another_tree(tmp_path):
    # Two short games, the same checkout as both trees: both rows measured alike.
    games = tmp_path / "games.tgn"
    games.write_text("1. B@e1 B@d8 2. G@b1 G@g8 *\n\n1. B@a1 B@h8 2. G@c1 G@f8 3. G@b2 *\n",
                     encoding="utf-8")
    sample = tmp_path / "sample.tgn"
    sample.write_text("1. B@e1 B@d8 2. G@b1 G@g8 3. G@c2 G@f7 *\n", encoding="utf-8")
    root = str(BENCH.parent)
    text = run("bench_analysis.py", "--tree", f"one={root}", "--tree", f"two={root}",
               "--games", str(games), "--sample", str(sample), "--jobs", "2")
    assert "sample sample.tgn; 2 games from games.tgn" in text
    rows = [line.split()[1:] for line in text.splitlines() if line.startswith(("one ", "two "))]
    assert len(rows) == 2 and rows[0] == rows[1]          # one code, one measure
    assert rows[0][0] == "0/6" and rows[0][3] == "0/9"    # placements: nothing to mark


def test_depth_nodes_counts_with_and_without_the_pruning():
    def nodes(text: str) -> int:
        found = re.search(r"nodes to depth 2: ([\d,]+) ", text)
        assert found, text
        return int(found[1].replace(",", ""))

    pruned = run("depth_nodes.py", "--depth", "2", "--level", "3")
    full = run("depth_nodes.py", "--depth", "2", "--level", "3", "--set", "NULL_MIN_DEPTH=99",
               "--set", "FUTILITY_MARGIN=1000000")
    assert "level 3 finishes depth 2 on 16 of 16" in pruned
    assert 0 < nodes(pruned) <= nodes(full)
