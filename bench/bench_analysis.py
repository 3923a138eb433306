"""How much `tomis analyse` marks, and how much its shown evaluation swings (issue 44).

    git archive main | tar -x -C /tmp/before
    python bench/bench_analysis.py --tree before=/tmp/before --tree after=. \\
        --games /tmp/games20.tgn [--sample samples/manual-win.tgn] [--jobs 2]

Each tree is a tomis checkout; its own `python -m tomis analyse FILE --json` (run with
the tree first on PYTHONPATH) analyses the sample and every game of ``--games`` (each
written to a file of its own), the trees' runs side by side on ``--jobs`` processes.
From the JSON rows, whatever the version:

- the shown evaluation after action N is the played action's score from White's side
  (``played`` for White's actions, negated for Black's), as the ``[%eval]`` comment;
- **marked**: the share of actions given ``?`` or ``??``;
- **sign changes**: over the sample's first 10 actions, how often the shown evaluation
  goes from above 0 to below 0 or back (0.00 changes nothing);
- **median change**: the median of |evaluation after N+1 - evaluation after N| over
  every pair of consecutive actions of the games, in frigates (pairs with a forced win
  left out: they are no evaluation).

Make the games with, e.g., `tomis match level:4 level:5 --games 20 --max-actions 80
--seed 44 -o /tmp/games20.tgn`. Figures in docs/ENGINE.md ("Analysis").
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import _common
import tomis

MATE_BOUND = 99_000          # tomis.engine.search.MATE_BOUND: beyond it a score is a forced win
FIRST_PLIES = 10


def analyse(tree: Path, path: Path) -> list[dict]:
    """The rows of ``tree``'s ``tomis analyse PATH --json``."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    env.pop("TOMIS_DEBUG", None)
    done = subprocess.run([sys.executable, "-m", "tomis", "analyse", str(path), "--json"],
                          capture_output=True, text=True, env=env, cwd=tempfile.gettempdir(), check=False)
    if done.returncode != 0:
        raise SystemExit(f"{tree}: tomis analyse {path} failed: {done.stderr.strip()}")
    return json.loads(done.stdout)


def shown(rows: list[dict]) -> list[int | None]:
    """The evaluation shown after each action, from White's side (None: a forced win)."""
    values = []
    for row in rows:
        score = row["played"]
        white = score if row["action_number"] % 2 else -score
        values.append(None if abs(score) > MATE_BOUND else white)
    return values


def sign_changes(values: list[int | None]) -> int:
    signs = [(value > 0) - (value < 0) for value in values if value is not None]
    signs = [sign for sign in signs if sign]
    return sum(1 for a, b in zip(signs, signs[1:]) if a != b)


def steps(values: list[int | None]) -> list[int]:
    return [abs(b - a) for a, b in zip(values, values[1:]) if a is not None and b is not None]


def split_games(path: Path, folder: Path) -> list[Path]:
    files = []
    for number, game in enumerate(tomis.read_games(path), 1):
        target = folder / f"game-{number:02d}.tgn"
        target.write_text(str(game), encoding="utf-8")
        files.append(target)
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", action="append", required=True, metavar="NAME=PATH",
                        help="a checkout to measure, named (repeat: before=/tmp/before after=.)")
    parser.add_argument("--games", type=Path, required=True, help="a file of engine-played games")
    parser.add_argument("--sample", type=Path, default=_common.REPO_DIR / "samples" / "manual-win.tgn")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    trees = dict(item.split("=", 1) for item in args.tree)
    with tempfile.TemporaryDirectory() as folder:
        files = [args.sample.resolve(), *split_games(args.games, Path(folder))]
        tasks = [(name, Path(tree).resolve(), path) for path in files for name, tree in trees.items()]
        with ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(lambda task: analyse(task[1], task[2]), tasks))
    rows = {(name, path): result for (name, _tree, path), result in zip(tasks, results)}
    print(f"{_common.machine()}")
    print(f"sample {args.sample.name}; {len(files) - 1} games from {args.games.name}")
    print(f"{'tree':8} {'sample marked':>14} {'sign changes':>13} {'games marked':>13} {'median change':>14}")
    for name in trees:
        sample = rows[(name, files[0])]
        marked = sum(1 for row in sample if row["glyph"])
        changes = sign_changes(shown(sample)[:FIRST_PLIES])
        game_rows = [rows[(name, path)] for path in files[1:]]
        total = sum(len(each) for each in game_rows)
        game_marked = sum(1 for each in game_rows for row in each if row["glyph"])
        swings = [step for each in game_rows for step in steps(shown(each))]
        median = statistics.median(swings) / 100 if swings else 0.0
        print(f"{name:8} {f'{marked}/{len(sample)} {marked / len(sample):.0%}':>14} {changes:>13} "
              f"{f'{game_marked}/{total} {game_marked / max(1, total):.0%}':>13} {median:>13.2f}")


if __name__ == "__main__":
    main()
