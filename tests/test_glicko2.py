"""Glicko-2 (tomis/season/glicko2.py): Glickman's worked example, a period without games,
the bounds, and what any rating period keeps."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tomis.season.glicko2 import (
    HIGHEST, LOWEST, MAX_DEVIATION, SCALE, PeriodGame, Rating, rate_period,
)

# Glickman, "Example of the Glicko-2 system": a 1500/200/0.06 player beats a 1400/30
# player and loses to a 1550/100 and a 1700/300 one, with tau 0.5.
EXAMPLE_PLAYER = Rating(1500, 200, 0.06)
EXAMPLE_GAMES = [PeriodGame(Rating(1400, 30), 1), PeriodGame(Rating(1550, 100), 0),
                 PeriodGame(Rating(1700, 300), 0)]


def test_glickmans_worked_example():
    after = rate_period(EXAMPLE_PLAYER, EXAMPLE_GAMES, tau=0.5)
    # The paper's figures, each to the decimals it prints: it rounds every step to four
    # places as it goes, so one unit in its last place is the agreement it allows.
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)
    # On the Glicko-2 scale the paper's mu' and phi' are these to its four places, and
    # its own conversion of them gives its 1464.06 and 151.52.
    mu = round((after.rating - 1500) / SCALE, 4)
    phi = round(after.deviation / SCALE, 4)
    assert (mu, phi) == (-0.2069, 0.8722)
    assert (round(mu * SCALE + 1500, 2), round(phi * SCALE, 2)) == (1464.06, 151.52)


def test_the_default_tau_is_the_clubs_half():
    assert rate_period(EXAMPLE_PLAYER, EXAMPLE_GAMES) == rate_period(
        EXAMPLE_PLAYER, EXAMPLE_GAMES, tau=0.5)
    assert rate_period(EXAMPLE_PLAYER, EXAMPLE_GAMES) != rate_period(
        EXAMPLE_PLAYER, EXAMPLE_GAMES, tau=1.2)


def test_a_new_player_is_1500_350_006():
    assert Rating() == Rating(1500.0, 350.0, 0.06)


def test_a_period_without_games_only_widens_the_deviation():
    after = rate_period(EXAMPLE_PLAYER, [])
    assert after.rating == EXAMPLE_PLAYER.rating
    assert after.volatility == EXAMPLE_PLAYER.volatility
    # Step 6 alone: phi* = sqrt(phi^2 + sigma^2) on the Glicko-2 scale.
    assert after.deviation == pytest.approx(math.hypot(200 / SCALE, 0.06) * SCALE)
    assert after.deviation > EXAMPLE_PLAYER.deviation


def test_the_deviation_never_grows_past_a_new_players():
    assert rate_period(Rating(), []).deviation == MAX_DEVIATION
    assert rate_period(Rating(1700, 349.9, 0.5), []).deviation == MAX_DEVIATION
    # A game teaches something: a new player's deviation falls after one.
    assert rate_period(Rating(), [PeriodGame(Rating(), 1)]).deviation < MAX_DEVIATION


def test_equal_players_move_apart_by_equal_amounts_and_a_draw_moves_neither():
    winner = rate_period(Rating(), [PeriodGame(Rating(), 1)])
    loser = rate_period(Rating(), [PeriodGame(Rating(), 0)])
    assert winner.rating - 1500 == pytest.approx(1500 - loser.rating)
    assert winner.rating > 1600          # an unknown player's one win says a lot
    assert winner.deviation == pytest.approx(loser.deviation)
    drawn = rate_period(Rating(), [PeriodGame(Rating(), 0.5)])
    assert drawn.rating == pytest.approx(1500)


@pytest.mark.parametrize("make, words", [
    (lambda: Rating(math.nan), "a rating must be from 0 to 10000"),
    (lambda: Rating(10001), "a rating must be from 0 to 10000"),
    (lambda: Rating(1500, 0), "a deviation must be above 0 and at most 350"),
    (lambda: Rating(1500, 351), "a deviation must be above 0 and at most 350"),
    (lambda: Rating(1500, 200, 0), "a volatility must be above 0"),
    (lambda: PeriodGame(Rating(), 1.5), "a score must be from 0 to 1"),
    (lambda: rate_period(Rating(), [], tau=0), "tau must be above 0"),
])
def test_bad_values_are_refused_by_name(make, words):
    with pytest.raises(ValueError, match=words):
        make()


RATINGS = st.builds(
    Rating,
    st.floats(LOWEST, HIGHEST),
    st.floats(1, MAX_DEVIATION),
    st.floats(0.001, 0.5),
)
GAMES = st.lists(st.builds(PeriodGame, RATINGS, st.sampled_from([0, 0.5, 1])), max_size=6)


@settings(max_examples=300)
@given(RATINGS, GAMES)
def test_any_period_gives_a_rating_within_bounds(player, outcomes):
    after = rate_period(player, outcomes)
    assert LOWEST <= after.rating <= HIGHEST
    assert 0 < after.deviation <= MAX_DEVIATION
    assert after.volatility > 0


@settings(max_examples=200)
@given(RATINGS, RATINGS)
def test_a_win_never_rates_lower_than_a_draw_or_a_loss(player, opponent):
    win, draw, loss = (rate_period(player, [PeriodGame(opponent, score)]).rating
                       for score in (1, 0.5, 0))
    assert win >= draw >= loss
