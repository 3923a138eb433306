"""Combat after every action (R15-R19): pure functions over a position's pieces.

``units`` maps square -> unit code (``side << 3 | kind``); ``gates`` is a list of eight
entries, one per rank, each None or a gate tuple ``(square, owner, state, markers,
direction)``. Nothing here changes its arguments.
"""

from __future__ import annotations

from .board import (
    BASE, FLAGSHIP, FRIGATE, FRIGATE_ATTACKS, RAYS, SLIDER_DIRECTIONS,
)

INACTIVE, ACTIVE, JUMP = 0, 1, 2
MANUAL, README = 0, 1

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

# The squares a slider attacks along each ray stop at the first unit (R15).
_SLIDER_RAYS = {kind: dirs for kind, dirs in SLIDER_DIRECTIONS.items()}


def attacked_squares(square: int, code: int, units: dict[int, int]) -> list[int]:
    """The squares the unit ``code`` on ``square`` attacks (R15)."""
    kind = code & 7
    if kind == FRIGATE:
        return list(FRIGATE_ATTACKS[code >> 3][square])
    dirs = _SLIDER_RAYS.get(kind)
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


def attack_tables(units: dict[int, int], edition: int):
    """Per attacking side: {square: summed AP} and {square: number of attacking units}."""
    ap = ({}, {})
    count = ({}, {})
    unit_ap = UNIT_AP[edition]
    for square, code in units.items():
        kind = code & 7
        if kind == BASE:
            continue
        side = code >> 3
        points = unit_ap[kind]
        side_ap = ap[side]
        side_count = count[side]
        for t in attacked_squares(square, code, units):
            side_ap[t] = side_ap.get(t, 0) + points
            side_count[t] = side_count.get(t, 0) + 1
    return ap, count


def resolve(units: dict[int, int], gates: list, edition: int):
    """One simultaneous resolution (R18): the unit squares and the gate ranks destroyed.

    Every destruction is computed from the position before any of them, so a unit
    destroyed here still attacks in this resolution.
    """
    ap, count = attack_tables(units, edition)
    defence = UNIT_DEFENCE[edition]
    lost_units: list[int] = []
    lost_gates: list[int] = []
    for attacker in (0, 1):
        side_count = count[attacker]
        for target, points in ap[attacker].items():
            code = units.get(target)
            if code is not None:
                if code >> 3 == attacker:
                    continue                      # nothing harms its own side (R16)
                kind = code & 7
                if kind == BASE:
                    strength = points if edition == MANUAL else side_count[target]
                    if strength >= BASE_THRESHOLD:   # R19, E4
                        lost_units.append(target)
                elif points > defence[kind]:         # R18
                    lost_units.append(target)
                continue
            gate = gates[target >> 3]
            if (
                gate is not None
                and gate[0] == target
                and gate[2] == JUMP
                and gate[1] != attacker
                and points > JUMP_GATE_DEFENCE
            ):
                lost_gates.append(target >> 3)       # R16, R18
    return lost_units, lost_gates


def support_ap(units: dict[int, int], target: int, side: int, exclude: int, edition: int) -> int:
    """AP that ``side``'s units other than the one on ``exclude`` put on ``target`` (R12)."""
    unit_ap = UNIT_AP[edition]
    total = 0
    for square, code in units.items():
        if square == exclude or code >> 3 != side:
            continue
        kind = code & 7
        if kind == BASE:
            continue
        if target in attacked_squares(square, code, units):
            total += unit_ap[kind]
    return total
