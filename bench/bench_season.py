"""How long the season's pure steps take at a club's largest: a Swiss round and standings.

    python bench/bench_season.py --players 200 --rounds 9

A Swiss event of ``--players`` is paired round by round (tomis.season.pairing.swiss_round,
networkx's maximum-weight matching) and its standings computed after each round
(tomis.season.tiebreaks.standings); the results are drawn by a seeded generator, the
better seed winning more often, so every run plays the same event. Each step is timed per
round with ``time.perf_counter`` (wall) and ``time.process_time`` (this process's CPU,
which a machine shared with other work moves far less), and the figures printed as
min / median / max. The round robin's Berger table for ``--round-robin`` players is
timed too. Nothing here asserts; the figures go to docs/REFEREE.md, "Seasons at scale".

With ``--referee`` the same sizes run through the referee, on real stores in a temporary
folder, the referee's clock given as ``--now`` gives it (one simulated day a round):

- starting the ``--round-robin`` event (every game, one message per player, one
  transaction: ``tomis.referee.events.start_event``);
- a Swiss of ``--players``: starting it (round 1), then per round the round's every game
  ended (the loser by the seeded generator resigns, each game saved) and settled
  (``tomis.referee.season.settle_endings``: the season's steps for each game, rating
  where that step is present, and the next round paired and started with its messages);
- refreshing the status pages (``tomis.referee.pages.write``) after each round, into a
  folder written before; for the round robin's store, once whole and once after one of
  its games ended (the event's page drawn again from its 1,770 games).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from dataclasses import dataclass, field

import _common

from tomis.referee import events, pages, players, season, service
from tomis.referee.games import RefereedGame
from tomis.season.pairing import Entrant, Pairing, round_robin, swiss_round
from tomis.season.tiebreaks import GameResult, standings

# A game's chances: this share of draws, and the rest to the better seed by the odds
# below (a gap of a quarter of the field is about 3 to 1).
DRAWS = 0.25


@dataclass
class Player:
    score: float = 0.0
    opponents: list[int] = field(default_factory=list)
    colours: str = ""
    had_bye: bool = False


@dataclass
class Timings:
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    def line(self, label: str) -> str:
        return (f"{label:<10} wall min {min(self.wall):.3f} median "
                f"{statistics.median(self.wall):.3f} max {max(self.wall):.3f} s;  "
                f"cpu min {min(self.cpu):.3f} median {statistics.median(self.cpu):.3f} "
                f"max {max(self.cpu):.3f} s")


def timed(timings: Timings, step, *args, **options):
    wall, cpu = time.perf_counter(), time.process_time()
    answer = step(*args, **options)
    timings.wall.append(time.perf_counter() - wall)
    timings.cpu.append(time.process_time() - cpu)
    return answer


def white_score(pairing: Pairing, count: int, chance: random.Random) -> float:
    if chance.random() < DRAWS:
        return 0.5
    white_wins = 1 / (1 + 3 ** ((pairing.white - pairing.black) / (count / 4)))
    return 1.0 if chance.random() < white_wins else 0.0


def play_round(pairings: list[Pairing], players: dict[int, Player], results: list[GameResult],
               chance: random.Random) -> None:
    for pairing in pairings:
        white = players[pairing.white]
        if pairing.black is None:
            white.score += 1
            white.had_bye = True
            results.append(GameResult(pairing.white, None, None))
            continue
        black = players[pairing.black]
        score = white_score(pairing, len(players), chance)
        white.score += score
        black.score += 1 - score
        white.opponents.append(pairing.black)
        black.opponents.append(pairing.white)
        white.colours += "w"
        black.colours += "b"
        results.append(GameResult(pairing.white, pairing.black, score))


def swiss(count: int, rounds: int, seed: int) -> tuple[Timings, Timings]:
    chance = random.Random(seed)
    players = {number: Player() for number in range(1, count + 1)}
    results: list[GameResult] = []
    pairing, ranking = Timings(), Timings()
    for _ in range(rounds):
        entrants = [Entrant(number, player.score, tuple(player.opponents), player.colours,
                            player.had_bye) for number, player in players.items()]
        pairings = timed(pairing, swiss_round, entrants)
        play_round(pairings, players, results, chance)
        timed(ranking, standings, list(players), results, bye_points=1.0)
    return pairing, ranking


# --------------------------------------------------------------------------- the referee

DAY = 86_400
START = 1_795_000_000          # the referee's clock at the start (2026-11-18, UTC)
FIRST_ACTION = "B@e1"          # White's first action in every game


def club_store(folder: str, name: str, count: int) -> str:
    """A new store in ``folder`` sending to an outbox folder, with ``count`` players."""
    path = os.path.join(folder, f"{name}.db")
    outbox = os.path.join(folder, f"{name}-out")
    os.mkdir(outbox)
    service.init(path, "referee@club.example", "Club referee", f"outbox:{outbox}", None,
                 {"outage_after": "off"})
    store, _config = service.connect(path)
    with store, store.transaction():
        for number in range(1, count + 1):
            players.register(store, f"Player {number:03d}", f"p{number}@club.example", START)
    return path


def start_timed(path: str, plan: events.EventPlan, timings: Timings) -> events.Started:
    store, config = service.connect(path)
    with store:
        def start():
            with store.transaction():
                return events.start_event(store, config, plan, START)
        return timed(timings, start)


def names(count: int) -> tuple[str, ...]:
    return tuple(f"Player {number:03d}" for number in range(1, count + 1))


def end_one_game(path: str, at: int) -> None:
    """The first game of the store resigned by Black, and settled."""
    store, config = service.connect(path)
    with store, store.transaction():
        game = RefereedGame.load(store, 1)
        game.resign(1)
        game.save(store)
        season.settle_endings(store, config, at)


def end_round(path: str, round: int, at: int, chance: random.Random,
              ending: Timings, settling: Timings) -> int:
    """Every game of ``round`` of the store's one event ended: White's first action, then
    a resignation by the side the seeded generator picks, each game saved; then settled
    (rated, and the next round paired and started); the next round's games."""
    store, config = service.connect(path)
    with store:
        event = store.events.all()[0]
        numbers = [row.game for row in store.events.games(event.id) if row.round == round]

        def resign_all():
            with store.transaction():
                for number in numbers:
                    game = RefereedGame.load(store, number)
                    # One action first: a game ended before any is not rated.
                    game.play(0, FIRST_ACTION, at - DAY // 2)
                    game.resign(1 if chance.random() < 0.5 else 0)
                    game.save(store)

        timed(ending, resign_all)

        def settle():
            with store.transaction():
                return season.settle_endings(store, config, at)

        timed(settling, settle)
        return sum(1 for row in store.events.games(event.id) if row.round == round + 1)


def referee_figures(args: argparse.Namespace) -> None:
    chance = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="tomis-season-") as folder:
        robin = club_store(folder, "robin", args.round_robin)
        robin_start = Timings()
        started = start_timed(robin, events.EventPlan(
            "Round robin", "round-robin", False, None, "30d+3d", 45, names(args.round_robin)),
            robin_start)
        print(f"referee: start the round robin of {args.round_robin} ({started.games} games, "
              f"{started.letters} messages): {robin_start.wall[0]:.2f} s wall, "
              f"{robin_start.cpu[0]:.2f} s cpu")
        robin_pages = Timings()
        timed(robin_pages, pages.write, robin, os.path.join(folder, "robin-pages"), START)
        print(f"referee: pages of the round robin's store, written whole: "
              f"{robin_pages.wall[0]:.2f} s wall, {robin_pages.cpu[0]:.2f} s cpu")
        one_game = Timings()
        end_one_game(robin, START + DAY)
        timed(one_game, pages.write, robin, os.path.join(folder, "robin-pages"), START + DAY)
        print(f"referee: pages after one game of the round robin ended (its event page "
              f"drawn again): {one_game.wall[0]:.2f} s wall, {one_game.cpu[0]:.2f} s cpu")
        swiss_store = club_store(folder, "swiss", args.players)
        first = Timings()
        start_timed(swiss_store, events.EventPlan(
            "Swiss", "swiss", False, args.rounds, "30d+3d", 45, names(args.players)), first)
        print(f"referee: start the Swiss of {args.players} (round 1 paired and started): "
              f"{first.wall[0]:.2f} s wall, {first.cpu[0]:.2f} s cpu")
        site = os.path.join(folder, "swiss-pages")
        pages.write(swiss_store, site, START)
        ending, settling, refresh = Timings(), Timings(), Timings()
        for round in range(1, args.rounds + 1):
            at = START + round * DAY
            next_games = end_round(swiss_store, round, at, chance, ending, settling)
            timed(refresh, pages.write, swiss_store, site, at)
            if round < args.rounds and not next_games:
                print(f"referee: round {round + 1} could not be paired; stopped")
                break
        print(ending.line("end round"))
        print(settling.line("settle"))
        print(refresh.line("pages"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=200, help="Swiss players (200)")
    parser.add_argument("--rounds", type=int, default=9, help="Swiss rounds (9)")
    parser.add_argument("--seed", type=int, default=43, help="the results' seed (43)")
    parser.add_argument("--round-robin", type=int, default=60,
                        help="round robin players (60)")
    parser.add_argument("--referee", action="store_true",
                        help="the same sizes through the referee's stores (events, pages)")
    args = parser.parse_args()
    print(_common.machine())
    print(f"Swiss of {args.players} players, {args.rounds} rounds, seed {args.seed}; "
          f"per round:")
    pairing, ranking = swiss(args.players, args.rounds, args.seed)
    print(pairing.line("pair"))
    print(ranking.line("standings"))
    table = Timings()
    rounds = timed(table, round_robin, args.round_robin)
    games = sum(1 for rnd in rounds for board in rnd if board.black is not None)
    print(f"round robin of {args.round_robin}: {len(rounds)} rounds, {games} games, "
          f"{table.wall[0]:.4f} s wall, {table.cpu[0]:.4f} s cpu")
    if args.referee:
        referee_figures(args)


if __name__ == "__main__":
    main()
