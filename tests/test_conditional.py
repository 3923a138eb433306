"""tomis.notation.conditional: binding lines [%if THEIRS MINE ...] checked, fired, cancelled, honoured."""

import pytest

import tomis
from tomis.notation import conditional
from tomis.notation.conditional import Fired, Line, NotHonoured
from tomis.errors import NotationError, RecordError

OPENING = ["B@e1", "B@d8", "G@b1", "G@g8", "G@f2", "G@a7", "G@c3", "G@e6"]


# --------------------------------------------------------------------------- reading a line

def test_parse_line_gives_canonical_pairs():
    assert conditional.parse_line("B@d8 G@b1  G@g8 G@f2") == ("B@d8", "G@b1", "G@g8", "G@f2")


@pytest.mark.parametrize("arguments, column, message", [
    ("", 1, "a conditional line [%if THEIRS MINE ...] names at least one pair of actions, found none"),
    ("B@d8", 1, "a conditional line holds pairs THEIRS MINE; its last action 'B@d8' has no reply "
                "after it"),
    ("B@d8 G@b1 G@g8", 11, "a conditional line holds pairs THEIRS MINE; its last action 'G@g8' has "
                           "no reply after it"),
    ("B@d8 x@b1", 6, "in a conditional line: expected a piece letter (B G M F S T Q) at the start "
                     "of 'x@b1'"),
    ("B@d8 Ga9-a3", 7, "in a conditional line: expected a square like e4 after 'G' in 'Ga9-a3'"),
])
def test_parse_line_refusals_are_located_in_the_arguments(arguments, column, message):
    with pytest.raises(NotationError) as caught:
        conditional.parse_line(arguments)
    assert (caught.value.column, caught.value.message) == (column, message)


# --------------------------------------------------------------------------- playable when stored

def test_a_legal_line_is_accepted():
    after_base = tomis.Position().play("B@e1").state      # the rules state, as a record holds it
    conditional.check_playable(after_base, ("B@d8", "G@b1", "G@g8", "G@f2"))


@pytest.mark.parametrize("line, message", [
    (("B@d8", "G@d1"), "action 3 (White) G@d1: a gate on the home row leaves at least one empty "
                       "square between it and the base (R6)"),
    (("B@d8", "Fa2-a3"), "action 3 (White) Fa2-a3: actions 3-10 place one gate each; nothing else "
                         "before all eight gates are down (R6, R7)"),
    (("B@e1", "G@b1"), None),      # THEIRS itself illegal: Black's base cannot go on rank 1
])
def test_an_illegal_action_anywhere_in_the_line_is_refused_with_the_engine_reason(line, message):
    after_base = tomis.Position().play("B@e1").state      # the rules state, as a record holds it
    with pytest.raises(RecordError) as caught:
        conditional.check_playable(after_base, line)
    text = caught.value.message
    assert text.startswith(f"the conditional line [%if {' '.join(line)}] cannot be played: action ")
    if message is not None:
        assert text.endswith(message)
    else:
        assert "action 2 (Black) B@e1: " in text and text.endswith(")")   # names its ruling


def test_a_line_may_not_go_on_after_an_action_that_ends_the_game():
    game = tomis.read_game("samples/manual-win.tgn")
    before_win = game.positions()[-3].state      # after action 57, White's T@f1
    winning = str(game.actions[-1])
    reply_to = str(game.actions[-2])
    line = (reply_to, winning, "F@b8", "F@d8")   # the win comes in the middle of the line
    with pytest.raises(RecordError) as caught:
        conditional.check_playable(before_win, line)
    assert caught.value.message == (
        f"the conditional line [%if {' '.join(line)}] cannot be played: action 59 {winning} "
        f"ends the game (1-0: Black's base destroyed (R21)), but the line goes on")
    conditional.check_playable(before_win, line[:2])   # ending the game with the last action is fine


# --------------------------------------------------------------------------- following a record

def test_a_line_fires_and_binds_the_reply():
    # White stores after action 1: if B@d8 then G@b1, if G@g8 then G@f2.
    stored = {1: [("B@d8", "G@b1", "G@g8", "G@f2")]}
    state = conditional.follow(1, ["B@e1", "B@d8"], stored)
    assert state.owed == Fired(Line(0, 1, ("B@d8", "G@b1", "G@g8", "G@f2")), 3)
    assert state.owed.reply == "G@b1"
    state = conditional.follow(1, ["B@e1", "B@d8", "G@b1"], stored)
    assert state.owed is None
    assert state.pending[0] == (Line(0, 1, ("B@d8", "G@b1", "G@g8", "G@f2"), next=2),)
    assert state.pending[0][0].rest == ("G@g8", "G@f2")
    done = conditional.follow(1, ["B@e1", "B@d8", "G@b1", "G@g8", "G@f2"], stored)
    assert done.pending == ((), ()) and done.owed is None


def test_another_action_cancels_the_line():
    stored = {1: [("B@d8", "G@b1")]}
    state = conditional.follow(1, ["B@e1", "B@a8"], stored)
    assert state.pending == ((), ()) and state.owed is None
    # ... and White is free again.
    conditional.follow(1, ["B@e1", "B@a8", "G@c1"], stored)


def test_a_line_not_honoured_is_refused():
    stored = {1: [("B@d8", "G@b1")]}
    with pytest.raises(NotHonoured) as caught:
        conditional.follow(1, ["B@e1", "B@d8", "G@c1"], stored)
    assert caught.value.number == 3
    assert caught.value.message == (
        "the conditional line [%if B@d8 G@b1] stored after action 1 binds White to answer B@d8 "
        "with G@b1, but G@c1 was played; the line was not honoured")
    assert conditional.unfinished_reply(conditional.follow(1, ["B@e1", "B@d8"], stored).owed) == (
        "the conditional line [%if B@d8 G@b1] stored after action 1 binds White to answer B@d8 "
        "with G@b1 at once, but the record stops there; the line was not honoured")


def test_several_lines_one_fires_the_others_are_cancelled():
    stored = {2: [("G@b1", "G@g8"), ("G@c1", "G@a7", "G@f2", "G@b8")]}
    state = conditional.follow(1, ["B@e1", "B@d8", "G@c1"], stored)
    assert state.owed.reply == "G@a7" and state.owed.side == 1
    state = conditional.follow(1, ["B@e1", "B@d8", "G@c1", "G@a7"], stored)
    assert state.pending == ((), (Line(1, 2, ("G@c1", "G@a7", "G@f2", "G@b8"), next=2),))


def test_two_lines_waiting_for_the_same_action_are_refused():
    stored = {2: [("G@b1", "G@g8"), ("G@b1", "G@a7")]}
    with pytest.raises(RecordError) as caught:
        conditional.follow(1, ["B@e1", "B@d8"], stored)
    assert caught.value.message == (
        "two conditional lines of Black wait for G@b1: [%if G@b1 G@a7] and [%if G@b1 G@g8]; "
        "at most one line may answer an action")


def test_lines_follow_action_numbers_from_a_later_start():
    stored = {11: [("F@h8", "Fa1-a2")]}
    state = conditional.follow(11, ["F@a1", "F@h8"], stored)
    assert state.owed == Fired(Line(0, 11, ("F@h8", "Fa1-a2")), 13)
