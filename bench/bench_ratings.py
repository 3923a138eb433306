"""What ratings and player pages cost at club scale: a round of a large event rated, and
the status pages refreshed after it.

    python bench/bench_ratings.py                      # 200 players, a round of 100 games
    python bench/bench_ratings.py --players 60 --rounds 59

The store is built through the referee's own functions (``players.register``,
``players.start_game``, one action each, saved as the referee saves): ``--players``
players paired 1-2, 3-4, ... in each of ``--rounds`` rounds (the partner shifting each
round), every game but the last round's ended by a resignation and rated as it ends.
Then, each timed: the last round's games all end in one transaction and the season
rates them (``season.settle_endings``: ``rating a round``); ``page`` writes a fresh
folder whole (every game's and player's page); one more game's end and ``page`` again
(two player pages drawn). Nothing here asserts; the figures go to docs/REFEREE.md.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from tomis.referee import pages, players, service
from tomis.referee.games import RefereedGame
from tomis.referee.season import settle_endings

NOW = 1_798_761_600                 # 2027-01-01T00:00Z
DAY = 86_400


def pairs(count: int, round_number: int) -> list[tuple[int, int]]:
    """``count`` players (an even number) in pairs, each round a different partner for
    most: player i meets i + 1 + 2 * round (mod count), taken greedily."""
    free = list(range(count))
    found = []
    while free:
        first = free.pop(0)
        want = (first + 1 + 2 * round_number) % count
        second = want if want in free else free[0]
        free.remove(second)
        found.append((first, second) if round_number % 2 == 0 else (second, first))
    return found


def build(db: str, count: int, rounds: int) -> list[int]:
    """The store of ``rounds`` rounds, all but the last ended and rated; the last round's
    game numbers (in play, one action each)."""
    service.init(db, "ref@club.test", None, f"outbox:{Path(db).parent / 'out'}", None)
    (Path(db).parent / "out").mkdir()
    store, config = service.connect(db)
    with store:
        with store.transaction():
            people = [players.register(store, f"Player {n:03d}", f"p{n}@club.test", NOW)
                      for n in range(count)]
        last = []
        for round_number in range(rounds):
            at = NOW + round_number * DAY
            with store.transaction():
                games = [players.start_game(store, config, people[w], people[b],
                                            players.Terms(None, 45), at, announce=False)
                         for w, b in pairs(count, round_number)]
                for game in games:
                    game.play(0, "B@e1", at + 60)
                    if round_number < rounds - 1:
                        game.resign(1)
                    game.save(store)
                settle_endings(store, config, at + 120)
            last = [game.id for game in games]
    return last


def timed(label: str, work) -> None:
    start = time.perf_counter()
    work()
    print(f"{label:<28} {time.perf_counter() - start:8.3f} s")


def end_round(db: str, numbers: list[int], at: int) -> None:
    store, config = service.connect(db)
    with store:
        with store.transaction():
            for number in numbers:
                game = RefereedGame.load(store, number)
                game.resign(1)
                game.save(store)
            settle_endings(store, config, at)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=9)
    options = parser.parse_args()
    if options.players % 2 or options.players < 4:
        parser.error("--players: an even number, at least 4")
    with tempfile.TemporaryDirectory() as folder:
        db = str(Path(folder) / "referee.db")
        start = time.perf_counter()
        last = build(db, options.players, options.rounds)
        print(f"{options.players} players, {options.rounds} rounds of {len(last)} games "
              f"(built in {time.perf_counter() - start:.1f} s)")
        at = NOW + options.rounds * DAY
        timed(f"rating a round ({len(last) - 1} games)", lambda: end_round(db, last[:-1], at))
        site = str(Path(folder) / "pages")
        timed("page, a fresh folder", lambda: pages.write(db, site, at))
        end_round(db, last[-1:], at + 60)
        written: list[str] = []
        timed("page after one game ended",
              lambda: written.extend(pages.write(db, site, at + 120)))
        print(f"  wrote {len(written)} files: "
              + ", ".join(sorted(Path(path).name for path in written)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
