"""Archives at club scale: validate on every core, peak memory of one big file, linearity.

    python bench/gen_games.py --games 2000 --out /tmp/tomis-bench-corpus
    python bench/bench_archive.py --corpus /tmp/tomis-bench-corpus --jobs 2

Three figures, in one run:

1. **Throughput**: ``tomis validate -j JOBS`` on the corpus's Tomis files (one subprocess,
   wall time including start-up and the worker pool), in actions per second, beside
   python-chess reading and replaying the corpus's PGN files in this process
   (``chess.pgn.read_game`` + ``board.push``, as bench_validate.py), in moves per second.
   Also ``-j 1`` for scale. Target: ``-j 2`` at least 2.5 times python-chess.
2. **Peak memory** of validating a 16 MiB file of small games (bench/gen_archive.py
   ``--fill 16``): the command's own peak RSS with ``-j 1``, and with ``-j JOBS`` the
   parent's and the largest worker's. Target < 100 MiB.
3. **Linearity**: one file of 1,000, 10,000 and 100,000 small games (``--lean``), wall
   time and microseconds per game with ``-j 1`` and ``-j JOBS``; linear if the time per
   game stays level.

Timings on a shared machine move with its load: the load average is printed before and
after, and each timed command runs ``--repeat`` times, the fastest counting.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import _common

MiB = 1024 * 1024
BENCH = Path(__file__).resolve().parent

# Runs the archive validate command, then prints its own and its workers' peak RSS (KiB on
# Linux) and CPU seconds on stderr: the workers are joined before the command returns, so
# RUSAGE_CHILDREN holds the largest peak and the sum of their CPU time.
PEAKS = r'''
import resource, sys
from tomis.cli import main
try:
    main(["validate", *sys.argv[1:]])
except SystemExit as exit:
    code = exit.code
me, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
sys.stderr.write(f"PEAKS {me.ru_maxrss} {workers.ru_maxrss}\n")
sys.stderr.write(f"CPU {me.ru_utime + me.ru_stime} {workers.ru_utime + workers.ru_stime}\n")
sys.exit(code)
'''


def validate_command() -> list[str]:
    return _common.tomis_command() + ["validate"]


def fastest(cmd: list[str], repeat: int) -> tuple[float, subprocess.CompletedProcess, float]:
    """The fastest wall time of ``repeat`` runs, the last process, and the CPU seconds
    (user + system, the command and its workers) of the fastest run."""
    import resource

    best, proc, cpu = float("inf"), None, 0.0
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        seconds, proc = _common.wall(cmd)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if seconds < best:
            best = seconds
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return best, proc, cpu


def chess_pass(texts) -> tuple[float, int, float]:
    """One pass of python-chess over ``texts`` (bench_validate's loop): seconds, moves, CPU s."""
    from bench_validate import time_chess

    (seconds, cpu), moves = time_chess(texts)      # its wall and CPU time, measured together
    return seconds, moves, cpu


def throughput(args, validate) -> int:
    manifest = _common.load_manifest(args.corpus)
    tgn = manifest["tgn"][: args.games]
    pgn = manifest["pgn"][: args.games]
    actions = sum(e["actions"] for e in tgn)
    files = [str(args.corpus / e["file"]) for e in tgn]
    texts = [(args.corpus / e["file"]).read_text() for e in pgn]
    print(f"corpus: {args.corpus}, {len(tgn)} Tomis games ({actions:,} actions), {len(pgn)} chess games")
    # Rounds alternate python-chess and each -j, so that load from other processes on a
    # shared machine falls on all alike; the fastest of each counts.
    chess = (float("inf"), 0, 0.0)
    runs = {jobs: (float("inf"), None, 0.0) for jobs in sorted({1, args.jobs})}
    for _ in range(args.repeat):
        chess = min(chess, chess_pass(texts))
        for jobs in runs:
            runs[jobs] = min(runs[jobs], fastest(validate + ["-q", "-j", str(jobs), *files], 1),
                             key=lambda run: run[0])
    c_rate = _common.rate(chess[1], chess[0])
    print(f"python-chess read_game + replay, 1 process: {chess[1]:,} moves, {_common.fmt(c_rate)} moves/s "
          f"({chess[2]:.2f} CPU s)")
    status = 0
    for jobs in runs:     # the command's own CPU split, start-up not counted
        _code, _me, _workers, err = peaks(["-q", "-j", str(jobs), *files])
        line = next((l for l in err.splitlines() if l.startswith("CPU ")), "CPU 0 0")
        parent, workers = (float(x) for x in line.split()[1:])
        print(f"validate -j {jobs}, CPU inside the command: this process {parent:.2f} s, "
              f"workers {workers:.2f} s")
    for jobs, (seconds, proc, cpu) in runs.items():
        if proc.returncode != 0:
            print(f"validate -j {jobs} exited {proc.returncode}: {proc.stderr[:500]}")
            status = 1
        t_rate = _common.rate(actions, seconds)
        print(f"tomis validate -j {jobs} ({len(files)} files, wall): {seconds:.2f} s, "
              f"{_common.fmt(t_rate)} actions/s ({cpu:.2f} CPU s), ratio to python-chess {t_rate / c_rate:.2f}"
              + (" (target >= 2.5)" if jobs == args.jobs and jobs > 1 else ""))
    return status


def make_archive(path: Path, *extra: str) -> None:
    subprocess.run([sys.executable, str(BENCH / "gen_archive.py"), "--out", str(path), *extra],
                   check=True, capture_output=True)


def peaks(validate_args: list[str]) -> tuple[int, int, int, str]:
    """Exit code, own peak RSS and largest worker's (bytes), and stderr of one run."""
    proc = subprocess.run([sys.executable, "-c", PEAKS, *validate_args], capture_output=True,
                          text=True, env=_common.user_env())
    line = next((l for l in proc.stderr.splitlines() if l.startswith("PEAKS ")), "PEAKS 0 0")
    me, workers = (int(x) * 1024 for x in line.split()[1:])
    return proc.returncode, me, workers, proc.stderr


def memory(args, work: Path) -> int:
    big = work / f"{args.memory_mib:g}mib.tgn"
    make_archive(big, "--fill", str(args.memory_mib))
    games = sum(1 for line in big.open(encoding="utf-8") if line.startswith("[White "))
    print(f"archive of small games: {big.stat().st_size / MiB:.2f} MiB, {games:,} games")
    _code, base, _w, _err = peaks(["--help"])
    print(f"baseline (the command's --help): peak RSS {base / MiB:.1f} MiB")
    status = 0
    for jobs in sorted({1, args.jobs}):
        code, me, workers, err = peaks(["-q", "-j", str(jobs), str(big)])
        status = status or code
        note = "" if code == 0 else f" (exit {code}: {err.strip()[-300:]})"
        worker_text = f", largest worker {workers / MiB:.1f} MiB" if jobs > 1 else ""
        print(f"validate -j {jobs} on {args.memory_mib:g} MiB: peak RSS {me / MiB:.1f} MiB{worker_text} "
              f"(target < 100 MiB){note}")
    return status


def linearity(args, work: Path) -> int:
    status = 0
    rows = []
    for count in args.sizes:
        path = work / f"lean-{count}.tgn"
        make_archive(path, "--games", str(count), "--lean", "--min-actions", "4", "--max-actions", "10")
        for jobs in sorted({1, args.jobs}):
            seconds, proc, _cpu = fastest(args.validate + ["-q", "-j", str(jobs), str(path)], args.repeat)
            status = status or proc.returncode
            rows.append((count, jobs, seconds))
            print(f"{count:>7,} games ({path.stat().st_size / MiB:5.2f} MiB), -j {jobs}: {seconds:6.2f} s, "
                  f"{1e6 * seconds / count:6.1f} us/game")
    for jobs in sorted({1, args.jobs}):
        mine = [(c, s) for c, j, s in rows if j == jobs]
        if len(mine) >= 2:
            (c0, s0), (c1, s1) = mine[0], mine[-1]
            print(f"-j {jobs}: {c1 // c0}x the games took {s1 / s0:.1f}x the time "
                  f"(per game {1e6 * s0 / c0:.0f} -> {1e6 * s1 / c1:.0f} us; start-up weighs on the smallest)")
    return status


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=_common.DEFAULT_CORPUS)
    parser.add_argument("--games", type=int, default=None, help="the first N corpus games (default all)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1, help="runs of each timed command; the fastest counts")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--memory-mib", type=float, default=16, help="size of the memory test's archive")
    parser.add_argument("--skip", nargs="*", default=[], choices=["throughput", "memory", "linearity"])
    args = parser.parse_args(argv)
    args.validate = validate_command()

    print(f"machine: {_common.machine()}")
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print(f"command: {' '.join(args.validate[:3])} ...")
    status = 0
    with tempfile.TemporaryDirectory(prefix="tomis-bench-archive-") as folder:
        work = Path(folder)
        if "throughput" not in args.skip:
            status = throughput(args, args.validate) or status
        if "memory" not in args.skip:
            status = memory(args, work) or status
        if "linearity" not in args.skip:
            status = linearity(args, work) or status
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return status


if __name__ == "__main__":
    sys.exit(main())
