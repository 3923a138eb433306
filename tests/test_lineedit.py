"""tomis/lineedit.py without a terminal: plain lines, end of input, yes/no, history files.

What only a terminal shows (editing keys, Up for history, Tab completion, Ctrl-C) is
tested through a pseudo-terminal in tests/test_play_keyboard.py.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tomis.cli.lineedit import (
    LineEditor, ask_yes_no, history_dir, history_path, matching, split_word,
)


def editor(text: str, **kwargs) -> tuple[LineEditor, io.StringIO]:
    out = io.StringIO()
    return LineEditor(stdin=io.StringIO(text), stdout=out, environ={}, **kwargs), out


def test_plain_lines_come_back_without_their_newline():
    ask, out = editor("B@e1\nquit")
    assert ask("White> ") == "B@e1"
    assert ask("Black> ") == "quit"
    assert out.getvalue() == "White> Black> "


def test_after_end_of_input_no_prompt_is_printed_again():
    ask, out = editor("")
    assert [ask("> ") for _ in range(58)] == [None] * 58
    assert out.getvalue() == "> \n"          # one prompt (its line ended), not 58
    assert ask.at_end


def test_a_pipe_is_not_edited_interactively():
    ask, _out = editor("x\n")
    assert not ask.interactive


def test_a_closed_stdin_is_end_of_input(monkeypatch):
    monkeypatch.setattr("sys.stdin", None)
    out = io.StringIO()
    ask = LineEditor(stdout=out, environ={})
    assert ask("> ") is None
    assert out.getvalue() == ""


def yes_no(answers: str):
    ask, out = editor(answers)
    said = []
    return ask_yes_no(ask, "Accept a draw?", said.append), said, out.getvalue()


@pytest.mark.parametrize("typed, expected", [
    ("y\n", True), ("YES\n", True), (" yes \n", True), ("n\n", False), ("No\n", False)])
def test_yes_no_takes_yes_and_no_in_any_case(typed, expected):
    answer, said, _out = yes_no(typed)
    assert answer is expected and said == []


def test_yes_no_asks_again_after_maybe_and_an_empty_line():
    answer, said, out = yes_no("maybe\n\nyes\n")
    assert answer is True
    assert said == ["  please answer yes or no"] * 2
    assert out.count("Accept a draw? [yes/no] ") == 3


def test_yes_no_at_end_of_input_is_no_answer():
    answer, said, _out = yes_no("maybe\n")
    assert answer is None and said == ["  please answer yes or no"]


def test_history_lives_in_the_xdg_state_dir(tmp_path):
    env = {"XDG_STATE_HOME": str(tmp_path / "state"), "HOME": str(tmp_path / "home")}
    assert history_dir(env) == tmp_path / "state" / "tomis" / "history"
    assert history_dir({"HOME": str(tmp_path / "home")}) == (
        tmp_path / "home" / ".local" / "state" / "tomis" / "history")


def test_two_records_with_the_same_name_get_different_histories(tmp_path):
    env = {"XDG_STATE_HOME": str(tmp_path)}
    one = history_path(tmp_path / "a" / "game.tgn", env)
    other = history_path(tmp_path / "b" / "game.tgn", env)
    assert one != other
    assert one.name.startswith("game.tgn-") and other.name.startswith("game.tgn-")


def test_the_same_record_named_two_ways_shares_its_history(tmp_path, monkeypatch):
    env = {"XDG_STATE_HOME": str(tmp_path / "state")}
    monkeypatch.chdir(tmp_path)
    assert history_path("game.tgn", env) == history_path(tmp_path / "game.tgn", env)


def test_an_odd_file_name_gives_a_tame_history_name(tmp_path):
    name = history_path(tmp_path / "we\u00efrd name;$(x).tgn", {"XDG_STATE_HOME": str(tmp_path)}).name
    assert " " not in name and "$" not in name and ";" not in name


def test_the_word_being_typed_is_the_text_after_the_last_space():
    assert split_word("mov") == ("", "mov")
    assert split_word("moves b") == ("moves ", "b")
    assert split_word("save ") == ("save ", "")


def test_matching_ignores_case_and_keeps_order_once():
    assert matching(["F@a1", "F@b1", "f@a1", "moves"], "f@") == ["F@a1", "F@b1", "f@a1"]
    assert matching(["moves", "quit", "moves"], "") == ["moves", "quit"]


def test_a_history_that_cannot_be_written_does_not_stop_the_game(tmp_path):
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("x", encoding="utf-8")
    pytest.importorskip("prompt_toolkit")
    from tomis.cli.lineedit import _file_history

    history = _file_history(Path(blocked) / "tomis" / "game.history")
    history.append_string("B@e1")            # mkdir fails under a file: silently skipped
    assert list(history.load_history_strings()) == []
