"""Start-up cost of the CLI: `tomis --help`, `validate` one file, `move --dry-run`.

    python bench/bench_startup.py --repeat 15

Each command runs ``--repeat`` times (after one untimed warm-up) in a fresh interpreter;
the median wall time and the median CPU time (user + system, the steadier figure on a
busy machine) are reported beside two baselines: ``python -c pass`` and the
``--help`` of a bare click app with one command (written to a temporary file).

Targets (issue #6): ``tomis --help`` <= 1.2x bare click --help;
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
import subprocess
import sys
import tempfile
from pathlib import Path

import _common
from gen_games import writer
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
    write, _how = writer()
    path = directory / "startup.tgn"
    path.write_text(write(0, "manual", played, state))
    return path, str(rng.choice(rules.legal_actions(state)))


def next_action_for(path: Path) -> str | None:
    """A legal next action for a sample record, found by reading it with tomis.record."""
    if not _common.record_available():
        return None
    from tomis import record
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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--actions", type=int, default=60, help="length of the generated game")
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--importtime", action="store_true")
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

        timings: dict[str, float] = {}
        cpu_times: dict[str, float] = {}

        def measure(label: str, cmd: list[str]) -> None:
            cpu, seconds, proc = _common.median_cpu_and_wall(cmd, args.repeat)
            timings[label] = seconds
            if cpu is not None:
                cpu_times[label] = cpu
            note = "" if proc.returncode == 0 else f"  (exit {proc.returncode}: {(proc.stderr or proc.stdout).strip()[:200]})"
            cpu_text = "" if cpu is None else f"   cpu {1000 * cpu:7.1f} ms"
            print(f"{label:<38} {1000 * seconds:8.1f} ms{cpu_text}{note}")

        measure("python -c pass", [sys.executable, "-c", "pass"])
        measure("bare click --help", [sys.executable, str(bare), "--help"])
        if _common.cli_available():
            tomis = _common.tomis_command()
            measure("tomis --help", tomis + ["--help"])
            measure(f"tomis validate {one.name}", tomis + ["validate", str(one)])
            measure(f"tomis move --dry-run {action}", tomis + ["move", str(copy), action, "--dry-run"])
        else:
            print("tomis CLI: skipped (tomis.cli not available yet)")

    base = timings["bare click --help"]
    floor = timings["python -c pass"]
    for label, seconds in timings.items():
        if label.startswith("tomis"):
            target = ""
            if label == "tomis --help":
                target = " (target <= 1.2)"
            elif label.startswith("tomis validate"):
                target = " (target <= 1.3)"
            print(f"ratio {label} / bare click --help: {seconds / base:.2f}{target}; "
                  f"above python -c pass: {1000 * (seconds - floor):.1f} ms")

    if "bare click --help" in cpu_times:
        base_cpu = cpu_times["bare click --help"]
        for label, cpu in cpu_times.items():
            if label.startswith("tomis"):
                print(f"cpu ratio {label} / bare click --help: {cpu / base_cpu:.2f}")

    if args.importtime:
        print("slowest imports under `import tomis.cli` (cumulative us):")
        for cumulative, name in import_times(15):
            print(f"  {cumulative:>8}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
