"""The computer as a player: pick an action at a level, or give a hint under a limit.

Also how a record names the computer: ``tomis level N`` in the White or Black tag, and
``[WhiteType "program"]``/``[BlackType "program"]`` (the PGN convention for a player
that is a program), the same in ``tomis play`` and ``tomis match``.
"""

from __future__ import annotations

import re

from ..rules.core import State
from .levels import DEFAULT_LEVEL, level_limits
from .evaluate import frigates_text
from .search import MATE, MATE_BOUND, Limits, Search, SearchResult


# The tag that says whether a side is a person or a program, and its value for a program.
TYPE_TAGS = {"white": "WhiteType", "black": "BlackType"}
PROGRAM = "program"
_PROGRAM_NAME = re.compile(r"tomis level ([1-9][0-9]*)")
_THINKING_NAME = re.compile(r"tomis thinking ([0-9][0-9.e+-]{0,15}) s")


def program_name(level: int) -> str:
    """How records and messages name the computer at ``level``: ``tomis level 4``."""
    return f"tomis level {level}"


def program_level(name: str | None) -> int | None:
    """The level a :func:`program_name` names, or None for any other name."""
    found = _PROGRAM_NAME.fullmatch(name or "")
    return int(found[1]) if found else None


# The longest time per action: an hour, as ``hint --time`` and UGI's ``go movetime``.
MAX_THINK = 3600.0


def thinking_name(seconds: float) -> str:
    """How records name the computer given a time per action: ``tomis thinking 2.5 s``."""
    return f"tomis thinking {seconds:g} s"


def thinking_seconds(name: str | None) -> float | None:
    """The time per action a :func:`thinking_name` names, or None for any other name."""
    found = _THINKING_NAME.fullmatch(name or "")
    if not found:
        return None
    try:
        seconds = float(found[1])
    except ValueError:
        return None
    return seconds if 0 < seconds <= MAX_THINK else None


def score_text(score: int) -> str:
    """A score for players: ``+2.3 frigates``, or ``wins in 3 actions`` near the end."""
    if abs(score) > MATE_BOUND:
        plies = MATE - abs(score)
        word = "wins" if score > 0 else "loses"
        return f"{word} in {plies} action{'' if plies == 1 else 's'}"
    return frigates_text(score)


def hint(state: State, limits: Limits = Limits(depth=4), seed: int = 0, on_depth=None,
         lines: int = 1, exact=(), previous=()) -> SearchResult:
    """The best action for the side to act, its score and the expected line;
    ``lines`` best actions and the ``exact`` ones each with its own score and line.
    ``previous``: the actions that led to ``state`` (see :meth:`Search.run`)."""
    return Search(seed).run(state, limits, on_depth, lines, exact, previous)


class ComputerPlayer:
    """Plays at level 1-8; the same seed gives the same game against the same actions.

    ``think`` (seconds) replaces the level's limits with a time per action: the search
    deepens until the time is spent (as UGI's ``go movetime``), without randomness.
    Its answers then depend on the machine's speed, not on the seed alone.
    """

    def __init__(self, level: int = DEFAULT_LEVEL, seed: int = 0, think: float | None = None):
        self.limits = level_limits(level) if think is None else Limits(time=think)
        self.level = level
        self.think = think
        self.seed = seed
        self.search = Search(seed)
        # A player needs the action, not a forced win's line to the end: its time per
        # action stays the level's node limit.
        self.search.play_out_ends = False
        self.last: SearchResult | None = None
        self._played = None             # (ply, action): what this player chose last

    def _own_last(self, state: State) -> tuple:
        """The actions before ``state`` as far as this player knows them: its own last
        one when it chose the action two plies back (the search does not undo it for
        nothing), else none."""
        if self._played is not None and self._played[0] + 2 == state.ply:
            return (self._played[1], None)
        return ()

    @property
    def name(self) -> str:
        return program_name(self.level) if self.think is None else thinking_name(self.think)

    def choose(self, state: State, previous=None):
        """The action this level plays in ``state`` (which must be undecided).

        ``previous``: the actions that led to ``state``, the last one last, when the
        caller has the game (a game read from a file, or a level changed mid-game, has a
        last slide this player never chose); without them the player goes by its own
        last choice."""
        if previous is None:
            previous = self._own_last(state)
        self.last = self.search.run(state, self.limits, previous=previous)
        self._played = (state.ply, self.last.action)
        return self.last.action

    def stop(self) -> None:
        """Make a running :meth:`choose` answer at once (from another thread)."""
        self.search.stop()
