"""tomis.clock: TimeControl values, UTC stamps, time left and flag falls (docs/NOTATION.md)."""

import pytest

from tomis import clock
from tomis.clock import DAY, HOUR, MINUTE, Stamp, TimeControl
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
    ("", "the TimeControl tag must be like 30d+3d or bank:240h+36h, found ''"),
    ("30 days", "the TimeControl tag must be like 30d+3d or bank:240h+36h, found '30 days'"),
    ("3d30d", "the TimeControl tag must be like 30d+3d or bank:240h+36h, found '3d30d'"),
    ("30d+", "the TimeControl tag must be like 30d+3d or bank:240h+36h, found '30d+'"),
    ("bank:", "the TimeControl tag must be like 30d+3d or bank:240h+36h, found 'bank:'"),
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
