"""The level ladder: each level against the one below, and level 8 against level 1.

    python bench/ladder.py --games 100 --concurrency 1 --out /tmp/tomis-ladder

Each match is ``tomis match level:N level:M`` (run as ``python -m tomis match``)
with colour-swapped pairs from seeded random openings of 12 actions, games adjudicated
drawn after ``--max-actions``. The games go to OUT/ladder-N-M.tgn and each match's table
to OUT/ladder-N-M.txt; the tables are printed as they come. Matches run one after
another in the order of ``--pairs``, cheapest first, so a run cut short still has the
lower rungs.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-actions", type=int, default=200)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--pairs", default="2-1,3-2,4-3,5-4,6-5,7-6,8-7,8-1")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for pair in args.pairs.split(","):
        upper, lower = pair.split("-")
        stem = args.out / f"ladder-{upper}-{lower}"
        for old in (stem.with_suffix(".tgn"),):
            if old.exists():
                old.unlink()
        start = time.time()
        command = [sys.executable, "-m", "tomis", "match", f"level:{upper}", f"level:{lower}",
                   "--games", str(args.games), "--seed", str(args.seed), "--openings", "random:12",
                   "--concurrency", str(args.concurrency), "--max-actions", str(args.max_actions),
                   "-o", str(stem.with_suffix(".tgn"))]
        with open(stem.with_suffix(".log"), "w") as log:
            table = subprocess.run(command, stdout=subprocess.PIPE, stderr=log, text=True, check=True).stdout
        table += f"wall time {time.time() - start:.0f} s\ncommand: {' '.join(command[1:])}\n"
        stem.with_suffix(".txt").write_text(table)
        print(f"== level {upper} vs level {lower}\n{table}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
