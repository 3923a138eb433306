"""Issue 40, finding 4: nobody heard of trouble. Bounces of a player's address are read
(RFC 3464 reports, and a mail server's plain-text shape), matched to the player and game
by the token of the message they return, kept and never answered; ``alerts`` names what
needs a person, and ``tick`` mails it to the organiser once a day at most.

Each test drives the CLI in process on a real store, as the organiser and the mail
server would."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from referee_support import ADDRESSES, REFEREE, Lab, body_of, run

from tomis.referee import process as referee_process

ORGANISER = "org@club.test"
BOUNCED_AT = "2026-11-23T12:00Z"


def _ok(*args, input=None):
    result = run(*args, input=input)
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    return result


def _alerts(lab: Lab, now: str) -> dict:
    return json.loads(_ok("referee", "alerts", lab.db, "--json", "--now", now).stdout)


def _sent_raw(lab: Lab, side: int) -> bytes:
    """The bytes of the newest message the referee wrote to ``side``'s player."""
    paths = [path for path in sorted(lab.out.glob("*.eml"))
             if ADDRESSES[side].encode() in path.read_bytes().split(b"\n\n", 1)[0]]
    return paths[-1].read_bytes()


def _headers_of(raw: bytes) -> bytes:
    return raw.replace(b"\r\n", b"\n").split(b"\n\n", 1)[0] + b"\n"


def dsn_bounce(returned: bytes, address: str, *, whole: bool = True,
               action: str = "failed", queue_id: str = "4F1A2") -> bytes:
    """A delivery report as Postfix writes it (bounce(8)): a multipart/report with the
    notice, the message/delivery-status fields, and the message returned whole
    (message/rfc822) or its headers (text/rfc822-headers)."""
    kind = "message/rfc822" if whole else "text/rfc822-headers"
    body = returned if whole else _headers_of(returned)
    return b"\n".join([
        b"Return-Path: <>",
        b"Received: by mail.club.test (Postfix) id 4F1A2; Mon, 23 Nov 2026 12:00:00 +0000",
        b"Date: Mon, 23 Nov 2026 12:00:00 +0000 (UTC)",
        b"From: MAILER-DAEMON@mail.club.test (Mail Delivery System)",
        b"Subject: Undelivered Mail Returned to Sender",
        f"To: {REFEREE}".encode(),
        b"Auto-Submitted: auto-replied",
        b"MIME-Version: 1.0",
        b'Content-Type: multipart/report; report-type=delivery-status;',
        b'\tboundary="4F1A2.1764000000/mail.club.test"',
        f"Message-Id: <20261123120000.{queue_id}@mail.club.test>".encode(),
        b"",
        b"This is a MIME-encapsulated message.",
        b"",
        b"--4F1A2.1764000000/mail.club.test",
        b"Content-Description: Notification",
        b"Content-Type: text/plain; charset=us-ascii",
        b"",
        b"This is the mail system at host mail.club.test.",
        b"",
        b"I'm sorry to have to inform you that your message could not",
        b"be delivered to one or more recipients. It's attached below.",
        b"",
        f"<{address}>: host mx.b.test[192.0.2.7] said: 550 5.1.1 <{address}>:".encode(),
        b"    Recipient address rejected: User unknown (in reply to RCPT TO command)",
        b"",
        b"--4F1A2.1764000000/mail.club.test",
        b"Content-Description: Delivery report",
        b"Content-Type: message/delivery-status",
        b"",
        b"Reporting-MTA: dns; mail.club.test",
        b"X-Postfix-Queue-ID: 4F1A2",
        f"X-Postfix-Sender: rfc822; {REFEREE}".encode(),
        b"Arrival-Date: Mon, 23 Nov 2026 11:59:58 +0000 (UTC)",
        b"",
        f"Final-Recipient: rfc822; {address}".encode(),
        f"Original-Recipient: rfc822;{address}".encode(),
        f"Action: {action}".encode(),
        b"Status: 5.1.1",
        b"Remote-MTA: dns; mx.b.test",
        f"Diagnostic-Code: smtp; 550 5.1.1 <{address}>: Recipient address rejected: User".encode(),
        b"    unknown",
        b"",
        b"--4F1A2.1764000000/mail.club.test",
        b"Content-Description: Undelivered Message",
        f"Content-Type: {kind}".encode(),
        b"",
        body.replace(b"\r\n", b"\n"),
        b"--4F1A2.1764000000/mail.club.test--",
        b""])


def plain_bounce(returned: bytes, address: str) -> bytes:
    """The shape of servers that write no report: one text part, the failed address in
    words and the returned message's headers quoted below."""
    return b"\n".join([
        b"From: Mail Delivery Subsystem <MAILER-DAEMON@mx.old.test>",
        f"To: {REFEREE}".encode(),
        b"Subject: Undelivered Mail Returned to Sender",
        b"Date: Mon, 23 Nov 2026 12:00:00 +0000",
        b"Message-ID: <bounce.7@mx.old.test>",
        b"Content-Type: text/plain; charset=us-ascii",
        b"",
        b"The original message was received at Mon, 23 Nov 2026 11:59:58 +0000",
        b"",
        b"   ----- The following addresses had permanent fatal errors -----",
        f"<{address}>".encode(),
        b"    (reason: 550 mailbox unavailable)",
        b"",
        b"   ----- Original message headers follow -----",
        b"",
        _headers_of(returned),
        b""])


@pytest.fixture
def lab(tmp_path):
    return Lab(tmp_path)


# --------------------------------------------------------------------------- bounces

@pytest.mark.parametrize("whole", [True, False], ids=["message-rfc822", "text-rfc822-headers"])
def test_a_delivery_report_names_the_player_and_game_and_is_never_answered(lab, whole):
    bounce = dsn_bounce(_sent_raw(lab, 1), ADDRESSES[1], whole=whole)
    lab.new_messages()
    lab.deliver(bounce, BOUNCED_AT)
    assert lab.new_messages() == []                     # no answer to anyone
    [(state, reason)] = lab.inbox()
    assert state == "rejected" and reason.startswith("a bounce: mail to bo@b.test failed")
    assert "no game" not in _ok("referee", "rejected", lab.db).stdout
    found = _alerts(lab, "2026-11-23T13:00Z")
    [item] = found["bounced"]
    assert item["address"] == "bo@b.test" and item["player"] == "Bo Marin"
    assert item["game"] == lab.game and item["at"] == "2026-11-23T12:00Z"
    assert "550 5.1.1" in item["reason"] and "User unknown" in item["reason"]
    assert {key: value for key, value in found.items() if key != "bounced"} == {
        "unreachable": [], "stalled": [], "stuck": [], "refused": [], "dropped": [], "late": []}
    text = _ok("referee", "alerts", lab.db, "--now", "2026-11-23T13:00Z").stdout
    assert text.startswith("Bounced players (1):\n  bo@b.test (Bo Marin, game ")


@pytest.mark.parametrize("reader", ["flufl.bounce", "without the extra"])
def test_a_plain_text_bounce_quoting_the_headers_is_matched(lab, monkeypatch, reader):
    if reader != "flufl.bounce":
        monkeypatch.setitem(sys.modules, "flufl.bounce", None)      # import fails
    lab.deliver(plain_bounce(_sent_raw(lab, 0), ADDRESSES[0]), BOUNCED_AT)
    [item] = _alerts(lab, "2026-11-23T13:00Z")["bounced"]
    assert (item["address"], item["player"], item["game"]) == ("ana@a.test", "Ana Lungu", lab.game)


def test_a_bounce_to_a_token_address_is_matched_by_the_envelope_recipient(lab):
    """A report that returns nothing of the message, sent to the seat's token address
    (VERP-like): the envelope recipient's token names the seat."""
    token_address = str(lab.last_to(1)["Reply-To"]).rpartition("<")[2].rstrip(">")
    bounce = dsn_bounce(b"", "someone-else@b.test", whole=False)
    lab.deliver(bounce, BOUNCED_AT, "--recipient", token_address)
    [item] = _alerts(lab, "2026-11-23T13:00Z")["bounced"]
    assert (item["address"], item["player"], item["game"]) == ("bo@b.test", "Bo Marin", lab.game)


def test_a_delay_report_or_a_forged_token_is_no_bounce_of_a_player(lab):
    delayed = dsn_bounce(_sent_raw(lab, 1), ADDRESSES[1], action="delayed")
    lab.deliver(delayed, BOUNCED_AT)
    forged = dsn_bounce(_sent_raw(lab, 1).replace(b"ref+", b"ref+x"), "bo@b.test",
                        queue_id="5B2C3")
    forged = forged.replace(b"bo@b.test", b"nobody@elsewhere.test")
    lab.deliver(forged, "2026-11-23T12:05Z")
    found = _alerts(lab, "2026-11-23T13:00Z")
    # The delay is refused as a machine's mail; the report naming no player has no game.
    assert [(item["address"], item["player"], item["game"]) for item in found["bounced"]] == [
        ("nobody@elsewhere.test", None, None)]
    assert lab.inbox()[0][1].startswith("written by a machine")


# --------------------------------------------------------------------------- the other kinds

def test_a_game_without_clocks_quiet_for_two_weeks_is_stalled(tmp_path):
    lab = Lab(tmp_path, time_control=None)
    assert _alerts(lab, "2026-12-06T10:00Z")["stalled"] == []            # 13 days
    assert _alerts(lab, "2026-12-08T10:01Z")["stalled"] == [
        {"game": lab.game, "waiting_on": "Ana Lungu", "since": "2026-11-23T10:00Z"}]
    lab.deliver(lab.reply(0, "B@e1"), "2026-12-08T11:00Z")
    assert _alerts(lab, "2026-12-08T12:00Z")["stalled"] == []


def test_a_game_whose_time_ran_out_without_a_time_out_is_stalled(lab):
    """Tick ends such a game; one that is still in play days later means tick is not
    running, which needs a person."""
    assert _alerts(lab, "2026-12-22T10:00Z")["stalled"] == []            # 29 days of 30
    [item] = _alerts(lab, "2026-12-24T10:00Z")["stalled"]
    assert item == {"game": lab.game, "waiting_on": "Ana Lungu", "since": "2026-11-23T10:00Z"}
    _ok("referee", "tick", lab.db, "--now", "2026-12-24T10:00Z")          # the time-out
    assert _alerts(lab, "2026-12-24T10:01Z")["stalled"] == []


def _sendmail_exiting(tmp_path: Path, status: int) -> Path:
    program = tmp_path / f"sendmail-{status}"
    program.write_text(f"#!/bin/sh\ncat >/dev/null\necho 'no route' >&2\nexit {status}\n")
    program.chmod(0o755)
    return program


@pytest.mark.parametrize("status", [75, 67], ids=["failing", "given-up"])
def test_a_message_stuck_in_the_outbox_is_named(tmp_path, status):
    db = tmp_path / "club.db"
    _ok("referee", "init", db, "--address", REFEREE, "--send-by",
        f"sendmail:{_sendmail_exiting(tmp_path, status)}")
    _ok("referee", "new", db, "--white", "Ana <ana@a.test>", "--black", "Bo <bo@b.test>",
        "--now", "2026-11-23T10:00Z")
    soon = json.loads(_ok("referee", "alerts", db, "--json", "--now", "2026-11-23T10:30Z").stdout)
    later = json.loads(_ok("referee", "alerts", db, "--json", "--now", "2026-11-23T11:30Z").stdout)
    if status == 75:            # tried again later: named once it has failed for an hour
        assert soon["stuck"] == []
    else:                       # refused for good: named at once
        assert soon["stuck"] == later["stuck"]
    assert [(item["message"], item["to"], item["queued"]) for item in later["stuck"]] == [
        (1, "ana@a.test", "2026-11-23T10:00Z"), (2, "bo@b.test", "2026-11-23T10:00Z")]
    assert all("75" in item["error"] or "67" in item["error"] or "no route" in item["error"]
               for item in later["stuck"])
    assert all(item["error"].endswith("(given up)") == (status == 67) for item in later["stuck"])


def test_refused_mail_from_a_player_is_named_and_a_strangers_is_not(lab):
    lab.deliver(lab.reply(0, "B@e9"), "2026-11-23T11:00Z")
    lab.deliver(lab.reply(0, "hello", sender="Eve <eve@e.test>"), "2026-11-23T11:05Z")
    lab.deliver(lab.reply(1, "B@e1", to="ref+aaaaaaaaaaaaaaaaaaaaaaaa@club.test"),
                "2026-11-23T11:10Z")
    refused = _alerts(lab, "2026-11-23T12:00Z")["refused"]
    assert [(item["from"], item["game"], item["at"]) for item in refused] == [
        ("ana@a.test", lab.game, "2026-11-23T11:00Z"), ("bo@b.test", None, "2026-11-23T11:10Z")]
    assert "B@e9" in refused[0]["reason"]


def test_a_message_dropped_by_an_internal_error_is_named(lab, monkeypatch):
    def bug(*_args):
        raise ValueError("a bug of ours")

    monkeypatch.setattr(referee_process, "_apply", bug)
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-23T11:00Z")
    found = _alerts(lab, "2026-11-23T12:00Z")
    assert found["dropped"] == [{"message": 1, "from": "ana@a.test", "at": "2026-11-23T11:00Z",
                                 "reason": "internal error: ValueError: a bug of ours"}]
    assert found["refused"] == []


def test_nothing_needs_a_person_says_so(lab):
    assert _ok("referee", "alerts", lab.db, "--now", "2026-11-23T11:00Z").stdout == \
        "nothing needs a person\n"
    assert _alerts(lab, "2026-11-23T11:00Z") == {
        "bounced": [], "unreachable": [], "stalled": [], "stuck": [], "refused": [],
        "dropped": [], "late": []}


# --------------------------------------------------------------------------- settings

def test_settings_prints_and_changes_the_organiser_and_init_takes_it(lab, tmp_path):
    shown = _ok("referee", "settings", lab.db).stdout
    assert "address: ref@club.test\n" in shown and "organiser: (not set)\n" in shown
    assert "secret" not in shown
    assert "organiser: org@club.test\n" in _ok(
        "referee", "settings", lab.db, "--organiser", "Org@Club.test").stdout
    assert "organiser: org@club.test\n" in _ok("referee", "settings", lab.db).stdout
    other = tmp_path / "other.db"
    _ok("referee", "init", other, "--address", REFEREE, "--send-by", "outbox:" + str(lab.out),
        "--organiser", ORGANISER)
    assert "organiser: org@club.test\n" in _ok("referee", "settings", other).stdout


@pytest.mark.parametrize("value", ["not an address", "ref@club.test", "ref+x@club.test",
                                   "a@b@c.test", "org@club.test\nBcc: x@y.test"])
def test_a_bad_organiser_is_refused_in_one_line_and_nothing_changes(lab, tmp_path, value):
    before = lab.db.read_bytes()
    result = run("referee", "settings", lab.db, "--organiser", value)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert "organiser: (not set)" in _ok("referee", "settings", lab.db).stdout
    result = run("referee", "init", tmp_path / "new.db", "--address", REFEREE,
                 "--send-by", "outbox:" + str(lab.out), "--organiser", value)
    assert result.exit_code == 1 and not (tmp_path / "new.db").exists()
    assert before[:100] == lab.db.read_bytes()[:100]


# --------------------------------------------------------------------------- the daily report

def _reports(lab: Lab) -> list:
    return [message for message in lab.new_messages() if ORGANISER in str(message["To"])]


def test_tick_mails_the_organiser_once_a_day_and_only_what_is_new(lab):
    _ok("referee", "settings", lab.db, "--organiser", ORGANISER)
    _ok("referee", "tick", lab.db, "--now", "2026-11-23T11:00Z")
    assert _reports(lab) == []                       # nothing needs a person: no mail
    lab.deliver(dsn_bounce(_sent_raw(lab, 1), ADDRESSES[1]), BOUNCED_AT)
    _ok("referee", "tick", lab.db, "--now", "2026-11-23T12:05Z")
    [report] = _reports(lab)
    assert str(report["From"]) == f"Club Referee <{REFEREE}>"
    assert report["Auto-Submitted"] == "auto-generated"
    assert "Bounced players (1):" in body_of(report) and "bo@b.test (Bo Marin" in body_of(report)
    lab.deliver(lab.reply(0, "B@e9"), "2026-11-23T13:00Z")     # something new the same day
    for now in ("2026-11-23T13:05Z", "2026-11-23T18:00Z", "2026-11-24T12:00Z"):
        _ok("referee", "tick", lab.db, "--now", now)
        assert _reports(lab) == []
    _ok("referee", "tick", lab.db, "--now", "2026-11-24T12:10Z")   # a day after the first
    [second] = _reports(lab)
    assert "Refused mail from players (1):" in body_of(second)
    assert "Bounced players (1):" in body_of(second)              # still needing a person
    _ok("referee", "tick", lab.db, "--now", "2026-11-26T12:10Z")
    assert _reports(lab) == []                       # nothing new since: no mail


def test_no_organiser_no_report_until_one_is_set(lab):
    lab.deliver(dsn_bounce(_sent_raw(lab, 1), ADDRESSES[1]), BOUNCED_AT)
    lab.new_messages()
    _ok("referee", "tick", lab.db, "--now", "2026-11-24T12:00Z")
    assert lab.new_messages() == []
    _ok("referee", "settings", lab.db, "--organiser", ORGANISER)
    _ok("referee", "tick", lab.db, "--now", "2026-11-24T12:01Z")
    [report] = lab.new_messages()
    assert str(report["To"]) == ORGANISER and "bo@b.test (Bo Marin" in body_of(report)


def test_a_bounces_words_are_one_bounded_visible_line(lab):
    """A server's reason is outside text: control characters shown, cut to 200."""
    bounce = dsn_bounce(_sent_raw(lab, 1), ADDRESSES[1]).replace(
        b"Recipient address rejected: User",
        b"\x1b]0;owned\x07 " + b"x" * 500)
    lab.deliver(bounce, BOUNCED_AT)
    [item] = _alerts(lab, "2026-11-23T13:00Z")["bounced"]
    assert "\x1b" not in item["reason"] and "\\x1b]0;owned\\x07" in item["reason"]
    assert len(item["reason"]) <= 200
    text = _ok("referee", "alerts", lab.db, "--now", "2026-11-23T13:00Z").stdout
    assert "\x1b" not in text and "\x07" not in text
