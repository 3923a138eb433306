"""``tomis play`` through a real pseudo-terminal: what two players at one keyboard see."""

from __future__ import annotations

import os
import sys

import pytest

pexpect = pytest.importorskip("pexpect")

TIMEOUT = 20   # generous: a slow CI machine must not fail; no test measures time


def spawn(path):
    # TERM=dumb: plain prompts, byte for byte, without the line editor's redrawing;
    # editing, history and completion are tested in tests/test_play_keyboard.py.
    env = dict(os.environ, NO_COLOR="1", COLUMNS="100", TERM="dumb")
    child = pexpect.spawn(sys.executable, ["-m", "tomis", "play", str(path)],
                          env=env, encoding="utf-8", timeout=TIMEOUT)
    child.setwinsize(40, 100)
    return child


def act(child, text, prompt):
    child.sendline(text)
    child.expect_exact(prompt)


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_play_start_act_reject_quit_and_resume(tmp_path):
    path = tmp_path / "club.tgn"
    child = spawn(path)
    child.expect_exact("new game saved in")
    child.expect_exact("White (action 1)> ")
    act(child, "B@e1", "Black (action 2)> ")
    act(child, "B@d8", "White (action 3)> ")

    # An illegal gate (too close to the base, R6) re-prompts with the reader's message.
    child.sendline("G@d1")
    child.expect_exact("R6")
    child.expect_exact("White (action 3)> ")
    # So does text that is not notation at all.
    child.sendline("hello")
    child.expect_exact("White (action 3)> ")

    act(child, "moves b1", "White (action 3)> ")
    assert "G@b1" in child.before
    act(child, "G@b1", "Black (action 4)> ")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "G@b1" in path.read_text(encoding="utf-8")

    resumed = spawn(path)
    resumed.expect_exact("resumed")
    resumed.expect_exact("Black (action 4)> ")
    act(resumed, "undo", "White (action 3)> ")
    act(resumed, "G@a1", "Black (action 4)> ")
    resumed.sendeof()                 # Ctrl-D quits cleanly; the game is already saved
    resumed.expect(pexpect.EOF)
    resumed.close()
    assert resumed.exitstatus == 0
    text = path.read_text(encoding="utf-8")
    assert "G@a1" in text and "G@b1" not in text


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_play_refuses_a_file_another_session_holds(tmp_path):
    path = tmp_path / "busy.tgn"
    first = spawn(path)
    first.expect_exact("White (action 1)> ")
    second = spawn(path)
    second.expect_exact("another tomis process")
    second.expect(pexpect.EOF)
    second.close()
    assert second.exitstatus == 1
    first.sendline("quit")
    first.expect(pexpect.EOF)
