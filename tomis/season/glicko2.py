"""Glicko-2 ratings: one rating period of one player.

The steps are those of Mark Glickman's "Example of the Glicko-2 system" (glicko.net, in
the revision that finds the volatility by the Illinois algorithm): ratings move to the Glicko-2 scale, the estimated variance ``v`` and the
improvement ``delta`` are summed over the period's games, the new volatility is the root
of ``f`` found by the Illinois variant of regula falsi, and the deviation and rating follow
from it. A period with no games only widens the deviation by the volatility.

Not in the paper: the deviation is capped at :data:`MAX_DEVIATION` (350, a new player's),
so a long silence never makes a rating less certain than knowing nothing (the cap
Glickman's earlier Glicko system puts on a widened deviation); and a rating is kept from
:data:`LOWEST` to :data:`HIGHEST`, far beyond any person's, so every exponential in the
steps stays finite whatever the input. The system constant is :data:`TAU` (0.5, the
club's choice; Glickman suggests 0.3 to 1.2).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

SCALE = 173.7178            # Glicko points per Glicko-2 unit (400 / ln 10)
CENTRE = 1500.0             # the Glicko rating at 0 on the Glicko-2 scale
MAX_DEVIATION = 350.0       # a new player's deviation, and the most any player has
LOWEST, HIGHEST = 0.0, 10000.0   # the ratings a Rating may hold
TAU = 0.5
CONVERGENCE = 1e-6          # the paper's epsilon for the volatility iteration


@dataclass(frozen=True)
class Rating:
    """A player's rating on the Glicko scale: ``rating`` (1500 is a new player's),
    ``deviation`` (two of them either side hold the true strength with 95 % confidence)
    and ``volatility`` (how erratic the player's results are)."""

    rating: float = CENTRE
    deviation: float = MAX_DEVIATION
    volatility: float = 0.06

    def __post_init__(self) -> None:
        if not (math.isfinite(self.rating) and LOWEST <= self.rating <= HIGHEST):
            raise ValueError(f"a rating must be from {LOWEST:g} to {HIGHEST:g}, "
                             f"not {self.rating!r}")
        if not (math.isfinite(self.deviation) and 0 < self.deviation <= MAX_DEVIATION):
            raise ValueError(f"a deviation must be above 0 and at most {MAX_DEVIATION:g}, "
                             f"not {self.deviation!r}")
        if not (math.isfinite(self.volatility) and self.volatility > 0):
            raise ValueError(f"a volatility must be above 0, not {self.volatility!r}")


@dataclass(frozen=True)
class PeriodGame:
    """One game of the period: the opponent's rating before it and the player's score
    (1 a win, 0.5 a draw, 0 a loss)."""

    opponent: Rating
    score: float

    def __post_init__(self) -> None:
        if not 0 <= self.score <= 1:
            raise ValueError(f"a score must be from 0 to 1, not {self.score!r}")


def rate_period(player: Rating, outcomes: Sequence[PeriodGame], *,
                tau: float = TAU) -> Rating:
    """The player's rating after one rating period with these games (steps 2 to 8).

    >>> from tomis.season.glicko2 import PeriodGame, Rating, rate_period
    >>> after = rate_period(Rating(1500, 200, 0.06), [
    ...     PeriodGame(Rating(1400, 30), 1), PeriodGame(Rating(1550, 100), 0),
    ...     PeriodGame(Rating(1700, 300), 0)])
    >>> f"{after.rating:.4f} {after.deviation:.4f} {after.volatility:.6f}"
    '1464.0507 151.5165 0.059996'

    The paper prints 1464.06, 151.52 and 0.05999: it rounds each step's figures to four
    places as it goes (its rating is 173.7178 x -0.2069 + 1500), so it agrees with the
    exact figures above to one unit in the last place it shows.

    Raises ValueError for a ``tau`` that is not above 0 (ratings and scores are checked
    when made).
    """
    if not (math.isfinite(tau) and tau > 0):
        raise ValueError(f"tau must be above 0, not {tau!r}")
    mu = (player.rating - CENTRE) / SCALE
    phi = player.deviation / SCALE
    if not outcomes:
        return Rating(player.rating, widened(phi, player.volatility) * SCALE,
                      player.volatility)
    variance, improvement = period_sums(mu, outcomes)
    volatility = new_volatility(phi, player.volatility, variance, improvement, tau)
    phi_new = 1 / math.sqrt(1 / widened(phi, volatility) ** 2 + 1 / variance)
    mu_new = mu + phi_new ** 2 * (improvement / variance)
    deviation = min(phi_new * SCALE, MAX_DEVIATION)
    rating = min(max(mu_new * SCALE + CENTRE, LOWEST), HIGHEST)
    return Rating(rating, deviation, volatility)


def widened(phi: float, volatility: float) -> float:
    """Step 6: the deviation (Glicko-2 scale) grown by one period's volatility, capped."""
    return min(math.sqrt(phi ** 2 + volatility ** 2), MAX_DEVIATION / SCALE)


def weight(phi: float) -> float:
    """Glickman's g: how much a game against an opponent this uncertain counts."""
    return 1 / math.sqrt(1 + 3 * phi ** 2 / math.pi ** 2)


def expected(mu: float, opponent_mu: float, opponent_phi: float) -> tuple[float, float]:
    """Glickman's E, the expected score against the opponent, and the expected score of
    the opponent (1 - E), each computed on its own: for a wide gap E rounds to 1.0 while
    1 - E is still a number, and step 3 multiplies by it."""
    z = weight(opponent_phi) * (mu - opponent_mu)
    return 1 / (1 + math.exp(-z)), 1 / (1 + math.exp(z))


def period_sums(mu: float, outcomes: Sequence[PeriodGame]) -> tuple[float, float]:
    """Steps 3 and 4: the estimated variance ``v`` and the estimated improvement
    ``delta`` of the player's rating from the period's games."""
    information = 0.0
    surprise = 0.0
    for outcome in outcomes:
        opponent_mu = (outcome.opponent.rating - CENTRE) / SCALE
        opponent_phi = outcome.opponent.deviation / SCALE
        g = weight(opponent_phi)
        mine, theirs = expected(mu, opponent_mu, opponent_phi)
        information += g ** 2 * mine * theirs
        # s - E, written so that neither term loses what the other rounds away
        surprise += g * (outcome.score * theirs - (1 - outcome.score) * mine)
    variance = 1 / information
    return variance, variance * surprise


def new_volatility(phi: float, sigma: float, variance: float, delta: float,
                   tau: float) -> float:
    """Step 5: the new volatility, the root of Glickman's ``f`` in ``x = ln sigma'^2``,
    bracketed as the paper does and closed by the Illinois variant of regula falsi
    (which halves the stale end's value so the bracket shrinks from both sides)."""
    a = math.log(sigma ** 2)

    def f(x: float) -> float:
        ex = math.exp(x)
        spread = phi ** 2 + variance + ex
        return ex * (delta ** 2 - phi ** 2 - variance - ex) / (2 * spread ** 2) \
            - (x - a) / tau ** 2

    low = a
    if delta ** 2 > phi ** 2 + variance:
        high = math.log(delta ** 2 - phi ** 2 - variance)
    else:
        steps = 1
        while f(a - steps * tau) < 0:
            steps += 1
        high = a - steps * tau
    f_low, f_high = f(low), f(high)
    while abs(high - low) > CONVERGENCE:
        middle = low + (low - high) * f_low / (f_high - f_low)
        f_middle = f(middle)
        if f_middle * f_high <= 0:
            low, f_low = high, f_high
        else:
            f_low /= 2
        high, f_high = middle, f_middle
    return math.exp(low / 2)
