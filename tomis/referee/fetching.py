"""Taking players' messages from a mailbox instead of a mail server's pipe: a Maildir on
this host, or a folder of an IMAP server (a provider's mailbox).

Each message is taken as ``deliver`` takes one: stored and committed first
(:func:`.service.store_message`, de-duplicated by Message-ID or bytes), then decided
(:mod:`.process`). Only then is it marked taken in the mailbox, so a process killed in
between takes it again next time and the store ignores the copy: nothing is lost, and
nothing acts twice.

- Maildir: a message of ``new/`` (or one of ``cur/`` a mail program saw but that lacks
  the ``S`` flag) is renamed into ``cur/`` with the ``S`` (seen) flag, the Maildir way.
- IMAP: the folder is opened read-only (``EXAMINE``, ``BODY.PEEK``); the store remembers
  the folder's ``UIDVALIDITY`` and the last UID taken. When the server changes
  ``UIDVALIDITY`` (a folder rebuilt, a provider moved), every message is read again and
  de-duplication drops those already stored.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Callable, Iterator

from ..errors import TomisError, one_line, visible
from ..mail import imap
from .inbound import MAX_MESSAGE_BYTES
from .queueing import Config
from .outages import note_take
from .process import process_pending
from .sending import send_queued
from .service import connect, store_message
from .stamps import maildir_time
from .store import FolderMark, Store

MAX_PER_ROUND = 200            # messages taken by one fetch; the next takes the rest
SEEN = "S"


class FetchError(TomisError):
    """A mailbox that cannot be read: a missing Maildir, an IMAP server that refuses."""


@dataclass(frozen=True)
class Outcome:
    """What became of one message taken: its name in the mailbox, its row in the store
    (None: a copy of one stored before), and what the referee did with it."""

    source: str
    stored: int | None
    state: str
    reason: str | None
    game: int | None
    note: str | None = None     # why it was stamped with the store time, not the mailbox's

    def log_line(self) -> str:
        if self.stored is None:
            return f"{self.source}: a copy of a message taken before, ignored"
        game = f"game {self.game}" if self.game is not None else "no game"
        return (f"{self.source}: message {self.stored}, {game}, {self.state}: "
                f"{visible(one_line(self.reason or ''))}")

    def note_line(self) -> str | None:
        """The log's second line for a message stamped with the store time although the
        mailbox said when it came (why), or None."""
        if self.stored is None or not self.note:
            return None
        return f"{self.source}: {visible(one_line(self.note))}"


@dataclass(frozen=True)
class FetchedMessage:
    """A message read from a mailbox, how to mark it taken once it is stored, and when the
    mailbox received it (the Maildir name's time, the IMAP INTERNALDATE; None: unknown)."""

    source: str
    raw: bytes
    oversized: bool
    mark_taken: Callable[[], None]
    received_at: int | None = None


Stop = Callable[[], bool]


def take_all(store: Store, config: Config, messages: Iterator[FetchedMessage], now: Callable[[], int],
             stop: Stop, log: Callable[[Outcome], None]) -> int:
    """Store, decide and mark each message in turn, until ``stop()`` says so between two;
    how many were taken."""
    count = 0
    for incoming in messages:
        log(take_one(store, config, incoming, now()))
        count += 1
        if stop():
            break
    return count


def take_one(store: Store, config: Config, incoming: FetchedMessage, at: int) -> Outcome:
    stored = store_message(store, incoming.raw, incoming.oversized, None, at,
                           incoming.received_at)
    process_pending(store, config)
    incoming.mark_taken()
    if stored.id is None:
        return Outcome(incoming.source, None, "ignored", None, None)
    decision = store.inbox.decision(stored.id)
    return Outcome(incoming.source, stored.id, decision.state, decision.reason, decision.game,
                   store.inbox.stamp(stored.id).note)


# --------------------------------------------------------------------------- Maildir

def check_maildir(folder: str) -> None:
    for part in ("new", "cur", "tmp"):
        if not os.path.isdir(os.path.join(folder, part)):
            raise FetchError(f"{folder} is not a Maildir: it has no {part}/ folder")


def maildir_messages(folder: str) -> Iterator[FetchedMessage]:
    """The messages not yet taken, oldest name first: all of ``new/``, then those of
    ``cur/`` without the ``S`` flag; at most :data:`MAX_PER_ROUND`."""
    check_maildir(folder)
    waiting = [("new", name) for name in sorted(_names(folder, "new"))]
    waiting += [("cur", name) for name in sorted(_names(folder, "cur"))
                if SEEN not in _flags(name)]
    for part, name in waiting[:MAX_PER_ROUND]:
        path = os.path.join(folder, part, name)
        try:
            raw, oversized = _read_bounded(path)
        except FileNotFoundError:
            continue                       # another reader took it meanwhile
        except OSError as error:
            raise FetchError(f"cannot read {visible(path)}: {error.strerror}") from None
        yield FetchedMessage(f"{part}/{visible(name)}", raw, oversized,
                             lambda folder=folder, part=part, name=name: _mark_seen(folder, part, name),
                             maildir_time(name))


def _names(folder: str, part: str) -> list[str]:
    # Names starting with a dot are not messages (the Maildir convention).
    return [name for name in os.listdir(os.path.join(folder, part)) if not name.startswith(".")]


def _flags(name: str) -> str:
    _base, sep, info = name.rpartition(":2,")
    return info if sep else ""


def _read_bounded(path: str) -> tuple[bytes, bool]:
    with open(path, "rb") as handle:
        raw = handle.read(MAX_MESSAGE_BYTES + 1)
    if len(raw) > MAX_MESSAGE_BYTES:
        return raw[:MAX_MESSAGE_BYTES], True
    return raw, False


def _mark_seen(folder: str, part: str, name: str) -> None:
    """Rename the message into ``cur/`` with the ``S`` flag added to its info."""
    base, sep, info = name.rpartition(":2,")
    if not sep:
        base, info = name, ""
    flags = "".join(sorted(set(info) | {SEEN}))
    try:
        os.rename(os.path.join(folder, part, name), os.path.join(folder, "cur", f"{base}:2,{flags}"))
    except FileNotFoundError:
        pass                               # another reader marked it; it is stored either way


# --------------------------------------------------------------------------- IMAP

def imap_messages(store: Store, place_text: str, env=None) -> Iterator[FetchedMessage]:
    """The messages of the IMAP folder above the last UID taken (all of them when the
    folder's ``UIDVALIDITY`` changed), oldest first, at most :data:`MAX_PER_ROUND`."""
    place = imap.parse_place(place_text)
    key = str(place)
    with imap.Folder(place, imap.settings(env), imap.env_password) as folder:
        validity = folder.uidvalidity()
        known = store.folders.mark(key)
        last = known.last_uid if known is not None and known.uidvalidity == validity else 0
        for uid in folder.uids_after(last)[:MAX_PER_ROUND]:
            fetched = folder.fetch_uid(uid, MAX_MESSAGE_BYTES)
            oversized = len(fetched.data) > MAX_MESSAGE_BYTES
            yield FetchedMessage(f"UID {uid}", fetched.data[:MAX_MESSAGE_BYTES], oversized,
                                 lambda uid=uid: _remember(store, key, validity, uid),
                                 fetched.received)


def _remember(store: Store, key: str, validity: int, uid: int) -> None:
    with store.transaction():
        store.folders.remember(key, FolderMark(validity, uid))


# --------------------------------------------------------------------------- fetch

@dataclass(frozen=True)
class Mailbox:
    """Where players' messages wait: a Maildir folder or an IMAP place (one of the two)."""

    maildir: str | None = None
    imap: str | None = None

    def messages(self, store: Store) -> Iterator[FetchedMessage]:
        if self.maildir is not None:
            return maildir_messages(self.maildir)
        return imap_messages(store, self.imap)


@dataclass
class FetchReport:
    taken: int = 0
    failures: list | None = None       # messages not sent yet (sending.Unsent)


def fetch(path: str, mailbox: Mailbox, clock: Callable[[], int], *,
          stop: Stop = lambda: False, log: Callable[[Outcome], None] = lambda _o: None) -> FetchReport:
    """Take the new messages of ``mailbox`` into the store at ``path``, then send what
    they caused; ``clock()`` stamps each as it is stored."""
    store, config = connect(path)
    with store:
        note_take(store, config.settings, clock(), ticked=False)     # an outage it ends, credited first
        messages = mailbox.messages(store)
        try:
            taken = take_all(store, config, messages, clock, stop, log)
            return FetchReport(taken, send_queued(store, config.settings, now=clock(), retry=False,
                                              stop=stop))
        finally:
            messages.close()             # logs out of an IMAP server at once


def host_clock() -> int:
    return int(time.time())
