"""Levels 1-8: each one a fixed search limit, so every level plays the same way on any machine.

Levels are defined by depth and *node* limits (positions searched) and a root
randomness, not by time: a match between two levels is then reproducible from its seed
and costs the same everywhere. The upper levels first finish a minimum depth, then go
on up to their node limit: a first ladder with node limits alone showed that a pass cut
short is worth little, and 250 nodes (often short of two full plies) lost 37 % to a
plain two-ply search. A second ladder found a doubling of nodes worth little while
both levels still finish the same depth (6,000 against 3,000 nodes: 59.5 %), so each
upper level finishes one ply more, most of the time, than the level below: on busy
positions level 6 finishes four plies in 2 of 12, level 7 (8,500 nodes) in 8 of 12,
level 8 always (before issue 45's pruning, with which level 6 finishes four plies on 10
of the 16 positions of bench/search_positions.txt). ``noise`` is the most a seeded
random offset adds to or takes from each root action's score, in centi-frigates (100 =
one frigate): level 1's offsets swamp the evaluation, so it plays almost at random and
a beginner can beat it.

The ladder measured between neighbouring levels is in docs/ENGINE.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from .search import Limits


@dataclass(frozen=True)
class Level:
    number: int
    limits: Limits
    summary: str


LEVELS: dict[int, Level] = {
    1: Level(1, Limits(depth=1, noise=1000), "one ply, offsets of +-10 frigates: almost random"),
    2: Level(2, Limits(depth=1, noise=150), "one ply and quiescence, offsets of +-1.5 frigates"),
    3: Level(3, Limits(depth=2, noise=80), "two plies, offsets of +-0.8 frigates"),
    4: Level(4, Limits(nodes=600, min_depth=2), "two plies at least, then up to 600 nodes"),
    5: Level(5, Limits(nodes=1_500, min_depth=2), "two plies at least, then up to 1,500 nodes"),
    6: Level(6, Limits(nodes=3_000, min_depth=3), "three plies at least, then up to 3,000 nodes"),
    7: Level(7, Limits(nodes=8_500, min_depth=3), "three plies at least, then up to 8,500 nodes"),
    8: Level(8, Limits(nodes=24_000, min_depth=4), "four plies at least, then up to 24,000 nodes"),
}
MIN_LEVEL, MAX_LEVEL = 1, 8
# The default answers well within a second per action (docs/ENGINE.md has the times).
DEFAULT_LEVEL = 6


def level_limits(number: int) -> Limits:
    """The search limits of level ``number`` (1-8); ValueError for any other number."""
    try:
        return LEVELS[number].limits
    except (KeyError, TypeError):
        raise ValueError(f"there is no level {number!r}; levels run from {MIN_LEVEL} to {MAX_LEVEL}") from None
