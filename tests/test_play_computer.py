"""``tomis play`` against the computer (issue 12): through a pipe, and in a real pseudo-terminal.

The computer is a Player of the play loop (tomis.cli.engine.ComputerOpponent); its
actions are shown with the board as a human's are, and the record stays valid.
"""

from __future__ import annotations

import os
import re
import sys

import pytest

from conftest import SAMPLES_DIR, invoke
from tomis.notation import record
from tomis.notation import parse_action
from tomis.cli.play import login_name

TIMEOUT = 60   # generous: a slow, shared machine must not fail; no test measures time


def test_two_computers_play_a_whole_game(tmp_path):
    path = tmp_path / "cc.tgn"
    result = invoke("play", path, "--white", "computer:1", "--black", "computer:2", "--ascii")
    assert result.exit_code == 0, result.stderr
    game = record.read_game(path.read_text(encoding="utf-8"))
    assert game.tags["White"] == "tomis level 1" and game.tags["Black"] == "tomis level 2"
    assert game.final.is_over                 # played to the end (R21, R22)
    assert result.stdout.count("tomis level 1 plays ") == (len(game.nodes) + 1) // 2
    assert f"Game over: {game.result}" in result.stdout


def test_two_computers_wait_the_delay_before_each_action(tmp_path, monkeypatch):
    # --delay paces a game between two computers for watching: one wait per action the
    # computer plays, of the seconds given (time.sleep is recorded, not waited on).
    import time

    waits = []
    monkeypatch.setattr(time, "sleep", waits.append)
    path = tmp_path / "watch.tgn"
    result = invoke("play", path, "--white", "computer:1", "--black", "computer:2", "--delay", "2.5")
    assert result.exit_code == 0, result.stderr
    game = record.read_game(path.read_text(encoding="utf-8"))
    assert waits == [2.5] * len(game.nodes)


@pytest.mark.parametrize("value", ["-1", "nan", "abc"])
def test_play_refuses_a_delay_that_is_no_number_of_seconds(tmp_path, value):
    result = invoke("play", tmp_path / "x.tgn", "--white", "computer:1", "--black", "computer:1",
                    "--delay", value)
    assert result.exit_code == 2 and "--delay" in result.stderr
    assert not (tmp_path / "x.tgn").exists()


def test_human_against_the_computer_through_a_pipe(tmp_path):
    path = tmp_path / "hc.tgn"
    result = invoke("play", path, "--black", "computer:3", input="B@e1\nG@a1\nquit\n")
    assert result.exit_code == 0, result.stderr
    game = record.read_game(path.read_text(encoding="utf-8"))
    actions = [str(n.action) for n in game.nodes]
    assert actions[0] == "B@e1" and actions[2] == "G@a1" and len(actions) == 4
    assert f"tomis level 3 plays {actions[1]}" in result.stdout
    # The computer by its name and type; the person at the keyboard by the login name.
    assert game.tags["Black"] == "tomis level 3" and game.tags["BlackType"] == "program"
    assert game.tags["White"] == (login_name() or "?") and "WhiteType" not in game.tags


def test_the_same_seed_gives_the_same_computer_game(tmp_path):
    texts = []
    for name in ("a.tgn", "b.tgn"):
        invoke("play", tmp_path / name, "--white", "computer:2", "--black", "computer:1", "--seed", "9")
        texts.append((tmp_path / name).read_text(encoding="utf-8"))
    assert texts[0] == texts[1]


@pytest.mark.parametrize("value", ["computer:0", "computer:9", "computer:x", "computer:"])
def test_a_bad_level_is_a_usage_error(tmp_path, value):
    result = invoke("play", tmp_path / "x.tgn", "--white", value, input="quit\n")
    assert result.exit_code == 2
    assert "--white" in result.stderr and "computer:N with N from 1 to 8" in result.stderr
    assert not (tmp_path / "x.tgn").exists()


# --think SECONDS (issue 45): a time per action instead of a level's node limit.

@pytest.mark.parametrize("value", ["0", "-1", "nan", "abc", "inf", "3601"])
def test_a_bad_think_time_is_a_one_line_usage_error(tmp_path, value):
    result = invoke("play", tmp_path / "x.tgn", "--black", "computer", "--think", value, input="quit\n")
    assert result.exit_code == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and "--think" in errors[0]
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "x.tgn").exists()


@pytest.mark.parametrize("sides, words", [
    (("--black", "computer:4"), "not computer:4"),             # a level's node limit and a time: which?
    (("--black", "Bo"), "the computer plays neither side"),   # nobody to give the time to
])
def test_think_refuses_a_level_beside_it_and_a_game_without_the_computer(tmp_path, sides, words):
    result = invoke("play", tmp_path / "x.tgn", *sides, "--think", "1", input="quit\n")
    assert result.exit_code == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and words in errors[0] and "--think" in errors[0]
    assert not (tmp_path / "x.tgn").exists()


def test_think_gives_the_computer_a_time_per_action_and_a_resumed_game_keeps_it(tmp_path, monkeypatch):
    from tomis.engine.player import ComputerPlayer
    from tomis.engine.search import Limits

    asked = []
    choose = ComputerPlayer.choose

    def spy(self, state, previous=None):      # the search itself may be compiled: spy on its caller
        asked.append(self.limits)
        return choose(self, state, previous)

    monkeypatch.setattr(ComputerPlayer, "choose", spy)
    path = tmp_path / "think.tgn"
    result = invoke("play", path, "--black", "computer", "--think", "0.05", input="B@e1\nG@a1\nquit\n")
    assert result.exit_code == 0, result.stderr
    game = record.read_game(path.read_text(encoding="utf-8"))
    actions = [str(n.action) for n in game.nodes]
    assert len(actions) == 4 and f"tomis thinking 0.05 s plays {actions[3]}" in result.stdout
    assert game.tags["Black"] == "tomis thinking 0.05 s" and game.tags["BlackType"] == "program"
    assert asked == [Limits(time=0.05)] * 2           # no node limit, no randomness
    # Resumed without options, the record's computer thinks as long as it did.
    result = invoke("play", path, input="G@b2\nquit\n")
    assert result.exit_code == 0, result.stderr
    assert "tomis thinking 0.05 s plays" in result.stdout
    assert asked == [Limits(time=0.05)] * 3


def spawn_play(*args):
    pexpect = pytest.importorskip("pexpect")
    # TERM=dumb: plain prompts without the line editor's redrawing (as test_play_tty does).
    env = dict(os.environ, NO_COLOR="1", COLUMNS="100", TERM="dumb", PROMPT_TOOLKIT_NO_CPR="1")
    child = pexpect.spawn(sys.executable, ["-m", "tomis", "play", *map(str, args)],
                          env=env, encoding="utf-8", timeout=TIMEOUT)
    child.setwinsize(40, 100)
    return child


def finish(child):
    child.expect(pytest.importorskip("pexpect").EOF)
    child.close()
    assert child.exitstatus == 0


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_at_the_board_undo_hint_history_flip_quit_and_resume(tmp_path):
    path = tmp_path / "board.tgn"
    child = spawn_play(path, "--black", "computer:2")
    child.expect_exact("(White, action 1)> ")
    child.sendline("B@e1")
    child.expect(r"tomis level 2 plays (B@[a-h]8)")
    black_base = child.match.group(1)
    child.expect_exact("(White, action 3)> ")
    # After the computer's action: its report and the board, as after a human's.
    assert f"Black played 1... {black_base}" in child.before
    assert "Rules: manual" in child.before and "White reserve" in child.before
    child.sendline("G@b1")
    child.expect(r"tomis level 2 plays (G@[a-h]8)")
    answer = child.match.group(1)
    child.expect_exact("(White, action 5)> ")

    # undo takes back the player's action and the computer's answer: White acts again.
    child.sendline("undo")
    child.expect_exact("(White, action 3)> ")
    assert f"took back action 4, Black's {answer}" in child.before
    assert "took back action 3, White's G@b1" in child.before
    assert len(record.read_game(path.read_text(encoding="utf-8")).nodes) == 2

    child.sendline("hint")
    child.expect(r"hint: 2\. (\S+) \(")
    suggested = child.match.group(1)
    child.expect_exact("(White, action 3)> ")
    assert "expected line: 2. " + suggested in child.before

    child.sendline("history")
    child.expect_exact("(White, action 3)> ")
    assert f"1. B@e1 {black_base}" in child.before

    child.sendline("flip")
    child.expect_exact("(White, action 3)> ")
    ranks = [line.split("|")[0].strip() for line in child.before.splitlines() if "|" in line]
    assert ranks[0] == "1" and ranks[-1] == "8"       # rank 1 on top: Black's view

    child.sendline("quit")
    finish(child)
    saved = record.read_game(path.read_text(encoding="utf-8"))
    assert len(saved.nodes) == 2 and saved.tags["BlackType"] == "program"
    assert saved.nodes[1].action == parse_action(black_base)

    # Resumed without options: the computer still plays Black, and answers at once.
    resumed = spawn_play(path)
    resumed.expect_exact("resumed")
    resumed.expect_exact("(White, action 3)> ")
    resumed.sendline("G@b1")
    resumed.expect(r"tomis level 2 plays (G@[a-h]8)")
    resumed.expect_exact("(White, action 5)> ")
    resumed.sendline("quit")
    finish(resumed)
    assert len(record.read_game(path.read_text(encoding="utf-8")).nodes) == 4


def test_the_computer_judges_a_draw_offer_from_its_own_side():
    # After action 54 of manual-win.tgn White is to act and clearly ahead: the search
    # scores it for White, the side to act. The computer playing Black is offered a draw
    # by White and must accept (it stands badly); playing White, offered one by Black, it
    # declines. Before, both took the side to act's score and answered alike.
    from tomis.cli.engine import DRAW_ACCEPT, judge_draw
    from tomis.engine.player import hint
    from tomis.engine.search import Limits

    game = record.read_game(open(SAMPLES_DIR / "manual-win.tgn", encoding="utf-8").read())
    state = game.states[54]
    assert state.to_move == 0
    for_white = hint(state, Limits(nodes=2_000)).score
    assert for_white > -DRAW_ACCEPT             # White is well ahead
    as_black, why_black = judge_draw(state, "black")
    as_white, why_white = judge_draw(state, "white")
    assert (as_black, as_white) == (True, False)
    assert why_black.startswith("it stands -") and "at or below -0.5 frigates" in why_black
    assert why_white.startswith("it stands +") and "it accepts only at -0.5 frigates or worse" in why_white


def test_the_computer_says_why_it_declines(tmp_path):
    path = tmp_path / "d.tgn"
    result = invoke("play", path, "--black", "computer:4", input="B@e1\ndraw\nquit\n")
    assert result.exit_code == 0, result.stderr
    assert "tomis level 4 declines the draw: it stands " in result.stdout
    assert "draw declined; play on" in result.stdout


def actions_in(path):
    return [str(node.action) for node in record.read_game(path.read_text(encoding="utf-8")).nodes]


def test_undo_n_against_the_computer_takes_back_the_players_actions_and_its_answers(tmp_path):
    path = tmp_path / "u.tgn"
    result = invoke("play", path, "--black", "computer:1", input="B@e1\nG@b1\nG@f2\nundo 2\nquit\n")
    assert result.exit_code == 0, result.stderr
    assert actions_in(path)[:1] == ["B@e1"] and len(actions_in(path)) == 2
    assert re.findall(r"took back action (\d+)", result.stdout) == ["6", "5", "4", "3"]


def test_redo_replays_the_players_action_and_the_computers_answer(tmp_path):
    path = tmp_path / "r.tgn"
    invoke("play", path, "--black", "computer:1", input="B@e1\nG@b1\nquit\n")
    played = actions_in(path)
    result = invoke("play", path, input="undo\nredo\nredo\nquit\n")
    assert result.exit_code == 0, result.stderr
    assert actions_in(path) == played       # the same answer, not a new search
    assert "nothing to redo" in result.stderr
    assert "tomis level 1 plays" not in result.stdout


def test_undo_cannot_take_back_only_the_computers_action(tmp_path):
    path = tmp_path / "w.tgn"
    result = invoke("play", path, "--white", "computer:1", input="undo\nquit\n")
    assert result.exit_code == 0, result.stderr
    assert "nothing of yours to undo" in result.stderr and len(actions_in(path)) == 1


def test_level_changes_the_computer_and_its_name_in_the_record(tmp_path):
    path = tmp_path / "l.tgn"
    result = invoke("play", path, "--black", "computer:1", input="level 3\nlevel 9\nB@e1\nquit\n")
    assert result.exit_code == 0, result.stderr
    assert "from now on: tomis level 3 (Black)" in result.stdout
    assert "level N takes a level from 1 to 8, not '9'" in result.stderr
    assert "tomis level 3 plays" in result.stdout
    assert record.read_game(path.read_text(encoding="utf-8")).tags["Black"] == "tomis level 3"


def test_resuming_with_an_option_lets_a_person_take_the_computers_side(tmp_path):
    path = tmp_path / "t.tgn"
    invoke("play", path, "--black", "computer:1", input="B@e1\nquit\n")
    result = invoke("play", path, "--black", "Bo", input="G@b1\nG@g8\nquit\n")
    assert result.exit_code == 0, result.stderr
    game = record.read_game(path.read_text(encoding="utf-8"))
    assert game.tags["Black"] == "Bo" and "BlackType" not in game.tags
    assert [str(n.action) for n in game.nodes][2:] == ["G@b1", "G@g8"]
