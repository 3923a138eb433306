"""Move generation: perft counts from tests/data/perft.txt and a brute-force cross-check.

The brute force (``conftest.brute_force_actions``) asks ``rules.check`` about every
syntactically possible action; ``legal_actions`` must list exactly those, once each.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import brute_force_actions
from tomis.rules.position import from_string
from tomis.rules import apply_unchecked, legal_actions

PERFT_FILE = Path(__file__).parent / "data" / "perft.txt"


def perft_lines():
    lines = []
    for number, text in enumerate(PERFT_FILE.read_text(encoding="utf-8").splitlines(), 1):
        if not text.strip() or text.startswith("#"):
            continue
        position, depth, count = (part.strip() for part in text.split(";"))
        lines.append(pytest.param(position, int(depth), int(count), id=f"perft-line{number}-depth{depth}"))
    return lines


def perft(state, depth: int) -> int:
    """Action sequences of exactly ``depth`` actions (a decided position ends a line)."""
    if depth == 0:
        return 1
    actions = legal_actions(state)
    if depth == 1:
        return len(actions)
    return sum(perft(apply_unchecked(state, a)[0], depth - 1) for a in actions)


def test_perft_file_has_at_least_ten_positions():
    assert len({p.values[0] for p in perft_lines()}) >= 10


@pytest.mark.parametrize("position, depth, count", perft_lines())
def test_perft_counts_R5_to_R14(position, depth, count):
    assert perft(from_string(position), depth) == count


def assert_generator_matches_check(state):
    listed = legal_actions(state)
    assert len(listed) == len(set(listed)), "legal_actions lists an action twice (R14 dedupe)"
    brute = brute_force_actions(state)
    assert {str(a) for a in set(listed) - brute} == set(), "listed but refused by check()"
    assert {str(a) for a in brute - set(listed)} == set(), "accepted by check() but not listed"


@pytest.mark.parametrize("position", sorted({p.values[0] for p in perft_lines()}))
def test_generator_matches_check_at_each_perft_root_and_its_children(position):
    state = from_string(position)
    assert_generator_matches_check(state)
    for action in legal_actions(state)[::6]:           # a sixth of the children, spread out
        assert_generator_matches_check(apply_unchecked(state, action)[0])


@pytest.mark.slow
@pytest.mark.parametrize("position", sorted({p.values[0] for p in perft_lines()}))
def test_generator_matches_check_two_levels_deep(position):
    state = from_string(position)
    for action in legal_actions(state):
        child = apply_unchecked(state, action)[0]
        assert_generator_matches_check(child)
        for reply in legal_actions(child)[::7]:
            assert_generator_matches_check(apply_unchecked(child, reply)[0])
