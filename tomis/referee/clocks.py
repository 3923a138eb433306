"""The referee's clocks: today's ``TimeControl`` forms run through :mod:`tomis.clock`'s
own rule for one action (:meth:`~tomis.clock.TimeControl.after_action`), with the
players' leave taken out of the time they use.

This is the one place of the referee's clock arithmetic. :mod:`tomis.clock` knows no
leave yet; when it learns leave periods (and ICCF-style ``N/Md`` controls), this module
hands over to it. A leave period is whole UTC days, first to last inclusive; while it
runs, the player's clock stands still.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timezone
from typing import Sequence

from ..notation.clock import DAY, TimeControl

Interval = tuple[int, int]     # [start, end) in seconds since the epoch


def day_start(day: date) -> int:
    return int(datetime(day.year, day.month, day.day, tzinfo=timezone.utc).timestamp())


def leave_interval(first: date, last: date) -> Interval:
    """The seconds a leave from ``first`` to ``last`` (inclusive) covers."""
    return day_start(first), day_start(last) + DAY


def utc_day(seconds: int) -> date:
    return datetime.fromtimestamp(seconds, tz=timezone.utc).date()


def used_between(leaves: Sequence[Interval], begin: int, end: int) -> int:
    """Seconds from ``begin`` to ``end`` that no leave interval covers."""
    if end <= begin:
        return 0
    used = end - begin
    for start, stop in _merged(leaves):
        used -= max(0, min(end, stop) - max(begin, start))
    return used


def _merged(leaves: Sequence[Interval]) -> list[Interval]:
    merged: list[list[int]] = []
    for start, stop in sorted(leaves):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], stop)
        else:
            merged.append([start, stop])
    return [(start, stop) for start, stop in merged]


def moment_used(leaves: Sequence[Interval], begin: int, amount: int) -> int:
    """The moment at which ``amount`` seconds from ``begin`` have been used (leave skipped)."""
    at, rest = begin, amount
    for start, stop in _merged(leaves):
        if stop <= at:
            continue
        if start > at:
            if rest < start - at:
                return at + rest
            rest -= start - at
        at = max(at, stop)
    return at + rest


@dataclass(frozen=True)
class Clocks:
    """Both clocks after the stamped actions; ``since`` is when the side to act's turn began."""

    control: TimeControl
    left: tuple[int, int]          # each side's time at the start of its current or next turn
    since: int | None
    to_move: int | None
    leaves: tuple[tuple[Interval, ...], tuple[Interval, ...]]

    def time_left(self, side: int, now: int) -> int:
        left = self.left[side]
        if side == self.to_move and self.since is not None:
            left -= used_between(self.leaves[side], self.since, now)
        return left

    def deadline(self, side: int) -> int | None:
        """When ``side``'s time runs out if nothing happens (None: not its turn)."""
        if side != self.to_move or self.since is None:
            return None
        return moment_used(self.leaves[side], self.since, max(self.left[side], 0))

    def half_used(self, now: int) -> bool:
        """Whether the side to act has used half of what it had when its turn began."""
        if self.to_move is None or self.since is None:
            return False
        return self.time_left(self.to_move, now) * 2 <= self.left[self.to_move]


def run(control: TimeControl, start: int | None, stamps: Sequence[tuple[int, int]],
        to_move: int | None, leaves: Sequence[Sequence[Interval]]) -> Clocks:
    """The clocks after ``stamps`` (side, time) in order, from the game's ``start``."""
    left = [control.start, control.start]
    since = start
    for side, at in stamps:
        used = 0 if since is None else used_between(leaves[side], since, at)
        left[side] = control.after_action(left[side], used)
        since = at
    return Clocks(control, (left[0], left[1]), since, to_move,
                  (tuple(leaves[0]), tuple(leaves[1])))
