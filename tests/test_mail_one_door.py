"""The referee reads and writes mail through the mail packages' public doors (issue 39):
one password-file policy, one message builder, one body chooser, one clock text, one walk
over conditional lines. Each test counts the calls of the one function while both kinds
of caller run: a caller that went back to a copy of its own fails it."""

from __future__ import annotations

import email
import email.message
import email.parser
import sqlite3

import pytest

import tomis
from referee_support import ANA, BO, Lab, run
from mail_support import MAIL, PASSWORD, USER, server  # noqa: F401 -- the fixture
from tomis.errors import MailError
from tomis.mail import mime
from tomis.notation import conditional, record
from tomis.outgoing import headers
from tomis.outgoing import message as mail_message
from tomis.outgoing import sending as outgoing_sending
from tomis.pictures import words

pytestmark = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")


def _config(tmp_path, port: int, mode: int, password_file: str | None = "smtp-password"):
    secret = tmp_path / "smtp-password"
    secret.write_text(PASSWORD + "\n")
    secret.chmod(mode)
    config = tmp_path / "mail.ini"
    config.write_text(f"[smtp]\nhost = 127.0.0.1\nport = {port}\nuser = {USER}\nstarttls = no\n"
                      + (f"password_file = {password_file}\n" if password_file else ""))
    return config


def _settings(config):
    return outgoing_sending.smtp_settings({outgoing_sending.CONFIG_ENV: str(config)})


@pytest.mark.parametrize("mode, password_file, expected", [
    (0o600, "smtp-password", None),
    (0o640, "smtp-password", "may be read by others: chmod 600 it"),
    (0o604, "smtp-password", "may be read by others: chmod 600 it"),
    (0o600, "no-such-file", "cannot read the password file"),
    (0o600, None, "names a user but no password_file = in [smtp]"),
])
def test_one_password_file_policy_for_the_library_and_the_referee(
        server, tmp_path, monkeypatch, mode, password_file, expected):  # noqa: F811
    inbox, port = server(auth=True)
    config = _config(tmp_path, port, mode, password_file)
    # The library's door: the password, or one line saying why not.
    if expected is None:
        assert outgoing_sending.file_password(_settings(config)) == PASSWORD
    else:
        with pytest.raises(MailError, match=expected.replace("[", r"\[").replace("]", r"\]")):
            outgoing_sending.file_password(_settings(config))
    # The referee's sending goes through that same door, and says what it says.
    calls = []
    real = outgoing_sending.file_password
    monkeypatch.setattr(outgoing_sending, "file_password",
                        lambda settings: calls.append(settings.source) or real(settings))
    db = tmp_path / "referee.db"
    assert run("referee", "init", db, "--address", "ref@club.test", "--send-by", "smtp",
               "--config", config).exit_code == 0
    assert run("referee", "new", db, "--white", ANA, "--black", BO,
               "--now", "2026-11-23T10:00Z").exit_code == 0
    assert calls == [str(config)] * 2            # one message to each player
    with sqlite3.connect(db) as connection:
        errors = [error for (error,) in connection.execute("SELECT error FROM outbox ORDER BY id")]
    if expected is None:
        assert errors == [None, None] and len(inbox.envelopes) == 2
    else:
        assert len(errors) == 2 and all(expected in error for error in errors)
        assert inbox.envelopes == []


def test_the_referee_and_tomis_move_mail_build_their_messages_in_one_function(tmp_path, monkeypatch):
    built = []
    real = mail_message.build_message

    def counting(headers, body, attachments=(), board=None):
        headers, attachments = list(headers), list(attachments)
        built.append(([name for name, _value in headers], [a.filename for a in attachments]))
        assert board is not None and board.grid in body      # the HTML board: one door too
        return real(headers, body, attachments, board)

    monkeypatch.setattr(mail_message, "build_message", counting)
    record = tmp_path / "cup.tgn"
    assert run("new", record, "--white", "Ana", "--black", "Bo").exit_code == 0
    sent = tmp_path / "sent.eml"
    assert run("move", record, "B@e1", "--mail", sent, "--to", "bo@example.net",
               env={"TOMIS_SMTP_FROM": "ana@example.org",
                    "TOMIS_MAIL_CONFIG": str(tmp_path / "none.ini")}).exit_code == 0
    assert built == [(["From", "To", "Subject", "Date", "Message-ID", "X-Mailer"], ["cup.tgn"])]
    outbox = tmp_path / "outbox"
    outbox.mkdir()
    db = tmp_path / "referee.db"
    assert run("referee", "init", db, "--address", "ref@club.test", "--send-by",
               f"outbox:{outbox}").exit_code == 0
    assert run("referee", "new", db, "--white", ANA, "--black", BO,
               "--now", "2026-11-23T10:00Z").exit_code == 0
    referee_headers = ["From", "Reply-To", "To", "Subject", "Date", "Message-ID",
                       "Auto-Submitted", "X-Mailer"]
    assert [names for names, _files in built[1:]] == [referee_headers] * 2
    assert all(files[0] == "tomis-1.tgn" for _names, files in built[1:])
    # What was built is what left, headers in that order.
    for path, (names, _files) in zip(sorted(outbox.iterdir()), built[1:]):
        assert list(email.message_from_bytes(path.read_bytes()).keys())[:len(names)] == names


@pytest.mark.parametrize("text, encoding", [
    ("plain ASCII\n", "7bit"),
    ("Ana Lungu, Bogdan Ionescu\n", "7bit"),
    ("Ștefan\n", "quoted-printable"),              # 7-bit on the wire
    ("x" * 899 + "\n", "7bit"),
    ("x" * 900 + "\n", "quoted-printable"),        # SMTP allows 998 a line
])
def test_one_transfer_encoding_for_every_text_part(text, encoding):
    assert mail_message.transfer_encoding(text) == encoding
    message = mail_message.build_message([("Subject", "s")], text,
                                         [mail_message.Attachment("a.tgn", text)])
    assert [part["Content-Transfer-Encoding"] for part in message.walk()][1:] == [encoding] * 2
    assert max(map(len, headers.message_bytes(message).split(b"\r\n"))) <= 998


def test_tomis_clock_the_reply_and_the_referee_write_the_clocks_with_one_function(
        tmp_path, monkeypatch):
    callers = []
    real = words.clock_lines

    def counting(heading, *args, **kwargs):
        callers.append(heading.split(" ")[0])
        return real(heading, *args, **kwargs)

    monkeypatch.setattr(words, "clock_lines", counting)
    game = tmp_path / "cup.tgn"
    assert run("new", game, "--white", "Ana", "--black", "Bo", "--time-control", "30d+3d",
               "--time", "2026-11-22T10:00Z").exit_code == 0
    assert run("clock", game, "--now", "2026-11-22T11:00Z").exit_code == 0
    assert callers == ["TimeControl"]
    assert run("move", game, "B@e1", "--time", "2026-11-23T09:30Z", "--mail", tmp_path / "m.eml",
               "--to", "bo@example.net", env={"TOMIS_SMTP_FROM": "ana@example.org",
                                              "TOMIS_MAIL_CONFIG": str(tmp_path / "none.ini")}
               ).exit_code == 0
    assert callers[1:] == ["Clocks"]
    (tmp_path / "club").mkdir()
    Lab(tmp_path / "club")                      # its first two letters show the clocks
    assert callers[2:] == ["Clocks", "Clocks"]


def test_the_referee_and_the_record_follow_conditional_lines_with_one_walker(
        tmp_path, monkeypatch):
    played = []
    real = conditional.Walk.played

    def counting(walk, number, side, text):
        played.append(text)
        return real(walk, number, side, text)

    monkeypatch.setattr(conditional.Walk, "played", counting)
    # The record's lines: tomis move --then, then the opponent's action fires the line.
    game = tmp_path / "cup.tgn"
    assert run("new", game).exit_code == 0
    assert run("move", game, "B@e1", "--then", "B@d8 G@b1").exit_code == 0
    played.clear()
    assert run("move", game, "B@d8").exit_code == 0
    assert [str(node.action) for node in tomis.read_game(game).record.nodes] == \
        ["B@e1", "B@d8", "G@b1"]
    assert ["B@d8", "G@b1"] in [played[i:i + 2] for i in range(len(played))]
    # The referee's private lines: the same answer, through the same walk.
    played.clear()
    (tmp_path / "club").mkdir()
    lab = Lab(tmp_path / "club")
    lab.deliver(lab.reply(0, "B@e1\nif B@d8 G@b1"), "2026-11-23T11:00Z")
    lab.deliver(lab.reply(1, "B@d8"), "2026-11-23T12:00Z")
    assert [str(node.action) for node in record.read_game(lab.record()).nodes] == \
        ["B@e1", "B@d8", "G@b1"]
    assert ["B@d8", "G@b1"] in [played[i:i + 2] for i in range(len(played))]



def test_a_record_in_a_message_and_a_reply_to_the_referee_are_read_by_one_body_chooser(
        tmp_path, monkeypatch):
    chosen = []
    real = mime.text_body

    def counting(msg, name, data=None, read=None):
        body = real(msg, name, data, read)
        chosen.append(body.what)
        return body

    monkeypatch.setattr(mime, "text_body", counting)
    assert run("validate", MAIL / "gmail-html-only.eml").exit_code == 0
    assert chosen == ["the text/html part"]
    (tmp_path / "club").mkdir()
    lab = Lab(tmp_path / "club")
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-23T11:00Z")
    assert chosen[1:] == ["the text/plain part"]
    assert [str(node.action) for node in record.read_game(lab.record()).nodes] == ["B@e1"]


def test_a_queued_message_is_written_once_and_its_body_never_parsed_again(tmp_path, monkeypatch):
    written, parsed = [], []
    real_write, real_parse = email.message.Message.as_bytes, email.parser.BytesParser.parsebytes

    def counting_write(message, *args, **kwargs):
        written.append(message["To"])
        return real_write(message, *args, **kwargs)

    def counting_parse(parser, data, headersonly=False):
        parsed.append(headersonly)
        return real_parse(parser, data, headersonly)

    monkeypatch.setattr(email.message.Message, "as_bytes", counting_write)
    monkeypatch.setattr(email.parser.BytesParser, "parsebytes", counting_parse)
    program = tmp_path / "sendmail"
    program.write_text("#!/bin/sh\ncat >/dev/null\n")
    program.chmod(0o755)
    db = tmp_path / "referee.db"
    assert run("referee", "init", db, "--address", "ref@club.test", "--send-by",
               f"sendmail:{program}").exit_code == 0
    assert run("referee", "new", db, "--white", ANA, "--black", BO).exit_code == 0
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT COUNT(*) FROM outbox WHERE sent_at IS NOT NULL"
                                  ).fetchone() == (2,)
    assert len(written) == 2                     # when queued, by message_bytes
    # Read back once when written (message_bytes' check); sendmail is given the envelope,
    # so nothing of the message is parsed again to send it.
    assert parsed == [False, False]
