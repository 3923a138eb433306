"""Outages ``[%outage START END]`` and credits ``[%credit white|black DURATION]`` in records:
read, counted on the clocks as leave is, refused in one located line, covered by the
Digest, written by the library's verbs (docs/NOTATION.md, "Outages and credits")."""

from __future__ import annotations

import pytest

import tomis
from tomis.notation import clock, correspondence, record
from tomis.notation.clock import DAY, HOUR
from test_correspondence import error_of
from test_correspondence_leave import DIGEST_EDITED, clock_of, located

FISCHER = '[TimeControl "1d"]\n\n'
START = "{[%ts 2026-11-01T10:00Z]} "
PLAYED = FISCHER + START + "1. B@e1 {[%ts 2026-11-01T12:00Z]} "


# --------------------------------------------------------------------------- the clocks

def test_an_outage_gives_the_side_to_act_back_the_time_its_clock_ran_in_it():
    # Black is to act from 12:00; the referee heard nothing from 13:00 to 16:00.
    plain = clock_of(PLAYED + "*")
    text = PLAYED + "{[%outage 2026-11-01T13:00Z 2026-11-01T16:00Z]} *"
    ran = clock_of(text)
    now = clock.parse_stamp("2026-11-01T20:00Z")
    assert plain.time_left(1, 1, now) == DAY - 8 * HOUR
    assert ran.time_left(1, 1, now) == DAY - 5 * HOUR
    assert ran.deadline(1) == plain.deadline(1) + 3 * HOUR
    # White, not to act, had nothing running: its clock is the same either way.
    assert ran.time_left(0, 1, now) == plain.time_left(0, 1, now)


def test_an_outage_counts_for_the_action_played_inside_it_and_after():
    # Black's action was received at 14:00, inside the outage: Black gets 13:00-14:00
    # back, and White's period, from 14:00, does not run until 16:00.
    text = (PLAYED + "{[%outage 2026-11-01T13:00Z 2026-11-01T16:00Z]} "
            "B@d8 {[%ts 2026-11-01T14:00Z]} *")
    ran = clock_of(text)
    assert ran.left == (DAY - 2 * HOUR, DAY - HOUR)
    assert ran.time_left(0, 0, clock.parse_stamp("2026-11-01T17:00Z")) == DAY - 3 * HOUR


def test_an_outage_saves_a_side_from_a_late_action():
    late = PLAYED + "B@d8 {[%ts 2026-11-02T14:00Z]} *"
    assert record.read_game(late).flag_falls != ()
    saved = (PLAYED + "{[%outage 2026-11-01T13:00Z 2026-11-01T16:00Z]} "
             "B@d8 {[%ts 2026-11-02T14:00Z]} *")
    assert record.read_game(saved).flag_falls == ()


def test_a_credit_adds_to_its_sides_time_where_it_stands():
    text = PLAYED + "{[%credit black 2d] organiser: the server moved} *"
    ran = clock_of(text)
    assert ran.left == (DAY - 2 * HOUR, 3 * DAY)
    facts = correspondence.read_facts(record.read_game(text))
    assert facts.credits == (clock.Credit(1, 2 * DAY, 1),)
    # Counted before the action that follows it, and not again after.
    later = clock_of(PLAYED + "{[%credit black 2d]} B@d8 {[%ts 2026-11-02T18:00Z]} *")
    assert later.left == (DAY - 2 * HOUR, 3 * DAY - 30 * HOUR)
    assert later.flag_falls == ()


def test_tomis_clock_and_the_library_count_them(tmp_path):
    from conftest import invoke

    text = (PLAYED + "{[%outage 2026-11-01T13:00Z 2026-11-01T16:00Z]} "
            "{[%credit black 1h]} *")
    path = tmp_path / "game.tgn"
    path.write_text('[White "Ana"]\n[Black "Bo"]\n[Result "*"]\n' + text, encoding="utf-8")
    shown = invoke("clock", path, "--now", "2026-11-01T20:00Z")
    assert shown.exit_code == 0, shown.stderr
    # 1d, less 8h since 12:00, plus the 3h of the outage and the 1h credit: 20h.
    assert "Black: 20h left" in shown.stdout
    assert "time runs out at 2026-11-02T16:00Z" in shown.stdout
    _facts, ran = next(iter(tomis.read_games(path.read_text()))).clock()
    assert ran.time_left(1, 1, clock.parse_stamp("2026-11-01T20:00Z")) == 20 * HOUR


# --------------------------------------------------------------------------- refused

@pytest.mark.parametrize("text, message", [
    (PLAYED + "{[%outage 2026-11-01T13:00Z]} *",
     "[%outage ...]: an outage is written like [%outage 2026-11-23T10:15Z 2026-11-23T13:15Z]: "
     "when it began and when it ended; found '2026-11-01T13:00Z'"),
    (PLAYED + "{[%outage 2026-11-01T16:00Z 2026-11-01T13:00Z]} *",
     "[%outage ...]: an outage ends after it begins: 2026-11-01T13:00Z is not after "
     "2026-11-01T16:00Z"),
    (PLAYED + "{[%outage 2026-11-01T13:00 2026-11-01T16:00Z]} *",
     "[%outage ...]: expected a UTC time like 2026-11-23T10:15Z, found '2026-11-01T13:00'"),
    (PLAYED + "{[%outage 2026-11-01T11:00Z 2026-11-01T16:00Z]} *",
     "[%outage 2026-11-01T11:00Z 2026-11-01T16:00Z]: an outage is written after it ended, "
     "within the game: it cannot begin before the timestamp it follows, 2026-11-01T12:00Z"),
    (PLAYED + "{[%outage 2026-11-01T13:00Z 2026-11-01T16:00Z] "
     "[%outage 2026-11-01T15:00Z 2026-11-01T17:00Z]} *",
     "[%outage 2026-11-01T15:00Z 2026-11-01T17:00Z] begins before the earlier outage "
     "[%outage 2026-11-01T13:00Z 2026-11-01T16:00Z] ended; outages come in order and do "
     "not overlap"),
    ("1. B@e1 {[%outage 2026-11-01T13:00Z 2026-11-01T16:00Z]} *",
     "[%outage ...] counts on the clocks, but the game has no TimeControl tag"),
    (PLAYED + "{[%credit red 2d]} *",
     "[%credit ...]: a credit is written like [%credit white 2d]: the side (white or black) "
     "and the time it is given; found 'red 2d'"),
    (PLAYED + "{[%credit white 2 days]} *",
     "[%credit ...]: a credit is written like [%credit white 2d]: the side (white or black) "
     "and the time it is given; found 'white 2 days'"),
    (PLAYED + "{[%credit white 0m]} *",
     "[%credit ...]: a credit gives some time, at least 1m; found '0m'"),
    (PLAYED + "{[%credit white 4000d]} *",
     "[%credit ...]: a duration is at most 3650d, found '4000d'"),
    ("1. B@e1 {[%credit white 1d]} *",
     "[%credit ...] counts on the clocks, but the game has no TimeControl tag"),
    (PLAYED + "B@d8 {[%ts 2026-11-03T14:00Z] [%credit black 1d]} *",
     "[%credit black 1d]: Black's time had run out by a late action before it; a credit "
     "does not give a lost game back"),
])
def test_malformed_outages_and_credits_are_refused_in_one_located_line(text, message):
    where, found = located(text)
    assert found.removeprefix("game 1: ") == message
    assert "\n" not in found and where[0] is not None


def test_outages_and_credits_are_bounded():
    base = clock.parse_stamp("2026-11-01T12:00Z")
    many = " ".join("{" + clock.Outage(base + 60 * m, base + 60 * m + 30).command() + "}"
                    for m in range(clock.MAX_OUTAGES + 1))
    assert located(PLAYED + many + " *")[1] == "game 1: at most 100 outages [%outage ...] in one game"
    gifts = " ".join("{[%credit white 1m]}" for _ in range(clock.MAX_CREDITS + 1))
    assert located(PLAYED + gifts + " *")[1] == "game 1: at most 100 credits [%credit ...] in one game"


# --------------------------------------------------------------------------- the Digest

SEALED = (PLAYED + "{[%outage 2026-11-01T13:00Z 2026-11-01T16:00Z]} "
          "{[%credit black 2d] organiser: the server moved} *")


def test_the_digest_covers_outages_and_credits():
    game = record.read_game(SEALED)
    assert correspondence.digest_lines(game) == (
        ["timecontrol 1d", "ts 2026-11-01T10:00Z"],
        [["ts 2026-11-01T12:00Z", "outage 2026-11-01T13:00Z 2026-11-01T16:00Z",
          "credit black 2d"]], [])
    text = record.write(game)
    assert error_of(text) is None
    for before, after in [("T16:00Z]", "T17:00Z]"), ("black 2d", "black 3d"),
                          ("black 2d", "white 2d"),
                          ("{[%outage 2026-11-01T13:00Z 2026-11-01T16:00Z]}", "")]:
        edited = text.replace(before, after, 1)
        assert edited != text
        assert error_of(edited).message == DIGEST_EDITED, before
    # The reason is the comment's free text: not covered, as every comment's is.
    assert error_of(text.replace("the server moved", "the server died")) is None


# --------------------------------------------------------------------------- the library's verbs

def test_the_library_records_an_outage_and_refuses_a_bad_one():
    game = tomis.Game(white="Ana", black="Bo")
    game.start_clock("1d", "2026-11-01T10:00Z")
    game.play("B@e1")
    game.stamp("2026-11-01T12:00Z")
    game.record_outage("2026-11-01T13:00Z", "2026-11-01T16:00Z")
    before = str(game)
    for begins, ends, refusal in [("2026-11-01T15:00Z", "2026-11-01T18:00Z", "do not overlap"),
                                  ("2026-11-01T19:00Z", "2026-11-01T18:00Z", "ends after it begins"),
                                  ("2026-11-01T11:00Z", "2026-11-01T11:30Z", "cannot begin before")]:
        with pytest.raises(record.RecordError, match=refusal):
            game.record_outage(begins, ends)
        assert str(game) == before
    assert "{[%outage 2026-11-01T13:00Z 2026-11-01T16:00Z]}" in before
    assert next(iter(tomis.read_games(before))).clock()[1].deadline(1) == \
        clock.parse_stamp("2026-11-02T15:00Z")


def test_the_library_credits_a_side_and_refuses_what_it_cannot_give():
    game = tomis.Game(white="Ana", black="Bo")
    game.start_clock("1d", "2026-11-01T10:00Z")
    game.play("B@e1")
    game.stamp("2026-11-01T12:00Z")
    before = str(game)
    for side, seconds, at, reason, refusal in [
            ("red", 60, None, None, "a side is white or black"),
            ("white", 90, None, None, "whole minutes"),
            ("white", 60, None, "a {} b [%ts 2026-11-01T10:00Z]", "correspondence command"),
            ("black", 60, "2026-11-02T12:01Z", None, "Black's time ran out at 2026-11-02T12:00Z")]:
        with pytest.raises(record.RecordError, match=refusal):
            game.credit(side, seconds, at=at, reason=reason)
        assert str(game) == before
    game.credit("black", 2 * DAY, at="2026-11-02T11:00Z", reason="organiser: a long weekend")
    assert "{[%credit black 2d] organiser: a long weekend}" in str(game)
    assert game.clock()[1].deadline(1) == clock.parse_stamp("2026-11-04T12:00Z")
    ended = tomis.Game()
    ended.start_clock("1d", "2026-11-01T10:00Z")
    ended.resign("white")
    with pytest.raises(record.RecordError, match="already ended"):
        ended.credit("white", 60)
