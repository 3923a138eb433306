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
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from dataclasses import dataclass, field

import _common

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=200, help="Swiss players (200)")
    parser.add_argument("--rounds", type=int, default=9, help="Swiss rounds (9)")
    parser.add_argument("--seed", type=int, default=43, help="the results' seed (43)")
    parser.add_argument("--round-robin", type=int, default=60,
                        help="round robin players (60)")
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


if __name__ == "__main__":
    main()
