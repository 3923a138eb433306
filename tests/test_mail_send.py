"""Sending through a real SMTP server (aiosmtpd) on 127.0.0.1, started by each test.

The move is always saved first: refused connections, bad credentials and 5xx answers
leave the record written and say how to send it again with `tomis send`.
STARTTLS is turned off for the test server explicitly (TOMIS_SMTP_STARTTLS=no): it is on
unless told otherwise.
"""

from __future__ import annotations

import email
import email.policy
from pathlib import Path

import pytest
from mail_support import (  # noqa: F401 (server is a fixture)
    MAIL, PASSWORD, RECORDS, USER, environment, free_port, run, server,
)

pytest.importorskip("aiosmtpd.controller")

# The test server takes AUTH without TLS on purpose (loopback only); aiosmtpd warns.
pytestmark = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")


def game_file(tmp_path: Path, stage: str = "ladder-1.tgn") -> Path:
    path = tmp_path / "ladder.tgn"
    path.write_bytes((RECORDS / stage).read_bytes())
    return path


def test_the_message_arrives_whole_and_its_attachment_is_the_game(server, tmp_path):
    inbox, port = server()
    game = game_file(tmp_path)
    out = tmp_path / "reply.eml"
    result = run("move", game, "B@d8", "--mail", out, "--to", "bo@example.net", "--send",
                 env=environment(port))
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines()[-1] == (
        "sent to bo@example.net: Tomis: Ana vs Bo — action 2 (B@d8)")
    [envelope] = inbox.envelopes
    assert envelope.mail_from == "ana@example.org"
    assert envelope.rcpt_tos == ["bo@example.net"]
    # Whole: the bytes that arrived are the message written to reply.eml.
    assert envelope.content.replace(b"\r\n", b"\n") == out.read_bytes().replace(b"\r\n", b"\n")
    arrived = tmp_path / "arrived.eml"
    arrived.write_bytes(envelope.content)
    extracted = run("extract", arrived)
    assert extracted.exit_code == 0, extracted.stderr
    assert extracted.stdout == game.read_text(encoding="utf-8")
    assert "1. B@e1 B@d8 *" in extracted.stdout


def test_a_refused_connection_leaves_the_move_saved_and_send_sends_it_later(server, tmp_path):
    port = free_port()                   # nobody listens here yet
    game = game_file(tmp_path)
    out = tmp_path / "reply.eml"
    result = run("move", game, "B@d8", "--mail", out, "--to", "bo@example.net", "--send",
                 env=environment(port))
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] == (
        f"{game}: the move is saved, but the message was not sent: nothing answers at "
        f"127.0.0.1:{port} (connection refused) -- once that is fixed: tomis send {out}")
    assert "1. B@e1 B@d8 *" in game.read_text(encoding="utf-8")
    assert out.exists()
    inbox, port = server()
    again = run("send", out, env=environment(port))
    assert again.exit_code == 0, again.stderr
    [envelope] = inbox.envelopes
    assert email.message_from_bytes(envelope.content, policy=email.policy.default)[
        "Message-ID"] == email.message_from_bytes(out.read_bytes(), policy=email.policy.default)["Message-ID"]


def test_bad_credentials_leave_the_record_saved_with_a_clear_message(server, tmp_path):
    inbox, port = server(auth=True)
    game = game_file(tmp_path)
    result = run("move", game, "B@d8", "--to", "bo@example.net", "--send",
                 env=environment(port, USER, "wrong"))
    assert result.exit_code == 1
    last = result.stderr.splitlines()[-1]
    assert last.startswith(f"{game}: the move is saved, but the message was not sent: "
                           f"the SMTP server 127.0.0.1:{port} refused the user name or "
                           f"password for ana: 535 ")
    assert last.endswith(f"-- once that is fixed: tomis send {game}")
    assert "wrong" not in result.stderr and "wrong" not in result.stdout
    assert inbox.envelopes == []
    assert "1. B@e1 B@d8 *" in game.read_text(encoding="utf-8")
    # `tomis send RECORD` composes it again, to the address remembered beside the record.
    again = run("send", game, env=environment(port, USER, PASSWORD))
    assert again.exit_code == 0, again.stderr
    [envelope] = inbox.envelopes
    assert envelope.rcpt_tos == ["bo@example.net"]
    for path in tmp_path.iterdir():
        assert PASSWORD.encode() not in path.read_bytes()


def test_a_5xx_answer_is_reported_word_for_word(server, tmp_path):
    _inbox, port = server(answer="554 5.7.1 Message refused: looks like a board game")
    game = game_file(tmp_path)
    result = run("move", game, "B@d8", "--to", "bo@example.net", "--send", env=environment(port))
    assert result.exit_code == 1
    assert (f"the SMTP server 127.0.0.1:{port} answered 554 5.7.1 Message refused: looks like "
            "a board game") in result.stderr
    assert "1. B@e1 B@d8 *" in game.read_text(encoding="utf-8")


def test_starttls_is_on_unless_turned_off(server, tmp_path):
    inbox, port = server()
    game = game_file(tmp_path)
    env = environment(port, starttls="")           # not set: the default, STARTTLS
    result = run("move", game, "B@d8", "--to", "bo@example.net", "--send", env=env)
    assert result.exit_code == 1
    assert (f"the SMTP server 127.0.0.1:{port} does not offer STARTTLS; if it speaks TLS from "
            "the first byte (port 465) use security = tls; security = none only for a server "
            "on this machine") in result.stderr
    assert inbox.envelopes == []


def test_no_password_and_no_terminal_is_a_clear_error(server, tmp_path):
    _inbox, port = server(auth=True)
    game = game_file(tmp_path)
    result = run("move", game, "B@d8", "--to", "bo@example.net", "--send",
                 env=environment(port, USER, None))
    assert result.exit_code == 1
    assert ("no password for ana: set TOMIS_SMTP_PASSWORD or run tomis on a terminal"
            in result.stderr)


def test_settings_come_from_the_config_file_and_a_password_there_is_refused(server, tmp_path):
    inbox, port = server()
    config = tmp_path / "mail.ini"
    config.write_text(f"[smtp]\nhost = 127.0.0.1\nport = {port}\nfrom = ana@example.org\n"
                      "starttls = no\n", encoding="utf-8")
    game = game_file(tmp_path)
    env = {"TOMIS_MAIL_CONFIG": str(config), "TOMIS_SMTP_HOST": None, "TOMIS_SMTP_PORT": None,
           "TOMIS_SMTP_FROM": None, "TOMIS_SMTP_STARTTLS": None, "TOMIS_SMTP_USER": None}
    result = run("move", game, "B@d8", "--to", "bo@example.net", "--send", env=env)
    assert result.exit_code == 0, result.stderr
    assert len(inbox.envelopes) == 1
    config.write_text(config.read_text() + "password = hunter2\n", encoding="utf-8")
    before = game.read_bytes()
    result = run("move", game, "G@b1", "--send", env=env)
    assert result.exit_code == 1
    # Known before the move, so refused before it: the record is untouched.
    assert f"{config}: a password does not belong in the settings file" in result.stderr
    assert game.read_bytes() == before


def test_there_is_no_password_option():
    result = run("move", "x.tgn", "B@e1", "--password", "x")
    assert result.exit_code == 2
    assert "No such option" in result.stderr and "--password" in result.stderr


def test_send_turns_starttls_off_by_an_explicit_option(server, tmp_path):
    inbox, port = server()
    game = game_file(tmp_path)
    assert run("move", game, "B@d8", "--mail", tmp_path / "out.eml", "--to", "bo@example.net",
               env=environment(port)).exit_code == 0
    env = environment(port, starttls="yes")
    refused = run("send", tmp_path / "out.eml", env=env)
    assert refused.exit_code == 1
    assert "does not offer STARTTLS" in refused.stderr
    sent = run("send", tmp_path / "out.eml", "--no-starttls", env=env)
    assert sent.exit_code == 0, sent.stderr
    assert len(inbox.envelopes) == 1



def test_send_refuses_a_message_tomis_did_not_write(tmp_path):
    received = tmp_path / "their-reply.eml"
    received.write_bytes((MAIL / "gmail-base64.eml").read_bytes())
    result = run("send", received, env=environment(free_port()))
    assert result.exit_code == 2
    assert "is a message tomis did not write" in result.stderr
