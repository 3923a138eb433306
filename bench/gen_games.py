"""Generate the benchmark corpus: N random legal Tomis games and N random chess games.

    python bench/gen_games.py --games 2000 --out /tmp/tomis-bench-corpus

Tomis games alternate editions (even-numbered games manual, odd readme) and are played by
picking uniformly among :func:`tomis.rules.legal_actions` until the engine's end rules
(R21, R22) decide the game or ``--max-actions`` is reached (then the result is ``*``).
Chess game *i* is played the same way with python-chess, stopping at the same number of
plies as Tomis game *i* (or earlier, at mate, stalemate or an automatic draw), so both
corpora hold the same number of games with a similar number of moves per game.

Every game has its own seed derived from ``--seed`` and its index, so game 17 is the same
whatever ``--games`` is. Output: ``tgn/game-00017.tgn``, ``pgn/game-00017.pgn`` and a
``manifest.json`` with the action counts the validate benchmark divides by.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import _common
from tomis import rules

WRITER = "tomis.notation.record.write"     # named in the manifest, which the bench scripts print


def random_tomis_game(seed: int, edition: str, max_actions: int):
    """A list of actions and the final state of one random legal game."""
    rng = random.Random(seed)
    state = rules.new_game(edition)
    actions = []
    while not state.is_over and state.ply < max_actions:
        action = rng.choice(rules.legal_actions(state))
        # The action came from the generator, so the check inside apply() is redundant.
        state, _report = rules.apply_unchecked(state, action)
        actions.append(action)
    return actions, state


def write_tgn(index: int, edition: str, actions) -> str:
    """The record of one game, built and written by tomis.notation.record, the project's own writer."""
    from tomis.notation import record
    game = record.new_record(
        rules=edition, event="tomis bench", site="random legal play", round=str(index + 1),
        white="random", black="random",
    )
    for action in actions:
        record.append(game, str(action))    # parses and checks each action again
    return record.write(game)


def random_chess_game(seed: int, plies: int, index: int):
    """A random legal chess game of at most ``plies`` plies, as a PGN string."""
    import chess
    import chess.pgn
    rng = random.Random(seed)
    board = chess.Board()
    while board.ply() < plies and not board.is_game_over():
        board.push(rng.choice(list(board.legal_moves)))
    game = chess.pgn.Game.from_board(board)
    game.headers["Event"] = "tomis bench"
    game.headers["Site"] = "random legal play"
    game.headers["Round"] = str(index + 1)
    game.headers["White"] = game.headers["Black"] = "random"
    if not board.is_game_over():
        game.headers["Result"] = "*"
    # Wrapped at 80 columns like the Tomis records, so both readers see similar lines.
    text = game.accept(chess.pgn.StringExporter(columns=80))
    return text + "\n", board.ply()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games per corpus (default 200)")
    parser.add_argument("--out", type=Path, default=_common.DEFAULT_CORPUS)
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--max-actions", type=int, default=300,
                        help="stop a game undecided after this many actions (default 300)")
    parser.add_argument("--no-chess", action="store_true", help="skip the python-chess corpus")
    args = parser.parse_args(argv)

    out = args.out
    (out / "tgn").mkdir(parents=True, exist_ok=True)
    (out / "pgn").mkdir(parents=True, exist_ok=True)
    for old in list((out / "tgn").glob("*.tgn")) + list((out / "pgn").glob("*.pgn")):
        old.unlink()            # a smaller corpus must not keep files from a bigger one

    start = time.perf_counter()
    tgn, pgn = [], []
    for index in range(args.games):
        seed = args.seed * 1_000_003 + index
        edition = "manual" if index % 2 == 0 else "readme"
        actions, state = random_tomis_game(seed, edition, args.max_actions)
        name = f"game-{index:05d}"
        (out / "tgn" / f"{name}.tgn").write_text(write_tgn(index, edition, actions))
        tgn.append({
            "file": f"tgn/{name}.tgn", "edition": edition, "actions": len(actions),
            "result": state.result if state.is_over else "*", "reason": state.reason,
        })
        if not args.no_chess:
            text, plies = random_chess_game(seed, len(actions), index)
            (out / "pgn" / f"{name}.pgn").write_text(text)
            pgn.append({"file": f"pgn/{name}.pgn", "moves": plies})
    elapsed = time.perf_counter() - start

    manifest = {
        "seed": args.seed, "games": args.games, "max_actions": args.max_actions,
        "writer": WRITER, "tgn": tgn, "pgn": pgn,
        "tomis_actions": sum(g["actions"] for g in tgn),
        "chess_moves": sum(g["moves"] for g in pgn),
    }
    (out / _common.MANIFEST).write_text(json.dumps(manifest, indent=1))

    decided = sum(1 for g in tgn if g["result"] != "*")
    print(f"corpus: {out}")
    print(f"writer: {WRITER}")
    print(f"tomis games: {len(tgn)}, actions: {manifest['tomis_actions']}, "
          f"mean {manifest['tomis_actions'] / max(1, len(tgn)):.1f} per game, "
          f"{decided} decided by the end rules, {len(tgn) - decided} capped at {args.max_actions}")
    if pgn:
        print(f"chess games: {len(pgn)}, moves: {manifest['chess_moves']}, "
              f"mean {manifest['chess_moves'] / max(1, len(pgn)):.1f} per game")
    print(f"generated in {elapsed:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
