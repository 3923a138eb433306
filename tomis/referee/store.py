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
- ``replies``: when each address last got an explanation, to limit them;
- ``relayed``: when each player's chat was last passed on, to limit it;
- ``attempts``: every try at sending an outbox message, with the server's answer;
- ``imap_folders``: each IMAP folder's ``UIDVALIDITY`` and the last UID taken.

The schema has a version (:data:`SCHEMA_VERSION`, kept in ``settings``). Opening an older
store upgrades it in place, one step per version (:data:`UPGRADES`), after copying it to
``DB.vN.bak``; a store newer than the program is refused. A later change to the tables adds
a step there and raises the version; tests/data/referee/ keeps a store of each version.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3

from ..errors import FileError

SCHEMA_VERSION = 2
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

# Each step takes a store of version N (the key) to N + 1, inside one transaction.
UPGRADES: dict[int, str] = {
    1: """
-- The outbox row says whom it is for (the seat's side; NULL for none), when it may be
-- tried again, and when it was given up; each try is kept in ``attempts``.
ALTER TABLE outbox ADD COLUMN side INTEGER;
ALTER TABLE outbox ADD COLUMN next_try REAL;
ALTER TABLE outbox ADD COLUMN failed_at REAL;
-- Rows queued before: the seat is the one whose address the message went to.
UPDATE outbox SET side = 0 WHERE side IS NULL
    AND envelope_to = (SELECT white_address FROM games WHERE games.id = outbox.game);
UPDATE outbox SET side = 1 WHERE side IS NULL
    AND envelope_to = (SELECT black_address FROM games WHERE games.id = outbox.game);
CREATE TABLE attempts (
    id INTEGER PRIMARY KEY,
    message INTEGER NOT NULL,
    at REAL NOT NULL,
    error TEXT
);
CREATE INDEX attempts_by_message ON attempts (message, id);
-- How often reading a stored message was begun: one whose reading was cut off twice is
-- refused at the third start instead of blocking the queue for ever.
ALTER TABLE inbox ADD COLUMN readings INTEGER NOT NULL DEFAULT 0;
-- Which process reads it now, and until when: another process leaves it to that one
-- while it lives; a killed one's claim lapses at once.
ALTER TABLE inbox ADD COLUMN reading_until REAL;
ALTER TABLE inbox ADD COLUMN reading_by INTEGER;
-- A seat's token generation: raised when the organiser changes the seat's address, so the
-- old reply address stops working.
ALTER TABLE games ADD COLUMN white_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN black_key INTEGER NOT NULL DEFAULT 0;
-- When each player's chat was passed on, to limit it; a row with notice = 1 records
-- that the player was told their chat is being dropped (once a window).
CREATE TABLE relayed (address TEXT NOT NULL, at INTEGER NOT NULL,
    notice INTEGER NOT NULL DEFAULT 0);
CREATE INDEX relayed_by_address ON relayed (address, at);
CREATE TABLE IF NOT EXISTS imap_folders (place TEXT PRIMARY KEY,
    uidvalidity INTEGER NOT NULL, last_uid INTEGER NOT NULL);
""",
}


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
        script = _SCHEMA + "".join(UPGRADES[version] for version in sorted(UPGRADES))
        connection.executescript("BEGIN IMMEDIATE;" + script + "COMMIT;")
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
        # fetchall: a statement left open would lock the tables against an upgrade.
        rows = connection.execute("SELECT value FROM settings WHERE key = 'schema'").fetchall()
    except sqlite3.OperationalError as error:
        if _is_busy(error):
            raise Busy(f"the store {path} is busy: {error}") from None
        raise StoreError(f"{path} is not a referee store ({error})") from None
    except sqlite3.DatabaseError as error:
        raise StoreError(f"{path} is not a referee store ({error})") from None
    number = _version(rows[0] if rows else None)
    if number is None:
        connection.close()
        raise StoreError(f"{path} is not a referee store (no schema version)")
    if number > SCHEMA_VERSION:
        connection.close()
        raise StoreError(f"{path} is a referee store of version {number}, newer than this "
                         f"tomis reads ({SCHEMA_VERSION}): upgrade tomis")
    if number < SCHEMA_VERSION:
        try:
            upgrade(connection, path, number)
        except BaseException:
            connection.close()
            raise
    return connection


def _version(row) -> int | None:
    try:
        return int(row[0]) if row is not None else None
    except ValueError:
        return None


def upgrade(connection: sqlite3.Connection, path: str, number: int) -> None:
    """Take the store at ``path`` from version ``number`` to :data:`SCHEMA_VERSION`, one
    step at a time, each in its own transaction, after a copy of the old file at
    ``PATH.vN.bak`` (kept: the organiser removes it once the new version is trusted)."""
    backup = f"{path}.v{number}.bak"
    if not os.path.exists(backup):
        _copy(connection, path, backup)
    while number < SCHEMA_VERSION:
        with transaction(connection):
            ((current,),) = connection.execute(
                "SELECT value FROM settings WHERE key = 'schema'").fetchall()
            if int(current) == number:          # another process may have upgraded it
                for statement in _statements(UPGRADES[number]):
                    connection.execute(statement)
                connection.execute("UPDATE settings SET value = ? WHERE key = 'schema'",
                                   (str(number + 1),))
        number += 1


def _copy(connection: sqlite3.Connection, path: str, backup: str) -> None:
    """The whole store, WAL included, copied to ``backup`` (0600) by SQLite's own backup,
    which reads one consistent state whatever other processes do meanwhile."""
    try:
        fd = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.close(fd)
        target = sqlite3.connect(backup)
        try:
            connection.backup(target)
        finally:
            target.close()
    except (OSError, sqlite3.Error) as error:
        with contextlib.suppress(OSError):
            os.remove(backup)
        reason = getattr(error, "strerror", None) or str(error)
        raise StoreError(f"cannot copy {path} to {backup} before upgrading it: {reason}") from None


def _statements(script: str) -> list[str]:
    """The statements of an upgrade step, one by one: ``executescript`` would commit the
    transaction the step runs in."""
    lines = [line for line in script.splitlines() if not line.lstrip().startswith("--")]
    return [part.strip() for part in "\n".join(lines).split(";") if part.strip()]


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
