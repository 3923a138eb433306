"""The computer as a player: pick an action at a level, or give a hint under a limit."""

from __future__ import annotations

from ..rules.core import State
from .levels import DEFAULT_LEVEL, level_limits
from .evaluate import frigates_text
from .search import MATE, MATE_BOUND, Limits, Search, SearchResult


def score_text(score: int) -> str:
    """A score for players: ``+2.3 frigates``, or ``wins in 3 actions`` near the end."""
    if abs(score) > MATE_BOUND:
        plies = MATE - abs(score)
        word = "wins" if score > 0 else "loses"
        return f"{word} in {plies} action{'' if plies == 1 else 's'}"
    return frigates_text(score)


def hint(state: State, limits: Limits = Limits(depth=4), seed: int = 0, on_depth=None) -> SearchResult:
    """The best action for the side to act, its score for that side and the expected line."""
    return Search(seed).run(state, limits, on_depth)


class ComputerPlayer:
    """Plays at level 1-8; the same seed gives the same game against the same actions."""

    def __init__(self, level: int = DEFAULT_LEVEL, seed: int = 0):
        self.limits = level_limits(level)
        self.level = level
        self.seed = seed
        self.search = Search(seed)
        self.last: SearchResult | None = None

    @property
    def name(self) -> str:
        return f"computer (level {self.level})"

    def choose(self, state: State):
        """The action this level plays in ``state`` (which must be undecided)."""
        self.last = self.search.run(state, self.limits)
        return self.last.action

    def stop(self) -> None:
        """Make a running :meth:`choose` answer at once (from another thread)."""
        self.search.stop()
