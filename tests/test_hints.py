"""tomis/hints.py: telling prose from a record, and spotting swapped arguments."""

from __future__ import annotations

from pathlib import Path

import pytest

from tomis.util.hints import (
    looks_like_a_record, looks_like_an_action, shell_took_a_redirect, swapped_arguments,
)

ROOT = Path(__file__).resolve().parent.parent
RECORDS = sorted((ROOT / "samples").glob("*.tgn")) + sorted((ROOT / "tests" / "data" / "records").glob("*.tgn"))


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.name)
def test_every_real_record_looks_like_one(path):
    assert looks_like_a_record(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("text", [
    '[Event "Club"]\n', "1. x", "B@e1", "  Fa2-a3 ", "*", "1-0", "Mc3:NE", "12... y"])
def test_one_sign_of_a_record_is_enough(text):
    assert looks_like_a_record(text)


@pytest.mark.parametrize("text", [
    "Hello Bo, how are you? Let us play tomorrow.\n",
    "Dear Ana,\n\nI'll be away on 12.3 until Friday. Say hi to F and B!\n",
    "", "   \n\n", "shopping: eggs, milk, 2 loaves",
    "email@e1.example is my address",            # an @ inside a word is not a placement
])
def test_prose_does_not_look_like_a_record(text):
    assert not looks_like_a_record(text)


@pytest.mark.parametrize("word, expected", [
    ("B@e1", True), ("Fa2-a3", True), ("Mc3:NE", True), ("Fb2^e5", True),
    ("game.tgn", False), ("-", False), ("b@e1", False), ("e4", False)])
def test_action_shapes(word, expected):
    assert looks_like_an_action(word) is expected


def test_swapped_arguments_are_named_with_the_right_order(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "g.tgn").write_text("*\n", encoding="utf-8")
    assert swapped_arguments("move", "B@e1", "g.tgn") == (
        "FILE comes before ACTION: did you mean 'tomis move g.tgn B@e1'?")


def test_no_swap_hint_when_the_other_argument_is_no_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert swapped_arguments("move", "B@e1", "nosuch.tgn") is None
    assert swapped_arguments("move", "game.tgn", "B@e1") is None


def test_a_file_name_with_spaces_is_quoted_for_the_shell(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my game.tgn").write_text("*\n", encoding="utf-8")
    assert "tomis move 'my game.tgn' B@e1" in swapped_arguments("move", "B@e1", "my game.tgn")


def test_a_frigate_and_a_square_alone_may_be_a_gate_jump_the_shell_cut():
    assert "put it in quotes ('Fc3>e4')" in shell_took_a_redirect("Fc3")
    assert shell_took_a_redirect("Fc3-c4") is None
    assert shell_took_a_redirect("B@e1") is None
