"""Start-up cost of the CLI: `tomis --help`, `validate` one file, `move --dry-run`.

    python bench/bench_startup.py --repeat 15 [--before REV]

Each command runs ``--repeat`` times in a fresh interpreter, the commands taking turns
round by round (after one untimed round), so that a busy machine weighs on all of them
alike; the median wall time and the median CPU time (user + system, the steadier figure
on a busy machine) are reported beside two baselines: ``python -c pass`` and the
``--help`` of a bare click app with one command (written to a temporary file). With
``--before REV``, ``validate`` of commit REV's package (taken with ``git archive``) and of
this tree, both started by ``python -c``, take their turns in the same rounds.

Targets (issues #6 and #24): ``tomis --help`` <= 1.2x bare click --help;
``tomis validate <one file>`` <= 1.3x bare click --help.

The file validated is the first ``samples/*.tgn`` if there is one, else a random game of
``--actions`` actions written for the purpose; ``move --dry-run`` runs on a temporary
copy of it with a legal next action. ``--importtime`` adds the slowest imports of
``tomis.cli`` (``python -X importtime``).
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import _common
from gen_games import write_tgn
from tomis import rules

BARE_CLICK_APP = '''\
import click


@click.group()
def main():
    """A bare click app: the start-up floor for any click CLI."""


@main.command()
@click.argument("files", nargs=-1, type=click.Path())
def validate(files):
    """Do nothing with FILES."""


if __name__ == "__main__":
    main()
'''


def sample_game(directory: Path, actions: int, seed: int) -> tuple[Path, str]:
    """A record file of an undecided game and a legal next action for it."""
    rng = random.Random(seed)
    while True:                                   # retry if a random game ends early
        state = rules.new_game("manual")
        played = []
        while not state.is_over and state.ply < actions:
            action = rng.choice(rules.legal_actions(state))
            state, _ = rules.apply_unchecked(state, action)
            played.append(action)
        if not state.is_over:
            break
    path = directory / "startup.tgn"
    path.write_text(write_tgn(0, "manual", played))
    return path, str(rng.choice(rules.legal_actions(state)))


def next_action_for(path: Path) -> str | None:
    """A legal next action for a sample record, found by reading it with tomis.notation.record."""
    if not _common.record_available():
        return None
    from tomis.notation import record
    games = record.read(path.read_text(), str(path))
    final = getattr(games[-1], "state", None) or getattr(games[-1], "final", None)
    if final is None or final.is_over:
        return None
    return str(rules.legal_actions(final)[0])


def import_times(top: int) -> list[tuple[int, str]]:
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", "import tomis.cli"],
                          capture_output=True, text=True, env=_common.user_env())
    rows = []
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _self, cumulative, name = line[len("import time:"):].split("|")
        rows.append((int(cumulative), name.rstrip()))   # indentation shows nesting
    rows.sort(reverse=True)
    return rows[:top]


def run_once(cmd: list[str], pythonpath: Path | None, cwd: Path) -> tuple[float, float | None, int, str]:
    """Wall seconds, CPU seconds (None without ``resource``), exit code and stderr of one run.

    ``cwd`` is a folder without a ``tomis`` package in it: ``python -c`` puts the current
    folder first on the path, so run from the repository it would import this tree's
    package whatever PYTHONPATH names.
    """
    env = _common.user_env()
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    try:
        import resource
    except ImportError:                 # not POSIX: wall time only
        resource = None
    before = resource.getrusage(resource.RUSAGE_CHILDREN) if resource else None
    elapsed, proc = _common.wall(cmd, env=env, cwd=cwd)
    cpu = None
    if resource:
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return elapsed, cpu, proc.returncode, (proc.stderr or proc.stdout).strip()


def measure_interleaved(commands: dict, repeat: int, cwd: Path) -> tuple[dict, dict]:
    """Median wall and CPU seconds of each command, run in turns: every round runs each
    command once (after one untimed round that fills the file cache and writes .pyc
    files), starting one further along each time, so a change in the machine's load
    falls on all of them alike instead of on whichever ran last."""
    labels = list(commands)
    for label in labels:
        _, _, code, err = run_once(*commands[label], cwd)
        if code != 0:
            print(f"{label}: exit {code}: {err[:200]}")
    walls = {label: [] for label in labels}
    cpus = {label: [] for label in labels}
    for round_number in range(repeat):
        turn = labels[round_number % len(labels):] + labels[:round_number % len(labels)]
        for label in turn:
            elapsed, cpu, _, _ = run_once(*commands[label], cwd)
            walls[label].append(elapsed)
            if cpu is not None:
                cpus[label].append(cpu)
    return ({label: statistics.median(times) for label, times in walls.items()},
            {label: statistics.median(times) for label, times in cpus.items() if times})


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--actions", type=int, default=60, help="length of the generated game")
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--importtime", action="store_true")
    parser.add_argument("--before", metavar="REV",
                        help="also time `validate` of commit REV's package, in the same rounds")
    args = parser.parse_args(argv)

    print(f"machine: {_common.machine()}")
    with tempfile.TemporaryDirectory(prefix="tomis-startup-") as tmp:
        tmp = Path(tmp)
        bare = tmp / "bare_click.py"
        bare.write_text(BARE_CLICK_APP)

        samples = sorted((_common.REPO_DIR / "samples").glob("*.tgn"))
        action = next_action_for(samples[0]) if samples else None
        if samples and action is not None:
            one = samples[0]
        else:
            one, action = sample_game(tmp, args.actions, args.seed)
        copy = tmp / "move-copy.tgn"
        shutil.copyfile(one, copy)

        commands = {"python -c pass": ([sys.executable, "-c", "pass"], None),
                    "bare click --help": ([sys.executable, str(bare), "--help"], None)}
        if _common.cli_available():
            tomis = _common.tomis_command()
            commands["tomis --help"] = (tomis + ["--help"], None)
            commands[f"tomis validate {one.name}"] = (tomis + ["validate", str(one)], None)
            commands[f"tomis move --dry-run {action}"] = (
                tomis + ["move", str(copy), action, "--dry-run"], None)
            if args.before:
                from bench_versions import import_before
                import_before(args.before, tmp / "before")
                child = tmp / "before" / "child"
                run_main = [sys.executable, "-c", "from tomis.cli import main; main()"]
                # Both versions started the same way, so the console script's own lines
                # do not count for one side only.
                commands[f"this tree: validate {one.name}"] = (run_main + ["validate", str(one)], None)
                commands[f"{args.before}: validate {one.name}"] = (
                    run_main + ["validate", str(one)], child)
        else:
            print("tomis CLI: skipped (tomis.cli not available yet)")
        timings, cpu_times = measure_interleaved(commands, args.repeat, tmp)
        for label, seconds in timings.items():
            cpu = cpu_times.get(label)
            cpu_text = "" if cpu is None else f"   cpu {1000 * cpu:7.1f} ms"
            print(f"{label:<38} {1000 * seconds:8.1f} ms{cpu_text}")

    base = timings["bare click --help"]
    floor = timings["python -c pass"]
    for label, seconds in timings.items():
        if label not in ("python -c pass", "bare click --help"):
            target = ""
            if label == "tomis --help":
                target = " (target <= 1.2)"
            elif "validate" in label:
                target = " (target <= 1.3)"
            print(f"ratio {label} / bare click --help: {seconds / base:.2f}{target}; "
                  f"above python -c pass: {1000 * (seconds - floor):.1f} ms")

    if "bare click --help" in cpu_times:
        base_cpu = cpu_times["bare click --help"]
        for label, cpu in cpu_times.items():
            if label != "bare click --help" and label != "python -c pass":
                print(f"cpu ratio {label} / bare click --help: {cpu / base_cpu:.2f}")

    if args.importtime:
        print("slowest imports under `import tomis.cli` (cumulative us):")
        for cumulative, name in import_times(15):
            print(f"  {cumulative:>8}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
