"""What needs a person: bounced players, players to act who cannot be reached (their
mail bounced and the last reminder of their turn went without an answer), stalled games, messages stuck in the outbox,
refused mail from registered players, and messages dropped by an internal error.

``tomis referee alerts DB`` prints it at any time; ``tick`` mails it to the organiser at
most once a day (:func:`report_if_due`), only when it holds something the last report
did not, and then whole (docs/REFEREE.md, "What needs a person").
"""

from __future__ import annotations

import email
import email.policy
import json
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from email.headerregistry import Address
from email.utils import parseaddr

from ..errors import visible
from ..outgoing import message as mail_message
from ..outgoing.headers import message_bytes
from .games import RefereedGame, clocks_left
from .queueing import Config
from .sending import check_envelope
from .stamps import late_actions
from .store import Store

DAY = 86_400
WINDOW = 7 * DAY             # bounces, refusals, drops and given-up messages this recent
STALLED_AFTER = 14 * DAY     # a game without clocks (so without reminders) this quiet
STUCK_AFTER = 3600           # a message still failing this long after it was queued
REPORT_EVERY = DAY           # the organiser's report: at most once in this long
LAST_REPORT = "organiser_report_at"       # settings: when the last report was queued
REPORTED = "organiser_report_items"       # settings: what it held (the items' keys)
LAST_LOOK = "organiser_report_looked"     # settings: when tick last gathered the alerts
LOOK_EVERY = 3600            # tick gathers the alerts at most this often
INTERNAL = "internal error:"              # how process.py's reason of a dropped message begins
CUT_OFF = "unreadable: reading it was begun"    # and that of one whose reading was killed
BOUNCE = "a bounce:"                      # and that of a bounce (listed as bounced)
MAX_SHOWN = 120              # characters of a From shown


def minute(seconds: int) -> str:
    """``YYYY-MM-DDTHH:MMZ``, UTC."""
    return datetime.fromtimestamp(seconds, tz=timezone.utc).strftime("%Y-%m-%dT%H:%MZ")


@dataclass(frozen=True)
class BouncedItem:
    address: str
    player: str | None
    game: int | None
    at: str
    reason: str


@dataclass(frozen=True)
class UnreachableItem:
    """A player to act whose mail in this turn bounced and who has not acted after the
    turn's last reminder: the organiser has until ``deadline`` to reach them otherwise."""

    game: int
    player: str
    address: str
    deadline: str


@dataclass(frozen=True)
class StalledItem:
    game: int
    waiting_on: str
    since: str


@dataclass(frozen=True)
class StuckItem:
    message: int
    game: int | None
    to: str
    queued: str
    error: str


@dataclass(frozen=True)
class RefusedItem:
    sender: str
    game: int | None
    at: str
    reason: str


@dataclass(frozen=True)
class DroppedItem:
    message: int
    sender: str
    at: str
    reason: str


@dataclass(frozen=True)
class LateItem:
    """An action that reached the club after its player's deadline (the game was lost on
    time): the player may dispute it, so a person should know."""

    message: int
    game: int
    player: str
    deadline: str
    came: str


@dataclass
class Alerts:
    """Everything that needs a person, by kind (each a list, empty when nothing)."""

    bounced: list[BouncedItem] = field(default_factory=list)
    unreachable: list[UnreachableItem] = field(default_factory=list)
    stalled: list[StalledItem] = field(default_factory=list)
    stuck: list[StuckItem] = field(default_factory=list)
    refused: list[RefusedItem] = field(default_factory=list)
    dropped: list[DroppedItem] = field(default_factory=list)
    late: list[LateItem] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not any(self.kinds().values())

    def kinds(self) -> dict[str, list]:
        return {"bounced": self.bounced, "unreachable": self.unreachable,
                "stalled": self.stalled, "stuck": self.stuck,
                "refused": self.refused, "dropped": self.dropped, "late": self.late}

    def to_json(self) -> dict:
        """The object ``alerts --json`` prints (``sender`` is written ``from``)."""
        return {kind: [_renamed(asdict(item)) for item in items]
                for kind, items in self.kinds().items()}

    def keys(self) -> set[str]:
        """A name for each item, to tell what a report already held."""
        return {f"{kind}:{json.dumps(_identity(item), sort_keys=True)}"
                for kind, items in self.kinds().items() for item in items}

    def lines(self) -> list[str]:
        """The text form: a heading per kind that has items, one line an item."""
        if self.empty:
            return ["nothing needs a person"]
        text: list[str] = []
        for kind, items in self.kinds().items():
            if items:
                text += [f"{HEADINGS[kind]} ({len(items)}):",
                         *(f"  {_line(item)}" for item in items), ""]
        return text[:-1]


HEADINGS = {"bounced": "Bounced players",
            "unreachable": "Players to act who cannot be reached, before their time-out",
            "stalled": "Stalled games",
            "stuck": "Messages stuck in the outbox", "refused": "Refused mail from players",
            "dropped": "Messages dropped by an internal error",
            "late": "Actions after their player's deadline"}


def _identity(item) -> dict:
    """What names an item across reports: all of it but a stuck message's last error,
    which changes with each try."""
    return {key: value for key, value in asdict(item).items()
            if not (isinstance(item, StuckItem) and key == "error")}


def _renamed(item: dict) -> dict:
    if "sender" in item:
        item = {("from" if key == "sender" else key): value for key, value in item.items()}
    return item


def _game(number: int | None) -> str:
    return "no game" if number is None else f"game {number}"


def _line(item) -> str:
    if isinstance(item, BouncedItem):
        return (f"{item.address} ({item.player or 'no player'}, {_game(item.game)}) bounced "
                f"{item.at}: {item.reason}")
    if isinstance(item, UnreachableItem):
        return (f"game {item.game}: {item.player} <{item.address}> was reminded, their mail "
                f"bounces, and their time runs out at {item.deadline}")
    if isinstance(item, StalledItem):
        return f"game {item.game}: waiting on {item.waiting_on} since {item.since}"
    if isinstance(item, StuckItem):
        return (f"message {item.message} ({_game(item.game)}) to {item.to}, queued "
                f"{item.queued}: {item.error}")
    if isinstance(item, RefusedItem):
        return f"from {item.sender} ({_game(item.game)}) at {item.at}: {item.reason}"
    if isinstance(item, LateItem):
        return (f"game {item.game}: {item.player} acted at {item.came}, after the deadline "
                f"{item.deadline}; lost on time (message {item.message})")
    return f"message {item.message} from {item.sender} at {item.at}: {item.reason}"


# --------------------------------------------------------------------------- gathering

def gather(store: Store, now: int) -> Alerts:
    """What needs a person at ``now``, read from the store (no record replayed but those
    saved by an older program without a summary)."""
    found = Alerts(bounced=_bounced(store, now), unreachable=_unreachable(store, now),
                   stalled=_stalled(store, now), stuck=_stuck(store, now),
                   late=_late(store, now))
    for row in store.inbox.refused_since(now - WINDOW):
        reason = visible(" ".join((row.reason or "").split()))
        if reason.startswith(BOUNCE):
            continue
        sender = _sender(row.raw)
        shown = visible(sender or "?")[:MAX_SHOWN]
        if reason.startswith((INTERNAL, CUT_OFF)):
            found.dropped.append(DroppedItem(row.id, shown, minute(row.stored_at), reason))
        elif sender and store.games.seat_of(sender) is not None:
            found.refused.append(RefusedItem(shown, row.game, minute(row.stored_at), reason))
    return found


def _bounced(store: Store, now: int) -> list[BouncedItem]:
    """The bounces of the last days whose seat still has the address that failed (a
    seat the organiser gave a new address needs nobody any more)."""
    return [BouncedItem(kept.row.address, kept.player, kept.row.game, minute(kept.row.at),
                        kept.row.reason)
            for kept in store.bounces.since(now - WINDOW)
            if kept.seat_address is None or kept.seat_address == kept.row.address]


def _unreachable(store: Store, now: int) -> list[UnreachableItem]:
    """The players to act, before their time-out, to whom mail bounced since their turn
    began and who have had every reminder of the turn (with no reminder in the turn: who
    have a day or less left). Only the games with such a bounce are read."""
    found, looked = [], set()
    for kept in store.bounces.of_games_in_play():
        seat = (kept.row.game, kept.row.side)
        if seat in looked:               # newest first: one look a seat
            continue
        looked.add(seat)
        game = RefereedGame.load(store, kept.row.game)
        deadline = None if game is None else _reminded_in_vain(game, kept.row.side,
                                                                kept.row.at, now)
        if deadline is not None:
            found.append(UnreachableItem(game.id, visible(kept.player or "?")[:MAX_SHOWN],
                                         kept.row.address, minute(deadline)))
    return sorted(found, key=lambda item: item.game)


def _reminded_in_vain(game: RefereedGame, side: int, bounced_at: int, now: int) -> int | None:
    """``side``'s deadline when it is to act, its mail bounced in this turn (at
    ``bounced_at``), the turn's reminders have all gone (none left to send) and its time
    has not run out; else None."""
    ran = game.clock()
    if ran is None or game.to_move != side or ran.since is None or bounced_at < ran.since:
        return None
    deadline = ran.deadline(side)
    if deadline is None or now > deadline or game.reminders_to_send(ran, side):
        return None
    if not game.schedule.moments(ran, side) and deadline - now > DAY:
        return None
    return deadline


def _stalled(store: Store, now: int) -> list[StalledItem]:
    """Games in play that the reminders do not cover: one without clocks (no reminder,
    no time-out ever comes) where nobody acted for :data:`STALLED_AFTER`; one with
    clocks whose player to act has run out of time while the game goes on (the time-out
    tick makes did not come: tick is not running)."""
    stalled = []
    for listed in store.games.listed(over=False):
        saved = json.loads(listed.summary) if listed.summary is not None else None
        if saved is None or "since" not in saved:        # saved by an older program
            saved = RefereedGame.load(store, listed.id).saved_summary()
        side = saved["to_move"]
        if side is None:
            continue
        since = saved["since"]          # the newest action (chat does not move a game)
        left = clocks_left(saved["clock"], side, now)
        quiet = now - since > STALLED_AFTER if left is None else left[side] <= 0
        if quiet:
            stalled.append(StalledItem(listed.id, saved[("white", "black")[side]],
                                       minute(since)))
    return stalled


def _late(store: Store, now: int) -> list[LateItem]:
    return [LateItem(late.message, late.game, visible(late.player), minute(late.deadline),
                     minute(late.received if late.received is not None else late.stored))
            for late in late_actions(store, now - WINDOW)]


def _stuck(store: Store, now: int) -> list[StuckItem]:
    return [StuckItem(waiting.id, waiting.game, waiting.to, minute(waiting.queued_at),
                      visible(waiting.error or "not sent")
                      + (" (given up)" if waiting.failed_at is not None else ""))
            for waiting in store.outbox.stuck(now - STUCK_AFTER, now - WINDOW)]


def _sender(head: bytes) -> str | None:
    """The From address of a refused message's first bytes, lowercased (None: none)."""
    try:
        message = email.message_from_bytes(head, policy=email.policy.compat32)
        address = parseaddr(" ".join(str(message.get("From", "") or "").split()))[1]
    except Exception:  # noqa: BLE001 -- a header nobody can read is no player's
        return None
    return address.lower() if "@" in address else None


# --------------------------------------------------------------------------- the report

def report_if_due(store: Store, config: Config, now: int) -> bool:
    """Queue the organiser's report when one is due: an organiser is set, and something
    needs a person that the last report did not hold, and either the last report is a
    day old or more, or what is new is a player who cannot be reached (their time-out
    would not wait a day). The report holds everything that needs a person (the
    organiser acts from the newest mail alone). Looked at most once every
    :data:`LOOK_EVERY` (a tick every few minutes reads no more than the settings); in
    one transaction, so two ticks at once queue one report."""
    if not _looking_due(store.settings(), now):
        return False
    with store.transaction():
        settings = store.settings()
        if not _looking_due(settings, now):
            return False
        store.set_setting(LAST_LOOK, str(now))
        found = gather(store, now)
        keys = found.keys()
        new = keys - set(json.loads(settings.get(REPORTED, "[]")))
        if not new or not (_day_since_report(settings, now)
                           or any(key.startswith("unreachable:") for key in new)):
            return False
        _queue_report(store, config, settings["organiser"], found, now)
        store.set_setting(LAST_REPORT, str(now))
        store.set_setting(REPORTED, json.dumps(sorted(keys)))
    return True


def _since(settings: dict[str, str], key: str, now: int) -> int | None:
    text = settings.get(key, "")
    return now - int(text) if text.isdigit() else None


def _day_since_report(settings: dict[str, str], now: int) -> bool:
    report = _since(settings, LAST_REPORT, now)
    return report is None or report >= REPORT_EVERY


def _looking_due(settings: dict[str, str], now: int) -> bool:
    """An organiser is set, and the alerts were not gathered in the last
    :data:`LOOK_EVERY` (within a day of a report too: a player who cannot be reached
    does not wait for the next day), or were last gathered before the day since the
    last report was over (the daily report is not held back by an earlier look)."""
    look, report = _since(settings, LAST_LOOK, now), _since(settings, LAST_REPORT, now)
    if not settings.get("organiser"):
        return False
    if look is None or look >= LOOK_EVERY:
        return True
    return report is not None and report >= REPORT_EVERY and look > report - REPORT_EVERY


def _queue_report(store: Store, config: Config, organiser: str, found: Alerts, now: int) -> None:
    referee = config.referee
    local, domain = organiser.rsplit("@", 1)
    count = sum(len(items) for items in found.kinds().values())
    headers = [("From", Address(display_name=referee.name, username=referee.local,
                                domain=referee.domain)),
               ("To", Address(username=local, domain=domain)),
               ("Subject", f"[tomis] what needs a person: {count} item(s)"),
               ("Date", mail_message.date_of(now)),
               ("Message-ID", mail_message.new_message_id(referee.domain)),
               ("Auto-Submitted", "auto-generated"), ("X-Mailer", "tomis referee")]
    body = "\n".join([f"What needs a person at {minute(now)}:", "", *found.lines(), "",
                      "tomis referee alerts DB prints the same at any time; this report comes "
                      "at most once a day, when something is new."]) + "\n"
    message = mail_message.build_message(headers, body)
    check_envelope(message, referee.address, organiser)
    store.outbox.add(None, None, now, referee.address, organiser, message_bytes(message))
