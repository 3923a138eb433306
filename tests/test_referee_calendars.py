"""Deadlines in the players' calendars (issue 42): every message of a game with clocks
carries an iCalendar file, read here by the icalendar package and by a small reader of
RFC 5545 of the test's own (independent of icalendar), which must agree: one UID per game
and player for the whole game, SEQUENCE rising with every change, the event at the
deadline the message states with an alarm only on the player's own turn, and a cancel at
the end."""

from __future__ import annotations

import email
import email.policy
import re
import sys
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

import icalendar
import pytest

from referee_support import ADDRESSES, Lab, body_of, run

START = "2026-11-23T10:00Z"


# --------------------------------------------------------------------------- an independent reader

@dataclass
class Component:
    """One BEGIN:NAME ... END:NAME block: its properties (name -> [(params, value)])."""

    name: str
    properties: dict[str, list[tuple[dict[str, str], str]]] = field(default_factory=dict)
    children: list["Component"] = field(default_factory=list)

    def value(self, name: str) -> str:
        (only,) = self.properties[name]
        return only[1]

    def params(self, name: str) -> dict[str, str]:
        (only,) = self.properties[name]
        return only[0]


CONTENT_LINE = re.compile(r'^([A-Za-z0-9-]+)((?:;[A-Za-z0-9-]+=(?:"[^"]*"|[^";:,]*))*):(.*)$')
PARAM = re.compile(r';([A-Za-z0-9-]+)=("[^"]*"|[^";:,]*)')


def unfold(data: bytes) -> list[str]:
    """RFC 5545 section 3.1: content lines end with CRLF (a mail reader may give LF), no
    line is longer than 75 octets, and a line beginning with a space or a tab continues
    the one before."""
    raw_lines = data.split(b"\r\n") if b"\r\n" in data else data.split(b"\n")
    assert raw_lines[-1] == b"", "the file ends with a line break"
    lines: list[bytes] = []
    for raw in raw_lines[:-1]:
        assert len(raw) <= 75, f"a line longer than 75 octets: {raw!r}"
        if raw[:1] in (b" ", b"\t"):
            lines[-1] += raw[1:]
        else:
            lines.append(raw)
    return [line.decode("utf-8") for line in lines]


def unescape(text: str) -> str:
    """RFC 5545 section 3.3.11, TEXT values."""
    return re.sub(r"\\([\\;,nN])", lambda m: "\n" if m[1] in "nN" else m[1], text)


def read_calendar(data: bytes) -> Component:
    """The one VCALENDAR of ``data``, BEGIN and END checked to nest."""
    stack = [Component("(file)")]
    for line in unfold(data):
        match = CONTENT_LINE.match(line)
        assert match, f"not a content line: {line!r}"
        name, params, value = match[1].upper(), match[2], match[3]
        if name == "BEGIN":
            child = Component(value.upper())
            stack[-1].children.append(child)
            stack.append(child)
        elif name == "END":
            assert stack[-1].name == value.upper(), f"END:{value} closes {stack[-1].name}"
            stack.pop()
        else:
            parsed = {key.upper(): raw.strip('"') for key, raw in PARAM.findall(params)}
            stack[-1].properties.setdefault(name, []).append((parsed, value))
    assert len(stack) == 1, "a component is not closed"
    (calendar,) = stack[0].children
    assert calendar.name == "VCALENDAR"
    return calendar


def utc_time(value: str) -> datetime:
    """A DATE-TIME in UTC (RFC 5545 section 3.3.5, form 2)."""
    return datetime.strptime(value, "%Y%m%dT%H%M%SZ").replace(tzinfo=timezone.utc)


# --------------------------------------------------------------------------- what a message carries

@dataclass(frozen=True)
class Seen:
    """One message's calendar as both readers read it."""

    side: int
    method: str                # the Content-Type's method parameter
    uid: str
    sequence: int
    start: datetime
    summary: str
    status: str
    alarm: timedelta | None    # the VALARM's TRIGGER, relative to the start
    body: str


def calendar_part(message):
    parts = [part for part in message.iter_attachments()
             if part.get_content_type() == "text/calendar"]
    assert len(parts) <= 1
    return parts[0] if parts else None


def seen(message) -> Seen:
    part = calendar_part(message)
    assert part is not None, "the message carries no calendar"
    data = part.get_payload(decode=True)
    mine = read_calendar(data)
    (event,) = [child for child in mine.children if child.name == "VEVENT"]
    alarms = [child for child in event.children if child.name == "VALARM"]
    theirs = icalendar.Calendar.from_ical(data)
    (their_event,) = theirs.walk("VEVENT")
    # The two readers agree on every fact the test looks at.
    assert mine.value("METHOD") == str(theirs["METHOD"]) == part.get_param("method")
    assert mine.value("VERSION") == "2.0"
    assert event.value("UID") == str(their_event["UID"])
    assert int(event.value("SEQUENCE")) == int(their_event["SEQUENCE"])
    start = utc_time(event.value("DTSTART"))
    assert start == their_event.decoded("DTSTART")
    assert unescape(event.value("SUMMARY")) == str(their_event["SUMMARY"])
    alarm = None
    if alarms:
        (only,) = alarms
        assert only.value("ACTION") == "DISPLAY"
        assert only.value("TRIGGER") == "-P1D"          # a day before the start
        alarm = their_event.walk("VALARM")[0].decoded("TRIGGER")
    assert len(their_event.walk("VALARM")) == len(alarms)
    side = ADDRESSES.index(message["To"].addresses[0].addr_spec)
    return Seen(side, part.get_param("method"), event.value("UID"), int(event.value("SEQUENCE")),
                start, unescape(event.value("SUMMARY")), event.value("STATUS"), alarm,
                body_of(message))


def stated_deadline(body: str) -> datetime:
    """The deadline the message's clocks state in words."""
    (stamp,) = re.findall(r"time runs out at (\d{4}-\d\d-\d\dT\d\d:\d\d)Z", body)
    return datetime.strptime(stamp, "%Y-%m-%dT%H:%M").replace(tzinfo=timezone.utc)


@pytest.fixture
def lab(tmp_path):
    return Lab(tmp_path)


def play(lab, side: int, text: str, now: str) -> list[Seen]:
    lab.deliver(lab.reply(side, text), now)
    return [seen(message) for message in lab.new_messages()]


# --------------------------------------------------------------------------- the tests

def test_a_game_keeps_one_entry_per_player_moving_with_the_deadline_to_its_cancel(lab):
    every = [seen(message) for message in lab.new_messages()]          # the game's start
    moves = [(0, "B@e1", "2026-11-24T11:00Z"), (1, "B@d8", "2026-11-26T09:30Z"),
             (0, "G@c1", "2026-11-30T18:00Z"), (1, "G@f8", "2026-12-02T08:00Z")]
    for side, action, now in moves:
        every += play(lab, side, action, now)
    every += play(lab, 0, "resign", "2026-12-03T12:00Z")
    ends = every[-2:]
    going = every[:-2]
    assert len(going) == 2 * (1 + len(moves))
    # One UID per game and player for the whole game, the two players' apart, no token in it.
    uids = {side: {each.uid for each in every if each.side == side} for side in (0, 1)}
    assert all(len(uid) == 1 for uid in uids.values()) and uids[0] != uids[1]
    assert all(f"tomis-game-{lab.game}-" in uid for (uid,) in uids.values())
    # SEQUENCE rises strictly with every action, for each player.
    for side in (0, 1):
        sequences = [each.sequence for each in every if each.side == side]
        assert sequences == sorted(set(sequences)), sequences
    for each in going:
        assert each.method == "PUBLISH" and each.status == "CONFIRMED"
        # At the deadline the message states, the side to act's.
        assert each.start == stated_deadline(each.body)
        own_turn = "Your turn: reply above the line" in each.body
        assert (each.alarm == -timedelta(hours=24)) if own_turn else each.alarm is None
        to_act = "Black" if each.side == 0 else "White"
        assert each.summary == (f"Your time runs out in game #{lab.game}" if own_turn
                                else f"Waiting for {to_act} in game #{lab.game}")
    # Every action moved each player's entry (the deadline is the other side's now).
    for side in (0, 1):
        starts = [each.start for each in going if each.side == side]
        assert all(before != after for before, after in zip(starts, starts[1:])), starts
    for each in ends:
        assert each.method == "CANCEL" and each.status == "CANCELLED" and each.alarm is None
        assert each.sequence > max(seen.sequence for seen in going if seen.side == each.side)
        assert each.uid in uids[each.side]


def test_a_message_that_changes_nothing_repeats_the_sequence(lab):
    lab.new_messages()
    (to_ana, to_bo) = sorted(play(lab, 0, "B@e1", "2026-11-24T11:00Z"), key=lambda s: s.side)
    (status,) = play(lab, 1, "status", "2026-11-25T11:00Z")
    assert status.side == 1 and status.uid == to_bo.uid
    assert (status.sequence, status.start) == (to_bo.sequence, to_bo.start)
    assert status.alarm == -timedelta(hours=24)


def test_the_uid_is_the_stores_own(tmp_path):
    """Two stores at one address (the second made anew) number games alike: their entries
    differ, for the UID is made with each store's secret."""
    first, second = tmp_path / "one", tmp_path / "two"
    first.mkdir(), second.mkdir()
    uids = [seen(Lab(place).new_messages()[0]).uid for place in (first, second)]
    assert uids[0] != uids[1] and uids[0].endswith("@club.test")


def test_no_clocks_no_calendar(tmp_path):
    lab = Lab(tmp_path, time_control=None)
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-24T11:00Z")
    messages = lab.messages()
    assert len(messages) == 4
    assert all(calendar_part(message) is None for message in messages)


def test_without_icalendar_the_letters_go_without_a_calendar(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "icalendar", None)      # import icalendar fails
    lab = Lab(tmp_path)
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-24T11:00Z")
    messages = lab.messages()
    assert len(messages) == 4
    assert all(calendar_part(message) is None for message in messages)
    assert all(message.get_body(("plain",)) is not None for message in messages)
    assert lab.query("SELECT COUNT(*) FROM calendars") == [(0,)]


def test_a_time_forfeit_cancels_the_entries(lab):
    lab.new_messages()
    play(lab, 0, "B@e1", "2026-11-24T11:00Z")
    result = run("referee", "tick", lab.db, "--now", "2026-12-30T11:01Z")
    assert result.exit_code == 0, result.output
    ends = [seen(message) for message in lab.new_messages()]
    assert sorted(each.side for each in ends) == [0, 1]
    assert all(each.method == "CANCEL" and each.status == "CANCELLED" for each in ends)


def test_names_are_escaped_and_folded(tmp_path):
    """A name with iCalendar's separators and accents (the longest the referee takes)
    reads back whole through both readers, from lines folded within 75 octets, in a
    message that stays 7-bit."""
    out = tmp_path / "out"
    out.mkdir()
    db = tmp_path / "referee.db"
    assert run("referee", "init", db, "--address", "ref@club.test",
               "--send-by", f"outbox:{out}").exit_code == 0
    # A player's name holds no comma (lists of players are comma-separated), so the
    # separator here is iCalendar's other one, the semicolon.
    name = "Ștefan; Lungu; Jr. " + "ő" * 45
    assert len(name) == 64
    result = run("referee", "new", db, "--white", f'"{name}" <ana@a.test>', "--black",
                 "Bo Marin <bo@b.test>", "--time-control", "30d+3d", "--now", START)
    assert result.exit_code == 0, result.output
    raw = sorted(out.glob("*.eml"))[0].read_bytes()
    assert raw.isascii()
    message = email.message_from_bytes(raw, policy=email.policy.default)
    data = calendar_part(message).get_payload(decode=True)
    mine = read_calendar(data)        # every line within 75 octets, folded and unfolded
    (event,) = [child for child in mine.children if child.name == "VEVENT"]
    (their_event,) = icalendar.Calendar.from_ical(data).walk("VEVENT")
    description = unescape(event.value("DESCRIPTION"))
    assert description == str(their_event["DESCRIPTION"])
    assert f": {name} (White) vs Bo Marin (Black)." in description
