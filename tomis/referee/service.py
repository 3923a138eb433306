"""The referee's commands as library calls: ``init``, ``new``, ``deliver`` (store, then
process, then send) and ``tick``. The CLI (:mod:`tomis.cli.referee`) parses options and
prints; everything it does is here."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.headerregistry import Address
from typing import Callable, Sequence

from ..errors import MailError, TomisError
from ..game import Game as LibraryGame
from ..notation import clock
from ..notation.clock import format_stamp
from ..outgoing.headers import address_pairs
from . import club, clubmail, letters, stamps, tokens
from .alerts import report_if_due
from .games import RefereedGame
from .inbound import (MAX_ENVELOPE, MAX_MESSAGE_BYTES, envelope_addresses, envelope_text,
                      stored_envelope, valid_id)
from .queueing import CHAT_WINDOW, WHY_WINDOW, Config, load_config, queue_letter, queue_update
from .composing import HELP_LINES, Addressee
from .outages import note_take
from .players import RefereeError, Terms, check_name, seat_named, start_game
from .process import STRANGER, expire, process_pending
from .season import settle_endings
from .sending import Unsent, absolute_method, parse_method, send_queued
from .store import Store

_MESSAGE_ID_HEADER = re.compile(rb"^Message-ID:[ \t]*(.*(?:\r?\n[ \t].*)*)", re.IGNORECASE | re.MULTILINE)


# --------------------------------------------------------------------------- init, new

def init(path: str, address: str, name: str | None, send_by: str, config_file: str | None,
         club_settings: dict[str, str | None] | None = None,
         received_by: tuple[str, ...] = ()) -> None:
    """Create the store at ``path``: the referee's address and name, how it sends, its
    secret, the club's settings given (:data:`tomis.referee.club.SETTINGS`), and the hosts
    whose ``Received:`` fields say when a message came (:mod:`.stamps`)."""
    local, _, domain = address.rpartition("@")
    try:
        Address(username=local, domain=domain)
    except (ValueError, IndexError):
        raise RefereeError(f"{address!r} is not a mail address like referee@club.example") from None
    if not local or not domain or "+" in local or not re.fullmatch(r"[A-Za-z0-9._-]+", local) \
            or not re.fullmatch(r"[A-Za-z0-9.-]+\.[A-Za-z0-9-]+", domain):
        raise RefereeError(f"{address!r} must be a plain address like referee@club.example "
                           f"(letters, digits, '.', '_' and '-' before the @, no '+')")
    if not tokens.local_part_room(local):
        raise RefereeError(f"the part before the @ of {address!r} is too long for reply "
                           f"tokens: at most {tokens.MAX_LOCAL_PART - 1 - tokens.TOKEN_LENGTH} "
                           f"characters")
    try:
        parse_method(send_by)
    except ValueError as error:
        raise RefereeError(f"--send-by {send_by!r}: {error}") from None
    # Paths are kept absolute, taken in the folder init runs in: later commands run
    # elsewhere (deliver in the mail server's folder).
    values = {"address": address.lower(), "name": check_name(name or "Tomis referee", "--name"),
              "send_by": absolute_method(send_by), "secret": tokens.new_secret()}
    try:
        hosts = stamps.parse_hosts(received_by)
    except ValueError as error:
        raise RefereeError(f"--received-by: {error}") from None
    if hosts:
        values[stamps.RECEIVED_BY] = hosts
    if config_file:
        values["config"] = os.path.abspath(config_file)
    try:
        values.update(club.checked(club_settings or {}, values))
        values.update({setting.key: setting.default for setting in club.SETTINGS
                       if setting.default is not None and setting.key not in values})
    except club.SettingError as error:
        raise RefereeError(str(error)) from None
    Store.create(path, values)


def connect(path: str) -> tuple[Store, Config]:
    """The store at ``path``, open, and its settings; the caller closes the store (a
    ``with`` block does)."""
    store = Store.open(path)
    try:
        return store, load_config(settled_paths(store.settings(), path))
    except BaseException:
        store.close()
        raise


def settled_paths(settings: dict[str, str], path: str) -> dict[str, str]:
    """``settings`` with the paths they name absolute. ``init`` stores them so; a store
    made before it did may hold a relative one, which is taken in the store's own folder
    (the one place that does not change with the folder a command runs in)."""
    folder = os.path.dirname(os.path.abspath(path))
    settled = dict(settings)
    with contextlib.suppress(KeyError, ValueError):    # a bad one is told when sending
        settled["send_by"] = absolute_method(settled["send_by"], folder)
    if settled.get("config"):
        settled["config"] = os.path.join(folder, settled["config"])
    return settled


def new_game(path: str, white: str, black: str, terms: Terms, now: int) -> tuple[int, list[str]]:
    """Start a game between ``white`` and ``black`` (each "NAME <ADDR>", registered as a
    player when new, or a registered player's NAME) and queue its first messages; the
    game's number, and the messages that could not be sent yet (left queued for tick),
    in words."""
    store, config = connect(path)
    with store:
        with store.transaction():
            seats = (seat_named(store, white, "--white", now),
                     seat_named(store, black, "--black", now))
            if seats[0].id == seats[1].id:
                raise RefereeError("White and Black are one player: the address says who acts")
            game = start_game(store, config, *seats, terms, now)
        return game.id, send_queued(store, config.settings, now=now, retry=False)


# --------------------------------------------------------------------------- deliver

@dataclass(frozen=True)
class StoredResult:
    id: int | None          # None: seen before (same Message-ID, else same bytes)
    rejected: str | None


def dedupe_key(raw: bytes) -> str:
    """``mid:<id>`` for a message with a valid Message-ID, else ``sha256:<hex>``."""
    end = raw.find(b"\n\n")
    end2 = raw.find(b"\r\n\r\n")
    head = raw[: min(x for x in (end, end2, len(raw)) if x >= 0)]
    found = _MESSAGE_ID_HEADER.search(head)
    if found:
        good = valid_id(re.sub(rb"\s+", b"", found[1]).decode("ascii", "replace"))
        if good:
            return f"mid:{good}"
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def store_message(store: Store, raw: bytes, oversized: bool,
                  recipients: str | Sequence[str] | None, now: int,
                  received_at: int | None = None) -> StoredResult:
    """Step 1: keep the message (before anything is decided) and commit, with when the
    mail system received it (``received_at``; None: not known, the store time is used).

    ``recipients`` are the envelope recipients the mail server gave (one string is one
    recipient). A copy of a message already stored (a reply-all reaches two of the
    referee's addresses, each its own delivery) is a duplicate; what it adds is its
    envelope recipients, so that whichever copy came first, the message is the game's
    when any of them is the game's reply address (:func:`_another_copy`)."""
    envelope = envelope_addresses([recipients] if isinstance(recipients, str)
                                  else recipients or [])
    rejected = f"larger than {MAX_MESSAGE_BYTES // 2**20} MiB: kept in part" if oversized else None
    key = dedupe_key(raw)
    with store.transaction():
        new_id = store.inbox.add(key, raw, now, envelope_text(envelope), rejected,
                                 received_at)
        if new_id is None and envelope:
            _another_copy(store, key, envelope)
    return StoredResult(new_id, rejected)


def _another_copy(store: Store, key: str, envelope: list[str]) -> None:
    """Another copy of the message stored under ``key`` came, to ``envelope``: those
    recipients are added to the stored ones; and when the first copy was refused only
    for naming no reply address (refused with no answer, so nothing was played or said),
    it is decided again, now that it may name one. Anything else it did stands: nothing
    is played or answered twice."""
    known = store.inbox.known(key)
    kept = stored_envelope(known.recipient)
    added = [address for address in envelope if address not in kept]
    if not added:
        return
    store.inbox.set_recipient(known.id, envelope_text((kept + added)[:MAX_ENVELOPE]))
    if known.state == "rejected" and known.reason == STRANGER and not known.pruned:
        store.inbox.reopen(known.id)


def delivered(store: Store, raw: bytes, oversized: bool,
              recipients: str | Sequence[str] | None, now: int) -> StoredResult:
    """Step 1 of ``deliver``: :func:`store_message`, the message's time read from the
    ``Received:`` fields of the hosts named with ``init --received-by``."""
    return store_message(store, raw, oversized, recipients, now,
                         stamps.delivered_time(store.settings(), raw))


def stamp_note(store: Store, stored: StoredResult) -> str | None:
    """Why the message ``stored`` was stamped with the time it was stored rather than the
    time the mail system received it (for the log), or None."""
    return None if stored.id is None else store.inbox.stamp(stored.id).note


def after_storing(store: Store, config: Config, now: int) -> list[Unsent]:
    """Steps 2 and 3 of deliver: process what is stored, send what was queued. The take
    is noted first: an outage it ends is credited before any message is decided."""
    note_take(store, config.settings, now, ticked=False)
    process_pending(store, config)
    return send_queued(store, config.settings, now=now, retry=False)


# --------------------------------------------------------------------------- prune

KEEP_DAYS = 30                 # what players sent is kept this long by default
PRUNE_EVERY = 86_400           # tick prunes once a day (the referee's clock)
LAST_PRUNE = "last_prune"      # the settings key of when prune last ran
KEPT_HEADERS = (b"from", b"subject")    # of a refused message: what ``rejected`` shows


@dataclass(frozen=True)
class PruneReport:
    inbox: int          # bodies of messages in dropped or cut to their headers
    outbox: int         # bodies of messages out dropped
    freed: int          # pages given back to the file system


def prune(path: str, now: int, keep_days: int = KEEP_DAYS) -> PruneReport:
    """Drop what the store need not keep (see :func:`prune_store`)."""
    if keep_days < 0:
        raise RefereeError(f"--keep-days {keep_days}: a number of days, 0 or more")
    store, _config = connect(path)
    with store:
        return prune_store(store, now, keep_days)


def prune_store(store: Store, now: int, keep_days: int) -> PruneReport:
    """Drop the bodies of messages decided more than ``keep_days`` ago: a taken message's
    whole, a refused one's but for its From and Subject (``rejected`` lists them); of the
    messages out, those sent or given up, except the newest each seat got in each game
    (``resend`` sends it again). Every row stays, with its Message-ID or digest: a message
    delivered again is still a duplicate. Old tries of sent messages go too; the rate
    limits keep only their windows, the club's one-time requests only their 7 days. The space is given back by incremental vacuum."""
    before = now - keep_days * 86_400
    with store.transaction():
        cut_in = store.inbox.prune(before, kept_headers)
        cut_out = store.outbox.prune(before)
        store.replies.forget_until(now - WHY_WINDOW)
        store.relayed.forget_until(now - CHAT_WINDOW)
        # A request is good for 7 days and counts against its address's limit for one.
        store.requests.forget_before(now - clubmail.REQUEST_DAYS * clubmail.DAY)
        store.set_setting(LAST_PRUNE, str(now))
    return PruneReport(cut_in, cut_out, store.give_back_space())


def _prune_due(store: Store, now: int) -> bool:
    last = store.settings().get(LAST_PRUNE)
    return last is None or not last.lstrip("-").isdigit() or now - int(last) >= PRUNE_EVERY


def kept_headers(head: bytes) -> bytes:
    """Of a refused message's first bytes, the From and Subject fields as they came
    (folded lines included), which is all ``rejected`` reads of it."""
    end = min((at for at in (head.find(b"\r\n\r\n"), head.find(b"\n\n")) if at >= 0),
              default=len(head))
    kept, keeping = [], False
    for line in head[:end].splitlines(keepends=True):
        if line[:1] in (b" ", b"\t"):
            if keeping:
                kept.append(line)
            continue
        keeping = line.split(b":", 1)[0].strip().lower() in KEPT_HEADERS
        if keeping:
            kept.append(line)
    return b"".join(kept) + b"\n"


# --------------------------------------------------------------------------- tick

@dataclass
class TickReport:
    processed: int = 0
    reminders: int = 0
    forfeits: int = 0
    digests: int = 0                 # the players' digests queued (tomis.referee.clubmail)
    failures: list[Unsent] | None = None
    organiser: bool = False          # the organiser's report was queued
    # Finished games the season could not settle (rate, advance their event), in words.
    unsettled: list[str] = field(default_factory=list)


def tick(path: str, now: int, stop: Callable[[], bool] = lambda: False) -> TickReport:
    """Unprocessed messages, due reminders and time-outs, the players' digests that are
    due, the organiser's report when one is due (:func:`tomis.referee.alerts.report_if_due`), then every unsent message; and
    once a day, :func:`prune`.

    Only the games with something due are read: each game's row keeps when tick next has
    something to do for it (saved with the game), and an index finds those by ``now``."""
    store, config = connect(path)
    with store:
        report = TickReport()
        # An outage is credited before anything is decided: nobody loses on time for a
        # moment in which the referee could not hear them.
        note_take(store, config.settings, now, ticked=True)
        report.processed = process_pending(store, config)
        with store.transaction():
            # Ends a crash left before the season took them (an index finds none, else).
            report.unsettled = settle_endings(store, config, now).failed
        for number in store.games.due(now):
            with store.transaction():
                _tick_game(store, config, number, now, report)
        report.digests = clubmail.send_digests(store, config, now)
        report.organiser = report_if_due(store, config, now)
        report.failures = send_queued(store, config.settings, now=now, retry=True, stop=stop)
        if _prune_due(store, now):
            prune_store(store, now, KEEP_DAYS)
        return report


def _tick_game(store: Store, config: Config, number: int, now: int, report: TickReport) -> None:
    """A time-out or a reminder for game ``number``; with neither, when to look again."""
    game = RefereedGame.load(store, number)
    if game is None or game.over:
        store.games.set_due(number, None)
        return
    if expire(store, config, game, now):
        report.forfeits += 1
    elif _remind(store, config, game, now):
        report.reminders += 1
    else:
        store.games.set_due(number, game.next_due(now))
        return
    game.save(store)
    settle_endings(store, config, now)


def _remind(store: Store, config: Config, game: RefereedGame, now: int) -> bool:
    """The reminders of the club's schedule whose moments in this turn have come and not
    gone, as one message to the side to act (none while it is on leave: they wait)."""
    ran, side = game.clock(), game.to_move
    if ran is None or side is None or ran.since is None:
        return False
    due = [at for at in game.reminders_to_send(ran, side) if at <= now]
    reading = clock.reading(ran, side, side, now)
    if not due or reading.on_leave:
        return False
    if game.reminded_ply != game.actions_played:
        game.reminded_ply, game.reminders_sent = game.actions_played, 0
    game.reminders_sent += len(due)
    body = "\n".join([
        letters.title(game), "", *letters.reminder_lines(reading), "",
        *letters.position_lines(game), "", *letters.clock_lines(game, now), "", *HELP_LINES])
    queue_letter(store, config, game, side, "reminder: your turn", body, now)
    return True
