"""Finding 1 of the second audit: header injection into outgoing mail.

Ana's message, saved by Bo over his record, is hostile: its Message-ID, References,
From and Reply-To are whatever she wrote, and so are the player names of the record
and the ``RECORD.mail.json`` beside it. Bo answers with ``tomis move ... --mail`` and
sends with ``tomis send``, to a real SMTP server on 127.0.0.1 that keeps each envelope.
Whatever Ana wrote, the reply carries only the headers tomis writes, and the server
is asked to deliver to Ana alone.
"""

from __future__ import annotations

import base64
import email
import email.policy
import json
from pathlib import Path

import pytest
from conftest import tomis
from mail_support import RECORDS, environment, run, server  # noqa: F401 (server is a fixture)

pytest.importorskip("aiosmtpd.controller")

ANA = "ana@example.org"
STRANGER = "stranger@example.org"
BO = "Bo <bo@example.net>"
INJECTED = b"\r\nBcc: " + STRANGER.encode()
# The headers of a reply, in the order tomis writes them.
REPLY_HEADERS = ["From", "To", "Subject", "Date", "Message-ID", "In-Reply-To", "References",
                 "X-Mailer", "MIME-Version", "Content-Type"]
UNTHREADED = [name for name in REPLY_HEADERS if name not in ("In-Reply-To", "References")]


def encoded_word(raw: bytes, charset: str = "utf-8") -> str:
    """``raw`` as one RFC 2047 encoded word, which mail software decodes in a header."""
    return f"=?{charset}?b?{base64.b64encode(raw).decode('ascii')}?="


def saved_message(tmp_path: Path, record: str = "ladder-1.tgn", **headers: str | None) -> Path:
    """Ana's message carrying ``record``, as Bo saved it over his record ``g.tgn``; each
    keyword replaces a header (``Reply_To`` for Reply-To), None leaves it out."""
    fields = {"From": f"Ana <{ANA}>", "To": BO, "Subject": "our game",
              "Message-ID": "<ana-1@example.org>", "Content-Type": "text/plain; charset=utf-8"}
    fields.update({name.replace("_", "-"): value for name, value in headers.items()})
    head = "".join(f"{name}: {value}\r\n" for name, value in fields.items() if value is not None)
    body = (RECORDS / record).read_text(encoding="utf-8").replace("\n", "\r\n")
    game = tmp_path / "g.tgn"
    game.write_bytes((head + "\r\n" + body).encode("utf-8"))
    return game


def bo(port: int) -> dict:
    return {**environment(port), "TOMIS_SMTP_FROM": BO}


def header_block(message: bytes) -> bytes:
    return message.split(b"\r\n\r\n", 1)[0]


def header_names(message: bytes) -> list[str]:
    """The names of the top-level header fields, read by hand (not by the email package,
    which is what is under test): every line that does not continue a folded one."""
    lines = header_block(message).split(b"\r\n")
    return [line.split(b":", 1)[0].decode("ascii", "replace") for line in lines
            if line and line[:1] not in (b" ", b"\t")]


def header_value(message: bytes, name: str) -> str:
    """One header's value, unfolded, read by hand."""
    text = header_block(message).decode("ascii").replace("\r\n ", " ").replace("\r\n\t", "\t")
    [value] = [line.split(":", 1)[1].strip() for line in text.split("\r\n")
               if line.split(":", 1)[0].lower() == name.lower()]
    return value


def reply_and_send(server, game: Path, *move_options: str):
    """``tomis move g.tgn B@d8 --mail reply.eml`` then ``tomis send reply.eml``."""
    inbox, port = server()
    out = game.parent / "reply.eml"
    moved = run("move", game, "B@d8", "--as", "black", "--mail", out, *move_options, env=bo(port))
    assert moved.exit_code == 0, moved.stderr
    sent = run("send", out, env=bo(port))
    assert sent.exit_code == 0, sent.stderr
    return moved, out.read_bytes(), inbox


def assert_delivered_to_ana_alone(inbox, written: bytes) -> None:
    [envelope] = inbox.envelopes
    assert envelope.rcpt_tos == [ANA]
    assert STRANGER.encode() not in header_block(envelope.content)
    assert STRANGER.encode() not in header_block(written)


# --------------------------------------------------------------------------- Message-ID

def test_finding1_encoded_word_message_id_cannot_add_bcc(server, tmp_path):
    """The audit's first shape; it ended in an internal error (the email package refused
    the decoded line break), after the move was saved."""
    game = saved_message(tmp_path, Message_ID=encoded_word(b"<ana-1@example.org>" + INJECTED))
    moved, written, inbox = reply_and_send(server, game)
    assert header_names(written) == UNTHREADED
    assert moved.stderr.splitlines()[0] == (
        f"{game}: note: the message's Message-ID '=?utf-8?b?PGFuYS0xQGV4YW1wbGUub3JnPg0KQmNj"
        "OiBzdHJhbmdlckBleGFtcGxlLm9yZw==?=' is not a message id (RFC 5322); the reply is "
        "written without In-Reply-To and References")
    assert_delivered_to_ana_alone(inbox, written)


def test_finding1_message_id_encoded_twice_cannot_add_bcc(server, tmp_path):
    """Decoded once on reading, the id was an encoded word again, which the email package
    decoded when the reply was composed: ``Bcc: stranger`` became a header of its own and
    ``tomis send`` delivered to it."""
    twice = encoded_word(encoded_word(b"<ana-1@example.org>" + INJECTED).encode("ascii"))
    game = saved_message(tmp_path, Message_ID=twice)
    _moved, written, inbox = reply_and_send(server, game)
    assert header_names(written) == UNTHREADED
    assert_delivered_to_ana_alone(inbox, written)


def test_finding1_encoded_word_inside_a_message_id_cannot_add_bcc(server, tmp_path):
    """``<=?...?=@host>`` has the shape of a msg-id (``=`` and ``?`` are atext), but the
    email package decodes the word inside it: such an id is dropped."""
    game = saved_message(tmp_path, Message_ID=f"<{encoded_word(INJECTED)}@example.org>")
    moved, written, inbox = reply_and_send(server, game)
    assert header_names(written) == UNTHREADED
    assert "note: the message's Message-ID" in moved.stderr
    assert_delivered_to_ana_alone(inbox, written)


def test_finding1_folded_raw_message_id_is_dropped(server, tmp_path):
    """A raw id holding a fold: unfolded it is not one msg-id, so it is not half-taken."""
    game = saved_message(tmp_path, Message_ID=f"<ana-1@example.org>\r\n Bcc: {STRANGER}")
    moved, written, inbox = reply_and_send(server, game)
    assert header_names(written) == UNTHREADED
    assert "note: the message's Message-ID '<ana-1@example.org> Bcc: stranger@" in moved.stderr
    assert_delivered_to_ana_alone(inbox, written)


ODD_MESSAGE_IDS = {
    "a NUL (written raw)": "<ana\x00one@example.org>",
    "U+2028 (internal error)": encoded_word("<ana-1@example.org>\u2028Bcc: x@example.org".encode()),
    "U+0085 (internal error)": encoded_word("<ana-1@example.org>\x85".encode()),
    "a vertical tab (internal error)": encoded_word(b"<ana-1@example.org>\x0b"),
    "a lone LF (internal error)": encoded_word(b"<ana-1@example.org>\nBcc: x@example.org"),
    "not UTF-8 (written as U+FFFD)": encoded_word(b"<ana-\xff@example.org>"),
    "an unknown charset": encoded_word(b"<ana-1@example.org>", "x-no-such-charset"),
    "20,000 characters (written as encoded words)": "<" + "a" * 20000 + "@example.org>",
    "over the length bound": "<" + "a" * 300 + "@example.org>",
    "two ids": "<ana-1@example.org> <ana-2@example.org>",
    "no angle brackets": "ana-1@example.org",
    "a comment after the id": "<ana-1@example.org> (sent by Ana)",
    "a broken literal": "<ana-1@[10.0.0.1>",
}


@pytest.mark.parametrize("message_id", ODD_MESSAGE_IDS.values(), ids=ODD_MESSAGE_IDS.keys())
def test_finding1_odd_message_ids_are_dropped_not_an_internal_error(server, tmp_path, message_id):
    game = saved_message(tmp_path, Message_ID=message_id)
    moved, written, inbox = reply_and_send(server, game)
    assert header_names(written) == UNTHREADED
    assert "internal error" not in moved.stderr
    assert len([line for line in moved.stderr.splitlines() if "Message-ID" in line]) == 1
    assert all(line.isprintable() and len(line) < 400 for line in moved.stderr.splitlines())
    assert_delivered_to_ana_alone(inbox, written)


@pytest.mark.parametrize("message_id", [
    "<ana-1@example.org>", "<a.b.c!#$%&'*+/=^_`{|}~-@example.org>", "<1.2@[10.0.0.1]>",
    "  <ana-1@example.org>\t ",
])
def test_finding1_a_valid_message_id_still_threads_the_reply(tmp_path, message_id):
    game = saved_message(tmp_path, Message_ID=message_id)
    out = tmp_path / "reply.eml"
    moved = run("move", game, "B@d8", "--mail", out, env=bo(1))
    assert moved.exit_code == 0, moved.stderr
    written = out.read_bytes()
    assert header_names(written) == REPLY_HEADERS
    bare = message_id.strip()
    assert header_value(written, "In-Reply-To") == bare
    assert header_value(written, "References") == bare


def test_finding1_bad_references_are_dropped_and_the_good_ones_kept(server, tmp_path):
    references = (f"<first@example.org> {encoded_word(b'<x@y>' + INJECTED)}\r\n"
                  f" <second@example.org> Bcc: {STRANGER} <{encoded_word(INJECTED)}@x>")
    game = saved_message(tmp_path, References=references)
    moved, written, inbox = reply_and_send(server, game)
    assert header_names(written) == REPLY_HEADERS
    assert header_value(written, "References") == (
        "<first@example.org> <second@example.org> <ana-1@example.org>")
    assert header_value(written, "In-Reply-To") == "<ana-1@example.org>"
    notes = [line for line in moved.stderr.splitlines() if "References" in line]
    assert notes == [f"{game}: note: 4 item(s) of the message's References are not message ids "
                     "(RFC 5322) and were left out of the reply's"]
    assert_delivered_to_ana_alone(inbox, written)


def test_finding1_references_are_bounded(tmp_path):
    """A thread of thousands of ids keeps its first and its latest ones."""
    ids = [f"<m{n}@example.org>" for n in range(5000)]
    game = saved_message(tmp_path, References="\r\n ".join(ids))
    out = tmp_path / "reply.eml"
    moved = run("move", game, "B@d8", "--mail", out, env=bo(1))
    assert moved.exit_code == 0, moved.stderr
    kept = header_value(out.read_bytes(), "References").split()
    assert kept[0] == "<m0@example.org>" and kept[-2:] == ["<m4999@example.org>", "<ana-1@example.org>"]
    assert len(kept) == 20


# --------------------------------------------------------------------------- addresses

@pytest.mark.parametrize("reply_to, shown", [
    (f"{ANA}, {STRANGER}", f"'{ANA}, {STRANGER}' is not one mail address"),
    (f'"{encoded_word(INJECTED)}"@example.org', "is not one mail address"),
    (f"<ana{encoded_word(INJECTED)}@example.org>", "is not one mail address"),
    ("undisclosed-recipients:;", "is not one mail address"),
    (f"{encoded_word(INJECTED)} <{ANA}>", "is not one mail address"),   # a name with a line break
])
def test_finding1_a_reply_to_that_is_not_one_address_is_not_answered(tmp_path, reply_to, shown):
    """The move is saved; no message is written, and the line says how to answer anyway."""
    game = saved_message(tmp_path, Reply_To=reply_to)
    out = tmp_path / "reply.eml"
    moved = run("move", game, "B@d8", "--mail", out, env=bo(1))
    assert moved.exit_code == 1
    [line] = [line for line in moved.stderr.splitlines() if "Reply-To" in line]
    assert line.startswith(f"{game}: the move is saved, but no message was written: "
                           "the Reply-To of the message ")
    assert shown in line and line.endswith(f"tomis send {game} --to ADDRESS")
    assert line.isprintable()
    assert not out.exists() and "1. B@e1 B@d8 *" in game.read_text(encoding="utf-8")


def test_finding1_player_names_cannot_add_a_header_through_the_subject(server, tmp_path):
    """The names in the Subject come from the record, which the opponent wrote."""
    game = tmp_path / "g.tgn"
    name = encoded_word(b"Ana" + INJECTED)
    record = (RECORDS / "ladder-1.tgn").read_text(encoding="utf-8")
    game.write_text(record.replace('[White "Ana"]', f'[White "{name}"]'), encoding="utf-8")
    _moved, written, inbox = reply_and_send(server, game, "--to", ANA)
    assert header_names(written) == UNTHREADED
    # "=?" is written "= ?": no mail program reads an encoded word into the name.
    subject = email.message_from_bytes(written, policy=email.policy.default)["Subject"]
    assert " ".join(subject.split()) == ("Tomis: = ?utf-8?b?QW5hDQpCY2M6IHN0cmFuZ2VyQGV4YW1wbGUub3Jn?= vs Bo "
                       "— action 2 (B@d8)")
    assert_delivered_to_ana_alone(inbox, written)


# --------------------------------------------------------------------------- the sidecar

SIDECARS = {
    "to with a line break": {"to": f"{ANA}\r\nBcc: {STRANGER}"},
    "to with an encoded display name": {"to": f"{encoded_word(INJECTED)} <{ANA}>"},
    "to with a quoted local part": {"to": f'"{encoded_word(INJECTED)}"@example.org'},
    "to not text": {"to": ["ana@example.org"]},
    "in_reply_to encoded twice": {"to": ANA, "in_reply_to": encoded_word(
        encoded_word(b"<a@example.org>" + INJECTED).encode("ascii"))},
    "in_reply_to inside": {"to": ANA, "in_reply_to": f"<{encoded_word(INJECTED)}@x>"},
    "references with a line break": {"to": ANA, "in_reply_to": "<a@example.org>",
                                     "references": [f"<b@example.org>\r\nBcc: {STRANGER}"]},
    "references not a list": {"to": ANA, "references": "<a@example.org>"},
}


@pytest.mark.parametrize("sidecar", SIDECARS.values(), ids=SIDECARS.keys())
def test_finding1_crafted_sidecar_is_refused_before_the_move(server, tmp_path, sidecar):
    inbox, port = server()
    game = tmp_path / "g.tgn"
    record = (RECORDS / "ladder-1.tgn").read_bytes()
    game.write_bytes(record)
    remembered = tmp_path / "g.tgn.mail.json"
    remembered.write_text(json.dumps(sidecar), encoding="utf-8")
    before = remembered.read_bytes()
    out = tmp_path / "reply.eml"
    moved = run("move", game, "B@d8", "--mail", out, "--send", env=bo(port))
    assert moved.exit_code == 1
    [line] = moved.stderr.splitlines()
    assert line.startswith(f"{remembered}: ") and "internal error" not in line
    assert line.isprintable()
    assert game.read_bytes() == record and remembered.read_bytes() == before
    assert not out.exists() and inbox.envelopes == []
    again = run("send", game, env=bo(port))        # a record: composed again, from the sidecar
    assert again.exit_code == 1 and again.stderr.splitlines() == [line]
    assert inbox.envelopes == []


@pytest.mark.parametrize("content", [b"[" * 100000 + b"]" * 100000, b" " * (1 << 20) + b"{}"],
                         ids=["nested 100,000 deep", "a megabyte"])
def test_finding1_sidecar_size_and_depth_are_bounded(tmp_path, content):
    game = tmp_path / "g.tgn"
    game.write_bytes((RECORDS / "ladder-1.tgn").read_bytes())
    (tmp_path / "g.tgn.mail.json").write_bytes(content)
    moved = run("move", game, "B@d8", "--mail", tmp_path / "reply.eml", env=bo(1))
    assert moved.exit_code == 1
    [line] = moved.stderr.splitlines()
    assert line.startswith(f"{tmp_path / 'g.tgn.mail.json'}: ") and "internal error" not in line
    assert game.read_bytes() == (RECORDS / "ladder-1.tgn").read_bytes()


# --------------------------------------------------------------------------- tomis send

def written_reply(tmp_path: Path) -> Path:
    game = tmp_path / "g.tgn"
    game.write_bytes((RECORDS / "ladder-1.tgn").read_bytes())
    out = tmp_path / "reply.eml"
    moved = run("move", game, "B@d8", "--mail", out, "--to", ANA, env=bo(1))
    assert moved.exit_code == 0, moved.stderr
    return out


@pytest.mark.parametrize("added", [f"Bcc: {STRANGER}", f"Resent-To: {STRANGER}",
                                   f"Resent-Bcc: {STRANGER}", f"To: {STRANGER}"])
def test_finding1_send_refuses_a_message_holding_recipients_tomis_did_not_write(
        server, tmp_path, added):
    inbox, port = server()
    out = written_reply(tmp_path)
    data = out.read_bytes().replace(b"\r\nX-Mailer:", f"\r\n{added}\r\nX-Mailer:".encode(), 1)
    out.write_bytes(data)
    sent = run("send", out, env=bo(port))
    assert sent.exit_code == 1
    [line] = sent.stderr.splitlines()
    assert line.startswith(f"{out}: ") and "nothing was sent" in line
    assert inbox.envelopes == [] and out.read_bytes() == data


def test_finding1_send_delivers_to_the_messages_own_to_and_cc(server, tmp_path):
    """The envelope is computed from To and Cc and handed to SMTP as it is."""
    inbox, port = server()
    out = written_reply(tmp_path)
    data = out.read_bytes().replace(b"\r\nX-Mailer:", b"\r\nCc: Cy <cy@example.com>\r\nX-Mailer:")
    out.write_bytes(data)
    sent = run("send", out, env=bo(port))
    assert sent.exit_code == 0, sent.stderr
    [envelope] = inbox.envelopes
    assert envelope.mail_from == "bo@example.net"
    assert envelope.rcpt_tos == [ANA, "cy@example.com"]


def test_finding1_reply_and_send_as_real_processes(server, tmp_path, monkeypatch):
    """The audit's reproduction end to end, as a person runs it: two processes."""
    inbox, port = server()
    for name, value in bo(port).items():
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    twice = encoded_word(encoded_word(b"<ana-1@example.org>" + INJECTED).encode("ascii"))
    game = saved_message(tmp_path, Message_ID=twice)
    moved = tomis("move", game, "B@d8", "--mail", "reply.eml", cwd=tmp_path)
    assert moved.returncode == 0, moved.stderr
    sent = tomis("send", "reply.eml", cwd=tmp_path)
    assert sent.returncode == 0, sent.stderr
    written = (tmp_path / "reply.eml").read_bytes()
    assert header_names(written) == UNTHREADED
    assert_delivered_to_ana_alone(inbox, written)


def test_finding1_a_header_that_would_split_is_neither_written_nor_sent(server, tmp_path):
    """The last check, after every value was checked: the bytes are read back. A value
    stored raw (as a parsed message keeps its headers) that holds a line break would be
    written as it is by the email package of Python 3.11.7; tomis refuses it."""
    from tomis import outgoing

    inbox, port = server()
    message = email.message_from_bytes(written_reply(tmp_path).read_bytes(),
                                       policy=email.policy.SMTP)
    message.set_raw("In-Reply-To", f"<a@example.org>\r\nBcc: {STRANGER}")
    with pytest.raises(outgoing.MailError, match="would not hold the headers it was given"):
        outgoing.message_bytes(message)
    settings = outgoing.smtp_settings(bo(port))
    with pytest.raises(outgoing.MailError, match="would not hold the headers it was given"):
        outgoing.send(message, settings, None)
    assert inbox.envelopes == []


def test_finding1_a_record_file_name_cannot_add_a_header_to_the_attachment(tmp_path):
    """The record's name becomes the attachment's, and a record may be a saved attachment
    whose name the opponent chose: an encoded word in it was decoded into the part's
    headers (the read-back check refused the message, after the move was saved)."""
    name = f"{encoded_word(INJECTED)}.tgn"
    game = tmp_path / name
    game.write_bytes((RECORDS / "ladder-1.tgn").read_bytes())
    out = tmp_path / "reply.eml"
    moved = run("move", game, "B@d8", "--mail", out, "--to", ANA, env=bo(1))
    assert moved.exit_code == 0, moved.stderr
    message = email.message_from_bytes(out.read_bytes(), policy=email.policy.default)
    [attachment] = message.iter_attachments()
    assert attachment.get_filename() == "game.tgn"
    assert "Bcc" not in attachment.keys()
