"""The verbs of :class:`tomis.Game` that the command line and the referee change games
with: play with a stamp and an offer, annotate, add a variation, adjudicate, abort.

Each verb either changes the game as documented or raises a TomisError and leaves it
exactly as it was (checked by comparing the written record before and after).
"""

from __future__ import annotations

import pytest

import tomis
from tomis import Game
from tomis.errors import IllegalActionError, NotationError, RecordError


def _opened(*actions: str, **tags) -> Game:
    game = Game(white="Ana", black="Bo", date="2026.11.22", **tags)
    for action in actions:
        game.play(action)
    return game


def _refused(game: Game, error, verb, *args, **kwargs):
    """``verb(*args)`` raises ``error`` and the game's record is byte for byte unchanged."""
    before = str(game)
    with pytest.raises(error) as raised:
        verb(*args, **kwargs)
    assert str(game) == before
    return raised.value


# ------------------------------------------------------------------ play with a stamp and an offer

def test_play_stamps_and_offers_with_the_action_and_the_record_reads_back():
    game = _opened()
    game.start_clock("30d", "2026-11-22T10:00Z")
    game.play("B@e1", stamp="2026-11-22T11:00Z")
    game.play("B@d8", stamp="2026-11-23T10:15Z", offer_draw=True)
    node = game.node(2)
    assert node.comments == ("[%ts 2026-11-23T10:15Z]",) and node.offer
    again = tomis.read_game(str(game))
    assert again.error is None and again.node(2).offer


def test_play_refuses_a_stamp_before_the_last_and_plays_nothing():
    game = _opened()
    game.play("B@e1", stamp="2026-11-23T10:15Z")
    error = _refused(game, RecordError, game.play, "B@d8", stamp="2026-11-22T10:15Z")
    assert "earlier than the record's last timestamp, 2026-11-23T10:15Z" in error.message
    assert len(game.actions) == 1


def test_an_offer_with_an_action_that_ends_the_game_is_dropped():
    game = tomis.read_game("samples/readme-win.tgn")
    last = game.undo()
    game.play(last, offer_draw=True)
    assert game.result == "1-0" and not game.nodes[-1].offer


def test_play_without_stamp_or_offer_is_the_plain_play():
    game = _opened("B@e1")
    assert game.node(1).comments == () and not game.node(1).offer


# ------------------------------------------------------------------ node and annotate

def test_node_refuses_an_action_the_game_lacks():
    game = _opened("B@e1")
    with pytest.raises(RecordError, match=r"the game has actions 1 to 1, not action 2"):
        game.node(2)
    with pytest.raises(RecordError, match=r"the game has no actions, not action 1"):
        _opened().node(1)


def test_annotate_writes_glyph_nags_and_an_evaluation_that_read_back():
    game = _opened("B@e1", "B@d8")
    game.annotate(2, glyph="?!", nags=[6, 14], comment="[%eval -0.40]")
    assert "B@d8?! $6 $14 {[%eval -0.40]}" in str(game)
    node = tomis.read_game(str(game)).node(2)
    assert (node.glyphs, node.nags, node.comments) == ("?!", (6, 14), ("[%eval -0.40]",))


@pytest.mark.parametrize("kwargs, message", [
    ({"glyph": "!!!"}, "'!!!' is not an annotation glyph"),
    ({"glyph": "?"}, "one annotation glyph per action: action 1 has '!' already"),
    ({"nags": [0]}, "a numeric annotation is 1 to 255"),
    ({"nags": [True]}, "a numeric annotation is 1 to 255"),
    ({"comment": "[%ts 2026-11-23T10:15Z]"}, r"\[%ts ...\] is a correspondence command"),
    ({"comment": "  "}, "a comment is some text"),
    ({"comment": "x" * 10_001}, "at most 10,000 characters"),
    ({"glyph": "?", "comment": "fine"}, "one annotation glyph per action"),
], ids=["bad-glyph", "second-glyph", "nag-0", "nag-bool", "command", "blank", "too-long",
        "all-or-nothing"])
def test_annotate_refuses_what_the_reader_would_and_changes_nothing(kwargs, message):
    game = _opened("B@e1")
    game.annotate(1, glyph="!")
    with pytest.raises(RecordError, match=message):
        game.annotate(1, **kwargs)
    assert game.node(1).comments == () and game.node(1).glyphs == "!"


def test_annotate_refuses_more_nags_than_one_action_may_hold():
    game = _opened("B@e1")
    game.annotate(1, nags=[1] * 255)
    _refused(game, RecordError, game.annotate, 1, nags=[1])


# ------------------------------------------------------------------ add_variation

def test_add_variation_plays_from_the_position_before_the_action_it_replaces():
    game = _opened("B@e1", "B@d8", "G@b1")
    line = game.add_variation(2, "1... B@a8 2. G@c1", comments=[["or the corner"], []])
    assert [(node.number, str(node.action)) for node in line] == [(2, "B@a8"), (3, "G@c1")]
    assert "1. B@e1 B@d8 (1... B@a8 {or the corner} 2. G@c1) 2. G@b1 *" in str(game)
    assert game.node(2).variations == (line,)
    assert tomis.read_game(str(game)).node(2).variations == (line,)


def test_add_variation_takes_a_list_of_actions_too():
    game = _opened("B@e1", "B@d8")
    line = game.add_variation(1, ["B@a1", tomis.Action.parse("B@h8")])
    assert [str(node.action) for node in line] == ["B@a1", "B@h8"]


@pytest.mark.parametrize("at, actions, error, message, column", [
    (2, "1... B@a8 2. G@d1", IllegalActionError, "(R6)", 14),
    (2, "1... Zz9", NotationError, "", 6),
    (2, "1... B@d8", RecordError, "the main line already plays these actions", 1),
    (2, "1... ", RecordError, "a variation holds at least one action", None),
    (3, "B@a1", RecordError, "the game has actions 1 to 2, not action 3", None),
], ids=["illegal", "unreadable", "main-line", "empty", "no-such-action"])
def test_add_variation_refuses_and_changes_nothing(at, actions, error, message, column):
    game = _opened("B@e1", "B@d8")
    raised = _refused(game, error, game.add_variation, at, actions)
    assert message in raised.message and raised.column == column


def test_add_variation_refuses_a_line_another_variation_plays():
    game = _opened("B@e1", "B@d8")
    game.add_variation(2, "B@a8")
    raised = _refused(game, RecordError, game.add_variation, 2, ["B@a8"])
    assert raised.message == "a variation of the record already plays these actions from there"


def test_add_variation_needs_one_comment_list_per_action():
    game = _opened("B@e1", "B@d8")
    _refused(game, RecordError, game.add_variation, 2, "B@a8", comments=[[], []])
    _refused(game, RecordError, game.add_variation, 2, "B@a8", comments=[["[%if B@a1 B@b1]"]])


# ------------------------------------------------------------------ adjudicate and abort

def test_adjudicate_writes_result_termination_and_reason_after_the_last_action():
    game = _opened("B@e1", "B@d8")
    game.adjudicate("0-1", "organiser: White left the club")
    text = str(game)
    assert '[Result "0-1"]' in text and '[Termination "adjudication"]' in text
    assert text.rstrip().endswith("1. B@e1 B@d8 {organiser: White left the club} 0-1")
    assert tomis.read_game(text).error is None


def test_adjudicate_without_actions_puts_the_reason_before_the_first():
    game = _opened()
    game.adjudicate("1/2-1/2", "nobody came")
    assert game.comments == ["nobody came"] and game.result == "1/2-1/2"


@pytest.mark.parametrize("result", ["*", "2-0", "1-1"])
def test_adjudicate_refuses_a_result_that_is_none(result):
    game = _opened("B@e1")
    _refused(game, RecordError, game.adjudicate, result, "why")


def test_adjudicate_and_abort_refuse_an_ended_game():
    game = _opened("B@e1")
    game.resign("black")
    _refused(game, RecordError, game.adjudicate, "0-1", "no")
    _refused(game, RecordError, game.abort, "no")


def test_abort_keeps_the_game_undecided_and_says_why():
    game = _opened("B@e1")
    game.abort("organiser: the club closed")
    text = str(game)
    assert '[Result "*"]' in text and '[Termination "abandoned"]' in text
    assert text.rstrip().endswith("1. B@e1 {organiser: the club closed} *")
    assert tomis.read_game(text).error is None


def test_a_reason_that_is_a_command_is_refused():
    game = _opened("B@e1")
    _refused(game, RecordError, game.abort, "see [%claim 2026-11-23T10:15Z]")
    _refused(game, RecordError, game.adjudicate, "1-0", "[%draw accept]")


def test_a_game_read_with_an_error_takes_no_verb():
    game = tomis.read_game("1. B@e1 B@e1 *")
    for verb, args in [(game.annotate, (1,)), (game.add_variation, (1, "B@a1")),
                       (game.adjudicate, ("1-0",)), (game.abort, ())]:
        with pytest.raises(RecordError, match="read with an error"):
            verb(*args)
