"""``tomis play`` against the computer (issue 12): through a pipe, and in a real pseudo-terminal.

The computer is a Player of the play loop (tomis.cli.engine.ComputerOpponent); its
actions are shown with the board as a human's are, and the record stays valid.
"""

from __future__ import annotations

import os
import sys

import pytest

from conftest import invoke
from tomis import record
from tomis.notation import parse_action

TIMEOUT = 60   # generous: a slow, shared machine must not fail; no test measures time


def test_two_computers_play_a_whole_game(tmp_path):
    path = tmp_path / "cc.tgn"
    result = invoke("play", path, "--white", "computer:1", "--black", "computer:2", "--ascii")
    assert result.exit_code == 0, result.stderr
    game = record.read_game(path.read_text(encoding="utf-8"))
    assert game.tags["White"] == "computer (level 1)" and game.tags["Black"] == "computer (level 2)"
    assert game.final.is_over                 # played to the end (R21, R22)
    assert result.stdout.count("computer (level 1) plays ") == (len(game.nodes) + 1) // 2
    assert f"Game over: {game.result}" in result.stdout


def test_human_against_the_computer_through_a_pipe(tmp_path):
    path = tmp_path / "hc.tgn"
    result = invoke("play", path, "--black", "computer:3", input="B@e1\nG@a1\nquit\n")
    assert result.exit_code == 0, result.stderr
    game = record.read_game(path.read_text(encoding="utf-8"))
    actions = [str(n.action) for n in game.nodes]
    assert actions[0] == "B@e1" and actions[2] == "G@a1" and len(actions) == 4
    assert f"computer (level 3) plays {actions[1]}" in result.stdout
    assert game.tags["Black"] == "computer (level 3)" and game.tags["White"] == "?"


def test_the_same_seed_gives_the_same_computer_game(tmp_path):
    texts = []
    for name in ("a.tgn", "b.tgn"):
        invoke("play", tmp_path / name, "--white", "computer:2", "--black", "computer:1", "--seed", "9")
        texts.append((tmp_path / name).read_text(encoding="utf-8"))
    assert texts[0] == texts[1]


def test_the_computer_answers_a_draw_offer(tmp_path):
    path = tmp_path / "d.tgn"
    result = invoke("play", path, "--black", "computer:4", input="B@e1\ndraw\nquit\n")
    assert result.exit_code == 0, result.stderr
    assert "computer (level 4) declines" in result.stdout or "computer (level 4) accepts" in result.stdout


@pytest.mark.parametrize("value", ["computer:0", "computer:9", "computer:x", "computer:"])
def test_a_bad_level_is_a_usage_error(tmp_path, value):
    result = invoke("play", tmp_path / "x.tgn", "--white", value, input="quit\n")
    assert result.exit_code == 2
    assert "--white" in result.stderr and "computer:N with N from 1 to 8" in result.stderr
    assert not (tmp_path / "x.tgn").exists()


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_play_against_the_computer_in_a_terminal(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    path = tmp_path / "pty.tgn"
    # TERM=dumb: plain prompts without the line editor's redrawing (as test_play_tty does).
    env = dict(os.environ, NO_COLOR="1", COLUMNS="100", TERM="dumb", PROMPT_TOOLKIT_NO_CPR="1")
    child = pexpect.spawn(sys.executable, ["-m", "tomis", "play", str(path), "--black", "computer:5"],
                          env=env, encoding="utf-8", timeout=TIMEOUT)
    child.setwinsize(40, 100)
    child.expect_exact("White (action 1)> ")
    child.sendline("B@e1")
    child.expect(r"computer \(level 5\) plays (B@[a-h]8)")
    black_base = child.match.group(1)
    child.expect_exact("White (action 3)> ")
    # After the computer's action: its report and the board, as after a human's.
    assert f"Black played 1... {black_base}" in child.before
    assert "Rules: manual" in child.before and "White reserve" in child.before
    child.sendline("G@a1")
    child.expect(r"computer \(level 5\) plays (G@[a-h]8)")
    child.expect_exact("White (action 5)> ")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    game = record.read_game(path.read_text(encoding="utf-8"))
    assert [str(n.action) for n in game.nodes][:3] == ["B@e1", black_base, "G@a1"]
    assert parse_action(black_base) == game.nodes[1].action
