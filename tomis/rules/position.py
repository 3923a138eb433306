"""Position strings read and checked, and the JSON view of a position.

The format is :mod:`.position_text`'s, which writes it (:func:`to_string`, answered here
too); reading builds a :class:`~.core.State`, so it sits above the rules core.
:func:`from_string` refuses what the rules could not leave standing (see docs/RULES.md):
a base off its home row or on a gate, an opening that breaks the forced order, an
unlocker on the enemy row without its flag, and an undecided position that R22 has
already ended. It accepts other unreachable but self-consistent positions (a flagship on
the board without its unlock, say), and the engine plays them by the rules.
"""

from __future__ import annotations

from .board import (
    ACTIVE, BASE, BLACK, DECIDED_RESULTS, DIRECTION_INDEX, DIRECTION_NAMES, EDITIONS, GATE,
    GATE_STATE_NAMES, HOME_RANK, INACTIVE, INITIAL_RESERVE, JUMP, LETTER_TO_PIECE, MARKER,
    PIECE_LETTERS, PIECE_NAMES, RANK_OF, README, SIDE_NAMES, SQUARE_NAMES, UNDECIDED, UNIT_KIND,
    UNIT_SIDE, WHITE, Gate, parse_square, unit_code,
)
from ..errors import PositionError
from .position_text import to_string  # noqa: F401  -- the writer, answered here too
from .core import (
    OPENING_GATE_RANKS, OPENING_PLIES, QUIET_LIMIT, State, compute_hash, has_legal_action,
    unlocker_codes,
)

START = "8/8/8/8/8/8/8/8 - w 1448221/1448221 - manual 1 0"
_UNIT_LETTERS = "BFSTQ"


def from_string(text: str) -> State:
    """Read a position string; raise :class:`PositionError` saying which field is wrong."""
    fields = text.split()
    if len(fields) != 8:
        raise PositionError(f"a position string has 8 fields, found {len(fields)}: {text!r}")
    units, gates, to_act, reserves, unlocks, edition, action, quiet = fields
    state = State()
    if edition not in EDITIONS:
        raise PositionError(f"unknown edition {edition!r} in position string (manual or readme)")
    state.edition = EDITIONS.index(edition)
    state.units = _parse_units(units)
    state.gates = _parse_gates(gates, state.units)
    state.reserve = _parse_reserves(reserves)
    state.unlocked = _parse_unlocks(unlocks)
    if to_act in ("w", "b"):
        state.to_move, state.result, state.reason = "wb".index(to_act), UNDECIDED, None
    elif to_act in DECIDED_RESULTS:
        state.to_move, state.result, state.reason = None, to_act, "decided before this position"
    else:
        raise PositionError(f"side to act must be w, b or a result, found {to_act!r}")
    state.ply = _parse_count(action, "action number", 1) - 1
    state.quiet = _parse_count(quiet, "quiet-action count", 0)
    _check_consistent(state)
    state.hash = compute_hash(state)
    state.history = (state.hash,)
    state.settled = False       # nobody knows whether this position's last combat was empty
    state.attacks = None        # built by the first action applied (tomis.combat.new_tables)
    return state


_MAX_COUNT_DIGITS = 9    # int() of over 4,300 digits raises ValueError (finding 4)


def _parse_count(text: str, what: str, least: int) -> int:
    # isascii: str.isdigit() also accepts digits such as '²' that int() refuses.
    digits = text.lstrip("0") or "0"
    if (not (text.isascii() and text.isdigit()) or len(digits) > _MAX_COUNT_DIGITS
            or int(digits) < least):
        shown = text if len(text) <= 20 else f"{text[:20]}... ({len(text):,} characters)"
        raise PositionError(f"{what} must be a whole number of at least {least} and at most "
                            f"{_MAX_COUNT_DIGITS} digits, found {shown!r}")
    return int(digits)


def _parse_units(field: str) -> dict[int, int]:
    ranks = field.split("/")
    if len(ranks) != 8:
        raise PositionError(f"the units field has 8 ranks separated by '/', found {len(ranks)}")
    units = {}
    for index, row in enumerate(ranks):
        rank, file = 7 - index, 0
        for char in row:
            if char in "12345678":
                file += int(char)
            elif char.upper() in _UNIT_LETTERS:
                if file > 7:   # never drop a unit silently: the rank is too long
                    raise PositionError(f"rank {rank + 1} of the units field has {char!r} beyond file h")
                side = WHITE if char.isupper() else BLACK
                units[rank * 8 + file] = unit_code(side, LETTER_TO_PIECE[char.upper()])
                file += 1
            else:
                raise PositionError(f"unknown unit letter {char!r} on rank {rank + 1} (B F S T Q, lowercase for Black)")
        if file != 8:
            raise PositionError(f"rank {rank + 1} of the units field covers {file} files, not 8")
    return units


def _parse_gates(field: str, units: dict[int, int]) -> list:
    gates: list = [None] * 8
    if field == "-":
        return gates
    for part in field.split(","):
        gate = _parse_gate(part)
        rank = RANK_OF[gate.square]
        if gates[rank] is not None:
            raise PositionError(f"two gates on rank {rank + 1}; one gate per rank (R3, R6)")
        gates[rank] = gate
    return gates


def _parse_gate(part: str) -> Gate:
    try:
        square = parse_square(part[:2])
        owner = "wb".index(part[2])
    except (ValueError, IndexError):
        raise PositionError(f"a gate is written like c3wA (square, owner w/b, state), found {part!r}") from None
    tail = part[3:]
    if tail == "I":
        return Gate(square, owner, INACTIVE)
    if tail == "A":
        return Gate(square, owner, ACTIVE)
    if len(tail) >= 3 and tail[0] == "J" and tail[1] in "12" and tail[2:] in DIRECTION_INDEX:
        return Gate(square, owner, JUMP, int(tail[1]), DIRECTION_INDEX[tail[2:]])
    raise PositionError(f"gate state must be I, A or J<1|2><direction>, found {tail!r} in {part!r}")


def _parse_reserves(field: str) -> tuple:
    rows = field.split("/")
    if len(rows) != 2 or any(len(r) != 7 or not (r.isascii() and r.isdigit()) for r in rows):
        raise PositionError(f"reserves are two groups of 7 digits (B G M F S T Q) like 1448221/1448221, found {field!r}")
    return tuple(tuple(int(c) for c in row) for row in rows)


def _parse_unlocks(field: str) -> tuple[bool, bool]:
    if field not in ("-", "w", "b", "wb"):
        raise PositionError(f"unlocks must be -, w, b or wb, found {field!r}")
    return ("w" in field, "b" in field)


def pieces_on_board(state: State, side: int) -> list[int]:
    """How many of each kind (B G M F S T Q) ``side`` has on the board, markers included."""
    counts = [0] * 7
    for code in state.units.values():
        if UNIT_SIDE[code] == side:
            counts[UNIT_KIND[code]] += 1
    for gate in state.gates:
        if gate is not None and gate.owner == side:
            counts[GATE] += 1
            counts[MARKER] += gate.markers
    return counts


def _check_consistent(state: State) -> None:
    """Refuse positions no game could reach in the way the engine relies on (R2, R3, R6)."""
    for side in (WHITE, BLACK):
        on_board = pieces_on_board(state, side)
        for kind in range(7):
            if on_board[kind] + state.reserve[side][kind] > INITIAL_RESERVE[kind]:
                raise PositionError(
                    f"{SIDE_NAMES[side]} has more {PIECE_NAMES[kind]}s than the {INITIAL_RESERVE[kind]} a side owns (R2)")
        if on_board[BASE] + state.reserve[side][BASE] != 1 and state.to_move is not None:
            raise PositionError(f"{SIDE_NAMES[side]} must have its base on the board or in reserve (R2)")
    _check_bases(state)
    _check_unlocks(state)
    if state.ply >= OPENING_PLIES:
        if any(state.reserve[s][BASE] or state.reserve[s][GATE] for s in (WHITE, BLACK)):
            raise PositionError("after action 10 every base and gate is on the board (R5-R7)")
        if state.to_move is not None and state.to_move != state.ply & 1:
            raise PositionError(f"the side to act does not match action number {state.ply + 1} (R4)")
    elif state.to_move is not None:
        _check_opening_progress(state)
    for gate in state.gates:
        if gate is not None and gate.state == JUMP and state.edition == README and gate.markers > 1:
            raise PositionError("a jump gate carries one marker in the readme edition (E3)")
    if state.to_move is not None:
        _check_undecided(state)


def _check_undecided(state: State) -> None:
    """A position that says someone is to act must not be one the end rules already decided (R22)."""
    if state.quiet >= QUIET_LIMIT:
        raise PositionError(
            f"{QUIET_LIMIT} actions without destruction or deployment draw the game, so an undecided "
            f"position counts at most {QUIET_LIMIT - 1} (R22)")
    if not has_legal_action(state):
        raise PositionError(
            f"{SIDE_NAMES[state.to_move]} has no legal action here, so the game is already decided; "
            f"write the result in the side-to-act field (R22)")


def _check_bases(state: State) -> None:
    """A base stands on its own home row, never on a gate (R5, R6): the rules rely on it."""
    for square, code in state.units.items():
        if UNIT_KIND[code] != BASE:
            continue
        side = UNIT_SIDE[code]
        if RANK_OF[square] != HOME_RANK[side]:
            raise PositionError(f"{SIDE_NAMES[side]}'s base on {SQUARE_NAMES[square]} is off its home row (R5)")
        gate = state.gates[RANK_OF[square]]
        if gate is not None and gate.square == square:
            raise PositionError(f"{SIDE_NAMES[side]}'s base on {SQUARE_NAMES[square]} stands on a gate (R6)")


def _check_unlocks(state: State) -> None:
    """A ship that unlocks its flagship (R20) and stands on the enemy home row has unlocked it.

    A position string describes the board after an action's combat, when R20 applies.
    """
    for side in (WHITE, BLACK):
        if state.unlocked[side]:
            continue
        codes = unlocker_codes(state.edition, side)
        for square in range(HOME_RANK[1 - side] * 8, HOME_RANK[1 - side] * 8 + 8):
            if state.units.get(square) in codes:
                raise PositionError(
                    f"{SIDE_NAMES[side]}'s {PIECE_NAMES[UNIT_KIND[state.units[square]]]} on {SQUARE_NAMES[square]} "
                    f"stands on the enemy home row, so {SIDE_NAMES[side]}'s flagship is unlocked; "
                    f"add {'wb'[side]} to the unlocks field (R20)")


def _check_opening_progress(state: State) -> None:
    ply = state.ply
    if state.to_move != ply & 1:
        raise PositionError(f"the side to act does not match action number {ply + 1} (R4)")
    for side in (WHITE, BLACK):
        on_board = pieces_on_board(state, side)
        if any(on_board[k] + state.reserve[side][k] != INITIAL_RESERVE[k] for k in range(7)):
            raise PositionError(
                f"in the opening every piece {SIDE_NAMES[side]} has not placed is in its reserve (R2, R7)")
    if any(g is not None and g.state != INACTIVE for g in state.gates):
        raise PositionError("in the opening every gate is inactive: nothing else is played yet (R6, R7)")
    bases = sum(1 for c in state.units.values() if UNIT_KIND[c] == BASE)
    ships = sum(1 for c in state.units.values() if UNIT_KIND[c] != BASE)
    placed_gates = [RANK_OF[g.square] for g in state.gates if g is not None]
    expected = sorted(OPENING_GATE_RANKS[: max(0, ply - 2)])
    if bases != min(ply, 2) or ships or sorted(placed_gates) != expected:
        raise PositionError(f"the board does not match the forced opening order at action {ply + 1} (R5-R7)")


def to_json(state: State) -> dict:
    """The JSON view of a position (the shape ``tomis show --json`` prints)."""
    units = [
        {"square": SQUARE_NAMES[sq], "side": SIDE_NAMES[UNIT_SIDE[code]], "piece": PIECE_NAMES[UNIT_KIND[code]]}
        for sq, code in sorted(state.units.items())
    ]
    gates = [
        {"square": SQUARE_NAMES[g.square], "side": SIDE_NAMES[g.owner],
         "state": GATE_STATE_NAMES[g.state], "markers": g.markers,
         "direction": DIRECTION_NAMES[g.direction] if g.state == JUMP else None}
        for g in sorted((g for g in state.gates if g is not None), key=lambda g: g.square)
    ]
    return {
        "to_move": SIDE_NAMES[state.to_move] if state.to_move is not None else None,
        "result": state.result,
        "units": units,
        "gates": gates,
        "reserve": {
            SIDE_NAMES[side]: dict(zip(PIECE_LETTERS, state.reserve[side])) for side in (WHITE, BLACK)
        },
        "flagship_unlocked": {SIDE_NAMES[side]: state.unlocked[side] for side in (WHITE, BLACK)},
    }
