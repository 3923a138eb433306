"""Issue 41 through Debian's postfix and dovecot (.ci/mail-lab start): each natural shape
of a move, 'draw' alone, ``moves``, ``help`` and an autoresponder marked only with
``X-Autoreply``, sent over SMTP to the referee's token addresses, taken by ``run --imap``
from dovecot, and every answer read back from the players' Maildirs.

``run --imap`` reads the referee's INBOX read-only into a store of this test's own, so
other tests' messages in that mailbox stay where they are (to this store they come from
strangers and get no answer). Each message is found by what its body says, not by its
subject. Slow: it needs the lab and waits for delivery, which is asynchronous.
"""

from __future__ import annotations

import email
import email.policy
import signal
import smtplib
import subprocess
import sys
import time
from email.message import EmailMessage
from email.utils import make_msgid

import pytest

from conftest import ROOT, tomis_env
from referee_support import body_of
from test_referee_mail_lab import SENDMAIL, Players, referee_command
from test_referee_run import running, stop

pytestmark = pytest.mark.slow

QUIET_SECONDS = 3.0            # how long a Maildir must stay without news at the end
# Each natural shape of issue 41's first finding, by turns (White, Black, ...), and the
# action the referee must read from it.
NATURAL = [("B@e1, your move", "B@e1"), ("b@d8", "B@d8"), ("My move: G@b1", "G@b1"),
           ("G@g8 (centre)", "G@g8"), ("G@f2 \u2014", "G@f2")]


def _text(message) -> str:
    return " ".join(body_of(message).split())


def _autoreply(players: Players, original) -> bytes:
    """Ana's mail program answering ``original`` by itself, marked only with X-Autoreply."""
    message = EmailMessage()
    message["From"] = players.option(0)
    message["To"] = str(original["Reply-To"])
    message["Subject"] = "Re: " + str(original["Subject"])
    message["Message-ID"] = make_msgid(domain="away.test")
    message["In-Reply-To"] = original["Message-ID"]
    message["X-Autoreply"] = "yes"
    message.set_content("I am away until Monday and will read your message then.")
    return message.as_bytes()


def _nothing_more(players: Players) -> None:
    """Neither player got a message of this run beyond those read, within
    :data:`QUIET_SECONDS` (what an autoresponder's answer would have been)."""
    time.sleep(QUIET_SECONDS)
    for side, user in enumerate(players.users):
        for part in ("new", "cur"):
            for path in (user.maildir / part).iterdir():
                if path.name in players.known[side]:
                    continue
                message = email.message_from_bytes(path.read_bytes(),
                                                   policy=email.policy.default)
                assert players.names[0] not in str(message["Subject"]), _text(message)


def test_natural_moves_draw_moves_help_and_an_autoresponder_through_the_lab(mail_lab, tmp_path):
    players = Players(mail_lab)
    host, port = mail_lab.host, mail_lab.smtp["relay"]
    db = tmp_path / "club.db"
    referee = mail_lab.users["referee"]
    referee_command("init", db, "--address", "referee@tomis.test", "--send-by", SENDMAIL)
    referee_command("new", db, "--white", players.option(0), "--black", players.option(1),
                    "--time-control", "30d+3d")
    place = f"imaps://referee@{mail_lab.host}:{mail_lab.imap['imaps']}/INBOX"
    env = tomis_env({"TOMIS_IMAP_PASSWORD": referee.password, "TOMIS_IMAP_CAFILE": mail_lab.cafile,
                     "TOMIS_MAIL_CONFIG": "/nonexistent/mail.ini"})
    log_path = tmp_path / "run.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen([sys.executable, "-m", "tomis", "referee", "run", str(db),
                                    "--imap", place, "--every", "1s"],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=log, cwd=ROOT, env=env)
    with running(process):
        last = [players.wait(side, "") for side in (0, 1)]
        assert all("Reply 'help' for a short guide" in _text(m) for m in last)

        # help: the guide and the rules, to Ana alone.
        players.reply(0, last[0], "help", host, port)
        last[0] = players.wait(0, "")
        assert "The notation: one action is one word" in _text(last[0])
        assert any(part.get_filename() == "tomis-rules.txt"
                   for part in last[0].iter_attachments())

        # moves: the legal actions by kind, to Ana alone.
        players.reply(0, last[0], "moves", host, port)
        last[0] = players.wait(0, "")
        assert "Legal actions (1), by kind: place: B@a1" in _text(last[0])

        # An autoresponder marked only with X-Autoreply: no answer, nothing passed on. The
        # next message Ana gets answers her next command, and Bo's next one is the action.
        with smtplib.SMTP(host, port, timeout=30) as smtp:
            smtp.sendmail(players.users[0].address,
                          [last[0]["Reply-To"].addresses[0].addr_spec],
                          _autoreply(players, last[0]))

        # 'draw' alone: answered to Ana, never passed on to Bo.
        players.reply(0, last[0], "draw", host, port)
        last[0] = players.wait(0, "")
        assert "'draw' alone offers nothing" in _text(last[0])
        assert "I am away" not in _text(last[0])

        # Each natural shape of a move is played, and both hear it.
        for number, (written, action) in enumerate(NATURAL, 1):
            side = (number - 1) % 2
            players.reply(side, last[side], written, host, port)
            last = [players.wait(each, "") for each in (0, 1)]
            for message in last:
                text = _text(message)
                assert f"{action} (action {number})" in text, text
                assert "writes:" not in text and "I am away" not in text

        _nothing_more(players)
        assert stop(process, signal.SIGTERM) == 0
    log = log_path.read_text()
    assert "rejected: written by a machine (it has a X-Autoreply header)" in log, log
    assert log.count("done: action") == len(NATURAL)
