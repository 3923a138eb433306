"""Correspondence play in records: clocks, stamps, draw offers, claims and conditional lines,
read (valid, and every way wrong with line, column and message), written back, and covered
by the Digest (docs/NOTATION.md, "Correspondence play")."""

from __future__ import annotations

import pytest

from tomis.notation import clock, correspondence, record
from tomis.notation.digest import game_digest

TC = '[TimeControl "30d+3d"]\n\n'
START = "{[%ts 2026-11-01T10:00Z]} "


def error_of(text):
    checked = record.read(text)
    assert len(checked) == 1
    return checked[0].error


def located(text):
    error = error_of(text)
    assert error is not None, "the record was accepted"
    return error.line, error.column, error.message


# --------------------------------------------------------------------------- valid records

def test_an_ordinary_record_uses_nothing_and_keeps_digest_format_1():
    game = record.read_game("1. B@e1 {a [%clk 0:03:00] note} B@d8 *")
    facts = correspondence.read_facts(game)
    assert not facts.used and facts.commands == ()
    assert correspondence.digest_lines(game) == ([], [[], []], [])
    from tomis.notation.digest import digest_of
    from tomis.rules.position import to_string
    assert game_digest(game) == digest_of("manual", to_string(game.start), ["B@e1", "B@d8"], "*")


def test_unknown_commands_are_kept_word_for_word():
    text = "1. B@e1 {[%clk 0:03:00] [%eval +0.3]} *"
    game = record.read_game(text)
    assert game.nodes[0].comments == ["[%clk 0:03:00] [%eval +0.3]"]
    assert "{[%clk 0:03:00] [%eval +0.3]}" in record.write(game)


def test_a_timed_record_is_read_with_its_clock():
    text = TC + START + "1. B@e1 {[%ts 2026-11-02T10:00Z]} B@d8 (=) {[%ts 2026-11-05T10:00Z]} *"
    game = record.read_game(text)
    assert game.nodes[1].offer and not game.nodes[0].offer
    facts = correspondence.read_facts(game)
    assert facts.control == clock.parse_time_control("30d+3d")
    assert facts.start == clock.parse_stamp("2026-11-01T10:00Z")
    assert correspondence.check(game, facts).clock.left == (32 * clock.DAY, 30 * clock.DAY)
    assert game.flag_falls == ()
    assert correspondence.digest_lines(game) == (
        ["timecontrol 30d+3d", "ts 2026-11-01T10:00Z"],
        [["ts 2026-11-02T10:00Z"], ["ts 2026-11-05T10:00Z", "offer"]], [])


def test_offers_lines_and_stamps_round_trip_through_the_writer():
    text = (TC + START + "1. B@e1 {[%ts 2026-11-02T10:00Z] [%if B@d8 G@b1]} B@d8 (=)! $1 "
            "{[%ts 2026-11-03T10:00Z]} 2. G@b1 {[%ts 2026-11-03T10:00Z]} *")
    game = record.read_game(text)
    written = record.write(game)
    assert "1... B@d8! (=) $1 {[%ts 2026-11-03T10:00Z]}" in written
    again = record.read_game(written)
    assert again == game
    assert record.write(again) == written


def test_a_late_action_is_a_flag_fall_not_an_error():
    text = TC + START + "1. B@e1 {[%ts 2026-12-02T10:00Z]} *"       # White used 31 days of 30
    game = record.read_game(text)
    assert game.flag_falls == (clock.FlagFall(0, clock.parse_stamp("2026-12-01T10:00Z"), 1),)


def test_an_accepted_draw_and_a_claim_are_valid_when_backed():
    draw = TC + START + "1. B@e1 (=) {[%ts 2026-11-02T10:00Z]} {[%draw accept]} 1/2-1/2"
    assert error_of(draw) is None
    claim = ('[Termination "time forfeit"]\n' + TC + START +
             "1. B@e1 {[%ts 2026-11-02T10:00Z]} {[%claim 2026-12-02T10:01Z]} 1-0")
    assert error_of(claim) is None
    late = ('[Termination "time forfeit"]\n' + TC + START +
            "1. B@e1 {[%ts 2026-12-02T10:00Z]} {[%claim 2026-12-02T10:00Z]} 0-1")
    assert error_of(late) is None          # White's only action was late: Black claims at once


def test_a_fired_line_honoured_and_a_cancelled_line():
    assert error_of("1. B@e1 {[%if B@d8 G@b1 G@g8 G@f2]} B@d8 2. G@b1 G@a8 3. G@f2 *") is None
    game = record.read_game("1. B@e1 {[%if B@d8 G@b1]} B@a8 2. G@c1 *")          # cancelled
    assert game.nodes[-1].action.line == 1


# --------------------------------------------------------------------------- every way wrong

@pytest.mark.parametrize("text, where, message", [
    (TC + "1. B@e1 {[%ts 2026-11-01T10:00Z]} B@d8 *", (3, 35),
     "game 1, action 2 (Black) B@d8: the game has a TimeControl, so every action carries a "
     "timestamp like {[%ts 2026-11-23T10:15Z]}; this one has none"),
    ("1. B@e1 {[%ts 2026-11-02T10:00Z]} B@d8 {[%ts 2026-11-01T10:00Z]} *", (1, 46),
     "game 1, action 2 (Black) B@d8: the timestamp 2026-11-01T10:00Z is earlier than action 1's, "
     "2026-11-02T10:00Z; timestamps never go backwards"),
    ("{[%ts 2026-11-02T10:00Z]} 1. B@e1 {[%ts 2026-11-01T10:00Z]} *", (1, 41),
     "game 1, action 1 (White) B@e1: the timestamp 2026-11-01T10:00Z is earlier than the game's "
     "start stamp, 2026-11-02T10:00Z; timestamps never go backwards"),
    ("1. B@e1 {note [%ts tomorrow]} *", (1, 20),
     "game 1: [%ts ...]: expected a UTC time like 2026-11-23T10:15Z, found 'tomorrow'"),
    ("1. B@e1 {[%ts 2026-02-30T10:00Z]} *", (1, 15),
     "game 1: [%ts ...]: '2026-02-30T10:00Z' is not a real time: day is out of range for month"),
    ("1. B@e1 {[%ts 2026-11-02T10:00Z]} {[%ts 2026-11-02T10:00Z]} *", (1, 36),
     "game 1, action 1 (White) B@e1: the action is stamped twice; one [%ts ...] per action"),
    ('[TimeControl "30 days"]\n1. B@e1 *', (1, 14),
     "game 1: the TimeControl tag must be like 30d+3d, bank:240h+36h or 10/30d, found '30 days'"),
    ("1. B@e1 {[%draw offer]} *", (1, 10), "game 1: expected [%draw accept], found [%draw offer]"),
    ("1. B@e1 B@d8 {[%draw accept]} 1/2-1/2", (1, 15),
     "game 1: [%draw accept] accepts a draw offer, but no offer of Black stands: the last action "
     "carries no (=) (R23)"),
    ("1. B@e1 (=) {[%draw accept]} B@d8 1/2-1/2", (1, 14),
     "game 1: [%draw ...] ends the game: it stands only after the last action"),
    ("1. B@e1 (=) {[%draw accept]} 1-0", (1, 14),
     "game 1: [%draw accept] agrees a draw, so the game ends 1/2-1/2, not 1-0 (R23)"),
    (TC + START + "1. B@e1 {[%ts 2026-11-02T10:00Z]} 1/2-1/2", (3, 61),
     "game 1: the game has a TimeControl and ends 1/2-1/2 without a decided position; an agreed "
     "draw is an accepted offer: (=) after the last action and {[%draw accept]} (R23)"),
    ("(=) 1. B@e1 *", (1, 1), "game 1: a draw offer '(=)' must follow an action"),
    ("1. B@e1 (=) (=) *", (1, 13), "game 1, action 1 (White) B@e1: the draw offer (=) is given twice"),
    ("1. B@e1 (= *", (1, 9), "game 1: a draw offer is written (=) after an action; found '(='"),
    ('[Termination "time forfeit"]\n1. B@e1 {[%claim 2026-12-02T10:01Z]} 1-0', (2, 10),
     "game 1: [%claim ...] claims on time, but the game has no TimeControl tag"),
    (TC + START + "1. B@e1 {[%ts 2026-11-02T10:00Z]} {[%claim 2026-12-02T10:01Z]} 1-0", (3, 62),
     'game 1: a game won by a claim on time carries [Termination "time forfeit"]'),
    ('[Termination "time forfeit"]\n' + TC + START +
     "1. B@e1 {[%ts 2026-11-02T10:00Z]} {[%claim 2026-12-02T10:00Z]} 1-0", (4, 62),
     "game 1: the claim at 2026-12-02T10:00Z gives the game to White, but Black's time had not "
     "run out: 0m left (TimeControl 30d+3d)"),
    ('[Termination "time forfeit"]\n' + TC + START +
     "1. B@e1 {[%ts 2026-11-02T10:00Z]} {[%claim 2026-12-02T10:01Z]} 1/2-1/2", (4, 62),
     "game 1: a claim on time wins the game: it ends 1-0 or 0-1, not 1/2-1/2"),
    ('[Termination "time forfeit"]\n' + TC + START +
     "1. B@e1 {[%ts 2026-11-02T10:00Z]} {[%claim 2026-11-02T09:00Z]} 1-0", (4, 62),
     "game 1: the claim at 2026-11-02T09:00Z is earlier than the last timestamp, 2026-11-02T10:00Z"),
    ("{[%if B@d8 G@b1]} 1. B@e1 *", (1, 2),
     "game 1: a conditional line [%if ...] follows the action it answers; there is none before "
     "the first action"),
    ("1. B@e1 {[%if B@d8]} *", (1, 15),
     "game 1: a conditional line holds pairs THEIRS MINE; its last action 'B@d8' has no reply after it"),
    ("1. B@e1 {[%if B@d8 G@b9]} *", (1, 22),
     "game 1: in a conditional line: expected a square like e4 after 'G@' in 'G@b9'"),
    ("1. B@e1 {x [%if B@d8 G@d1]} *", (1, 12),
     "game 1, action 1 (White) B@e1: the conditional line [%if B@d8 G@d1] cannot be played: "
     "action 3 (White) G@d1: a gate on the home row leaves at least one empty square between it "
     "and the base (R6)"),
    ("1. B@e1 {[%if B@d8 G@b1]} B@d8 2. G@c1 *", (1, 35),
     "game 1, action 3 (White) G@c1: the conditional line [%if B@d8 G@b1] stored after action 1 "
     "binds White to answer B@d8 with G@b1, but G@c1 was played; the line was not honoured"),
    ("1. B@e1 {[%if B@d8 G@b1]} B@d8 *", (1, 27),
     "game 1, action 2 (Black) B@d8: the conditional line [%if B@d8 G@b1] stored after action 1 "
     "binds White to answer B@d8 with G@b1 at once, but the record stops there; the line was not "
     "honoured"),
    ("1. B@e1 {[%if B@d8 G@b1]} {[%if B@d8 G@c1]} *", (1, 28),
     "game 1: two conditional lines of White wait for B@d8: [%if B@d8 G@c1] and "
     "[%if B@d8 G@b1]; at most one line may answer an action"),
])
def test_every_way_wrong_is_located(text, where, message):
    line, column, found = located(text)
    assert ((line, column), found) == (where, message)


# --------------------------------------------------------------------------- the Digest

def sealed(text):
    """``text`` as the writer writes it, with its Digest."""
    return record.write(record.read_game(text))


def test_an_edited_stamp_a_removed_offer_or_line_no_longer_matches():
    text = sealed(TC + START + "1. B@e1 {[%ts 2026-11-02T10:00Z] [%if B@d8 G@b1]} B@d8 (=) "
                  "{[%ts 2026-11-03T10:00Z]} 2. G@b1 {[%ts 2026-11-03T10:00Z]} *")
    assert error_of(text) is None
    for before, after in [("2026-11-02T10:00Z", "2026-11-02T11:00Z"), (" (=)", ""),
                          (" [%if B@d8 G@b1]", ""), ("[%ts 2026-11-01T10:00Z]", "")]:
        edited = text.replace(before, after, 1)
        assert edited != text
        error = error_of(edited)
        assert error.message == ("game 1: the Digest tag does not match the actions: the history "
                                 "was edited, or the file was written by hand"), before
    # Free text beside a command is an annotation: the digest does not cover it.
    assert error_of(text.replace("[%if B@d8 G@b1]", "[%if B@d8 G@b1] good luck")) is None


def test_the_digest_of_an_earlier_stage_is_found_again():
    early = record.read_game("1. B@e1 B@d8 *")
    later = record.read_game("1. B@e1 B@d8 2. G@b1 (=) *")     # the offer came later
    assert game_digest(later, actions=2, result="*") == game_digest(early)
    assert game_digest(later) != game_digest(record.read_game("1. B@e1 B@d8 2. G@b1 *"))


# --------------------------------------------------------------------------- play by email (--since)

SENT = TC + START + "1. B@e1 {[%ts 2026-11-01T10:00Z] [%if B@d8 G@b1]} *"


def test_a_reply_our_line_played_for_us_extends_what_we_sent():
    from tomis.notation.digest import check_extends
    received = (TC + START + "1. B@e1 {[%ts 2026-11-01T10:00Z] [%if B@d8 G@b1]} B@d8 "
                "{[%ts 2026-11-02T10:00Z]} 2. G@b1 {[%ts 2026-11-02T10:00Z]} 2... G@a8 "
                "{[%ts 2026-11-02T10:05Z]} *")
    check_extends(record.read_game(SENT), record.read_game(received), "sent.tgn")


def test_an_own_action_no_line_owed_is_refused():
    from tomis.notation.digest import check_extends
    with pytest.raises(Exception) as caught:
        check_extends(record.read_game("1. B@e1 *"), record.read_game("1. B@e1 B@d8 2. G@b1 *"),
                      "sent.tgn")
    assert (caught.value.line, caught.value.column, caught.value.message) == (
        1, 17, "action 3 (White) G@b1 is new since sent.tgn, but only Black's reply may be new")


def test_an_edited_stamp_or_line_of_what_we_sent_is_refused():
    from tomis.notation.digest import check_extends
    for edited in (SENT.replace("10:00Z]", "11:00Z]"), SENT.replace(" [%if B@d8 G@b1]", "")):
        received = record.read_game(edited.replace(" *", " B@a8 {[%ts 2026-11-02T10:00Z]} *"))
        with pytest.raises(Exception) as caught:
            check_extends(record.read_game(SENT), received, "sent.tgn")
        assert caught.value.message == (
            "the timestamps, draw offers or conditional lines that sent.tgn holds were changed "
            "here (the Digest of its 1 action(s) differs)")


# --------------------------------------------------------------------------- endings written back

@pytest.mark.parametrize("text", [
    TC + START + "1. B@e1 (=) {[%ts 2026-11-02T10:00Z]} {[%draw accept]} 1/2-1/2",
    '[Termination "time forfeit"]\n' + TC + START +
    "1. B@e1 {[%ts 2026-11-02T10:00Z]} {[%claim 2026-12-02T10:01Z]} 1-0",
])
def test_an_accepted_draw_and_a_claim_round_trip(text):
    game = record.read_game(text)
    written = record.write(game)
    assert record.read_game(written) == game
    assert record.write(record.read_game(written)) == written


def test_the_library_accepts_an_offer_and_refuses_a_bare_draw_under_a_clock():
    import tomis
    game = tomis.read_game(TC + START + "1. B@e1 (=) {[%ts 2026-11-02T10:00Z]} *")
    game.agree_draw()
    assert game.result == "1/2-1/2" and game.nodes[-1].comments[-1] == "[%draw accept]"
    assert tomis.read_game(str(game)).error is None
    timed = tomis.read_game(TC + START + "1. B@e1 {[%ts 2026-11-02T10:00Z]} *")
    with pytest.raises(tomis.RecordError) as caught:
        timed.agree_draw()
    assert caught.value.message == ("in a game with a TimeControl a draw is agreed by accepting "
                                    "an offer, and the last action carries no (=) (R23)")
    untimed = tomis.read_game("1. B@e1 *")
    untimed.agree_draw()
    assert untimed.result == "1/2-1/2" and untimed.nodes[-1].comments == ()


def test_undo_takes_back_an_accepted_draw_or_a_claim_with_what_it_wrote():
    import tomis
    game = tomis.read_game(TC + START + "1. B@e1 (=) {[%ts 2026-11-02T10:00Z]} *")
    game.agree_draw()
    assert game.undo() is None
    assert game.result == "*" and game.nodes[-1].comments == ("[%ts 2026-11-02T10:00Z]",)
    assert tomis.read_game(str(game)).error is None
    claimed = tomis.read_game('[Termination "time forfeit"]\n' + TC + START +
                              "1. B@e1 {[%ts 2026-11-02T10:00Z]} {[%claim 2026-12-02T10:01Z]} 1-0")
    assert claimed.undo() is None
    assert "Termination" not in claimed.tags and claimed.result == "*"
    assert tomis.read_game(str(claimed)).error is None
