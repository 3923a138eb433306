"""Correspondence clocks: the ``TimeControl`` tag, ``[%ts]`` timestamps, time left, flag falls.

Pure: no I/O, no reading of the system clock (callers pass ``now``). Times are whole
seconds since 1970-01-01T00:00Z (UTC); durations are seconds. Sides are 0 (White) and
1 (Black), as in :mod:`tomis.board`. The rules of the clock are docs/NOTATION.md's
"The ``TimeControl`` tag"; this module is their one implementation.

Errors are :class:`~tomis.errors.RecordError` without a location: the caller knows where
the text came from (a tag, a comment, a command-line option) and locates them.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import NamedTuple, Sequence

from ..errors import RecordError
from .tags import TIME_CONTROL_TAG

MINUTE, HOUR, DAY = 60, 3600, 86400
MAX_DURATION = 3650 * DAY           # ten years: beyond it a clock means nothing
TIME_CONTROL_FORMS = "like 30d+3d or bank:240h+36h"
STAMP_FORM = "a UTC time like 2026-11-23T10:15Z"

_UNITS = (("d", DAY), ("h", HOUR), ("m", MINUTE))
_DURATION = r"(?:[0-9]{1,7}d)?(?:[0-9]{1,7}h)?(?:[0-9]{1,7}m)?"
_CONTROL = re.compile(rf"(?P<bank>bank:)?(?P<start>{_DURATION})(?:\+(?P<inc>{_DURATION}))?"
                      rf"(?:/(?P<cap>{_DURATION}))?")
_STAMP = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?Z")


# --------------------------------------------------------------------------- durations

def parse_duration(text: str) -> int:
    """Seconds in ``30d``, ``36h``, ``1d12h``, ``90m`` (largest unit first, each once).

    >>> parse_duration("1d12h")
    129600
    """
    if not text or re.fullmatch(_DURATION, text) is None:
        raise RecordError(f"expected a duration like 30d, 36h or 1d12h, found '{text}'")
    seconds = 0
    for number, unit in re.findall(r"([0-9]+)([dhm])", text):
        seconds += int(number) * dict(_UNITS)[unit]
    if seconds > MAX_DURATION:
        raise RecordError(f"a duration is at most 3650d, found '{text}'")
    return seconds


def format_duration(seconds: int) -> str:
    """The compact form the tag uses: ``1d12h``; ``0m`` for nothing; minutes and up only.

    >>> format_duration(129600), format_duration(0)
    ('1d12h', '0m')
    """
    parts = []
    rest = seconds // MINUTE * MINUTE
    for unit, size in _UNITS:
        count, rest = divmod(rest, size)
        if count:
            parts.append(f"{count}{unit}")
    return "".join(parts) or "0m"


def describe_duration(seconds: int) -> str:
    """Time left in words for people: ``3d 4h 12m``, ``-2h 5m`` once run out, ``0m``.

    Seconds are dropped (rounded toward zero), so a clock never shows more than it has.
    """
    sign = "-" if seconds < 0 else ""
    rest = abs(seconds) // MINUTE * MINUTE
    parts = []
    for unit, size in _UNITS:
        count, rest = divmod(rest, size)
        if count or (unit == "m" and not parts):
            parts.append(f"{count}{unit}")
    return sign + " ".join(parts)


# --------------------------------------------------------------------------- time controls

class TimeControl(NamedTuple):
    """A parsed ``TimeControl`` tag. ``cap`` is None for a Fischer clock (no cap)."""

    start: int
    increment: int
    cap: int | None

    def __str__(self) -> str:
        """The canonical tag value: ``30d+3d``, ``bank:240h+36h`` (the cap only when not START)."""
        text = format_duration(self.start)
        if self.increment:
            text += "+" + format_duration(self.increment)
        if self.cap is None:
            return text
        cap = "" if self.cap == self.start else "/" + format_duration(self.cap)
        return f"bank:{text}{cap}"

    def after_action(self, had: int, used: int) -> int:
        """What a side has after an action that took ``used`` of the ``had`` it had.

        A late action (``used > had``) leaves the side run out, without an increment.
        """
        left = had - used
        if had < 0 or left < 0:
            return min(left, had)
        left += self.increment
        return left if self.cap is None else min(left, self.cap)


def parse_time_control(text: str) -> TimeControl:
    """A ``TimeControl`` value: ``START[+INC]`` or ``bank:START[+INC][/CAP]``.

    >>> parse_time_control("30d+3d")
    TimeControl(start=2592000, increment=259200, cap=None)
    >>> str(parse_time_control("bank:240h+36h"))
    'bank:10d+1d12h'
    """
    match = _CONTROL.fullmatch(text)
    if match is None or not match["start"] or match["inc"] == "" or match["cap"] == "":
        raise RecordError(f"the TimeControl tag must be {TIME_CONTROL_FORMS}, found '{text}'")
    if match["cap"] is not None and match["bank"] is None:
        raise RecordError(f"only a bank has a cap: write bank:{text}, or leave out the /cap; "
                          f"found '{text}'")
    start = parse_duration(match["start"])
    if start == 0:
        raise RecordError(f"the TimeControl tag starts each side with no time at all: '{text}'")
    increment = parse_duration(match["inc"]) if match["inc"] else 0
    if match["bank"] is None:
        return TimeControl(start, increment, None)
    cap = parse_duration(match["cap"]) if match["cap"] else start
    if cap < start:
        raise RecordError(f"a bank's cap may not be less than its start: "
                          f"{format_duration(cap)} < {format_duration(start)} in '{text}'")
    return TimeControl(start, increment, cap)


# --------------------------------------------------------------------------- timestamps

def parse_stamp(text: str) -> int:
    """Seconds since the epoch of ``2026-11-23T10:15Z`` (``:SS`` allowed; ``Z`` required).

    >>> parse_stamp("1970-01-02T00:00Z")
    86400
    """
    match = _STAMP.fullmatch(text)
    if match is None:
        raise RecordError(f"expected {STAMP_FORM}, found '{text}'")
    year, month, day, hour, minute, second = (int(part or 0) for part in match.groups())
    try:
        when = datetime(year, month, day, hour, minute, second, tzinfo=timezone.utc)
    except ValueError as error:        # Feb 30, hour 24, ...: the calendar says no
        raise RecordError(f"'{text}' is not a real time: {error}") from None
    return int(when.timestamp())


def format_stamp(seconds: int) -> str:
    """``2026-11-23T10:15Z``; ``:SS`` only when the seconds are not zero."""
    when = datetime.fromtimestamp(seconds, tz=timezone.utc)
    text = when.strftime("%Y-%m-%dT%H:%M")
    if when.second:
        text += f":{when.second:02d}"
    return text + "Z"


def stamp_of(when: datetime) -> int:
    """A timezone-aware ``datetime`` as a stamp, cut down to the minute (never rounded up)."""
    seconds = int(when.astimezone(timezone.utc).timestamp())
    return seconds - seconds % MINUTE


# --------------------------------------------------------------------------- running a clock

class Stamp(NamedTuple):
    """The stamp of one action of the main line, ``number`` 1-based over the whole game."""

    number: int
    side: int
    at: int


class FlagFall(NamedTuple):
    """A side's time ran out at ``deadline``; ``number`` is the late action (None: none yet)."""

    side: int
    deadline: int
    number: int | None


class BackwardStamp(RecordError):
    """A stamp earlier than the one before it; ``index`` is its place in the stamps given."""

    def __init__(self, message: str, index: int):
        super().__init__(message)
        self.index = index


class Clock(NamedTuple):
    """Both sides' clocks after the stamped actions (before any ``now``).

    ``left[side]`` is what each side had after its last action (START if it has not
    acted); ``since`` the stamp the side to act's period runs from (None before the
    first stamp, when no start stamp was given); ``flag_falls`` every late action;
    ``last_number`` the number of the last stamped action (None: none).
    """

    control: TimeControl
    left: tuple[int, int]
    since: int | None
    flag_falls: tuple[FlagFall, ...]
    last_number: int | None

    def time_left(self, side: int, to_move: int | None, now: int | None) -> int:
        """What ``side`` has at ``now``: its period runs only while it is to act."""
        left = self.left[side]
        if side == to_move and now is not None and self.since is not None:
            left -= max(0, now - self.since)
        return left

    def deadline(self, side: int) -> int | None:
        """When ``side``'s time runs out if it is to act now (None before the clocks start)."""
        return None if self.since is None else self.since + self.left[side]


def check_order(start: int | None, stamps: Sequence[Stamp]) -> None:
    """Refuse the first stamp earlier than the one before it (:class:`BackwardStamp`)."""
    before, before_number = start, 0
    for index, stamp in enumerate(stamps):
        if before is not None and stamp.at < before:
            what = "the game's start stamp" if before_number == 0 else f"action {before_number}'s"
            raise BackwardStamp(f"the timestamp {format_stamp(stamp.at)} is earlier than "
                                f"{what}, {format_stamp(before)}; timestamps never go backwards",
                                index)
        before, before_number = stamp.at, stamp.number


def run(control: TimeControl, start: int | None, stamps: Sequence[Stamp]) -> Clock:
    """Both clocks after ``stamps`` (the main line's, in order, none missing).

    ``start`` is the game's start stamp or None (then White's first period is empty).
    Stamps must not go backwards (see :func:`check_order`, which this calls).
    """
    check_order(start, stamps)
    left = [control.start, control.start]
    falls: list[FlagFall] = []
    since, last_number = start, None
    for stamp in stamps:
        had = left[stamp.side]
        used = 0 if since is None else stamp.at - since
        if used > had:     # late; a side already run out stays out, every action late
            falls.append(FlagFall(stamp.side, since + max(had, 0), stamp.number))
        left[stamp.side] = control.after_action(had, used)
        since, last_number = stamp.at, stamp.number
    return Clock(control, (left[0], left[1]), since, tuple(falls), last_number)


def ran_out(clock: Clock, side: int, to_move: int | None, now: int) -> FlagFall | None:
    """How ``side``'s time ran out by ``now``, or None if it has not.

    Either it is to act and its period passed its deadline before ``now``, or its last
    action was late (the latest of :attr:`Clock.flag_falls`, if that is ``side``'s and no
    action of the opponent followed it).
    """
    if side == to_move and clock.since is not None and clock.time_left(side, to_move, now) < 0:
        return FlagFall(side, clock.deadline(side), None)
    if clock.flag_falls and side != to_move:
        latest = clock.flag_falls[-1]
        if latest.side == side and latest.number == clock.last_number:
            return latest
    return None
