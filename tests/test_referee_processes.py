"""tomis referee as a mail server runs it: real ``python -m tomis referee deliver``
processes, a whole game, eight at once, and killed with SIGKILL mid-message."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time

import pytest

from referee_support import (
    ANA, BO, Lab, ROOT, attachment, board_image, body_of, headline, process, reply_to,
)

from tomis.notation import record
from conftest import SAMPLES_DIR

STYLES = ("top", "bottom", "qp", "html", "outlook", "original")


def _stamp(minutes: int) -> str:
    """A UTC time ``minutes`` after the game's start, as --now takes it."""
    from tomis.notation.clock import format_stamp, parse_stamp

    return format_stamp(parse_stamp("2026-11-23T10:00Z") + 60 * minutes)


def _deliver(lab: Lab, raw: bytes, now: str) -> None:
    done = process("referee", "deliver", lab.db, "--now", now, input=raw)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("style", STYLES)
def test_each_mail_client_shape_is_read(tmp_path, style):
    lab = Lab(tmp_path)
    lab.new_messages()
    raw = lab.reply(0, "B@e1\nHave a good game, Bo", style=style)
    from referee_support import run
    assert run("referee", "deliver", lab.db, "--now", _stamp(5), input=raw).exit_code == 0
    to_ana, to_bo = lab.new_messages()
    assert lab.inbox() == [("done", "action 1 (B@e1)")]
    chat = body_of(to_bo).split("Bo Marin (Black)", 1)[1]
    assert "| Have a good game, Bo" in chat
    assert "| On Mon" not in chat and "| >" not in chat and "| From:" not in chat


@pytest.mark.slow
def test_a_whole_game_by_mail_through_real_deliver_processes(tmp_path):
    sample = record.read_game((SAMPLES_DIR / "manual-win.tgn").read_text())
    actions = [str(node.action) for node in sample.nodes]
    lab = Lab(tmp_path)
    opening = lab.new_messages()
    assert len(opening) == 2
    images = board_image(opening[0]) is not None      # the images extra installed
    for number, action in enumerate(actions, 1):
        side = (number - 1) % 2
        style = STYLES[number % len(STYLES)]
        last = lab.last_to(side)
        raw = reply_to(last, (ANA, BO)[side], f"{action}\nmove {number}, in {style}", style=style)
        # Six hours between a player's messages: their chat stays under the daily limit.
        _deliver(lab, raw, _stamp(number * 180))
        to_ana, to_bo = lab.new_messages()
        assert str(to_ana["To"]) == ANA and str(to_bo["To"]) == BO
        for message in (to_ana, to_bo):
            body = body_of(message)
            assert f"(action {number})" in body and action in body
            assert headline(message) in (f"Action {number} ({action})",          # the last ends it
                                         f"{sample.result}, action {number} ({action})")
            assert message["Auto-Submitted"] == "auto-replied"
            assert body.splitlines()[1] == "-- reply above this line --"
            mailed = attachment(message, ".tgn")
            nodes = record.read_game(mailed).nodes
            assert [str(n.action) for n in nodes] == actions[:number]
            # stamped by the referee with the time the message was stored; no private line
            assert f"[%ts {_stamp(number * 180)}]" in nodes[-1].comments
            assert "[%if" not in mailed
            assert "Clocks (TimeControl 30d+3d" in body and "   a     b     c" in body
            if images:
                assert board_image(message)[:8] == b"\x89PNG\r\n\x1a\n"
        opponent = (to_ana, to_bo)[1 - side]
        assert f"| move {number}, in {style}" in body_of(opponent)
        assert f"move {number}" not in body_of((to_ana, to_bo)[side])
        # a flat thread: each copy answers the first message its player got (issue 41)
        mine = (to_ana, to_bo)[side]
        assert mine["In-Reply-To"] == opening[side]["Message-ID"] == mine["References"]
        if number < len(actions):
            assert "Your turn" in body_of(opponent) and "Waiting for" in body_of(mine)
    final = record.read_game(lab.record())
    assert final.result == sample.result
    assert all("The game has ended: " + sample.result in body_of(m) for m in lab.messages()[-2:])
    assert [state for state, _ in lab.inbox()] == ["done"] * len(actions)


@pytest.mark.slow
def test_eight_deliver_processes_take_each_of_100_messages_exactly_once(tmp_path):
    lab = Lab(tmp_path, time_control=None)
    lab.new_messages()
    messages = []
    for number in range(100):
        side = number % 2
        messages.append(reply_to(lab.last_to(side), (ANA, BO)[side], f"chat number {number:03d}"))
    # Each message stored at its own time, a player's six hours apart, so that their chat
    # stays under the daily limit (issue 38) in whatever order the processes take them.
    stamps = {raw: _stamp(number * 180) for number, raw in enumerate(messages)}
    # ten of them come twice, as a mail server retrying after a lost answer would send them
    work = messages + messages[:10]
    shares = [work[index::8] for index in range(8)]
    codes = []

    def worker(share):
        for raw in share:
            done = process("referee", "deliver", lab.db, "--now", stamps[raw], input=raw,
                           timeout=300)
            codes.append(done.returncode)

    threads = [threading.Thread(target=worker, args=(share,)) for share in shares]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert codes == [0] * len(work)
    # White, whose turn it is, also hears of each message that nothing was played (issue 41).
    assert sorted(lab.inbox()) == [("done", "a message")] * 50 + [("done", "a message, noted")] * 50
    bodies = [body_of(message) for message in lab.new_messages()]
    assert len(bodies) == 150
    assert sum("no action was played" in body for body in bodies) == 50
    for number in range(100):
        assert sum(f"| chat number {number:03d}" in body for body in bodies) == 1
    assert lab.query("SELECT COUNT(*) FROM outbox WHERE sent_at IS NULL") == [(0,)]


# A deliver process that kills itself with SIGKILL at one point of its work: the
# function named is replaced by one that runs it (or not) and then kills the process.
KILLER = """
import os, signal, sys
import importlib
module_name, function, after = sys.argv[1], sys.argv[2], sys.argv[3] == "after"
module = importlib.import_module(module_name)
original = getattr(module, function)
def die(*args, **kwargs):
    if after:
        original(*args, **kwargs)
    os.kill(os.getpid(), signal.SIGKILL)
setattr(module, function, die)
from tomis.cli import main
main(sys.argv[4:])
"""
KILL_POINTS = [
    ("tomis.referee.service", "store_message", "before"),      # nothing stored yet
    ("tomis.referee.service", "after_storing", "before"),      # stored, not processed
    ("tomis.referee.games", "RefereedGame.save", "after"),             # inside the transaction
    ("tomis.referee.sending", "_send_one", "before"),          # processed, nothing sent
    ("tomis.referee.sending", "_send_one", "after"),           # sent, not marked sent
]


def _killed_deliver(lab: Lab, raw: bytes, now: str, point) -> int:
    module, function, when = point
    if "." in function:      # a method: patch it on its class
        cls, method = function.split(".")
        module, function = f"{module}", method
        code = KILLER.replace("module = importlib.import_module(module_name)",
                              f"module = getattr(importlib.import_module(module_name), {cls!r})")
    else:
        code = KILLER
    victim = subprocess.run([sys.executable, "-c", code, module, function, when, "referee",
                             "deliver", str(lab.db), "--now", now], input=raw,
                            capture_output=True, cwd=ROOT, timeout=60)
    return victim.returncode


@pytest.mark.slow
@pytest.mark.parametrize("point", KILL_POINTS, ids=lambda p: f"{p[1]}-{p[2]}")
def test_kill_9_at_each_step_of_deliver_loses_nothing_and_acts_once(tmp_path, point):
    lab = Lab(tmp_path)
    raw = lab.reply(0, "B@e1\nhello")
    assert _killed_deliver(lab, raw, _stamp(10), point) == -signal.SIGKILL
    _check_after_a_kill(lab, raw)


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.15, 0.25, 0.35, 0.45])
def test_kill_9_at_a_random_moment_of_deliver(tmp_path, delay):
    lab = Lab(tmp_path)
    raw = lab.reply(0, "B@e1\nhello")
    victim = subprocess.Popen([sys.executable, "-m", "tomis", "referee", "deliver", lab.db,
                               "--now", _stamp(10)], stdin=subprocess.PIPE,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    victim.stdin.write(raw)
    victim.stdin.close()
    time.sleep(delay)
    if victim.poll() is None:
        os.kill(victim.pid, signal.SIGKILL)
    victim.wait()
    _check_after_a_kill(lab, raw)


def _check_after_a_kill(lab: Lab, raw: bytes) -> None:
    """The mail server delivers again (it saw no exit 0, or did: either way), then tick:
    the action is played once, both players hear of it, nothing is left unsent."""
    _deliver(lab, raw, _stamp(20))
    assert process("referee", "tick", lab.db, "--now", _stamp(30)).returncode == 0
    rec = record.read_game(lab.record())
    assert [str(node.action) for node in rec.nodes] == ["B@e1"]
    assert lab.inbox() == [("done", "action 1 (B@e1)")]
    # stamped when first stored, whichever delivery stored it
    assert re.search(r"B@e1 \{\[%ts 2026-11-23T10:(10|20)Z\]\}", lab.record())
    assert lab.query("SELECT COUNT(*) FROM outbox WHERE sent_at IS NULL") == [(0,)]
    updates = [m for m in lab.messages() if headline(m) == "Action 1 (B@e1)"]
    assert {str(m["To"]) for m in updates} == {ANA, BO}
    # queued once each: the opening message and the update
    assert lab.query("SELECT envelope_to, COUNT(*) FROM outbox GROUP BY envelope_to") == \
        [("ana@a.test", 2), ("bo@b.test", 2)]
