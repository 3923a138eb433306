"""The evaluation's base-defence term, ``base_lines`` (issue 27): enemy sliders one
slide from lining up on a base (R9, R15, R19)."""

from __future__ import annotations

from operator import mul

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tomis.engine import evaluate
from tomis.notation import parse_action
from tomis.rules.position import from_string
from tomis.rules import apply_unchecked
from conftest import positions_played

# White's base on e1, Black's on b8, one Black sentry and nothing else, White to act.
# From h6 the sentry slides to d2 (h6-g5-f4-e3-d2), from where it attacks e1 along the
# diagonal: one action from lining up. From h5, a square of the other colour, no slide
# ever brings it onto e1's diagonals. Both squares see seven squares, and neither is
# near a base, so the positions differ in that threat alone.
THREATENED = "1b6/8/7s/8/8/8/8/4B3 - w 0048000/0048121 - manual 11 0"
SAFE = "1b6/8/8/7s/8/8/8/4B3 - w 0048000/0048121 - manual 11 0"
# As THREATENED, with a White frigate on f4 across the sentry's only way to d2.
BLOCKED = "1b6/8/7s/8/5F2/8/8/4B3 - w 0047000/0048121 - manual 11 0"
# The sentry on h4 attacks e1 now (h4-g3-f2-e1): base_attack counts it, not base_lines.
ATTACKING = "1b6/8/8/8/7s/8/8/4B3 - w 0048000/0048121 - manual 11 0"


def lines_of(text: str) -> int:
    return evaluate.features(from_string(text))[evaluate.T_BASE_LINES]


def test_a_slider_one_slide_from_the_base_scores_worse_for_its_owner():
    assert lines_of(THREATENED) == -1          # White minus Black: Black has the line-up
    assert lines_of(SAFE) == 0
    assert evaluate.evaluate(from_string(THREATENED)) < evaluate.evaluate(from_string(SAFE))


def test_only_the_threat_differs_between_the_two_positions():
    threatened = evaluate.features(from_string(THREATENED))
    safe = evaluate.features(from_string(SAFE))
    differing = [name for name, a, b in zip(evaluate.TERMS, threatened, safe) if a != b]
    assert differing == ["base_lines"]


def test_a_blocked_slide_and_a_slider_already_attacking_do_not_count():
    assert lines_of(BLOCKED) == 0
    assert lines_of(ATTACKING) == 0
    assert evaluate.features(from_string(ATTACKING))[evaluate.T_BASE_ATTACK] == -1


def test_the_term_is_symmetric_between_the_sides():
    # The same threat turned around: White's sentry, Black's base, Black to act.
    mirrored = "4b3/8/8/8/8/7S/8/1B6 - b 0048121/0048000 - manual 12 0"
    assert lines_of(mirrored) == 1
    assert evaluate.evaluate(from_string(mirrored)) == evaluate.evaluate(from_string(THREATENED))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["manual", "readme"]), st.lists(st.integers(0, 10**6), min_size=11, max_size=120))
def test_evaluate_is_the_weighted_sum_of_the_features(edition, picks):
    """evaluate() sums precomputed per-square values and reads the rules' attack counts;
    it must give exactly the weights times features() in every position play reaches."""
    for state in positions_played(edition, picks):
        total = sum(map(mul, [evaluate.WEIGHTS[name] for name in evaluate.TERMS], evaluate.features(state)))
        assert evaluate.evaluate(state) == (-total if state.to_move == 1 else total)


@pytest.fixture
def restored_weights():
    saved = dict(evaluate.WEIGHTS)
    yield
    evaluate.set_weights(saved)


def test_set_weights_reaches_the_precomputed_values(restored_weights):
    state, _report = apply_unchecked(from_string(BLOCKED), parse_action("Ff4-f5"))
    advance = evaluate.features(state)[evaluate.T_ADVANCE]
    assert advance != 0 and state.attacks is not None     # the fast path, with something to change
    before = evaluate.evaluate(state)
    evaluate.set_weights({"advance": evaluate.WEIGHTS["advance"] + 10})
    sign = -1 if state.to_move == 1 else 1
    assert evaluate.evaluate(state) == before + sign * 10 * advance
