"""``tomis play`` through a real pseudo-terminal: what two players at one keyboard see."""

from __future__ import annotations

import os
import sys

import pytest
from conftest import invoke

pexpect = pytest.importorskip("pexpect")

TIMEOUT = 20   # generous: a slow CI machine must not fail; no test measures time


def spawn(path, *args, **environ):
    # TERM=dumb: plain prompts, byte for byte, without the line editor's redrawing;
    # editing, history and completion are tested in tests/test_keyboard.py.
    env = dict(os.environ, NO_COLOR="1", COLUMNS="100", TERM="dumb")
    env.update(environ)
    child = pexpect.spawn(sys.executable, ["-m", "tomis", "play", str(path), *args],
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


# Black to act (action 18), White's jump gate on b1 pointing N with White's frigate on it.
NORTH_GATE = ("t2b2f1/8/8/8/8/8/8/1F2B3 b1wJ1N,f2wI,c3wI,h4wI,d5bI,e6bI,a7bI,g8bI b "
              "0037221/0047211 - manual 18 3")


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_black_against_the_computer_sees_jump_gate_arrows_from_its_side(tmp_path):
    # Playing Black turns the board (rank 1 on top, file h on the left); a jump gate's
    # direction (R11) is drawn as it points on that board, so N, toward rank 8, is down.
    path = tmp_path / "black.tgn"
    assert invoke("new", path, "--position", NORTH_GATE).exit_code == 0
    # A terminal that shows arrows: not dumb; NO_COLOR keeps the text free of colours.
    child = spawn(path, "--white", "computer:1", TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1",
                  XDG_STATE_HOME=str(tmp_path / "state"))
    flipped_rank_1 = " 1 | .     .     .     B     .     .     FG\u2193   .     | 1"
    child.expect_exact("     h     g     f     e     d     c     b     a")
    child.expect_exact(flipped_rank_1)
    child.expect_exact("\u2193 points N (to rank 8)")
    child.expect_exact("Action 18: Black to act")
    child.send("Fg8-f8\r")
    child.expect_exact("Black played 9... Fg8-f8 (action 18)")    # numbered as the record is
    child.expect_exact(flipped_rank_1)
    assert "\u2191" not in child.before
    child.expect_exact("Action 19: White to act")
    child.expect_exact("(action 19)")                              # the computer's answer
    child.expect_exact("Action 20: Black to act")
    child.send("quit\r")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "9... Fg8-f8 10. " in path.read_text(encoding="utf-8")
