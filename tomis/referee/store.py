"""The referee's store: one SQLite file in WAL mode, every change in ``BEGIN IMMEDIATE``.

Tables (the queue of docs/REFEREE.md):

- ``settings``: the referee's address, name, how it sends, the mail settings file, the
  token secret;
- ``games``: players, the public record (stamps and draw offers, never conditional
  lines), the thread, the reminder already sent;
- ``inbox``: every raw message as received, with the time it was stored (the referee's
  clock), its de-duplication key and what became of it;
- ``outbox``: every message to send, queued in the transaction that caused it;
- ``lines``: the private conditional lines;
- ``leaves``: a copy of the leave periods the record holds, by side (the record is the
  source: :meth:`tomis.referee.games.Game.save` rewrites them);
- ``replies``: when each address last got an explanation, to limit them.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3

from ..errors import FileError

SCHEMA_VERSION = 1
BUSY_TIMEOUT_MS = 20_000      # how long a writer waits for another before giving up (exit 75)
WAIT_ENV = "TOMIS_REFEREE_WAIT"   # seconds, to change that wait (a slow disk, or a test)

_SCHEMA = """
CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    white_name TEXT NOT NULL, white_address TEXT NOT NULL,
    black_name TEXT NOT NULL, black_address TEXT NOT NULL,
    record TEXT NOT NULL,
    over INTEGER NOT NULL DEFAULT 0,
    leave_days INTEGER NOT NULL,
    created INTEGER NOT NULL,
    thread TEXT NOT NULL DEFAULT '[]',
    reminded_ply INTEGER NOT NULL DEFAULT -1
);
CREATE TABLE inbox (
    id INTEGER PRIMARY KEY,
    dedupe_key TEXT NOT NULL UNIQUE,
    stored_at INTEGER NOT NULL,
    recipient TEXT,
    raw BLOB NOT NULL,
    size INTEGER NOT NULL,
    state TEXT NOT NULL DEFAULT 'new' CHECK (state IN ('new', 'done', 'rejected')),
    reason TEXT,
    game INTEGER
);
CREATE INDEX inbox_new ON inbox (state, id);
CREATE TABLE outbox (
    id INTEGER PRIMARY KEY,
    game INTEGER,
    queued_at INTEGER NOT NULL,
    envelope_from TEXT NOT NULL,
    envelope_to TEXT NOT NULL,
    raw BLOB NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    claimed_until REAL,
    claimed_by INTEGER,
    sent_at REAL,
    error TEXT
);
CREATE INDEX outbox_unsent ON outbox (sent_at, id);
CREATE TABLE lines (
    id INTEGER PRIMARY KEY,
    game INTEGER NOT NULL,
    side INTEGER NOT NULL,
    actions TEXT NOT NULL
);
CREATE TABLE leaves (
    id INTEGER PRIMARY KEY,
    game INTEGER NOT NULL,
    side INTEGER NOT NULL,
    first_day TEXT NOT NULL,
    last_day TEXT NOT NULL
);
CREATE TABLE replies (address TEXT NOT NULL, at INTEGER NOT NULL);
CREATE INDEX replies_by_address ON replies (address, at);
"""


class StoreError(FileError):
    """The store cannot be created, opened or written."""


class Busy(StoreError):
    """Another process held the store longer than :data:`BUSY_TIMEOUT_MS`, or the disk is
    full: the message was not stored, and the mail server should try again later."""


def _connect(path: str, timeout_ms: int) -> sqlite3.Connection:
    # isolation_level=None: no implicit transactions; each change says BEGIN IMMEDIATE.
    connection = sqlite3.connect(path, timeout=timeout_ms / 1000, isolation_level=None)
    connection.execute(f"PRAGMA busy_timeout = {int(timeout_ms)}")
    connection.execute("PRAGMA foreign_keys = ON")
    return connection


def create(path: str, settings: dict[str, str]) -> None:
    """A new store at ``path`` (refusing an existing file) holding ``settings``."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise StoreError(f"{path} already exists; the referee never overwrites a store") from None
    except OSError as error:
        raise StoreError(f"cannot create {path}: {error.strerror}") from None
    os.close(fd)
    try:
        connection = _connect(path, BUSY_TIMEOUT_MS)
        connection.execute("PRAGMA journal_mode = WAL")
        connection.executescript("BEGIN IMMEDIATE;" + _SCHEMA + "COMMIT;")
        with transaction(connection):
            rows = [("schema", str(SCHEMA_VERSION)), *settings.items()]
            connection.executemany("INSERT INTO settings VALUES (?, ?)", rows)
        connection.close()
    except sqlite3.Error as error:
        with contextlib.suppress(OSError):
            os.remove(path)
        raise StoreError(f"cannot create the store {path}: {error}") from None


def wait_ms() -> int:
    """The lock wait: :data:`WAIT_ENV` seconds when set to a number, else the default."""
    text = os.environ.get(WAIT_ENV, "")
    try:
        return max(0, min(int(float(text) * 1000), 600_000)) if text else BUSY_TIMEOUT_MS
    except ValueError:
        return BUSY_TIMEOUT_MS


def open_store(path: str, timeout_ms: int | None = None) -> sqlite3.Connection:
    """An open store; a missing file or one that is no referee store is a StoreError."""
    timeout_ms = wait_ms() if timeout_ms is None else timeout_ms
    if not os.path.isfile(path):
        raise StoreError(f"{path}: no such store (create one with tomis referee init)")
    try:
        connection = _connect(path, timeout_ms)
        version = connection.execute(
            "SELECT value FROM settings WHERE key = 'schema'").fetchone()
    except sqlite3.OperationalError as error:
        if _is_busy(error):
            raise Busy(f"the store {path} is busy: {error}") from None
        raise StoreError(f"{path} is not a referee store ({error})") from None
    except sqlite3.DatabaseError as error:
        raise StoreError(f"{path} is not a referee store ({error})") from None
    if version is None or version[0] != str(SCHEMA_VERSION):
        raise StoreError(f"{path} is a referee store of another version")
    return connection


def _is_busy(error: sqlite3.Error) -> bool:
    text = str(error).lower()
    return "locked" in text or "busy" in text or "full" in text


@contextlib.contextmanager
def transaction(connection: sqlite3.Connection):
    """``BEGIN IMMEDIATE`` ... ``COMMIT``, rolled back on any exception.

    IMMEDIATE takes the write lock at the start, so two processes never both decide
    from the same state: the second waits (up to the busy timeout) and then sees the
    first one's result. A lock not had in time, or a full disk, raises :class:`Busy`.
    """
    try:
        connection.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as error:
        raise Busy(f"the store is busy: {error}") from None
    try:
        yield connection
        connection.execute("COMMIT")
    except BaseException as error:
        with contextlib.suppress(sqlite3.Error):
            connection.execute("ROLLBACK")
        if isinstance(error, sqlite3.OperationalError) and _is_busy(error):
            raise Busy(f"the store could not be written: {error}") from None
        raise


def settings(connection: sqlite3.Connection) -> dict[str, str]:
    return dict(connection.execute("SELECT key, value FROM settings"))
