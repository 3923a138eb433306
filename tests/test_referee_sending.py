"""How the referee's mail leaves: a real SMTP server (aiosmtpd on 127.0.0.1) with the
settings file and its password file, a sendmail program, and retries by tick."""

from __future__ import annotations

import email
import email.policy
import stat
import sys

import pytest

from referee_support import ANA, BO, run
from mail_support import PASSWORD, USER, server  # noqa: F401 -- the fixture

pytestmark = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")


def _settings(tmp_path, port: int, mode: int = 0o600):
    secret = tmp_path / "smtp-password"
    secret.write_text(PASSWORD + "\n")
    secret.chmod(mode)
    config = tmp_path / "mail.ini"
    config.write_text(f"[smtp]\nhost = 127.0.0.1\nport = {port}\nuser = {USER}\n"
                      f"starttls = no\npassword_file = {secret.name}\n")
    return config, secret


def _start(tmp_path, send_by: str, config=None):
    db = tmp_path / "referee.db"
    args = ["referee", "init", db, "--address", "ref@club.test", "--send-by", send_by]
    assert run(*args, *(["--config", config] if config else [])).exit_code == 0
    result = run("referee", "new", db, "--white", ANA, "--black", BO, "--now",
                 "2026-11-23T10:00Z")
    assert result.exit_code == 0
    return db


def _unsent(db) -> list[tuple]:
    import sqlite3

    with sqlite3.connect(db) as connection:
        return connection.execute("SELECT envelope_to, attempts, error FROM outbox "
                                  "WHERE sent_at IS NULL ORDER BY id").fetchall()


def test_smtp_sends_with_the_settings_files_password_file(server, tmp_path):  # noqa: F811
    inbox, port = server(auth=True)
    config, _ = _settings(tmp_path, port)
    db = _start(tmp_path, "smtp", config)
    # the envelope sender is the referee's bare address (bounces come back to it); From
    # and Reply-To are the player's token address; the recipient is the player
    assert [(e.mail_from, e.rcpt_tos) for e in inbox.envelopes] == [
        ("ref@club.test", ["ana@a.test"]), ("ref@club.test", ["bo@b.test"])]
    for envelope in inbox.envelopes:
        message = email.message_from_bytes(envelope.original_content, policy=email.policy.default)
        assert message["From"] == message["Reply-To"]
        assert message["From"].addresses[0].addr_spec.startswith("ref+")
    assert message["Auto-Submitted"] == "auto-replied" and "[tomis #1]" in message["Subject"]
    assert _unsent(db) == []
    assert PASSWORD.encode() not in db.read_bytes()


def test_a_password_file_others_may_read_keeps_the_mail_queued_until_fixed(server, tmp_path):  # noqa: F811
    inbox, port = server(auth=True)
    config, secret = _settings(tmp_path, port, mode=0o644)
    db = _start(tmp_path, "smtp", config)
    assert inbox.envelopes == []
    unsent = _unsent(db)
    assert len(unsent) == 2 and all("chmod 600" in error and tries == 1
                                    for _, tries, error in unsent)
    secret.chmod(stat.S_IRUSR | stat.S_IWUSR)
    result = run("referee", "tick", db, "--now", "2026-11-23T10:05Z")
    assert result.exit_code == 0 and "unsent 0" in result.stderr
    assert len(inbox.envelopes) == 2 and _unsent(db) == []


def test_a_refusing_server_leaves_the_mail_for_tick(server, tmp_path):  # noqa: F811
    refusing, port = server(answer="451 try later")
    config, _ = _settings(tmp_path, port)
    config.write_text(config.read_text().replace(f"user = {USER}\n", ""))
    db = _start(tmp_path, "smtp", config)
    assert [error for _, _, error in _unsent(db)] == [
        f"the SMTP server 127.0.0.1:{port} answered 451 try later"] * 2
    refusing.answer = None
    assert run("referee", "tick", db, "--now", "2026-11-23T10:05Z").exit_code == 0
    assert len(refusing.envelopes) == 2 and _unsent(db) == []


def test_sendmail_gets_the_envelope_on_its_command_line_never_t(tmp_path):
    log = tmp_path / "calls"
    program = tmp_path / "sendmail"
    program.write_text(f"#!{sys.executable}\nimport sys\n"
                       f"data = sys.stdin.buffer.read()\n"
                       f"with open({str(log)!r}, 'a') as out:\n"
                       f"    out.write(repr((sys.argv[1:], data.decode())) + '\\n')\n")
    program.chmod(0o755)
    _start(tmp_path, f"sendmail:{program}")
    calls = [eval(line) for line in log.read_text().splitlines()]  # noqa: S307 -- our own repr
    # the same envelope as by SMTP: the referee's bare address, the player
    assert [call[0] for call in calls] == [["-i", "-f", "ref@club.test", "--", "ana@a.test"],
                                           ["-i", "-f", "ref@club.test", "--", "bo@b.test"]]
    for _, data in calls:
        message = email.message_from_string(data, policy=email.policy.default)
        assert message["From"] == message["Reply-To"]
        assert message["From"].addresses[0].addr_spec.startswith("ref+")
        assert message["Auto-Submitted"] == "auto-replied"
        assert "\r\n" not in data          # a local program reads Unix line ends


def test_a_failing_sendmail_is_retried(tmp_path):
    program = tmp_path / "sendmail"
    program.write_text("#!/bin/sh\necho 'queue full' >&2\nexit 75\n")
    program.chmod(0o755)
    db = _start(tmp_path, f"sendmail:{program}")
    assert [error for _, _, error in _unsent(db)] == [
        f"{program} exited with status 75: queue full"] * 2
    program.write_text("#!/bin/sh\ncat >/dev/null\n")
    assert run("referee", "tick", db, "--now", "2026-11-23T10:05Z").exit_code == 0
    assert _unsent(db) == []


def test_new_says_which_messages_wait_for_tick(tmp_path):
    program = tmp_path / "sendmail"
    program.write_text("#!/bin/sh\necho 'no route' >&2\nexit 1\n")
    program.chmod(0o755)
    db = tmp_path / "referee.db"
    run("referee", "init", db, "--address", "ref@club.test", "--send-by", f"sendmail:{program}")
    result = run("referee", "new", db, "--white", ANA, "--black", BO)
    assert result.exit_code == 0 and result.stdout == "1\n"
    assert result.stderr.count("not sent yet (tick tries again)") == 2
    assert "exited with status 1: no route" in result.stderr


@pytest.mark.parametrize("address", ["Ref <ref@club.test>", "ref@club.test\r\nBcc: x@y.test",
                                     "ref@club.test, x@y.test", ""])
def test_an_envelope_sender_is_one_bare_address(address):
    from tomis import outgoing

    assert outgoing.envelope_sender("ref@club.test") == "ref@club.test"
    with pytest.raises(outgoing.MailError):
        outgoing.envelope_sender(address)
