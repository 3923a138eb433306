"""Level 6 against the independent plain alpha-beta of bench/plain_ab.py (issue 45).

    nice -n 19 python bench/vs_plain.py --games 200 [--nodes 10000] [--seed 4545] [-o games.tgn]
    python bench/vs_plain.py --summarize LOG...      # the table of runs cut short

The level is this process's ``tomis`` (to measure another version, run the script with
``PYTHONSAFEPATH=1 PYTHONPATH=/tmp/TREE``, an unpacked ``git archive``); the opponent is
``python bench/plain_ab.py --nodes N``, a UGI program that shares no code with
``tomis.engine``. Games come in colour-swapped pairs from seeded random openings of 12
actions (``tomis match``'s), seed 4545 by default: no tuning run and no SPRT used it.
A game still going after ``--max-actions`` is a draw (R23). Each game is printed as it
ends (the line ``tomis match`` prints), then the level's wins, draws and losses, its
score with a 95 % interval, and the Elo difference with its interval.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from pathlib import Path

import tomis.engine.match as match
from tomis.engine.match import MatchSettings, Score, elo, parse_player, run_match, score_for_a

PLAIN = Path(__file__).resolve().parent / "plain_ab.py"
GAME_LINE = re.compile(r"^game (\d+): .* \(White\) vs .* \(Black\): (1-0|0-1|1/2-1/2), ")
Z95 = 1.959964


def score_interval(score: Score) -> tuple[float, float]:
    """The level's mean score with a 95 % interval, from the games' own variance."""
    n = score.games
    mean = score.fraction
    if score.wins == n or score.losses == n:
        # No variance to read: the exact binomial bound (p ** n = 2.5 %), as match.elo gives.
        bound = 0.025 ** (1 / n)
        return (bound, 1.0) if score.wins == n else (0.0, 1 - bound)
    variance = (score.wins * (1 - mean) ** 2 + score.draws * (0.5 - mean) ** 2 + score.losses * mean ** 2) / n
    spread = Z95 * math.sqrt(variance / n)
    return max(0.0, mean - spread), min(1.0, mean + spread)


def table(score: Score) -> list[str]:
    if not score.games:
        return ["no games"]
    low, high = score_interval(score)
    diff, elo_low, elo_high = elo(score)
    return [
        f"games {score.games}: level wins {score.wins}, draws {score.draws}, losses {score.losses}",
        f"score {score.points:g}/{score.games} = {100 * score.fraction:.1f} % "
        f"(95 % interval {100 * low:.1f} to {100 * high:.1f} %)",
        f"Elo difference {diff:+.1f} (95 % interval {elo_low:+.1f} to {elo_high:+.1f})",
    ]


def summarize(paths: list[str]) -> Score:
    """The level's score read back from the game lines of runs' output (A, the level, is
    White in odd games)."""
    score = Score()
    for path in paths:
        for line in Path(path).read_text().splitlines():
            found = GAME_LINE.match(line)
            if found is None:
                continue
            a_white = int(found[1]) % 2 == 1
            if found[2] == "1/2-1/2":
                score.draws += 1
            elif (found[2] == "1-0") == a_white:
                score.wins += 1
            else:
                score.losses += 1
    return score


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--level", type=int, default=6)
    parser.add_argument("--nodes", type=int, default=10_000, help="the plain opponent's nodes per action")
    parser.add_argument("--seed", type=int, default=4545, help="seed of the openings")
    parser.add_argument("--first-pair", type=int, default=0,
                        help="skip this many colour-swapped pairs (to share a run among processes)")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--max-actions", type=int, default=200)
    parser.add_argument("-o", "--output", help="write the games' records here (a new file)")
    parser.add_argument("--summarize", nargs="+", metavar="LOG", help="only print the table of these outputs")
    args = parser.parse_args(argv)
    if args.summarize:
        print("\n".join(table(summarize(args.summarize))))
        return 0
    plain = parse_player(f"{sys.executable} {PLAIN} --nodes {args.nodes}")
    settings = MatchSettings(parse_player(f"level:{args.level}"), plain, games=args.games + 2 * args.first_pair,
                             seed=args.seed, concurrency=args.concurrency, max_actions=args.max_actions)
    print(f"A: level {args.level} ({settings.a.name}); B: plain alpha-beta at {args.nodes} nodes; "
          f"openings seed {args.seed}", flush=True)
    if args.output and Path(args.output).exists():
        parser.error(f"{args.output} exists; the games go to a new file")
    score = Score()
    records = []

    def shown(outcome, _running) -> None:
        score_for_a(settings, outcome, score)
        records.append(outcome.record)
        if args.output:             # after every game, so a run cut short keeps its games
            Path(args.output).write_text("\n".join(records), encoding="utf-8")
        print(f"game {outcome.number}: {outcome.white} (White) vs {outcome.black} (Black): "
              f"{outcome.result}, {outcome.reason}", flush=True)

    run_match(_skipping(settings, args.first_pair), on_game=shown)
    print("\n".join(table(score)), flush=True)
    return 0


def _skipping(settings: MatchSettings, pairs: int) -> MatchSettings:
    """``settings`` whose first ``pairs`` pairs are left out (their openings too)."""
    if not pairs:
        return settings
    every = match.tasks

    def later(given):
        return [task for task in every(given) if task.number > 2 * pairs]

    match.tasks = later                  # run_match reads the list of games from tasks()
    return settings


if __name__ == "__main__":
    sys.exit(main())
