"""tomis.notation.clock: TimeControl values, UTC stamps, time left and flag falls (docs/NOTATION.md)."""

import pytest

from tomis.notation import clock
from tomis.notation.clock import DAY, HOUR, MINUTE, Stamp, TimeControl
from tomis.errors import RecordError

T0 = clock.parse_stamp("2026-11-23T10:15Z")


# --------------------------------------------------------------------------- parsing

@pytest.mark.parametrize("text, control", [
    ("30d+3d", TimeControl(30 * DAY, 3 * DAY, None)),
    ("30d", TimeControl(30 * DAY, 0, None)),
    ("1d12h+90m", TimeControl(36 * HOUR, 90 * MINUTE, None)),
    ("bank:240h+36h", TimeControl(240 * HOUR, 36 * HOUR, 240 * HOUR)),
    ("bank:120h+36h/240h", TimeControl(120 * HOUR, 36 * HOUR, 240 * HOUR)),
])
def test_time_control_forms(text, control):
    assert clock.parse_time_control(text) == control


@pytest.mark.parametrize("text, message", [
    ("", "the TimeControl tag must be like 30d+3d, bank:240h+36h or 10/30d, found ''"),
    ("30 days", "the TimeControl tag must be like 30d+3d, bank:240h+36h or 10/30d, found '30 days'"),
    ("3d30d", "the TimeControl tag must be like 30d+3d, bank:240h+36h or 10/30d, found '3d30d'"),
    ("30d+", "the TimeControl tag must be like 30d+3d, bank:240h+36h or 10/30d, found '30d+'"),
    ("bank:", "the TimeControl tag must be like 30d+3d, bank:240h+36h or 10/30d, found 'bank:'"),
    ("30d+3d/40d", "only a bank has a cap: write bank:30d+3d/40d, or leave out the /cap; "
                   "found '30d+3d/40d'"),
    ("bank:240h+36h/100h", "a bank's cap may not be less than its start: 4d4h < 10d in "
                           "'bank:240h+36h/100h'"),
    ("0d+1d", "the TimeControl tag starts each side with no time at all: '0d+1d'"),
    ("3651d", "a duration is at most 3650d, found '3651d'"),
])
def test_time_control_refused(text, message):
    with pytest.raises(RecordError) as caught:
        clock.parse_time_control(text)
    assert caught.value.message == message


def test_time_control_written_back_canonically():
    assert str(clock.parse_time_control("30d+3d")) == "30d+3d"
    assert str(clock.parse_time_control("72h")) == "3d"
    assert str(clock.parse_time_control("bank:240h+36h")) == "bank:10d+1d12h"
    assert str(clock.parse_time_control("bank:5d+1d/10d")) == "bank:5d+1d/10d"
    for text in ("30d+3d", "bank:10d+1d12h", "bank:5d+1d/10d", "2h+30m"):
        assert str(clock.parse_time_control(text)) == text


def test_stamps_round_trip_and_refusals():
    assert clock.format_stamp(T0) == "2026-11-23T10:15Z"
    assert clock.parse_stamp("2026-11-23T10:15:07Z") == T0 + 7
    assert clock.format_stamp(T0 + 7) == "2026-11-23T10:15:07Z"
    with pytest.raises(RecordError) as caught:
        clock.parse_stamp("2026-11-23 10:15")
    assert caught.value.message == "expected a UTC time like 2026-11-23T10:15Z, found '2026-11-23 10:15'"
    with pytest.raises(RecordError) as caught:
        clock.parse_stamp("2026-02-30T10:15Z")
    assert caught.value.message == "'2026-02-30T10:15Z' is not a real time: day is out of range for month"


def test_durations_in_words():
    assert clock.describe_duration(3 * DAY + 4 * HOUR + 12 * MINUTE + 59) == "3d 4h 12m"
    assert clock.describe_duration(-(2 * HOUR + 5 * MINUTE)) == "-2h 5m"
    assert clock.describe_duration(30) == "0m"
    assert clock.describe_duration(DAY) == "1d"


# --------------------------------------------------------------------------- running

def stamps(*pairs):
    """Stamps for actions 1, 2, ...: each pair is (days, hours) after T0."""
    return [Stamp(number, (number - 1) & 1, T0 + days * DAY + hours * HOUR)
            for number, (days, hours) in enumerate(pairs, 1)]


def test_fischer_clock_counts_used_time_and_adds_increment():
    control = clock.parse_time_control("30d+3d")
    ran = clock.run(control, T0, stamps((2, 0), (7, 0), (8, 0)))
    # White: 30 - 2 + 3 = 31, then - 1 + 3 = 33; Black: 30 - 5 + 3 = 28.
    assert ran.left == (33 * DAY, 28 * DAY)
    assert ran.flag_falls == ()
    assert ran.since == T0 + 8 * DAY
    # Black to act: its period runs from White's last stamp.
    assert ran.time_left(1, 1, T0 + 10 * DAY) == 26 * DAY
    assert ran.time_left(0, 1, T0 + 10 * DAY) == 33 * DAY   # White's clock stands still


def test_bank_is_cut_to_its_cap():
    control = clock.parse_time_control("bank:240h+36h")
    ran = clock.run(control, T0, stamps((0, 1), (0, 2)))
    # Each side used an hour and got 36 back, but a bank never holds more than 240h.
    assert ran.left == (240 * HOUR, 240 * HOUR)
    ran = clock.run(control, T0, stamps((0, 100), (0, 102)))
    assert ran.left == (176 * HOUR, 240 * HOUR)      # Black: 240 - 2 + 36, cut to 240


def test_without_start_stamp_the_first_action_costs_nothing():
    control = clock.parse_time_control("1d")
    ran = clock.run(control, None, stamps((5, 0), (5, 3)))
    assert ran.left == (DAY, 21 * HOUR)


def test_late_action_is_a_flag_fall_with_its_deadline():
    control = clock.parse_time_control("1d")
    ran = clock.run(control, T0, stamps((0, 2), (1, 3), (2, 0)))
    # Black's period ran from 02:00 on day 0; its day ended at 02:00 on day 1.
    assert ran.flag_falls == (clock.FlagFall(1, T0 + DAY + 2 * HOUR, 2),)
    # White's third action at day 2: White had 22h since day 1 03:00 -> on time.
    assert ran.left[0] == 22 * HOUR - 21 * HOUR
    assert clock.ran_out(ran, 1, 1, T0 + 2 * DAY) is not None     # Black still out, now to act


def test_an_action_exactly_at_the_deadline_is_on_time():
    control = clock.parse_time_control("1d")
    ran = clock.run(control, T0, stamps((1, 0)))
    assert ran.flag_falls == () and ran.left == (0, DAY)


def test_ran_out_for_the_side_to_act_and_for_a_late_last_action():
    control = clock.parse_time_control("2d")
    ran = clock.run(control, T0, stamps((1, 0)))          # Black to act since day 1
    assert clock.ran_out(ran, 1, 1, T0 + 3 * DAY) is None             # exactly at the deadline
    fall = clock.ran_out(ran, 1, 1, T0 + 3 * DAY + 60)
    assert fall == clock.FlagFall(1, T0 + 3 * DAY, None)
    assert clock.ran_out(ran, 0, 1, T0 + 99 * DAY) is None            # White's clock stopped
    late = clock.run(control, T0, stamps((1, 0), (4, 0)))             # Black late, White to act
    assert clock.ran_out(late, 1, 0, T0 + 4 * DAY) == clock.FlagFall(1, T0 + 3 * DAY, 2)


def test_backward_stamp_is_refused_with_its_index():
    control = clock.parse_time_control("30d")
    with pytest.raises(clock.BackwardStamp) as caught:
        clock.run(control, T0, stamps((1, 0), (0, 5)))
    assert caught.value.index == 1
    assert caught.value.message == ("the timestamp 2026-11-23T15:15Z is earlier than action 1's, "
                                    "2026-11-24T10:15Z; timestamps never go backwards")
    with pytest.raises(clock.BackwardStamp) as caught:
        clock.check_order(T0, [Stamp(1, 0, T0 - 60)])
    assert caught.value.message == ("the timestamp 2026-11-23T10:14Z is earlier than the game's "
                                    "start stamp, 2026-11-23T10:15Z; timestamps never go backwards")
    clock.check_order(T0, [Stamp(1, 0, T0), Stamp(2, 1, T0)])         # equal is fine


# --------------------------------------------------------------------------- N/Md (ICCF)

def test_per_form_parses_and_writes_back():
    assert clock.parse_time_control("10/30d") == TimeControl(30 * DAY, 30 * DAY, None, 10)
    assert str(clock.parse_time_control("10/720h")) == "10/30d"
    for text in ("10/30d", "1/1d", "40/2d12h", "5/1h30m"):
        assert str(clock.parse_time_control(text)) == text
    assert clock.parse_time_control("10/30d").next_control(0) == 10
    assert clock.parse_time_control("10/30d").next_control(10) == 20
    assert clock.parse_time_control("30d+3d").next_control(4) is None


@pytest.mark.parametrize("text, message", [
    ("10/30d+3d", "an N/Md time control stands alone, with no increment, bank or cap: write "
                  "10/30d, or a form like 30d+3d; found '10/30d+3d'"),
    ("10/30d/40d", "an N/Md time control stands alone, with no increment, bank or cap: write "
                   "10/30d, or a form like 30d+3d; found '10/30d/40d'"),
    ("bank:10/30d", "an N/Md time control stands alone, with no increment, bank or cap: write "
                    "10/30d, or a form like bank:240h+36h; found 'bank:10/30d'"),
    ("0/30d", "an N/Md time control counts at least 1 action, found '0/30d'"),
    ("10/0d", "the TimeControl tag starts each side with no time at all: '10/0d'"),
    ("10/", "the TimeControl tag must be like 30d+3d, bank:240h+36h or 10/30d, found '10/'"),
    ("10/3651d", "a duration is at most 3650d, found '3651d'"),
    ("12345/30d", "the TimeControl tag must be like 30d+3d, bank:240h+36h or 10/30d, "
                  "found '12345/30d'"),
])
def test_per_form_refused(text, message):
    with pytest.raises(RecordError) as caught:
        clock.parse_time_control(text)
    assert caught.value.message == message


def own_actions(days_each, side=0):
    """Stamps where only ``side``'s time is spent: it acts ``days_each[i]`` days after the
    opponent, which answers at once."""
    result, at, number = [], T0, 1
    for days in days_each:
        for who in (0, 1):
            if who == side:
                at += days * DAY
            result.append(Stamp(number, who, at))
            number += 1
    return result


def test_per_form_is_cumulative_and_saved_time_carries_forward():
    control = clock.parse_time_control("2/10d")
    # White uses 1 day for each of its first two actions: 8 days saved at the control.
    ran = clock.run(control, T0, own_actions([1, 1]))
    assert ran.left[0] == 18 * DAY and ran.actions == (2, 2)
    assert ran.next_control(0) == 4
    # Between control points nothing is added: after 1 action, 10 - 4 = 6 days to action 2.
    ran = clock.run(control, T0, own_actions([4]))
    assert ran.left[0] == 6 * DAY and ran.next_control(0) == 2
    # The saved 8 days allow 18 days for actions 3 and 4 together: 17 is on time.
    assert clock.run(control, T0, own_actions([1, 1, 9, 8])).flag_falls == ()


def test_per_form_flag_falls_when_the_cumulative_allowance_is_exceeded():
    control = clock.parse_time_control("2/10d")
    ran = clock.run(control, T0, own_actions([1, 1, 9]))
    # 11 of the 20 days to White's 4th action are used: 9 are left, from day 11.
    assert ran.left[0] == 9 * DAY and ran.since == T0 + 11 * DAY
    assert clock.ran_out(ran, 0, 0, T0 + 20 * DAY) is None
    assert clock.ran_out(ran, 0, 0, T0 + 20 * DAY + 1) == clock.FlagFall(0, T0 + 20 * DAY, None)
    assert clock.run(control, T0, own_actions([1, 1, 9, 9])).flag_falls == ()
    late = clock.run(control, T0, own_actions([1, 1, 9, 10]))
    assert late.flag_falls == (clock.FlagFall(0, T0 + 20 * DAY, 7),)


def test_per_form_one_action_exactly_on_its_allowance_is_on_time():
    control = clock.parse_time_control("10/30d")
    ran = clock.run(control, T0, own_actions([30]))
    assert ran.flag_falls == () and ran.left[0] == 0


# --------------------------------------------------------------------------- leave

def test_leave_round_trip_and_refusals():
    leave = clock.parse_leave("2026-12-20 2027-01-03", 1)
    assert leave.side == 1 and leave.days == 15
    assert leave.begins == clock.parse_date("2026-12-20")
    assert leave.ends == clock.parse_date("2027-01-04")
    assert str(leave) == "2026-12-20 2027-01-03"
    assert leave.command() == "[%leave 2026-12-20 2027-01-03]"
    assert clock.parse_leave(str(leave), 1) == leave
    assert clock.parse_leave("2026-12-20 2026-12-20", 0).days == 1
    assert clock.leave_days_in_year([leave], 1, 2026) == 12
    assert clock.leave_days_in_year([leave], 1, 2027) == 3
    assert clock.leave_days_in_year([leave], 0, 2026) == 0
    assert list(clock.years_of(leave)) == [2026, 2027]


_FORM = ("a leave is written like [%leave 2026-12-20 2027-01-03]: its first and last day, or "
         "like [%leave white 2026-12-20 2027-01-03], naming its side; found")


def test_a_leave_may_name_its_side():
    named = clock.parse_leave("white 2026-12-20 2027-01-03", 1)
    assert named == clock.parse_leave("2026-12-20 2027-01-03", 0)      # the name wins over the place
    assert named.named() == "white 2026-12-20 2027-01-03"
    assert named.named_command() == "[%leave white 2026-12-20 2027-01-03]"
    assert clock.parse_leave(clock.parse_leave("black 2026-12-20 2026-12-21", 0).named(), 0).side == 1
    assert clock.names_side("black 2026-12-20 2026-12-21") and not clock.names_side("2026-12-20 2026-12-21")


@pytest.mark.parametrize("arguments, message", [
    # a side is named by its whole word: a letter is no name
    ("w 2026-12-20 2027-01-03", f"{_FORM} 'w 2026-12-20 2027-01-03'"),
    ("White 2026-12-20 2027-01-03", f"{_FORM} 'White 2026-12-20 2027-01-03'"),
    ("black 2026-12-20", f"{_FORM} 'black 2026-12-20'"),
    ("black white 2026-12-20 2027-01-03", f"{_FORM} 'black white 2026-12-20 2027-01-03'"),
    ("2026-12-20", f"{_FORM} '2026-12-20'"),
    ("", f"{_FORM} ''"),
    ("20.12.2026 2027-01-03", "expected a date like 2026-12-20, found '20.12.2026'"),
    ("2026-02-30 2027-01-03", "'2026-02-30' is not a real date: day is out of range for month"),
    ("2026-12-20 2026-12-19", "a leave's last day comes before its first: 2026-12-19 < 2026-12-20"),
])
def test_leave_refused(arguments, message):
    with pytest.raises(RecordError) as caught:
        clock.parse_leave(arguments, 0)
    assert caught.value.message == message


@pytest.mark.parametrize("text, days", [("45", 45), ("0", 0), ("366", 366)])
def test_leave_days_tag(text, days):
    assert clock.parse_leave_days(text) == days


@pytest.mark.parametrize("text", ["367", "-1", "45d", "", "1000"])
def test_leave_days_tag_refused(text):
    with pytest.raises(RecordError) as caught:
        clock.parse_leave_days(text)
    assert caught.value.message == f"the LeaveDays tag must be a number of days from 0 to 366, found '{text}'"


D0 = clock.parse_date("2026-11-24")          # midnight after T0 (10:15 on the 23rd)


def test_leave_stops_the_clock_of_its_side_only():
    control = clock.parse_time_control("2d")
    leave = clock.Leave(1, D0 + DAY, D0 + 4 * DAY)           # Black: 25th to 27th
    ran = clock.run(control, T0, [Stamp(1, 0, T0)], [leave])  # Black to act from T0
    # Black's time runs 23rd 10:15 to 25th 00:00, stops three days, runs again after.
    assert ran.time_left(1, 1, D0 + 3 * DAY) == 2 * DAY - (D0 + DAY - T0)
    assert ran.deadline(1) == T0 + 2 * DAY + 3 * DAY
    assert clock.ran_out(ran, 1, 1, T0 + 5 * DAY) is None
    assert clock.ran_out(ran, 1, 1, T0 + 5 * DAY + 1) == clock.FlagFall(1, T0 + 5 * DAY, None)
    # The same leave is White's: Black's clock runs through it.
    white = clock.run(control, T0, [Stamp(1, 0, T0)], [leave._replace(side=0)])
    assert white.deadline(1) == T0 + 2 * DAY


def test_an_action_during_leave_pays_only_the_running_time():
    control = clock.parse_time_control("10/30d")
    leave = clock.Leave(0, D0, D0 + 20 * DAY)
    ran = clock.run(control, T0, [Stamp(1, 0, D0 + 19 * DAY)], [leave])
    assert ran.left[0] == 30 * DAY - (D0 - T0)


def test_late_action_around_leave_falls_at_the_running_deadline():
    control = clock.parse_time_control("1d")
    leave = clock.Leave(0, D0, D0 + 2 * DAY)
    ran = clock.run(control, T0, [Stamp(1, 0, D0 + 3 * DAY)], [leave])
    # 13h45m before the leave, then 10h15m after it: the day ran out at 10:15 on the 26th.
    assert ran.flag_falls == (clock.FlagFall(0, D0 + 2 * DAY + 10 * HOUR + 15 * MINUTE, 1),)


def test_a_deadline_on_the_first_instant_of_leave_waits_for_its_end():
    control = clock.parse_time_control("1d")
    start = D0 - DAY
    ran = clock.run(control, start, [], [clock.Leave(0, D0, D0 + DAY)])
    assert ran.deadline(0) == D0 + DAY
    assert clock.ran_out(ran, 0, 0, D0 + DAY) is None
    assert clock.ran_out(ran, 0, 0, D0 + DAY + 1) is not None


def test_overlapping_leaves_stop_the_clock_once():
    leaves = [clock.Leave(0, D0, D0 + 2 * DAY), clock.Leave(0, D0 + DAY, D0 + 3 * DAY)]
    assert clock.running_time(leaves, 0, D0 - DAY, D0 + 4 * DAY) == 2 * DAY


# --------------------------------------------------------------------------- readings

def test_readings_give_time_left_deadline_and_flag():
    control = clock.parse_time_control("10/30d")
    white, black = clock.readings(control, T0, [Stamp(1, 0, T0 + DAY)], [], T0 + 11 * DAY, 1)
    assert (white.to_act, white.left, white.deadline, white.fall) == (False, 29 * DAY, None, None)
    assert white.next_control == 10
    assert black.to_act and black.had == 30 * DAY and black.left == 20 * DAY
    assert black.deadline == T0 + 31 * DAY and black.fall is None
    _, black = clock.readings(control, T0, [Stamp(1, 0, T0 + DAY)], [], T0 + 31 * DAY + 1, 1)
    assert black.fall == clock.FlagFall(1, T0 + 31 * DAY, None) and black.left == -1


def test_used_half_is_measured_from_the_start_of_the_turn():
    control = clock.parse_time_control("30d+3d")
    stamped = [Stamp(1, 0, T0 + 10 * DAY)]                  # White now has 23 days
    just_before = T0 + 10 * DAY + 15 * DAY - 1             # Black had 30: half is 15
    assert not clock.readings(control, T0, stamped, [], just_before, 1)[1].used_half
    assert clock.readings(control, T0, stamped, [], just_before + 1, 1)[1].used_half
    assert not clock.readings(control, T0, stamped, [], just_before + 1, 1)[0].used_half
    # During its leave the side's clock stands, so no reminder falls due.
    leave = [clock.Leave(1, D0 + 20 * DAY, D0 + 30 * DAY)]
    assert not clock.readings(control, T0, stamped, leave, just_before + 1, 1)[1].used_half
    white, black = clock.readings(control, T0, stamped, leave, just_before + 1, 1)
    assert black.on_leave and not white.on_leave


def test_readings_of_an_ended_game_show_no_one_to_act():
    control = clock.parse_time_control("1d")
    white, black = clock.readings(control, T0, [Stamp(1, 0, T0)], [], T0 + 9 * DAY, None)
    assert not white.to_act and not black.to_act and black.fall is None and black.left == DAY
