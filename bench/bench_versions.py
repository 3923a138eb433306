"""Before/after in one process: this checkout's tomis beside an older commit's, interleaved.

    python bench/bench_versions.py --before 75a5950 --corpus /tmp/tomis-bench-corpus

"No slower" claims on a machine shared with other work need more than two separate runs
of bench_validate.py, whose wall-clock figures move by 10-20 % with the load. Here the
package at ``--before`` (taken with ``git archive``, imported as ``tomis_before``) and the
working tree's ``tomis`` run in the same process, pass after pass, alternating which goes
first, and each figure is the fastest pass in *CPU time* (``time.process_time``), which
other processes disturb far less than wall time. Measured per version, over the first
``--games`` records of a gen_games.py corpus:

- ``record.read`` of every record (parse + replay + every check), µs per action;
- ``rules.apply`` over the same games' actions (the engine's per-action figure);
- ``rules.legal_actions`` on every 3rd position of those games, µs per position;
- start-up: ``tomis --help`` and ``tomis validate`` of the first record, each a fresh
  interpreter, the child's CPU time (user + system, from ``os.wait4``), fastest of
  ``--starts`` runs per version, alternated.

With ``--instructions N`` it also counts, under valgrind's callgrind, the instructions
each version executes for ``record.read`` and ``rules.apply`` over the first N games, one
child process per version and job with ``PYTHONHASHSEED=0``: the count of a run that
does the job once, less the count of the same run stopped just before it. A count does
not depend on the load of the machine, so it resolves the 1-2 % steps that CPU time on a
shared machine cannot (it is not time: a cache miss costs more than an instruction).

Ratios after/before below 1.00 are faster. Both versions must read the corpus without an
error (an untimed first pass checks it).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import _common


def import_before(rev: str, into: Path):
    """The ``tomis`` package of commit ``rev``: importable here as ``tomis_before``, and as
    ``tomis`` by a child given ``PYTHONPATH=into/child``."""
    archive = subprocess.run(["git", "-C", str(_common.REPO_DIR), "archive", "--format=tar", rev, "tomis"],
                             capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    (into / "tomis").rename(into / "tomis_before")
    (into / "child").mkdir()
    (into / "child" / "tomis").symlink_to(into / "tomis_before")
    sys.path.insert(0, str(into))
    return _before_module("notation.record", "record"), _before_module("rules.core", "rules")


def _before_module(path: str, flat_path: str):
    """A module of the older package, at its layered path or, in a commit from before the
    layers, at its flat one (the table of old paths answers only for ``tomis`` itself)."""
    try:
        return importlib.import_module(f"tomis_before.{path}")
    except ModuleNotFoundError:
        return importlib.import_module(f"tomis_before.{flat_path}")


def child_cpu(args: list[str], pythonpath: Path, cwd: Path) -> float:
    """CPU seconds (user + system) of one ``python -c 'tomis main' args`` child.

    ``cwd`` holds no ``tomis`` package: ``python -c`` puts the current folder first on
    the path, so started in the repository both versions would be this tree.
    """
    env = _common.user_env()
    env["PYTHONPATH"] = str(pythonpath)
    proc = subprocess.Popen([sys.executable, "-c", "from tomis.cli import main; main()", *args],
                            env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"tomis {' '.join(args)} exited {proc.returncode} with PYTHONPATH={pythonpath}")
    return usage.ru_utime + usage.ru_stime


# The child of --instructions: reads the files once (caches warm, every record checked),
# then, when told to, does its job once more. Run with a folder holding one tomis first
# on the path, and from a folder holding none.
_COUNTED_JOB = """
import sys
from tomis import record, rules
job, go, files = sys.argv[1], sys.argv[2] == "go", sys.argv[3:]
texts = [(name, open(name).read()) for name in files]
games = []
for name, text in texts:
    for checked in record.read(text, name):
        games.append((checked.game.start, [node.action for node in checked.game.nodes]))
if go and job == "record.read":
    for name, text in texts:
        record.read(text, name)
elif go:
    for state, actions in games:
        for action in actions:
            state, _report = rules.apply(state, action)
"""


def instructions(job: str, files: list[str], pythonpath: Path, cwd: Path) -> int:
    """Instructions (callgrind's ``I refs``) that ``job`` costs one version, once."""
    env = _common.user_env()
    env.update(PYTHONPATH=str(pythonpath), PYTHONHASHSEED="0")
    command = [sys.executable, "-c", _COUNTED_JOB, job]
    # Once without valgrind: the .pyc files are written, so neither counted run compiles.
    subprocess.run(command + ["warm", *files], env=env, cwd=cwd, check=True)
    counts = []
    for go in ("stop", "go"):
        proc = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                               *command, go, *files], env=env, cwd=cwd, capture_output=True, text=True)
        found = re.search(r"I\s+refs:\s+([\d,]+)", proc.stderr)
        if proc.returncode != 0 or found is None:
            sys.exit(f"callgrind failed ({proc.returncode}): {proc.stderr[-2000:]}")
        counts.append(int(found.group(1).replace(",", "")))
    return counts[1] - counts[0]


def load(record, texts):
    """Each game's start and actions, read once (untimed); exits if a record is refused."""
    games = []
    for path, text in texts:
        for checked in record.read(text, path):
            if checked.error is not None:
                sys.exit(f"{record.__name__} refused the corpus: {checked.error.located()}")
            games.append((checked.game.start, [node.action for node in checked.game.nodes],
                          checked.game.states[::3]))
    return games


def cpu(fn) -> float:
    gc.collect()
    start = time.process_time()
    fn()
    return time.process_time() - start


def passes(record, rules, texts, games):
    """The three timed jobs of one version, as zero-argument functions."""
    def read():
        for path, text in texts:
            record.read(text, path)

    def apply():
        gc.disable()            # as record.read does while replaying
        try:
            for state, actions, _positions in games:
                for action in actions:
                    state, _report = rules.apply(state, action)
        finally:
            gc.enable()

    def generate():
        for _start, _actions, positions in games:
            for state in positions:
                rules.legal_actions(state)
    return {"record.read": read, "rules.apply": apply, "legal_actions": generate}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="the commit to compare against")
    parser.add_argument("--corpus", type=Path, default=_common.DEFAULT_CORPUS)
    parser.add_argument("--games", type=int, default=100, help="use the first N games (default 100)")
    parser.add_argument("--passes", type=int, default=30, help="timed passes per version (default 30)")
    parser.add_argument("--starts", type=int, default=15, help="start-up runs per command and version (default 15)")
    parser.add_argument("--instructions", type=int, default=0, metavar="N",
                        help="also count instructions under callgrind over the first N games (needs valgrind)")
    args = parser.parse_args(argv)
    if args.instructions and shutil.which("valgrind") is None:
        parser.error("--instructions needs valgrind on the PATH")

    manifest = _common.load_manifest(args.corpus)
    entries = manifest["tgn"][:args.games]
    texts = [(str(args.corpus / e["file"]), (args.corpus / e["file"]).read_text()) for e in entries]
    actions = sum(e["actions"] for e in entries)

    from tomis import rules
    from tomis.notation import record
    with tempfile.TemporaryDirectory() as folder:
        old_record, old_rules = import_before(args.before, Path(folder))
        versions = {"before": (old_record, old_rules), "after": (record, rules)}
        jobs = {name: passes(rec, rul, texts, load(rec, texts)) for name, (rec, rul) in versions.items()}
        positions = sum(len(p) for _s, _a, p in load(record, texts))
        best = {(name, job): float("inf") for name in jobs for job in jobs[name]}
        for index in range(args.passes):
            order = ("before", "after") if index % 2 == 0 else ("after", "before")
            for job in jobs["after"]:
                for name in order:
                    best[name, job] = min(best[name, job], cpu(jobs[name][job]))
        paths = {"before": Path(folder) / "child", "after": _common.REPO_DIR}
        commands = {"tomis --help": ["--help"], "tomis validate one.tgn": ["validate", str(Path(texts[0][0]).resolve())]}
        starts = {(name, command): float("inf") for name in paths for command in commands}
        for index in range(args.starts):
            order = ("before", "after") if index % 2 == 0 else ("after", "before")
            for command, argv in commands.items():
                for name in order:
                    starts[name, command] = min(starts[name, command], child_cpu(argv, paths[name], Path(folder)))
        counted = [path for path, _text in texts[:args.instructions]]
        counts = {(name, job): instructions(job, counted, paths[name], Path(folder))
                  for job in ("record.read", "rules.apply") for name in paths} if counted else {}

    print(f"machine: {_common.machine()}")
    print(f"before: {args.before}; after: the working tree of {_common.REPO_DIR}")
    print(f"corpus: {args.corpus}, {len(entries)} games, {actions} actions, {positions} positions; "
          f"fastest of {args.passes} interleaved passes, CPU time")
    for job, per, unit in (("record.read", actions, "action"), ("rules.apply", actions, "action"),
                           ("legal_actions", positions, "position")):
        before, after = best["before", job] / per * 1e6, best["after", job] / per * 1e6
        print(f"{job}: before {before:.2f} us/{unit}, after {after:.2f} us/{unit}, "
              f"after/before {after / before:.3f}")
    for command in commands:
        before, after = starts["before", command] * 1e3, starts["after", command] * 1e3
        print(f"{command} (CPU): before {before:.1f} ms, after {after:.1f} ms, "
              f"after/before {after / before:.3f}")
    if counts:
        counted_actions = sum(e["actions"] for e in entries[:args.instructions])
        print(f"instructions (callgrind, PYTHONHASHSEED=0), first {args.instructions} games, "
              f"{counted_actions} actions:")
        for job in ("record.read", "rules.apply"):
            before, after = counts["before", job], counts["after", job]
            print(f"  {job}: before {before:,} ({before / counted_actions:,.0f} per action), "
                  f"after {after:,} ({after / counted_actions:,.0f} per action), "
                  f"after/before {after / before:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
