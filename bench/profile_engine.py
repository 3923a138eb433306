"""Profile the engine on random games: where do legal_actions() and apply() spend time?

    python bench/profile_engine.py --games 100 --top 25

Plays ``--games`` random legal games (the same loop as gen_games.py, but with the checked
:func:`tomis.rules.apply`, as a record reader replays) under cProfile and prints the
functions with the most time of their own, then the most cumulative time.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import random
import sys
import time

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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--max-actions", type=int, default=300)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args(argv)

    start = time.perf_counter()
    applied, generated = play(args.games, args.seed, args.max_actions)
    plain = time.perf_counter() - start
    print(f"unprofiled: {args.games} games, {applied} actions applied, {generated} generated, "
          f"{plain:.2f} s ({applied / plain:,.0f} applied/s)")

    profiler = cProfile.Profile()
    profiler.enable()
    play(args.games, args.seed, args.max_actions)
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
