"""Nodes the search needs to finish a depth, and the depth a level finishes, on the
stored bench positions (issue 45's pruning).

    python bench/depth_nodes.py [--depth 4] [--level 6] [--set NULL_MIN_DEPTH=99] [--set FUTILITY_MARGIN=1000000]

``--set NAME=VALUE`` overrides a constant of ``tomis.engine.search`` for this run
(``NULL_MIN_DEPTH=99`` leaves the null move out, ``FUTILITY_MARGIN=1000000`` futility
pruning). Node counts are the same on any machine: no time is measured. To count an
older version, run it with ``PYTHONSAFEPATH=1 PYTHONPATH=/tmp/TREE`` (an unpacked
``git archive``), from a directory without a package of its own.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import tomis.engine.search as search
from tomis.engine.levels import LEVELS
from tomis.engine.search import Limits, Search
from tomis.rules.position import from_string

POSITIONS = Path(__file__).resolve().parent / "search_positions.txt"


def positions() -> list:
    lines = POSITIONS.read_text().splitlines()
    return [from_string(line.strip()) for line in lines if line.strip() and not line.startswith("#")]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--level", type=int, default=6)
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args(argv)
    for pair in args.set:
        name, _, value = pair.partition("=")
        if not hasattr(search, name):
            parser.error(f"tomis.engine.search has no {name}")
        setattr(search, name, int(value))
    states = positions()
    to_depth = [Search(0).run(state, Limits(depth=args.depth)).nodes for state in states]
    finished = [Search(0).run(state, LEVELS[args.level].limits).depth for state in states]
    reached = sum(1 for depth in finished if depth >= args.depth)
    print(f"{len(states)} positions; nodes to depth {args.depth}: {sum(to_depth):,} "
          f"(each: {', '.join(map(str, to_depth))})")
    print(f"level {args.level} finishes depth {args.depth} on {reached} of {len(states)} "
          f"(depths: {', '.join(map(str, finished))})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
