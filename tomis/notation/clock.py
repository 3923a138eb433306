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
from ..rules.board import SIDE_NAMES, SIDE_TITLES
from .tags import LEAVE_DAYS_TAG, TIME_CONTROL_TAG  # noqa: F401 -- TIME_CONTROL_TAG answered here for the readers of clocks

MINUTE, HOUR, DAY = 60, 3600, 86400
MAX_DURATION = 3650 * DAY           # ten years: beyond it a clock means nothing
TIME_CONTROL_FORMS = "like 30d+3d, bank:240h+36h or 10/30d"
STAMP_FORM = "a UTC time like 2026-11-23T10:15Z"
DEFAULT_LEAVE_DAYS = 45             # per side and calendar year, when the tag is absent
MAX_LEAVE_DAYS = 366
LEAVE_FORM = "[%leave 2026-12-20 2027-01-03]"
NAMED_LEAVE_FORM = "[%leave white 2026-12-20 2027-01-03]"
OUTAGE_FORM = "[%outage 2026-11-23T10:15Z 2026-11-23T13:15Z]"
CREDIT_FORM = "[%credit white 2d]"
MAX_OUTAGES = 100                   # per game: a referee down that often has bigger troubles
MAX_CREDITS = 100                   # per game: the organiser's gifts of time

_UNITS = (("d", DAY), ("h", HOUR), ("m", MINUTE))
_DURATION = r"(?:[0-9]{1,7}d)?(?:[0-9]{1,7}h)?(?:[0-9]{1,7}m)?"
_CONTROL = re.compile(rf"(?P<bank>bank:)?(?P<start>{_DURATION})(?:\+(?P<inc>{_DURATION}))?"
                      rf"(?:/(?P<cap>{_DURATION}))?")
_PER = re.compile(rf"(?P<count>[0-9]{{1,4}})/(?P<days>{_DURATION})(?P<rest>.*)")
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
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
    """A parsed ``TimeControl`` tag.

    ``cap`` is None for a Fischer clock (no cap). ``per`` is N in ICCF's ``N/Md`` (N
    actions in M days, cumulative): then ``start`` and ``increment`` are both M, and the
    increment comes after every N-th own action instead of after each one.
    """

    start: int
    increment: int
    cap: int | None
    per: int | None = None

    @property
    def is_per(self) -> bool:
        return self.per is not None

    def next_control(self, actions: int) -> int | None:
        """The own action a side with ``actions`` own actions made must reach next within
        its allowance (a multiple of N); None for a clock without control points."""
        if self.per is None:
            return None
        return (actions // self.per + 1) * self.per

    def __str__(self) -> str:
        """The canonical tag value: ``30d+3d``, ``bank:240h+36h`` (the cap only when not START),
        ``10/30d``."""
        if self.per is not None:
            return f"{self.per}/{format_duration(self.start)}"
        text = format_duration(self.start)
        if self.increment:
            text += "+" + format_duration(self.increment)
        if self.cap is None:
            return text
        cap = "" if self.cap == self.start else "/" + format_duration(self.cap)
        return f"bank:{text}{cap}"

    def after_action(self, had: int, used: int, count: int = 1) -> int:
        """What a side has after an action that took ``used`` of the ``had`` it had;
        ``count`` is how many own actions the side has made with this one.

        A late action (``used > had``) leaves the side run out, without an increment.
        Under ``N/Md`` the allowance grows by M at each N-th action, so what a side saved
        carries forward to the next control point.
        """
        left = had - used
        if had < 0 or left < 0:
            return min(left, had)
        if self.per is not None:
            return left + (self.increment if count % self.per == 0 else 0)
        left += self.increment
        return left if self.cap is None else min(left, self.cap)


def parse_time_control(text: str) -> TimeControl:
    """A ``TimeControl`` value: ``START[+INC]``, ``bank:START[+INC][/CAP]`` or ``N/M``.

    >>> parse_time_control("30d+3d")
    TimeControl(start=2592000, increment=259200, cap=None, per=None)
    >>> str(parse_time_control("bank:240h+36h"))
    'bank:10d+1d12h'
    """
    per = _PER.fullmatch(text.removeprefix("bank:"))
    if per is not None and per["days"]:
        if text.startswith("bank:"):
            raise RecordError(f"an N/Md time control stands alone, with no increment, bank or "
                              f"cap: write {text.removeprefix('bank:')}, or a form like "
                              f"bank:240h+36h; found '{text}'")
        return _parse_per(text, per)
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


def _parse_per(text: str, match: re.Match) -> TimeControl:
    """``N/M``: N own actions in M of thinking time, cumulative (ICCF's form)."""
    if match["rest"]:
        raise RecordError(f"an N/Md time control stands alone, with no increment, bank or cap: "
                          f"write {match['count']}/{match['days']}, or a form like 30d+3d; "
                          f"found '{text}'")
    count = int(match["count"])
    if count == 0:
        raise RecordError(f"an N/Md time control counts at least 1 action, found '{text}'")
    allowance = parse_duration(match["days"])
    if allowance == 0:
        raise RecordError(f"the TimeControl tag starts each side with no time at all: '{text}'")
    return TimeControl(allowance, allowance, None, count)


# --------------------------------------------------------------------------- timestamps

def parse_stamp(text: str) -> int:
    """Seconds since the epoch of ``2026-11-23T10:15Z`` (``:SS`` allowed; ``Z`` required).

    >>> parse_stamp("1970-01-02T00:00Z")
    86400
    """
    return _utc_seconds(text, _STAMP, STAMP_FORM, "time")


def _utc_seconds(text: str, pattern: re.Pattern, form: str, what: str) -> int:
    """Seconds since the epoch of ``text``, whose groups ``pattern`` gives as year, month,
    day and any of hour, minute, second (absent ones 0)."""
    match = pattern.fullmatch(text)
    if match is None:
        raise RecordError(f"expected {form}, found '{text}'")
    try:
        when = datetime(*(int(part or 0) for part in match.groups()), tzinfo=timezone.utc)
    except ValueError as error:        # Feb 30, hour 24, ...: the calendar says no
        raise RecordError(f"'{text}' is not a real {what}: {error}") from None
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


# --------------------------------------------------------------------------- leave

class Leave(NamedTuple):
    """A side's leave: its clock stops from ``begins`` (00:00Z of the first day) up to
    ``ends`` (00:00Z of the day after the last: the dates are inclusive)."""

    side: int
    begins: int
    ends: int

    @property
    def days(self) -> int:
        return (self.ends - self.begins) // DAY

    def __str__(self) -> str:
        """The command's arguments, the first and last day: ``2026-12-20 2027-01-03``."""
        return f"{format_date(self.begins)} {format_date(self.ends - DAY)}"

    def command(self) -> str:
        """The comment command that records it: ``[%leave 2026-12-20 2027-01-03]``. Whose
        leave it is, the record says by where it stands (see :func:`parse_leave`)."""
        return f"[%leave {self}]"

    def named(self) -> str:
        """The arguments naming the side: ``black 2026-12-20 2027-01-03``."""
        return f"{SIDE_NAMES[self.side]} {self}"

    def named_command(self) -> str:
        """The command that names its side, for a place that is not the side's own:
        ``[%leave black 2026-12-20 2027-01-03]``."""
        return f"[%leave {self.named()}]"

    def covers(self, when: int) -> bool:
        return self.begins <= when < self.ends


def parse_date(text: str) -> int:
    """Seconds since the epoch of 00:00Z on the day ``YYYY-MM-DD``.

    >>> parse_date("1970-01-02")
    86400
    """
    return _utc_seconds(text, _DATE, "a date like 2026-12-20", "date")


def format_date(seconds: int) -> str:
    """``2026-12-20``: the UTC day holding ``seconds``."""
    return datetime.fromtimestamp(seconds, tz=timezone.utc).strftime("%Y-%m-%d")


def parse_leave(arguments: str, side: int) -> Leave:
    """A leave from the arguments of ``[%leave FIRST LAST]``, two dates, or of ``[%leave
    SIDE FIRST LAST]``, which names its side. Without a name the side is ``side``: the
    record gives it by the command's place, the side that played the action it follows.

    >>> str(parse_leave("2026-12-20 2027-01-03", 1))
    '2026-12-20 2027-01-03'
    >>> parse_leave("white 2026-12-20 2027-01-03", 1).side
    0
    """
    words = arguments.split()
    if names_side(arguments):
        side, words = SIDE_NAMES.index(words[0]), words[1:]
    if len(words) != 2:
        raise RecordError(f"a leave is written like {LEAVE_FORM}: its first and last day, "
                          f"or like {NAMED_LEAVE_FORM}, naming its side; found '{arguments}'")
    begins, last = parse_date(words[0]), parse_date(words[1])
    if last < begins:
        raise RecordError(f"a leave's last day comes before its first: {words[1]} < {words[0]}")
    return Leave(side, begins, last + DAY)


def names_side(arguments: str) -> bool:
    """Whether the arguments of a ``[%leave]`` begin with the side's name."""
    words = arguments.split()
    return bool(words) and words[0] in SIDE_NAMES


def parse_leave_days(text: str) -> int:
    """The ``LeaveDays`` tag: whole days of leave each side may take per calendar year."""
    if re.fullmatch(r"[0-9]{1,3}", text) is None or int(text) > MAX_LEAVE_DAYS:
        raise RecordError(f"the {LEAVE_DAYS_TAG} tag must be a number of days from 0 to "
                          f"{MAX_LEAVE_DAYS}, found '{text}'")
    return int(text)


def leave_days_in_year(leaves: Sequence[Leave], side: int, year: int) -> int:
    """The days of ``side``'s leaves that fall in the calendar ``year`` (UTC)."""
    first = int(datetime(year, 1, 1, tzinfo=timezone.utc).timestamp())
    after = int(datetime(year + 1, 1, 1, tzinfo=timezone.utc).timestamp())
    return sum(max(0, min(leave.ends, after) - max(leave.begins, first)) // DAY
               for leave in leaves if leave.side == side)


def years_of(leave: Leave) -> range:
    """The calendar years a leave touches (one, or more across New Year)."""
    return range(year_of(leave.begins), year_of(leave.ends - DAY) + 1)


def year_of(seconds: int) -> int:
    return datetime.fromtimestamp(seconds, tz=timezone.utc).year


def _stops(leaves: Sequence[Leave], side: int) -> list[tuple[int, int]]:
    """``side``'s leaves as sorted, merged (begins, ends) spans (overlaps counted once)."""
    spans: list[tuple[int, int]] = []
    for leave in sorted(leave for leave in leaves if leave.side == side):
        if spans and leave.begins <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], leave.ends))
        else:
            spans.append((leave.begins, leave.ends))
    return spans


def running_time(leaves: Sequence[Leave], side: int, begin: int, end: int) -> int:
    """How long ``side``'s clock runs from ``begin`` to ``end``: the span minus its leave."""
    if end <= begin:
        return 0
    stopped = sum(max(0, min(end, stop_end) - max(begin, stop_begin))
                  for stop_begin, stop_end in _stops(leaves, side))
    return end - begin - stopped


def advance(leaves: Sequence[Leave], side: int, begin: int, amount: int) -> int:
    """The last instant by which ``side``'s clock, running from ``begin``, has run
    ``amount`` seconds (``amount`` >= 0): leave it meets on the way is skipped, and a
    leave that starts just as the amount is reached still stops the clock."""
    at, remaining = begin, amount
    for stop_begin, stop_end in _stops(leaves, side):
        if stop_end <= at:
            continue
        gap = max(0, stop_begin - at)
        if remaining < gap:
            break
        remaining -= gap
        at = stop_end
    return at + remaining


# --------------------------------------------------------------------------- outages and credits

class Outage(NamedTuple):
    """A time the referee could not take mail, from ``begins`` up to ``ends``: no clock
    runs in it (docs/NOTATION.md, "Outages and credits")."""

    begins: int
    ends: int

    def __str__(self) -> str:
        """The command's arguments: ``2026-11-23T10:15Z 2026-11-23T13:15Z``."""
        return f"{format_stamp(self.begins)} {format_stamp(self.ends)}"

    def command(self) -> str:
        return f"[%outage {self}]"

    def stops(self) -> tuple[Leave, Leave]:
        """The outage as both sides' clocks see it: a stop like leave, for each side."""
        return Leave(0, self.begins, self.ends), Leave(1, self.begins, self.ends)


class Credit(NamedTuple):
    """Time given to ``side``: ``seconds`` added to what it has after action ``after``
    (the number of the action the command follows; the start's ply before the first)."""

    side: int
    seconds: int
    after: int

    def __str__(self) -> str:
        """The command's arguments: ``white 2d``."""
        return f"{SIDE_NAMES[self.side]} {format_duration(self.seconds)}"

    def command(self) -> str:
        return f"[%credit {self}]"


def parse_outage(arguments: str) -> Outage:
    """An outage from the arguments of ``[%outage START END]``, two UTC stamps, START
    before END.

    >>> parse_outage("2026-11-23T10:15Z 2026-11-23T13:15Z").ends - parse_outage("2026-11-23T10:15Z 2026-11-23T13:15Z").begins
    10800
    """
    words = arguments.split()
    if len(words) != 2:
        raise RecordError(f"an outage is written like {OUTAGE_FORM}: when it began and when "
                          f"it ended; found '{arguments}'")
    begins, ends = parse_stamp(words[0]), parse_stamp(words[1])
    if ends <= begins:
        raise RecordError(f"an outage ends after it begins: {words[1]} is not after {words[0]}")
    if ends - begins > MAX_DURATION:
        raise RecordError(f"an outage lasts at most 3650d, found '{arguments}'")
    return Outage(begins, ends)


def parse_credit(arguments: str, after: int) -> Credit:
    """A credit from the arguments of ``[%credit white|black DURATION]``; ``after`` is the
    number of the action the command follows.

    >>> parse_credit("black 1d12h", 10)
    Credit(side=1, seconds=129600, after=10)
    """
    words = arguments.split()
    if len(words) != 2 or words[0] not in SIDE_NAMES:
        raise RecordError(f"a credit is written like {CREDIT_FORM}: the side (white or black) "
                          f"and the time it is given; found '{arguments}'")
    seconds = parse_duration(words[1])
    if seconds == 0:
        raise RecordError(f"a credit gives some time, at least 1m; found '{words[1]}'")
    return Credit(SIDE_NAMES.index(words[0]), seconds, after)


class CreditAfterFall(RecordError):
    """A credit to a side whose time had run out; ``index`` is its place in the credits."""

    def __init__(self, message: str, index: int):
        super().__init__(message)
        self.index = index


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
    ``last_number`` the number of the last stamped action (None: none); ``leaves``
    both sides' leave, during which a side's clock does not run; ``actions`` how many
    own actions each side made in the stamps run.
    """

    control: TimeControl
    left: tuple[int, int]
    since: int | None
    flag_falls: tuple[FlagFall, ...]
    last_number: int | None
    leaves: tuple[Leave, ...] = ()
    actions: tuple[int, int] = (0, 0)

    def time_left(self, side: int, to_move: int | None, now: int | None) -> int:
        """What ``side`` has at ``now``: its period runs only while it is to act, and
        not during its leave."""
        left = self.left[side]
        if side == to_move and now is not None and self.since is not None:
            left -= running_time(self.leaves, side, self.since, now)
        return left

    def deadline(self, side: int) -> int | None:
        """When ``side``'s time runs out if it is to act now (None before the clocks start):
        the last instant at which it still has time; a moment later its flag has fallen."""
        if self.since is None:
            return None
        if self.left[side] < 0:             # already run out by a late action
            return self.since + self.left[side]
        return advance(self.leaves, side, self.since, self.left[side])

    def next_control(self, side: int) -> int | None:
        """Under ``N/Md``: the own action (counted from 1) ``side`` must reach next within
        its allowance; None for the other forms."""
        return self.control.next_control(self.actions[side])


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


def run(control: TimeControl, start: int | None, stamps: Sequence[Stamp],
        leaves: Sequence[Leave] = (), credits: Sequence[Credit] = ()) -> Clock:
    """Both clocks after ``stamps`` (the main line's, in order, none missing).

    ``start`` is the game's start stamp or None (then White's first period is empty).
    Stamps must not go backwards (see :func:`check_order`, which this calls). A side's
    clock does not run during its ``leaves`` (an outage is a stop of both sides, see
    :meth:`Outage.stops`). Each of ``credits`` (in record order) adds to what its side
    has at its place; a credit to a side whose time ran out by a late action raises
    :class:`CreditAfterFall`: it gives no lost game back.
    """
    check_order(start, stamps)
    left = [control.start, control.start]
    counts = [0, 0]
    falls: list[FlagFall] = []
    since, last_number = start, None
    given = 0                   # how many of ``credits`` are added so far
    for stamp in stamps:
        given = _give(left, credits, given, stamp.number)
        side = stamp.side
        had = left[side]
        used = 0 if since is None else running_time(leaves, side, since, stamp.at)
        if used > had:     # late; a side already run out stays out, every action late
            falls.append(FlagFall(side, advance(leaves, side, since, max(had, 0)), stamp.number))
        counts[side] += 1
        left[side] = control.after_action(had, used, counts[side])
        since, last_number = stamp.at, stamp.number
    _give(left, credits, given, None)
    return Clock(control, (left[0], left[1]), since, tuple(falls), last_number, tuple(leaves),
                 (counts[0], counts[1]))


def _give(left: list[int], credits: Sequence[Credit], given: int, before: int | None) -> int:
    """Add to ``left`` the credits from ``given`` on that stand before action ``before``
    (None: all the rest); how many are added in all."""
    while given < len(credits) and (before is None or credits[given].after < before):
        credit = credits[given]
        if left[credit.side] < 0:
            raise CreditAfterFall(f"{credit.command()}: {SIDE_TITLES[credit.side]}'s time had "
                                  f"run out by a late action before it; a credit does not "
                                  f"give a lost game back", given)
        left[credit.side] += credit.seconds
        given += 1
    return given


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



# --------------------------------------------------------------------------- one reading, for a referee

class Reading(NamedTuple):
    """One side's clock at a time ``now`` (see :func:`read`).

    ``had`` is what the side had when its turn began (what it has, when not to act);
    ``left`` what it has at ``now`` (below zero once run out); ``deadline`` the last
    instant it still has time if it does not act (None when not to act, or before the
    clocks start); ``fall`` how its time ran out by ``now`` (None: it has not);
    ``next_control`` the own action its allowance runs to under ``N/Md`` (else None).
    """

    side: int
    to_act: bool
    had: int
    left: int
    on_leave: bool
    deadline: int | None
    fall: FlagFall | None
    next_control: int | None

    @property
    def used_half(self) -> bool:
        """Whether the side to act has used at least half of what it had when its turn
        began (the moment for one reminder per turn)."""
        return self.to_act and self.had > 0 and 2 * (self.had - self.left) >= self.had


def readings(control: TimeControl, start: int | None, stamps: Sequence[Stamp],
         leaves: Sequence[Leave], now: int, to_move: int | None) -> tuple[Reading, Reading]:
    """Both sides' clocks at ``now``; ``to_move`` is None once the game has ended.

    ``stamps`` are the main line's, in order, none missing; ``leaves`` both sides'.
    Raises :class:`BackwardStamp` when a stamp goes backwards.
    """
    ran = run(control, start, stamps, leaves)
    return tuple(reading(ran, side, to_move, now) for side in (0, 1))


def reading(ran: Clock, side: int, to_move: int | None, now: int) -> Reading:
    """One side's :class:`Reading` of the clocks ``ran`` at ``now``."""
    to_act = side == to_move and ran.since is not None
    return Reading(side, to_act, ran.left[side], ran.time_left(side, to_move, now),
                   any(leave.side == side and leave.covers(now) for leave in ran.leaves),
                   ran.deadline(side) if to_act else None,
                   ran_out(ran, side, to_move, now) if to_move is not None else None,
                   ran.next_control(side))
