"""Combat after every action (R15-R19): pure functions over a position's pieces.

``units`` maps square -> unit code (:func:`tomis.board.unit_code`); ``gates`` is a list
of eight entries, one per rank, each None or a :class:`tomis.board.Gate` (any tuple
``(square, owner, state, markers, direction)`` will do). Nothing here changes its
arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final      # never rebound; see tomis/rules/board.py for why it is said

from .board import (  # noqa: F401  (INACTIVE ... README: still importable from here)
    ACTIVE, BASE, BLACK, DIAGONAL, FLAGSHIP, FRIGATE, FRIGATE_ATTACKS, INACTIVE, JUMP, MANUAL,
    ORTHOGONAL, RANK_OF, RAYS, README, SENTRY, SLIDER_DIRECTIONS, TOWER, UNIT_KIND, UNIT_SIDE, WHITE,
    unit_code,
)

# Attack points and defence by edition (R17, E1). Bases have no AP and no defence (R19).
UNIT_AP: Final[tuple[tuple[int, ...], ...]] = (
    (0, 0, 0, 1, 1, 1, 1),   # manual: B G M F S T Q
    (0, 0, 0, 1, 1, 1, 2),   # readme: the flagship has 2 AP (E1)
)
UNIT_DEFENCE: Final[tuple[tuple[int, ...], ...]] = (
    (0, 0, 0, 1, 1, 1, 1),
    (0, 0, 0, 1, 1, 1, 2),
)
JUMP_GATE_DEFENCE: Final = 1
BASE_THRESHOLD: Final = 3           # R19, in AP (manual) or in units (readme), E4

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
_SLIDER_RAY_LISTS: Final = {
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


def _has_open_jump_gate(units: dict[int, int], gates: Sequence) -> bool:
    """Whether a jump gate stands with no unit on it: then the gate is a target (R16)."""
    for gate in gates:
        if gate is not None and gate[2] == JUMP and gate[0] not in units:
            return True
    return False


def resolve(units: dict[int, int], gates: Sequence, edition: int):
    """One simultaneous resolution (R18): the unit squares and the gate ranks destroyed.

    Every destruction is computed from the position before any of them, so a unit
    destroyed here still attacks in this resolution.
    """
    # Without an open jump gate the only targets are units, and a slider's points are
    # needed only where its ray stops.
    open_gate = _has_open_jump_gate(units, gates)
    white_ap, black_ap = attack_tables(units, edition, targets_only=not open_gate)
    return resolve_tables(units, gates, edition, bytes(white_ap + black_ap))


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



# ---------------------------------------------------------------------------
# Attack tables kept up to date action by action (R15, R17). A position carries one
# ``bytearray`` of 192 counts: White's summed AP on each square at ``square``, Black's
# at ``64 + square``, and at ``SIGHT + square`` how many
# slider rays reach the square. An action changes them where it lifts or lands a unit,
# and along the rays of the sliders that see a square it empties or fills; the sight
# count says when there are none. One flat byte string is copied in one step, costs
# 250 bytes a position, and holds no references for the cyclic collector to walk; no
# count comes near 255 (at most 8 frigates and 5 sliders of one side reach a square).

SIGHT: Final = 128

# The functions that change the counts read them through a second name, ``counts``, typed
# ``bytes``: the compiled build (tomis/rules/compiled.py) reads a ``bytes``-typed value,
# bytearray included, in a few machine instructions but has no such path for writing,
# nor for reading a ``bytearray``. So ``tables[i] = counts[i] + points``, not
# ``tables[i] += points``: the write is the only generic step left (the generic reads
# and adds were a fifth of the instructions of applying an action, counted with
# callgrind). Interpreted, both spellings run the same number of instructions.

# _AP_AT[side]: where ``side``'s AP counts begin; _ENEMY_AT[code]: where those of the
# enemy of the unit ``code`` begin.
_AP_AT: Final[tuple[int, ...]] = (0, 64)
_ENEMY_AT: Final = tuple(_AP_AT[1 - UNIT_SIDE[code]] for code in range(16))
_OPPOSITE: Final[tuple[int, ...]] = (4, 5, 6, 7, 0, 1, 2, 3)          # N <-> S, NE <-> SW, E <-> W, SE <-> NW

# _LOOKS_ALONG[direction]: the slider kinds whose rays run in ``direction`` (R15).
_LOOKS_ALONG: Final = tuple(
    frozenset(kind for kind, dirs in SLIDER_DIRECTIONS.items() if d in dirs) for d in range(8)
)

# _SIDES[square]: per direction d out of ``square``, the line (d & 3), the ray to scan
# for the nearest unit, the ray beyond ``square`` that a slider found there looks on
# along (as a list of one, for _extend), and the slider kinds that look that way.
_SIDES: Final = tuple(
    tuple((d & 3, RAYS[square][d], (RAYS[square][_OPPOSITE[d]],), _LOOKS_ALONG[_OPPOSITE[d]])
          for d in range(8))
    for square in range(64)
)

# _FRIGATE_HITS[side][square]: FRIGATE_ATTACKS as indexes into that side's AP counts.
_FRIGATE_HITS: Final = tuple(
    tuple(tuple(_AP_AT[side] + t for t in FRIGATE_ATTACKS[side][square]) for square in range(64))
    for side in (WHITE, BLACK)
)


def new_tables(units: dict[int, int], edition: int) -> bytearray:
    """The counts of a position (AP by side, then sight), built from scratch."""
    tables = bytearray(192)
    for square, code in units.items():
        _count_attacks(tables, units, square, code, edition, 1, None)
    return tables


def side_ap(tables: bytearray, side: int) -> list[int]:
    """``side``'s AP on each square, as :func:`attack_tables` gives it."""
    start = _AP_AT[side]
    return list(tables[start:start + 64])


# ``raised``, where given, collects the squares of units that gained attack points
# (and squares a frigate now attacks): after a resolution that destroyed nothing, only
# a target there can fall (R18), unless an open jump gate stands somewhere (R16).

def lift_unit(tables: bytearray, units: dict[int, int], square: int, edition: int,
              raised: list[int] | None = None) -> int:
    """Take the unit off ``square`` (``units`` and ``tables`` both); return its code."""
    code = units[square]
    _count_attacks(tables, units, square, code, edition, -1, None)
    del units[square]
    seen = tables[SIGHT + square]
    if seen:
        _reroute(tables, units, square, edition, 1, raised, seen)      # rays that stopped here go on
    return code


def land_unit(tables: bytearray, units: dict[int, int], square: int, code: int,
              edition: int, raised: list[int] | None = None) -> None:
    """Put the unit ``code`` on the empty ``square`` (``units`` and ``tables`` both)."""
    seen = tables[SIGHT + square]
    if seen:
        _reroute(tables, units, square, edition, -1, None, seen)       # rays that passed here stop
    units[square] = code
    _count_attacks(tables, units, square, code, edition, 1, raised)


# _ALIGNED[origin]: {target: (direction, steps)} for every square on a straight line from
# ``origin`` (the line a frigate's step or a slider's move runs along).
_ALIGNED: Final = tuple(
    {t: (d, steps) for d in range(8) for steps, t in enumerate(RAYS[square][d], 1)}
    for square in range(64)
)

# _CROSS_RAYS[kind][square][line]: the slider's non-empty rays from ``square`` that do not
# run along ``line`` (direction & 3): the ones a move along that line takes elsewhere.
def _cross_rays(directions: tuple[int, ...]) -> list[tuple[tuple[tuple[int, ...], ...], ...]]:
    table = []
    for rays in RAYS:
        present = [(direction & 3, rays[direction]) for direction in directions if rays[direction]]
        table.append(tuple(tuple(ray for ray_line, ray in present if ray_line != line)
                           for line in range(4)))
    return table


_CROSS_RAYS: Final = {kind: _cross_rays(directions) for kind, directions in SLIDER_DIRECTIONS.items()}


def move_unit(tables: bytearray, units: dict[int, int], origin: int, target: int, edition: int,
              raised: list[int] | None = None) -> int:
    """Move the unit on ``origin`` to the empty ``target`` over empty squares (a legal
    move, R9), ``units`` and ``tables`` both; return its code. The counts come out as
    :func:`lift_unit` then :func:`land_unit` give them, but on the move's own line only
    the squares it crosses change, so only the other lines are recounted.
    """
    aligned = _ALIGNED[origin].get(target)
    if aligned is None:
        code = lift_unit(tables, units, origin, edition, raised)
        land_unit(tables, units, target, code, edition, raised)
        return code
    d, steps = aligned
    line = d & 3
    back = _OPPOSITE[d]
    counts: bytes = tables
    seen_origin = counts[SIGHT + origin]        # slider rays reaching each square before
    seen_target = counts[SIGHT + target]
    code = units.pop(origin)
    # The sliders that look along the line: the unit beyond ``target`` (its ray reaches
    # both squares) now stops at ``target``, short of ``origin``; the one behind
    # ``origin`` (its ray reaches ``origin``) now looks up to ``target``. A square no ray
    # reaches needs no search; the rest of each square's sight is on the other lines.
    if seen_target:
        for t in RAYS[target][d]:
            if t in units:
                ahead = units[t]
                if UNIT_KIND[ahead] in _LOOKS_ALONG[back]:
                    _segment(tables, RAYS[target][back], steps, ahead, edition, -1)
                    seen_origin -= 1
                    seen_target -= 1
                break
    if seen_origin:
        for t in RAYS[origin][back]:
            if t in units:
                behind = units[t]
                if UNIT_KIND[behind] in _LOOKS_ALONG[d]:
                    _segment(tables, RAYS[origin][d], steps, behind, edition, 1)
                    seen_origin -= 1
                break
    # The unit's own attacks. A slider's two rays along the line keep their ends: it
    # stops attacking ``target`` and starts attacking ``origin``.
    kind = UNIT_KIND[code]
    if kind == FRIGATE:
        side = UNIT_SIDE[code]
        hits = _FRIGATE_HITS[side]
        for t in hits[origin]:
            tables[t] = counts[t] - 1
        for t in hits[target]:
            tables[t] = counts[t] + 1
        if raised is not None:
            raised.extend(FRIGATE_ATTACKS[side][target])
    elif kind != BASE:
        seen_target -= 1        # its own ray along the line reached ``target``
        cross = _CROSS_RAYS[kind]
        _extend(tables, units, cross[origin][line], code, edition, -1, None)
        at = _AP_AT[UNIT_SIDE[code]]
        points = UNIT_AP[edition][kind]
        tables[at + target] = counts[at + target] - points
        tables[SIGHT + target] = counts[SIGHT + target] - 1
        tables[at + origin] = counts[at + origin] + points
        tables[SIGHT + origin] = counts[SIGHT + origin] + 1
        _extend(tables, units, cross[target][line], code, edition, 1, raised)
    # The other lines through both squares, as lift_unit and land_unit reroute them.
    if seen_origin:
        _reroute(tables, units, origin, edition, 1, raised, seen_origin, line)
    if seen_target:
        _reroute(tables, units, target, edition, -1, None, seen_target, line)
    units[target] = code
    return code


def _segment(tables: bytearray, ray: tuple[int, ...], steps: int, code: int, edition: int, sign: int) -> None:
    """Count (``sign`` 1) or uncount (-1) the slider ``code``'s points on the first
    ``steps`` squares of ``ray``."""
    at = _AP_AT[UNIT_SIDE[code]]
    points = sign * UNIT_AP[edition][UNIT_KIND[code]]
    counts: bytes = tables
    for t in ray[:steps]:
        i = at + t
        tables[i] = counts[i] + points
        i = SIGHT + t
        tables[i] = counts[i] + sign


def _count_attacks(tables: bytearray, units: dict[int, int], square: int, code: int, edition: int, sign: int,
                   raised: list[int] | None) -> None:
    """Add (``sign`` 1) or take away (-1) what the unit on ``square`` attacks."""
    kind = UNIT_KIND[code]
    if kind == FRIGATE:
        side = UNIT_SIDE[code]
        counts: bytes = tables
        for t in _FRIGATE_HITS[side][square]:
            tables[t] = counts[t] + sign
        if raised is not None:
            raised.extend(FRIGATE_ATTACKS[side][square])
    elif kind != BASE:
        # Every ray in one call: a flagship has up to eight, and a call per ray cost a
        # slider's move more than the counting itself.
        _extend(tables, units, _SLIDER_RAY_LISTS[kind][square], code, edition, sign, raised)


def _reroute(tables: bytearray, units: dict[int, int], square: int, edition: int, sign: int,
             raised: list[int] | None, seen: int, skip: int = -1) -> None:
    """Lengthen (``sign`` 1: ``square`` was emptied) or shorten (-1: about to be filled)
    the rays of the sliders that see ``square``, past it up to the next unit; on every
    line through it but ``skip`` (a direction & 3), which :func:`move_unit` does itself.

    ``seen`` is how many slider rays reach ``square`` on those lines (its sight count):
    at most one comes from each side of a line, from the nearest unit there, so the
    search stops once that many are found instead of scanning all eight directions.
    """
    for line, scan, onward, kinds in _SIDES[square]:
        if line == skip:
            continue
        for t in scan:
            if t in units:
                code = units[t]
                if UNIT_KIND[code] in kinds:
                    _extend(tables, units, onward, code, edition, sign, raised)
                    seen -= 1
                    if not seen:
                        return
                break


def _extend(tables: bytearray, units: dict[int, int], rays: tuple[tuple[int, ...], ...], code: int,
            edition: int, sign: int, raised: list[int] | None) -> None:
    """Count (``sign`` 1) or uncount (-1) the slider ``code``'s points along each of
    ``rays``, up to and including the first unit."""
    at = _AP_AT[UNIT_SIDE[code]]
    points = sign * UNIT_AP[edition][UNIT_KIND[code]]
    sight = SIGHT
    counts: bytes = tables
    for ray in rays:
        for t in ray:
            i = at + t
            tables[i] = counts[i] + points
            i = sight + t
            tables[i] = counts[i] + sign
            if t in units:
                if raised is not None:
                    raised.append(t)
                break


def raised_stay_quiet(units: dict[int, int], gates: Sequence, edition: int, tables: bytes,
                      raised: list[int]) -> bool:
    """Whether a resolution destroys nothing, the one before the change having destroyed
    nothing and ``raised`` holding every square that gained attack points since (with
    the square of any unit that arrived): no unit there has the enemy AP that could
    destroy it (R17-R19), and no open jump gate has more than its defence (R16)."""
    for gate in gates:
        if (gate is not None and gate[2] == JUMP and gate[0] not in units
                and tables[_AP_AT[1 - gate[1]] + gate[0]] > JUMP_GATE_DEFENCE):
            return False
    least = _LEAST_TO_DESTROY[edition]
    for square in raised:
        code = units.get(square)
        if code is not None and tables[_ENEMY_AT[code] + square] >= least[code]:
            return False
    return True


def _least_to_destroy(edition: int, code: int) -> int:
    """The fewest enemy AP that can destroy the unit ``code``: one more than its defence
    (R18), or the base's threshold (R19; the readme edition also counts units, which
    the full resolution does). Codes that name no unit get a count never reached."""
    kind = UNIT_KIND[code]
    if kind == BASE:
        return BASE_THRESHOLD
    return UNIT_DEFENCE[edition][kind] + 1 if kind < len(UNIT_DEFENCE[edition]) else 256


_LEAST_TO_DESTROY: Final = tuple(tuple(_least_to_destroy(edition, code) for code in range(16))
                          for edition in (MANUAL, README))


def resolve_tables(units: dict[int, int], gates: Sequence, edition: int, tables: bytes):
    """:func:`resolve` with the position's attack counts at hand: White's AP on each square
    at ``square``, Black's at ``64 + square`` (:func:`new_tables` or both of
    :func:`attack_tables`)."""
    defence = UNIT_DEFENCE[edition]
    lost_units: list[int] = []
    for square, code in units.items():
        side = UNIT_SIDE[code]
        points = tables[_ENEMY_AT[code] + square]     # only the enemy's AP count (R16)
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
    for gate in gates:
        if gate is None or gate[2] != JUMP or gate[0] in units:
            continue                               # a unit on the square is the target (R16)
        if tables[_AP_AT[1 - gate[1]] + gate[0]] > JUMP_GATE_DEFENCE:
            lost_gates.append(RANK_OF[gate[0]])
    lost_units.sort()
    return lost_units, lost_gates
