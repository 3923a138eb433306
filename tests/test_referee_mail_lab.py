"""The referee end to end through Debian's postfix and dovecot (.ci/mail-lab start): a
whole short game three times, the players' replies sent over SMTP to the referee's token
addresses and every message of the referee sent with postfix's sendmail and found in the
players' Maildirs.

1. postfix's ``pipe`` transport hands each message for ``clubref+TOKEN@tomis.test`` to
   ``tomis referee deliver`` (``recipient_delimiter = +``), run as the user clubref;
2. postfix delivers ``referee+TOKEN@`` into ~referee/Maildir, read by ``fetch --maildir``;
3. dovecot serves that mailbox over IMAP (imaps, 993), read by ``run --imap``.

Slow: it needs the lab and waits for delivery, which is asynchronous.
"""

from __future__ import annotations

import email
import email.policy
import os
import shutil
import signal
import smtplib
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from conftest import ROOT, tomis_env
from referee_support import body_of, reply_to
from test_referee_run import running, stop

pytestmark = pytest.mark.slow

DELIVERY_LIMIT = 60.0          # seconds to wait for a message (not a time asserted)
SENDMAIL = "sendmail:/usr/sbin/sendmail"


class Players:
    """Ana and Bo of the lab under names of this run, and the mail they have had."""

    def __init__(self, lab):
        tag = uuid.uuid4().hex[:8]
        self.users = (lab.users["ana"], lab.users["bo"])
        self.names = (f"Ana {tag}", f"Bo {tag}")
        self.known = [self._names(user) for user in self.users]

    def option(self, side: int) -> str:
        return f"{self.names[side]} <{self.users[side].address}>"

    @staticmethod
    def _names(user) -> set:
        return {path.name for part in ("new", "cur") for path in (user.maildir / part).iterdir()}

    def wait(self, side: int, subject_part: str):
        """The next message to ``side`` of this run whose first line (what it tells; the
        Subject is the game's) holds ``subject_part``."""
        user, deadline = self.users[side], time.monotonic() + DELIVERY_LIMIT
        while time.monotonic() < deadline:
            for part in ("new", "cur"):
                for path in sorted((user.maildir / part).iterdir()):
                    if path.name in self.known[side]:
                        continue
                    message = email.message_from_bytes(path.read_bytes(),
                                                       policy=email.policy.default)
                    if self.names[0] not in str(message["Subject"]):
                        continue            # another run's game
                    self.known[side].add(path.name)
                    if message["Auto-Submitted"] is None:
                        continue            # a player's own mail (a copy Cc'd to the other)
                    told = message.get_body(("plain",)).get_content().splitlines()[0]
                    assert subject_part.lower() in told.lower(), told
                    return message
            time.sleep(0.2)
        raise AssertionError(f"no message {subject_part!r} reached {user.maildir}")

    def reply(self, side: int, original, text: str, host: str, port: int) -> None:
        """``side`` answers ``original`` through postfix (SMTP on loopback)."""
        raw = reply_to(original, self.option(side), text)
        to = original["Reply-To"].addresses[0].addr_spec
        with smtplib.SMTP(host, port, timeout=30) as smtp:
            smtp.sendmail(self.users[side].address, [to], raw)


def play_a_short_game(players: Players, lab, advance=lambda: None) -> None:
    """Both hear the game begin; Ana plays B@e1, both hear it; Bo resigns, both hear it.
    ``advance()`` lets the referee take the mail that arrived (fetch), where it must."""
    host, port = lab.host, lab.smtp["relay"]
    begins = [players.wait(side, "the game begins") for side in (0, 1)]
    assert "Your turn" in body_of(begins[0])
    players.reply(0, begins[0], "B@e1", host, port)
    advance()
    moved = [players.wait(side, "action 1 (B@e1)") for side in (0, 1)]
    players.reply(1, moved[1], "resign", host, port)
    advance()
    for side in (0, 1):
        ended = players.wait(side, "1-0, Black resigns")
        assert "The game has ended: 1-0" in body_of(ended)
        assert ended["Auto-Submitted"] == "auto-replied"


def referee_command(*args, user: str | None = None, env=None, check=True):
    command = [sys.executable, "-m", "tomis", "referee", *map(str, args)]
    if user is not None:         # as the pipe transport runs it: the system's Python
        command = ["runuser", "-u", user, "--", "env", f"PYTHONPATH={pipe_path(user)}",
                   "/usr/bin/python3", "-m", "tomis", "referee", *map(str, args)]
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=120,
                            env=tomis_env(env))
    if check:
        assert result.returncode == 0, result.stderr
    return result


def fetch_one(db, maildir) -> None:
    """``fetch`` until it takes a message: delivery into the Maildir is asynchronous."""
    deadline = time.monotonic() + DELIVERY_LIMIT
    while time.monotonic() < deadline:
        if ": message " in referee_command("fetch", db, "--maildir", maildir).stderr:
            return
        time.sleep(0.3)
    raise AssertionError("fetch found no message in the referee's Maildir")


def pipe_path(user: str) -> str:
    return f"{ROOT}:/home/{user}/tomis-lab/lib"


def sent_all(db) -> None:
    import sqlite3

    with sqlite3.connect(db) as connection:
        waiting = connection.execute("SELECT COUNT(*) FROM outbox WHERE sent_at IS NULL").fetchone()
        count = connection.execute("SELECT COUNT(*) FROM outbox").fetchone()
    assert waiting == (0,) and count == (6,)         # 2 begin, 2 after B@e1, 2 at the end


@pytest.fixture
def pipe_user(mail_lab):
    """clubref, whose mail postfix pipes to ~clubref/deliver: that program, and the pure
    Python packages tomis needs where clubref can read them (the test's own are not)."""
    import click
    import lark

    home = Path("/home/clubref")
    if not (home.is_dir() and "clubref" in mail_lab.users):
        pytest.skip("the mail lab has no pipe transport user: .ci/mail-lab start again")
    lib = home / "tomis-lab" / "lib"
    shutil.rmtree(home / "tomis-lab", ignore_errors=True)
    for package in (click, lark):
        source = Path(package.__file__).parent
        shutil.copytree(source, lib / source.name)
    db = home / "tomis-lab" / "club.db"
    program = home / "deliver"
    program.write_text(f"#!/bin/sh\nexec env PYTHONPATH={pipe_path('clubref')} /usr/bin/python3 "
                       f"-m tomis referee deliver {db} --recipient \"$1\"\n", encoding="utf-8")
    program.chmod(0o755)
    subprocess.run(["chown", "-R", "clubref:clubref", str(home / "tomis-lab"), str(program)],
                   check=True)
    return db


def test_a_game_through_the_pipe_transport(mail_lab, pipe_user):
    players = Players(mail_lab)
    referee_command("init", pipe_user, "--address", "clubref@tomis.test", "--send-by", SENDMAIL,
                    user="clubref")
    referee_command("new", pipe_user, "--white", players.option(0), "--black", players.option(1),
                    "--time-control", "30d+3d", user="clubref")
    play_a_short_game(players, mail_lab)
    sent_all(pipe_user)
    games = referee_command("games", pipe_user, "--all", "--json").stdout
    assert '"result": "1-0"' in games


def test_a_game_through_a_maildir_read_by_fetch(mail_lab, tmp_path):
    players = Players(mail_lab)
    db = tmp_path / "club.db"
    maildir = mail_lab.users["referee"].maildir
    referee_command("init", db, "--address", "referee@tomis.test", "--send-by", SENDMAIL)
    referee_command("new", db, "--white", players.option(0), "--black", players.option(1))

    play_a_short_game(players, mail_lab, lambda: fetch_one(db, maildir))
    sent_all(db)
    assert not os.listdir(maildir / "new")
    assert all(name.endswith(":2,S") for name in os.listdir(maildir / "cur"))


def test_a_game_through_dovecot_read_by_run_imap(mail_lab, tmp_path):
    players = Players(mail_lab)
    db = tmp_path / "club.db"
    referee = mail_lab.users["referee"]
    referee_command("init", db, "--address", "referee@tomis.test", "--send-by", SENDMAIL)
    referee_command("new", db, "--white", players.option(0), "--black", players.option(1),
                    "--time-control", "30d+3d")
    place = f"imaps://referee@{mail_lab.host}:{mail_lab.imap['imaps']}/INBOX"
    log_path = tmp_path / "run.log"
    env = tomis_env({"TOMIS_IMAP_PASSWORD": referee.password, "TOMIS_IMAP_CAFILE": mail_lab.cafile,
                     "TOMIS_MAIL_CONFIG": "/nonexistent/mail.ini"})
    with open(log_path, "wb") as log:
        process = subprocess.Popen([sys.executable, "-m", "tomis", "referee", "run", str(db),
                                    "--imap", place, "--every", "1s", "--pages", str(tmp_path / "pages")],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log,
                                   cwd=ROOT, env=env)
    with running(process):
        play_a_short_game(players, mail_lab)
        assert stop(process, signal.SIGTERM) == 0
    log = log_path.read_text()
    assert "done: action 1 (B@e1)" in log and "stopped (SIGTERM)" in log, log
    sent_all(db)
    finished = (tmp_path / "pages" / "finished.html").read_text(encoding="utf-8")
    assert "1-0" in finished and "@tomis.test" not in finished
