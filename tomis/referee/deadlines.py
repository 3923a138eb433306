"""Deadlines in the players' calendars: the iCalendar file (RFC 5545) every message of a
game with clocks carries, one event per game and player.

While it is the player's turn the event is at their deadline (the last instant they still
have time, as the message's clocks say) with an alarm 24 hours before; while the opponent
is to act it is at the opponent's deadline, titled as waiting, without an alarm. When the
game ends a ``METHOD:CANCEL`` takes it out. The event's ``UID`` is the same for the whole
game and player, so a calendar program keeps one entry and moves it; its ``SEQUENCE`` rises
whenever what the events show changes (kept in the store, :class:`~.store.Calendars`).

The file is written by the ``icalendar`` package (the ``referee`` extra), which escapes
and folds what it is given; without it the referee sends no calendar.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta, timezone

from ..errors import one_line
from ..outgoing.message import Attachment
from ..rules.board import SIDE_TITLES

PUBLISH, CANCEL = "PUBLISH", "CANCEL"
PRODID = "-//tomis//referee//EN"
ALARM_BEFORE = timedelta(hours=24)
MAX_NAME = 80                 # characters of a player's name in an event
UID_MAC_BYTES = 10            # of the store's secret's HMAC in a UID (80 bits)


@dataclass(frozen=True)
class Showing:
    """What a game's events show: the deadline ``start`` of the side ``to_move`` (None
    once the game is over), and whether it is over (the events cancelled)."""

    start: int
    to_move: int | None
    over: bool = False

    def key(self) -> str:
        """The text the store compares to tell a change (:meth:`Calendars.sequence`)."""
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_key(cls, key: str) -> Showing:
        return cls(**json.loads(key))


@dataclass(frozen=True)
class Stamping:
    """What one event needs from outside the game: its SEQUENCE, the time it is written
    (``DTSTAMP``, the message's), and the referee (``ORGANIZER``, the UID's domain)."""

    sequence: int
    at: int
    referee_name: str
    referee_address: str
    secret: str


def available() -> bool:
    """Whether calendars can be written (the ``icalendar`` package is installed)."""
    return _icalendar() is not None


def showing(game, last_key: str | None) -> Showing | None:
    """What ``game``'s events show now, given what they last showed (``last_key``, None:
    none sent). None when there is nothing to show: no clocks, the clocks not started, or
    a game that ended before any event was sent."""
    if game.over:
        if last_key is None:
            return None
        return Showing(Showing.from_key(last_key).start, None, over=True)
    ran, side = game.clock(), game.to_move
    if ran is None or side is None or ran.since is None:
        return None
    return Showing(ran.deadline(side), side)


def uid(secret: str, domain: str, number: int, side: int) -> str:
    """The one ``UID`` of game ``number``'s event for ``side``: the game, the seat and a
    MAC of both by the store's secret (a store made anew at the same address numbers its
    games from 1 again, and must not move the old store's entries). Never the reply token,
    which is the player's key to the seat."""
    word = f"{number}-{SIDE_TITLES[side].lower()}"
    mac = hmac.new(bytes.fromhex(secret), f"calendar {word}".encode(), hashlib.sha256)
    return f"tomis-game-{word}-{mac.hexdigest()[:2 * UID_MAC_BYTES]}@{domain}"


def attachment(game, side: int, shown: Showing, stamping: Stamping) -> Attachment | None:
    """The calendar for ``side``'s player as an attachment (``text/calendar`` with its
    ``method``), or None without the ``icalendar`` package."""
    ical = _icalendar()
    if ical is None:
        return None
    method = CANCEL if shown.over else PUBLISH
    calendar = ical.Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add("method", method)
    calendar.add_component(_event(ical, game, side, shown, stamping))
    text = calendar.to_ical().decode("utf-8")
    return Attachment(f"tomis-{game.id}.ics", text, "text/calendar", (("method", method),))


def _event(ical, game, side: int, shown: Showing, stamping: Stamping):
    event = ical.Event()
    domain = stamping.referee_address.rsplit("@", 1)[1]
    event.add("uid", uid(stamping.secret, domain, game.id, side))
    event.add("sequence", stamping.sequence)
    event.add("dtstamp", _utc(stamping.at))
    event.add("dtstart", _utc(shown.start))
    organizer = ical.vCalAddress(f"mailto:{stamping.referee_address}")
    organizer.params["cn"] = one_line(stamping.referee_name)[:MAX_NAME]
    event.add("organizer", organizer)
    event.add("summary", summary(game, side, shown))
    event.add("description", _description(game))
    if shown.over:
        event.add("status", "CANCELLED")
        return event
    event.add("status", "CONFIRMED")
    event.add("transp", "TRANSPARENT")        # a deadline takes no one's time
    if shown.to_move == side:
        event.add_component(_alarm(ical, game))
    return event


def summary(game, side: int, shown: Showing) -> str:
    """The event's title: the player's own deadline, or whom they wait for."""
    if shown.over:
        return f"Game #{game.id} has ended ({game.record.result})"
    if shown.to_move == side:
        return f"Your time runs out in game #{game.id}"
    return f"Waiting for {SIDE_TITLES[shown.to_move]} in game #{game.id}"


def _description(game) -> str:
    white, black = (one_line(player.name)[:MAX_NAME] for player in game.players)
    return (f"Tomis game #{game.id}: {white} (White) vs {black} (Black). The time is the "
            f"deadline of the side to act; answer the referee's last message to play.")


def _alarm(ical, game):
    alarm = ical.Alarm()
    alarm.add("action", "DISPLAY")
    alarm.add("trigger", -ALARM_BEFORE)
    alarm.add("description", f"24 hours left to act in game #{game.id}")
    return alarm


def _utc(seconds: int) -> datetime:
    return datetime.fromtimestamp(seconds, tz=timezone.utc)


def _icalendar():
    """The ``icalendar`` module, or None without the ``referee`` extra."""
    try:
        # The optional referee extra, imported when the first calendar is written (its
        # import costs start-up time that a command writing no message never pays).
        import icalendar
    except ImportError:
        return None
    return icalendar
