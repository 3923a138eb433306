"""One numbering everywhere for a game started from a position (``tomis new --position``).

The move number is the record's, continuing from the position; the action number counts
from the game's start as the position's action number gives it (R4: odd actions are
White's). Every view says the same: ``move``, ``replay``, the ``play`` prompt, ``show
--at``, ``export --jsonl``, the GIF captions and the replay page (docs/NOTATION.md,
"The Position tag").
"""

from __future__ import annotations

import json
import re

import pytest
from conftest import ROOT, invoke

import tomis
from tomis.notation import record
from tomis.pictures import html, images

SAMPLE = ROOT / "samples" / "manual-win.tgn"


@pytest.fixture
def from_position(tmp_path):
    """A record started from manual-win's position after action 48, and the sample's
    actions 49 and 50 to play from it."""
    game = next(iter(tomis.read_games(SAMPLE)))
    start = game.positions()[48].to_string()
    path = tmp_path / "g.tgn"
    result = invoke("new", path, "--position", start)
    assert result.exit_code == 0, result.stderr
    assert "Action 49: White to act" in result.stdout
    return path, [str(action) for action in game.actions[48:50]]


def test_a_game_from_a_position_is_numbered_alike_everywhere(from_position):
    path, (white, black) = from_position

    # move: the heading of each action (R4: action 49 is White's, of move 25).
    played = invoke("move", path, white)
    assert played.exit_code == 0, played.stderr
    assert f"White played 25. {white} (action 49)" in played.stdout
    assert f"Black played 25... {black} (action 50)" in invoke("move", path, black).stdout

    # the record: the move number goes on from the position's.
    assert f"25. {white} {black} *" in path.read_text(encoding="utf-8")

    # show --at N: after action N, the start being the position's own number, 48.
    assert f"White played 25. {white} (action 49)" in invoke("show", path, "--at", 49).stdout
    assert "Action 49: White to act" in invoke("show", path, "--at", 48).stdout
    refused = invoke("show", path, "--at", 47)
    assert refused.exit_code == 2
    assert "choose 48 to 50" in refused.stderr

    # replay, whole and from action 50.
    replayed = invoke("replay", path).stdout
    assert f"(action 49)" in replayed and f"Black played 25... {black} (action 50)" in replayed
    assert invoke("replay", path, "--from", 50).stdout.startswith(f"Black played 25... {black} (action 50)")

    # export --jsonl: the number of each row.
    rows = [json.loads(line) for line in invoke("export", path, "--jsonl").stdout.splitlines()]
    assert [(row["number"], row["action"]) for row in rows] == [(49, white), (50, black)]

    # the GIF's captions and the replay page's links and announcements.
    game = record.read_game(path.read_text(encoding="utf-8"))
    assert [caption.headline for caption in images.frame_captions(game)[1:3]] == [
        f"25. {white} (action 49)", f"25... {black} (action 50)"]
    page = html.page(game)
    assert re.findall(r'href="#action=(\d+)"', page) == ["48", "49", "50"]
    assert '<div id="board" data-action="50">' in page

    # the play prompt, for the action after them.
    prompt = invoke("play", path, input="quit\n").stdout
    assert "White (action 51)> " in prompt


def test_play_numbers_an_action_from_a_position_as_move_does(from_position):
    path, (white, _black) = from_position
    result = invoke("play", path, input=f"{white}\nquit\n")
    assert result.exit_code == 0, result.stderr
    assert f"White played 25. {white} (action 49)" in result.stdout
    assert "(action 1)" not in result.stdout


@pytest.mark.parametrize("value, words", [
    ("-1", "an action number is 0 (the start) or more, not -1"),
    ("abc", "an action number is a whole number like 12, not 'abc'"),
])
def test_show_refuses_an_action_number_in_a_players_words(value, words):
    result = invoke("show", SAMPLE, "--at", value)
    assert result.exit_code == 2
    assert words in result.stderr


def test_show_flip_turns_the_text_board_too():
    upright = invoke("show", SAMPLE, "--ascii").stdout
    flipped = invoke("show", SAMPLE, "--ascii", "--flip").stdout
    assert "     a     b     c     d     e     f     g     h" in upright
    assert "     h     g     f     e     d     c     b     a" in flipped
    assert flipped.index(" 1 | ") < flipped.index(" 8 | ")          # rank 1 on top


def test_a_file_of_several_games_says_which_one_is_shown(tmp_path):
    text = SAMPLE.read_text(encoding="utf-8")
    path = tmp_path / "two.tgn"
    path.write_text(text + "\n" + text, encoding="utf-8")
    first = invoke("show", path)
    assert first.exit_code == 0
    assert "the file holds more than one game; this is game 1 (--game K for another)" in first.stderr
    assert "more than one game" not in invoke("show", path, "--game", 1).stderr     # chosen
    assert "more than one game" not in invoke("show", SAMPLE).stderr               # only one
