"""bench/tune_eval.py turns played games into tuning rows (``records``) exactly as its
``generate`` does for fresh self-play: every position from action 15 on, each with the
game's result for White; ``fit`` can drop games cut short and hold named terms."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import tomis
from tomis.engine import evaluate
from tomis.rules.position import from_string

ROOT = Path(__file__).resolve().parent.parent


def test_records_rows_are_the_positions_after_the_opening_with_the_result(tmp_path):
    samples = [ROOT / "samples" / "manual-win.tgn", ROOT / "samples" / "repetition-draw.tgn"]
    out = tmp_path / "rows.jsonl"
    subprocess.run([sys.executable, str(ROOT / "bench" / "tune_eval.py"), "records",
                    *map(str, samples), "-o", str(out)], check=True, capture_output=True, text=True)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    expected = []
    for number, path in enumerate(samples):
        game = tomis.read_game(str(path))
        result = {"1-0": 1.0, "0-1": 0.0}.get(game.result, 0.5)
        # Positions before actions 15 .. last: the final, decided position says nothing.
        positions = list(game.positions())[14:-1]
        expected += [{"game": number, "position": p.to_string(), "r": result, "decided": True}
                     for p in positions]
    assert rows == expected
    assert {row["r"] for row in rows} == {1.0, 0.5}
    assert len(rows) == (59 - 14) + (39 - 14)


def _tune(*args) -> str:
    return subprocess.run([sys.executable, str(ROOT / "bench" / "tune_eval.py"), *map(str, args)],
                          check=True, capture_output=True, text=True).stdout


def _rows(tmp_path) -> list[dict]:
    out = tmp_path / "rows.jsonl"
    _tune("records", *sorted((ROOT / "samples").glob("*.tgn")), "-o", out)
    return [json.loads(line) for line in out.read_text().splitlines()]


def _write(tmp_path, rows) -> Path:
    path = tmp_path / "labelled.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_fit_decided_only_drops_the_games_cut_short(tmp_path):
    rows = _rows(tmp_path)
    for row in rows:
        row["decided"] = row["game"] % 4 < 2           # games 2, 3, 6, 7 "cut short"
    path = _write(tmp_path, rows)
    cut = sum(not row["decided"] for row in rows)
    assert 0 < cut < len(rows)
    every = _tune("fit", path).splitlines()
    kept = _tune("fit", path, "--decided-only").splitlines()
    assert kept[0] == f"{cut} positions of games cut short dropped"
    assert _positions(kept[1]) < _positions(every[0])


def _positions(line: str) -> int:
    """All positions fitted, from '37 training positions, 50 held out; K = 3.00'."""
    words = line.split()
    return int(words[0]) + int(words[3])


def test_fit_holds_the_terms_it_is_told_to(tmp_path):
    """Rows labelled so that advancing frigates loses: the free fit makes advance negative,
    a held advance keeps its weight while the other terms still move."""
    advance = evaluate.TERMS.index("advance")
    rows = _rows(tmp_path)
    for number, row in enumerate(rows):
        ahead = evaluate.features(from_string(row["position"]))[advance]
        row["r"] = 0.0 if ahead > 0 else 1.0 if ahead < 0 else 0.5
        row["game"] = number
    path = _write(tmp_path, rows)
    free = json.loads(_tune("fit", path).splitlines()[-1])
    held = json.loads(_tune("fit", path, "--hold", "advance,jump_reach").splitlines()[-1])
    assert free["advance"] < evaluate.WEIGHTS["advance"]
    assert free["jump_reach"] != evaluate.WEIGHTS["jump_reach"]
    assert (held["advance"], held["jump_reach"]) == (evaluate.WEIGHTS["advance"], evaluate.WEIGHTS["jump_reach"])
    assert any(held[name] != evaluate.WEIGHTS[name] for name in evaluate.TERMS)
