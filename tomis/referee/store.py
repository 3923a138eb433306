"""The referee's store: one SQLite file in WAL mode, every change in ``BEGIN IMMEDIATE``,
behind one object, :class:`Store`, with a part per stage of the queue. All of the
referee's SQL is in this module; the other modules take the :class:`Store`.

Tables (the queue of docs/REFEREE.md):

- ``settings``: the referee's address, name, how it sends, the mail settings file, the
  token secret;
- ``games``: players, the public record (stamps and draw offers, never conditional
  lines), the thread, the reminder already sent;
- ``inbox``: every raw message as received, with the time it was stored (the referee's
  clock), the time the mail system received it and the time its actions were stamped
  with (:mod:`.stamps`), its de-duplication key, what became of it, and whether it came
  after its player's deadline;
- ``outbox``: every message to send, queued in the transaction that caused it;
- ``lines``: the private conditional lines;
- ``leaves``: a copy of the leave periods the record holds, by side (the record is the
  source: :meth:`tomis.referee.games.RefereedGame.save` rewrites them);
- ``replies``: when each address last got an explanation, to limit them;
- ``relayed``: when each player's chat was last passed on, to limit it;
- ``attempts``: every try at sending an outbox message, with the server's answer;
- ``imap_folders``: each IMAP folder's ``UIDVALIDITY`` and the last UID taken;
- ``published``: for each folder of status pages, the last change written there;
- ``page_parts``: parts of the status pages kept between runs of page, with the state
  of the games they were drawn from.

The schema has a version (:data:`SCHEMA_VERSION`, kept in ``settings``). Opening an older
store upgrades it in place, one step per version (:data:`UPGRADES`), after copying it to
``DB.vN.bak``; a store newer than the program is refused. A later change to the tables adds
a step there and raises the version; tests/data/referee/ keeps a store of each version.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from dataclasses import dataclass

from ..errors import FileError

SCHEMA_VERSION = 3
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
-- What tick and page need without replaying every record, saved with the game: when tick
-- next has something to do for it (NULL: nothing, e.g. no clocks or the game is over),
-- what the status index shows of it (JSON), and a number raised by every save, so that
-- page rewrites only the games changed since it last wrote a folder (``published``).
ALTER TABLE games ADD COLUMN next_due INTEGER;
ALTER TABLE games ADD COLUMN summary TEXT;
ALTER TABLE games ADD COLUMN changed INTEGER NOT NULL DEFAULT 0;
-- A store from before: the next tick looks at every game in play once and sets its time.
UPDATE games SET next_due = 0 WHERE over = 0;
CREATE INDEX games_due ON games (next_due) WHERE next_due IS NOT NULL;
CREATE INDEX games_changed ON games (changed);
CREATE TABLE published (folder TEXT PRIMARY KEY, changed INTEGER NOT NULL);
-- When a game last changed, read per game by an index rather than a scan of the inbox.
CREATE INDEX inbox_by_game ON inbox (game, state, stored_at);
-- Prune: a body dropped (or cut to the headers ``rejected`` shows) once it is old and
-- decided; the row, its de-duplication key and its decision stay.
ALTER TABLE inbox ADD COLUMN pruned INTEGER NOT NULL DEFAULT 0;
CREATE INDEX inbox_unpruned ON inbox (stored_at) WHERE pruned = 0 AND state != 'new';
ALTER TABLE outbox ADD COLUMN pruned INTEGER NOT NULL DEFAULT 0;
CREATE INDEX outbox_unpruned ON outbox (queued_at) WHERE pruned = 0;
CREATE INDEX outbox_by_seat ON outbox (game, side, id);
-- The status index's part that only finished games make (their list, the standings and
-- the crosstable: megabytes at a thousand players), kept with the state of the finished
-- games it was drawn from, so that page draws it again only when a game has ended; the
-- index on (over, changed) tells that state and lists the games in play without a scan.
CREATE INDEX games_by_over ON games (over, changed);
CREATE TABLE page_parts (name TEXT PRIMARY KEY, fingerprint TEXT NOT NULL,
    data BLOB NOT NULL);
""",
    2: """
-- The club's first week (issues 40 and 41): each part adds its statements below.
-- stamps: an action's time is when the club's mail system received its message (a
-- trusted Received field, the Maildir name, the IMAP INTERNALDATE), kept with the row
-- when it is stored (NULL: not known); the time the action was stamped with, and why
-- it is not the received time when it is not (a bound, in words); and, for a message
-- that came after its player's deadline, that player's side and the deadline, for the
-- organiser's report.
ALTER TABLE inbox ADD COLUMN received_at INTEGER;
ALTER TABLE inbox ADD COLUMN stamped_at INTEGER;
ALTER TABLE inbox ADD COLUMN stamp_note TEXT;
ALTER TABLE inbox ADD COLUMN late_side INTEGER;
ALTER TABLE inbox ADD COLUMN late_deadline INTEGER;
CREATE INDEX inbox_late ON inbox (stored_at) WHERE late_side IS NOT NULL;
""",
}


class StoreError(FileError):
    """The store cannot be created, opened or written."""


class Busy(StoreError):
    """Another process held the store longer than :data:`BUSY_TIMEOUT_MS`, or the disk is
    full: the message was not stored, and the mail server should try again later."""


def wait_ms() -> int:
    """The lock wait: :data:`WAIT_ENV` seconds when set to a number, else the default."""
    text = os.environ.get(WAIT_ENV, "")
    try:
        return max(0, min(int(float(text) * 1000), 600_000)) if text else BUSY_TIMEOUT_MS
    except ValueError:
        return BUSY_TIMEOUT_MS


def _connect(path: str, timeout_ms: int) -> sqlite3.Connection:
    # isolation_level=None: no implicit transactions; each change says BEGIN IMMEDIATE.
    connection = sqlite3.connect(path, timeout=timeout_ms / 1000, isolation_level=None)
    connection.execute(f"PRAGMA busy_timeout = {int(timeout_ms)}")
    connection.execute("PRAGMA foreign_keys = ON")
    return connection


class Store:
    """The referee's store: the one owner of its SQLite connection and of every
    transaction, with a part per stage of the queue (as Mailman 3 keeps its queues behind
    small classes):

    - :attr:`inbox`: the messages in, from storing to decided or refused;
    - :attr:`games`: each game's row, private lines, leave and seat token generations;
    - :attr:`outbox`: the messages out, from queued to sent or given up, with their tries;
    - :attr:`replies` and :attr:`relayed`: the rate limits of explanations and of chat;
    - :attr:`folders`: each IMAP folder's ``UIDVALIDITY`` and last UID taken;
    - :attr:`published` and :attr:`page_parts`: what page wrote to each folder, and the
      parts of the index it keeps between runs.

    Opened with :meth:`open` (an older store upgraded first), made with :meth:`create`;
    a context manager that closes the connection on every path, errors included. No SQL
    of the referee lives outside this module.
    """

    def __init__(self, connection: sqlite3.Connection, path: str):
        self._connection = connection
        self.path = path
        self.inbox = Inbox(connection)
        self.games = Games(connection)
        self.outbox = Outbox(connection)
        self.replies = Replies(connection)
        self.relayed = Relayed(connection)
        self.folders = Folders(connection)
        self.published = Published(connection)
        self.page_parts = PageParts(connection)

    # ------------------------------------------------------------------ open and close
    @classmethod
    def create(cls, path: str, settings: dict[str, str]) -> None:
        """A new store at ``path`` (refusing an existing file) holding ``settings``."""
        _create(path, settings)

    @classmethod
    def open(cls, path: str, timeout_ms: int | None = None) -> Store:
        """An open store; a missing file or one that is no referee store is a
        StoreError, a store newer than this program is refused, an older one upgraded."""
        return cls(_open_connection(path, wait_ms() if timeout_ms is None else timeout_ms),
                   path)

    def close(self) -> None:
        self._connection.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_exc) -> None:
        self.close()

    # ------------------------------------------------------------------ transactions
    @contextlib.contextmanager
    def transaction(self):
        """``BEGIN IMMEDIATE`` ... ``COMMIT``, rolled back on any exception.

        IMMEDIATE takes the write lock at the start, so two processes never both decide
        from the same state: the second waits (up to the busy timeout) and then sees the
        first one's result. A lock not had in time, or a full disk, raises :class:`Busy`.
        """
        with _transaction(self._connection):
            yield self

    def savepoint(self, name: str) -> None:
        """Mark a point inside the transaction that :meth:`rollback_to` returns to."""
        self._connection.execute(f"SAVEPOINT {_name(name)}")

    def rollback_to(self, name: str) -> None:
        """Undo what was written since :meth:`savepoint` ``name`` (the point stays)."""
        self._connection.execute(f"ROLLBACK TO {_name(name)}")

    def release(self, name: str) -> None:
        self._connection.execute(f"RELEASE {_name(name)}")

    def settings(self) -> dict[str, str]:
        """The referee's settings: address, name, how it sends, its secret, ..."""
        return dict(self._connection.execute("SELECT key, value FROM settings"))

    def set_setting(self, key: str, value: str) -> None:
        """Keep ``value`` under ``key`` in the settings (in the caller's transaction)."""
        self._connection.execute(
            "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) "
            "DO UPDATE SET value = excluded.value", (key, value))

    def give_back_space(self) -> int:
        """Return the store's free pages to the file system by SQLite's incremental
        vacuum (never a full ``VACUUM``, which would rewrite the whole file); outside any
        transaction. How many pages were free before."""
        (free,) = self._connection.execute("PRAGMA freelist_count").fetchone()
        # executescript steps the pragma to its end: execute() frees one page a step.
        self._connection.executescript("PRAGMA incremental_vacuum;")
        return free

    def size(self) -> int:
        """The bytes the store's pages hold, free pages left out."""
        (pages,) = self._connection.execute("PRAGMA page_count").fetchone()
        (free,) = self._connection.execute("PRAGMA freelist_count").fetchone()
        (page_size,) = self._connection.execute("PRAGMA page_size").fetchone()
        return (pages - free) * page_size


def _name(text: str) -> str:
    if not text.isidentifier():
        raise ValueError(f"{text!r} is no savepoint name")
    return text


# --------------------------------------------------------------------------- the inbox

@dataclass(frozen=True)
class Undecided:
    """An undecided message as the claim sees it: no body, only who reads it."""

    id: int
    readings: int
    reading_until: float | None
    reading_by: int | None


@dataclass(frozen=True)
class Stored:
    """A stored message with its body, read to be decided."""

    id: int
    raw: bytes
    stored_at: int
    recipient: str | None
    received_at: int | None = None     # when the club's mail system had it (None: unknown)


@dataclass(frozen=True)
class StampRow:
    """The time a stored message's actions were stamped with, and why it is not the time
    the mail system received it, when it is not (None: it is, or nothing was said)."""

    at: int | None
    note: str | None


@dataclass(frozen=True)
class LateRow:
    """A message that reached the club after its player's deadline: which, when stored,
    when received, the game, the side whose time had run out, and that deadline."""

    id: int
    stored_at: int
    received_at: int | None
    game: int
    side: int
    deadline: int


@dataclass(frozen=True)
class Decision:
    """What became of a stored message: new, done or rejected, why, and in which game."""

    state: str
    reason: str | None = None
    game: int | None = None


@dataclass(frozen=True)
class RefusedRow:
    """A refused message as the organiser lists it."""

    id: int
    stored_at: int
    game: int | None
    raw: bytes
    reason: str | None


CUT_HEAD_BYTES = 64 * 1024     # of a refused body, what prune reads to keep its headers


class Inbox:
    """The messages in: every raw message as received, then what became of it."""

    def __init__(self, connection: sqlite3.Connection):
        self._connection = connection

    def add(self, key: str, raw: bytes, stored_at: int, recipient: str | None,
            refused: str | None, received_at: int | None = None) -> int | None:
        """Keep ``raw`` under its de-duplication ``key`` (refused at once with the reason
        ``refused``, if given), with when the mail system received it (``received_at``,
        None when not known); its number, or None when that key was stored before."""
        cursor = self._connection.execute(
            "INSERT OR IGNORE INTO inbox (dedupe_key, stored_at, recipient, raw, size, state, "
            "reason, received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (key, stored_at, recipient, raw, len(raw),
             "new" if refused is None else "rejected", refused, received_at))
        return cursor.lastrowid if cursor.rowcount else None

    def set_stamp(self, number: int, at: int, note: str | None) -> None:
        """Keep the time message ``number`` is stamped with, and the note that says why it
        is not its received time (in the deciding transaction)."""
        self._connection.execute("UPDATE inbox SET stamped_at = ?, stamp_note = ? WHERE id = ?",
                                 (at, note, number))

    def stamp(self, number: int) -> StampRow:
        return StampRow(*self._connection.execute(
            "SELECT stamped_at, stamp_note FROM inbox WHERE id = ?", (number,)).fetchone())

    def set_late(self, number: int, side: int, deadline: int) -> None:
        """Mark message ``number`` as come after ``side``'s deadline (the organiser's
        report names it)."""
        self._connection.execute("UPDATE inbox SET late_side = ?, late_deadline = ? WHERE id = ?",
                                 (side, deadline, number))

    def late_since(self, since: int) -> list[LateRow]:
        """The messages that came after their player's deadline, stored at ``since`` or
        later, oldest first (by their own index)."""
        return [LateRow(*row) for row in self._connection.execute(
            "SELECT id, stored_at, received_at, game, late_side, late_deadline FROM inbox "
            "WHERE late_side IS NOT NULL AND stored_at >= ? ORDER BY stored_at, id",
            (since,)).fetchall()]

    def undecided(self) -> list[Undecided]:
        """The undecided messages, oldest first, without their bodies: a long queue is
        not loaded whole to take one message."""
        return [Undecided(*row) for row in self._connection.execute(
            "SELECT id, readings, reading_until, reading_by FROM inbox WHERE state = 'new' "
            "ORDER BY id").fetchall()]

    def stored(self, number: int) -> Stored:
        """Message ``number`` with its body (and no other's)."""
        return Stored(number, *self._connection.execute(
            "SELECT raw, stored_at, recipient, received_at FROM inbox WHERE id = ?",
            (number,)).fetchone())

    def begin_reading(self, number: int, until: float, by: int) -> None:
        """Count one more reading of ``number``, claimed by process ``by`` until ``until``."""
        self._connection.execute(
            "UPDATE inbox SET readings = readings + 1, reading_until = ?, reading_by = ? "
            "WHERE id = ?", (until, by, number))

    def release(self, number: int) -> None:
        """A reading that finished without a decision: not counted as cut off."""
        self._connection.execute(
            "UPDATE inbox SET readings = max(readings - 1, 0), reading_until = NULL "
            "WHERE id = ? AND state = 'new'", (number,))

    def decision(self, number: int) -> Decision:
        return Decision(*self._connection.execute(
            "SELECT state, reason, game FROM inbox WHERE id = ?", (number,)).fetchone())

    def decide(self, number: int, decision: Decision) -> None:
        """Mark ``number`` decided (or refused) and no longer being read."""
        self._connection.execute(
            "UPDATE inbox SET state = ?, reason = ?, game = ?, reading_until = NULL "
            "WHERE id = ?", (decision.state, decision.reason, decision.game, number))

    def refused(self) -> list[RefusedRow]:
        """The refused messages, oldest first."""
        return [RefusedRow(*row) for row in self._connection.execute(
            "SELECT id, stored_at, game, raw, reason FROM inbox WHERE state = 'rejected' "
            "ORDER BY id").fetchall()]

    def prune(self, before: int, cut) -> int:
        """Drop the bodies of the messages stored before ``before`` and decided: a taken
        one's whole, a refused one's down to ``cut(raw)`` (the few headers ``rejected``
        shows). The row stays, with its de-duplication key, state, reason, game and time:
        the same message delivered again is still known. How many bodies were cut."""
        rows = self._connection.execute(
            f"SELECT id, CASE state WHEN 'rejected' THEN substr(raw, 1, {CUT_HEAD_BYTES}) "
            "END FROM inbox WHERE pruned = 0 AND state != 'new' AND stored_at < ?",
            (before,)).fetchall()
        _rewrite_bodies(self._connection, "inbox",
                        {number: b"" if head is None else cut(head) for number, head in rows})
        return len(rows)

    def last_taken(self, game: int) -> int | None:
        """When the newest message taken for ``game`` was stored (None: none was)."""
        (taken,) = self._connection.execute(
            "SELECT MAX(stored_at) FROM inbox WHERE game = ? AND state = 'done'",
            (game,)).fetchone()
        return taken


    def last_taken_in_play(self) -> dict[int, int]:
        """:meth:`last_taken` of every game in play that has one, by game, in one query
        (by the indexes on the games' state and on the inbox's game)."""
        return dict(self._connection.execute(
            "SELECT game, MAX(stored_at) FROM inbox WHERE state = 'done' AND game IN "
            "(SELECT id FROM games WHERE over = 0) GROUP BY game").fetchall())


# --------------------------------------------------------------------------- the games

KEY_COLUMNS = ("white_key", "black_key")     # each seat's token generation (tokens.py)
_SEAT_COLUMNS = (("white_name", "white_address"), ("black_name", "black_address"))


@dataclass(frozen=True)
class GameRow:
    """A game's row: its players, its public record text and what the referee keeps."""

    id: int
    white_name: str
    white_address: str
    black_name: str
    black_address: str
    record: str
    over: bool
    leave_days: int
    thread: str
    reminded_ply: int
    white_key: int
    black_key: int
    created: int


@dataclass(frozen=True)
class LineRow:
    """One private conditional line: its side and the actions still to come (JSON)."""

    side: int
    actions: str


@dataclass(frozen=True)
class LeaveRow:
    side: int
    first_day: str
    last_day: str


@dataclass(frozen=True)
class GameChange:
    """What a change to a game writes: the record text, computed once per change, and
    the rows that mirror the game in memory."""

    record: str
    over: bool
    thread: str
    reminded_ply: int
    lines: list[LineRow]
    leaves: list[LeaveRow]
    # When tick next has something to do (NULL: nothing) and what the index shows (JSON),
    # computed with the change so that neither tick nor page replays the record.
    due: int | None = None
    summary: str | None = None


@dataclass(frozen=True)
class Listed:
    """A game as the status index sees it: its summary saved with it (None: saved by an
    older program, so the record must be read) and its change number."""

    id: int
    over: bool
    summary: str | None
    changed: int


class Games:
    """The games: each one's row, its private lines and its leave."""

    def __init__(self, connection: sqlite3.Connection):
        self._connection = connection

    def row(self, number: int) -> GameRow | None:
        row = self._connection.execute(
            "SELECT id, white_name, white_address, black_name, black_address, record, over, "
            "leave_days, thread, reminded_ply, white_key, black_key, created FROM games "
            "WHERE id = ?", (number,)).fetchone()
        return None if row is None else GameRow(*row[:6], bool(row[6]), *row[7:])

    def lines(self, number: int) -> list[LineRow]:
        return [LineRow(*row) for row in self._connection.execute(
            "SELECT side, actions FROM lines WHERE game = ? ORDER BY id", (number,))]

    def insert(self, players: tuple[tuple[str, str], tuple[str, str]], record: str,
               leave_days: int, created: int) -> int:
        """A new game of ``players`` (name, address) each; its number."""
        (white_name, white_address), (black_name, black_address) = players
        return self._connection.execute(
            "INSERT INTO games (white_name, white_address, black_name, black_address, record, "
            "leave_days, created) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (white_name, white_address, black_name, black_address, record, leave_days,
             created)).lastrowid

    def save(self, number: int, change: GameChange) -> None:
        """Write ``change`` over game ``number``: its row, and its lines and leave anew."""
        self._connection.execute(
            "UPDATE games SET record = ?, over = ?, thread = ?, reminded_ply = ?, next_due = ?, "
            "summary = ?, changed = (SELECT COALESCE(MAX(changed), 0) + 1 FROM games) "
            "WHERE id = ?",
            (change.record, int(change.over), change.thread, change.reminded_ply, change.due,
             change.summary, number))
        self._connection.execute("DELETE FROM lines WHERE game = ?", (number,))
        self._connection.execute("DELETE FROM leaves WHERE game = ?", (number,))
        self._connection.executemany(
            "INSERT INTO lines (game, side, actions) VALUES (?, ?, ?)",
            [(number, line.side, line.actions) for line in change.lines])
        self._connection.executemany(
            "INSERT INTO leaves (game, side, first_day, last_day) VALUES (?, ?, ?, ?)",
            [(number, leave.side, leave.first_day, leave.last_day) for leave in change.leaves])

    def set_player(self, number: int, side: int, name: str, address: str) -> None:
        name_column, address_column = _SEAT_COLUMNS[side]
        self._connection.execute(
            f"UPDATE games SET {name_column} = ?, {address_column} = ? WHERE id = ?",
            (name, address, number))

    def set_generation(self, number: int, side: int, generation: int) -> None:
        self._connection.execute(f"UPDATE games SET {KEY_COLUMNS[side]} = ? WHERE id = ?",
                                 (generation, number))

    def generation(self, number: int, side: int) -> int | None:
        """The token generation of game ``number``'s ``side``; None without that game."""
        row = self._connection.execute(f"SELECT {KEY_COLUMNS[side]} FROM games WHERE id = ?",
                                       (number,)).fetchone()
        return None if row is None else row[0]

    def numbers(self, *, in_play: bool) -> list[int]:
        """The games' numbers, oldest first: those still played, or all."""
        where = "WHERE over = 0 " if in_play else ""
        return [number for (number,) in self._connection.execute(
            f"SELECT id FROM games {where}ORDER BY id").fetchall()]

    def due(self, now: int) -> list[int]:
        """The games tick has something to do for by ``now`` (by the index on
        ``next_due``: the games with nothing due are not read), oldest first."""
        return [number for (number,) in self._connection.execute(
            "SELECT id FROM games WHERE next_due IS NOT NULL AND next_due <= ? ORDER BY id",
            (now,)).fetchall()]

    def set_due(self, number: int, due: int | None) -> None:
        """When tick next has something to do for game ``number`` (None: nothing)."""
        self._connection.execute("UPDATE games SET next_due = ? WHERE id = ?", (due, number))

    def listed(self, *, over: bool | None = None) -> list[Listed]:
        """The games' saved summaries, oldest first, without their records: every game's,
        or only the finished (``over``) or those in play (by the index on ``over``)."""
        where, args = ("", ()) if over is None else ("WHERE over = ? ", (int(over),))
        return [Listed(number, bool(over), summary, changed)
                for number, over, summary, changed in self._connection.execute(
                    f"SELECT id, over, summary, changed FROM games {where}ORDER BY id",
                    args).fetchall()]

    def finished_mark(self) -> tuple[int, int]:
        """How many games are finished and the newest change number among them: it moves
        whenever a game ends or a finished game is saved again."""
        return self._connection.execute(
            "SELECT COUNT(*), COALESCE(MAX(changed), 0) FROM games WHERE over = 1").fetchone()

    def changed_since(self, mark: int) -> list[int]:
        """The games saved after change number ``mark``, oldest first."""
        # Sorted here: with ORDER BY id SQLite scans every game's row (records and all)
        # instead of taking the few changed ones from the index on ``changed``.
        return sorted(number for (number,) in self._connection.execute(
            "SELECT id FROM games WHERE changed > ?", (mark,)).fetchall())

    def last_change_number(self) -> int:
        (number,) = self._connection.execute(
            "SELECT COALESCE(MAX(changed), 0) FROM games").fetchone()
        return number


# --------------------------------------------------------------------------- the outbox

@dataclass(frozen=True)
class Due:
    """An unsent message as the claim sees it: no body, only who holds it."""

    id: int
    claimed_until: float | None
    claimed_by: int | None


@dataclass(frozen=True)
class Queued:
    """A message claimed to be sent, with its stored bytes."""

    id: int
    envelope_from: str
    envelope_to: str
    raw: bytes
    queued_at: int = 0
    attempts: int = 0          # tries before this one


@dataclass(frozen=True)
class Attempt:
    """One try at sending: when (the referee's clock) and the answer (None: sent)."""

    at: int
    error: str | None


@dataclass(frozen=True)
class Waiting:
    """A message in the outbox not sent: why, its tries, when it is tried again, or when
    it was given up."""

    id: int
    game: int | None
    to: str
    queued_at: int
    attempts: int
    error: str | None
    next_try: int | None
    failed_at: int | None
    tries: tuple[Attempt, ...] = ()


def _whole(value: float | None) -> int | None:
    return None if value is None else int(value)


_WAITING = ("SELECT id, game, envelope_to, queued_at, attempts, error, next_try, failed_at "
            "FROM outbox WHERE sent_at IS NULL")


class Outbox:
    """The messages out: queued in the transaction that caused them, claimed, sent or
    given up, every try kept in ``attempts``."""

    def __init__(self, connection: sqlite3.Connection):
        self._connection = connection

    def add(self, game: int | None, side: int | None, queued_at: int, envelope_from: str,
            envelope_to: str, raw: bytes) -> int:
        """Queue ``raw`` for the seat (``game``, ``side``): resend finds a seat's newest
        message by them. Its number."""
        return self._connection.execute(
            "INSERT INTO outbox (game, side, queued_at, envelope_from, envelope_to, raw) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (game, side, queued_at, envelope_from, envelope_to, raw)).lastrowid

    def due(self, after: int, now: int, retry: bool) -> list[Due]:
        """The unsent messages after ``after``, oldest first, without their bodies: with
        ``retry`` those whose retry time has come by ``now`` too, else only those never
        tried."""
        if retry:
            due, args = "AND (next_try IS NULL OR next_try <= ?)", (after, now)
        else:
            due, args = "AND attempts = 0", (after,)
        return [Due(*row) for row in self._connection.execute(
            "SELECT id, claimed_until, claimed_by FROM outbox WHERE sent_at IS NULL "
            f"AND failed_at IS NULL AND id > ? {due} ORDER BY id", args).fetchall()]

    def claim(self, number: int, until: float, by: int) -> Queued:
        """Message ``number`` held by process ``by`` until ``until``, with its bytes."""
        self._connection.execute("UPDATE outbox SET claimed_until = ?, claimed_by = ? "
                                 "WHERE id = ?", (until, by, number))
        return Queued(*self._connection.execute(
            "SELECT id, envelope_from, envelope_to, raw, queued_at, attempts FROM outbox "
            "WHERE id = ?", (number,)).fetchone())

    def mark_sent(self, number: int, now: int, host_now: float) -> None:
        """Sent at ``host_now`` (host time), the try kept at ``now`` (the referee's clock)."""
        self._connection.execute("INSERT INTO attempts (message, at, error) VALUES (?, ?, NULL)",
                                 (number, now))
        self._connection.execute(
            "UPDATE outbox SET sent_at = ?, claimed_until = NULL, error = NULL, "
            "attempts = attempts + 1, next_try = NULL WHERE id = ?", (host_now, number))

    def mark_unsent(self, number: int, now: int, tries: int, error: str, words: str,
                    next_try: int | None) -> None:
        """A failed try: kept with the server's answer ``error``; tried again at
        ``next_try``, or, when None, given up (failed) at ``now``."""
        self._connection.execute("INSERT INTO attempts (message, at, error) VALUES (?, ?, ?)",
                                 (number, now, error))
        self._connection.execute(
            "UPDATE outbox SET attempts = ?, claimed_until = NULL, error = ?, next_try = ?, "
            "failed_at = ? WHERE id = ?",
            (tries, words, next_try, now if next_try is None else None, number))

    def unsent(self, *, failed_only: bool = False) -> list[Waiting]:
        """The messages not sent (or only those given up), oldest first, with their tries."""
        where = " AND failed_at IS NOT NULL" if failed_only else ""
        rows = self._connection.execute(_WAITING + where + " ORDER BY id").fetchall()
        return [Waiting(*row[:6], _whole(row[6]), _whole(row[7]), self.attempts(row[0]))
                for row in rows]

    def attempts(self, number: int) -> tuple[Attempt, ...]:
        return tuple(Attempt(int(at), error) for at, error in self._connection.execute(
            "SELECT at, error FROM attempts WHERE message = ? ORDER BY id", (number,)))

    def prune(self, before: int) -> int:
        """Drop the bodies of the messages queued before ``before`` that were sent or given
        up, except the newest one of each seat (game and side), which ``resend`` sends
        again; and the tries of the sent ones among them (a given-up message keeps its
        tries: ``outbox --every-try`` shows them). How many bodies were dropped."""
        self._connection.execute(
            "DELETE FROM attempts WHERE at < ? AND message IN (SELECT id FROM outbox "
            "WHERE queued_at < ? AND sent_at IS NOT NULL)", (before, before))
        numbers = [number for (number,) in self._connection.execute(
            "SELECT id FROM outbox WHERE pruned = 0 AND queued_at < ? "
            "AND (sent_at IS NOT NULL OR failed_at IS NOT NULL) AND id NOT IN "
            "(SELECT MAX(id) FROM outbox WHERE game IS NOT NULL GROUP BY game, side)",
            (before,)).fetchall()]
        _rewrite_bodies(self._connection, "outbox", dict.fromkeys(numbers, b""))
        return len(numbers)

    def newest(self, game: int, side: int) -> bytes | None:
        """The bytes of the newest message queued to ``game``'s ``side`` (by its row,
        never by what its bytes hold)."""
        row = self._connection.execute(
            "SELECT raw FROM outbox WHERE game = ? AND side = ? ORDER BY id DESC LIMIT 1",
            (game, side)).fetchone()
        return None if row is None else row[0]


def _rewrite_bodies(connection: sqlite3.Connection, table: str, bodies: dict[int, bytes]) -> None:
    """Give the rows ``bodies`` names (by id) their new, shorter body, marked pruned.

    Each row is deleted and inserted again, not updated: SQLite merges the pages a delete
    leaves nearly empty, but not those an update shrinks, so after updates each old row
    would keep a whole page to itself (a store growing by kilobytes per message for ever).
    """
    columns = [name for _cid, name, *_rest in connection.execute(f"PRAGMA table_info({table})")
               if name not in ("raw", "pruned")]
    listed = ", ".join(columns)
    numbers = sorted(bodies)
    for start in range(0, len(numbers), _CHUNK):
        chunk = numbers[start:start + _CHUNK]
        marks = ", ".join("?" * len(chunk))
        rows = connection.execute(f"SELECT {listed} FROM {table} WHERE id IN ({marks})",
                                  chunk).fetchall()
        connection.execute(f"DELETE FROM {table} WHERE id IN ({marks})", chunk)
        connection.executemany(
            f"INSERT INTO {table} ({listed}, raw, pruned) VALUES "
            f"({', '.join('?' * (len(columns) + 2))})",
            [(*row, bodies[row[0]], 1) for row in rows])


_CHUNK = 500            # rows rewritten per statement (SQLite's limit on ? is 32766)


# --------------------------------------------------------------------------- rate limits

class Replies:
    """When each address was last sent an explanation, to limit them."""

    def __init__(self, connection: sqlite3.Connection):
        self._connection = connection

    def count_since(self, address: str, since: int) -> int:
        (count,) = self._connection.execute(
            "SELECT COUNT(*) FROM replies WHERE address = ? AND at > ?",
            (address, since)).fetchone()
        return count

    def forget_until(self, until: int) -> None:
        self._connection.execute("DELETE FROM replies WHERE at <= ?", (until,))

    def add(self, address: str, at: int) -> None:
        self._connection.execute("INSERT INTO replies VALUES (?, ?)", (address, at))


@dataclass(frozen=True)
class ChatCounts:
    """Within a window: chats of an address passed on, and notices that it was dropped."""

    relayed: int
    told: int


class Relayed:
    """When each player's chat was passed on (or they were told it was dropped)."""

    def __init__(self, connection: sqlite3.Connection):
        self._connection = connection

    def forget_until(self, until: int) -> None:
        self._connection.execute("DELETE FROM relayed WHERE at <= ?", (until,))

    def counts_between(self, address: str, since: int, until: int) -> ChatCounts:
        """What ``address`` had relayed (and was told) after ``since`` and up to ``until``:
        a message decided late, after later ones, is counted in its own window."""
        return ChatCounts(*self._connection.execute(
            "SELECT COALESCE(SUM(notice = 0), 0), COALESCE(SUM(notice), 0) FROM relayed "
            "WHERE address = ? AND at > ? AND at <= ?", (address, since, until)).fetchone())

    def add(self, address: str, at: int, *, notice: bool = False) -> None:
        self._connection.execute("INSERT INTO relayed (address, at, notice) VALUES (?, ?, ?)",
                                 (address, at, int(notice)))


# --------------------------------------------------------------------------- status pages

class Published:
    """For each folder of status pages, the change number of the games it holds: page
    rewrites the games changed after it."""

    def __init__(self, connection: sqlite3.Connection):
        self._connection = connection

    def mark(self, folder: str) -> int | None:
        row = self._connection.execute("SELECT changed FROM published WHERE folder = ?",
                                       (folder,)).fetchone()
        return None if row is None else row[0]

    def remember(self, folder: str, changed: int) -> None:
        self._connection.execute(
            "INSERT INTO published (folder, changed) VALUES (?, ?) ON CONFLICT (folder) "
            "DO UPDATE SET changed = excluded.changed", (folder, changed))


@dataclass(frozen=True)
class PagePart:
    """A kept part of a status page: the state it was drawn from, and its bytes (as
    pages.py keeps them)."""

    fingerprint: str
    data: bytes


class PageParts:
    """Parts of the status pages kept between runs of page, each with the state of the
    games it was drawn from (its fingerprint): drawn again only when that state moved."""

    def __init__(self, connection: sqlite3.Connection):
        self._connection = connection

    def get(self, name: str) -> PagePart | None:
        row = self._connection.execute(
            "SELECT fingerprint, data FROM page_parts WHERE name = ?", (name,)).fetchone()
        return None if row is None else PagePart(*row)

    def keep(self, name: str, part: PagePart) -> None:
        self._connection.execute(
            "INSERT INTO page_parts (name, fingerprint, data) VALUES (?, ?, ?) "
            "ON CONFLICT (name) DO UPDATE SET fingerprint = excluded.fingerprint, "
            "data = excluded.data", (name, part.fingerprint, part.data))


# --------------------------------------------------------------------------- IMAP folders

@dataclass(frozen=True)
class FolderMark:
    """How far an IMAP folder was taken: its ``UIDVALIDITY`` and the last UID."""

    uidvalidity: int
    last_uid: int


class Folders:
    """Each IMAP folder's ``UIDVALIDITY`` and the last UID taken."""

    def __init__(self, connection: sqlite3.Connection):
        self._connection = connection

    def mark(self, place: str) -> FolderMark | None:
        row = self._connection.execute(
            "SELECT uidvalidity, last_uid FROM imap_folders WHERE place = ?",
            (place,)).fetchone()
        return None if row is None else FolderMark(*row)

    def remember(self, place: str, mark: FolderMark) -> None:
        self._connection.execute(
            "INSERT INTO imap_folders (place, uidvalidity, last_uid) VALUES (?, ?, ?) "
            "ON CONFLICT (place) DO UPDATE SET uidvalidity = excluded.uidvalidity, "
            "last_uid = excluded.last_uid", (place, mark.uidvalidity, mark.last_uid))


# --------------------------------------------------------------------------- create, open, upgrade

def _create(path: str, settings: dict[str, str]) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise StoreError(f"{path} already exists; the referee never overwrites a store") from None
    except OSError as error:
        raise StoreError(f"cannot create {path}: {error.strerror}") from None
    os.close(fd)
    connection = None
    try:
        connection = _connect(path, BUSY_TIMEOUT_MS)
        # Before the first table: prune's freed pages can then be given back bit by bit.
        connection.execute("PRAGMA auto_vacuum = INCREMENTAL")
        connection.execute("PRAGMA journal_mode = WAL")
        script = _SCHEMA + "".join(UPGRADES[version] for version in sorted(UPGRADES))
        connection.executescript("BEGIN IMMEDIATE;" + script + "COMMIT;")
        with _transaction(connection):
            rows = [("schema", str(SCHEMA_VERSION)), *settings.items()]
            connection.executemany("INSERT INTO settings VALUES (?, ?)", rows)
    except sqlite3.Error as error:
        with contextlib.suppress(OSError):
            os.remove(path)
        raise StoreError(f"cannot create the store {path}: {error}") from None
    finally:
        if connection is not None:
            connection.close()


def _open_connection(path: str, timeout_ms: int) -> sqlite3.Connection:
    if not os.path.isfile(path):
        raise StoreError(f"{path}: no such store (create one with tomis referee init)")
    connection = None
    try:
        connection = _connect(path, timeout_ms)
        # fetchall: a statement left open would lock the tables against an upgrade.
        rows = connection.execute("SELECT value FROM settings WHERE key = 'schema'").fetchall()
        number = _version(rows[0] if rows else None)
        if number is None:
            raise StoreError(f"{path} is not a referee store (no schema version)")
        if number > SCHEMA_VERSION:
            raise StoreError(f"{path} is a referee store of version {number}, newer than this "
                             f"tomis reads ({SCHEMA_VERSION}): upgrade tomis")
        if number < SCHEMA_VERSION:
            upgrade(connection, path, number)
    except BaseException as error:
        if connection is not None:
            connection.close()
        if isinstance(error, sqlite3.OperationalError) and _is_busy(error):
            raise Busy(f"the store {path} is busy: {error}") from None
        if isinstance(error, sqlite3.DatabaseError):
            raise StoreError(f"{path} is not a referee store ({error})") from None
        raise
    return connection


def open_store(path: str, timeout_ms: int | None = None) -> Store:
    """:meth:`Store.open`, by its older name."""
    return Store.open(path, timeout_ms)


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
        with _transaction(connection):
            ((current,),) = connection.execute(
                "SELECT value FROM settings WHERE key = 'schema'").fetchall()
            if int(current) == number:          # another process may have upgraded it
                for statement in _statements(UPGRADES[number]):
                    connection.execute(statement)
                connection.execute("UPDATE settings SET value = ? WHERE key = 'schema'",
                                   (str(number + 1),))
        number += 1
    _allow_incremental_vacuum(connection)


def _allow_incremental_vacuum(connection: sqlite3.Connection) -> None:
    """Switch a store made before prune to incremental vacuum: the one full ``VACUUM`` a
    store ever gets, here, once, while it is upgraded (SQLite records the mode only when it
    rewrites the file)."""
    ((mode,),) = connection.execute("PRAGMA auto_vacuum").fetchall()
    if mode != INCREMENTAL:
        connection.execute("PRAGMA auto_vacuum = INCREMENTAL")
        connection.execute("VACUUM")


INCREMENTAL = 2            # PRAGMA auto_vacuum's value for INCREMENTAL


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
def _transaction(connection: sqlite3.Connection):
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` on ``connection`` (:meth:`Store.transaction`)."""
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
