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
- ``page_parts``: parts of the status pages kept between runs of page (the finished
  games, the standings, each game in play's row of the index), with the state of the
  games they were drawn from;
- ``bounces``: each delivery report of a message sent, with the player and game it names;
- ``club_leaves``: each player's leave across all their games, kept or cancelled;
- ``club_requests``: the club mail's one-time requests (a command waiting for its
  confirmation, a challenge for its answer), each used once (:mod:`.clubmail`);
- ``digests``: each player's digest, daily or weekly, and when it is next due.

The schema has a version (:data:`SCHEMA_VERSION`, kept in ``settings``). Opening an older
store upgrades it in place, one step per version (:data:`UPGRADES`), after copying it to
``DB.vN.bak``; a store newer than the program is refused. A later change to the tables adds
a step there and raises the version; tests/data/referee/ keeps a store of each version.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import sqlite3
import stat
from dataclasses import dataclass

from ..errors import FileError

SCHEMA_VERSION = 4
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
-- report: each bounce of a message the referee sent, matched to the player and game
-- whose token the returned message carries, for the organiser's alerts (never answered).
CREATE TABLE bounces (id INTEGER PRIMARY KEY, message INTEGER NOT NULL, at INTEGER NOT NULL,
    address TEXT NOT NULL, game INTEGER, side INTEGER, reason TEXT NOT NULL);
CREATE INDEX bounces_by_time ON bounces (at);
-- report: what is refused is looked at by time for the alerts (the last days only).
CREATE INDEX inbox_refused ON inbox (state, stored_at);
-- answers: an explanation counts against the player only when it answers their own
-- refused mail ('refused'); the word that mail from another address reached their seat
-- ('forged') has a limit of its own, so a forger can neither silence nor flood a player.
ALTER TABLE replies ADD COLUMN kind TEXT NOT NULL DEFAULT 'refused';
-- answers: when the game's last action was stamped, so that "waiting since" moves only
-- with actions (not with chat or status); a store from before takes its last taken message.
ALTER TABLE games ADD COLUMN acted_at INTEGER;
UPDATE games SET acted_at = (SELECT MAX(stored_at) FROM inbox
    WHERE inbox.game = games.id AND inbox.state = 'done');
-- endings and pages: a finished game's saved summary named no ending for a resignation
-- or an agreed draw (the pages said "on the board"), and no game's said when it last
-- moved. Page reads each record once more (pages._read_summary), keeps the summary it
-- makes, and draws the kept parts and rows anew.
UPDATE games SET summary = NULL;
DELETE FROM page_parts;
-- tnote: when the referee last took mail (deliver, fetch, run, tick), in one row, and
-- whether it has ticked since: a gap longer than the outage_after setting between two
-- takes is the referee's own outage, credited to the clocks that ran in it. Each outage
-- found is kept for the organiser (the newest MAX_OUTAGES_KEPT). Each player of a credited
-- game is told in the next message they get (outage_notices, taken when it is queued):
-- telling a whole club at once would hold the store's lock for minutes.
CREATE TABLE outage_notices (game INTEGER NOT NULL, side INTEGER NOT NULL,
    begins INTEGER NOT NULL, ends INTEGER NOT NULL);
CREATE INDEX outage_notices_by_seat ON outage_notices (game, side);
CREATE TABLE takes (id INTEGER PRIMARY KEY CHECK (id = 1), last INTEGER NOT NULL,
    ticked INTEGER NOT NULL DEFAULT 0);
CREATE TABLE outages (id INTEGER PRIMARY KEY, begins INTEGER NOT NULL,
    ends INTEGER NOT NULL, games INTEGER NOT NULL);
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
-- ics: what each game's calendar events last showed (JSON of calendar.Showing) and their
-- SEQUENCE, so that SEQUENCE rises exactly when what they show changes (RFC 5545 3.8.7.4).
CREATE TABLE calendars (game INTEGER PRIMARY KEY, sequence INTEGER NOT NULL,
    shown TEXT NOT NULL);
-- remind: how many of the turn's reminder moments (reminded_ply's turn, earliest first)
-- were sent, so each goes once; a store from before sent one, the half-time reminder.
ALTER TABLE games ADD COLUMN reminders_sent INTEGER NOT NULL DEFAULT 0;
UPDATE games SET reminders_sent = 1 WHERE reminded_ply >= 0;
UPDATE games SET next_due = 0 WHERE over = 0;
""",
    3: """
-- A club's season (issue 43): each part adds its statements below.
-- foundation: a player is a person who lasts beyond one game: a name (unique, whatever
-- its case), the address mailed, a rating, and whether the organiser approved them; every
-- address they write from is in player_addresses (the mailed one included). Games refer
-- to their players; ``settled`` says the season has taken a finished game's end (rated,
-- its event advanced), so a step missed by a crash is taken by the next tick.
CREATE TABLE players (id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE, address TEXT NOT NULL,
    rating REAL NOT NULL DEFAULT 1500, deviation REAL NOT NULL DEFAULT 350,
    volatility REAL NOT NULL DEFAULT 0.06, approved INTEGER NOT NULL DEFAULT 1,
    created INTEGER NOT NULL);
CREATE TABLE player_addresses (address TEXT PRIMARY KEY COLLATE NOCASE,
    player INTEGER NOT NULL);
CREATE INDEX player_addresses_by_player ON player_addresses (player);
ALTER TABLE games ADD COLUMN white_player INTEGER;
ALTER TABLE games ADD COLUMN black_player INTEGER;
ALTER TABLE games ADD COLUMN settled INTEGER NOT NULL DEFAULT 0;
-- A store from before: each game's two players become players, by name; the newest
-- game's address is the one mailed, and every address a name played from is theirs
-- (an address two names used stays with the newer game's name).
CREATE TEMP TABLE seats AS
    SELECT id AS game, 0 AS side, white_name AS name, white_address AS address, created
        FROM games
    UNION ALL
    SELECT id, 1, black_name, black_address, created FROM games;
INSERT OR IGNORE INTO players (name, address, created)
    SELECT name, address, created FROM seats ORDER BY game DESC, side;
INSERT OR IGNORE INTO player_addresses (address, player)
    SELECT address, (SELECT id FROM players WHERE players.name = seats.name) FROM seats
        ORDER BY game DESC, side;
DROP TABLE seats;
UPDATE games SET white_player = (SELECT id FROM players WHERE players.name = games.white_name),
    black_player = (SELECT id FROM players WHERE players.name = games.black_name);
-- Finished games are history: the season does not rate or pair them again.
UPDATE games SET settled = 1 WHERE over = 1;
CREATE INDEX games_unsettled ON games (id) WHERE over = 1 AND settled = 0;
CREATE INDEX games_by_white_player ON games (white_player, over);
CREATE INDEX games_by_black_player ON games (black_player, over);
-- leave: a player's leave across all their games (tomis.referee.clubleave), one row per
-- period taken, counted against the club's yearly allowance; cancelled_at is set when it
-- was cancelled before it began (its days are then given back). The records hold the
-- leave itself; this table lets a game started later during it get it too.
CREATE TABLE club_leaves (id INTEGER PRIMARY KEY, player INTEGER NOT NULL,
    first_day TEXT NOT NULL, last_day TEXT NOT NULL, taken_at INTEGER NOT NULL,
    cancelled_at INTEGER);
CREATE INDEX club_leaves_by_player ON club_leaves (player, first_day);
-- clubmail: the one-time requests mailed to confirm a command sent to the bare address
-- (kind 'confirm') or to ask a challenged player (kind 'challenge'): the address mailed,
-- the player concerned (NULL: one joining), the command (JSON), when, and when used (once).
-- The index counts the requests to one address in a day (at most 3 of each kind).
CREATE TABLE club_requests (id INTEGER PRIMARY KEY, kind TEXT NOT NULL,
    address TEXT NOT NULL, player INTEGER, command TEXT NOT NULL, created INTEGER NOT NULL,
    used_at INTEGER);
CREATE INDEX club_requests_by_address ON club_requests (address, kind, created);
-- clubmail: each player's digest, daily or weekly, and when it is next due, indexed so
-- that tick reads only the players whose digest is due (as next_due does for games).
CREATE TABLE digests (player INTEGER PRIMARY KEY, every TEXT NOT NULL, due INTEGER NOT NULL);
CREATE INDEX digests_due ON digests (due);
-- rating: each player's rating after each rated game (Glicko-2, every game its own
-- period), for the player's page and its chart; the rating now is in players. One row a
-- player and game, so a game is never rated twice for anyone.
CREATE TABLE ratings (id INTEGER PRIMARY KEY, player INTEGER NOT NULL,
    game INTEGER NOT NULL, at INTEGER NOT NULL, rating REAL NOT NULL,
    deviation REAL NOT NULL, volatility REAL NOT NULL);
CREATE UNIQUE INDEX ratings_by_player ON ratings (player, game);
-- rating: the index links each player's name to their page, so each game's summary must
-- name its players' numbers: page reads each record once more (as after schema 2) and
-- draws the kept rows and parts anew.
UPDATE games SET summary = NULL;
DELETE FROM page_parts;
""",
}


class StoreError(FileError):
    """The store cannot be created, opened or written; ``path`` names the store, so the
    CLI's one line reads ``PATH: message`` (never ``<input>``)."""

    def __init__(self, message: str, path: str | os.PathLike | None = None):
        super().__init__(message)
        self.path = None if path is None else os.fspath(path)


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
      parts of the index it keeps between runs;
    - :attr:`bounces`: the delivery reports of messages sent, for the organiser;
    - :attr:`calendars`: what each game's calendar events last showed, and their SEQUENCE;
    - :attr:`players`: the club's players, each with their addresses and rating;
    - :attr:`club_leaves`: each player's leave across all their games;
    - :attr:`requests` and :attr:`digests`: the club mail's one-time requests and each
      player's digest;
    - :attr:`ratings`: each player's rating after each rated game.

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
        self.bounces = Bounces(connection)
        self.takes = Takes(connection)
        self.calendars = Calendars(connection)
        self.players = Players(connection)
        self.club_leaves = ClubLeaves(connection)
        self.requests = Requests(connection)
        self.digests = Digests(connection)
        self.ratings = Ratings(connection)

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


@dataclass(frozen=True)
class KnownCopy:
    """The stored message a copy delivered again is a duplicate of: its envelope
    recipients (as kept) and what became of it."""

    id: int
    recipient: str | None
    state: str
    reason: str | None
    pruned: bool


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

    def known(self, key: str) -> KnownCopy | None:
        """The message stored under ``key``, without its body."""
        row = self._connection.execute(
            "SELECT id, recipient, state, reason, pruned FROM inbox WHERE dedupe_key = ?",
            (key,)).fetchone()
        return None if row is None else KnownCopy(row[0], row[1], row[2], row[3], bool(row[4]))

    def recipient(self, number: int) -> str | None:
        """Message ``number``'s envelope recipients as kept now."""
        (text,) = self._connection.execute(
            "SELECT recipient FROM inbox WHERE id = ?", (number,)).fetchone()
        return text

    def set_recipient(self, number: int, text: str | None) -> None:
        self._connection.execute("UPDATE inbox SET recipient = ? WHERE id = ?", (text, number))

    def reopen(self, number: int) -> None:
        """Message ``number``, refused, undecided again: to be decided anew."""
        self._connection.execute(
            "UPDATE inbox SET state = 'new', reason = NULL, game = NULL, readings = 0, "
            "reading_until = NULL WHERE id = ?", (number,))

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

    def refused_since(self, since: int) -> list[RefusedRow]:
        """The messages refused that were stored at ``since`` or later, oldest first, each
        body cut to its first :data:`CUT_HEAD_BYTES` (their headers are what is read)."""
        return [RefusedRow(*row) for row in self._connection.execute(
            f"SELECT id, stored_at, game, substr(raw, 1, {CUT_HEAD_BYTES}), reason FROM inbox "
            "WHERE state = 'rejected' AND stored_at >= ? ORDER BY id", (since,)).fetchall()]

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
    acted_at: int | None = None        # when its last action was stamped (None: none yet)
    reminders_sent: int = 0            # of reminded_ply's turn, its moments earliest first
    white_player: int | None = None    # the players (store.players) who sit there
    black_player: int | None = None


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
    acted_at: int | None = None        # when its last action was played (None: none yet)
    reminders_sent: int = 0            # of reminded_ply's turn, its moments earliest first


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
            "leave_days, thread, reminded_ply, white_key, black_key, created, acted_at, "
            "reminders_sent, white_player, black_player FROM games "
            "WHERE id = ?", (number,)).fetchone()
        return None if row is None else GameRow(*row[:6], bool(row[6]), *row[7:])

    def acted_in_play(self) -> dict[int, int]:
        """When each game in play that had an action last had one, by game, in one query
        (by the index on the games' state): what "waiting since" shows."""
        return dict(self._connection.execute(
            "SELECT id, acted_at FROM games WHERE over = 0 AND acted_at IS NOT NULL"
        ).fetchall())

    def lines(self, number: int) -> list[LineRow]:
        return [LineRow(*row) for row in self._connection.execute(
            "SELECT side, actions FROM lines WHERE game = ? ORDER BY id", (number,))]

    def insert(self, players: tuple[tuple[str, str], tuple[str, str]], record: str,
               leave_days: int, created: int,
               player_ids: tuple[int | None, int | None] = (None, None)) -> int:
        """A new game of ``players`` (name, address) each, who are the players
        ``player_ids`` of :attr:`Store.players`; its number."""
        (white_name, white_address), (black_name, black_address) = players
        return self._connection.execute(
            "INSERT INTO games (white_name, white_address, black_name, black_address, record, "
            "leave_days, created, white_player, black_player) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (white_name, white_address, black_name, black_address, record, leave_days,
             created, *player_ids)).lastrowid

    def of_player(self, player: int, *, in_play: bool) -> list[int]:
        """The games ``player`` sits in, oldest first: those still played, or all (by the
        indexes on each seat's player)."""
        over = "AND over = 0 " if in_play else ""
        return sorted(number for (number,) in self._connection.execute(
            f"SELECT id FROM games WHERE white_player = ? {over}"
            f"UNION SELECT id FROM games WHERE black_player = ? {over}",
            (player, player)).fetchall())

    def listed_of(self, numbers: list[int]) -> list[Listed]:
        """:meth:`listed` of the games ``numbers`` alone (a player's), oldest first."""
        found = []
        for start in range(0, len(numbers), 500):     # SQLite's bound on parameters
            part = numbers[start:start + 500]
            found += self._connection.execute(
                f"SELECT id, over, summary, changed FROM games WHERE id IN "
                f"({', '.join('?' * len(part))})", part).fetchall()
        return sorted((Listed(number, bool(over), summary, changed)
                       for number, over, summary, changed in found), key=lambda row: row.id)

    def unsettled(self) -> list[int]:
        """The finished games whose end the season has not yet taken, oldest first."""
        return [number for (number,) in self._connection.execute(
            "SELECT id FROM games WHERE over = 1 AND settled = 0 ORDER BY id").fetchall()]

    def settle(self, number: int) -> None:
        """Say that the season has taken game ``number``'s end (in the caller's transaction)."""
        self._connection.execute("UPDATE games SET settled = 1 WHERE id = ?", (number,))

    def rename_player(self, player: int, name: str) -> None:
        """Show ``player`` as ``name`` in the games they play now (a finished game keeps
        the name it was played under, as its record does)."""
        for column, name_column in (("white_player", "white_name"), ("black_player", "black_name")):
            self._connection.execute(
                f"UPDATE games SET {name_column} = ? WHERE {column} = ? AND over = 0",
                (name, player))

    def readdress_player(self, player: int, address: str) -> None:
        """Mail ``player`` at ``address`` in the games they play now."""
        for column, address_column in (("white_player", "white_address"),
                                       ("black_player", "black_address")):
            self._connection.execute(
                f"UPDATE games SET {address_column} = ? WHERE {column} = ? AND over = 0",
                (address, player))

    def save(self, number: int, change: GameChange) -> None:
        """Write ``change`` over game ``number``: its row, and its lines and leave anew."""
        self._connection.execute(
            "UPDATE games SET record = ?, over = ?, thread = ?, reminded_ply = ?, next_due = ?, "
            "summary = ?, acted_at = ?, reminders_sent = ?, "
            "changed = (SELECT COALESCE(MAX(changed), 0) + 1 FROM games) WHERE id = ?",
            (change.record, int(change.over), change.thread, change.reminded_ply, change.due,
             change.summary, change.acted_at, change.reminders_sent, number))
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

    def seat_of(self, address: str) -> tuple[int, int] | None:
        """The newest game (and side) ``address`` plays or played in; None when it is no
        player's."""
        row = self._connection.execute(
            "SELECT id, CASE WHEN white_address = ? THEN 0 ELSE 1 END FROM games "
            "WHERE white_address = ? OR black_address = ? ORDER BY over, id DESC LIMIT 1",
            (address, address, address)).fetchone()
        return None if row is None else (row[0], row[1])

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

    def look_again(self) -> None:
        """Have the next tick look at every game in play once (a setting that moves when
        something is due changed), in the caller's transaction."""
        self._connection.execute("UPDATE games SET next_due = 0 WHERE over = 0")

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

    def keep_summaries(self, summaries: dict[int, str]) -> None:
        """Save summaries read afresh from the games' records (number -> JSON) for games
        that had none, in the caller's transaction. Their change number stays: the games
        did not change, only what the index knows of them."""
        self._connection.executemany(
            "UPDATE games SET summary = ? WHERE id = ? AND summary IS NULL",
            [(summary, number) for number, summary in summaries.items()])

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


# --------------------------------------------------------------------------- the players
@dataclass(frozen=True)
class PlayerRow:
    """A club's player: who they are, where they are mailed, their rating (Glicko-2's
    three numbers) and whether the organiser approved them."""

    id: int
    name: str
    address: str
    rating: float
    deviation: float
    volatility: float
    approved: bool
    created: int


_PLAYER_COLUMNS = "id, name, address, rating, deviation, volatility, approved, created"


def _player(row) -> PlayerRow | None:
    return None if row is None else PlayerRow(*row[:6], bool(row[6]), row[7])


class Players:
    """The club's players and every address each writes from. Names and addresses are
    matched whatever their case (the columns' NOCASE collation)."""

    def __init__(self, connection: sqlite3.Connection):
        self._connection = connection

    def add(self, name: str, address: str, at: int, *, rating: float = 1500.0,
            deviation: float = 350.0, volatility: float = 0.06, approved: bool = True) -> int:
        """A new player, mailed at ``address``; their number. The caller has checked that
        neither the name nor the address is taken."""
        number = self._connection.execute(
            "INSERT INTO players (name, address, rating, deviation, volatility, approved, "
            "created) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (name, address, rating, deviation, volatility, int(approved), at)).lastrowid
        self._connection.execute("INSERT INTO player_addresses (address, player) VALUES (?, ?)",
                                 (address, number))
        return number

    def get(self, number: int) -> PlayerRow | None:
        return _player(self._connection.execute(
            f"SELECT {_PLAYER_COLUMNS} FROM players WHERE id = ?", (number,)).fetchone())

    def by_name(self, name: str) -> PlayerRow | None:
        return _player(self._connection.execute(
            f"SELECT {_PLAYER_COLUMNS} FROM players WHERE name = ?", (name,)).fetchone())

    def by_address(self, address: str) -> PlayerRow | None:
        """The player who writes from ``address`` (any of theirs), or None."""
        return _player(self._connection.execute(
            f"SELECT {_PLAYER_COLUMNS} FROM players WHERE id = "
            f"(SELECT player FROM player_addresses WHERE address = ?)", (address,)).fetchone())

    def all(self) -> list[PlayerRow]:
        """Every player, by name."""
        return [_player(row) for row in self._connection.execute(
            f"SELECT {_PLAYER_COLUMNS} FROM players ORDER BY name")]

    def addresses(self, number: int) -> list[str]:
        """Every address of player ``number``, in the order they were added."""
        return [address for (address,) in self._connection.execute(
            "SELECT address FROM player_addresses WHERE player = ? ORDER BY rowid", (number,))]

    def owns(self, number: int, address: str) -> bool:
        """Whether ``address`` is one of player ``number``'s."""
        return self._connection.execute(
            "SELECT 1 FROM player_addresses WHERE address = ? AND player = ?",
            (address, number)).fetchone() is not None

    def add_address(self, number: int, address: str) -> None:
        """Add ``address`` to player ``number``'s (kept when it is theirs already) and mail
        them there from now on."""
        self._connection.execute(
            "INSERT OR IGNORE INTO player_addresses (address, player) VALUES (?, ?)",
            (address, number))
        self._connection.execute("UPDATE players SET address = ? WHERE id = ?", (address, number))

    def rename(self, number: int, name: str) -> None:
        self._connection.execute("UPDATE players SET name = ? WHERE id = ?", (name, number))

    def approve(self, number: int) -> None:
        self._connection.execute("UPDATE players SET approved = 1 WHERE id = ?", (number,))

    def set_rating(self, number: int, rating: float, deviation: float, volatility: float) -> None:
        self._connection.execute(
            "UPDATE players SET rating = ?, deviation = ?, volatility = ? WHERE id = ?",
            (rating, deviation, volatility, number))


@dataclass(frozen=True)
class RatingRow:
    """A player's rating after one rated game (Glicko-2's three numbers), and when."""

    game: int
    at: int
    rating: float
    deviation: float
    volatility: float


class Ratings:
    """Each player's rating after each rated game: the history their page draws."""

    def __init__(self, connection: sqlite3.Connection):
        self._connection = connection

    def add(self, player: int, game: int, at: int, rating: float, deviation: float,
            volatility: float) -> None:
        self._connection.execute(
            "INSERT INTO ratings (player, game, at, rating, deviation, volatility) "
            "VALUES (?, ?, ?, ?, ?, ?)", (player, game, at, rating, deviation, volatility))

    def history(self, player: int) -> list[RatingRow]:
        """Player ``player``'s rating after each rated game, oldest first."""
        return [RatingRow(*row) for row in self._connection.execute(
            "SELECT game, at, rating, deviation, volatility FROM ratings WHERE player = ? "
            "ORDER BY id", (player,))]


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

    def stuck(self, failing_before: int, given_up_since: int) -> list[Waiting]:
        """The messages not sent that a person should look at, oldest first: those given
        up at ``given_up_since`` or later, and those still tried that were queued before
        ``failing_before`` and failed at least once."""
        rows = self._connection.execute(
            _WAITING + " AND ((failed_at IS NOT NULL AND failed_at >= ?) OR (failed_at IS NULL "
            "AND attempts > 0 AND queued_at < ?)) ORDER BY id",
            (given_up_since, failing_before)).fetchall()
        return [Waiting(*row[:6], _whole(row[6]), _whole(row[7])) for row in rows]

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
    """When each address was last sent an explanation, by kind (``refused``: its own mail
    was refused; ``forged``: mail from another address reached its seat), to limit them."""

    def __init__(self, connection: sqlite3.Connection):
        self._connection = connection

    def count_since(self, address: str, since: int, kind: str = "refused") -> int:
        (count,) = self._connection.execute(
            "SELECT COUNT(*) FROM replies WHERE address = ? AND at > ? AND kind = ?",
            (address, since, kind)).fetchone()
        return count

    def oldest_since(self, address: str, since: int, kind: str = "refused") -> int | None:
        """The earliest explanation of ``kind`` to ``address`` after ``since`` (None: none)."""
        (oldest,) = self._connection.execute(
            "SELECT MIN(at) FROM replies WHERE address = ? AND at > ? AND kind = ?",
            (address, since, kind)).fetchone()
        return oldest

    def forget_until(self, until: int) -> None:
        self._connection.execute("DELETE FROM replies WHERE at <= ?", (until,))

    def add(self, address: str, at: int, kind: str = "refused") -> None:
        self._connection.execute("INSERT INTO replies (address, at, kind) VALUES (?, ?, ?)",
                                 (address, at, kind))


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


# --------------------------------------------------------------------------- bounces

@dataclass(frozen=True)
class BounceRow:
    """A delivery report of a message the referee sent: the inbox message it came in,
    when, the address that failed, the game and side it names (None: none), and why."""

    message: int
    at: int
    address: str
    game: int | None
    side: int | None
    reason: str


@dataclass(frozen=True)
class Bounced:
    """A kept bounce, with the name and the address its seat has now (None without one)."""

    row: BounceRow
    player: str | None
    seat_address: str | None


class Bounces:
    """The delivery reports of messages sent: never answered, kept for the organiser."""

    def __init__(self, connection: sqlite3.Connection):
        self._connection = connection

    def add(self, bounce: BounceRow) -> None:
        self._connection.execute(
            "INSERT INTO bounces (message, at, address, game, side, reason) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (bounce.message, bounce.at, bounce.address, bounce.game, bounce.side, bounce.reason))

    def since(self, since: int) -> list[Bounced]:
        """The bounces that came at ``since`` or later, oldest first, each with its seat's
        player as the game's row holds them now."""
        rows = self._connection.execute(
            "SELECT b.message, b.at, b.address, b.game, b.side, b.reason, "
            "CASE b.side WHEN 0 THEN g.white_name WHEN 1 THEN g.black_name END, "
            "CASE b.side WHEN 0 THEN g.white_address WHEN 1 THEN g.black_address END "
            "FROM bounces AS b LEFT JOIN games AS g ON g.id = b.game "
            "WHERE b.at >= ? ORDER BY b.id", (since,)).fetchall()
        return [Bounced(BounceRow(*row[:6]), row[6], row[7]) for row in rows]

    def of_games_in_play(self) -> list[Bounced]:
        """The bounces of players of games still in play whose seat still has the address
        that failed, newest first: for those the organiser should reach another way."""
        rows = self._connection.execute(
            "SELECT b.message, b.at, b.address, b.game, b.side, b.reason, "
            "CASE b.side WHEN 0 THEN g.white_name ELSE g.black_name END, "
            "CASE b.side WHEN 0 THEN g.white_address ELSE g.black_address END "
            "FROM bounces AS b JOIN games AS g ON g.id = b.game "
            "WHERE g.over = 0 AND b.side IN (0, 1) AND b.address = "
            "CASE b.side WHEN 0 THEN g.white_address ELSE g.black_address END "
            "ORDER BY b.id DESC").fetchall()
        return [Bounced(BounceRow(*row[:6]), row[6], row[7]) for row in rows]


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


@dataclass(frozen=True)
class KeptRow:
    """A game in play as the status index lists it: its row as kept when it was drawn from
    the game as saved now (``fingerprint``), else None and the saved summary to draw it
    from (None too when an older program saved the game: its record must be read)."""

    game: int
    fingerprint: str
    row: bytes | None
    summary: str | None


class PageParts:
    """Parts of the status pages kept between runs of page, each with the state of the
    games it was drawn from (its fingerprint): drawn again only when that state moved."""

    def __init__(self, connection: sqlite3.Connection):
        self._connection = connection

    def rows_in_play(self, prefix: str, version: int) -> list[KeptRow]:
        """Each game in play's kept row (part ``PREFIX`` + its number), oldest game first;
        a row is current when its fingerprint is ``VERSION:CHANGED``, the game's change
        number. Only the stale rows' summaries are read: the rest is the rows' bytes."""
        wanted = "? || ':' || games.changed"
        rows = self._connection.execute(
            f"SELECT games.id, {wanted}, "
            f"CASE WHEN page_parts.fingerprint = {wanted} THEN page_parts.data END, "
            f"CASE WHEN page_parts.fingerprint IS NOT {wanted} THEN games.summary END "
            "FROM games LEFT JOIN page_parts ON page_parts.name = ? || games.id "
            "WHERE games.over = 0", (version, version, version, prefix)).fetchall()
        # Sorted here: ORDER BY id would read the games by their rows, records and all.
        return sorted((KeptRow(*row) for row in rows), key=lambda kept: kept.game)

    def forget_finished_rows(self, prefix: str) -> None:
        """Drop the kept rows (``PREFIX`` + number) of the games no longer in play."""
        self._connection.execute(
            "DELETE FROM page_parts WHERE name IN (SELECT ? || id FROM games WHERE over = 1)",
            (prefix,))

    def get(self, name: str) -> PagePart | None:
        row = self._connection.execute(
            "SELECT fingerprint, data FROM page_parts WHERE name = ?", (name,)).fetchone()
        return None if row is None else PagePart(*row)

    def keep(self, name: str, part: PagePart) -> None:
        self._connection.execute(
            "INSERT INTO page_parts (name, fingerprint, data) VALUES (?, ?, ?) "
            "ON CONFLICT (name) DO UPDATE SET fingerprint = excluded.fingerprint, "
            "data = excluded.data", (name, part.fingerprint, part.data))


# --------------------------------------------------------------------------- takes and outages

MAX_OUTAGES_KEPT = 100


@dataclass(frozen=True)
class TakeMark:
    """When the referee last took mail, and whether it has ticked at least once."""

    last: int
    ticked: bool


@dataclass(frozen=True)
class OutageRow:
    """An outage the referee found: from ``begins`` to ``ends``, credited in ``games`` games."""

    begins: int
    ends: int
    games: int


class Takes:
    """The last time the referee took mail (one row, never more), and the outages found."""

    def __init__(self, connection: sqlite3.Connection):
        self._connection = connection

    def mark(self) -> TakeMark | None:
        row = self._connection.execute("SELECT last, ticked FROM takes WHERE id = 1").fetchone()
        return None if row is None else TakeMark(row[0], bool(row[1]))

    def note(self, now: int, ticked: bool) -> None:
        """A take at ``now`` (a clock stepped back keeps the later time); ``ticked`` once
        tick has run stays so."""
        self._connection.execute(
            "INSERT INTO takes (id, last, ticked) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE "
            "SET last = max(last, excluded.last), ticked = max(ticked, excluded.ticked)",
            (now, int(ticked)))

    def add_outage(self, outage: OutageRow) -> None:
        self._connection.execute("INSERT INTO outages (begins, ends, games) VALUES (?, ?, ?)",
                                 (outage.begins, outage.ends, outage.games))
        self._connection.execute(
            "DELETE FROM outages WHERE id NOT IN (SELECT id FROM outages ORDER BY id DESC "
            "LIMIT ?)", (MAX_OUTAGES_KEPT,))

    def outages(self) -> list[OutageRow]:
        """The outages found, oldest first."""
        return [OutageRow(*row) for row in self._connection.execute(
            "SELECT begins, ends, games FROM outages ORDER BY id")]

    def add_notice(self, game: int, side: int, begins: int, ends: int) -> None:
        """Tell ``side`` of ``game`` of an outage credited to it, in its next message."""
        self._connection.execute(
            "INSERT INTO outage_notices (game, side, begins, ends) VALUES (?, ?, ?, ?)",
            (game, side, begins, ends))

    def take_notices(self, game: int, side: int) -> list[tuple[int, int]]:
        """The outages ``side`` of ``game`` is not told of yet, (begins, ends) oldest
        first, forgotten as they are taken (the caller's message tells them)."""
        rows = self._connection.execute(
            "SELECT begins, ends FROM outage_notices WHERE game = ? AND side = ? "
            "ORDER BY begins", (game, side)).fetchall()
        if rows:
            self._connection.execute("DELETE FROM outage_notices WHERE game = ? AND side = ?",
                                     (game, side))
        return [(begins, ends) for begins, ends in rows]


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


@dataclass(frozen=True)
class CalendarRow:
    """A game's calendar events as last sent: their SEQUENCE and what they showed."""

    sequence: int
    shown: str


class Calendars:
    """What each game's calendar events last showed, and their SEQUENCE (both players'
    events share it: one change of the game moves both)."""

    def __init__(self, connection: sqlite3.Connection):
        self._connection = connection

    def last(self, game: int) -> CalendarRow | None:
        row = self._connection.execute(
            "SELECT sequence, shown FROM calendars WHERE game = ?", (game,)).fetchone()
        return None if row is None else CalendarRow(*row)

    def sequence(self, game: int, shown: str) -> int:
        """The SEQUENCE of game ``game``'s events showing ``shown``: 0 the first time, the
        last one's while they show the same, one more when what they show changed."""
        last = self.last(game)
        if last is not None and last.shown == shown:
            return last.sequence
        sequence = 0 if last is None else last.sequence + 1
        self._connection.execute(
            "INSERT INTO calendars (game, sequence, shown) VALUES (?, ?, ?) ON CONFLICT (game) "
            "DO UPDATE SET sequence = excluded.sequence, shown = excluded.shown",
            (game, sequence, shown))
        return sequence


# --------------------------------------------------------------------------- leave across games

@dataclass(frozen=True)
class ClubLeaveRow:
    """A player's leave across their games: days ``YYYY-MM-DD``, both inclusive."""

    id: int
    player: int
    first_day: str
    last_day: str
    taken_at: int


class ClubLeaves:
    """Each player's leave across all their games (:mod:`tomis.referee.clubleave`): the
    periods kept, none cancelled, and their cancelling."""

    def __init__(self, connection: sqlite3.Connection):
        self._connection = connection

    def add(self, player: int, first_day: str, last_day: str, at: int) -> int:
        return self._connection.execute(
            "INSERT INTO club_leaves (player, first_day, last_day, taken_at) VALUES (?, ?, ?, ?)",
            (player, first_day, last_day, at)).lastrowid

    def of_player(self, player: int) -> list[ClubLeaveRow]:
        """``player``'s leave kept (not cancelled), by first day."""
        return [ClubLeaveRow(*row) for row in self._connection.execute(
            "SELECT id, player, first_day, last_day, taken_at FROM club_leaves "
            "WHERE player = ? AND cancelled_at IS NULL ORDER BY first_day, id", (player,))]

    def all_kept(self) -> list[ClubLeaveRow]:
        """Every player's leave kept, by player and first day (the organiser's listing)."""
        return [ClubLeaveRow(*row) for row in self._connection.execute(
            "SELECT id, player, first_day, last_day, taken_at FROM club_leaves "
            "WHERE cancelled_at IS NULL ORDER BY player, first_day, id")]

    def cancel(self, id: int, at: int) -> None:
        self._connection.execute(
            "UPDATE club_leaves SET cancelled_at = ? WHERE id = ?", (at, id))


# --------------------------------------------------------------------------- the club's mail

CONFIRM, CHALLENGE = "confirm", "challenge"      # the two kinds of one-time request


@dataclass(frozen=True)
class RequestRow:
    """A one-time request (:mod:`.clubmail`): a command waiting for its confirmation
    (:data:`CONFIRM`) or a challenge waiting for its player's answer (:data:`CHALLENGE`),
    the address its one-time reply address was mailed to, the player it concerns (None:
    one who is joining), the command (JSON), when it was made and when it was used."""

    id: int
    kind: str
    address: str
    player: int | None
    command: str
    created: int
    used_at: int | None


class Requests:
    """The club's one-time requests, each used at most once."""

    def __init__(self, connection: sqlite3.Connection):
        self._connection = connection

    def add(self, kind: str, address: str, player: int | None, command: str,
            created: int) -> int:
        return self._connection.execute(
            "INSERT INTO club_requests (kind, address, player, command, created) "
            "VALUES (?, ?, ?, ?, ?)", (kind, address, player, command, created)).lastrowid

    def get(self, number: int) -> RequestRow | None:
        row = self._connection.execute(
            "SELECT id, kind, address, player, command, created, used_at FROM club_requests "
            "WHERE id = ?", (number,)).fetchone()
        return None if row is None else RequestRow(*row)

    def use(self, number: int, at: int) -> bool:
        """Mark request ``number`` used at ``at``; False when it was used already."""
        return self._connection.execute(
            "UPDATE club_requests SET used_at = ? WHERE id = ? AND used_at IS NULL",
            (at, number)).rowcount == 1

    def forget_before(self, before: int) -> int:
        """Drop the requests made before ``before`` (lapsed or used: a reply to one reads
        as to no request, and does nothing); how many."""
        return self._connection.execute(
            "DELETE FROM club_requests WHERE created < ?", (before,)).rowcount

    def count_since(self, address: str, since: int, kind: str) -> int:
        """How many requests of ``kind`` were mailed to ``address`` after ``since``."""
        (count,) = self._connection.execute(
            "SELECT COUNT(*) FROM club_requests WHERE address = ? AND created > ? AND kind = ?",
            (address, since, kind)).fetchone()
        return count


class Digests:
    """Each player's digest: how often (``daily``, ``weekly``) and when it is next due,
    indexed so that tick reads only the players whose digest is due."""

    def __init__(self, connection: sqlite3.Connection):
        self._connection = connection

    def set(self, player: int, every: str, due: int) -> None:
        self._connection.execute(
            "INSERT INTO digests (player, every, due) VALUES (?, ?, ?) ON CONFLICT (player) "
            "DO UPDATE SET every = excluded.every, due = excluded.due", (player, every, due))

    def stop(self, player: int) -> None:
        self._connection.execute("DELETE FROM digests WHERE player = ?", (player,))

    def every(self, player: int) -> str | None:
        row = self._connection.execute("SELECT every FROM digests WHERE player = ?",
                                       (player,)).fetchone()
        return None if row is None else row[0]

    def due(self, now: int) -> list[int]:
        """The players whose digest is due by ``now``, by the index on ``due``."""
        return [player for (player,) in self._connection.execute(
            "SELECT player FROM digests WHERE due <= ? ORDER BY due, player", (now,))]

    def set_due(self, player: int, due: int) -> None:
        self._connection.execute("UPDATE digests SET due = ? WHERE player = ?", (due, player))


# --------------------------------------------------------------------------- create, open, upgrade

def _create(path: str, settings: dict[str, str]) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise StoreError("already exists; the referee never overwrites a store", path) from None
    except OSError as error:
        raise StoreError(f"cannot create the store: {error.strerror}", path) from None
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
        raise StoreError(f"cannot create the store: {error}", path) from None
    finally:
        if connection is not None:
            connection.close()


def _open_connection(path: str, timeout_ms: int) -> sqlite3.Connection:
    check_reachable(path)
    connection = None
    try:
        connection = _connect(path, timeout_ms)
        # fetchall: a statement left open would lock the tables against an upgrade.
        rows = connection.execute("SELECT value FROM settings WHERE key = 'schema'").fetchall()
        number = _version(rows[0] if rows else None)
        if number is None:
            raise StoreError("not a referee store (no schema version)", path)
        if number > SCHEMA_VERSION:
            raise StoreError(f"a referee store of version {number}, newer than this tomis "
                             f"reads ({SCHEMA_VERSION}): upgrade tomis", path)
        if number < SCHEMA_VERSION:
            upgrade(connection, path, number)
    except BaseException as error:
        if connection is not None:
            connection.close()
        if isinstance(error, sqlite3.OperationalError) and _is_busy(error):
            raise Busy(f"the store {path} is busy: {error}") from None
        if isinstance(error, sqlite3.OperationalError) and _cannot_open(error):
            raise StoreError(_folder_refused(path, error), path) from None
        if isinstance(error, sqlite3.DatabaseError):
            raise StoreError(f"not a referee store ({error})", path) from None
        raise
    return connection


# --------------------------------------------------------------------------- who may open it

def check_reachable(path: str) -> None:
    """A StoreError in one line when the store at ``path`` is missing, is no file, or
    exists but this user may not read and write it (or reach its folder), naming whose
    it is and its mode: a store its user cannot read is not "no such store"."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise StoreError("no such store (create one with tomis referee init)", path) from None
    except PermissionError as error:
        blocked = _blocked_folder(path)
        if blocked is None:
            raise StoreError(f"cannot reach the store: {error.strerror}", path) from None
        raise StoreError(f"cannot reach the store: its folder {blocked} {_whose(blocked)}, "
                         f"which {_this_user()} may not enter", path) from None
    except OSError as error:
        raise StoreError(f"cannot reach the store: {error.strerror}", path) from None
    if not stat.S_ISREG(info.st_mode):
        raise StoreError("no such store: not a regular file", path)
    if not os.access(path, os.R_OK | os.W_OK):
        raise StoreError(f"cannot read and write the store: it {_whose(path)}, and this "
                         f"command runs as {_this_user()}", path)


def _blocked_folder(path: str) -> str | None:
    """The first folder on the way to ``path`` this user may not enter, or None."""
    folder = os.path.dirname(os.path.abspath(path))
    chain = [folder]
    while os.path.dirname(chain[-1]) != chain[-1]:
        chain.append(os.path.dirname(chain[-1]))
    for folder in reversed(chain):
        if not os.access(folder, os.X_OK):
            return folder
    return None


def _folder_refused(path: str, error: sqlite3.Error) -> str:
    """Why SQLite could not open a store this user may read and write: its folder, where
    the -wal and -shm files live, refused them."""
    folder = os.path.dirname(os.path.abspath(path))
    return (f"cannot open the store ({error}): its folder {folder} {_whose(folder)}; "
            f"the referee writes its -wal and -shm files there as {_this_user()}")


def _cannot_open(error: sqlite3.Error) -> bool:
    text = str(error).lower()
    return "unable to open" in text or "readonly" in text


def _whose(path: str) -> str:
    """``belongs to USER (mode 0600)``; the number when the owner has no name here."""
    try:
        info = os.stat(path)
    except OSError as error:
        return f"cannot be looked at ({error.strerror})"
    return f"belongs to {_user_name(info.st_uid)} (mode {stat.S_IMODE(info.st_mode):04o})"


def _this_user() -> str:
    return _user_name(os.getuid())


def _user_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"user {uid}"


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
