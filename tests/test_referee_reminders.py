"""Reminders that arrive (issue 42): the club's schedule, each reminder once a turn,
those due at one tick in one message, ``--reminders`` in init and settings, and a player
who cannot be reached named to the organiser before the time-out."""

from __future__ import annotations

import json
import re

import pytest

from referee_support import ADDRESSES, REFEREE, Lab, START, body_of, headline, run
from test_referee_alerts import dsn_bounce

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
    """Tick at ``at``; what it sent: (to whom, what it tells, body) each."""
    _ok("referee", "tick", lab.db, "--now", format_stamp(at))
    return [(ADDRESSES.index(message["To"].addresses[0].addr_spec), headline(message),
             body_of(message)) for message in lab.new_messages()]


def _reminders(sent) -> list[tuple[int, int, str]]:
    """Each reminder sent as (to whom, the share it says was used, the deadline it says)."""
    found = []
    for side, subject, body in sent:
        assert "reminder" in subject.lower()
        text = " ".join(body.split())
        used = re.search(r"you have used (\d+)% of the time", text)
        deadline = re.search(r"your time runs out at (\S+)\.", text)
        found.append((side, int(used.group(1)), deadline.group(1)))
    return found


def _act(lab: Lab, number: int, at: int) -> None:
    lab.deliver(lab.reply(number % 2, ACTIONS[number]), format_stamp(at))
    lab.new_messages()


@pytest.mark.slow            # 17 s: a whole 10/50d game, tick by tick
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
    _ok("referee", "init", tmp_path / "plain.db", "--address", REFEREE,
        "--send-by", f"outbox:{tmp_path}")
    shown = _ok("referee", "settings", tmp_path / "plain.db").output
    assert re.search(r"^reminders\W+50%,80%,24h$", shown, re.M), shown      # the default
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


# --------------------------------------------------------------------------- unreachable

ORGANISER = "org@club.test"


def _first_to(lab: Lab, side: int) -> bytes:
    """The bytes of the first message the referee wrote to ``side``'s player."""
    return next(path.read_bytes() for path in sorted(lab.out.glob("*.eml"))
                if ADDRESSES[side].encode() in path.read_bytes().split(b"\n\n", 1)[0])


def _unreachable(lab: Lab, at: int) -> list[dict]:
    result = _ok("referee", "alerts", lab.db, "--json", "--now", format_stamp(at))
    return json.loads(result.stdout)["unreachable"]


def test_a_reminded_player_whose_mail_bounced_reaches_the_organiser_before_the_time_out(tmp_path):
    lab = Lab(tmp_path, time_control="10/50d")
    _ok("referee", "settings", lab.db, "--organiser", ORGANISER, "--reminders", "50%,6h")
    deadline = T0 + 50 * DAY
    # The message that began Ana's turn bounced; the organiser hears of the bounce.
    lab.deliver(dsn_bounce(_first_to(lab, 0), ADDRESSES[0]), format_stamp(T0 + HOUR))
    lab.new_messages()
    _ok("referee", "tick", lab.db, "--now", format_stamp(T0 + 2 * HOUR))
    [first] = [m for m in lab.new_messages() if ORGANISER in str(m["To"])]
    assert "Bounced players (1):" in body_of(first)
    # Half her time: a reminder, not yet the last of the turn, so nobody is named.
    _tick(lab, T0 + 25 * DAY)
    assert _unreachable(lab, T0 + 25 * DAY + HOUR) == []
    # A report two hours before the last reminder (Bo's mail out of turn is refused) ...
    lab.deliver(lab.reply(1, "B@d8"), format_stamp(deadline - 8 * HOUR))
    lab.new_messages()
    _ok("referee", "tick", lab.db, "--now", format_stamp(deadline - 8 * HOUR))
    reports = [m for m in lab.new_messages() if ORGANISER in str(m["To"])]
    assert len(reports) == 1 and "cannot be reached" not in body_of(reports[0])
    # ... does not hold back the one that names her once the last reminder went unanswered:
    # it comes at once, six hours before her time-out, not a day after the last report.
    _ok("referee", "tick", lab.db, "--now", format_stamp(deadline - 6 * HOUR))
    sent = lab.new_messages()
    assert [ADDRESSES.index(m["To"].addresses[0].addr_spec) for m in sent
            if ORGANISER not in str(m["To"])] == [0]                   # the last reminder
    [report] = [m for m in sent if ORGANISER in str(m["To"])]
    text = body_of(report)
    assert "Players to act who cannot be reached, before their time-out (1):" in text
    assert "Ana Lungu <ana@a.test> was reminded" in text and format_stamp(deadline) in text
    assert _unreachable(lab, deadline - 6 * HOUR) == [
        {"game": lab.game, "player": "Ana Lungu", "address": "ana@a.test",
         "deadline": format_stamp(deadline)}]
    # Once her time ran out the game is over: nobody is to be reached any more.
    _ok("referee", "tick", lab.db, "--now", format_stamp(deadline + MINUTE))
    assert _unreachable(lab, deadline + MINUTE) == []


def test_a_player_not_bounced_or_not_yet_reminded_last_is_not_unreachable(tmp_path):
    lab = Lab(tmp_path, time_control="10/50d")
    lab.deliver(dsn_bounce(_first_to(lab, 1), ADDRESSES[1]), format_stamp(T0 + HOUR))
    lab.new_messages()
    for day in (25, 40, 49):                   # Ana has every reminder; Bo's mail bounced
        _tick(lab, T0 + day * DAY)
    assert _unreachable(lab, T0 + 49 * DAY + HOUR) == []
    # Ana plays: Bo's bounce was of a message before his turn began, so it names him only
    # when mail of this turn bounces too.
    _act(lab, 0, T0 + 49 * DAY + 2 * HOUR)
    for day in (25, 40, 49):
        _tick(lab, T0 + 49 * DAY + 2 * HOUR + day * DAY)
    assert _unreachable(lab, T0 + 98 * DAY + 3 * HOUR) == []
    last = [path for path in sorted(lab.out.glob("*.eml"))
            if ADDRESSES[1].encode() in path.read_bytes().split(b"\n\n", 1)[0]][-1]
    lab.deliver(dsn_bounce(last.read_bytes(), ADDRESSES[1], queue_id="5B2C3"),
                format_stamp(T0 + 98 * DAY + 4 * HOUR))
    assert [item["player"] for item in _unreachable(lab, T0 + 98 * DAY + 5 * HOUR)] == [
        "Bo Marin"]
