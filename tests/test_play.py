"""``tomis play`` without a terminal: the loop, its commands, saving, and the Player protocol.

(tests/test_play_tty.py drives it through a real pseudo-terminal.)
"""

from __future__ import annotations

import builtins
import json

import pytest
from conftest import invoke, written
from tomis.notation import record
from tomis.util import safefile
from tomis.cli import HumanPlayer, PlaySession
from tomis.cli.turns import Quit, Save, read_turn
from tomis.notation import parse_action


# --------------------------------------------------------------------------- through the CLI

def test_play_reads_actions_and_commands_from_a_pipe(tmp_path):
    path = tmp_path / "p.tgn"
    script = "B@e1\nB@z9\nmoves\nundo\nB@f1\nquit\n"
    result = invoke("play", path, input=script)
    assert result.exit_code == 0, result.stderr
    assert "Black played 1... B@z9" not in result.stdout
    assert "White played 1. B@f1 (action 1)" in result.stdout
    data = json.loads(invoke("show", path, "--json").stdout)
    assert data["units"] == [{"square": "f1", "side": "white", "piece": "base"}]


def test_play_resign_records_the_result(tmp_path):
    path = tmp_path / "p.tgn"
    result = invoke("play", path, input="B@e1\nresign\n")
    assert result.exit_code == 0
    assert "Black resigns: 1-0" in result.stdout
    assert "1-0" in path.read_text(encoding="utf-8")
    assert invoke("validate", path).exit_code == 0


@pytest.mark.parametrize("answers, agreed", [
    ("n\n", False), ("y\n", True), ("maybe\nno\nquit\n", False), ("maybe\nyes\n", True),
], ids=["n", "y", "maybe-then-no", "maybe-then-yes"])
def test_play_draw_needs_the_other_side_to_agree(tmp_path, answers, agreed):
    # Only yes or no answers the offer (R23); anything else is asked again.
    path = tmp_path / "p.tgn"
    result = invoke("play", path, input="draw\n" + answers)
    assert result.exit_code == 0, result.stderr
    assert ("1/2-1/2" in path.read_text(encoding="utf-8")) is agreed
    assert ("draw declined" in result.stdout) is not agreed
    assert ("please answer yes or no" in result.stderr) is answers.startswith("maybe")


def test_play_bad_name_for_a_new_game_is_a_usage_error(tmp_path):
    path = tmp_path / "p.tgn"
    result = invoke("play", path, "--white", "Ana\nBo", input="quit\n")
    assert result.exit_code == 2 and "--white" in result.stderr
    assert not path.exists()


def test_play_save_that_fails_does_not_keep_the_other_file_locked(tmp_path):
    taken = written(tmp_path / "taken.tgn", "1. B@e1 B@d8")
    before = taken.read_bytes()
    session = PlaySession(None, colour=False)
    with session.locks:
        session.open(None, None, None)
        session.do_save(Save(str(taken)))       # refused: save never replaces a file
        assert session.file is None
        with safefile.locked(taken):            # so another tomis may still change it
            pass
    assert taken.read_bytes() == before


def test_play_without_a_file_can_save_later(tmp_path):
    path = tmp_path / "later.tgn"
    result = invoke("play", input=f"B@e1\nsave {path}\n")
    assert result.exit_code == 0
    assert "B@e1" in path.read_text(encoding="utf-8")


def test_play_save_as_never_replaces_another_file(tmp_path):
    other = written(tmp_path / "other.tgn", "1. B@e1 B@d8")
    before = other.read_bytes()
    result = invoke("play", input=f"B@e1\nsave {other}\nsave {tmp_path / 'new.tgn'}\nquit\n")
    assert result.exit_code == 0
    assert f"{other}: already exists; choose another name or remove it first" in result.stderr
    assert other.read_bytes() == before
    assert len(record.read_game((tmp_path / "new.tgn").read_text()).nodes) == 1


# --------------------------------------------------------------------------- players

class ScriptedPlayer:
    """A Player (tomis.cli.play.Player) that plays lines from a list, read as a person's
    would be into actions and commands, and notes each call."""

    def __init__(self, name, lines, answers=(), calls=None):
        self.name = name
        self.lines = list(lines)
        self.answers = list(answers)
        self.calls = [] if calls is None else calls

    def turn(self, game):
        self.calls.append((self.name, "turn", game.position.action_number))
        return read_turn(self.lines.pop(0)) if self.lines else None

    def confirm(self, question, game):
        self.calls.append((self.name, "confirm", question))
        return self.answers.pop(0) if self.answers else None


def no_input(prompt=""):
    raise AssertionError(f"the loop read input() itself (prompt {prompt!r})")


def play_session(tmp_path, players):
    """Run a whole session on tmp_path/g.tgn with ``players``; the game as saved."""
    path = tmp_path / "g.tgn"
    session = PlaySession(str(path), colour=False, players=players)
    with session.locks:
        session.open(None, None, None)
        session.run()
    return record.read_game(path.read_text(encoding="utf-8"))


def test_the_loop_asks_the_player_of_the_side_to_act_and_never_input(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(builtins, "input", no_input)
    calls = []
    players = {"white": ScriptedPlayer("Ana", ["B@e1", "G@b1"], calls=calls),
               "black": ScriptedPlayer("computer", ["B@d8", "quit"], calls=calls)}
    game = play_session(tmp_path, players)
    assert calls == [("Ana", "turn", 1), ("computer", "turn", 2), ("Ana", "turn", 3),
                     ("computer", "turn", 4)]
    assert [str(node.action) for node in game.nodes] == ["B@e1", "B@d8", "G@b1"]
    out = capsys.readouterr().out
    # Every action is shown alike, whoever played it: its line, the combat, the board.
    for line in ("White played 1. B@e1 (action 1)", "Black played 1... B@d8 (action 2)",
                 "White played 2. G@b1 (action 3)"):
        assert out.split(line, 1)[1].startswith("\ncombat destroyed nothing\n     a     b"), line


def test_a_draw_offer_is_put_to_the_other_sides_player(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(builtins, "input", no_input)
    calls = []
    players = {"white": ScriptedPlayer("Ana", ["B@e1"], answers=[True], calls=calls),
               "black": ScriptedPlayer("Bo", ["draw", "quit"], calls=calls)}
    game = play_session(tmp_path, players)
    # Black offers at action 2, so White's player answers; then the game is over and
    # the side whose turn it was (Black) may still quit.
    assert calls == [("Ana", "turn", 1), ("Bo", "turn", 2),
                     ("Ana", "confirm", "do you accept a draw?"), ("Bo", "turn", 2)]
    assert game.result == "1/2-1/2"
    assert "draw agreed: 1/2-1/2 (R23)" in capsys.readouterr().out


def test_end_of_input_from_a_player_quits_and_the_game_is_saved(tmp_path, capsys):
    players = {"white": ScriptedPlayer("Ana", ["B@e1"]), "black": ScriptedPlayer("Bo", [])}
    game = play_session(tmp_path, players)
    assert len(game.nodes) == 1
    assert capsys.readouterr().out.endswith(f"bye; the game is in {tmp_path / 'g.tgn'}\n")


def test_a_human_player_reads_lines_through_ask_with_the_prompts_of_tomis_play():
    from tomis import Game

    prompts, replies = [], ["B@e1", "y", "no", None]

    def ask(prompt):
        prompts.append(prompt)
        return replies.pop(0)

    white = HumanPlayer("White", ask=ask)
    game = Game()
    assert white.turn(game) == parse_action("B@e1")
    assert white.confirm("do you accept a draw?", game) is True
    assert white.confirm("do you accept a draw?", game) is False
    assert white.confirm("do you accept a draw?", game) is None         # end of input
    # A yes/no question insists on yes or no (issue 17): "[yes/no]", not "[y/N]".
    assert prompts == ["White (action 1)> "] + ["White, do you accept a draw? [yes/no] "] * 3
    game.resign("white")
    replies.append("quit")
    assert white.turn(game) == Quit() and prompts[-1] == "game over (0-1)> "


# --------------------------------------------------------------------------- at the board

def test_between_people_undo_n_takes_back_n_actions_and_redo_plays_them_again(tmp_path):
    path = tmp_path / "h.tgn"
    result = invoke("play", path, input="B@e1\nB@d8\nG@b1\nundo 2\nredo\nquit\n")
    assert result.exit_code == 0, result.stderr
    game = record.read_game(path.read_text(encoding="utf-8"))
    assert [str(node.action) for node in game.nodes] == ["B@e1", "B@d8"]
    assert "took back action 3, White's G@b1" in result.stdout
    assert "took back action 2, Black's B@d8" in result.stdout
    # Two people without names stay "?" (nobody is guessed); the date is today's (UTC).
    from tomis.cli.files import today_tag

    assert (game.tags["White"], game.tags["Black"]) == ("?", "?")
    assert game.tags["Date"] == today_tag() and "WhiteType" not in game.tags


def test_a_new_move_forgets_what_undo_took_back(tmp_path):
    path = tmp_path / "f.tgn"
    result = invoke("play", path, input="B@e1\nundo\nB@f1\nredo\nquit\n")
    assert result.exit_code == 0, result.stderr
    assert "nothing to redo" in result.stderr
    assert [str(n.action) for n in record.read_game(path.read_text()).nodes] == ["B@f1"]


def test_history_lists_the_actions_numbered(tmp_path):
    result = invoke("play", input="history\nB@e1\nB@d8\nG@b1\nhistory\nquit\ny\n")
    assert result.exit_code == 0, result.stderr
    assert "no actions yet" in result.stdout
    assert "1. B@e1 B@d8 2. G@b1\n" in result.stdout


def test_compact_mode_shows_each_action_in_at_most_twelve_lines(tmp_path):
    path = tmp_path / "c.tgn"
    result = invoke("play", path, "--compact", input="B@e1\nB@d8\ncompact\nG@b1\nquit\n")
    assert result.exit_code == 0, result.stderr
    blocks = result.stdout.split("> ")       # the prompts cut the output per action
    after_b_d8 = blocks[2].splitlines()[:-1]     # up to the next prompt's line
    assert after_b_d8[0] == "Black played 1... B@d8 (action 2); combat destroyed nothing"
    assert len(after_b_d8) <= 12 and after_b_d8[-1] == "Action 3: White to act"
    assert "compact board off" in result.stdout
    assert len(blocks[4].splitlines()) > 12 and "White reserve" in blocks[4]     # full again


def test_flip_turns_the_board_round(tmp_path):
    result = invoke("play", input="flip\nflip\nquit\n")
    assert result.exit_code == 0, result.stderr
    start, flipped, back = result.stdout.split("> ")[:3]     # before and after each flip
    forward, backward = "a     b     c     d     e     f     g     h", "h     g     f     e     d     c     b     a"
    assert forward in start and backward not in start
    assert backward in flipped and forward not in flipped
    assert forward in back and backward not in back


def test_clock_hint_and_help_at_the_board(tmp_path):
    path = tmp_path / "k.tgn"
    assert invoke("new", path, "--time-control", "30d+3d").exit_code == 0
    result = invoke("play", path, input="clock\nhint\nhelp\nlevel 2\nundo x\nquit\n")
    assert result.exit_code == 0, result.stderr
    assert "TimeControl 30d+3d" in result.stdout and "White: 30d left" in result.stdout
    assert "hint: 1. B@" in result.stdout and "expected line: 1. B@" in result.stdout
    for word in ("hint", "history", "clock", "flip", "compact", "level N", "undo [N]", "redo [N]"):
        assert f"\n  {word} " in result.stdout, word
    assert "the computer plays neither side" in result.stderr
    assert "undo N takes a number of actions from 1, not 'x'" in result.stderr
    no_clock = invoke("play", input="clock\nquit\n")
    assert "this game has no clock" in no_clock.stderr


def test_new_dates_the_record_today_and_never_guesses_names(tmp_path):
    from tomis.cli.files import today_tag

    path = tmp_path / "n.tgn"
    assert invoke("new", path).exit_code == 0
    game = record.read_game(path.read_text(encoding="utf-8"))
    assert game.tags["Date"] == today_tag() and (game.tags["White"], game.tags["Black"]) == ("?", "?")
    dated = tmp_path / "d.tgn"
    assert invoke("new", dated, "--date", "2026.01.02").exit_code == 0
    assert record.read_game(dated.read_text(encoding="utf-8")).tags["Date"] == "2026.01.02"
