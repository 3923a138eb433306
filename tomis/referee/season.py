"""What the season does when a game ends: each step (rate the game, advance its event)
runs once per finished game, in the transaction that ended it, or at the next tick when a
crash came between.

A game is *settled* once every step has taken its end (the store's ``games.settled``).
The steps run in the order of :data:`STEPS`; each is ``step(store, config, game, at)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..errors import TomisError, visible
from .games import RefereedGame
from .queueing import Config
from .ratings import rate
from .store import Store

Step = Callable[[Store, Config, RefereedGame, int], None]

# The season's steps, in order: the rating comes before the event's next round is paired.
STEPS: tuple[Step, ...] = (rate,)


# What a bug of a step raises: that game's steps are undone and it stays unsettled, so the
# decision or time-out that ended it still stands, and the next tick tries again.
_STEP_ERRORS = (TomisError, ArithmeticError, LookupError, ValueError, TypeError)


@dataclass
class Settled:
    """What :func:`settle_endings` did: how many games it settled, and the errors of those
    it could not (game number and error, in words)."""

    count: int = 0
    failed: list[str] = field(default_factory=list)


def settle_endings(store: Store, config: Config, at: int) -> Settled:
    """Run the season's steps for every finished game not yet settled, in the caller's
    transaction, each game behind a savepoint of its own."""
    settled = Settled()
    for number in store.games.unsettled():
        store.savepoint("settling")
        try:
            game = RefereedGame.load(store, number)
            for step in STEPS:
                step(store, config, game, at)
            store.games.settle(number)
            settled.count += 1
        except _STEP_ERRORS as error:
            store.rollback_to("settling")
            settled.failed.append(f"game {number}: {type(error).__name__}: "
                                  f"{visible(str(error))}"[:300])
        store.release("settling")
    return settled
