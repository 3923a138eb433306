"""tomis referee run as a real process: it takes messages as they arrive, and SIGTERM or
SIGINT stops it after the message in hand, with nothing lost or taken twice."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from email.message import EmailMessage
from email.utils import make_msgid

import pytest
from conftest import ROOT, tomis_env
from referee_support import Lab, run
from test_referee_fetch import maildir

WAIT = 120          # seconds a test waits for a line before it gives up (not a time asserted)


def start(lab: Lab, folder, log_path, *extra):
    log = open(log_path, "wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "tomis", "referee", "run", str(lab.db), "--maildir", str(folder),
         "--every", "1s", *map(str, extra)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log, cwd=ROOT, env=tomis_env())
    log.close()
    return process


@contextlib.contextmanager
def running(process):
    """The ``run`` process, killed at the end if the test left it running (it failed)."""
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def stop(process, number: int) -> int:
    """Send signal ``number``; the exit code once the process has finished."""
    process.send_signal(number)
    return process.wait(timeout=WAIT)


def wait_for(log_path, text: str, count: int = 1) -> str:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        found = log_path.read_text(errors="replace")
        if found.count(text) >= count:
            return found
        time.sleep(0.05)
    raise AssertionError(f"no {text!r} in the log:\n{log_path.read_text(errors='replace')}")


def stranger(number: int) -> bytes:
    message = EmailMessage()
    message["From"] = f"Someone {number} <s{number}@x.test>"
    message["To"] = "ref@club.test"
    message["Subject"] = f"hello {number}"
    message["Message-ID"] = make_msgid(domain="x.test")
    message.set_content("Is this the chess club?\n")
    return message.as_bytes()


@pytest.mark.slow
def test_run_takes_messages_as_they_come_and_stops_on_sigint(tmp_path):
    lab = Lab(tmp_path)
    folder = maildir(tmp_path)
    log_path = tmp_path / "run.log"
    with running(start(lab, folder, log_path)) as process:
        wait_for(log_path, "running on")
        (folder / "new" / "1.a.host").write_bytes(lab.reply(0, "B@e1"))
        wait_for(log_path, "new/1.a.host: message 1, game 1, done: action 1 (B@e1)")
        (folder / "new" / "2.b.host").write_bytes(lab.reply(1, "B@d8"))
        wait_for(log_path, "new/2.b.host: message 2, game 1, done")
        assert stop(process, signal.SIGINT) == 0
    log = log_path.read_text()
    assert "stopped (SIGINT)" in log and "Traceback" not in log
    assert sorted(os.listdir(folder / "cur")) == ["1.a.host:2,S", "2.b.host:2,S"]
    assert "B@d8" in lab.record()


def test_sigterm_mid_message_finishes_it_and_loses_nothing(tmp_path):
    lab = Lab(tmp_path)
    folder = maildir(tmp_path)
    messages = {f"{number:03d}.host": stranger(number) for number in range(60)}
    messages["000.host"] = lab.reply(0, "B@e1")
    for name, raw in messages.items():
        (folder / "new" / name).write_bytes(raw)
    log_path = tmp_path / "run.log"
    with running(start(lab, folder, log_path, "--pages", tmp_path / "pages")) as process:
        wait_for(log_path, "new/001.host: message")        # a few taken: more are in hand
        assert stop(process, signal.SIGTERM) == 0
    log = log_path.read_text()
    assert "stopped (SIGTERM)" in log and "Traceback" not in log
    taken = sorted(name.split(":")[0] for name in os.listdir(folder / "cur"))
    waiting = sorted(os.listdir(folder / "new"))
    assert waiting, "the run took every message before the signal: nothing was stopped"
    # every message marked taken is stored and logged; none left waiting is stored
    assert len(lab.inbox()) == len(taken) == log.count(": message ")
    assert sorted(taken + waiting) == sorted(messages)
    assert "B@e1" in lab.record()
    # the pages were refreshed after the round that took B@e1, before the process ended
    assert "1. B@e1" in (tmp_path / "pages" / "index.html").read_text(encoding="utf-8")
    # the rest is taken by the next fetch, each once
    result = run("referee", "fetch", lab.db, "--maildir", folder)
    assert result.exit_code == 0, result.output
    assert len(lab.inbox()) == len(messages) and os.listdir(folder / "new") == []
    assert lab.record().count("B@e1") == 1


def test_run_refuses_a_missing_store_or_maildir_at_once(tmp_path):
    lab = Lab(tmp_path)
    missing = run("referee", "run", tmp_path / "none.db", "--maildir", tmp_path)
    assert missing.exit_code == 1 and "no such store" in missing.output
    plain = run("referee", "run", lab.db, "--maildir", tmp_path)
    assert plain.exit_code == 1 and "is not a Maildir" in plain.output


@pytest.mark.parametrize("every", ["60", "1.5m", "0s", "2d", "soon"])
def test_run_takes_its_interval_in_the_one_form_of_durations(tmp_path, every):
    lab = Lab(tmp_path)
    refused = run("referee", "run", lab.db, "--maildir", maildir(tmp_path), "--every", every)
    assert refused.exit_code == 1 and "Traceback" not in refused.output
    assert len(refused.output.strip().splitlines()) == 1
    assert f"--every '{every}'" in refused.output and "30s, 5m" in refused.output
