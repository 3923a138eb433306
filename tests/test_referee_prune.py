"""The store keeps what it must and no more: prune drops old bodies but never what
de-duplication, ``resend`` and ``rejected`` need; tick prunes once a day; the space comes
back by incremental vacuum; and tick and page cost the same whatever the club's size
(tick reads only the games with something due, page only the games changed)."""

from __future__ import annotations

import re
import shutil
import sqlite3
from dataclasses import dataclass

import pytest

from conftest import ROOT
from referee_support import BO, Lab, reply_to, run

from tomis.archive.stats import Stats, StatsProbe
from tomis.notation.clock import parse_stamp
from tomis.pictures import html
from tomis.referee import pages, service
from tomis.referee.games import RefereedGame
from tomis.referee.organiser import summarise
from tomis.referee.store import Store

LONG_AFTER = "2027-01-10T00:00Z"          # more than 30 days after the lab's messages


def _ok(*args):
    result = run(*args)
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture
def lab(tmp_path):
    """One game at action 2, and one message refused (an action no one can play)."""
    lab = Lab(tmp_path)
    lab.first = lab.reply(0, "B@e1")
    lab.deliver(lab.first, "2026-11-23T11:00Z")
    lab.deliver(lab.reply(1, "B@d8"), "2026-11-23T12:00Z")
    lab.deliver(lab.reply(0, "B@e9"), "2026-11-23T13:00Z")
    return lab


def _bodies(lab, table: str) -> int:
    return lab.query(f"SELECT COUNT(*) FROM {table} WHERE length(raw) > 0")[0][0]


def test_prune_keeps_what_de_duplication_resend_and_rejected_need(lab):
    refused = _ok("referee", "rejected", lab.db).stdout
    newest = {side: lab.last_to(side).as_bytes() for side in (0, 1)}
    outgoing = lab.query("SELECT COUNT(*) FROM outbox")[0][0]
    assert outgoing > 2 and _bodies(lab, "inbox") == 3

    said = _ok("referee", "prune", lab.db, "--now", LONG_AFTER)
    assert "pruned 3 message(s) in, " in said.stderr
    # A taken body is gone; a refused one keeps only the headers rejected shows.
    assert lab.query("SELECT length(raw) FROM inbox WHERE state = 'done'") == [(0,), (0,)]
    (head,) = lab.query("SELECT raw FROM inbox WHERE state = 'rejected'")[0]
    assert head.startswith(b"From: Ana Lungu") and b"B@e9" not in head
    assert _bodies(lab, "outbox") == 2        # the newest message of each seat
    assert _ok("referee", "rejected", lab.db).stdout == refused

    lab.deliver(lab.first, LONG_AFTER)        # the same message again: still a duplicate
    assert lab.query("SELECT COUNT(*) FROM inbox")[0][0] == 3
    lab.new_messages()
    _ok("referee", "resend", lab.db, lab.game, "--now", LONG_AFTER)
    assert sorted(m.as_bytes() for m in lab.new_messages()) == sorted(newest.values())


def test_prune_keeps_the_last_days_and_refuses_a_bad_count(lab):
    said = _ok("referee", "prune", lab.db, "--now", LONG_AFTER, "--keep-days", "60")
    assert "pruned 0 message(s) in, 0 out" in said.stderr
    assert _bodies(lab, "inbox") == 3
    bad = run("referee", "prune", lab.db, "--keep-days", "-1")
    assert bad.exit_code == 2 and "Traceback" not in bad.output


def _last_prune(lab) -> str | None:
    rows = lab.query("SELECT value FROM settings WHERE key = 'last_prune'")
    return rows[0][0] if rows else None


def test_tick_prunes_once_a_day(lab):
    _ok("referee", "tick", lab.db, "--now", LONG_AFTER)
    first = _last_prune(lab)
    assert first == str(parse_stamp(LONG_AFTER)) and _bodies(lab, "inbox") == 1
    _ok("referee", "tick", lab.db, "--now", "2027-01-10T23:00Z")
    assert _last_prune(lab) == first
    _ok("referee", "tick", lab.db, "--now", "2027-01-11T00:00Z")
    assert _last_prune(lab) == str(parse_stamp("2027-01-11T00:00Z"))


def test_incremental_vacuum_gives_the_space_back(tmp_path):
    db = str(tmp_path / "referee.db")
    service.init(db, "ref@club.test", None, "outbox:" + str(tmp_path), None)
    with Store.open(db) as store:
        with store.transaction():
            for number in range(200):
                store.inbox.add(f"sha256:{number}", b"Subject: x\n\n" + b"y" * 20_000, 0,
                                None, "refused")
        before = store.size()
    report = service.prune(db, parse_stamp(LONG_AFTER))
    assert report.inbox == 200 and report.freed > 700
    with sqlite3.connect(db) as connection:
        assert connection.execute("PRAGMA auto_vacuum").fetchone() == (2,)
        assert connection.execute("PRAGMA freelist_count").fetchone() == (0,)
        pages_now = connection.execute("PRAGMA page_count").fetchone()[0]
    # What stays: the rows, on the leaf pages they had (SQLite does not merge them).
    assert pages_now * 4096 < before / 4


def test_an_upgraded_store_is_switched_to_incremental_vacuum(tmp_path):
    db = tmp_path / "referee.db"
    shutil.copy(ROOT / "tests" / "data" / "referee" / "store-v1.sqlite", db)
    with sqlite3.connect(db) as connection:
        assert connection.execute("PRAGMA auto_vacuum").fetchone() == (0,)
    Store.open(str(db)).close()
    with sqlite3.connect(db) as connection:
        assert connection.execute("PRAGMA auto_vacuum").fetchone() == (2,)
    _ok("referee", "prune", db, "--now", LONG_AFTER)


# --------------------------------------------------------------------------- flat cost

@pytest.fixture
def loads(monkeypatch):
    """How many games were read from the store (their records replayed)."""
    counted = []
    original = RefereedGame.load.__func__

    def load(cls, store, number):
        counted.append(number)
        return original(cls, store, number)

    monkeypatch.setattr(RefereedGame, "load", classmethod(load))
    return counted


def test_tick_with_nothing_due_reads_no_game(lab, loads):
    # White has 30d + 3d from 12:00 on the 23rd: half is used on 10 December.
    report = service.tick(str(lab.db), parse_stamp("2026-11-24T12:00Z"))
    assert loads == [] and report.reminders == 0
    report = service.tick(str(lab.db), parse_stamp("2026-12-10T12:00Z"))
    assert loads == [lab.game] and report.reminders == 1
    loads.clear()
    report = service.tick(str(lab.db), parse_stamp("2026-12-10T13:00Z"))
    assert loads == [] and report.reminders == 0


@pytest.fixture
def statements(monkeypatch):
    """Every statement the store's connections run, with its values, as SQLite traces it."""
    seen: list[str] = []
    connect = sqlite3.connect

    def traced(*args, **kwargs):
        connection = connect(*args, **kwargs)
        connection.set_trace_callback(seen.append)
        return connection

    monkeypatch.setattr(sqlite3, "connect", traced)
    return seen


# A whole table of the queue read: the cost would grow with the club.
FULL_SCAN = re.compile(r"^SCAN (inbox|outbox|games|attempts)\b")


def full_scans(db, seen: list[str]) -> list[tuple[str, str]]:
    """The statements of ``seen`` whose query plan reads a whole table of the queue."""
    with sqlite3.connect(db) as connection:
        connection.set_trace_callback(None)
        return [(sql, detail) for sql in seen
                if re.match(r"\s*(SELECT|UPDATE|DELETE|INSERT|WITH)\b", sql, re.IGNORECASE)
                for *_ids, detail in connection.execute(f"EXPLAIN QUERY PLAN {sql}")
                if FULL_SCAN.match(detail)]


def test_tick_with_nothing_due_reads_every_table_by_an_index(lab, statements):
    service.tick(str(lab.db), parse_stamp("2026-11-24T12:00Z"))      # today's prune done
    statements.clear()
    service.tick(str(lab.db), parse_stamp("2026-11-24T13:00Z"))
    assert any("FROM outbox" in sql for sql in statements)          # what it asked is traced
    assert any("FROM inbox" in sql for sql in statements)
    assert full_scans(lab.db, statements) == []


def test_page_after_one_action_reads_every_table_by_an_index(lab, statements, tmp_path):
    folder = tmp_path / "pages"
    _ok("referee", "page", lab.db, "-o", folder, "--now", "2026-11-23T13:00Z")
    lab.deliver(lab.reply(0, "G@b1"), "2026-11-23T14:00Z")
    statements.clear()
    _ok("referee", "page", lab.db, "-o", folder, "--now", "2026-11-23T15:00Z")
    assert any("FROM games" in sql for sql in statements)
    assert full_scans(lab.db, statements) == []


def test_an_old_stores_games_are_read_by_one_tick_then_only_when_due(lab, loads):
    lab.query("UPDATE games SET next_due = 0")       # as the upgrade leaves games in play
    service.tick(str(lab.db), parse_stamp("2026-11-24T12:00Z"))
    assert loads == [lab.game]
    loads.clear()
    service.tick(str(lab.db), parse_stamp("2026-11-24T13:00Z"))
    assert loads == []


def _drawn(monkeypatch) -> list[str]:
    names = []
    original = html.page

    def page(record, name):
        names.append(name)
        return original(record, name=name)

    monkeypatch.setattr(html, "page", page)
    return names


def test_page_after_one_change_draws_only_that_game_its_players_and_the_index(lab, tmp_path, monkeypatch):
    second = int(_ok("referee", "new", lab.db, "--white", BO, "--black", "Cy <cy@c.test>",
                     "--now", "2026-11-23T10:00Z").stdout)
    folder = tmp_path / "pages"
    drawn = _drawn(monkeypatch)
    rows = []
    original_row = pages.playing_row
    monkeypatch.setattr(pages, "playing_row",
                        lambda number, saved: rows.append(number) or original_row(number, saved))
    first = pages.write(str(lab.db), str(folder), parse_stamp("2026-11-24T10:00Z"))
    assert len(first) == 8 and sorted(drawn) == ["tomis-1.tgn", f"tomis-{second}.tgn"]
    assert rows == [1, second]
    drawn.clear()
    rows.clear()
    lab.deliver(lab.reply(0, "G@b1"), "2026-11-24T11:00Z")   # game 1 only
    written = pages.write(str(lab.db), str(folder), parse_stamp("2026-11-24T12:00Z"))
    assert drawn == ["tomis-1.tgn"] and rows == [1]          # the other row as kept
    # and the pages of game 1's players (Ana and Bo), not Cy's
    assert sorted(p.rsplit("/", 1)[1] for p in written) == ["game-1.html", "index.html",
                                                           "player-1.html", "player-2.html"]
    drawn.clear()
    (folder / "index.html").unlink()            # an emptied folder is written whole again
    pages.write(str(lab.db), str(folder), parse_stamp("2026-11-24T12:00Z"))
    assert sorted(drawn) == ["tomis-1.tgn", f"tomis-{second}.tgn"]


@dataclass(frozen=True)
class _Checked:
    game: object
    error: None = None


def _site_from_records(db, now: int) -> dict[str, str]:
    """The index, finished games and standings drawn whole from every record replayed."""
    with Store.open(db) as store:
        saved = {number: RefereedGame.load(store, number).saved_summary()
                 for number in store.games.numbers(in_play=False)}
    return pages.site(saved, now)


@pytest.mark.parametrize("saved_by_an_older_program", [False, True])
def test_the_index_from_saved_summaries_is_the_one_from_the_records(
        lab, tmp_path, saved_by_an_older_program):
    lab.deliver(reply_to(lab.last_to(1), BO, "resign"), "2026-11-24T11:00Z")
    _ok("referee", "new", lab.db, "--white", BO, "--black", "Cy <cy@c.test>",
        "--time-control", "3d", "--now", "2026-11-23T10:00Z")
    _ok("referee", "new", lab.db, "--white", "Cy <cy@c.test>", "--black", BO,
        "--now", "2026-11-23T10:00Z")
    if saved_by_an_older_program:
        lab.query("UPDATE games SET summary = NULL")
    now = parse_stamp("2026-11-30T10:00Z")
    pages.write(str(lab.db), str(tmp_path / "pages"), now)
    drawn = _site_from_records(str(lab.db), now)
    assert sorted(drawn) == ["finished.html", "index.html", "standings.html"]
    for name, text in drawn.items():
        assert (tmp_path / "pages" / name).read_text(encoding="utf-8") == text, name
