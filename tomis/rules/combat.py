"""Combat after every action (R15-R19): pure functions over a position's pieces.

``units`` maps square -> unit code (:func:`tomis.board.unit_code`); ``gates`` is a list
of eight entries, one per rank, each None or a :class:`tomis.board.Gate` (any tuple
``(square, owner, state, markers, direction)`` will do). Nothing here changes its
arguments.
"""

from __future__ import annotations

from .board import (  # noqa: F401  (INACTIVE ... README: still importable from here)
    ACTIVE, BASE, FLAGSHIP, FRIGATE, FRIGATE_ATTACKS, INACTIVE, JUMP, MANUAL, RAYS, README,
    SLIDER_DIRECTIONS, UNIT_KIND, UNIT_SIDE,
)

# Attack points and defence by edition (R17, E1). Bases have no AP and no defence (R19).
UNIT_AP = (
    (0, 0, 0, 1, 1, 1, 1),   # manual: B G M F S T Q
    (0, 0, 0, 1, 1, 1, 2),   # readme: the flagship has 2 AP (E1)
)
UNIT_DEFENCE = (
    (0, 0, 0, 1, 1, 1, 1),
    (0, 0, 0, 1, 1, 1, 2),
)
JUMP_GATE_DEFENCE = 1
BASE_THRESHOLD = 3           # R19, in AP (manual) or in units (readme), E4

def attacked_squares(square: int, code: int, units: dict[int, int]) -> list[int]:
    """The squares the unit ``code`` on ``square`` attacks (R15): a slider's rays stop
    at the first unit."""
    kind = UNIT_KIND[code]
    if kind == FRIGATE:
        return list(FRIGATE_ATTACKS[UNIT_SIDE[code]][square])
    dirs = SLIDER_DIRECTIONS.get(kind)
    if dirs is None:            # bases (and anything else) do not attack
        return []
    out = []
    rays = RAYS[square]
    for d in dirs:
        for t in rays[d]:
            out.append(t)
            if t in units:
                break
    return out


# _SLIDER_RAY_LISTS[kind][square]: the non-empty rays a sliding ship attacks along.
_SLIDER_RAY_LISTS = {
    kind: [tuple(RAYS[sq][d] for d in dirs if RAYS[sq][d]) for sq in range(64)]
    for kind, dirs in SLIDER_DIRECTIONS.items()
}


def attack_tables(units: dict[int, int], edition: int,
                  targets_only: bool = False) -> tuple[list[int], list[int]]:
    """Per attacking side, a list of 64 summed AP values (R15, R17).

    Flat lists rather than dicts: this runs after every action and is the engine's
    hottest loop. With ``targets_only`` a slider's points are counted only on the unit
    that stops its ray, not on the empty squares before it: resolve needs points where a
    target stands, and the empty squares took half the time. Only right for positions
    without an empty jump gate (a target on an empty square, R16).
    """
    white_ap = [0] * 64
    black_ap = [0] * 64
    tables = (white_ap, black_ap)
    flagship_ap = UNIT_AP[edition][FLAGSHIP]
    for square, code in units.items():
        kind = UNIT_KIND[code]
        if kind == FRIGATE:
            side = UNIT_SIDE[code]
            ap = tables[side]
            for t in FRIGATE_ATTACKS[side][square]:
                ap[t] += 1
        elif kind != BASE:
            ap = tables[UNIT_SIDE[code]]
            points = flagship_ap if kind == FLAGSHIP else 1
            rays = _SLIDER_RAY_LISTS[kind][square]
            if targets_only:
                for ray in rays:
                    for t in ray:
                        if t in units:
                            ap[t] += points
                            break
            else:
                for ray in rays:
                    for t in ray:
                        ap[t] += points
                        if t in units:
                            break
    return white_ap, black_ap


def attacking_units(units: dict[int, int], target: int, side: int) -> int:
    """How many of ``side``'s units attack ``target`` (the readme base rule, R19/E4)."""
    return sum(
        1 for square, code in units.items()
        if UNIT_SIDE[code] == side and target in attacked_squares(square, code, units)
    )


def _has_open_jump_gate(units: dict[int, int], gates: list) -> bool:
    """Whether a jump gate stands with no unit on it: then the gate is a target (R16)."""
    for gate in gates:
        if gate is not None and gate[2] == JUMP and gate[0] not in units:
            return True
    return False


def resolve(units: dict[int, int], gates: list, edition: int):
    """One simultaneous resolution (R18): the unit squares and the gate ranks destroyed.

    Every destruction is computed from the position before any of them, so a unit
    destroyed here still attacks in this resolution.
    """
    open_gate = _has_open_jump_gate(units, gates)
    tables = attack_tables(units, edition, targets_only=not open_gate)
    defence = UNIT_DEFENCE[edition]
    lost_units: list[int] = []
    for square, code in units.items():
        side = UNIT_SIDE[code]
        points = tables[1 - side][square]         # only the enemy's AP count (R16)
        if points < 2:
            continue                              # every defence is at least 1
        kind = UNIT_KIND[code]
        if kind == BASE:
            if points >= BASE_THRESHOLD and (
                edition == MANUAL
                or attacking_units(units, square, 1 - side) >= BASE_THRESHOLD   # E4
            ):
                lost_units.append(square)          # R19
        elif points > defence[kind]:
            lost_units.append(square)              # R18
    lost_gates: list[int] = []
    if open_gate:
        for gate in gates:
            # Hot loop, run after every action: indexes (gate[0] square, gate[1] owner,
            # gate[2] state) are a little faster than names and take plain tuples too;
            # unpacking all five fields measured twice as slow.
            if gate is None or gate[2] != JUMP or gate[0] in units:
                continue                           # a unit on the square is the target (R16)
            if tables[1 - gate[1]][gate[0]] > JUMP_GATE_DEFENCE:
                lost_gates.append(gate[0] >> 3)
    lost_units.sort()
    return lost_units, lost_gates


def support_ap(units: dict[int, int], target: int, side: int, exclude: int, edition: int) -> int:
    """AP that ``side``'s units other than the one on ``exclude`` put on ``target`` (R12)."""
    unit_ap = UNIT_AP[edition]
    total = 0
    for square, code in units.items():
        if square == exclude or UNIT_SIDE[code] != side:
            continue
        kind = UNIT_KIND[code]
        if kind == BASE:
            continue
        if target in attacked_squares(square, code, units):
            total += unit_ap[kind]
    return total

