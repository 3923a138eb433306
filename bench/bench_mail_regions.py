"""Finding the records of a message (``mail.find_regions``) beside an older commit's, in one run.

    python bench/bench_mail_regions.py --before f2e819b --records 99 --chat 10 100 1000

Each text holds ``--records`` copies of a small record, each followed by ``--chat`` lines
of mail text (the shape that made the search quadratic, issue 23). The older commit's
``tomis/mail.py`` is taken with ``git show`` and loaded beside this checkout's (it imports
the rest of the package from here, which is fine: only the search is compared). Prints the
fastest of ``--repeat`` timings of each, and whether both found the same records.
Nothing here asserts; the figures go to docs/SECURITY.md.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _common

from tomis import mail

RECORD = '[White "Ana"]\n[Black "Bo"]\n[Result "*"]\n\n1. B@e1 *\n'


def older_mail(rev: str):
    """``tomis/mail.py`` (or ``tomis/mail/__init__.py`` later) of ``rev``, as a module."""
    for path in ("tomis/mail.py", "tomis/mail/__init__.py"):
        shown = subprocess.run(["git", "-C", str(_common.REPO_DIR), "show", f"{rev}:{path}"],
                               capture_output=True, text=True)
        if shown.returncode == 0:
            break
    else:
        sys.exit(f"no tomis/mail.py at {rev}")
    source = Path(tempfile.mkdtemp()) / "mail_before.py"
    source.write_text(shown.stdout, encoding="utf-8")
    # Named inside the package so its relative imports resolve against this checkout.
    spec = importlib.util.spec_from_file_location("tomis._mail_before", source)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def fastest(function, text: str, repeat: int) -> tuple[float, list[int]]:
    best, firsts = float("inf"), []
    for _ in range(repeat):
        start = time.perf_counter()
        regions = function(text)
        best = min(best, time.perf_counter() - start)
        firsts = [region.first for region in regions]
    return best, firsts


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the commit to compare with")
    parser.add_argument("--records", type=int, default=99)
    parser.add_argument("--chat", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    before = older_mail(args.before)
    print(_common.machine())
    for lines in args.chat:
        chat = "".join(f"a line of chat, number {n}\n" for n in range(lines))
        text = (RECORD + chat) * args.records
        then, found_then = fastest(before.find_regions, text, args.repeat)
        now, found_now = fastest(mail.find_regions, text, args.repeat)
        print(f"{args.records} records, {lines} chat lines after each ({len(text) // 1024} KiB): "
              f"{args.before} {then:.3f} s, now {now:.3f} s, ratio {then / now:.1f}x, "
              f"same records: {found_then == found_now}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
