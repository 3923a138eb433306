"""Property tests of the engine over random legal play (hypothesis).

A game is drawn as an edition and a list of numbers; each number picks one of the
legal actions at its turn. The default run keeps a few hundred short games; the
``slow`` variants (CI: ``pytest -m slow``) play thousands, to the end.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import brute_force_actions, candidate_actions
from tomis.rules.board import INITIAL_RESERVE
from tomis.errors import IllegalActionError
from tomis.rules.position import from_string, pieces_on_board, to_string
from tomis.rules import apply, check, compute_hash, legal_actions, new_game

EDITIONS = st.sampled_from(["manual", "readme"])
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def choices(most):
    return st.lists(st.integers(min_value=0, max_value=10**6), min_size=0, max_size=most)


def random_game(edition, picks):
    """Yield (state before, action, state after, report) along the drawn game."""
    state = new_game(edition)
    for pick in picks:
        actions = legal_actions(state)
        if not actions:
            return
        action = actions[pick % len(actions)]
        after, report = apply(state, action)       # checked apply: must never refuse
        yield state, action, after, report
        state = after


def final_state(edition, picks):
    state = new_game(edition)
    for _, _, state, _ in random_game(edition, picks):
        pass
    return state


def assert_state_sound(state):
    """Invariants every reachable position keeps (R2, R3, R4, R21, R22)."""
    assert state.hash == compute_hash(state), "incremental hash drifted from compute_hash"
    assert (state.to_move is None) == (state.result != "*")
    if state.to_move is not None:
        assert legal_actions(state), "an undecided position must offer an action (R22 (2))"
    for side in (0, 1):
        on_board = pieces_on_board(state, side)
        for kind in range(7):
            assert on_board[kind] + state.reserve[side][kind] <= INITIAL_RESERVE[kind]   # R2
    for rank, gate in enumerate(state.gates):
        assert gate is None or gate[0] >> 3 == rank                                     # R3


def assert_round_trips(state):
    text = to_string(state)
    again = from_string(text)
    assert to_string(again) == text
    assert again.hash == state.hash and again.key() == state.key()


# ---------------------------------------------------------------------------

@FAST
@given(EDITIONS, choices(60))
def test_every_listed_action_applies_R4(edition, picks):
    state = final_state(edition, picks)
    for action in legal_actions(state):
        after, report = apply(state, action)
        assert report.side == state.to_move and after.ply == state.ply + 1


@FAST
@given(EDITIONS, choices(80))
def test_random_play_keeps_positions_sound_and_round_trips_R22(edition, picks):
    for before, action, after, report in random_game(edition, picks):
        assert_state_sound(after)
        assert_round_trips(after)
        assert report.result == after.result
        if after.is_over:
            assert after.reason and after.legal_actions() == []


@FAST
@given(EDITIONS, choices(60), st.lists(st.integers(min_value=0, max_value=10**7), min_size=40, max_size=40))
def test_check_accepts_exactly_the_listed_actions(edition, picks, samples):
    state = final_state(edition, picks)
    listed = set(legal_actions(state))
    for action in listed:
        check(state, action)
    candidates = candidate_actions(state)
    for index in samples:
        action = candidates[index % len(candidates)]
        try:
            check(state, action)
            accepted = True
        except IllegalActionError as error:
            accepted = False
            assert str(action) in str(error) and re.search(r"\b[RE]\d+\b", str(error)), str(error)
        assert accepted == (action in listed), str(action)


@FAST
@given(EDITIONS, choices(120))
def test_equal_positions_have_equal_hashes_whatever_the_path_R22(edition, picks):
    seen = {}
    for _, _, after, _ in random_game(edition, picks):
        key = after.key()
        assert seen.setdefault(key, after.hash) == after.hash
    hashes = {}
    for key, h in seen.items():
        assert hashes.setdefault(h, key) == key, "two different positions share a hash"


def test_transposed_deployments_reach_the_same_hash_R22():
    start = from_string("4b3/8/8/8/8/8/8/4B3 - w 0048221/0048221 - manual 11 0")
    one = two = start
    for text in ("F@a1", "F@a8", "T@h1"):
        one = apply(one, next(a for a in legal_actions(one) if str(a) == text))[0]
    for text in ("T@h1", "F@a8", "F@a1"):
        two = apply(two, next(a for a in legal_actions(two) if str(a) == text))[0]
    assert to_string(one) == to_string(two) and one.hash == two.hash == compute_hash(two)


# ---------------------------------------------------------------------------
# Slow variants: many more and complete games (CI runs ``pytest -m slow``).

@pytest.mark.slow
@SLOW
@given(EDITIONS, choices(600))
def test_slow_random_games_to_the_end(edition, picks):
    state = None
    for _, _, state, _ in random_game(edition, picks):
        assert_state_sound(state)
    if state is not None:
        assert_round_trips(state)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EDITIONS, choices(200))
def test_slow_generator_equals_brute_force(edition, picks):
    state = final_state(edition, picks)
    assert set(legal_actions(state)) == brute_force_actions(state)
