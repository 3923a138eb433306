"""tomis.correspondence: the clock, offer, claim and conditional facts of a record, checked."""

from __future__ import annotations

import pytest

from tomis import clock, correspondence, record
from tomis.errors import NotationError, RecordError

HEAD = '[TimeControl "30d+3d"]\n\n'


def facts_of(text):
    game = record.read_game(text)
    return game, correspondence.read_facts(game)


def refusal(text) -> RecordError:
    game, facts = facts_of(text)
    with pytest.raises(RecordError) as caught:
        correspondence.check(game, facts)
    return caught.value


def test_an_ordinary_record_uses_nothing():
    game, facts = facts_of("1. B@e1 {a [%clk 0:03:00] note} B@d8 *")
    assert not facts.used and facts.commands == ()
    assert correspondence.digest_lines(game) is None
    assert correspondence.check(game, facts).clock is None


def test_stamps_and_control_are_read():
    game, facts = facts_of(HEAD + "{[%ts 2026-11-01T10:00Z]} 1. B@e1 {[%ts 2026-11-02T10:00Z] [%eval 3]} *")
    assert facts.control == clock.parse_time_control("30d+3d")
    assert facts.start == clock.parse_stamp("2026-11-01T10:00Z")
    assert facts.stamps == (clock.parse_stamp("2026-11-02T10:00Z"),)
    assert facts.used
    assert correspondence.check(game, facts).clock.left == (32 * clock.DAY, 30 * clock.DAY)
    assert correspondence.digest_lines(game) == (
        ["timecontrol 30d+3d", "ts 2026-11-01T10:00Z"], [["ts 2026-11-02T10:00Z"]], [])


@pytest.mark.parametrize("movetext, message", [
    ("1. B@e1 {[%ts 2026-11-01T10:00Z]} B@d8 *",
     "action 2 (Black) B@d8: the game has a TimeControl, so every action carries a timestamp like "
     "{[%ts 2026-11-23T10:15Z]}; this one has none"),
    ("1. B@e1 {[%ts 2026-11-02T10:00Z]} B@d8 {[%ts 2026-11-01T10:00Z]} *",
     "action 2 (Black) B@d8: the timestamp 2026-11-01T10:00Z is earlier than action 1's, "
     "2026-11-02T10:00Z; timestamps never go backwards"),
])
def test_clock_refusals(movetext, message):
    error = refusal(HEAD + movetext)
    assert error.message == message
    assert error.action == 2


def test_malformed_commands_are_refused_at_reading():
    game = record.read_game("1. B@e1 {[%ts tomorrow]} *")
    with pytest.raises(RecordError) as caught:
        correspondence.read_facts(game)
    assert caught.value.message == "[%ts ...]: expected a UTC time like 2026-11-23T10:15Z, found 'tomorrow'"
    game = record.read_game("1. B@e1 {[%ts 2026-11-02T10:00Z] [%ts 2026-11-02T10:00Z]} *")
    with pytest.raises(RecordError) as caught:
        correspondence.read_facts(game)
    assert caught.value.message == "action 1 (White) B@e1: the action is stamped twice; one [%ts ...] per action"
    game = record.read_game("1. B@e1 {[%if B@d8]} *")
    with pytest.raises(NotationError) as caught:
        correspondence.read_facts(game)
    assert caught.value.message == ("a conditional line holds pairs THEIRS MINE; its last action "
                                    "'B@d8' has no reply after it")
    game = record.read_game("1. B@e1 {[%draw offer]} *")
    with pytest.raises(RecordError) as caught:
        correspondence.read_facts(game)
    assert caught.value.message == "expected [%draw accept], found [%draw offer]"


def test_a_line_that_cannot_be_played_is_refused():
    error = refusal("1. B@e1 {[%if B@d8 G@d1]} *")
    assert error.message == (
        "action 1 (White) B@e1: the conditional line [%if B@d8 G@d1] cannot be played: action 3 "
        "(White) G@d1: a gate on the home row leaves at least one empty square between it and the "
        "base (R6)")
    assert error.action == 1


def test_a_line_not_honoured_is_refused_and_one_honoured_is_not():
    error = refusal("1. B@e1 {[%if B@d8 G@b1]} B@d8 2. G@c1 *")
    assert error.message == (
        "action 3 (White) G@c1: the conditional line [%if B@d8 G@b1] stored after action 1 binds "
        "White to answer B@d8 with G@b1, but G@c1 was played; the line was not honoured")
    game, facts = facts_of("1. B@e1 {[%if B@d8 G@b1]} B@d8 2. G@b1 *")
    assert correspondence.check(game, facts).lines.owed is None
    game, facts = facts_of("1. B@e1 {[%if B@d8 G@b1]} B@a8 2. G@c1 *")     # cancelled
    assert correspondence.check(game, facts).lines.pending == ((), ())


def test_an_accepted_draw_needs_an_offer_and_a_timed_draw_needs_acceptance():
    error = refusal("1. B@e1 B@d8 {[%draw accept]} 1/2-1/2")
    assert error.message == ("[%draw accept] accepts a draw offer, but no offer of Black stands: "
                             "the last action carries no (=) (R23)")
    error = refusal(HEAD + "1. B@e1 {[%ts 2026-11-02T10:00Z]} 1/2-1/2")
    assert error.message == ("the game has a TimeControl and ends 1/2-1/2 without a decided position; "
                             "an agreed draw is an accepted offer: (=) after the last action and "
                             "{[%draw accept]} (R23)")
    error = refusal("1. B@e1 {[%draw accept]} B@d8 1/2-1/2")
    assert error.message == "[%draw ...] ends the game: it stands only after the last action"


def test_claims_are_checked_against_the_clock():
    timed = HEAD + "{[%ts 2026-11-01T10:00Z]} 1. B@e1 {[%ts 2026-11-02T10:00Z] "
    won = '[Termination "time forfeit"]\n' + timed + "[%claim 2026-12-02T10:01Z]} 1-0"
    game, facts = facts_of(won)
    assert correspondence.check(game, facts).clock is not None
    early = '[Termination "time forfeit"]\n' + timed + "[%claim 2026-12-02T10:00Z]} 1-0"
    assert refusal(early).message == (
        "the claim at 2026-12-02T10:00Z gives the game to White, but Black's time had not run "
        "out: 0m left (TimeControl 30d+3d)")
    untagged = timed + "[%claim 2026-12-02T10:01Z]} 1-0"
    assert refusal(untagged).message == 'a game won by a claim on time carries [Termination "time forfeit"]'
    wrong_winner = '[Termination "time forfeit"]\n' + timed + "[%claim 2026-12-02T10:01Z]} 0-1"
    assert refusal(wrong_winner).message == (
        "the claim at 2026-12-02T10:01Z gives the game to Black, but White's time had not run "
        "out: 32d left (TimeControl 30d+3d)")
    no_clock = '[Termination "time forfeit"]\n1. B@e1 {[%claim 2026-12-02T10:01Z]} 1-0'
    assert refusal(no_clock).message == "[%claim ...] claims on time, but the game has no TimeControl tag"
