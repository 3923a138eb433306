"""The referee reads and writes mail through the mail packages' public doors (issue 39):
one password-file policy, one composing function, one body chooser, one clock text, one
walker over conditional lines. Each test proves that both callers go through the one
function, or give the one answer."""

from __future__ import annotations

import sqlite3

import pytest

from referee_support import ANA, BO, run
from mail_support import PASSWORD, USER, server  # noqa: F401 -- the fixture
from tomis.errors import MailError
from tomis.outgoing import sending as outgoing_sending

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
