"""Messages per second through ``tomis referee deliver``.

    python bench/bench_referee.py --messages 40 --jobs 8

In one run, on one store (outbox:DIR, so no mail server is timed):

- ``deliver``, one process per message, one after another: the players' actions of
  samples/manual-win.tgn, alternately from White and Black, each answered with two
  messages (record and PNG board attached when the images extra is installed);
- the same count of chat messages through ``--jobs`` processes at once;
- the anchor, in the same run: ``python -m tomis --version`` started as many times,
  the floor any one-process-per-message delivery pays;
- in process (no start-up): the store, process and send steps per action, with and
  without the PNG board, to show where the time goes.

Processes run with bytecode caching allowed (``_common.user_env``), as an installed
tomis has its .pyc files. Nothing here asserts; the figures go to docs/REFEREE.md.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import _common

sys.path.insert(0, str(_common.REPO_DIR / "tests"))

from referee_support import ANA, BO, Lab, reply_to  # noqa: E402

from tomis.notation import record  # noqa: E402


def actions() -> list[str]:
    sample = record.read_game((_common.REPO_DIR / "samples" / "manual-win.tgn").read_text())
    return [str(node.action) for node in sample.nodes]


def deliver_process(db: Path, raw: bytes, now: str) -> None:
    done = subprocess.run([sys.executable, "-m", "tomis", "referee", "deliver", str(db),
                           "--now", now], input=raw, capture_output=True,
                          env=_common.user_env())
    if done.returncode != 0:
        raise SystemExit(f"deliver exited {done.returncode}: {done.stderr.decode()}")


def replies(lab: Lab, texts: list[str]) -> list[bytes]:
    """Each text as a reply from White, Black, White, ... to the token address each player
    got first (a token stays the same for the whole game), made before any timing."""
    first = lab.messages()[:2]
    return [reply_to(first[number % 2], (ANA, BO)[number % 2], text)
            for number, text in enumerate(texts)]


def sequential_actions(count: int) -> float:
    with tempfile.TemporaryDirectory() as folder:
        lab = Lab(Path(folder))
        moves = actions()[:count]
        messages = replies(lab, moves)
        started = time.perf_counter()
        for number, raw in enumerate(messages):
            deliver_process(lab.db, raw, f"2026-11-23T{10 + number // 60:02d}:{number % 60:02d}Z")
        elapsed = time.perf_counter() - started
        if record.read_game(lab.record()).nodes.__len__() != len(moves):
            raise SystemExit("not every action was played")
        return len(moves) / elapsed


def concurrent_chat(count: int, jobs: int) -> float:
    with tempfile.TemporaryDirectory() as folder:
        lab = Lab(Path(folder), time_control=None)
        messages = replies(lab, [f"chat {n}" for n in range(count)])
        shares = [messages[index::jobs] for index in range(jobs)]
        started = time.perf_counter()
        threads = [threading.Thread(target=lambda share=share: [
            deliver_process(lab.db, raw, "2026-11-23T11:00Z") for raw in share])
            for share in shares]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - started
        if lab.query("SELECT COUNT(*) FROM inbox WHERE state = 'done'") != [(count,)]:
            raise SystemExit("not every message was processed")
        return count / elapsed


def startup_anchor(count: int) -> float:
    started = time.perf_counter()
    for _ in range(count):
        subprocess.run([sys.executable, "-m", "tomis", "--version"], capture_output=True,
                       check=True, env=_common.user_env())
    return count / (time.perf_counter() - started)


def in_process(count: int, png: bool) -> float:
    from tomis.referee import composing, service

    saved = composing.board_png
    if not png:
        composing.board_png = lambda state, report=None: None
    try:
        with tempfile.TemporaryDirectory() as folder:
            lab = Lab(Path(folder))
            store, config = service.connect(str(lab.db))
            moves = actions()[:count]
            elapsed = 0.0
            with store:
                for number, raw in enumerate(replies(lab, moves)):
                    started = time.perf_counter()
                    at = 1795428000 + 60 * number
                    service.store_message(store, raw, False, None, at)
                    service.after_storing(store, config, at)
                    elapsed += time.perf_counter() - started
            return len(moves) / elapsed
    finally:
        composing.board_png = saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=40,
                        help="messages per measurement (actions: at most the sample's 55)")
    parser.add_argument("--jobs", type=int, default=8, help="concurrent deliver processes")
    args = parser.parse_args()
    count = max(1, min(args.messages, len(actions())))
    print(f"machine: {_common.machine()}")
    print(f"messages per measurement: {count}")
    print(f"deliver, one process at a time (actions):   {sequential_actions(count):6.2f} messages/s")
    print(f"deliver, {args.jobs} processes at once (chat):    "
          f"{concurrent_chat(count, args.jobs):6.2f} messages/s")
    print(f"anchor: python -m tomis --version:          {startup_anchor(count):6.2f} starts/s")
    print(f"in process, with the PNG board:             {in_process(count, True):6.2f} messages/s")
    print(f"in process, without the PNG board:          {in_process(count, False):6.2f} messages/s")


if __name__ == "__main__":
    main()
