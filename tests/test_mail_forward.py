"""Forwarded mail (issue 25): a ``message/rfc822`` part, nested ones, and inline forwards;
the record is read from the forwarded message and the reply goes to its sender.

The messages are written here as mutt (mime_forward=yes), Thunderbird (forward as
attachment) and Gmail (inline forward) write them.
"""

from __future__ import annotations

import email
import email.policy

from mail_clients import mutt_forward, thunderbird_forward
from mail_support import RECORDS, run

NEW = (RECORDS / "ladder-3.tgn").read_text(encoding="utf-8")     # 1. B@e1 B@d8 2. G@b1 *
SENDER = {"TOMIS_SMTP_FROM": "Carl <carl@example.net>", "TOMIS_MAIL_CONFIG": "/nonexistent"}


def original(sender: str = "Bo <bo@example.org>", record: str = NEW,
             words: str = "G@b1, your turn.") -> bytes:
    return (f"From: {sender}\nTo: Ana <ana@example.org>\nSubject: Re: Club ladder\n"
            "Message-ID: <bo-3@example.org>\nDate: Mon, 23 Nov 2026 10:00:00 +0000\n"
            "MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n"
            f"Content-Transfer-Encoding: 8bit\n\n{words}\n\n" + record).encode("utf-8")


def gmail_inline_forward() -> bytes:
    return ("From: Ana <ana@example.org>\nTo: carl@example.net\nSubject: Fwd: Re: Club ladder\n"
            "Message-ID: <gm-fwd@mail.gmail.com>\nDate: Mon, 23 Nov 2026 12:00:00 +0000\n"
            "MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n\n"
            "Over to you.\n\n---------- Forwarded message ---------\n"
            "From: Bo <bo@example.org>\nDate: Mon, 23 Nov 2026 at 10:00\n"
            "Subject: Re: Club ladder\nTo: Ana <ana@example.org>\n\n"
            "G@b1, your turn.\n\n" + NEW).encode("utf-8")


def reply_to_of(path, tmp_path) -> str:
    """Play Ana's next action on the saved message and say where the reply goes."""
    out = tmp_path / "reply.eml"
    result = run("move", path, "G@g8", "--mail", out, env=SENDER)
    assert result.exit_code == 0, result.stderr
    reply = email.message_from_bytes(out.read_bytes(), policy=email.policy.default)
    return str(reply["To"])


def test_a_mutt_mime_forward_is_read_and_answered_to_its_author(tmp_path):
    path = tmp_path / "fwd.eml"
    path.write_bytes(mutt_forward(original()))
    result = run("extract", path)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == NEW
    assert ("note: read the message from bo@example.org forwarded in this one (the reply "
            "goes to its sender)") in result.stderr
    assert reply_to_of(path, tmp_path) == "bo@example.org"


def test_a_thunderbird_forward_as_attachment_is_read_and_answered_to_its_author(tmp_path):
    path = tmp_path / "tb.eml"
    path.write_bytes(thunderbird_forward(original()))
    assert run("extract", path).stdout == NEW
    assert reply_to_of(path, tmp_path) == "bo@example.org"


def test_a_forward_of_a_forward_reaches_the_record_and_its_author(tmp_path):
    path = tmp_path / "twice.eml"
    path.write_bytes(thunderbird_forward(mutt_forward(original(), "Dora <dora@example.org>")))
    assert run("extract", path).stdout == NEW
    assert reply_to_of(path, tmp_path) == "bo@example.org"


def test_the_forwarded_messages_reply_to_is_where_the_reply_goes(tmp_path):
    inner = original().replace(b"To: Ana", b"Reply-To: bo.games@example.org\nTo: Ana", 1)
    path = tmp_path / "fwd.eml"
    path.write_bytes(mutt_forward(inner))
    assert reply_to_of(path, tmp_path) == "bo.games@example.org"


def test_the_forwarders_own_record_wins_over_the_forwarded_one(tmp_path):
    """A forward with a record in the forwarder's own words is the forwarder's reply."""
    data = mutt_forward(original()).replace(
        b"Carl, could you take over this game for me?\n",
        b"Carl, could you take over this game for me?\n\n" + NEW.encode())
    path = tmp_path / "own.eml"
    path.write_bytes(data)
    result = run("extract", path)
    assert result.exit_code == 0
    assert "forwarded" not in result.stderr
    assert reply_to_of(path, tmp_path) == "ana@example.org"


def test_forwards_nested_past_the_limit_are_refused_in_one_line(tmp_path):
    data = original()
    for _ in range(30):         # two containers a level: over MAX_CONTAINERS (50)
        data = mutt_forward(data)
    path = tmp_path / "deep.eml"
    path.write_bytes(data)
    result = run("extract", path)
    assert result.exit_code == 2
    assert result.stderr == (f"{path}: this message has more than 50 multipart or message "
                             "parts (nested mail); tomis reads no message of that shape "
                             "(docs/SECURITY.md, limits)\n")


def test_a_forwarded_message_without_a_record_says_no_game(tmp_path):
    inner = original(record="", words="Sorry, no time this week.")
    path = tmp_path / "empty.eml"
    path.write_bytes(mutt_forward(inner))
    result = run("validate", path)
    assert result.exit_code == 1
    assert "no game" in result.stderr


def test_an_inline_forward_is_answered_to_the_original_sender(tmp_path):
    path = tmp_path / "inline.eml"
    path.write_bytes(gmail_inline_forward())
    result = run("extract", path)
    assert result.stdout == NEW
    assert ("read the message from bo@example.org forwarded inline in this one"
            in result.stderr)
    assert reply_to_of(path, tmp_path) == "bo@example.org"


def test_an_inline_forward_without_a_readable_from_is_answered_to_the_forwarder(tmp_path):
    data = gmail_inline_forward().replace(b"From: Bo <bo@example.org>\n", b"From: Bo\n")
    path = tmp_path / "inline.eml"
    path.write_bytes(data)
    assert "forwarded" not in run("extract", path).stderr
    assert reply_to_of(path, tmp_path) == "ana@example.org"
