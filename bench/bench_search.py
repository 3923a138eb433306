"""The search's speed: nodes per second, time to each depth, and each level's time per action.

    python bench/bench_search.py --positions 12 --nodes 20000 --repeat 3 --depth 4

Positions: main-phase positions from seeded self-play games (two-ply searches with a
seeded root randomness of +-0.3 frigates, a fixed opening per game from
:func:`tomis.engine.match.random_opening`), taken every ``--every`` actions from action
20 on while at least ``--min-units`` units stand (a busy middle game, not a bare
ending); the same on every run and machine, and independent of how levels are defined.
Both editions alternate.

1. nodes/s: each position searched to ``--nodes`` nodes, ``--repeat`` times; the fastest
   pass counts. Every time here is this process's CPU time (time.process_time): the
   machine's two cores are shared, and wall time would include other jobs' turns.
   A node is a position the search entered (negamax or quiescence), not an action
   generated.
2. time to depth: each position searched to depth 1..``--depth``; the median and the
   largest time per depth.
3. levels: each level's time per action over the positions (median and largest),
   against the 1 s the default level must keep to.

python-chess has no search of its own, so the anchor is an earlier commit run the same
way in the same session, alternated with this one (docs/ENGINE.md, "Figures").
"""

from __future__ import annotations

import argparse
import statistics
import time

import _common
from tomis.engine.levels import DEFAULT_LEVEL, LEVELS
from tomis.engine.match import random_opening
from tomis.engine.player import ComputerPlayer
from tomis.engine.search import Limits, Search
from tomis.position import to_string
from tomis.rules import apply_unchecked, new_game

EDITIONS = ("manual", "readme")


SELF_PLAY = Limits(depth=2, noise=30)


def positions(count: int, every: int, seed: int, min_units: int) -> list:
    """``count`` undecided, busy main-phase positions from seeded self-play games."""
    found = []
    game = 0
    while len(found) < count:
        edition = EDITIONS[game % 2]
        state = new_game(edition)
        for action in random_opening(seed, game, 12, edition):
            state, _report = apply_unchecked(state, action)
        players = (Search(seed + game), Search(seed + game + 1))
        while state.to_move is not None and state.ply < 120 and len(found) < count:
            if state.ply >= 20 and state.ply % every == 0 and len(state.units) >= min_units:
                found.append(state)
            action = players[state.to_move].run(state, SELF_PLAY).action
            state, _report = apply_unchecked(state, action)
        game += 1
    return found


def best_of(repeat: int, run):
    """The fastest of ``repeat`` calls of ``run()`` -> (CPU seconds, its result).

    CPU time of this process, not wall time: the two cores are shared with other jobs,
    and a wall clock would count the time they held the core.
    """
    best = None
    for _ in range(repeat):
        start = time.process_time()
        result = run()
        seconds = time.process_time() - start
        if best is None or seconds < best[0]:
            best = (seconds, result)
    return best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=12)
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--min-units", type=int, default=12)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--show", action="store_true", help="print the position strings")
    args = parser.parse_args(argv)
    print(f"machine: {_common.machine()}")
    roots = positions(args.positions, args.every, args.seed, args.min_units)
    print(f"{len(roots)} positions, {sum(len(r.units) for r in roots) / len(roots):.1f} units on average")
    if args.show:
        for root in roots:
            print("  " + to_string(root))

    total_nodes = total_seconds = 0.0
    for root in roots:
        seconds, result = best_of(args.repeat, lambda: Search().run(root, Limits(nodes=args.nodes)))
        total_nodes += result.nodes
        total_seconds += seconds
        print(f"  action {root.ply + 1:>3} {root.edition_name:<6} {len(root.units):>2} units: "
              f"{result.nodes:>6} nodes, depth {result.depth}, {result.nodes / seconds:>8,.0f} nodes/s")
    print(f"nodes/s over all positions: {total_nodes / total_seconds:,.0f} (target >= 25,000)")

    print("time to depth (seconds: median / largest):")
    for depth in range(1, args.depth + 1):
        times, nodes = [], []
        for root in roots:
            seconds, result = best_of(1, lambda: Search().run(root, Limits(depth=depth)))
            times.append(seconds)
            nodes.append(result.nodes)
        print(f"  depth {depth}: {statistics.median(times):.3f} / {max(times):.3f} s, "
              f"nodes median {int(statistics.median(nodes)):,}, largest {max(nodes):,}")

    print("seconds per action by level (median / largest):")
    for number in LEVELS:
        times = [best_of(1, lambda: ComputerPlayer(number, 0).choose(root))[0] for root in roots]
        mark = "  (default)" if number == DEFAULT_LEVEL else ""
        print(f"  level {number}: {statistics.median(times):.3f} / {max(times):.3f} s{mark}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
