"""The referee's one store object (issue 39): its parts used directly, a connection
closed on every path, all SQL in the store module, and work done once per message (the
record replayed and written once, each outgoing message built and serialised once)."""

from __future__ import annotations

import ast
import email
import os
import sqlite3
from pathlib import Path

import pytest

from conftest import ROOT
from referee_support import ADDRESSES, Lab, run

from tomis.notation import record
from tomis.referee import process, sending, service
from tomis.referee.store import (Busy, Decision, FolderMark, GameChange, LeaveRow, LineRow,
                                 Store, StoreError)

NOW = 1_795_428_000          # 2026-11-23T10:00Z
STORE_MODULES = {"store.py"}


@pytest.fixture
def store(tmp_path):
    path = str(tmp_path / "referee.db")
    Store.create(path, {"address": "ref@club.test", "secret": "s", "send_by": "outbox:/x"})
    with Store.open(path) as opened:
        yield opened


# --------------------------------------------------------------------------- the parts

def test_the_inbox_stores_once_per_key_claims_without_bodies_and_decides(store):
    with store.transaction():
        first = store.inbox.add("mid:<a@x>", b"one", NOW, None, None)
        again = store.inbox.add("mid:<a@x>", b"one again", NOW, None, None)
        store.inbox.add("sha256:b", b"two", NOW + 1, "ref+t@club.test", "too large")
    assert again is None
    [waiting] = store.inbox.undecided()          # the refused one is not waiting
    assert (waiting.id, waiting.readings, waiting.reading_until) == (first, 0, None)
    assert not hasattr(waiting, "raw")
    with store.transaction():
        store.inbox.begin_reading(first, NOW + 60.0, 123)
    assert store.inbox.undecided()[0].readings == 1
    assert store.inbox.stored(first).raw == b"one"
    with store.transaction():
        store.inbox.decide(first, Decision("done", "action 1", 7))
    assert store.inbox.decision(first) == Decision("done", "action 1", 7)
    assert store.inbox.undecided() == []
    assert store.inbox.last_taken(7) == NOW
    assert [(row.raw, row.reason) for row in store.inbox.refused()] == [(b"two", "too large")]


def test_the_games_part_inserts_saves_and_keeps_generations(store):
    with store.transaction():
        number = store.games.insert((("Ana", "ana@a.test"), ("Bo", "bo@b.test")), "*\n", 20, NOW)
        store.games.save(number, GameChange("1. B@e1 *\n", False, "{}", 0,
                                            [LineRow(1, '["B@e8"]')],
                                            [LeaveRow(0, "2026-12-01", "2026-12-02")]))
        store.games.set_generation(number, 1, 3)
        store.games.set_player(number, 0, "Ana L", "ana@new.test")
    row = store.games.row(number)
    assert (row.record, row.white_address, row.black_key, row.created) == (
        "1. B@e1 *\n", "ana@new.test", 3, NOW)
    assert store.games.lines(number) == [LineRow(1, '["B@e8"]')]
    assert store.games.generation(number, 1) == 3 and store.games.generation(99, 1) is None
    assert store.games.numbers(in_play=True) == [number]
    assert store.games.row(99) is None


def test_the_outbox_queues_claims_marks_and_finds_a_seats_newest(store):
    with store.transaction():
        one = store.outbox.add(1, 0, NOW, "ref@club.test", "ana@a.test", b"first")
        two = store.outbox.add(1, 0, NOW, "ref@club.test", "ana@a.test", b"second")
    assert [due.id for due in store.outbox.due(0, NOW, retry=False)] == [one, two]
    with store.transaction():
        claimed = store.outbox.claim(one, NOW + 300.0, os.getpid())
        store.outbox.mark_sent(one, NOW, NOW + 1.0)
        store.outbox.mark_unsent(two, NOW, 1, "421 busy", "421 busy", None)
    assert claimed.raw == b"first"
    assert store.outbox.due(0, NOW, retry=True) == []       # one sent, two given up
    [failed] = store.outbox.unsent(failed_only=True)
    assert (failed.id, failed.failed_at, failed.error) == (two, NOW, "421 busy")
    assert [attempt.error for attempt in store.outbox.attempts(two)] == ["421 busy"]
    assert store.outbox.newest(1, 0) == b"second" and store.outbox.newest(1, 1) is None


def test_the_rate_limits_and_folders_parts(store):
    with store.transaction():
        store.replies.add("ana@a.test", NOW)
        store.relayed.add("ana@a.test", NOW)
        store.relayed.add("ana@a.test", NOW, notice=True)
        store.folders.remember("imaps://h/INBOX", FolderMark(5, 40))
    assert store.replies.count_since("ana@a.test", NOW - 1) == 1
    counts = store.relayed.counts_between("ana@a.test", NOW - 1, NOW)
    assert (counts.relayed, counts.told) == (1, 1)
    # a message decided late is counted in its own window, not with later ones
    earlier = store.relayed.counts_between("ana@a.test", NOW - 100, NOW - 1)
    assert (earlier.relayed, earlier.told) == (0, 0)
    with store.transaction():
        store.replies.forget_until(NOW)
        store.relayed.forget_until(NOW)
    assert store.replies.count_since("ana@a.test", 0) == 0
    assert store.folders.mark("imaps://h/INBOX") == FolderMark(5, 40)
    assert store.folders.mark("imaps://h/Other") is None


def test_a_failed_transaction_rolls_back_and_leaves_no_lock(store, tmp_path):
    with pytest.raises(ValueError):
        with store.transaction():
            store.replies.add("ana@a.test", NOW)
            raise ValueError("a bug")
    assert store.replies.count_since("ana@a.test", 0) == 0
    other = sqlite3.connect(store.path, timeout=0)
    other.execute("BEGIN IMMEDIATE")            # nothing holds the write lock
    other.execute("ROLLBACK")
    other.close()


def test_a_store_locked_by_another_is_busy_in_one_error(store):
    holder = sqlite3.connect(store.path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with Store.open(store.path, timeout_ms=50) as waiting:
            with pytest.raises(Busy):
                with waiting.transaction():
                    pass
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts /proc/self/fd")
def test_opening_and_failing_200_times_leaves_no_descriptor_open(store, tmp_path):
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all, " * 100)
    newer = tmp_path / "newer.db"
    Store.create(str(newer), {})
    with sqlite3.connect(newer) as connection:
        connection.execute("UPDATE settings SET value = '99' WHERE key = 'schema'")
    connection.close()

    def fail_three_ways():
        with pytest.raises(StoreError):
            Store.open(str(junk))
        with pytest.raises(StoreError, match="newer than this"):
            Store.open(str(newer))
        with pytest.raises(ZeroDivisionError):
            with Store.open(store.path) as opened, opened.transaction():
                opened.replies.add("x@y.test", NOW)
                raise ZeroDivisionError

    fail_three_ways()               # SQLite's own files of the fixture's store, opened once
    before = _open_descriptors()
    for _ in range(200):
        fail_three_ways()
    assert _open_descriptors() <= before


# --------------------------------------------------------------------------- SQL in one place

def _sql_calls(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [f"{path.name}:{node.lineno}" for node in ast.walk(tree)
            if isinstance(node, ast.Attribute)
            and node.attr in ("execute", "executemany", "executescript")]


def test_no_referee_module_but_the_store_runs_sql():
    folder = ROOT / "tomis" / "referee"
    found = [call for path in sorted(folder.glob("*.py")) if path.name not in STORE_MODULES
             for call in _sql_calls(path)]
    assert found == []
    assert _sql_calls(folder / "store.py")          # the test sees SQL where it is


def test_no_referee_function_outside_the_store_takes_a_raw_connection():
    folder = ROOT / "tomis" / "referee"
    found = []
    for path in sorted(folder.glob("*.py")):
        if path.name in STORE_MODULES:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names = [arg.arg for arg in node.args.args + node.args.kwonlyargs]
                found += [f"{path.name}:{node.name}" for name in names if name == "connection"]
    assert found == []


# --------------------------------------------------------------------------- work done once

class Counter:
    """Wraps ``function``, counting its calls."""

    def __init__(self, function):
        self.function = function
        self.calls = 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.function(*args, **kwargs)


def _deliver_in_process(lab: Lab, raw: bytes, now: int) -> None:
    store, config = service.connect(str(lab.db))
    with store:
        service.store_message(store, raw, False, None, now)
        service.after_storing(store, config, now)


def test_a_move_through_deliver_replays_its_record_once_and_writes_it_once(tmp_path,
                                                                           monkeypatch):
    lab = Lab(tmp_path)
    lab.new_messages()
    raw = lab.reply(0, "B@e1")
    reads, writes = Counter(record.read_game), Counter(record.write)
    monkeypatch.setattr(record, "read_game", reads)
    monkeypatch.setattr(record, "write", writes)
    _deliver_in_process(lab, raw, NOW + 3600)
    assert lab.inbox() == [("done", "action 1 (B@e1)")]
    assert (reads.calls, writes.calls) == (1, 1)
    # Written once, the same text went to the store and to both players.
    sent = lab.new_messages()
    assert len(sent) == 2
    attached = [part.get_content() for message in sent for part in message.iter_attachments()
                if (part.get_filename() or "").endswith(".tgn")]
    assert [text.replace("\r\n", "\n") for text in attached] == [lab.record()] * 2


def test_an_outgoing_message_is_sent_as_stored_without_parsing_it_again(tmp_path, monkeypatch):
    lab = Lab(tmp_path)
    lab.new_messages()
    raw = lab.reply(0, "B@e1")
    parses = Counter(email.message_from_bytes)
    monkeypatch.setattr(email, "message_from_bytes", parses)
    store, config = service.connect(str(lab.db))
    with store:
        service.store_message(store, raw, False, None, NOW + 3600)
        process.process_pending(store, config)
        monkeypatch.setattr(email, "message_from_bytes", parses)
        parses.calls = 0
        unsent = sending.send_queued(store, config.settings, now=NOW + 3600, retry=False)
    assert unsent == [] and parses.calls == 0
    stored = lab.query("SELECT raw FROM outbox ORDER BY id DESC LIMIT 2")
    files = sorted(lab.out.glob("*.eml"))[-2:]
    assert sorted(path.read_bytes() for path in files) == sorted(row[0] for row in stored)


def test_a_message_whose_to_is_not_the_seats_player_is_never_queued(tmp_path):
    """The sender's checks moved to the composed message: a foreign recipient stops it
    before it is stored."""
    from tomis.errors import MailError
    from tomis.outgoing.headers import POLICY

    message = email.message.EmailMessage(policy=POLICY)
    message["From"] = "Ref <ref+t@club.test>"
    message["To"] = ADDRESSES[1]
    message.set_content("hello")
    with pytest.raises(MailError, match="not to ana@a.test"):
        sending.check_envelope(message, "ref@club.test", ADDRESSES[0])
    message["Bcc"] = "eve@e.test"
    with pytest.raises(MailError, match="Bcc"):
        sending.check_envelope(message, "ref@club.test", ADDRESSES[1])


def test_claiming_an_outgoing_message_reads_no_other_body(tmp_path):
    lab = Lab(tmp_path)
    with sqlite3.connect(lab.db) as connection:             # three messages wait
        connection.execute("UPDATE outbox SET sent_at = NULL, attempts = 0")
        connection.execute("INSERT INTO outbox (game, side, queued_at, envelope_from, "
                           "envelope_to, raw) SELECT game, side, queued_at, envelope_from, "
                           "envelope_to, raw FROM outbox WHERE id = 1")
    connection.close()
    statements = []
    connection = sqlite3.connect(lab.db, isolation_level=None)
    connection.set_trace_callback(statements.append)
    asked = []

    def stop():                                  # one message, then stop
        asked.append(1)
        return len(asked) > 1

    with Store(connection, str(lab.db)) as store:
        sending.send_queued(store, store.settings(), now=NOW, retry=False, stop=stop)
    bodies = [sql for sql in statements if "raw" in sql and sql.lstrip().startswith("SELECT")]
    assert len(bodies) == 1 and "WHERE id = 1" in bodies[0]


def test_every_command_closes_the_store_after_an_error(tmp_path):
    lab = Lab(tmp_path)
    assert run("referee", "show", lab.db, "99").exit_code != 0
    before = _open_descriptors()
    for _ in range(50):
        assert run("referee", "show", lab.db, "99").exit_code != 0
        assert run("referee", "adjudicate", lab.db, "99", "1-0", "--reason", "x").exit_code != 0
    assert _open_descriptors() <= before
