"""Validate throughput: parse + full replay + every check, Tomis beside python-chess.

    python bench/gen_games.py --games 2000 --out /tmp/tomis-bench-corpus
    python bench/bench_validate.py --corpus /tmp/tomis-bench-corpus

Measures, over the first ``--games`` games of a corpus made by gen_games.py:

- in-process: ``tomis.notation.record.read(text, path)`` on each record (texts read into memory
  first; one untimed pass builds the lazy parser and proves every record valid):
  actions per second;
- engine only: ``tomis.rules.apply`` (checked) over the same games' action objects:
  the floor that parsing and record checks add to;
- the CLI: ``tomis validate -j 1`` and ``-j 2`` on all the files, wall time including
  interpreter start, each beside python-chess reading and replaying the same games' PGN
  files in one process and in two (the files split in halves, both started at once),
  also wall time from start: runs alternate Tomis and python-chess ``--cli-repeat``
  times, and each ratio (Tomis actions/s over python-chess moves/s) is the median of
  the runs' ratios; the same again in CPU time (user + system of every process a run
  started, from the children's rusage), which waiting for a core on a shared machine
  leaves out; with two processes it is the work of both, not the time to the answer;
- python-chess: ``chess.pgn.read_game`` on each PGN text plus a replay
  (``board.push`` of every mainline move): moves per second.

and prints the ratio Tomis actions/s / python-chess moves/s. Targets (issue 28): in-process
and ``-j 1`` >= 1.6; ``-j 2`` against python-chess on two processes >= 1.5.
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import _common

# tomis and the game generator are imported where used: the python-chess workers run this
# file too, and should start as a python-chess program would, without them.


def load_record_games(corpus: Path, entries):
    """Read every record once, untimed: this builds the parser, proves the corpus valid,
    and keeps each game's edition and actions for the engine-only replay."""
    from tomis.notation import record
    texts = [(str(corpus / e["file"]), (corpus / e["file"]).read_text()) for e in entries]
    games, errors = [], []
    for path, text in texts:
        for checked in record.read(text, path):
            if checked.error is not None:
                errors.append(checked.error.located())
            if checked.game is not None:
                games.append((checked.game.start, [node.action for node in checked.game.nodes]))
    return texts, games, errors


def clocks() -> tuple[float, float]:
    """Wall and CPU time now. In-process figures are given in both: on a machine shared
    with other work the wall time of a pass also holds the time this process waited for a
    core, which CPU time (``time.process_time``) leaves out."""
    return time.perf_counter(), time.process_time()


def since(start: tuple[float, float]) -> tuple[float, float]:
    wall, cpu = clocks()
    return wall - start[0], cpu - start[1]


def time_record_read(texts) -> tuple[float, float]:
    from tomis.notation import record
    start = clocks()
    for path, text in texts:
        record.read(text, path)
    return since(start)


def generated_games(manifest: dict, entries):
    """Each game's start and actions rebuilt from its seed (when tomis.notation.record is missing)."""
    from gen_games import random_tomis_game
    from tomis import rules
    games = []
    for index, entry in enumerate(entries):
        actions, _ = random_tomis_game(manifest["seed"] * 1_000_003 + index, entry["edition"],
                                       manifest["max_actions"])
        assert len(actions) == entry["actions"], "corpus and generator disagree; regenerate it"
        games.append((rules.new_game(entry["edition"]), actions))
    return games


def time_engine_replay(games) -> tuple[float, float]:
    """Checked apply() over pre-built actions: the engine's share of a validate."""
    from tomis import rules
    start = clocks()
    for state, actions in games:
        for action in actions:
            state, _ = rules.apply(state, action)
    return since(start)


def chess_worker(files: list[str]) -> int:
    """The python-chess side of the CLI comparison, run as its own process."""
    texts = [Path(name).read_text() for name in files]
    time_chess(texts)
    return 0


def children_cpu() -> float:
    """CPU seconds (user + system) of every finished child process so far, and of their
    own children once they waited for them (``RUSAGE_CHILDREN``)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def wall_chess(files: list[str], processes: int) -> tuple[float, float]:
    """Wall and CPU seconds for ``processes`` python-chess workers, started together, to
    read and replay ``files`` between them (CPU: all the workers together)."""
    share = (len(files) + processes - 1) // processes
    cpu = children_cpu()
    start = time.perf_counter()
    workers = [subprocess.Popen([sys.executable, __file__, "--chess-worker", *files[i:i + share]],
                                env=_common.user_env())     # bytecode caching as for tomis
               for i in range(0, len(files), share)]
    codes = [worker.wait() for worker in workers]
    seconds = time.perf_counter() - start
    if any(codes):
        raise SystemExit(f"a python-chess worker failed: exit codes {codes}")
    return seconds, children_cpu() - cpu


def bench_cli(corpus: Path, tgn, pgn, actions: int, moves: int, repeat: int) -> int:
    """Section 'the CLI': -j 1 and -j 2 beside python-chess on one and two processes."""
    if not _common.cli_available():
        print("tomis validate (CLI): skipped (tomis.cli not available yet)")
        return 0
    files = [str(corpus / e["file"]) for e in tgn]
    pgn_files = [str(corpus / e["file"]) for e in pgn]
    # One untimed run first: it writes the .pyc files a changed checkout lacks, so the
    # first timed run does not pay for compiling tomis.
    _common.wall(_common.tomis_command() + ["validate", "-q", files[0]])
    wall_chess(pgn_files[:1], 1)
    for jobs in (1, 2):
        runs = []           # (tomis wall, tomis CPU, python-chess wall, python-chess CPU)
        for _ in range(repeat):
            cpu = children_cpu()
            seconds, proc = _common.wall(_common.tomis_command() + ["validate", "-q", "-j", str(jobs), *files])
            tomis_cpu = children_cpu() - cpu
            if proc.returncode != 0:
                # A run that stopped early read less than the count the ratio divides by.
                print(f"tomis validate -j {jobs} exited {proc.returncode}, so no ratio: "
                      f"{(proc.stderr or proc.stdout)[:2000]}")
                return 1
            runs.append((seconds, tomis_cpu, *wall_chess(pgn_files, jobs)))
        processes = f"{jobs} process{'es' if jobs > 1 else ''}"
        for clock, column in (("wall", 0), ("CPU", 1)):
            tomis_times = [run[column] for run in runs]
            chess_times = [run[column + 2] for run in runs]
            ratios = [(actions / t) / (moves / c) for t, c in zip(tomis_times, chess_times)]
            print(f"tomis validate -j {jobs} (CLI, {len(files)} files, {clock}): runs "
                  + ", ".join(f"{t:.2f}" for t in tomis_times) + " s; "
                  f"python-chess on {processes}: runs "
                  + ", ".join(f"{t:.2f}" for t in chess_times) + " s")
            print(f"  ratio tomis actions/s / python-chess moves/s, -j {jobs}, {clock}: runs "
                  + ", ".join(f"{r:.2f}" for r in ratios)
                  + f"; median {statistics.median(ratios):.2f} (target >= {1.6 if jobs == 1 else 1.5})")
    return 0


def time_chess(texts) -> tuple[tuple[float, float], int]:
    import chess.pgn
    moves = 0
    start = clocks()
    for text in texts:
        game = chess.pgn.read_game(io.StringIO(text))
        board = game.board()
        for move in game.mainline_moves():
            board.push(move)
            moves += 1
    return since(start), moves


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=_common.DEFAULT_CORPUS)
    parser.add_argument("--games", type=int, default=None, help="use the first N games (default all)")
    parser.add_argument("--repeat", type=int, default=2, help="in-process passes; the fastest counts")
    parser.add_argument("--no-cli", action="store_true")
    parser.add_argument("--no-engine", action="store_true")
    parser.add_argument("--cli-repeat", type=int, default=3,
                        help="runs of each CLI pair (Tomis, python-chess); ratios' median counts")
    parser.add_argument("--chess-worker", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.chess_worker:
        return chess_worker(args.chess_worker)

    manifest = _common.load_manifest(args.corpus)
    tgn = manifest["tgn"][: args.games]
    pgn = manifest["pgn"][: args.games]
    actions = sum(e["actions"] for e in tgn)
    print(f"machine: {_common.machine()}")
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print(f"corpus: {args.corpus} ({manifest['writer']}), {len(tgn)} Tomis games, {actions} actions")
    status = 0

    have_record = _common.record_available()
    if have_record:
        texts, games, errors = load_record_games(args.corpus, tgn)
        if errors:
            print(f"{len(errors)} records did not validate, first: {errors[0]}")
            status = 1
    else:
        print("tomis in-process: skipped (tomis.notation.record.read not available yet)")
        texts, games = [], generated_games(manifest, tgn) if not args.no_engine else []
    pgn_texts = [(args.corpus / e["file"]).read_text() for e in pgn]

    # Passes alternate between the readers so that load from other processes on this
    # shared machine falls on both alike; the fastest pass of each counts, in wall time
    # and (separately) in CPU time.
    best = {name: [float("inf"), float("inf")] for name in ("record", "engine", "chess")}
    moves = 0

    def keep(name, times):
        best[name] = [min(old, new) for old, new in zip(best[name], times)]

    for _ in range(args.repeat):
        if have_record:
            keep("record", time_record_read(texts))
        if pgn_texts:
            times, moves = time_chess(pgn_texts)
            keep("chess", times)
        if games and not args.no_engine:
            keep("engine", time_engine_replay(games))

    def per_action(name, count):
        wall, cpu = best[name]
        return (f"{wall:.2f} s wall, {1e6 * wall / max(1, count):.1f} us/action; "
                f"{cpu:.2f} s CPU, {1e6 * cpu / max(1, count):.1f} us/action")

    if have_record:
        print(f"tomis record.read in-process: {per_action('record', actions)}")
    if games and not args.no_engine:
        print(f"tomis engine only (rules.apply): {per_action('engine', actions)}")
    if pgn_texts:
        print(f"python-chess read_game + replay: {len(pgn)} games, {moves} moves, "
              f"{per_action('chess', moves).replace('action', 'move')}")
        if have_record:
            ratios = [(actions / t) / (moves / c) for t, c in zip(best["record"], best["chess"])]
            print(f"ratio tomis actions/s / python-chess moves/s: {ratios[0]:.2f} wall, "
                  f"{ratios[1]:.2f} CPU (target >= 1.6)")
    if not args.no_cli:
        status = bench_cli(args.corpus, tgn, pgn, actions, moves or sum(e["moves"] for e in pgn),
                           args.cli_repeat) or status
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return status


if __name__ == "__main__":
    sys.exit(main())
