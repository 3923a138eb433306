"""Prototype, not used by tomis: a faster flagship-unlock check (R20).

    python bench/scratch/proto_unlock.py --games 100

Over every action of random games it checks that the prototype agrees with the engine's
report, then times both. (An attack-table prototype was dropped: combat.py is moving to
bitboards, which covers it.)

``_unlock`` (R20): only the side that just acted can newly unlock, and only by a ship
   that *arrived* on the enemy home row with this action (combat only removes units), so
   the check is one dict lookup on the action's target square instead of scanning both
   sides' 8 squares after every action.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from tomis import rules
from tomis.board import FRIGATE, HOME_RANK, SENTRY, TOWER

_ALLOWED = ((FRIGATE,), (FRIGATE, SENTRY, TOWER))


def unlock_fast(units, edition, unlocked, side, target):
    """Whether ``side`` newly unlocks: its ship now stands where the action landed.

    ``units`` after the action's combat; ``unlocked`` the flags before the action.
    """
    if target is None or unlocked[side] or target >> 3 != HOME_RANK[1 - side]:
        return False
    code = units.get(target)
    return code is not None and code >> 3 == side and code & 7 in _ALLOWED[edition]


def unlock_scan(state):
    """The engine's rule, as a pure function of the position (both sides scanned)."""
    allowed = _ALLOWED[state.edition]
    newly = []
    for side in (0, 1):
        if state.unlocked[side]:
            continue
        rank = HOME_RANK[1 - side]
        for square in range(rank * 8, rank * 8 + 8):
            code = state.units.get(square)
            if code is not None and code >> 3 == side and code & 7 in allowed:
                newly.append(side)
                break
    return newly


def positions(games, seed=20261122, max_actions=300):
    out = []
    for index in range(games):
        rng = random.Random(seed * 1_000_003 + index)
        state = rules.new_game(index % 2)
        while not state.is_over and state.ply < max_actions:
            action = rng.choice(rules.legal_actions(state))
            before = state
            state, report = rules.apply_unchecked(state, action)
            out.append((before, action, state, report))
    return out


def best_of(fn, repeat=5):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=100)
    args = parser.parse_args(argv)
    steps = positions(args.games)

    n = len(steps)
    # The unlock prototype must agree with the engine's report on every action.
    for before, action, after, report in steps:
        target = getattr(action, "target", None)
        side = report.side
        fast = unlock_fast(after.units, after.edition, before.unlocked, side, target)
        assert fast == (side in report.unlocked), (action, report)
        assert (1 - side) not in report.unlocked
    # Time on the states before unlocking was recorded (the engine scans them the same way).
    befores = [(b, r.side, getattr(a, "target", None)) for b, a, _, r in steps]
    old = best_of(lambda: [unlock_scan(s) for s, _, _ in befores])
    new = best_of(lambda: [unlock_fast(s.units, s.edition, s.unlocked, side, t) for s, side, t in befores])
    print(f"_unlock: scan {1e6 * old / n:.2f} us, prototype {1e6 * new / n:.2f} us "
          f"per action ({old / new:.1f}x), agrees with the engine on {n} actions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
