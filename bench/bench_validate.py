"""Validate throughput: parse + full replay + every check, Tomis beside python-chess.

    python bench/gen_games.py --games 2000 --out /tmp/tomis-bench-corpus
    python bench/bench_validate.py --corpus /tmp/tomis-bench-corpus

Measures, over the first ``--games`` games of a corpus made by gen_games.py:

- in-process: ``tomis.record.read(text, path)`` on each record (texts read into memory
  first, the lazily built parser warmed up on one record first): actions per second;
- engine only: ``tomis.rules.apply`` (checked) over the same games' action objects,
  rebuilt from their seeds: the floor that parsing and record checks add to;
- the CLI: ``tomis validate`` on all the files in one subprocess, wall time including
  interpreter start: actions per second;
- python-chess: ``chess.pgn.read_game`` on each PGN text plus a replay
  (``board.push`` of every mainline move): moves per second.

and prints the ratio Tomis actions/s / python-chess moves/s. Target >= 1.5 (stretch 2.0).
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

import _common
from gen_games import random_tomis_game
from tomis import rules


def bench_record_read(corpus: Path, entries, repeat: int) -> float | None:
    """Seconds for record.read over every record (best of ``repeat``), or None if missing."""
    if not _common.record_available():
        print("tomis in-process: skipped (tomis.record.read not available yet)")
        return None
    from tomis import record
    texts = [(str(corpus / e["file"]), (corpus / e["file"]).read_text()) for e in entries]
    record.read(texts[0][1], texts[0][0])          # builds the parser once, outside the timing
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for path, text in texts:
            record.read(text, path)
        best = min(best, time.perf_counter() - start)
    return best


def bench_engine_replay(manifest: dict, entries, repeat: int) -> float:
    """Seconds for checked apply() over pre-built actions: the engine's share of a validate."""
    games = []
    for index, entry in enumerate(entries):
        actions, _ = random_tomis_game(manifest["seed"] * 1_000_003 + index, entry["edition"],
                                       manifest["max_actions"])
        assert len(actions) == entry["actions"], "corpus and generator disagree; regenerate it"
        games.append((entry["edition"], actions))
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for edition, actions in games:
            state = rules.new_game(edition)
            for action in actions:
                state, _ = rules.apply(state, action)
        best = min(best, time.perf_counter() - start)
    return best


def bench_cli(corpus: Path, entries) -> tuple[float, int] | None:
    if not _common.cli_available():
        print("tomis validate (CLI): skipped (tomis.cli not available yet)")
        return None
    files = [str(corpus / e["file"]) for e in entries]
    seconds, proc = _common.wall(_common.tomis_command() + ["validate", *files])
    if proc.returncode != 0:
        print(f"tomis validate exited {proc.returncode}: {(proc.stderr or proc.stdout)[:2000]}")
    return seconds, proc.returncode


def bench_chess(corpus: Path, entries, repeat: int) -> tuple[float, int]:
    import chess.pgn
    texts = [(corpus / e["file"]).read_text() for e in entries]
    best = float("inf")
    moves = 0
    for _ in range(repeat):
        moves = 0
        start = time.perf_counter()
        for text in texts:
            game = chess.pgn.read_game(io.StringIO(text))
            board = game.board()
            for move in game.mainline_moves():
                board.push(move)
                moves += 1
        best = min(best, time.perf_counter() - start)
    return best, moves


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=_common.DEFAULT_CORPUS)
    parser.add_argument("--games", type=int, default=None, help="use the first N games (default all)")
    parser.add_argument("--repeat", type=int, default=1, help="in-process passes; the fastest counts")
    parser.add_argument("--no-cli", action="store_true")
    parser.add_argument("--no-engine", action="store_true")
    args = parser.parse_args(argv)

    manifest = _common.load_manifest(args.corpus)
    tgn = manifest["tgn"][: args.games]
    pgn = manifest["pgn"][: args.games]
    actions = sum(e["actions"] for e in tgn)
    print(f"machine: {_common.machine()}")
    print(f"corpus: {args.corpus} ({manifest['writer']}), {len(tgn)} Tomis games, {actions} actions")
    status = 0

    t_rate = None
    seconds = bench_record_read(args.corpus, tgn, args.repeat)
    if seconds is not None:
        t_rate = _common.rate(actions, seconds)
        print(f"tomis record.read in-process: {seconds:.2f} s, {_common.fmt(t_rate)} actions/s, "
              f"{1e6 * seconds / max(1, actions):.1f} us/action")
    if not args.no_engine:
        seconds = bench_engine_replay(manifest, tgn, args.repeat)
        print(f"tomis engine only (rules.apply): {seconds:.2f} s, "
              f"{_common.fmt(_common.rate(actions, seconds))} actions/s, "
              f"{1e6 * seconds / max(1, actions):.1f} us/action")
    if not args.no_cli:
        result = bench_cli(args.corpus, tgn)
        if result is not None:
            seconds, code = result
            status = status or (code != 0)
            print(f"tomis validate (CLI, {len(tgn)} files): {seconds:.2f} s wall, exit {code}, "
                  f"{_common.fmt(_common.rate(actions, seconds))} actions/s")

    if pgn:
        seconds, moves = bench_chess(args.corpus, pgn, args.repeat)
        c_rate = _common.rate(moves, seconds)
        print(f"python-chess read_game + replay: {len(pgn)} games, {moves} moves, {seconds:.2f} s, "
              f"{_common.fmt(c_rate)} moves/s, {1e6 * seconds / max(1, moves):.1f} us/move")
        if t_rate is not None:
            print(f"ratio tomis actions/s / python-chess moves/s: {t_rate / c_rate:.2f} "
                  f"(target >= 1.5, stretch 2.0)")
    return status


if __name__ == "__main__":
    sys.exit(main())
