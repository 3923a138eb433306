"""The store's schema versions: a store made by an older tomis is upgraded in place, after a
copy, and keeps working; a store newer than the program is refused in one line."""

from __future__ import annotations

import email
import email.policy
import shutil
import sqlite3

from referee_support import process, run
from conftest import ROOT

from tomis.referee import store

FIXTURES = ROOT / "tests" / "data" / "referee"
# store-v1.sqlite: made by tomis at 18dfde2 (schema 1): Ana and Bo, game 1 at action 3,
# Black to act, Ana's conditional line 'if G@g8 G@f2' stored, one forged message refused.
V1 = FIXTURES / "store-v1.sqlite"
# store-v2.sqlite: store-v1.sqlite opened by tomis at e497e79 (schema 2), which upgraded it.
V2 = FIXTURES / "store-v2.sqlite"
# store-v3.sqlite: store-v2.sqlite opened by tomis at c911951 (schema 3), then games 2
# (Cy Dobre - Ana Lungu, 30d+1d) and 3 (Bo Marin - Cy Dobre, aborted) added by that tomis.
# tests/test_referee_players.py reads its upgrade.


def _schema(path) -> str:
    with sqlite3.connect(path) as connection:
        return connection.execute("SELECT value FROM settings WHERE key = 'schema'").fetchone()[0]


def test_every_version_has_a_fixture_and_a_step():
    assert sorted(store.UPGRADES) == list(range(1, store.SCHEMA_VERSION))
    for version in range(1, store.SCHEMA_VERSION):
        assert (FIXTURES / f"store-v{version}.sqlite").is_file(), version


def test_a_version_1_store_is_upgraded_after_a_copy_and_plays_on(tmp_path):
    db = tmp_path / "referee.db"
    shutil.copy(V1, db)
    result = run("referee", "games", db, "--now", "2026-11-23T14:00Z")
    assert result.exit_code == 0, result.output
    assert "#1  Ana Lungu - Bo Marin  black to act" in result.stdout
    assert _schema(db) == str(store.SCHEMA_VERSION)
    backup = tmp_path / "referee.db.v1.bak"
    assert _schema(backup) == "1"
    assert backup.stat().st_mode & 0o777 == 0o600
    # The old store's game goes on: Bo's action fires Ana's stored line (G@g8 -> G@f2).
    out = tmp_path / "out"
    out.mkdir()
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE settings SET value = ? WHERE key = 'send_by'", (f"outbox:{out}",))
    reply_to = _reply_address(db, side=1)
    message = (f"From: Bo Marin <bo@b.test>\nTo: {reply_to}\nSubject: Re\n"
               f"Message-ID: <up-1@b.test>\n\nG@g8\n").encode()
    done = process("referee", "deliver", db, "--now", "2026-11-23T15:00Z", input=message)
    assert done.returncode == 0, done.stderr
    record = run("referee", "export", db, "1").stdout
    assert "G@g8" in record and "G@f2" in record


def test_a_version_2_store_is_upgraded_and_keeps_its_game(tmp_path):
    db = tmp_path / "referee.db"
    shutil.copy(V2, db)
    result = run("referee", "games", db, "--now", "2026-11-23T14:00Z")
    assert result.exit_code == 0, result.output
    assert "#1  Ana Lungu - Bo Marin  black to act" in result.stdout
    assert _schema(db) == str(store.SCHEMA_VERSION)
    assert _schema(tmp_path / "referee.db.v2.bak") == "2"


def _reply_address(db, side: int) -> str:
    """The reply address of ``side``'s seat, read from the last message that seat got."""
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT raw FROM outbox ORDER BY id").fetchall()
    wanted = ("ana@a.test", "bo@b.test")[side]
    for (raw,) in reversed(rows):
        message = email.message_from_bytes(raw, policy=email.policy.default)
        if wanted in str(message["To"]):
            return message["Reply-To"].addresses[0].addr_spec
    raise AssertionError("no message to that side")


def test_an_upgrade_is_done_once_and_the_backup_is_not_overwritten(tmp_path):
    db = tmp_path / "referee.db"
    shutil.copy(V1, db)
    assert run("referee", "games", db).exit_code == 0
    backup = tmp_path / "referee.db.v1.bak"
    before = backup.read_bytes()
    assert run("referee", "games", db).exit_code == 0
    assert backup.read_bytes() == before
    assert _schema(db) == str(store.SCHEMA_VERSION)


def test_a_store_newer_than_the_program_is_refused_in_one_line(tmp_path):
    db = tmp_path / "referee.db"
    shutil.copy(V1, db)
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE settings SET value = '99' WHERE key = 'schema'")
    before = _dump(db)
    result = process("referee", "games", db)
    assert result.returncode == 1
    lines = result.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and "version 99, newer than this tomis reads" in lines[0]
    assert _dump(db) == before
    assert not (tmp_path / "referee.db.v99.bak").exists()


def _dump(path) -> list[str]:
    with sqlite3.connect(path) as connection:
        return list(connection.iterdump())


def test_a_new_store_is_at_the_current_version_with_every_table(tmp_path):
    db = tmp_path / "referee.db"
    assert run("referee", "init", db, "--address", "ref@club.test",
               "--send-by", f"outbox:{tmp_path}").exit_code == 0
    assert _schema(db) == str(store.SCHEMA_VERSION)
    upgraded = tmp_path / "old.db"
    shutil.copy(V1, upgraded)
    assert run("referee", "games", upgraded).exit_code == 0

    def tables(path):
        with sqlite3.connect(path) as connection:
            return {name: [column[1] for column in connection.execute(f"PRAGMA table_info({name})")]
                    for (name,) in connection.execute(
                        "SELECT name FROM sqlite_master WHERE type = 'table'")}

    assert tables(db) == tables(upgraded)
