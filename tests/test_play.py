"""``tomis play`` without a terminal: the loop, its commands, saving, and the Player protocol.

(tests/test_play_tty.py drives it through a real pseudo-terminal.)
"""

from __future__ import annotations

import builtins
import json

from conftest import invoke, written
from tomis import record, safefile
from tomis.cli import HumanPlayer, PlaySession


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


def test_play_draw_needs_the_other_side_to_agree(tmp_path):
    path = tmp_path / "p.tgn"
    invoke("play", path, input="draw\nn\n")
    assert "1/2-1/2" not in path.read_text(encoding="utf-8")
    invoke("play", path, input="draw\ny\n")
    assert "1/2-1/2" in path.read_text(encoding="utf-8")


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
        session.do_save(str(taken))             # refused: save never replaces a file
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
    assert f"{other}:0:0: already exists; choose another name or remove it first" in result.stderr
    assert other.read_bytes() == before
    assert len(record.read_game((tmp_path / "new.tgn").read_text()).nodes) == 1


# --------------------------------------------------------------------------- players

class ScriptedPlayer:
    """A Player (tomis.cli.play.Player) that plays lines from a list and notes each call."""

    def __init__(self, name, lines, answers=(), calls=None):
        self.name = name
        self.lines = list(lines)
        self.answers = list(answers)
        self.calls = [] if calls is None else calls

    def turn(self, game):
        self.calls.append((self.name, "turn", game.position.action_number))
        return self.lines.pop(0) if self.lines else None

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
    assert white.turn(game) == "B@e1"
    assert white.confirm("do you accept a draw?", game) is True
    assert white.confirm("do you accept a draw?", game) is False
    assert white.confirm("do you accept a draw?", game) is None         # end of input
    assert prompts == ["White (action 1)> "] + ["White, do you accept a draw? [y/N] "] * 3
    game.resign("white")
    replies.append("quit")
    assert white.turn(game) == "quit" and prompts[-1] == "game over (0-1)> "
