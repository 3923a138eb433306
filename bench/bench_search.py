"""The search's speed: nodes per second, time to each depth, each level's time per action,
optionally beside an older commit's engine in the same run.

    python bench/bench_search.py --before f2e819b --nodes 20000 --repeat 3 --depth 4

Positions: the position strings in ``bench/search_positions.txt`` (one a line, ``#``
comments), so a change to the search or the evaluation never changes what is measured.
``--write-positions`` makes that file afresh from seeded self-play games (two-ply
searches with a root randomness of +-0.3 frigates, a fixed opening per game from
:func:`tomis.engine.match.random_opening`, a position every ``--every`` actions from
action 20 on while at least ``--min-units`` units stand: busy middle games, both
editions alternating).

1. nodes/s: each position searched to ``--nodes`` nodes, ``--repeat`` times; the fastest
   pass counts. Every time here is this process's CPU time (time.process_time): the
   machine's two cores are shared, and wall time would include other jobs' turns.
   A node is a position the search entered (negamax or quiescence), not an action
   generated.
2. time to depth: each position searched to depth 1..``--depth``; the median and the
   largest time per depth.
3. levels: each level's time per action over the positions (median and largest),
   against the 1 s the default level must keep to.

``--compare N`` measures no time: it searches each position to N nodes with both
versions and says whether the action, score, line, depth and node count agree (a
change meant only for speed must keep them all). ``--weight NAME=VALUE`` sets one of
this version's evaluation weights first (``--weight base_lines=0`` compares the trees
with an engine that has no such term).

With ``--before REV`` the engine of commit REV (its ``tomis`` package taken with ``git
archive`` and imported as ``tomis_before``, as bench_versions.py does) is measured the
same way in the same process, each position alternating which version goes first, and
the ratio this/REV is printed. python-chess has no search of its own, so the anchor is
an earlier commit (docs/ENGINE.md, "Figures").
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import _common

POSITIONS_FILE = _common.BENCH_DIR / "search_positions.txt"
EDITIONS = ("manual", "readme")


@dataclass
class Engine:
    """One version's search, as the bench drives it."""

    name: str
    search: object           # the Search class
    limits: object           # the Limits class
    from_string: object      # position string -> State
    player: object           # the ComputerPlayer class
    levels: dict             # level number -> Level
    new_game: object = None  # edition name -> the empty board, under this version's rules
    apply: object = None     # (state, action) -> (state, report), unchecked
    parse: object = None     # notation -> action

    def nodes_run(self, state, nodes: int):
        return self.search().run(state, self.limits(nodes=nodes))

    def depth_run(self, state, depth: int):
        return self.search().run(state, self.limits(depth=depth))


def current_engine() -> Engine:
    from tomis.engine.levels import LEVELS
    from tomis.engine.player import ComputerPlayer
    from tomis.engine.search import Limits, Search
    from tomis.notation import parse_action
    from tomis.rules.position import from_string
    from tomis.rules import apply_unchecked, new_game

    return Engine("this", Search, Limits, from_string, ComputerPlayer, LEVELS, new_game, apply_unchecked,
                  parse_action)


def older_engine(rev: str, folder: Path) -> Engine:
    """The engine of commit ``rev``, imported from an unpacked copy of its package."""
    from bench_versions import _before_module, import_before

    import_before(rev, folder)
    search = importlib.import_module("tomis_before.engine.search")
    levels = importlib.import_module("tomis_before.engine.levels")
    player = importlib.import_module("tomis_before.engine.player")
    position = _before_module("rules.position", "position")
    rules = _before_module("rules.core", "rules")
    notation = _before_module("notation", "notation")
    return Engine(rev, search.Search, search.Limits, position.from_string, player.ComputerPlayer,
                  levels.LEVELS, rules.new_game, rules.apply_unchecked, notation.parse_action)


def read_positions(path: Path) -> list[str]:
    lines = (line.strip() for line in path.read_text().splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def self_play_positions(count: int, every: int, seed: int, min_units: int) -> list[str]:
    """``count`` undecided, busy main-phase positions from seeded self-play games."""
    from tomis.engine.match import random_opening
    from tomis.engine.search import Limits, Search
    from tomis.rules.position import to_string
    from tomis.rules import apply_unchecked, new_game

    self_play = Limits(depth=2, noise=30)
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
                found.append(to_string(state))
            action = players[state.to_move].run(state, self_play).action
            state, _report = apply_unchecked(state, action)
        game += 1
    return found


def cpu_seconds(run):
    """(CPU seconds of this process spent in ``run()``, its result)."""
    start = time.process_time()
    result = run()
    return time.process_time() - start, result


def best_of(repeat: int, run):
    """The fastest of ``repeat`` calls of ``run()`` -> (CPU seconds, its result).

    CPU time of this process, not wall time: the two cores are shared with other jobs,
    and a wall clock would count the time they held the core.
    """
    best = None
    for _ in range(repeat):
        seconds, result = cpu_seconds(run)
        if best is None or seconds < best[0]:
            best = (seconds, result)
    return best


def in_turn(engines: list[Engine], index: int) -> list[Engine]:
    """The engines in the order they go for the ``index``-th measurement: alternated, so
    neither always runs on a cache or a core the other just warmed."""
    return engines if index % 2 == 0 else engines[::-1]


def nodes_per_second(engines, roots, nodes: int, repeat: int) -> dict:
    totals = {engine.name: [0, 0.0] for engine in engines}
    for index, texts in enumerate(roots):
        row = []
        for engine in in_turn(engines, index):
            state = engine.from_string(texts)
            seconds, result = best_of(repeat, lambda: engine.nodes_run(state, nodes))
            totals[engine.name][0] += result.nodes
            totals[engine.name][1] += seconds
            row.append((engine.name, result.nodes, result.depth, result.nodes / seconds))
        row.sort(key=lambda item: [e.name for e in engines].index(item[0]))
        print(f"  position {index + 1:>2}: " + "; ".join(
            f"{name} {count:>6} nodes, depth {depth}, {rate:>8,.0f} nodes/s" for name, count, depth, rate in row))
    return {name: count / seconds for name, (count, seconds) in totals.items()}


def time_to_depth(engines, roots, depth: int) -> None:
    for engine in engines:
        print(f"  {engine.name}:")
        for target in range(1, depth + 1):
            times, counts = [], []
            for texts in roots:
                state = engine.from_string(texts)
                seconds, result = cpu_seconds(lambda: engine.depth_run(state, target))
                times.append(seconds)
                counts.append(result.nodes)
            print(f"    depth {target}: {statistics.median(times):.3f} / {max(times):.3f} s, "
                  f"nodes median {int(statistics.median(counts)):,}, largest {max(counts):,}")


def level_times(engines, roots, default: int) -> None:
    for number in engines[0].levels:
        parts = []
        for engine in in_turn(engines, number):
            times = []
            for texts in roots:
                state = engine.from_string(texts)
                times.append(cpu_seconds(lambda: engine.player(number, 0).choose(state))[0])
            parts.append((engine.name, statistics.median(times), max(times)))
        parts.sort(key=lambda item: [e.name for e in engines].index(item[0]))
        mark = "  (default)" if number == default else ""
        print(f"  level {number}: " + "; ".join(f"{name} {median:.3f} / {largest:.3f} s"
                                                for name, median, largest in parts) + mark)


def same_searches(engines, roots, nodes: int) -> int:
    """Search each position to ``nodes`` nodes with both versions; the number that differ."""
    differing = 0
    for index, texts in enumerate(roots):
        found = []
        for engine in engines:
            result = engine.nodes_run(engine.from_string(texts), nodes)
            found.append((str(result.action), result.score, [str(a) for a in result.pv], result.depth, result.nodes))
        same = found[0] == found[1]
        differing += not same
        print(f"  position {index + 1:>2}: {'same' if same else 'DIFFERENT'}: " + "; ".join(
            f"{engine.name} {action} {score:+d} depth {depth}, {count} nodes"
            for engine, (action, score, _pv, depth, count) in zip(engines, found)))
    return differing


def set_weights(pairs: list[str]) -> None:
    from tomis.engine import evaluate

    weights = {}
    for pair in pairs:
        name, _, value = pair.partition("=")
        if name not in evaluate.WEIGHTS:
            raise SystemExit(f"--weight: no term {name!r}")
        weights[name] = int(value)
    evaluate.set_weights(weights)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions-file", type=Path, default=POSITIONS_FILE)
    parser.add_argument("--positions", type=int, help="use only the first N positions")
    parser.add_argument("--before", metavar="REV", help="also measure the engine of commit REV")
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--no-levels", action="store_true", help="skip the time per action by level")
    parser.add_argument("--compare", type=int, metavar="N",
                        help="with --before: compare both versions' searches at N nodes, time nothing")
    parser.add_argument("--weight", action="append", default=[], metavar="NAME=VALUE",
                        help="set this version's evaluation weight NAME (repeatable)")
    parser.add_argument("--write-positions", type=int, metavar="N",
                        help="write N self-play positions to --positions-file and stop")
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--min-units", type=int, default=12)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.write_positions:
        found = self_play_positions(args.write_positions, args.every, args.seed, args.min_units)
        header = (f"# bench_search.py positions: --write-positions {args.write_positions} --every {args.every} "
                  f"--min-units {args.min_units} --seed {args.seed}\n")
        args.positions_file.write_text(header + "".join(text + "\n" for text in found))
        print(f"{args.positions_file}: {len(found)} positions written")
        return 0
    if args.compare and not args.before:
        parser.error("--compare needs --before")
    set_weights(args.weight)
    print(f"machine: {_common.machine()}")
    roots = read_positions(args.positions_file)[:args.positions]
    with tempfile.TemporaryDirectory() as folder:
        engines = [current_engine()]
        if args.before:
            engines.append(older_engine(args.before, Path(folder)))
        states = [engines[0].from_string(text) for text in roots]
        print(f"{len(roots)} positions from {args.positions_file.name}, "
              f"{sum(len(s.units) for s in states) / len(states):.1f} units on average")
        if args.compare:
            differing = same_searches(engines, roots, args.compare)
            print(f"searches that differ: {differing} of {len(roots)}")
            return 0
        rates = nodes_per_second(engines, roots, args.nodes, args.repeat)
        print("nodes/s over all positions: " + "; ".join(f"{name} {rate:,.0f}" for name, rate in rates.items()))
        if args.before:
            print(f"ratio this/{args.before}: {rates['this'] / rates[args.before]:.3f}")
        print("time to depth (seconds: median / largest):")
        time_to_depth(engines, roots, args.depth)
        if not args.no_levels:
            from tomis.engine.levels import DEFAULT_LEVEL

            print("seconds per action by level (median / largest):")
            level_times(engines, roots, DEFAULT_LEVEL)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
