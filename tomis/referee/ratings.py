"""Each game rated when it ends: the season step :func:`rate`.

A game is its own rating period (Glicko-2, :mod:`tomis.season.glicko2`): each player's
new rating comes from both players' ratings before the game, with one outcome, the
game's score. The players' current ratings are in ``players``; each rating after a game
is kept in ``ratings`` too, for the player's page and its chart.

Not rated: a game without a result (``*``: aborted by the organiser), and a game that
ended before any action was played (a time-out of a game never begun says nothing of
either player's strength). A game whose seat names no registered player is not rated
either; nor a game of a player against themselves.
"""

from __future__ import annotations

from ..season.glicko2 import HIGHEST, LOWEST, MAX_DEVIATION, PeriodGame, Rating, rate_period
from .queueing import Config
from .games import RefereedGame
from .store import PlayerRow, Store

# The score of White in each result that counts; any other result is not rated.
WHITE_SCORES = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def white_score(game: RefereedGame) -> float | None:
    """White's score if the game is rated (it has a result and at least one action was
    played), else None."""
    if game.actions_played == 0:
        return None
    return WHITE_SCORES.get(game.record.result)


def rating_of(player: PlayerRow) -> Rating:
    """The player's rating as Glicko-2 takes it. The organiser may have set any value
    (``player add --rating``): one outside Glicko-2's bounds is brought within them
    rather than stopping every game of the player from being rated."""
    return Rating(min(max(player.rating, LOWEST), HIGHEST),
                  min(max(player.deviation, 1.0), MAX_DEVIATION),
                  player.volatility if player.volatility > 0 else Rating().volatility)


def rate(store: Store, config: Config, game: RefereedGame, at: int) -> None:
    """Rate ``game``, which has just ended, in the caller's transaction: both players'
    new ratings in ``players`` and in their history. A game not to be rated (see the
    module) is left alone."""
    score = white_score(game)
    white_id, black_id = game.player_ids
    if score is None or white_id is None or black_id is None or white_id == black_id:
        return
    white, black = store.players.get(white_id), store.players.get(black_id)
    if white is None or black is None:
        return
    before = (rating_of(white), rating_of(black))
    after = (rate_period(before[0], [PeriodGame(before[1], score)]),
             rate_period(before[1], [PeriodGame(before[0], 1 - score)]))
    for player, rating in zip((white, black), after):
        store.players.set_rating(player.id, rating.rating, rating.deviation,
                                 rating.volatility)
        store.ratings.add(player.id, game.id, at, rating.rating, rating.deviation,
                          rating.volatility)
