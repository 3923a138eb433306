"""Peak memory of validating a corpus, for two corpus sizes: it must not grow with files.

    python bench/bench_memory.py --corpus /tmp/tomis-bench-corpus --sizes 1000 2000

For each size N (the first N records of a gen_games.py corpus):

- ``tomis validate`` on the N files in a fresh process: its peak resident set
  (``ru_maxrss`` from ``os.wait4`` on that very child, so no other child is counted);
- in-process, in another fresh interpreter: ``tomis.notation.record.read`` on each file in turn,
  keeping nothing, with ``tracemalloc``'s peak of Python allocations and ``ru_maxrss``.

The baseline is the peak RSS of an interpreter that only imports ``tomis.cli``.
Target (issue #6): < 100 MiB for 2,000 games.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import _common

MiB = 1024 * 1024

# Runs in a fresh interpreter: read each record in turn, keep nothing, report the peaks.
IN_PROCESS = r'''
import json, resource, sys, tracemalloc
from pathlib import Path
from tomis.notation import record
corpus, count, trace = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"
entries = json.loads((corpus / "manifest.json").read_text())["tgn"][:count]
if trace:
    tracemalloc.start()
for entry in entries:
    path = corpus / entry["file"]
    record.read(path.read_text(), str(path))
peak = tracemalloc.get_traced_memory()[1] if trace else -1
print(peak, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
'''


def peak_rss(cmd: list[str]) -> tuple[int, int, str]:
    """Run ``cmd``; exit code, its own peak RSS in bytes (Linux gives KiB), its output."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    chunks = []
    while True:                       # drain output without letting Popen reap the child
        chunk = proc.stdout.read(65536)
        if not chunk:
            break
        chunks.append(chunk)
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, usage.ru_maxrss * 1024, b"".join(chunks).decode(errors="replace")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=_common.DEFAULT_CORPUS)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000])
    parser.add_argument("--no-tracemalloc", action="store_true",
                        help="in-process run without tracemalloc (faster; RSS only)")
    args = parser.parse_args(argv)

    manifest = _common.load_manifest(args.corpus)
    available = len(manifest["tgn"])
    print(f"machine: {_common.machine()}")
    status = 0

    if not _common.cli_available():
        print("tomis validate: skipped (tomis.cli not available yet)")
    else:
        code, base, _ = peak_rss([sys.executable, "-c", "import tomis.cli"])
        print(f"baseline (import tomis.cli): peak RSS {base / MiB:.1f} MiB")
        peaks = []
        for size in args.sizes:
            files = [str(args.corpus / e["file"]) for e in manifest["tgn"][:size]]
            code, rss, out = peak_rss(_common.tomis_command() + ["validate", *files])
            note = "" if code == 0 else f"  (exit {code}: {out.strip()[:200]})"
            status = status or code
            peaks.append((len(files), rss))
            print(f"tomis validate {len(files):>5} files: peak RSS {rss / MiB:6.1f} MiB{note}")
        if len(peaks) >= 2:
            (n0, r0), (n1, r1) = peaks[0], peaks[-1]
            print(f"growth {n0} -> {n1} files: {(r1 - r0) / MiB:+.1f} MiB "
                  f"({(r1 - r0) / MiB / max(1, n1 - n0) * 1000:+.2f} MiB per 1000 files); target < 100 MiB")

    if not _common.record_available():
        print("in-process record.read: skipped (tomis.notation.record not available yet)")
    else:
        for size in args.sizes:
            count = min(size, available)
            code, rss, out = peak_rss([
                sys.executable, "-c", IN_PROCESS, str(args.corpus), str(count),
                "0" if args.no_tracemalloc else "1",
            ])
            if code != 0:
                print(f"in-process record.read {count}: exit {code}: {out.strip()[-500:]}")
                status = status or code
                continue
            traced, _self_rss = (int(x) for x in out.split()[-2:])
            traced_text = "" if traced < 0 else f"tracemalloc peak {traced / MiB:6.1f} MiB, "
            print(f"in-process record.read {count:>5} files: {traced_text}peak RSS {rss / MiB:6.1f} MiB")
    return status


if __name__ == "__main__":
    sys.exit(main())
