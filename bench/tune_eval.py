"""Tune the evaluation weights from self-play games (a small "Texel" tuning run).

    python bench/tune_eval.py generate --games 200 --level 3 -o /tmp/tomis-tune.jsonl
    python bench/tune_eval.py fit /tmp/tomis-tune.jsonl
    python bench/tune_eval.py records /tmp/tomis-ladder2/*.tgn -o /tmp/tomis-ladder-rows.jsonl

1. ``generate`` plays seeded self-play games at one level (its root randomness makes
   the games differ) from random openings, and writes one JSON line per main-phase
   position: its position string, the game's final result for White (1, 0.5, 0;
   a game still going after 200 actions counts 0.5) and whether the rules decided it.
   ``fit`` computes the evaluation terms (White minus Black,
   :func:`tomis.engine.evaluate.features`) from the position strings, so the same data
   serves a changed evaluation. Only quiet positions are used (the side to act has no
   action likely to destroy anything, :func:`tomis.engine.search.is_quiet`): in the
   middle of an exchange the static terms say little.
2. ``fit`` looks for the weights that best predict those results: the predicted score of
   a position is ``1 / (1 + 10 ** (-K * eval / 400))`` with eval in centi-frigates seen
   from White; the error is the mean squared difference from the results. K is fitted
   first with the current weights, then each weight in turn is moved up or down by a
   step while that lowers the error (coordinate descent, steps halving from 16 to 1).
   The frigate weight stays 100: it is the unit scores are shown in. A penalty of
   PENALTY per (change / 100 centi-frigates) squared keeps the weights near their
   hand-set start: without it a first run on 80 games overfitted (held-out error
   0.0727 -> 0.0717 while training error fell to 0.0628, towers worth 6.5 frigates).
   It prints the error before and after and the new weight table; half of the games
   (odd-numbered) are held out to check that the error drops there too.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from tomis.engine import evaluate
from tomis.engine.match import random_opening
from tomis.engine.player import ComputerPlayer
from tomis.engine.search import is_quiet
from tomis.rules.position import from_string, to_string
from tomis.notation.record import ADJUDICATION, TERMINATION_TAG
from tomis.rules import apply_unchecked, new_game

SKIP_PLIES = 14          # the forced opening and the random actions after it
MAX_ACTIONS = 200


def generate(games: int, level: int, seed: int, out) -> None:
    start = time.perf_counter()
    rows = 0
    for number in range(games):
        state = new_game()
        for action in random_opening(seed, number, 12, "manual"):
            state, _report = apply_unchecked(state, action)
        players = (ComputerPlayer(level, seed * 7919 + number), ComputerPlayer(level, seed * 7919 + number + 1))
        positions = []
        while state.to_move is not None and state.ply < MAX_ACTIONS:
            if state.ply >= SKIP_PLIES:
                positions.append(to_string(state))
            state, _report = apply_unchecked(state, players[state.to_move].choose(state))
        result = {"1-0": 1.0, "0-1": 0.0}.get(state.result, 0.5)
        decided = state.to_move is None           # by the rules, not cut at MAX_ACTIONS
        for text in positions:
            out.write(json.dumps({"game": number, "position": text, "r": result,
                                  "decided": decided}) + "\n")
            rows += 1
        print(f"game {number + 1}/{games}: {state.result} after {state.ply} actions, "
              f"{rows} positions, {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)


def from_records(paths: list[str], out) -> None:
    """Rows from games already played (a ladder's or a match's records): every position
    from action 15 on, with the game's result for White. An adjudicated draw counts 0.5."""
    from tomis import read_games

    number = rows = 0
    for path in paths:
        for game in read_games(path):
            if game.error is not None:
                continue
            result = {"1-0": 1.0, "0-1": 0.0}.get(game.result, 0.5)
            decided = game.result != "*" and game.tags.get(TERMINATION_TAG) != ADJUDICATION
            for position in list(game.positions())[SKIP_PLIES:-1]:
                out.write(json.dumps({"game": number, "position": position.to_string(), "r": result,
                                      "decided": decided}) + "\n")
                rows += 1
            number += 1
    print(f"{number} games, {rows} positions", file=sys.stderr)


PENALTY = 0.002      # per (change / 100) squared: keeps weights near the hand-set start


def _error(rows, weights, k, start=None) -> float:
    """Mean squared error of the predictions, plus the penalty for moving from ``start``."""
    total = 0.0
    for features, result in rows:
        score = 0
        for w, f in zip(weights, features):
            score += w * f
        exponent = -k * score / 400
        predicted = 1 / (1 + 10 ** max(-30.0, min(30.0, exponent)))
        total += (result - predicted) ** 2
    penalty = 0.0
    if start is not None:
        penalty = PENALTY * sum(((w - w0) / 100) ** 2 for w, w0 in zip(weights, start))
    return total / len(rows) + penalty


def fit(paths: list[str], decided_only: bool = False, hold: frozenset = frozenset()) -> None:
    """Fit the weights to the rows of ``paths`` and print them.

    ``decided_only`` drops the games nobody won or drew by the rules: a game cut at
    MAX_ACTIONS is labelled 0.5, which teaches that whatever both sides did for 200
    actions is even. ``hold`` names terms whose weights stay as they are, as the frigate's
    always does: the progress terms (advance, gates, reach, base_near) are the search's
    sense of direction, which a fit to game results does not see (run 4 made them
    negative, and its engine shuffled frigates for want of a reason to move).
    """
    unknown = hold - set(evaluate.TERMS)
    if unknown:
        raise SystemExit(f"tune_eval.py: no such term: {', '.join(sorted(unknown))}")
    train, test = [], []
    dropped = 0
    for path in paths:
        with open(path) as source:
            for line in source:
                row = json.loads(line)
                if decided_only and not row.get("decided", True):
                    dropped += 1
                    continue
                state = from_string(row["position"])
                if not is_quiet(state):
                    continue
                features = evaluate.features(state)
                (test if row["game"] % 2 else train).append((features, row["r"]))
    names = list(evaluate.TERMS)
    weights = [evaluate.WEIGHTS[name] for name in names]
    k = min((c / 100 for c in range(2, 301, 2)), key=lambda c: _error(train, weights, c))
    before_train, before_test = _error(train, weights, k), _error(test, weights, k)
    if decided_only:
        print(f"{dropped} positions of games cut short dropped")
    print(f"{len(train)} training positions, {len(test)} held out; K = {k:.2f}")
    print(f"error before: train {before_train:.5f}, held out {before_test:.5f}")
    start = list(weights)
    best = _error(train, weights, k, start)
    for step in (16, 8, 4, 2, 1):
        improved = True
        while improved:
            improved = False
            for index, name in enumerate(names):
                if name == "frigates" or name in hold:
                    continue
                for delta in (step, -step):
                    trial = list(weights)
                    trial[index] += delta
                    error = _error(train, trial, k, start)
                    if error < best:
                        best, weights, improved = error, trial, True
                        break
    print(f"error after:  train {_error(train, weights, k):.5f}, held out {_error(test, weights, k):.5f}")
    print("tuned weights:")
    for name, old, new in zip(names, (evaluate.WEIGHTS[n] for n in names), weights):
        print(f"  {name:<13} {old:>5} -> {new:>5}")
    print(json.dumps(dict(zip(names, weights))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("generate")
    gen.add_argument("--games", type=int, default=200)
    gen.add_argument("--level", type=int, default=3)
    gen.add_argument("--seed", type=int, default=1)
    gen.add_argument("-o", "--output", required=True)
    records = sub.add_parser("records", help="rows from played games (record files)")
    records.add_argument("files", nargs="+")
    records.add_argument("-o", "--output", required=True)
    fitting = sub.add_parser("fit")
    fitting.add_argument("data", nargs="+")
    fitting.add_argument("--decided-only", action="store_true",
                         help="drop the positions of games cut short (no result by the rules)")
    fitting.add_argument("--hold", default="", metavar="TERMS",
                         help="comma-separated terms whose weights stay as they are")
    args = parser.parse_args()
    if args.command == "generate":
        with open(args.output, "w") as out:
            generate(args.games, args.level, args.seed, out)
    elif args.command == "records":
        with open(args.output, "w") as out:
            from_records(args.files, out)
    else:
        names = frozenset(name for name in args.hold.split(",") if name)
        fit(args.data, args.decided_only, names)


if __name__ == "__main__":
    main()
