"""What reading through the front door (tomis.sources) costs, beside the reading it replaced.

    python bench/bench_mail.py --repeat 7

In one run, for each input: ``sources.read_source`` (what every command now does) and the
old path, ``textio.read_path`` + ``quotes.extract_record``; the fastest of ``--repeat``
timings of ``--loops`` reads each. Inputs: a sample record; an archive of ``--games``
random games in one file (the reading that must not slow down); the same archive with a
non-ASCII comment in every game (the debris pass then looks at those lines); messages of
the mail corpus (which the old path could not read at all, so no ratio). Also the import
time of ``tomis.sources`` in a fresh interpreter that already has ``tomis.notation.record`` (fastest,
with .pyc files): what every command reading a record pays on top. Nothing here asserts; the figures go to
docs/PERFORMANCE.md.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _common
from gen_games import random_tomis_game, write_tgn

from tomis import sources
from tomis.util import textio
from tomis.mail import quotes

MAIL_CORPUS = _common.REPO_DIR / "tests" / "data" / "mail"


def batch(function, loops: int) -> float:
    start = time.perf_counter()
    for _ in range(loops):
        function()
    return (time.perf_counter() - start) / loops


def timed(function, loops: int, repeat: int) -> float:
    """Seconds per call, the fastest of ``repeat`` batches of ``loops`` calls (the box is
    shared: the fastest batch is the one least disturbed)."""
    return min(batch(function, loops) for _ in range(repeat))


def timed_pair(old, new, loops: int, repeat: int) -> tuple[float, float]:
    """Like :func:`timed` for two functions, their batches alternating, so that a busy
    moment of the machine falls on both alike."""
    pairs = [(batch(old, loops), batch(new, loops)) for _ in range(repeat)]
    return min(p[0] for p in pairs), min(p[1] for p in pairs)


def archive(directory: Path, games: int, comment: str | None) -> Path:
    texts = []
    for index in range(games):
        edition = ("manual", "readme")[index % 2]
        actions, _state = random_tomis_game(20261123 + index, edition, 120)
        text = write_tgn(index, edition, actions)
        if comment:
            text = text.replace("\n1. ", f"\n{{{comment}}}\n1. ", 1)
        texts.append(text)
    path = directory / ("archive-comments.tgn" if comment else "archive.tgn")
    path.write_text("\n".join(texts), encoding="utf-8")
    return path


def old_path(path: Path):
    return lambda: quotes.extract_record(textio.read_path(path))


def new_path(path: Path):
    return lambda: sources.read_source(str(path))


def import_time(repeat: int) -> float:
    """Fastest seconds to import tomis.sources (the front door, with the mail modules it
    loads) in a fresh interpreter that has tomis.notation.record already (every command reading a
    record imports it): what the CLI pays on top."""
    code = ("import time, tomis.notation.record; t = time.perf_counter(); import tomis.sources; "
            "print(time.perf_counter() - t)")
    times = []
    for _ in range(repeat + 1):
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env=_common.user_env(), check=True)
        times.append(float(proc.stdout))
    return min(times[1:])        # the first run may write the .pyc files


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--loops", type=int, default=20)
    parser.add_argument("--games", type=int, default=300)
    args = parser.parse_args(argv)
    print(_common.machine())
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        sample = sorted((_common.REPO_DIR / "samples").glob("*.tgn"))[0]
        big = archive(folder, args.games, None)
        accented = archive(folder, args.games, "Zoë’s “gambit” – risky")
        print(f"{'input':44} {'old path':>12} {'sources.read_source':>19} {'ratio':>6}")
        for label, path in [(f"sample {sample.name}", sample),
                            (f"archive, {args.games} games, {big.stat().st_size // 1024} KiB", big),
                            ("same, a non-ASCII comment in every game", accented)]:
            loops = args.loops if path == sample else max(1, args.loops // 4)
            old, new = timed_pair(old_path(path), new_path(path), loops, args.repeat)
            print(f"{label:44} {old * 1e3:10.3f} ms {new * 1e3:14.3f} ms {new / old:6.2f}")
        for name in ("paste-bottom.txt", "thunderbird-bottom-flowed.eml",
                     "gmail-alternative-qp.eml", "outlook-html-smart-quotes.eml"):
            new = timed(new_path(MAIL_CORPUS / name), args.loops, args.repeat)
            print(f"{name:44} {'-':>12}    {new * 1e3:14.3f} ms")
    print(f"import tomis.sources after tomis.notation.record (fresh interpreter, fastest): "
          f"{import_time(args.repeat) * 1e3:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
