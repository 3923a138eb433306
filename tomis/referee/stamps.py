"""When an action happened: the time the club's mail system received its message, not the
time the referee got round to storing it (issue 42).

The mail system says when it had the message in one of three ways, each kept with the
stored row (``received_at``): for ``deliver``, the date of the lowest ``Received:`` field
of the unbroken run, from the top, added by the hosts named with ``init --received-by``
(:func:`tomis.mail.received.received_time`); for ``fetch --maildir``, the delivery time
that starts the Maildir file name; for ``--imap``, the message's ``INTERNALDATE``. That
time is believed only within bounds (:func:`choose`): never later than the time the
message was stored, never more than :data:`MAX_EARLIER` before it, never before the
game's last stamp; outside them the message is stamped with the time it was stored, and
the row keeps a note saying why, which the commands write to their log.

A message whose time falls after its player's deadline ends the game on time, as tick
would have, and is marked late in the store; :func:`late_actions` lists those for the
organiser's report.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import visible
from ..mail.received import MAX_HOSTS, host_name, received_time
from ..notation.clock import format_stamp
from ..rules.board import SIDE_TITLES
from .store import Store

MAX_EARLIER = 24 * 3600        # a received time further back than this before storing is not believed
# The times a stamp can be written in (years 1970 to 9999): a mailbox's "time" outside
# them (a Maildir name of twelve digits, say) is no time, and is not shown either.
LATEST_TIME = 253_402_300_799
RECEIVED_BY = "received_by"    # the settings key: the trusted hosts, space-separated

# A Maildir file name is TIME.ID.HOST (the delivery time in seconds first; the ID part
# may carry the microseconds as M<usec>, which a stamp in whole seconds drops).
_MAILDIR_TIME = re.compile(r"(\d{1,12})\.[^.]")


@dataclass(frozen=True)
class StampChoice:
    """The time an action is stamped with, and why it is not the received time when it
    is not (one line, for the log and the store; None when it is, or none was known)."""

    at: int
    note: str | None = None


def choose(received: int | None, stored_at: int, last_stamp: int | None) -> StampChoice:
    """The stamp of a message stored at ``stored_at`` that the mail system received at
    ``received`` (None: not known), in a game whose last stamp is ``last_stamp``."""
    if received is None or not 0 <= received <= LATEST_TIME:
        return StampChoice(stored_at)
    why = None
    if received > stored_at:
        why = "later than the time it was stored"
    elif received < stored_at - MAX_EARLIER:
        why = "more than 24 hours before the time it was stored"
    elif last_stamp is not None and received < last_stamp:
        why = f"before the game's last stamp ({format_stamp(last_stamp)})"
    if why is None:
        return StampChoice(received)
    return StampChoice(stored_at, f"the mail system's time {format_stamp(received)} is {why}; "
                                  f"stamped with the time it was stored, {format_stamp(stored_at)}")


def maildir_time(name: str) -> int | None:
    """The delivery time at the start of a Maildir file name (seconds), or None when the
    name does not start as ``TIME.ID``."""
    found = _MAILDIR_TIME.match(name)
    return int(found[1]) if found else None


# --------------------------------------------------------------------------- trusted hosts

def parse_hosts(names: tuple[str, ...] | list[str]) -> str:
    """The ``--received-by`` host names as the settings keep them (lowercase, space
    between); a name that is not a host name is a ValueError naming it."""
    hosts: list[str] = []
    for text in names:
        name = host_name(text)
        if name is None:
            raise ValueError(f"{visible(text[:80])!r} is not a host name like mx.club.example "
                             f"(letters, digits, '-' and dots)")
        if name not in hosts:
            hosts.append(name)
    if len(hosts) > MAX_HOSTS:
        raise ValueError(f"at most {MAX_HOSTS} hosts")
    return " ".join(hosts)


def trusted_hosts(settings: dict[str, str]) -> tuple[str, ...]:
    """The hosts whose ``Received:`` fields are believed (none: the store time is used)."""
    return tuple(settings.get(RECEIVED_BY, "").split())


def delivered_time(settings: dict[str, str], raw: bytes) -> int | None:
    """When the club's trusted hosts received ``raw``, from its ``Received:`` fields; None
    without trusted hosts or when the message proves nothing. Never raises: ``deliver``
    calls it before the message is stored, where a failure would make the mail server
    try again for ever."""
    hosts = trusted_hosts(settings)
    if not hosts:
        return None
    try:
        return received_time(raw, hosts)
    except Exception:  # noqa: BLE001 -- a bug of ours must not keep a message out; unknown then
        return None


# --------------------------------------------------------------------------- late actions

@dataclass(frozen=True)
class LateArrival:
    """A message that reached the club after its player's deadline: the game ended on
    time and the player was answered that the game is over. For the organiser's report."""

    message: int            # the inbox row
    game: int
    side: int
    player: str             # the player's name
    address: str
    deadline: int
    received: int | None    # when the mail system received it (None: not known)
    stored: int

    def line(self) -> str:
        """One line for a report (the names are the store's, checked when registered)."""
        came = format_stamp(self.received if self.received is not None else self.stored)
        return (f"game {self.game}: {SIDE_TITLES[self.side]} ({self.player} <{self.address}>) "
                f"acted at {came}, after the deadline {format_stamp(self.deadline)}; lost on "
                f"time (message {self.message})")


def late_actions(store: Store, since: int) -> list[LateArrival]:
    """The messages stored at ``since`` or later that came after their player's deadline,
    oldest first, each with the player it names."""
    found = []
    for row in store.inbox.late_since(since):
        game = store.games.row(row.game)
        if game is None:
            continue
        name, address = ((game.white_name, game.white_address) if row.side == 0
                         else (game.black_name, game.black_address))
        found.append(LateArrival(row.id, row.game, row.side, name, address, row.deadline,
                                 row.received_at, row.stored_at))
    return found
