"""Issue 42, stamps from the mail server: an action's time is when the club's mail system
received its message (trusted Received fields for deliver, the Maildir name, the IMAP
INTERNALDATE), within bounds; an action that came after its player's deadline ends the
game on time and is named for the organiser."""

from __future__ import annotations

import json

import imaplib
import time

import pytest

from referee_support import ANA, BO, REFEREE, START, Lab, body_of, run
from test_imap import env_for, server  # noqa: F401 (server is a fixture)
from mail_support import certificates  # noqa: F401 (a fixture)

from tomis.mail.imap import internal_date
from tomis.mail.received import MAX_FIELD_BYTES, MAX_FIELDS, received_time
from tomis.notation.clock import format_stamp, parse_stamp
from tomis.referee import stamps
from tomis.referee.service import connect

MX, BACKUP = "mx.club.test", "backup.club.test"


class TrustingLab(Lab):
    """A Lab whose store trusts the Received fields of the club's two hosts."""

    def __init__(self, tmp_path, hosts=(MX, BACKUP.upper())):
        self.db = tmp_path / "referee.db"
        self.out = tmp_path / "out"
        self.out.mkdir()
        trust = [arg for host in hosts for arg in ("--received-by", host)]
        made = run("referee", "init", self.db, "--address", REFEREE, "--send-by",
                   f"outbox:{self.out}", *trust)
        assert made.exit_code == 0, made.output
        result = run("referee", "new", self.db, "--white", ANA, "--black", BO, "--now", START,
                     "--time-control", "30d+3d")
        self.game = int(result.stdout.strip())
        self.seen = 0


def date(stamp: str) -> str:
    """An RFC 5322 date for ``stamp``, in another zone than UTC (it must be read as such)."""
    seconds = parse_stamp(stamp) + 3600
    return time.strftime("%a, %d %b %Y %H:%M:%S +0100", time.gmtime(seconds))


def received(by: str, stamp: str, source: str = "player.test") -> bytes:
    return (f"Received: from {source} ({source} [192.0.2.7])\r\n\tby {by} (Postfix) with "
            f"ESMTPS id 4Xy;\r\n\t{date(stamp)}\r\n").encode()


def stamps_in(record: str) -> list[str]:
    return [word[:-1] for word in record.split("[%ts ")[1:]]


def first_stamp(lab) -> str:
    return stamps_in(lab.record())[1].split("]")[0]     # [0] is the game's start


# --------------------------------------------------------------------------- deliver

def test_a_lying_date_and_lower_received_lines_give_way_to_the_trusted_header(tmp_path):
    lab = TrustingLab(tmp_path)
    lie = lab.reply(0, "B@e1", headers={"Date": date("2026-11-23T10:01Z")})
    raw = (b"Return-Path: <ana@a.test>\r\n"
           + received(MX, "2026-11-23T10:42Z", BACKUP)          # the top host: trusted
           + received(BACKUP, "2026-11-23T10:30Z")              # the lowest trusted one
           + received("smtp.a.test", "2026-11-23T10:02Z")       # the sender's own: stops here
           + received(MX, "2026-11-23T10:03Z")                  # forged below it: proves nothing
           + lie)
    result = lab.deliver(raw, "2026-11-23T11:00Z")
    assert first_stamp(lab) == "2026-11-23T10:30Z"
    assert "stamped with the time it was stored" not in result.stderr
    # The opponent's mail shows that stamp as the record writes stamps.
    assert "to act since 2026-11-23T10:30Z" in body_of(lab.last_to(1))


def test_without_received_by_deliver_stamps_the_store_time(tmp_path):
    lab = Lab(tmp_path)
    raw = received(MX, "2026-11-23T10:30Z") + lab.reply(0, "B@e1")
    lab.deliver(raw, "2026-11-23T11:00Z")
    assert first_stamp(lab) == "2026-11-23T11:00Z"


def test_a_top_header_from_elsewhere_proves_nothing(tmp_path):
    lab = TrustingLab(tmp_path)
    raw = received("relay.elsewhere.test", "2026-11-23T10:20Z") + received(MX, "2026-11-23T10:10Z") \
        + lab.reply(0, "B@e1")
    lab.deliver(raw, "2026-11-23T11:00Z")
    assert first_stamp(lab) == "2026-11-23T11:00Z"


@pytest.mark.parametrize("stamp, why", [
    ("2026-11-23T11:30Z", "later than the time it was stored"),
    ("2026-11-22T10:59Z", "more than 24 hours before the time it was stored"),
    ("2026-11-23T09:30Z", "before the game's last stamp (2026-11-23T10:00Z)"),
])
def test_a_received_time_out_of_bounds_stamps_the_store_time_and_says_why(tmp_path, stamp, why):
    lab = TrustingLab(tmp_path)
    raw = received(MX, stamp) + lab.reply(0, "B@e1")
    result = lab.deliver(raw, "2026-11-23T11:00Z")
    assert first_stamp(lab) == "2026-11-23T11:00Z"
    assert (f"message 1: the mail system's time {stamp} is {why}; stamped with the time it "
            f"was stored, 2026-11-23T11:00Z") in result.stderr
    assert lab.query("SELECT stamped_at, stamp_note IS NOT NULL FROM inbox") == [
        (parse_stamp("2026-11-23T11:00Z"), 1)]


def test_an_unreadable_trusted_date_falls_back_to_the_one_above(tmp_path):
    lab = TrustingLab(tmp_path)
    broken = f"Received: from x by {MX} with ESMTP;\r\n\tnot a date at all\r\n".encode()
    raw = received(BACKUP, "2026-11-23T10:40Z") + broken + lab.reply(0, "B@e1")
    lab.deliver(raw, "2026-11-23T11:00Z")
    assert first_stamp(lab) == "2026-11-23T10:40Z"


def test_init_refuses_a_received_by_that_is_no_host_name(tmp_path):
    result = run("referee", "init", tmp_path / "r.db", "--address", REFEREE,
                 "--received-by", "mx.club.test;rm")
    assert result.exit_code != 0
    assert "--received-by" in result.output and "is not a host name" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "r.db").exists()


def test_received_by_is_kept_in_the_settings(tmp_path):
    lab = TrustingLab(tmp_path)
    store, _config = connect(str(lab.db))
    with store:
        assert stamps.trusted_hosts(store.settings()) == (MX, BACKUP)


# --------------------------------------------------------------------------- the reading

def test_received_fields_are_bounded_and_read_from_the_top():
    hosts = (MX,)
    body = b"Subject: x\r\n\r\nReceived: by mx.club.test; Mon, 23 Nov 2026 10:00:00 +0000\r\n"
    # Fields in the body are no fields; a message with none proves nothing.
    assert received_time(body, hosts) is None
    # One trusted field too long to believe: it stops the reading.
    long = f"Received: from x ({'a' * MAX_FIELD_BYTES}) by {MX};\r\n {date('2026-11-23T10:00Z')}\r\n"
    assert received_time(long.encode() + body, hosts) is None
    # More trusted fields than the bound: the reading ends there, at the lowest read.
    many = b"".join(received(MX, f"2026-11-23T10:{59 - n:02d}Z") for n in range(MAX_FIELDS + 5))
    assert received_time(many + body, hosts) == parse_stamp(f"2026-11-23T10:{59 - MAX_FIELDS + 1:02d}Z")
    # A 'by' inside a comment, or a host the club did not name, is no trusted clause.
    sneaky = f"Received: from x (by {MX}) by evil.test; {date('2026-11-23T10:00Z')}\r\n"
    assert received_time(sneaky.encode() + body, hosts) is None
    assert received_time(received(MX + ".evil.test", "2026-11-23T10:00Z") + body, hosts) is None


def test_the_imap_internaldate_is_read_with_its_zone():
    meta = b'1 (UID 7 INTERNALDATE " 3-Dec-2026 12:30:05 +0200" BODY[]<0> {12}'
    assert internal_date(meta) == parse_stamp("2026-12-03T10:30:05Z")
    assert internal_date(b'1 (UID 7 INTERNALDATE "31-Foo-2026 12:30:05 +0200")') is None
    assert internal_date(b"1 (UID 7)") is None


def test_a_time_no_stamp_can_show_is_no_time():
    stored = parse_stamp("2026-11-23T11:00Z")
    assert stamps.choose(999_999_999_999, stored, None) == stamps.StampChoice(stored)
    assert stamps.choose(-5, stored, None) == stamps.StampChoice(stored)


def test_the_maildir_name_gives_the_delivery_time():
    assert stamps.maildir_time("1795429200.M123456P77Q1.mx:2,S") == 1795429200
    assert stamps.maildir_time("1795429200.12_3.mx") == 1795429200
    assert stamps.maildir_time("msg.1795429200.mx") is None


# --------------------------------------------------------------------------- mailboxes

def test_a_maildir_message_is_stamped_with_its_delivery_time(tmp_path):
    lab = Lab(tmp_path)
    folder = tmp_path / "Maildir"
    for part in ("new", "cur", "tmp"):
        (folder / part).mkdir(parents=True)
    delivered = parse_stamp("2026-11-23T10:20Z")
    (folder / "new" / f"{delivered}.M654321P9Q2.mx").write_bytes(lab.reply(0, "B@e1"))
    result = run("referee", "fetch", lab.db, "--maildir", folder, "--now", "2026-11-23T11:00Z")
    assert result.exit_code == 0, result.output
    assert first_stamp(lab) == "2026-11-23T10:20Z"
    assert lab.query("SELECT received_at FROM inbox") == [(delivered,)]


def test_an_imap_message_is_stamped_with_its_internaldate(server, tmp_path):  # noqa: F811
    imap_server = server()
    lab = Lab(tmp_path)
    client = imap_server.admin()
    client.create("Games")
    came = parse_stamp("2026-11-23T10:25Z")
    status, _ = client.append("Games", None, imaplib.Time2Internaldate(came),
                              lab.reply(0, "B@e1"))
    assert status == "OK"
    client.logout()
    result = run("referee", "fetch", lab.db, "--imap", imap_server.place("Games"), "--now",
                 "2026-11-23T11:00Z", env=env_for(imap_server))
    assert result.exit_code == 0, result.output
    assert first_stamp(lab) == "2026-11-23T10:25Z"
    assert lab.query("SELECT received_at FROM inbox") == [(came,)]


# --------------------------------------------------------------------------- late actions

DEADLINE = "2026-12-23T10:00Z"      # White's 30 days from the start


def test_an_action_received_after_the_deadline_is_answered_the_game_is_over(tmp_path):
    lab = TrustingLab(tmp_path)
    raw = received(MX, "2026-12-23T10:05Z") + lab.reply(0, "B@e1")
    lab.deliver(raw, "2026-12-23T10:20Z")
    record = lab.record()
    assert "B@e1" not in record and '[Result "0-1"]' in record
    answer = body_of(lab.last_to(0))
    assert "the game is over" in answer and DEADLINE in answer
    store, _config = connect(str(lab.db))
    with store:
        (late,) = stamps.late_actions(store, parse_stamp("2026-12-23T00:00Z"))
        assert (late.game, late.side, late.address) == (lab.game, 0, "ana@a.test")
        assert late.deadline == parse_stamp(DEADLINE)
        assert late.received == parse_stamp("2026-12-23T10:05Z")
        assert "after the deadline 2026-12-23T10:00Z" in late.line()
        assert stamps.late_actions(store, parse_stamp("2026-12-23T10:21Z")) == []


def test_an_action_received_before_the_deadline_but_stored_after_it_is_played(tmp_path):
    lab = TrustingLab(tmp_path)
    raw = received(MX, "2026-12-23T09:55Z") + lab.reply(0, "B@e1")
    lab.deliver(raw, "2026-12-23T10:20Z")        # the referee's own delay: not charged
    assert "B@e1" in lab.record() and '[Result "*"]' in lab.record()
    assert first_stamp(lab) == "2026-12-23T09:55Z"
    store, _config = connect(str(lab.db))
    with store:
        assert stamps.late_actions(store, 0) == []


def test_a_message_after_the_opponents_deadline_says_whose_time_ran_out(tmp_path):
    lab = TrustingLab(tmp_path)
    raw = received(MX, "2026-12-23T10:05Z") + lab.reply(1, "good luck")
    lab.deliver(raw, "2026-12-23T10:20Z")
    assert '[Result "0-1"]' in lab.record()
    answer = body_of(lab.last_to(1))
    assert "Ana Lungu" in answer and "the game is over" in answer
    assert lab.query("SELECT late_side FROM inbox") == [(None,)]


def test_an_action_after_the_deadline_of_a_game_tick_ended_is_named_too(tmp_path):
    lab = TrustingLab(tmp_path)
    ticked = run("referee", "tick", lab.db, "--now", "2026-12-23T10:01Z")
    assert ticked.exit_code == 0 and '[Result "0-1"]' in lab.record()
    lab.deliver(received(MX, "2026-12-23T11:00Z") + lab.reply(0, "B@e1"), "2026-12-23T11:01Z")
    answer = body_of(lab.last_to(0))
    assert "your time ran out at 2026-12-23T10:00Z" in answer and "the game is over" in answer
    lab.deliver(received(MX, "2026-12-23T11:02Z") + lab.reply(0, "well played"),
                "2026-12-23T11:03Z")
    lab.deliver(received(MX, "2026-12-23T11:04Z") + lab.reply(1, "B@d8"), "2026-12-23T11:05Z")
    # The late action is named; chat after the end, and the winner's message, are not.
    assert lab.query("SELECT id, late_side FROM inbox ORDER BY id") == [(1, 0), (2, None),
                                                                        (3, None)]
    # The organiser's report names the late action, and only it.
    found = json.loads(run("referee", "alerts", lab.db, "--json",
                           "--now", "2026-12-23T12:00Z").stdout)
    assert found["late"] == [{"message": 1, "game": 1, "player": "Ana Lungu",
                              "deadline": "2026-12-23T10:00Z", "came": "2026-12-23T11:00Z"}]
