"""bench/tune_eval.py turns played games into tuning rows (``records``) exactly as its
``generate`` does for fresh self-play: every position from action 15 on, each with the
game's result for White."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import tomis

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
        expected += [{"game": number, "position": p.to_string(), "r": result} for p in positions]
    assert rows == expected
    assert {row["r"] for row in rows} == {1.0, 0.5}
    assert len(rows) == (59 - 14) + (39 - 14)
