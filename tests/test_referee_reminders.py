"""Reminders that arrive (issue 42): the club's schedule, each reminder once a turn,
those due at one tick in one message, ``--reminders`` in init and settings, and a player
who cannot be reached named to the organiser before the time-out."""

from __future__ import annotations

import re

import pytest

from referee_support import ADDRESSES, REFEREE, Lab, START, body_of, run

from tomis.notation.clock import format_stamp, parse_stamp

MINUTE, HOUR, DAY = 60, 3600, 86_400
T0 = parse_stamp(START)
# Twenty legal actions: White's and Black's first ten each (a 10/50d control point).
ACTIONS = ["B@e1", "B@d8", "G@b1", "G@g8", "G@f2", "G@a7", "G@c3", "G@e6", "G@h4", "G@d5",
           "F@a1", "F@a8", "F@c1", "F@b8", "F@d1", "F@c8", "F@f1", "F@e8", "F@g1", "F@f8"]


def _ok(*args):
    result = run(*args)
    assert result.exit_code == 0, result.output
    return result


def _tick(lab: Lab, at: int) -> list[tuple[int, str, str]]:
    """Tick at ``at``; what it sent: (to whom, subject, body) each."""
    _ok("referee", "tick", lab.db, "--now", format_stamp(at))
    return [(ADDRESSES.index(message["To"].addresses[0].addr_spec), str(message["Subject"]),
             body_of(message)) for message in lab.new_messages()]


def _reminders(sent) -> list[tuple[int, int, str]]:
    """Each reminder sent as (to whom, the share it says was used, the deadline it says)."""
    found = []
    for side, subject, body in sent:
        assert "reminder" in subject
        text = " ".join(body.split())
        used = re.search(r"you have used (\d+)% of the time", text)
        deadline = re.search(r"your time runs out at (\S+)\.", text)
        found.append((side, int(used.group(1)), deadline.group(1)))
    return found


def _act(lab: Lab, number: int, at: int) -> None:
    lab.deliver(lab.reply(number % 2, ACTIONS[number]), format_stamp(at))
    lab.new_messages()


def test_a_whole_10_50d_game_gets_each_reminder_once_and_those_due_together_as_one(tmp_path):
    lab = Lab(tmp_path, time_control="10/50d")
    lab.new_messages()
    stamp = format_stamp
    # White's first turn: 50d from the start. Half used at 25d, four fifths at 40d, and
    # 24 hours before the time-out at 49d; each once.
    white_out = stamp(T0 + 50 * DAY)
    assert _tick(lab, T0 + 25 * DAY - MINUTE) == []
    assert _reminders(_tick(lab, T0 + 25 * DAY)) == [(0, 50, white_out)]
    assert _tick(lab, T0 + 26 * DAY) == []
    assert _reminders(_tick(lab, T0 + 40 * DAY)) == [(0, 80, white_out)]
    assert _tick(lab, T0 + 41 * DAY) == []
    last = _tick(lab, T0 + 49 * DAY)
    assert _reminders(last) == [(0, 98, white_out)] and "You have 1d left" in last[0][2]
    assert _tick(lab, T0 + 49 * DAY + 6 * HOUR) == []
    w1 = T0 + 49 * DAY + 12 * HOUR                       # White keeps 12h to its control
    _act(lab, 0, w1)
    # Black's first turn (50d): no tick until 45d in, when both the half and the four
    # fifths are due: one message; the 24-hour one still comes on its own.
    black_out = stamp(w1 + 50 * DAY)
    assert _tick(lab, w1 + 24 * DAY) == []
    assert _reminders(_tick(lab, w1 + 45 * DAY)) == [(1, 90, black_out)]
    assert _tick(lab, w1 + 46 * DAY) == []
    assert _reminders(_tick(lab, w1 + 49 * DAY)) == [(1, 98, black_out)]
    b1 = w1 + 49 * DAY + HOUR                            # Black keeps 23h
    _act(lab, 1, b1)
    # White's second turn began with 12h, less than 24h: the half (6h) and the four fifths
    # (9h36m) come, the 24-hour point does not fall in this turn.
    white_out = stamp(b1 + 12 * HOUR)
    assert _tick(lab, b1 + 6 * HOUR - MINUTE) == []
    assert _reminders(_tick(lab, b1 + 6 * HOUR)) == [(0, 50, white_out)]
    assert _tick(lab, b1 + 9 * HOUR + 35 * MINUTE) == []
    assert _reminders(_tick(lab, b1 + 9 * HOUR + 36 * MINUTE)) == [(0, 80, white_out)]
    w2 = b1 + 11 * HOUR                                  # White keeps 1h
    _act(lab, 2, w2)
    # Both reach their tenth action a minute apart each: White's last at w2 + 16m, with
    # 1h - 8m + 50d; Black's at w2 + 17m, after which White is to act.
    for number in range(3, 20):
        _act(lab, number, w2 + (number - 2) * MINUTE)
    b10 = w2 + 17 * MINUTE
    had = 50 * DAY + 52 * MINUTE                         # to White's next control
    white_out = stamp(b10 + had)
    assert _tick(lab, b10 + had // 2 - MINUTE) == []
    assert _reminders(_tick(lab, b10 + had // 2)) == [(0, 50, white_out)]
    # White never plays: the tick after its time ran out ends the game, and the reminders
    # it had not been sent (four fifths, 24 hours) are not sent any more.
    ended = _tick(lab, b10 + had + MINUTE)
    assert sorted(side for side, _, _ in ended) == [0, 1]
    assert all("time ran out" in subject for _, subject, _ in ended)
    assert _tick(lab, b10 + had + DAY) == []


def test_off_sends_none_and_a_changed_schedule_applies_to_games_in_play(tmp_path):
    lab = Lab(tmp_path, time_control="10/50d")
    lab.new_messages()
    assert _tick(lab, T0 + 24 * DAY) == []
    _ok("referee", "settings", lab.db, "--reminders", "off")
    assert _tick(lab, T0 + 49 * DAY) == []
    # A new schedule: the games in play are looked at again on the next tick, and 10%
    # (5d), long past, is sent once; 6h before the time-out comes at its moment.
    _ok("referee", "settings", lab.db, "--reminders", "10%, 6h")
    assert _reminders(_tick(lab, T0 + 49 * DAY + MINUTE)) == [(0, 98, format_stamp(T0 + 50 * DAY))]
    assert _tick(lab, T0 + 49 * DAY + 17 * HOUR) == []
    assert _reminders(_tick(lab, T0 + 49 * DAY + 18 * HOUR)) == [
        (0, 99, format_stamp(T0 + 50 * DAY))]


def test_init_takes_a_schedule_and_settings_shows_it(tmp_path):
    db = tmp_path / "club.db"
    _ok("referee", "init", db, "--address", REFEREE, "--send-by", f"outbox:{tmp_path}",
        "--reminders", "25%,75%,1d12h,90m")
    shown = _ok("referee", "settings", db).output
    assert re.search(r"^reminders\W+25%,75%,1d12h,90m$", shown, re.M), shown


BAD = ["", "50", "0%", "100%", "150%", "5x", "-3h", "0m", "50%,50%", "24h,,80%",
       "1%,2%,3%,4%,5%,6%,7%,8%,9%", "12h30", "off,50%", "50 %\x1b[31m"]


@pytest.mark.parametrize("value", BAD)
def test_a_bad_schedule_is_refused_in_one_line_and_nothing_changes(tmp_path, value):
    lab = Lab(tmp_path, time_control="10/50d")
    before = lab.query("SELECT key, value FROM settings ORDER BY key")
    refused = run("referee", "settings", lab.db, "--reminders", value)
    assert refused.exit_code != 0 and "Traceback" not in refused.output
    message = refused.stderr.strip()
    assert len(message.splitlines()) == 1 and "--reminders" in message
    assert "\x1b" not in message
    assert lab.query("SELECT key, value FROM settings ORDER BY key") == before
    fresh = tmp_path / "fresh.db"
    refused = run("referee", "init", fresh, "--address", REFEREE,
                  "--send-by", f"outbox:{tmp_path}", "--reminders", value)
    assert refused.exit_code != 0 and len(refused.stderr.strip().splitlines()) == 1
    assert not fresh.exists()
