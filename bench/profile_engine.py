"""Profile the engine on random games: where do legal_actions() and apply() spend time?

    python bench/profile_engine.py --games 100 --top 25
    python bench/profile_engine.py --mode replay --games 200
    python bench/profile_engine.py --mode search --nodes 20000

``--mode play`` (default) plays random legal games (the same loop as gen_games.py, but
with the checked :func:`tomis.rules.apply`): generation and application together.
``--mode replay`` first builds the games' actions, then profiles only the checked
``apply`` of each, which is the engine's share of validating a record. ``--mode search``
searches each position of ``bench/search_positions.txt`` to ``--nodes`` nodes (the
positions bench_search.py measures; ``applied`` then counts nodes). Either way it
prints the functions with the most time of their own, then the most cumulative time.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import random
import sys
import time

import _common
from tomis import rules


def play(games: int, seed: int, max_actions: int) -> tuple[int, int]:
    """Random games; returns (actions applied, actions generated)."""
    applied = generated = 0
    for index in range(games):
        rng = random.Random(seed * 1_000_003 + index)
        state = rules.new_game(index % 2)
        while not state.is_over and state.ply < max_actions:
            actions = rules.legal_actions(state)
            generated += len(actions)
            state, _report = rules.apply(state, rng.choice(actions))
            applied += 1
    return applied, generated


def build(games: int, seed: int, max_actions: int):
    """The games' editions and action lists, built outside the profile."""
    return [
        (index % 2, [action for _state, action in _common.random_play(index, seed, max_actions)])
        for index in range(games)
    ]


def replay(games) -> tuple[int, int]:
    applied = 0
    for edition, actions in games:
        state = rules.new_game(edition)
        for action in actions:
            state, _ = rules.apply(state, action)
        applied += len(actions)
    return applied, 0


def search(nodes: int) -> tuple[int, int]:
    """The computer opponent's search over the stored bench positions; returns (nodes, 0)."""
    from bench_search import POSITIONS_FILE, read_positions
    from tomis.engine.search import Limits, Search
    from tomis.rules.position import from_string

    searched = 0
    for text in read_positions(POSITIONS_FILE):
        searched += Search().run(from_string(text), Limits(nodes=nodes)).nodes
    return searched, 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--max-actions", type=int, default=300)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--mode", choices=("play", "replay", "search"), default="play")
    parser.add_argument("--nodes", type=int, default=20_000, help="--mode search: nodes per position")
    args = parser.parse_args(argv)

    if args.mode == "play":
        def run():
            return play(args.games, args.seed, args.max_actions)
    elif args.mode == "search":
        def run():
            return search(args.nodes)
    else:
        games = build(args.games, args.seed, args.max_actions)

        def run():
            return replay(games)

    start = time.perf_counter()
    applied, generated = run()
    plain = time.perf_counter() - start
    if args.mode == "search":
        print(f"unprofiled (search): {applied} nodes over the stored positions, {plain:.2f} s "
              f"({applied / plain:,.0f} nodes/s, {1e6 * plain / max(1, applied):.1f} us/node)")
    else:
        print(f"unprofiled ({args.mode}): {args.games} games, {applied} actions applied, "
              f"{generated} generated, {plain:.2f} s ({applied / plain:,.0f} applied/s, "
              f"{1e6 * plain / max(1, applied):.1f} us/action)")

    profiler = cProfile.Profile()
    profiler.enable()
    run()
    profiler.disable()
    for key in ("tottime", "cumulative"):
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).strip_dirs().sort_stats(key).print_stats(args.top)
        print(f"--- by {key} ---")
        # Drop pstats' preamble lines; keep the table.
        text = out.getvalue()
        print(text[text.find("   ncalls"):].rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
