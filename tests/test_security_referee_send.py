"""Issue 38, the referee's sending under attack: ``resend`` finds a seat's last message by
its row, never by its bytes; a message that cannot be sent is retried later with a growing
delay, never in a loop, and given up when refused for good or after five days; ``run``
stops soon after SIGTERM while a server does not answer; the pages and outbox files are
written without following a link planted at their names, never opened when not regular
files, 0644 and 0600; ``tomis send`` says ``not sent``.

Real servers (aiosmtpd on 127.0.0.1, a socket that never answers), real processes."""

from __future__ import annotations

import os
import select
import signal
import socket
import sqlite3
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pytest

from conftest import ROOT
from mail_support import free_port, server  # noqa: F401 -- the fixture
from referee_support import ADDRESSES, ANA, BO, Lab, body_of, process, run

START = datetime(2026, 11, 23, 10, 0, tzinfo=timezone.utc)
MINUTE = 60


def _at(seconds: int) -> str:
    """The referee's clock ``seconds`` after START, as --now takes it."""
    return (START + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _stamp(seconds: int) -> int:
    return int(START.timestamp()) + seconds


def _query(db, sql: str, *args) -> list[tuple]:
    with sqlite3.connect(db) as connection:
        return connection.execute(sql, args).fetchall()


# --------------------------------------------------------------------------- resend

def test_resend_after_a_chat_quoting_the_senders_own_reply_address_mails_each_their_own(
        tmp_path):
    lab = Lab(tmp_path)
    own = str(lab.last_to(0)["Reply-To"])           # Ana's reply address, token and all
    lab.deliver(lab.reply(0, f"B@e1\nWrite to me at {own} if you like"), _at(3600))
    last = {side: lab.last_to(side) for side in (0, 1)}
    assert own in body_of(last[1])                  # the chat reached Bo, quoting it
    lab.new_messages()
    assert run("referee", "resend", lab.db, lab.game, "--now", _at(7200)).exit_code == 0
    again = {ADDRESSES.index(m["To"].addresses[0].addr_spec): m for m in lab.new_messages()}
    assert sorted(again) == [0, 1]
    for side in (0, 1):
        # each player gets their own last message: their own token, never the opponent's
        assert again[side]["Reply-To"] == last[side]["Reply-To"]
        assert again[side].as_bytes() == last[side].as_bytes()
    assert str(again[1]["Reply-To"]) != own


def test_every_message_queued_to_a_seat_names_its_side(tmp_path):
    lab = Lab(tmp_path)
    lab.deliver(lab.reply(0, "B@e1"), _at(3600))
    rows = _query(lab.db, "SELECT side, envelope_to FROM outbox ORDER BY id")
    assert rows and all(ADDRESSES[side] == to for side, to in rows)


# --------------------------------------------------------------------------- retries

def _smtp_referee(tmp_path, port: int, games: int = 1):
    """A store sending by SMTP to 127.0.0.1:port (no user), with ``games`` games begun
    at START (so their first messages were tried, and failed, at START)."""
    config = tmp_path / "mail.ini"
    config.write_text(f"[smtp]\nhost = 127.0.0.1\nport = {port}\nsecurity = none\n")
    db = tmp_path / "referee.db"
    assert run("referee", "init", db, "--address", "ref@club.test", "--send-by", "smtp",
               "--config", config).exit_code == 0
    for _ in range(games):
        result = run("referee", "new", db, "--white", ANA, "--black", BO, "--now", _at(0))
        assert result.exit_code == 0, result.output
    return db, config


def _tries(db) -> dict[int, int]:
    return dict(_query(db, "SELECT message, COUNT(*) FROM attempts GROUP BY message"))


def _plan(db) -> list[tuple]:
    return _query(db, "SELECT attempts, next_try, failed_at FROM outbox ORDER BY id")


def _tick(db, seconds: int):
    """``tick`` as a real process: today's code never ends, so a timeout fails the test."""
    done = process("referee", "tick", db, "--now", _at(seconds), timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stderr.decode()


def _backs_off(db, first_failure: str) -> None:
    assert "unsent 0" in _tick(db, 30)                    # not due yet: nothing tried
    assert _plan(db) == [(1, _stamp(MINUTE), None)] * 2
    assert first_failure in _query(db, "SELECT error FROM attempts")[0][0]
    assert _tries(db) == {1: 1, 2: 1}
    due, delay = MINUTE, 2 * MINUTE
    for tries in (2, 3, 4, 5):
        said = _tick(db, due)
        assert "unsent 2" in said and said.count("not sent yet (tick tries again)") == 2
        assert _tries(db) == {1: tries, 2: tries}         # one try per message per round
        assert _plan(db) == [(tries, _stamp(due + delay), None)] * 2
        due, delay = due + delay, delay * 2


def test_tick_with_nothing_listening_ends_and_backs_off_1_2_4_8_minutes(tmp_path):
    db, _ = _smtp_referee(tmp_path, free_port())
    _backs_off(db, "connection refused")


def test_tick_with_a_4xx_server_ends_and_backs_off(server, tmp_path):  # noqa: F811
    refusing, port = server(answer="451 4.3.0 try later")
    db, _ = _smtp_referee(tmp_path, port)
    _backs_off(db, "451 4.3.0 try later")
    assert refusing.envelopes == []


def _tick_in_process(db, seconds: int) -> str:
    """``tick`` in this process: the two tests above run it as a real process, whose
    timeout is what catches a tick that never ends; thirteen rounds here need not start
    thirteen processes."""
    done = run("referee", "tick", db, "--now", _at(seconds))
    assert done.exit_code == 0, done.stderr
    return done.stderr


def test_the_delay_stops_growing_at_6_hours_and_the_message_is_given_up_after_5_days(
        server, tmp_path):  # noqa: F811
    refusing, port = server(answer="451 try later")
    db, _ = _smtp_referee(tmp_path, port)
    delays = []
    for _ in range(11):                                   # each round when the retry is due
        due = _plan(db)[0][1]
        _tick_in_process(db, due - _stamp(0))
        delays.append(_plan(db)[0][1] - due)
    assert delays == [2 * MINUTE << n for n in range(8)] + [6 * 3600] * 3
    tries = _tries(db)[1]
    said = _tick_in_process(db, 5 * 86_400)
    assert said.count("not sent, given up") == 2
    assert _plan(db) == [(tries + 1, None, _stamp(5 * 86_400))] * 2
    _tick_in_process(db, 6 * 86_400)                     # given up: never tried again
    assert _tries(db) == {1: tries + 1, 2: tries + 1}
    listed = run("referee", "outbox", db, "--attempts").stdout.splitlines()
    heads = [line for line in listed if not line.startswith(" ")]
    assert [line.split()[0] for line in heads] == ["1", "2"]
    assert all("given up 2026-11-28" in line and "5 days" in line for line in heads)
    assert sum(line.startswith("    tried ") for line in listed) == 2 * (tries + 1)
    assert refusing.envelopes == []


def test_a_5xx_answer_is_not_retried_and_the_message_is_listed_as_failed(server, tmp_path):  # noqa: F811
    from tomis.referee import sending, store

    refusing, port = server(answer="550 5.1.1 no such user")
    db, _ = _smtp_referee(tmp_path, port)
    assert _plan(db) == [(1, None, _stamp(0))] * 2
    said = _tick(db, 3600)
    assert "unsent 0" in said
    assert _tries(db) == {1: 1, 2: 1}
    connection = store.open_store(str(db))
    failed = sending.failed_messages(connection)
    connection.close()
    assert [(item.to, item.failed_at) for item in failed] == [
        ("ana@a.test", _stamp(0)), ("bo@b.test", _stamp(0))]
    assert all("550 5.1.1 no such user" in item.error and "refused for good" in item.error
               for item in failed)


@pytest.mark.parametrize("status, tries_after_tick", [(67, 1), (68, 1), (75, 2), (69, 2)])
def test_a_sendmail_permanent_exit_is_not_retried_a_temporary_one_is(tmp_path, status,
                                                                     tries_after_tick):
    program = tmp_path / "sendmail"
    program.write_text(f"#!/bin/sh\necho 'said {status}' >&2\nexit {status}\n")
    program.chmod(0o755)
    db = tmp_path / "referee.db"
    run("referee", "init", db, "--address", "ref@club.test", "--send-by", f"sendmail:{program}")
    result = run("referee", "new", db, "--white", ANA, "--black", BO, "--now", _at(0))
    assert result.exit_code == 0                   # the game is stored: the mail waits
    words = "not sent, given up" if tries_after_tick == 1 else "not sent yet (tick tries again)"
    assert result.stderr.count(words) == 2
    _tick(db, 3600)
    assert _tries(db) == {1: tries_after_tick, 2: tries_after_tick}


def test_run_stops_within_seconds_of_sigterm_while_the_server_never_answers(tmp_path):
    # Three games begun with nothing listening; then the settings name a server that
    # takes each connection and never says a word: each message waits for its greeting.
    db, config = _smtp_referee(tmp_path, free_port(), games=3)
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)
    silent.settimeout(60)
    config.write_text(f"[smtp]\nhost = 127.0.0.1\nport = {silent.getsockname()[1]}\n"
                      f"security = none\n")
    maildir = tmp_path / "mail"
    for sub in ("new", "cur", "tmp"):
        (maildir / sub).mkdir(parents=True)
    referee = subprocess.Popen([sys.executable, "-m", "tomis", "referee", "run", str(db),
                                "--maildir", str(maildir), "--every", "1s"], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        connection, _ = silent.accept()           # the referee is waiting on the first message
        referee.send_signal(signal.SIGTERM)
        # Six messages at the referee's bound per wait would be a minute; today's code
        # waits 30 s on each and tries them again for ever.
        _, stderr = referee.communicate(timeout=25)
    finally:
        if referee.poll() is None:
            referee.kill()
            referee.wait()
        silent.close()
    connection.close()
    assert referee.returncode == 0, stderr
    assert b"stopped (SIGTERM)" in stderr
    # six tries when the games began, then one: the stop was heard before the second
    assert len(_query(db, "SELECT id FROM attempts")) == 6 + 1


# --------------------------------------------------------------------------- files

def test_a_link_at_an_outbox_name_leaves_its_target_untouched(tmp_path):
    lab = Lab(tmp_path)
    victim = tmp_path / "referee-notes.txt"
    victim.write_text("precious\n")
    (lab.out / "0000000003.eml").symlink_to(victim)
    result = lab.deliver(lab.reply(0, "B@e1"), _at(3600))
    assert victim.read_text() == "precious\n"
    assert (lab.out / "0000000003.eml").is_symlink()
    said = [line for line in result.stderr.splitlines() if "message 3" in line]
    assert len(said) == 1 and "symbolic link" in said[0] and "0000000003.eml" in said[0]
    assert "not sent yet (tick tries again)" in said[0]
    assert (lab.out / "0000000004.eml").is_file()      # the other message went


def test_a_link_at_a_pages_name_leaves_its_target_untouched(tmp_path):
    lab = Lab(tmp_path)
    pages = tmp_path / "www"
    pages.mkdir()
    (pages / "index.html").symlink_to(lab.db)         # the audit's attack: the store itself
    before = _games_and_mail(lab)
    result = run("referee", "page", lab.db, "-o", pages)
    assert result.exit_code == 1
    # The store is still the store (page may keep its own drawing cache in it, but no page
    # was written through the link): an SQLite file with the same games and mail.
    assert lab.db.read_bytes().startswith(b"SQLite format 3\x00")
    assert _games_and_mail(lab) == before and (pages / "index.html").is_symlink()
    [line] = result.stderr.splitlines()
    assert "index.html" in line and "symbolic link" in line and "nothing was written" in line


def _games_and_mail(lab) -> list:
    return [lab.query(f"SELECT * FROM {table} ORDER BY id") for table in ("games", "inbox", "outbox")]


def test_a_fifo_at_index_html_does_not_hang_page(tmp_path):
    lab = Lab(tmp_path)
    pages = tmp_path / "www"
    pages.mkdir()
    os.mkfifo(pages / "index.html")
    done = process("referee", "page", lab.db, "-o", pages, timeout=60)   # today: for ever
    assert done.returncode == 1
    [line] = done.stderr.decode().splitlines()
    assert "index.html" in line and "named pipe" in line


def test_outbox_files_are_0600_and_pages_0644_whatever_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        lab = Lab(tmp_path)
        assert {path.stat().st_mode & 0o777 for path in lab.out.glob("*.eml")} == {0o600}
        os.umask(0o077)
        assert run("referee", "page", lab.db, "-o", tmp_path / "www").exit_code == 0
    finally:
        os.umask(old)
    assert {path.stat().st_mode & 0o777 for path in (tmp_path / "www").iterdir()} == {0o644}


# --------------------------------------------------------------------------- tomis send

def test_send_with_a_failing_sendmail_says_not_sent(tmp_path):
    program = tmp_path / "sendmail"
    program.write_text("#!/bin/sh\necho 'relay down' >&2\nexit 69\n")
    program.chmod(0o755)
    game = tmp_path / "game.tgn"
    game.write_text('[White "Ana"]\n[Black "Bo"]\n\n1. B@e1 *\n')
    env = {"TOMIS_MAIL_CONFIG": str(tmp_path / "none.ini"), "TOMIS_SMTP_SENDMAIL": str(program),
           "TOMIS_SMTP_FROM": "ana@a.test"}
    result = run("send", game, "--to", "bo@b.test", env=env)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"{game}: not sent: {program} exited with status 69: relay down"]



def test_a_version_1_store_learns_each_old_messages_seat_and_resends_by_it(tmp_path):
    import shutil

    db = tmp_path / "referee.db"
    shutil.copy(ROOT / "tests" / "data" / "referee" / "store-v1.sqlite", db)
    old = {side: _query(db, "SELECT raw FROM outbox WHERE envelope_to = ? ORDER BY id DESC",
                        ADDRESSES[side])[0][0] for side in (0, 1)}
    out = tmp_path / "out"
    out.mkdir()
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE settings SET value = ? WHERE key = 'send_by'", (f"outbox:{out}",))
    assert run("referee", "resend", db, "1", "--now", _at(7200)).exit_code == 0
    assert _query(db, "SELECT COUNT(*) FROM outbox WHERE side IS NULL") == [(0,)]
    assert sorted(path.read_bytes() for path in out.glob("*.eml")) == sorted(old.values())


def test_run_pages_with_a_fifo_at_index_html_says_so_and_goes_on(tmp_path):
    lab = Lab(tmp_path)
    pages = tmp_path / "www"
    pages.mkdir()
    os.mkfifo(pages / "index.html")
    maildir = tmp_path / "mail"
    for sub in ("new", "cur", "tmp"):
        (maildir / sub).mkdir(parents=True)
    referee = subprocess.Popen([sys.executable, "-m", "tomis", "referee", "run", str(lab.db),
                                "--maildir", str(maildir), "--every", "1s", "--pages", str(pages)],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        said = b""
        while b"status pages not written" not in said:     # today: hangs opening the FIFO
            ready, _, _ = select.select([referee.stderr], [], [], 60)
            assert ready, said
            chunk = os.read(referee.stderr.fileno(), 4096)
            assert chunk, said
            said += chunk
        referee.send_signal(signal.SIGTERM)
        _, rest = referee.communicate(timeout=30)
    finally:
        if referee.poll() is None:
            referee.kill()
            referee.wait()
    assert referee.returncode == 0
    [line] = [text for text in said.decode().splitlines() if "status pages" in text]
    assert "index.html" in line and "named pipe" in line
    assert (pages / "game-1.html").is_file() and b"stopped (SIGTERM)" in rest
