"""Reading games from an IMAP folder: a real server (pymap, a Python IMAP server) on
127.0.0.1, started by each test as a process, with a certificate from a CA made in the test.

pymap offers TLS through STARTTLS only, so these tests use ``imap://`` places; ``imaps://``
(TLS from the first byte) is read from dovecot in the slow mail-lab test.
"""

from __future__ import annotations

import imaplib
import re
import ssl
import subprocess
import sys

import pytest
from mail_support import (  # noqa: F401 (certificates is a fixture)
    RECORDS, certificates, free_port, make_ca, run, wait_for_port,
)

from tomis import mail, outgoing
from tomis.mail import imap
from tomis.notation import record


USER, PASSWORD = "ana", "imap-Secret-1"


class Server:
    """A pymap process with an in-memory mailbox for USER, and the CA its certificate is from."""

    def __init__(self, ca, cert, key, tls: bool = True):
        self.ca = ca
        self.port = free_port()
        tls_options = ["--cert", str(cert), "--key", str(key)] if tls else ["--no-tls"]
        self.process = subprocess.Popen(
            [sys.executable, "-c", "from pymap.main import main; main()", "--host", "127.0.0.1", "--port", str(self.port), *tls_options,
             "dict", "--demo-user", USER, "--demo-password", PASSWORD],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for_port(self.port, self.process)

    def place(self, folder: str = "INBOX", user: str = USER) -> str:
        return f"imap://{user}@127.0.0.1:{self.port}/{folder}"

    def admin(self) -> imaplib.IMAP4:
        """A client of the test's own, to put messages in and look at their flags."""
        client = imaplib.IMAP4("127.0.0.1", self.port, timeout=10)
        client.starttls(ssl_context=ssl.create_default_context(cafile=str(self.ca)))
        client.login(USER, PASSWORD)
        return client

    def deliver(self, folder: str, *messages: bytes) -> None:
        client = self.admin()
        if folder != "INBOX":
            client.create(folder)
        for data in messages:
            status, _ = client.append(folder, None, None, data)
            assert status == "OK"
        client.logout()

    def flags(self, folder: str) -> list[bytes]:
        client = self.admin()
        client.select(folder, readonly=True)
        _status, data = client.fetch("1:*", "(FLAGS)")
        client.logout()
        return data

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


@pytest.fixture
def server(certificates):
    if sys.version_info < (3, 11):
        pytest.skip("pymap needs Python 3.11")
    pytest.importorskip("pymap")
    started = []

    def start(tls: bool = True) -> Server:
        started.append(Server(*certificates, tls))
        return started[-1]

    yield start
    for each in started:
        each.stop()


def env_for(server: Server, password: str | None = PASSWORD, cafile=None) -> dict:
    return {"TOMIS_IMAP_PASSWORD": password, "TOMIS_MAIL_CONFIG": "/nonexistent/mail.ini",
            "TOMIS_IMAP_CAFILE": str(cafile or server.ca)}


def game_message(stage: str, sender: str, to: str) -> bytes:
    """The message tomis writes for the record ``stage`` (a file of tests/data/mail/records)."""
    text = (RECORDS / stage).read_text(encoding="utf-8")
    game = record.read_game(text)
    message = outgoing.compose(game, text, sender=sender, to=to, attachment_name="ladder.tgn")
    return outgoing.message_bytes(message)


def test_inbox_extract_and_show_read_a_folder_and_change_nothing(server):
    imap_server = server()
    from_ana = game_message("ladder-1.tgn", "ana@example.org", "bo@example.net")
    imap_server.deliver("INBOX", b"From: x@example.org\r\nSubject: hello\r\n\r\nNo game here.\r\n",
                        from_ana)
    env = env_for(imap_server)
    place = imap_server.place()

    listed = run("inbox", place, "--me", "Bo", "--now", "2030-01-01T00:00:00", env=env)
    assert listed.exit_code == 0, listed.stderr
    assert listed.stdout.splitlines()[0] == "1 game(s) waiting for Bo, oldest first"
    # The line names the message as extract and show take it: the place and its UID.
    [line] = [row for row in listed.stdout.splitlines() if "vs Ana" in row]
    label = line.strip().split(": vs ")[0]
    assert label.startswith(f"{place} --message ")
    uid = label.rsplit(" ", 1)[1]

    extracted = run("extract", place, "--message", uid, env=env)
    assert extracted.exit_code == 0, extracted.stderr
    assert extracted.stdout == (RECORDS / "ladder-1.tgn").read_text(encoding="utf-8")
    assert f"note: read UID {uid} of the mailbox" in extracted.stderr

    message_id = mail.parse_message(from_ana)["Message-ID"]
    shown = run("show", place, "--message", message_id, "--ascii", env=env)
    assert shown.exit_code == 0, shown.stderr
    assert "White played 1. B@e1 (action 1)" in shown.stdout
    assert shown.stdout.rstrip().endswith("Action 2: Black to act")

    # EXAMINE and BODY.PEEK: no message was marked as read.
    for flags in imap_server.flags("INBOX"):
        assert b"FLAGS ()" in flags, flags


def test_validate_and_show_read_the_only_message_of_a_folder(server):
    imap_server = server()
    imap_server.deliver("Games", game_message("ladder-2.tgn", "bo@example.net", "ana@example.org"))
    env = env_for(imap_server)
    checked = run("validate", imap_server.place("Games"), env=env)
    assert checked.exit_code == 0, checked.stderr
    assert checked.stdout == f"{imap_server.place('Games')}: ok, 1 game(s)\n"
    two = run("validate", imap_server.place("INBOX"), env=env)   # empty
    assert two.exit_code == 2
    assert two.stderr.strip().endswith("this folder holds no message")


def test_a_message_the_folder_does_not_have_is_one_line(server):
    imap_server = server()
    imap_server.deliver("INBOX", game_message("ladder-1.tgn", "ana@example.org", "bo@example.net"),
                        game_message("ladder-2.tgn", "bo@example.net", "ana@example.org"))
    env = env_for(imap_server)
    several = run("extract", imap_server.place(), env=env)
    assert several.exit_code == 2
    assert "this folder holds 2 messages; choose one with --message UID" in several.stderr
    missing = run("extract", imap_server.place(), "--message", "<nobody@example.org>", env=env)
    assert missing.exit_code == 2
    assert missing.stderr.strip() == (
        f"{imap_server.place()}: --message <nobody@example.org>: no message with this "
        "Message-ID in the folder")


def test_starttls_not_offered_is_refused_before_the_password_is_sent(server):
    imap_server = server(tls=False)
    result = run("extract", imap_server.place(), env=env_for(imap_server))
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"{imap_server.place()}: the IMAP server 127.0.0.1:{imap_server.port} does not offer "
        "STARTTLS, so the password would cross the network in clear; use imaps:// if it "
        "offers TLS on another port (993)")


def test_a_certificate_from_another_ca_is_refused(server, tmp_path):
    imap_server = server()
    stranger = make_ca(tmp_path / "other", "Some other CA")
    result = run("inbox", imap_server.place(), "--me", "Bo", env=env_for(imap_server, cafile=stranger))
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith(f"{imap_server.place()}: the IMAP server 127.0.0.1:{imap_server.port} "
                           "has a certificate tomis cannot trust (")
    assert "TOMIS_IMAP_CAFILE" in line


def test_the_ca_file_comes_from_the_settings_file(server, tmp_path):
    imap_server = server()
    imap_server.deliver("Games", game_message("ladder-1.tgn", "ana@example.org", "bo@example.net"))
    config = tmp_path / "mail.ini"
    config.write_text(f"[imap]\ncafile = {imap_server.ca}\n", encoding="utf-8")
    env = {"TOMIS_IMAP_PASSWORD": PASSWORD, "TOMIS_MAIL_CONFIG": str(config),
           "TOMIS_IMAP_CAFILE": None}
    result = run("extract", imap_server.place("Games"), env=env)
    assert result.exit_code == 0, result.stderr
    assert "1. B@e1 *" in result.stdout


def test_a_wrong_password_is_one_line(server):
    imap_server = server()
    result = run("extract", imap_server.place(), env=env_for(imap_server, password="wrong"))
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith(f"{imap_server.place()}: the IMAP server 127.0.0.1:{imap_server.port} "
                           f"refused the user name or password for {USER}: ")


def test_a_folder_the_server_does_not_have_is_one_line(server):
    imap_server = server()
    result = run("extract", imap_server.place("Nowhere"), env=env_for(imap_server))
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith(f"{imap_server.place('Nowhere')}: the IMAP server "
                           f"127.0.0.1:{imap_server.port} has no folder Nowhere for {USER}: ")


def test_without_a_password_or_a_terminal_nothing_is_asked(server):
    imap_server = server()
    result = run("extract", imap_server.place(), env=env_for(imap_server, password=None))
    assert result.exit_code == 2
    assert result.stderr.strip() == (f"{imap_server.place()}: no password for {USER}: set "
                                     "TOMIS_IMAP_PASSWORD or run tomis on a terminal")


def test_nothing_listening_is_one_line():
    port = free_port()
    place = f"imaps://ana@127.0.0.1:{port}/INBOX"
    result = run("extract", place, env={"TOMIS_IMAP_PASSWORD": "x",
                                        "TOMIS_MAIL_CONFIG": "/nonexistent/mail.ini"})
    assert result.exit_code == 2
    assert result.stderr.strip() == f"{place}: nothing answers at 127.0.0.1:{port} (connection refused)"


# --------------------------------------------------------------------------- places, no server

@pytest.mark.parametrize("text, user, host, port, folder", [
    ("imaps://ana@mail.example.org/INBOX", "ana", "mail.example.org", 993, "INBOX"),
    ("imaps://ana%40example.org@mail.example.org:1993/Sent%20Items", "ana@example.org",
     "mail.example.org", 1993, "Sent Items"),
    ("imap://bo@127.0.0.1", "bo", "127.0.0.1", 143, "INBOX"),
    ("IMAPS://bo@[::1]/Games/Ladder", "bo", "::1", 993, "Games/Ladder"),
])
def test_a_place_names_user_host_port_and_folder(text, user, host, port, folder):
    assert imap.is_place(text)
    place = imap.parse_place(text)
    assert (place.user, place.host, place.port, place.folder) == (user, host, port, folder)


@pytest.mark.parametrize("text, words", [
    ("imaps://ana:secret@mail.example.org/INBOX", "no password in the place"),
    ("imaps://mail.example.org/INBOX", "names the user and the server"),
    ("imaps://ana@mail.example.org:99999/INBOX", "is a number from 1 to 65535"),
    ("imaps://ana@mail.example.org/IN BOX", "one word without spaces"),
    ("imaps://ana@mail.example.org/INBOX?x=1", "no ? or # part"),
])
def test_a_bad_place_is_refused_in_words(text, words):
    with pytest.raises(imap.ImapError, match=words.replace("?", r"\?")):
        imap.parse_place(text)


def test_a_password_in_the_place_is_refused_by_the_commands():
    result = run("extract", "imaps://ana:secret@mail.example.org/INBOX")
    assert result.exit_code == 2
    assert "no password in the place" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_files_path_is_not_a_place():
    assert not imap.is_place("games/ladder.tgn")
    assert not imap.is_place("http://example.org/x")


def test_folder_names_go_to_the_server_in_modified_utf7():
    # RFC 3501 5.1.3's own example, and '&' written as "&-".
    assert imap._mailbox_name("~peter/mail/\u53f0\u5317/\u65e5\u672c\u8a9e") == \
        '"~peter/mail/&U,BTFw-/&ZeVnLIqe-"'
    assert imap._mailbox_name('A&B "x"') == '"A&-B \\"x\\""'


def test_the_writing_commands_write_a_local_file_and_leave_the_folder_as_it_was(
        server, tmp_path, monkeypatch):
    """move and extract -o on a message of an IMAP folder: the new record goes to a file
    here, never to the server; no message is added, changed or marked read."""
    monkeypatch.chdir(tmp_path)
    imap_server = server()
    from_ana = game_message("ladder-3.tgn", "ana@example.org", "bo@example.net")
    imap_server.deliver("INBOX", game_message("ladder-2.tgn", "bo@example.net", "ana@example.org"),
                        from_ana)
    env = {**env_for(imap_server), "TOMIS_SMTP_FROM": "Bo <bo@example.net>"}
    place = imap_server.place()
    wanted = str(mail.parse_message(from_ana)["Message-ID"])

    moved = run("move", place, "G@g8", "--message", wanted, "--mail", "reply.eml", env=env)
    assert moved.exit_code == 0, moved.stderr
    uid = re.search(r"note: read UID (\d+) of the mailbox", moved.stderr)[1]
    assert "Ana-vs-Bo.tgn: the new record is written here; the mailbox is left as it is" \
        in moved.stderr
    assert "2. G@b1 G@g8 *" in (tmp_path / "Ana-vs-Bo.tgn").read_text(encoding="utf-8")
    reply = mail.parse_message((tmp_path / "reply.eml").read_bytes())
    assert str(reply["To"]) == "ana@example.org"

    kept = run("extract", place, "--message", uid, "-o", "kept.tgn", env=env)
    assert kept.exit_code == 0, kept.stderr
    assert (tmp_path / "kept.tgn").read_text(encoding="utf-8") == \
        (RECORDS / "ladder-3.tgn").read_text(encoding="utf-8")
    assert '"to": "ana@example.org"' in (tmp_path / "kept.tgn.mail.json").read_text()
    flags = imap_server.flags("INBOX")
    assert len(flags) == 2
    for each in flags:
        assert b"FLAGS ()" in each, each
