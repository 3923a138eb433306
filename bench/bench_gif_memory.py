"""Peak memory of `tomis export --gif` for a short and a long game, now and at an earlier commit.

    python bench/bench_gif_memory.py --before 57c5a66 --short 40 --long 549

Each export runs in a child process of its own, which prints its peak resident set size
(``ru_maxrss``) when the command is done, so the figure is the whole command's: reading
the record, drawing every frame, writing the GIF. The games are random legal games
(bench/gen_games.py's player, seeded), played until the wanted number of actions; the
earlier commit is checked out in a temporary ``git worktree`` and imported from there, so
both run side by side on the same records in the same run. Prints one table.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import _common
from gen_games import random_tomis_game, write_tgn

CHILD = """
import resource, sys
sys.path.insert(0, sys.argv[1])
from tomis.cli import main
try:
    main(sys.argv[2:])
except SystemExit as stop:
    if stop.code:
        raise
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
"""


def long_enough_game(actions: int, seed: int) -> tuple[str, int]:
    """A random legal game of exactly ``actions`` actions (the first seed that lasts), as text."""
    for attempt in range(seed, seed + 1000):
        played, _state = random_tomis_game(attempt, "manual", actions)
        if len(played) == actions:
            return write_tgn(attempt, "manual", played), attempt
    sys.exit(f"no random game of {actions} actions from seeds {seed}..{seed + 999}")


def peak_kib(source: Path, record: Path, out: Path) -> int:
    """The peak RSS (KiB) of one `tomis export --gif` run with tomis imported from ``source``."""
    done = subprocess.run([sys.executable, "-c", CHILD, str(source), "export", str(record), "--gif",
                           "-o", str(out)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"export with {source} failed: {done.stderr.strip()}")
    return int(done.stderr.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the commit to compare with (a git revision)")
    parser.add_argument("--short", type=int, default=40, help="actions in the short game")
    parser.add_argument("--long", type=int, default=549, help="actions in the long game")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="tomis-gif-memory-") as work:
        work = Path(work)
        earlier = work / "before"
        subprocess.run(["git", "-C", str(_common.REPO_DIR), "worktree", "add", "--detach", "--quiet",
                        str(earlier), args.before], check=True)
        try:
            rows = []
            for actions in (args.short, args.long):
                text, seed = long_enough_game(actions, args.seed)
                record = work / f"game-{actions}.tgn"
                record.write_text(text, encoding="utf-8")
                before = peak_kib(earlier, record, work / "before.gif")
                now = peak_kib(_common.REPO_DIR, record, work / "now.gif")
                size = (work / "now.gif").stat().st_size
                rows.append((actions, seed, before, now, size))
        finally:
            subprocess.run(["git", "-C", str(_common.REPO_DIR), "worktree", "remove", "--force",
                            str(earlier)], check=False)
    print(_common.machine())
    print(f"tomis export --gif (400 px), peak RSS of the whole command; before = {args.before}")
    print(f"{'actions':>8} {'seed':>5} {'before MiB':>11} {'now MiB':>8} {'GIF bytes now':>14}")
    for actions, seed, before, now, size in rows:
        print(f"{actions:>8} {seed:>5} {before / 1024:>11.1f} {now / 1024:>8.1f} {size:>14,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
