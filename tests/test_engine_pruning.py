"""The search's pruning (issue 45): futility one ply from the horizon, the null move.

Futility pruning is meant to change nothing but the work: at a fixed depth the answer and
its score are those of the search without it. The null move is a guess by design (a side
is let to act twice), so for it the tests check its guards and that it leaves the
position searched as it found it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import tomis.engine.search as search
from tomis.engine.search import NULL_MIN_SHIPS, Limits, Search
from tomis.rules.board import BASE, FLAGSHIP, FRIGATE, SENTRY, TOWER
from tomis.rules.core import OPENING_PLIES
from tomis.rules.position import from_string, to_string
from conftest import positions_played

BENCH = Path(__file__).resolve().parent.parent / "bench" / "search_positions.txt"


def bench_positions(count: int) -> list:
    lines = [line.strip() for line in BENCH.read_text().splitlines() if line.strip() and not line.startswith("#")]
    return [from_string(line) for line in lines[:count]]


def ships_of(state, side: int) -> int:
    on_board = sum(1 for code in state.units.values() if code >> 3 == side and code & 7 != BASE)
    in_reserve = sum(state.reserve[side][kind] for kind in (FRIGATE, SENTRY, TOWER, FLAGSHIP))
    return on_board + in_reserve


@pytest.mark.parametrize("state", bench_positions(6), ids=lambda state: f"ply{state.ply}")
def test_futility_pruning_changes_no_answer_at_a_fixed_depth(state, monkeypatch):
    monkeypatch.setattr(search, "NULL_MIN_DEPTH", 99)          # the null move is a guess: leave it out
    pruned = Search(0).run(state, Limits(depth=3))
    monkeypatch.setattr(search, "FUTILITY_MARGIN", 10**6)       # nothing is ever futile
    full = Search(0).run(state, Limits(depth=3))
    assert (pruned.action, pruned.score) == (full.action, full.score)
    assert pruned.nodes <= full.nodes


def test_futility_pruning_saves_nodes_on_the_bench_positions(monkeypatch):
    monkeypatch.setattr(search, "NULL_MIN_DEPTH", 99)
    states = bench_positions(16)
    pruned = sum(Search(0).run(state, Limits(depth=3)).nodes for state in states)
    monkeypatch.setattr(search, "FUTILITY_MARGIN", 10**6)
    full = sum(Search(0).run(state, Limits(depth=3)).nodes for state in states)
    assert pruned < full


def test_the_null_move_saves_nodes_to_depth_four(monkeypatch):
    states = bench_positions(8)
    with_pass = sum(Search(0).run(state, Limits(depth=4)).nodes for state in states)
    monkeypatch.setattr(search, "NULL_MIN_DEPTH", 99)
    without = sum(Search(0).run(state, Limits(depth=4)).nodes for state in states)
    assert with_pass < without


@pytest.mark.parametrize("picks", [[7] * 60, [3, 11, 5] * 30, [1, 2] * 45, list(range(90))])
def test_a_pass_is_tried_only_where_its_guards_allow(picks, monkeypatch):
    """Never in the opening, never twice in a row, never for a side down to its last
    ships; and the position searched is left exactly as it was."""
    seen = []
    original = Search._after_pass

    def watched(self, state, depth, beta, ply):
        seen.append((state.ply, ships_of(state, state.to_move), self._line[-1]))
        return original(self, state, depth, beta, ply)

    monkeypatch.setattr(Search, "_after_pass", watched)
    states = [state for state in positions_played("manual", picks) if state.to_move is not None]
    for state in states[-3:]:
        before = to_string(state), state.hash, list(state.history)
        Search(0).run(state, Limits(depth=4))
        assert (to_string(state), state.hash, list(state.history)) == before
    assert seen, "no pass was tried: the guards were not exercised"
    for ply, ships, last in seen:
        assert ply >= OPENING_PLIES
        assert ships >= NULL_MIN_SHIPS
        assert last is not None
