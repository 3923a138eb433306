"""Record reading speed of two source trees of tomis, side by side in the same run.

    python bench/gen_games.py --games 2000 --out /tmp/tomis-bench-corpus
    git archive main | tar -x -C /tmp/tomis-before          # the tree to compare with
    python bench/bench_before_after.py --before /tmp/tomis-before --after . \\
        --corpus /tmp/tomis-bench-corpus --games 1000 --rounds 5

Each round times ``tomis.record.read`` over the same records (read into memory first,
one untimed pass to build everything lazy) once per tree, each in a fresh interpreter
with that tree first on ``sys.path``, alternating so that both see the same machine
load. Prints every round and the fastest of each tree, and after/before. Used to show
that a change to the reader costs records that do not use it nothing worth naming
(issue 15: within 10 %).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import _common

# Runs inside the child interpreter: reads the corpus records, times record.read.
_CHILD = r"""
import json, sys, time
from pathlib import Path
import tomis, tomis.record as record
corpus, games = Path(sys.argv[1]), int(sys.argv[2])
entries = json.loads((corpus / "manifest.json").read_text())["tgn"][:games]
texts = [(str(corpus / e["file"]), (corpus / e["file"]).read_text()) for e in entries]
actions = 0
for path, text in texts:                       # untimed: lazy parts built, corpus valid
    for checked in record.read(text, path):
        assert checked.error is None, checked.error.located()
        actions += len(checked.game.nodes)
start = time.perf_counter()
for path, text in texts:
    record.read(text, path)
print(json.dumps({"seconds": time.perf_counter() - start, "actions": actions,
                  "module": tomis.__file__}))
"""


def time_tree(tree: Path, corpus: Path, games: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree.resolve()))
    # cwd: "-c" puts the current directory first on sys.path, before PYTHONPATH.
    out = subprocess.run([sys.executable, "-c", _CHILD, str(corpus.resolve()), str(games)],
                         env=env, cwd=tree, check=True, capture_output=True, text=True).stdout
    result = json.loads(out)
    # The child must have imported the tree asked for, not an installed copy.
    assert Path(result["module"]).resolve().is_relative_to(tree.resolve()), result["module"]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--after", type=Path, required=True)
    parser.add_argument("--corpus", type=Path, default=_common.DEFAULT_CORPUS)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    _common.load_manifest(args.corpus)
    print(_common.machine())
    best = {"before": None, "after": None}
    for round_ in range(1, args.rounds + 1):
        for name in ("before", "after"):
            result = time_tree(getattr(args, name), args.corpus, args.games)
            seconds = result["seconds"]
            print(f"round {round_} {name:6}: {seconds:.3f} s, "
                  f"{result['actions'] / seconds:,.0f} actions/s")
            if best[name] is None or seconds < best[name]:
                best[name] = seconds
    ratio = best["after"] / best["before"]
    print(f"fastest: before {best['before']:.3f} s, after {best['after']:.3f} s; "
          f"after/before = {ratio:.3f} ({(ratio - 1) * 100:+.1f} %)")


if __name__ == "__main__":
    main()
