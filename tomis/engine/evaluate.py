"""The static evaluation: how good a position looks without searching it.

Scores are integers in *centi-frigates*: 100 is worth one frigate on the board. Every
term is a count taken White minus Black (:func:`features`), and the evaluation is the
dot product of those counts with :data:`WEIGHTS`, seen from the side to act. Print the
table with ``python -m tomis.engine.evaluate``; docs/ENGINE.md explains each term and
what tuning the weights on self-play games gave.

The terms (White's count minus Black's):

- ``frigates``, ``sentries``, ``towers``, ``flagship``: ships on the board (R2).
- ``reserve_frigates``, ``reserve_sentries``, ``reserve_towers``, ``reserve_flagship``:
  ships still in reserve (R8), the flagship only once it may be deployed (R20). Each is
  worth somewhat less than the same ship on the board (deploying costs an action and
  starts on the home row); one weight per kind, so deploying a tower does not look
  better than deploying a frigate just because a tower is worth more.
- ``base_attack``: the side's attack points on the enemy base square (R15, R19); three at
  once destroy it. ``base_siege`` is 1 more when two or more already stand on it, so one
  more attacker wins.
- ``base_near``: the side's ships within two squares of the enemy base (they can bring
  their attack points to it soon: "enemy AP that could reach the base", seen from the
  attacker).
- ``active_gates``, ``jump_gates``: the side's gates that are active or carry markers
  (R10-R14), the road to gate jumps, strikes and jumps.
- ``jump_reach``: the side's frigates standing next to a jump gate of either side (R14).
- ``unlocked``: the side's flagship is unlocked (R20).
- ``advance``: ranks the side's frigates have advanced from their home row, summed
  (progress toward unlocking the flagship, R20, and toward the enemy base).
- ``mobility``: squares the side attacks (R15); a cheap stand-in for freedom of action.
- ``threats``: enemy ships the side holds at stalemate or better (its AP on them at least
  their defence, R17): one more attacker destroys them.
- ``tempo``: +1 for the side to act, -1 for the other.
"""

from __future__ import annotations

from operator import mul

from ..rules.board import BASE, BLACK, FLAGSHIP, FRIGATE, HOME_RANK, NEIGHBOURS, RANK_OF, SENTRY, TOWER, WHITE
from ..rules.combat import INACTIVE, JUMP, UNIT_DEFENCE, attack_tables

# The weights, in centi-frigates per unit of each term: tuning run 5 (bench/tune_eval.py,
# 400 level-5 self-play games, the games cut at 200 actions left out). Whether they play
# better than the hand-set weights on openings the tuning never used is not measured
# (docs/ENGINE.md). The progress terms (base_near, the gates,
# jump_reach, advance) keep their hand-set values: a fit to results drives them to zero
# or below, and without them a few-ply search has no reason to move forward (run 4's
# engine shuffled frigates). Figures in docs/ENGINE.md.
WEIGHTS: dict[str, int] = {
    "frigates": 100,
    "sentries": 119,
    "towers": 241,
    "flagship": 261,
    "reserve_frigates": 98,
    "reserve_sentries": 148,
    "reserve_towers": 181,
    "reserve_flagship": 222,
    "base_attack": 51,
    "base_siege": 83,
    "base_near": 12,
    "active_gates": 10,
    "jump_gates": 12,
    "jump_reach": 8,
    "unlocked": 63,
    "advance": 4,
    "mobility": 6,
    "threats": 9,
    "tempo": 31,
}
TERMS = tuple(WEIGHTS)
# The position of each term in the lists :func:`features` returns.
(T_FRIGATES, T_SENTRIES, T_TOWERS, T_FLAGSHIP, T_RESERVE_FRIGATES, T_RESERVE_SENTRIES,
 T_RESERVE_TOWERS, T_RESERVE_FLAGSHIP, T_BASE_ATTACK, T_BASE_SIEGE, T_BASE_NEAR,
 T_ACTIVE_GATES, T_JUMP_GATES, T_JUMP_REACH, T_UNLOCKED, T_ADVANCE, T_MOBILITY, T_THREATS,
 T_TEMPO) = range(len(TERMS))
FRIGATE_VALUE = 100          # one frigate: the unit in which scores are shown to players

# Squares within two steps (king distance) of each square: where a base feels pressure.
_NEAR = tuple(
    frozenset(t for n in NEIGHBOURS[sq] for t in NEIGHBOURS[n]) | frozenset(NEIGHBOURS[sq])
    for sq in range(64)
)
_SIGN = (1, -1)
_NOWHERE = frozenset()
# Ranks a frigate of each side on each square has advanced from its home row.
_ADVANCE = tuple(tuple(abs(RANK_OF[square] - HOME_RANK[side]) for square in range(64)) for side in (WHITE, BLACK))


def features(state, tables=None) -> list[int]:
    """The terms of :data:`TERMS` for ``state``, each White's count minus Black's.

    ``tables`` are the attack tables of :func:`tomis.combat.attack_tables` when the
    caller has them already (the search does), so they are not computed twice. The
    search calls this at every leaf, so the counts are kept in local names and the
    per-square facts (ranks advanced, squares near a base) come from tables.
    """
    units = state.units
    ap = tables if tables is not None else attack_tables(units, state.edition)
    defence = UNIT_DEFENCE[state.edition]
    bases = [-1, -1]
    for square, code in units.items():
        if code & 7 == BASE:
            bases[code >> 3] = square
    gates = state.gates
    jump_squares = [g[0] for g in gates if g is not None and g[2] == JUMP]
    counts = [0] * 8                 # ships on the board by kind, White minus Black
    advance = jump_reach = base_near = threats = 0
    near = (_NEAR[bases[1]] if bases[1] >= 0 else _NOWHERE, _NEAR[bases[0]] if bases[0] >= 0 else _NOWHERE)
    for square, code in units.items():
        kind = code & 7
        if kind == BASE:
            continue
        side = code >> 3
        sign = _SIGN[side]
        counts[kind] += sign
        if kind == FRIGATE:
            advance += sign * _ADVANCE[side][square]
            if jump_squares:
                around = NEIGHBOURS[square]
                for j in jump_squares:
                    if j in around:
                        jump_reach += sign
                        break
        if square in near[side]:
            base_near += sign
        if ap[1 - side][square] >= defence[kind]:
            threats -= sign                            # the enemy threatens this ship
    f = [0] * len(TERMS)
    f[T_FRIGATES] = counts[FRIGATE]
    f[T_SENTRIES] = counts[SENTRY]
    f[T_TOWERS] = counts[TOWER]
    f[T_FLAGSHIP] = counts[FLAGSHIP]
    f[T_ADVANCE] = advance
    f[T_JUMP_REACH] = jump_reach
    f[T_BASE_NEAR] = base_near
    f[T_THREATS] = threats
    for side in (WHITE, BLACK):
        sign = _SIGN[side]
        row = state.reserve[side]
        f[T_RESERVE_FRIGATES] += sign * row[FRIGATE]
        f[T_RESERVE_SENTRIES] += sign * row[SENTRY]
        f[T_RESERVE_TOWERS] += sign * row[TOWER]
        if state.unlocked[side]:
            f[T_RESERVE_FLAGSHIP] += sign * row[FLAGSHIP]
        enemy_base = bases[1 - side]
        if enemy_base >= 0:
            on_base = ap[side][enemy_base]
            f[T_BASE_ATTACK] += sign * on_base
            if on_base >= 2:
                f[T_BASE_SIEGE] += sign
        if state.unlocked[side]:
            f[T_UNLOCKED] += sign
        f[T_MOBILITY] += sign * (64 - ap[side].count(0))
    for gate in gates:
        if gate is not None and gate[2] != INACTIVE:
            sign = _SIGN[gate[1]]
            f[T_ACTIVE_GATES] += sign
            if gate[2] == JUMP:
                f[T_JUMP_GATES] += sign
    to_move = state.to_move
    f[T_TEMPO] = 0 if to_move is None else _SIGN[to_move]
    return f


_WEIGHT_VECTOR = [WEIGHTS[name] for name in TERMS]


def set_weights(weights: dict[str, int]) -> None:
    """Replace the weights (the tuner tries candidates this way)."""
    WEIGHTS.update(weights)
    _WEIGHT_VECTOR[:] = [WEIGHTS[name] for name in TERMS]


def evaluate(state, tables=None) -> int:
    """The position's value for the side to act, in centi-frigates."""
    score = sum(map(mul, _WEIGHT_VECTOR, features(state, tables)))
    return score if state.to_move != BLACK else -score


def frigates_text(score: int) -> str:
    """A score as players read it: ``+2.3 frigates``, ``-0.5 frigates``."""
    return f"{score / FRIGATE_VALUE:+.1f} frigates"


def weights_table() -> str:
    """The weight table as aligned text, one term a line."""
    width = max(len(name) for name in TERMS)
    return "\n".join(f"{name:<{width}}  {WEIGHTS[name]:>5}" for name in TERMS)


if __name__ == "__main__":      # python -m tomis.engine.evaluate prints the table
    print(weights_table())
