"""Finding the records of a message (``tomis.sources.regions.find_regions``, in ``tomis/mail.py``
before the mail modules were split) beside an older commit's, in one run.

    python bench/bench_mail_regions.py --before f2e819b --records 99 --chat 10 100 1000

Each text holds ``--records`` copies of a small record, each followed by ``--chat`` lines
of mail text (the shape that made the search quadratic, issue 23). The older commit's
package is unpacked with ``git archive`` and imported beside this checkout's. Prints the
fastest of ``--repeat`` timings of each, and whether both found the same records.
Nothing here asserts; the figures go to docs/SECURITY.md.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import tempfile
import time
from pathlib import Path

import _common

from tomis.sources import regions

RECORD = '[White "Ana"]\n[Black "Bo"]\n[Result "*"]\n\n1. B@e1 *\n'


def older_find_regions(rev: str):
    """The ``find_regions`` of commit ``rev``: its whole package unpacked with ``git archive``
    and imported as ``tomis_before`` (bench_versions.py does the same), so that its
    record search runs on its own helpers; the function lived in ``tomis/mail.py`` before
    the mail modules were split, and in ``tomis/sources/regions.py`` after."""
    from bench_versions import import_before

    import_before(rev, Path(tempfile.mkdtemp()))
    for path in ("sources.regions", "mail"):
        try:
            module = importlib.import_module(f"tomis_before.{path}")
        except ModuleNotFoundError:
            continue
        if hasattr(module, "find_regions"):
            return module.find_regions
    sys.exit(f"no find_regions at {rev}")


def fastest(function, text: str, repeat: int) -> tuple[float, list[int]]:
    best, firsts = float("inf"), []
    for _ in range(repeat):
        start = time.perf_counter()
        found = function(text)
        best = min(best, time.perf_counter() - start)
        firsts = [region.first for region in found]
    return best, firsts


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the commit to compare with")
    parser.add_argument("--records", type=int, default=99)
    parser.add_argument("--chat", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    find_before = older_find_regions(args.before)
    print(_common.machine())
    for lines in args.chat:
        chat = "".join(f"a line of chat, number {n}\n" for n in range(lines))
        text = (RECORD + chat) * args.records
        then, found_then = fastest(find_before, text, args.repeat)
        now, found_now = fastest(regions.find_regions, text, args.repeat)
        print(f"{args.records} records, {lines} chat lines after each ({len(text) // 1024} KiB): "
              f"{args.before} {then:.3f} s, now {now:.3f} s, ratio {then / now:.1f}x, "
              f"same records: {found_then == found_now}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
