"""Generate one big archive file of small games, for the streaming and linearity figures.

    python bench/gen_archive.py --games 100000 --out /tmp/tomis-archive-100000.tgn
    python bench/gen_archive.py --fill 16 --out /tmp/tomis-archive-16mib.tgn

A club archive is many short records in one file. This writes ``--games`` games (or as
many as fit in ``--fill`` MiB, just under the 16 MiB file limit for ``--fill 16``), each
a random legal game of ``--min-actions`` to ``--max-actions`` actions, with a small tag
header (White, Black, Round, Result, Rules) naming players of a 12-member club.

Generating 100,000 random games would take minutes, so a pool of ``--pool`` distinct games
is played once (seeded) and the archive cycles through it with fresh tags: every game is
valid, and ``dedupe`` finds the repeats. Each game's movetext is written by
``tomis.notation.record.write`` (canonical, with its Digest tag: the digest covers the actions, not
the player tags, so it stays true).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import _common

PLAYERS = ("Ana", "Bo", "Carmen", "Dan", "Elena", "Filip", "Gina", "Horia", "Ioana",
           "Jon", "Kira", "Luca")
MiB = 1024 * 1024


def pool_games(size: int, seed: int, lowest: int, highest: int) -> list[tuple[str, str, str]]:
    """``size`` random legal games as (edition, result, movetext with Digest tag)."""
    from tomis import rules
    from tomis.notation import record

    rng = random.Random(seed)
    games = []
    for index in range(size):
        edition = ("manual", "readme")[index % 2]
        length = rng.randint(lowest, highest)
        state = rules.new_game(edition)
        game = record.new_record(rules=edition)
        while not state.is_over and state.ply < length:
            action = rng.choice(rules.legal_actions(state))
            state, _ = rules.apply_unchecked(state, action)
            record.append(game, str(action))
        if not state.is_over:
            # A decided result for most undecided games: resignations and agreed draws (R23).
            record.finish(game, rng.choice(("1-0", "0-1", "1/2-1/2", "1-0", "0-1")))
        text = record.write(game)
        digest_line = next(line for line in text.splitlines() if line.startswith("[Digest"))
        movetext = text.split("\n\n", 1)[1]
        games.append((edition, game.result, f"{digest_line}\n\n{movetext}"))
    return games


def game_text(index: int, pool, rng: random.Random, lean: bool) -> str:
    edition, result, body = pool[index % len(pool)]
    white, black = rng.sample(PLAYERS, 2)
    if lean:       # no Round, no Digest: 100,000 games fit under the 16 MiB file limit
        return f'[White "{white}"]\n[Black "{black}"]\n[Rules "{edition}"]\n\n{body.split(chr(10) * 2, 1)[1]}'
    return (f'[White "{white}"]\n[Black "{black}"]\n[Round "{index + 1}"]\n'
            f'[Result "{result}"]\n[Rules "{edition}"]\n{body}')


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=None, help="number of games")
    parser.add_argument("--fill", type=float, default=None,
                        help="instead of --games: as many games as fit in this many MiB")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--pool", type=int, default=500, help="distinct games played (default 500)")
    parser.add_argument("--min-actions", type=int, default=10)
    parser.add_argument("--max-actions", type=int, default=24)
    parser.add_argument("--seed", type=int, default=20261123)
    parser.add_argument("--lean", action="store_true",
                        help="only White, Black and Rules tags (100,000 games of 4-10 actions fit in 16 MiB)")
    args = parser.parse_args(argv)
    if (args.games is None) == (args.fill is None):
        parser.error("give exactly one of --games and --fill")

    start = time.perf_counter()
    pool = pool_games(args.pool, args.seed, args.min_actions, args.max_actions)
    rng = random.Random(args.seed + 1)
    budget = int(args.fill * MiB) if args.fill is not None else None
    limit = args.games if args.games is not None else sys.maxsize
    written = size = actions = 0
    with open(args.out, "w", encoding="utf-8", newline="\n") as out:
        while written < limit:
            text = game_text(written, pool, rng, args.lean)
            encoded = len(text.encode("utf-8")) + (1 if written else 0)
            if budget is not None and size + encoded > budget:
                break
            out.write(("\n" if written else "") + text)
            size += encoded
            written += 1
    counts = [_count_actions(body) for _edition, _result, body in pool]
    actions = sum(counts[i % len(pool)] for i in range(written))
    print(f"machine: {_common.machine()}")
    print(f"archive: {args.out}, {written:,} games, {actions:,} actions, {size / MiB:.2f} MiB, "
          f"{len(pool)} distinct games, written in {time.perf_counter() - start:.1f} s")
    return 0


def _count_actions(body: str) -> int:
    """Actions in a canonical movetext: every word that is neither a number, tag, nor result."""
    movetext = body.split("\n\n", 1)[1]
    return sum(1 for word in movetext.split()
               if not word[0].isdigit() and word not in ("*",) and not word.startswith("{"))


if __name__ == "__main__":
    sys.exit(main())
