"""ICCF-style time controls (``N/Md``) and leave (``[%leave FIRST LAST]``, the
``LeaveDays`` tag) in records: read, refused with line and column, run on the clock,
covered by the Digest (docs/NOTATION.md, "Leave"). A leave is the side's that played the
action it follows; before the first action, the side that does not act first."""

from __future__ import annotations

import pytest

from tomis.notation import clock, correspondence, record
from tomis.notation.clock import DAY
from test_correspondence import error_of
from test_correspondence import located as located_parts
from tomis.notation.digest import check_extends

START = "{[%ts 2026-11-01T10:00Z]} "
ICCF = '[TimeControl "2/10d"]\n\n'
FISCHER = '[TimeControl "30d+3d"]\n\n'
DIGEST_EDITED = ("game 1: the Digest tag does not match the actions: the history was edited, "
                 "or the file was written by hand")


def located(text):
    """((line, column), message) of the record's error."""
    line, column, message = located_parts(text)
    return (line, column), message


def clock_of(text):
    game = record.read_game(text)
    return correspondence.check(game, correspondence.read_facts(game)).clock


# --------------------------------------------------------------------------- N/Md in a record

def test_a_per_record_counts_to_its_control_point():
    text = (ICCF + START + "1. B@e1 {[%ts 2026-11-02T10:00Z]} B@d8 {[%ts 2026-11-02T10:00Z]} "
            "2. G@b1 {[%ts 2026-11-05T10:00Z]} *")
    ran = clock_of(text)
    # White used 1 + 3 days for its first two actions: 16 of 20 left to its 4th; Black,
    # having used nothing for its first action, still has 10 to its 2nd.
    assert ran.left == (16 * DAY, 10 * DAY) and ran.actions == (2, 1)
    assert (ran.next_control(0), ran.next_control(1)) == (4, 2)
    assert record.read_game(text).flag_falls == ()


def test_a_per_record_late_at_the_control_point_is_a_flag_fall():
    text = ICCF + START + "1. B@e1 {[%ts 2026-11-02T10:00Z]} B@d8 {[%ts 2026-11-12T10:01Z]} *"
    game = record.read_game(text)
    assert game.flag_falls == (clock.FlagFall(1, clock.parse_stamp("2026-11-12T10:00Z"), 2),)


# --------------------------------------------------------------------------- leave

def test_a_leave_reads_runs_and_writes_back():
    text = (FISCHER + "{[%ts 2026-11-01T10:00Z] [%leave 2026-11-03 2026-11-12]} "
            "1. B@e1 {[%ts 2026-11-02T10:00Z]} B@d8 {[%ts 2026-11-20T10:00Z]} *")
    game = record.read_game(text)
    facts = correspondence.read_facts(game)
    assert facts.leaves == (clock.parse_leave("2026-11-03 2026-11-12", 1),)
    assert facts.leave_allowance == clock.DEFAULT_LEAVE_DAYS
    # Black's 18 days between stamps hold 10 days of leave: it used 8 of its 30.
    assert clock_of(text).left[1] == 25 * DAY
    assert record.read_game(record.write(game)) == game
    assert "[%leave 2026-11-03 2026-11-12]" in record.write(game)


def test_without_the_leave_the_same_record_is_late():
    text = (FISCHER + START + "{[%leave 2026-11-03 2026-11-12]} 1. B@e1 {[%ts 2026-11-02T10:00Z]} "
            "B@d8 {[%ts 2026-12-10T10:00Z]} *")
    assert record.read_game(text).flag_falls == ()                   # 38 days less 10 of leave
    bare = text.replace("{[%leave 2026-11-03 2026-11-12]} ", "")
    assert record.read_game(bare).flag_falls == (
        clock.FlagFall(1, clock.parse_stamp("2026-12-02T10:00Z"), 2),)


def test_a_leave_before_the_first_action_is_the_second_sides():
    # Black's leave on the 5th: White's clock runs through it, Black's from 10:00 stops
    # until midnight, then runs ten hours to the stamp of its action.
    text = (FISCHER + "{[%ts 2026-11-01T10:00Z] [%leave 2026-11-05 2026-11-05]} 1. B@e1 "
            "{[%ts 2026-11-05T10:00Z]} B@d8 {[%ts 2026-11-06T10:00Z]} *")
    assert clock_of(text).left == (29 * DAY, 33 * DAY - 10 * 3600)


def test_a_leave_after_an_action_is_the_side_that_played_it():
    after_white = (FISCHER + START + "1. B@e1 {[%ts 2026-11-02T10:00Z] [%leave 2026-11-04 2026-11-05]} "
                   "B@d8 {[%ts 2026-11-06T10:00Z]} 2. G@b1 {[%ts 2026-11-07T10:00Z]} *")
    after_black = after_white.replace(" [%leave 2026-11-04 2026-11-05]", "").replace(
        "B@d8 {[%ts 2026-11-06T10:00Z]}", "B@d8 {[%ts 2026-11-03T10:00Z] [%leave 2026-11-04 2026-11-05]}")
    assert [leave.side for leave in correspondence.read_facts(record.read_game(after_white)).leaves] == [0]
    assert [leave.side for leave in correspondence.read_facts(record.read_game(after_black)).leaves] == [1]
    # White's leave falls in Black's turn and stops nothing: Black used 4 days.
    assert clock_of(after_white).left[1] == 29 * DAY


def test_leave_days_tag_sets_the_allowance():
    leave = "{[%leave 2026-11-02 2026-12-31]}"              # Black's, 60 days in 2026
    text = FISCHER + START + leave + " 1. B@e1 {[%ts 2026-11-01T12:00Z]} *"
    assert error_of('[LeaveDays "60"]\n' + text) is None
    assert located('[LeaveDays "59"]\n' + text) == ((4, 28),
        "game 1: [%leave 2026-11-02 2026-12-31] brings Black's leave in 2026 to 60 days, more "
        'than the 59 a side may take per calendar year ([LeaveDays "59"])')


def test_the_allowance_is_per_calendar_year_and_side():
    # Black: 30 days in December, then 30 in January: two years, 30 each, within 45.
    # White: 45 days in 2026, at the same time as Black's.
    text = (FISCHER + "{[%ts 2026-11-01T10:00Z] [%leave 2026-12-02 2026-12-31]} "
            "1. B@e1 {[%ts 2026-11-01T12:00Z] [%leave 2026-11-02 2026-12-16]} "
            "B@d8 {[%ts 2026-11-01T13:00Z] [%leave 2027-01-01 2027-01-30]} *")
    assert error_of(text) is None


@pytest.mark.parametrize("text, where, message", [
    (FISCHER + START + "1. B@e1 {[%ts 2026-11-02T10:00Z] [%leave 2026-11-02 2026-11-05]} *", (3, 60),
     "game 1: [%leave 2026-11-02 2026-11-05]: leave is taken ahead, but its first day begins "
     "before the timestamp it follows, 2026-11-02T10:00Z"),
    (FISCHER + "{[%leave 2026-11-02 2026-11-05]} 1. B@e1 {[%ts 2026-11-02T10:00Z]} *", (3, 2),
     "game 1: [%leave 2026-11-02 2026-11-05] stands before the first action, so it needs the "
     "game's start stamp {[%ts ...]} before it, to show the leave lies ahead"),
    (FISCHER + START + "1. B@e1 {[%ts 2026-11-02T10:00Z] [%leave 2026-11-05 2026-11-03]} *", (3, 68),
     "game 1: [%leave ...]: a leave's last day comes before its first: 2026-11-03 < 2026-11-05"),
    (FISCHER + START + "1. B@e1 {[%ts 2026-11-02T10:00Z] [%leave 2026-11-31 2026-12-03]} *", (3, 68),
     "game 1: [%leave ...]: '2026-11-31' is not a real date: day is out of range for month"),
    (FISCHER + START + "1. B@e1 {[%ts 2026-11-02T10:00Z] [%leave w 2026-11-05 2026-11-08]} *", (3, 68),
     "game 1: [%leave ...]: a leave is written like [%leave 2026-12-20 2027-01-03]: its first "
     "and last day, or like [%leave white 2026-12-20 2027-01-03], naming its side; "
     "found 'w 2026-11-05 2026-11-08'"),
    (FISCHER + START + "1. B@e1 {[%ts 2026-11-02T10:00Z] [%leave red 2026-11-05 2026-11-08]} *", (3, 68),
     "game 1: [%leave ...]: a leave is written like [%leave 2026-12-20 2027-01-03]: its first "
     "and last day, or like [%leave white 2026-12-20 2027-01-03], naming its side; "
     "found 'red 2026-11-05 2026-11-08'"),
    (FISCHER + START + "1. B@e1 {[%ts 2026-11-02T10:00Z] [%leave black 2026-11-05]} *", (3, 68),
     "game 1: [%leave ...]: a leave is written like [%leave 2026-12-20 2027-01-03]: its first "
     "and last day, or like [%leave white 2026-12-20 2027-01-03], naming its side; "
     "found 'black 2026-11-05'"),
    (FISCHER + START + "1. B@e1 {[%ts 2026-11-02T10:00Z] [%leave black 2026-11-01 2026-11-05]} *",
     (3, 60), "game 1: [%leave black 2026-11-01 2026-11-05]: leave is taken ahead, but its first "
     "day begins before the timestamp it follows, 2026-11-02T10:00Z"),
    (FISCHER + START + "1. B@e1 {[%ts 2026-11-02T10:00Z] [%leave black 2026-11-05 2026-11-08] "
     "[%leave black 2026-11-08 2026-11-10]} *", (3, 97),
     "game 1: [%leave black 2026-11-08 2026-11-10] overlaps Black's earlier leave "
     "[%leave black 2026-11-05 2026-11-08]"),
    (FISCHER + START + "1. B@e1 {[%ts 2026-11-02T10:00Z] [%leave black 2026-11-05 2026-11-08]} "
     "B@d8 {[%ts 2026-11-03T10:00Z] [%leave 2026-11-08 2026-11-10]} *", (3, 128),
     "game 1: [%leave 2026-11-08 2026-11-10] overlaps Black's earlier leave "
     "[%leave black 2026-11-05 2026-11-08]"),
    (FISCHER + START + "1. B@e1 {[%ts 2026-11-02T10:00Z] [%leave black 2026-11-05 2026-12-20]} *",
     (3, 60), "game 1: [%leave black 2026-11-05 2026-12-20] brings Black's leave in 2026 to 46 "
     "days, more than the 45 a side may take per calendar year (no LeaveDays tag, so 45)"),
    (FISCHER + START + "1. B@e1 {[%ts 2026-11-02T10:00Z] [%leave 2026-11-05 2026-11-08] "
     "[%leave 2026-11-08 2026-11-10]} *", (3, 91),
     "game 1: [%leave 2026-11-08 2026-11-10] overlaps White's earlier leave "
     "[%leave 2026-11-05 2026-11-08]"),
    (FISCHER + START + "1. B@e1 {[%ts 2026-11-02T10:00Z] [%leave 2026-11-05 2026-12-20]} *", (3, 60),
     "game 1: [%leave 2026-11-05 2026-12-20] brings White's leave in 2026 to 46 days, more "
     "than the 45 a side may take per calendar year (no LeaveDays tag, so 45)"),
    ("1. B@e1 {[%leave 2026-11-05 2026-11-08]} *", (1, 10),
     "game 1: [%leave ...] stops a side's clock, but the game has no TimeControl tag"),
    ('[LeaveDays "forty"]\n' + FISCHER + START + "1. B@e1 {[%ts 2026-11-02T10:00Z]} *", (1, 12),
     "game 1: the LeaveDays tag must be a number of days from 0 to 366, found 'forty'"),
])
def test_bad_leaves_are_refused_where_they_stand(text, where, message):
    assert located(text) == (where, message)


# --------------------------------------------------------------------------- the Digest

SEALED = ('[LeaveDays "30"]\n' + FISCHER + START +
          "1. B@e1 {[%ts 2026-11-02T10:00Z]} "
          "B@d8 {[%ts 2026-11-20T10:00Z] [%leave 2026-11-23 2026-11-30]} *")


def test_the_digest_covers_leave_and_its_allowance():
    game = record.read_game(SEALED)
    assert correspondence.digest_lines(game) == (
        ["timecontrol 30d+3d", "leavedays 30", "ts 2026-11-01T10:00Z"],
        [["ts 2026-11-02T10:00Z"], ["ts 2026-11-20T10:00Z", "leave 2026-11-23 2026-11-30"]], [])
    text = record.write(game)
    assert error_of(text) is None
    moved = ("10:00Z]} 1... B@d8\n{[%ts 2026-11-20T10:00Z] [%leave 2026-11-23 2026-11-30]}",
             "10:00Z] [%leave 2026-11-23 2026-11-30]} 1... B@d8\n{[%ts 2026-11-20T10:00Z]}")
    for before, after in [("2026-11-30]", "2026-12-01]"), moved,      # moved: now White's
                          (" [%leave 2026-11-23 2026-11-30]", ""), ('"30"', '"31"')]:
        edited = text.replace(before, after, 1)
        assert edited != text
        assert error_of(edited).message == DIGEST_EDITED, before


def test_a_leave_slipped_in_behind_a_sent_action_is_refused():
    sent = record.read_game(FISCHER + START + "1. B@e1 {[%ts 2026-11-02T10:00Z]} *")
    reply = record.read_game(FISCHER + START + "1. B@e1 {[%ts 2026-11-02T10:00Z] "
                             "[%leave 2026-11-03 2026-11-12]} B@d8 {[%ts 2026-11-20T10:00Z]} *")
    with pytest.raises(record.RecordError) as caught:
        check_extends(sent, reply, "sent.tgn")
    assert "were changed here" in caught.value.message
    # Announced with the reply, after the action it comes with, the same leave is fine.
    honest = record.read_game(FISCHER + START + "1. B@e1 {[%ts 2026-11-02T10:00Z]} B@d8 "
                              "{[%ts 2026-11-20T10:00Z] [%leave 2026-11-21 2026-11-30]} *")
    check_extends(sent, honest, "sent.tgn")


# --------------------------------------------------------------------------- the library's write side

def test_the_library_writes_leave_by_its_place_or_naming_its_side():
    import tomis

    game = tomis.Game(white="Ana", black="Bo")
    game.start_clock("30d+3d", "2026-11-01T10:00Z", leave_days=20)
    game.take_leave("black", "2026-11-03", "2026-11-04")      # before the first action: Black's place
    game.take_leave("white", "2026-11-03", "2026-11-04")      # White to act: named
    assert game.record.comments[1:] == ["[%leave 2026-11-03 2026-11-04]",
                                        "[%leave white 2026-11-03 2026-11-04]"]
    game.play("B@e1")
    game.stamp("2026-11-02T10:00Z")
    game.take_leave("white", "2026-11-05", "2026-11-06")
    before = str(game)
    for first, last, refusal in [("2026-11-06", "2026-11-07", "overlaps White's earlier leave"),
                                 ("2026-11-10", "2026-11-30", "more than the 20 a side may take"),
                                 ("2026-11-01", "2026-11-01", "leave is taken ahead"),
                                 ("2026-11-09", "2026-11-08", "last day comes before its first")]:
        with pytest.raises(record.RecordError, match=refusal):
            game.take_leave("white", first, last)
        assert str(game) == before                              # nothing written
    with pytest.raises(record.RecordError, match="begins before 2026-11-09T10:00Z"):
        game.take_leave("black", "2026-11-08", "2026-11-08", at="2026-11-09T10:00Z")
    assert str(game) == before
    reread = tomis.read_game(before)
    assert reread.error is None and reread.tags["LeaveDays"] == "20"
    facts = correspondence.read_facts(reread.record)
    assert [(leave.side, str(leave)) for leave in facts.leaves] == [
        (1, "2026-11-03 2026-11-04"), (0, "2026-11-03 2026-11-04"), (0, "2026-11-05 2026-11-06")]
    assert "B@e1 {[%ts 2026-11-02T10:00Z]}\n{[%leave 2026-11-05 2026-11-06]} *" in before


# --------------------------------------------------------------------------- leave naming its side

# White played, so Black is to act: Black's leave can only name its side here.
ON_ITS_TURN = (FISCHER + START + "1. B@e1 {[%ts 2026-11-02T10:00Z] [%leave black 2026-11-04 2026-11-13]} "
               "B@d8 {[%ts 2026-11-20T10:00Z]} *")


def test_a_named_leave_on_its_sides_own_turn_stops_that_sides_clock():
    facts = correspondence.read_facts(record.read_game(ON_ITS_TURN))
    assert facts.leaves == (clock.Leave(1, clock.parse_date("2026-11-04"), clock.parse_date("2026-11-14")),)
    # Black's 18 days to its action held 10 of leave: it used 8 of its 30, then 3 more (White used 1 day).
    assert clock_of(ON_ITS_TURN).left == (32 * DAY, 25 * DAY)
    # Without the leave, the same 18 days are all used.
    bare = ON_ITS_TURN.replace(" [%leave black 2026-11-04 2026-11-13]", "")
    assert clock_of(bare).left == (32 * DAY, 15 * DAY)
    # Where a place-bound leave would be White's, the named one is Black's: White's clock is
    # not stopped (its leave would not stop it either: it was not to act), Black's is.
    game = record.read_game(ON_ITS_TURN)
    assert record.read_game(record.write(game)) == game
    assert "[%leave black 2026-11-04 2026-11-13]" in record.write(game)


def test_a_named_leave_on_the_sides_own_place_reads_as_the_unnamed_one():
    own = ON_ITS_TURN.replace("[%leave black", "[%leave white")
    unnamed = ON_ITS_TURN.replace("[%leave black", "[%leave")
    assert correspondence.read_facts(record.read_game(own)).leaves == \
        correspondence.read_facts(record.read_game(unnamed)).leaves
    assert clock_of(own).left == clock_of(unnamed).left == (32 * DAY, 15 * DAY)


def test_the_digest_covers_a_named_leave_and_its_side():
    game = record.read_game(ON_ITS_TURN)
    assert correspondence.digest_lines(game)[1][0] == ["ts 2026-11-02T10:00Z",
                                                       "leave black 2026-11-04 2026-11-13"]
    text = record.write(game)
    assert error_of(text) is None
    for before, after in [(" [%leave black 2026-11-04 2026-11-13]", ""),      # removed
                          ("[%leave black", "[%leave white"),                  # another side
                          ("[%leave black", "[%leave"),                        # by its place: White's
                          ("2026-11-13]", "2026-11-12]")]:                     # other days
        edited = text.replace(before, after, 1)
        assert edited != text
        assert error_of(edited).message == DIGEST_EDITED, before


# --------------------------------------------------------------------------- cancelling leave not yet begun

def test_cancel_leave_takes_out_only_the_sides_leave_not_yet_begun():
    import tomis

    game = tomis.read_game(
        FISCHER + "{[%ts 2026-11-01T10:00Z] [%leave 2026-11-03 2026-11-04]} 1. B@e1 "
        "{[%ts 2026-11-02T10:00Z] [%leave 2026-11-20 2026-11-22]} "
        "{[%leave black 2026-12-10 2026-12-11] back soon} *")
    game.take_leave("black", "2026-12-01", "2026-12-05")      # Black to act: named
    before = str(game)
    with pytest.raises(record.RecordError, match="earlier than the record's last timestamp"):
        game.cancel_leave("black", "2026-11-02T09:00Z")
    assert str(game) == before
    # On the 3rd, Black's first leave has begun: it stays; the two ahead go.
    gone = game.cancel_leave("black", "2026-11-03T00:00Z")
    assert [str(leave) for leave in gone] == ["2026-12-10 2026-12-11", "2026-12-01 2026-12-05"]
    after = correspondence.read_facts(game.record)
    assert [(leave.side, str(leave)) for leave in after.leaves] == [
        (1, "2026-11-03 2026-11-04"), (0, "2026-11-20 2026-11-22")]
    assert game.record.nodes[-1].comments[1:] == ["back soon"]     # the free text stays
    assert game.cancel_leave("black", "2026-11-03T00:00Z") == []
    # With its days, only that leave goes.
    game.take_leave("white", "2026-12-01", "2026-12-02")
    assert [str(leave) for leave in game.cancel_leave("white", "2026-11-03T00:00Z", first="2026-12-01",
                                                      last="2026-12-02")] == ["2026-12-01 2026-12-02"]
    assert [str(leave) for leave in correspondence.read_facts(game.record).leaves] == [
        "2026-11-03 2026-11-04", "2026-11-20 2026-11-22"]
    # An ended game keeps its record as it ended.
    game.take_leave("white", "2026-12-01", "2026-12-02")
    game.resign("black")
    ended = str(game)
    with pytest.raises(record.RecordError, match="already ended 1-0"):
        game.cancel_leave("white", "2026-11-03T00:00Z")
    assert str(game) == ended
    assert tomis.read_game(str(game)).error is None
    assert game.digest != tomis.read_game(before).digest
