"""Issue 42's stamps through the real mail lab (.ci/mail-lab start): postfix's own
``Received:`` field, read by ``deliver`` for a store made with ``init --received-by`` the
host postfix names itself, and the Maildir names postfix's local delivery writes, read by
``fetch --maildir``, give each action's time.

Slow: it needs the lab and waits for delivery, which is asynchronous.
"""

from __future__ import annotations

import sqlite3
import subprocess

import pytest

from test_referee_mail_lab import (SENDMAIL, Players, fetch_one, pipe_user,  # noqa: F401
                                   play_a_short_game, referee_command)

pytestmark = pytest.mark.slow


def postfix_host() -> str:
    return subprocess.run(["postconf", "-h", "myhostname"], capture_output=True, text=True,
                          check=True).stdout.strip()


def player_rows(db) -> list[tuple]:
    """Of the messages the referee took and played, when the mail system received each,
    when it was stored, and what its actions were stamped with."""
    with sqlite3.connect(db) as connection:
        return connection.execute(
            "SELECT received_at, stored_at, stamped_at FROM inbox WHERE state = 'done' "
            "ORDER BY id").fetchall()


def assert_stamped_by_the_mail_system(rows) -> None:
    assert len(rows) == 2, rows                      # B@e1, then the resignation
    for received, stored, stamped in rows:
        assert received is not None and stamped == received
        assert stored - 120 <= received <= stored


def test_deliver_reads_the_received_field_postfix_wrote(mail_lab, pipe_user):  # noqa: F811
    players = Players(mail_lab)
    referee_command("init", pipe_user, "--address", "clubref@tomis.test", "--send-by", SENDMAIL,
                    "--received-by", postfix_host(), user="clubref")
    referee_command("new", pipe_user, "--white", players.option(0), "--black", players.option(1),
                    "--time-control", "30d+3d", user="clubref")
    play_a_short_game(players, mail_lab)
    assert_stamped_by_the_mail_system(player_rows(pipe_user))


def test_fetch_reads_the_maildir_names_postfix_wrote(mail_lab, tmp_path):
    players = Players(mail_lab)
    db = tmp_path / "club.db"
    maildir = mail_lab.users["referee"].maildir
    referee_command("init", db, "--address", "referee@tomis.test", "--send-by", SENDMAIL)
    referee_command("new", db, "--white", players.option(0), "--black", players.option(1),
                    "--time-control", "30d+3d")

    play_a_short_game(players, mail_lab, lambda: fetch_one(db, maildir))
    assert_stamped_by_the_mail_system(player_rows(db))
