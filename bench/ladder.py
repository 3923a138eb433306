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
import re
import subprocess
import sys
import time
from pathlib import Path

GAME_LINE = re.compile(r"^game (\d+): .* \(White\) vs .* \(Black\): (1-0|0-1|1/2-1/2), ")


def summarize(log: Path) -> str:
    """The table of a match from its progress log, also when it was cut short."""
    from tomis.cli.engine import score_table
    from tomis.engine.match import Score

    score = Score()
    for line in log.read_text().splitlines():
        found = GAME_LINE.match(line)
        if found is None:
            continue
        a_white = int(found[1]) % 2 == 1              # A is White in odd games
        result = found[2]
        if result == "1/2-1/2":
            score.draws += 1
        elif (result == "1-0") == a_white:
            score.wins += 1
        else:
            score.losses += 1
    upper, lower = log.stem.split("-")[1:3]
    return "\n".join(score_table(f"tomis level {upper}", f"tomis level {lower}", score, None))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-actions", type=int, default=200)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--pairs", default="2-1,3-2,4-3,5-4,6-5,7-6,8-7,8-1")
    parser.add_argument("--summarize", action="store_true",
                        help="only print the tables of the logs in OUT (also of matches cut short)")
    args = parser.parse_args(argv)
    if args.summarize:
        for log in sorted(args.out.glob("ladder-*.log")):
            print(f"== {log.name}\n{summarize(log)}\n")
        return 0
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
