"""When a player to act is reminded: the club's schedule (``init --reminders`` and
``settings --reminders``) and the moments it gives in one turn.

A schedule is a list of points, each either a share of the time the player had when the
turn began (``50%``: half of it used) or a time before the time-out (``24h``). In a turn
each point is one moment; a reminder goes once for each, and the moments that fall due
by the same tick go as one message. The store keeps how many of a turn's moments were
sent (sorted by time), so a tick that ran late sends one message, not one per point.

Nothing here reads the store: the CLI builds its options from :mod:`.club`, which checks
a schedule with :func:`parse` (no sqlite3 for it).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import TomisError
from ..notation import clock
from .durations import DurationError, parse_setting_duration

DEFAULT = "50%,80%,24h"
OFF = "off"
SETTING = "reminders"            # the key in the store's settings
MAX_POINTS = 8                   # a schedule longer than this is mail nobody reads
MAX_TEXT = 100                   # characters of a schedule as given


class ScheduleError(TomisError):
    """A schedule the referee cannot take, in words."""


@dataclass(frozen=True)
class Point:
    """One point of a schedule: ``percent`` of the turn's time used (1 to 99), or
    ``before`` seconds before the time-out (exactly one of them is set)."""

    percent: int | None = None
    before: int | None = None

    def moment(self, ran: clock.Clock, side: int) -> int | None:
        """When this point falls in ``side``'s turn as ``ran`` stands (its turn began at
        ``ran.since``); None when it does not fall inside the turn (a turn that began
        with less than ``before`` left is told by the message that began it)."""
        start, had, deadline = ran.since, ran.left[side], ran.deadline(side)
        if start is None or deadline is None or had <= 0:
            return None
        if self.percent is not None:
            # ceil(had * percent / 100) seconds of running time: leave does not count.
            at = clock.advance(ran.leaves, side, start, -(-had * self.percent // 100))
        else:
            at = deadline - self.before
        return at if start < at < deadline else None


@dataclass(frozen=True)
class Schedule:
    """The points of a schedule, as given (``text``, kept in the settings)."""

    points: tuple[Point, ...]
    text: str

    def moments(self, ran: clock.Clock, side: int) -> list[int]:
        """The moments of ``side``'s turn, earliest first."""
        found = (point.moment(ran, side) for point in self.points)
        return sorted(at for at in found if at is not None)


def parse(text: str) -> Schedule:
    """A schedule from ``50%,80%,24h`` (shares used, times before the time-out in the
    durations' one form ``90m``, ``6h``, ``2d``, ``1d12h``), or ``off`` for none."""
    given = "".join(text.split()).lower()
    if len(given) > MAX_TEXT:
        raise ScheduleError(f"a reminder schedule is at most {MAX_TEXT} characters")
    if given == OFF:
        return Schedule((), OFF)
    items = given.split(",")
    if len(items) > MAX_POINTS:
        raise ScheduleError(f"a reminder schedule has at most {MAX_POINTS} points")
    points = tuple(_point(item) for item in items)
    if len(set(points)) != len(points):
        raise ScheduleError(f"{given!r} names a point twice")
    return Schedule(points, given)


def _point(item: str) -> Point:
    if item.endswith("%"):
        digits = item[:-1]
        if not digits.isdigit() or len(digits) > 2 or not 1 <= int(digits) <= 99:
            raise ScheduleError(f"{item!r}: a share of the turn's time is 1% to 99%")
        return Point(percent=int(digits))
    try:
        seconds = parse_setting_duration(item, False)
    except DurationError:
        seconds = None
    if seconds is None:
        raise ScheduleError(f"{item!r} is neither a share like 50% nor a time before the "
                            f"time-out like 24h, 90m or 1d12h (or 'off' for no reminders)")
    return Point(before=seconds)


def of_settings(settings: dict[str, str]) -> Schedule:
    """The club's schedule: its setting, else :data:`DEFAULT` (a value that no longer
    reads, from a hand-edited store, is the default too)."""
    try:
        return parse(settings.get(SETTING) or DEFAULT)
    except ScheduleError:
        return parse(DEFAULT)
