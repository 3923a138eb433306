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
- ``base_lines``: the side's sliders (sentry, tower, flagship) not attacking the enemy
  base now that one slide would line up on it (R15, R19): the base's owner has one
  action to block or move away before the attack point arrives. Deployments are not
  counted.
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
from typing import NamedTuple

from ..rules.board import (
    BASE, BLACK, FLAGSHIP, FRIGATE, HOME_RANK, NEIGHBOURS, RANK_OF, RAYS, SENTRY, SLIDER_DIRECTIONS, TOWER, WHITE,
)
from ..rules.combat import INACTIVE, JUMP, UNIT_DEFENCE, attack_tables

# The weights, in centi-frigates per unit of each term: tuning run 5 (bench/tune_eval.py,
# 400 level-5 self-play games, the games cut at 200 actions left out). Whether they play
# better than the hand-set weights on openings the tuning never used is not measured
# (docs/ENGINE.md). The progress terms (base_near, the gates,
# jump_reach, advance) keep their hand-set values: a fit to results drives them to zero
# or below, and without them a few-ply search has no reason to move forward (run 4's
# engine shuffled frigates). Three of them were doubled or so by hand in issue 45
# (base_near 12 -> 24, base_lines 15 -> 25, advance 4 -> 6): games between two engines
# that stand still end adjudicated with one side many frigates up, and a level that
# presses on toward the enemy base wins them. Figures in docs/ENGINE.md.
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
    "base_near": 24,
    "base_lines": 25,          # hand-set, as the progress terms; never tuned
    "active_gates": 10,
    "jump_gates": 12,
    "jump_reach": 8,
    "unlocked": 63,
    "advance": 6,
    "mobility": 6,
    "threats": 9,
    "tempo": 31,
}
TERMS = tuple(WEIGHTS)
# The position of each term in the lists :func:`features` returns.
(T_FRIGATES, T_SENTRIES, T_TOWERS, T_FLAGSHIP, T_RESERVE_FRIGATES, T_RESERVE_SENTRIES,
 T_RESERVE_TOWERS, T_RESERVE_FLAGSHIP, T_BASE_ATTACK, T_BASE_SIEGE, T_BASE_NEAR, T_BASE_LINES,
 T_ACTIVE_GATES, T_JUMP_GATES, T_JUMP_REACH, T_UNLOCKED, T_ADVANCE, T_MOBILITY, T_THREATS,
 T_TEMPO) = range(len(TERMS))
FRIGATE_VALUE = 100          # one frigate: the unit in which scores are shown to players

# Squares within two steps (king distance) of each square: where a base feels pressure.
_NEAR = tuple(
    frozenset(t for n in NEIGHBOURS[sq] for t in NEIGHBOURS[n]) | frozenset(NEIGHBOURS[sq])
    for sq in range(64)
)
_SIGN = (1, -1)
_NOWHERE: frozenset[int] = frozenset()
# Ranks a frigate of each side on each square has advanced from its home row.
_ADVANCE = tuple(tuple(abs(RANK_OF[square] - HOME_RANK[side]) for square in range(64)) for side in (WHITE, BLACK))


# -- base lines: sliders one slide from attacking a base --------------------------------
_BITS = tuple(1 << square for square in range(64))
_SLIDER_KINDS = (SENTRY, TOWER, FLAGSHIP)
_SLIDER_CODES = frozenset(side << 3 | kind for side in (WHITE, BLACK) for kind in _SLIDER_KINDS)


def _mask(squares) -> int:
    return sum(_BITS[square] for square in squares)


class _LineUp(NamedTuple):
    """How a slider of one kind on one square stands toward one base square.

    ``attacking`` is the mask of squares that must be empty for it to attack the base
    now (None: it is on none of the base's lines of its kind); each mask of ``slides``
    holds the squares that must be empty for one slide to a square from which it would
    attack the base: the path there, the landing square, and the line on to the base.
    """

    attacking: int | None
    slides: tuple[int, ...]


def _line_up(base: int, kind: int, square: int) -> _LineUp:
    directions = SLIDER_DIRECTIONS[kind]
    attacking = None
    slides = []
    for d in directions:
        line = RAYS[base][d]                    # the squares that see the base along d
        if square in line:
            attacking = _mask(line[:line.index(square)])
        for index, landing in enumerate(line):
            if landing == square:
                break
            for path in (RAYS[square][e] for e in directions):
                if landing in path:
                    between = path[:path.index(landing)] + line[:index]
                    slides.append(_mask(between) | _BITS[landing])
    return _LineUp(attacking, tuple(slides))


_LINE_UPS: dict[int, dict] = {}      # base square -> {kind: per slider square, a _LineUp}


def _line_ups(base: int) -> dict:
    """The :class:`_LineUp` of every slider kind and square toward ``base``: built on
    first use (a game has two bases, which never move: R5, R9), not at import."""
    found = _LINE_UPS.get(base)
    if found is None:
        found = _LINE_UPS[base] = {kind: tuple(_line_up(base, kind, square) for square in range(64))
                                   for kind in _SLIDER_KINDS}
    return found


def _base_lines(units, sliders, bases) -> int:
    """``base_lines`` (White's count minus Black's): each side's sliders, of
    ``sliders`` ((square, code) pairs), that do not attack the enemy base and that one
    slide would bring onto one of its lines with nothing in between (R9, R15)."""
    if not sliders:
        return 0
    occupied = sum(map(_BITS.__getitem__, units))
    count = 0
    for square, code in sliders:
        side = code >> 3
        target = bases[1 - side]
        if target < 0:
            continue
        line_up = _line_ups(target)[code & 7][square]
        if line_up.attacking is not None and not occupied & line_up.attacking:
            continue                    # it attacks the base already (base_attack counts it)
        for needed in line_up.slides:
            if not occupied & needed:
                count += _SIGN[side]
                break
    return count


def _find_bases(units) -> list[int]:
    """Each side's base square, -1 for none."""
    bases = [-1, -1]
    for square, code in units.items():
        if code & 7 == BASE:
            bases[code >> 3] = square
    return bases


def features(state, tables=None) -> list[int]:
    """The terms of :data:`TERMS` for ``state``, each White's count minus Black's.

    ``tables`` are the attack tables of :func:`tomis.combat.attack_tables` when the
    caller has them already, so they are not computed twice. This is the plain form
    the tuner reads; :func:`evaluate` gets the same weighted sum from precomputed tables.
    """
    units = state.units
    ap = tables if tables is not None else attack_tables(units, state.edition)
    defence = UNIT_DEFENCE[state.edition]
    bases = _find_bases(units)
    gates = state.gates
    jump_squares = [g[0] for g in gates if g is not None and g[2] == JUMP]
    counts = [0] * 8                 # ships on the board by kind, White minus Black
    advance = jump_reach = base_near = threats = 0
    sliders = []
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
        else:
            sliders.append((square, code))
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
    f[T_BASE_LINES] = _base_lines(units, sliders, bases)
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
    _PAIRS.clear()
    _THREATENED[:] = _threatened_values()
    _LAST_RESERVE[0] = (None, None, 0)


# -- the fast sum: what each unit on each square is worth, precomputed ----------------------
_MATERIAL_TERM = {FRIGATE: "frigates", SENTRY: "sentries", TOWER: "towers", FLAGSHIP: "flagship"}
_HOME_ROWS = (tuple(range(8)), tuple(range(56, 64)))   # where each base stands (R5; it never moves, R9)
_BASE_CODES = (WHITE << 3 | BASE, BLACK << 3 | BASE)
_ENEMY_AP_AT = tuple(64 if code >> 3 == WHITE else 0 for code in range(16))  # in State.attacks
_UNDEFEATED = 256            # more than any count: bases and unused codes are never "threatened"
# _NEEDED[edition][code]: enemy AP at which the unit ``code`` counts as threatened (R17).
_NEEDED = tuple(
    tuple(defence[code & 7] if code & 7 in _MATERIAL_TERM else _UNDEFEATED for code in range(16))
    for defence in UNIT_DEFENCE
)


class _Pair(NamedTuple):
    """What the fast sum needs for one pair of base squares (-1: no base), per unit code
    and square: ``placed``, White's gain from the unit standing there (material, ranks
    advanced for a frigate, nearness to the enemy base), and for sliders ``toward``,
    the :class:`_LineUp` toward the enemy base (None for other codes, or no base)."""

    placed: tuple
    toward: tuple


_PAIRS: dict[tuple[int, int], _Pair] = {}     # (White's base, Black's base) -> its _Pair
_LAST_BASES = [(-1, -1)]    # the bases of the last position evaluated: nearly always this one's


def _pair(bases: tuple[int, int]) -> _Pair:
    found = _PAIRS.get(bases)
    if found is None:
        found = _PAIRS[bases] = _Pair(tuple(_placed_row(code, bases) for code in range(16)),
                                      tuple(_toward(code, bases) for code in range(16)))
    return found


def _placed_row(code: int, bases: tuple[int, int]) -> tuple:
    side, kind = code >> 3, code & 7
    if kind not in _MATERIAL_TERM:
        return (0,) * 64
    enemy_base = bases[1 - side]
    near = _NEAR[enemy_base] if enemy_base >= 0 else _NOWHERE
    advance = _ADVANCE[side] if kind == FRIGATE else (0,) * 64
    return tuple(
        _SIGN[side] * (WEIGHTS[_MATERIAL_TERM[kind]] + WEIGHTS["advance"] * advance[square]
                       + (WEIGHTS["base_near"] if square in near else 0))
        for square in range(64)
    )


def _toward(code: int, bases: tuple[int, int]):
    enemy_base = bases[1 - (code >> 3)]
    if code not in _SLIDER_CODES or enemy_base < 0:
        return None
    return _line_ups(enemy_base)[code & 7]


def _threatened_values() -> list[int]:
    """Per unit code, what White gains when that unit is threatened (R17)."""
    return [-_SIGN[code >> 3] * WEIGHTS["threats"] for code in range(16)]


_THREATENED = _threatened_values()


def _home_bases(units) -> tuple[int, int]:
    """Each side's base square, -1 for none: those of the last position evaluated when
    they still stand, else looked for on the home rows (R5), and over the whole board
    only when not there."""
    bases = _LAST_BASES[0]
    get = units.get
    if get(bases[0]) == _BASE_CODES[WHITE] and get(bases[1]) == _BASE_CODES[BLACK]:
        return bases
    found = [-1, -1]
    for side in (WHITE, BLACK):
        code = _BASE_CODES[side]
        for square in _HOME_ROWS[side]:
            if get(square) == code:
                found[side] = square
                break
    if found[0] < 0 or found[1] < 0:
        found = _find_bases(units)
    bases = _LAST_BASES[0] = (found[0], found[1])
    return bases


def evaluate(state, tables=None) -> int:
    """The position's value for the side to act, in centi-frigates: the weights times
    :func:`features`, summed from precomputed per-square values (the search calls this
    at every leaf). ``tables`` is accepted for the callers of :func:`features`; the
    counts are read from ``State.attacks``, which the rules keep up to date."""
    counts = state.attacks
    if counts is None:                  # a position read from a string: no counts yet
        score = sum(map(mul, _WEIGHT_VECTOR, features(state, tables)))
        return score if state.to_move != BLACK else -score
    units = state.units
    bases = _home_bases(units)
    placed, toward = _PAIRS.get(bases) or _pair(bases)
    needed = _NEEDED[state.edition]
    threatened = _THREATENED
    enemy_at = _ENEMY_AP_AT
    bits = _BITS
    score = occupied = 0
    sliders = []
    for square, code in units.items():
        score += placed[code][square]
        occupied |= bits[square]
        if counts[enemy_at[code] + square] >= needed[code]:
            score += threatened[code]
        if toward[code] is not None:
            sliders.append((square, code))
    weights = _WEIGHT_VECTOR
    if sliders:
        score += weights[T_BASE_LINES] * _lined_up(occupied, sliders, toward)
    score += weights[T_MOBILITY] * (counts.count(0, 64, 128) - counts.count(0, 0, 64))
    score += _base_terms(counts, bases, weights)
    score += _gate_terms(state.gates, units, weights)
    score += _reserve_terms(state, weights)
    score = score if state.to_move != BLACK else -score
    return score + weights[T_TEMPO] if state.to_move is not None else score


def _lined_up(occupied: int, sliders, toward) -> int:
    """``base_lines`` as :func:`_base_lines` counts it, from the pair's line-ups
    (``occupied``: the mask of the squares that hold a unit)."""
    count = 0
    for square, code in sliders:
        attacking, slides = toward[code][square]
        if attacking is not None and not occupied & attacking:
            continue                    # it attacks the base already (base_attack counts it)
        for needed in slides:
            if not occupied & needed:
                count += 1 if code < 8 else -1
                break
    return count


def _base_terms(counts, bases, weights) -> int:
    """``base_attack`` and ``base_siege``, weighted, White minus Black."""
    score = 0
    if bases[1] >= 0:
        on_base = counts[bases[1]]                  # White's AP on Black's base
        score += weights[T_BASE_ATTACK] * on_base + (weights[T_BASE_SIEGE] if on_base >= 2 else 0)
    if bases[0] >= 0:
        on_base = counts[64 + bases[0]]             # Black's AP on White's base
        score -= weights[T_BASE_ATTACK] * on_base + (weights[T_BASE_SIEGE] if on_base >= 2 else 0)
    return score


def _gate_terms(gates, units, weights) -> int:
    """``active_gates``, ``jump_gates`` and ``jump_reach``, weighted, White minus Black."""
    score = 0
    around: set[int] | None = None
    for gate in gates:
        if gate is not None and gate[2] != INACTIVE:
            value = weights[T_ACTIVE_GATES]
            if gate[2] == JUMP:
                value += weights[T_JUMP_GATES]
                if around is None:
                    around = set()
                around.update(NEIGHBOURS[gate[0]])
            score += value if gate[1] == WHITE else -value
    if around:
        reach = weights[T_JUMP_REACH]
        for square in around:       # each frigate counts once, however many jump gates it is by
            code = units.get(square)
            if code is not None and code & 7 == FRIGATE:
                score += reach if code >> 3 == WHITE else -reach
    return score


# The reserve terms of the last position evaluated, by the identity of its reserve and
# unlocked tuples: the rules share them between positions until a deployment or an
# unlock, so most leaves of a search find them here. One tuple (reserve, unlocked,
# value), read and replaced whole, so a search in another thread never sees half of one.
_LAST_RESERVE: list = [(None, None, 0)]


def _reserve_terms(state, weights) -> int:
    """The reserve terms and ``unlocked``, weighted, White minus Black."""
    reserve, unlocked = state.reserve, state.unlocked
    last = _LAST_RESERVE[0]
    if last[0] is reserve and last[1] is unlocked:
        return last[2]
    score = 0
    for side in (WHITE, BLACK):
        row = reserve[side]
        value = (weights[T_RESERVE_FRIGATES] * row[FRIGATE] + weights[T_RESERVE_SENTRIES] * row[SENTRY]
                 + weights[T_RESERVE_TOWERS] * row[TOWER])
        if unlocked[side]:
            value += weights[T_RESERVE_FLAGSHIP] * row[FLAGSHIP] + weights[T_UNLOCKED]
        score += value if side == WHITE else -value
    _LAST_RESERVE[0] = (reserve, unlocked, score)
    return score


def frigates_text(score: int) -> str:
    """A score as players read it: ``+2.3 frigates``, ``-0.5 frigates``."""
    return f"{score / FRIGATE_VALUE:+.1f} frigates"


def weights_table() -> str:
    """The weight table as aligned text, one term a line."""
    width = max(len(name) for name in TERMS)
    return "\n".join(f"{name:<{width}}  {WEIGHTS[name]:>5}" for name in TERMS)


if __name__ == "__main__":      # python -m tomis.engine.evaluate prints the table
    print(weights_table())
