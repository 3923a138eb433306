"""The rules of Tomis (R1-R23, editions E1-E4): positions, legal actions, applying them.

A :class:`State` is one position. It is never changed once built and handed out:
:func:`apply` returns a new state and a :class:`Report` of what happened. Squares are
ints (a1 = 0); units are codes (:func:`tomis.board.unit_code`, read back with
``UNIT_SIDE``/``UNIT_KIND``); gates are kept one per rank (R3, R6) as
:class:`tomis.board.Gate` named tuples.
"""

from __future__ import annotations

import random
from typing import Any, Callable, Final, NamedTuple     # Final: see tomis/rules/board.py

from .actions import (
    Action, GateJump, GateStrike, Jump, Move, Place, PlaceMarker, RotateMarker, Toggle,
)
from .board import (
    ACTIVE, BASE, BLACK, DIRECTION_NAMES, DRAW, EDITIONS, FILE_OF, FLAGSHIP, FRIGATE,
    FRIGATE_STEPS, GATE, HOME_RANK, INACTIVE, INITIAL_RESERVE, JUMP, MANUAL, MARKER, NEIGHBOURS,
    PIECE_CONSTANTS, PIECE_NAMES, RANK_OF, RAYS, README, SENTRY, SIDE_CONSTANTS, SIDE_TITLES, SLIDER_DIRECTIONS,
    SQUARE_NAMES, TOWER, UNDECIDED, UNIT_KIND, UNIT_SIDE, WHITE, WIN_RESULTS, Gate, offset,
    unit_code,
)
from .combat import (
    UNIT_DEFENCE, land_unit, lift_unit, move_unit, new_tables, raised_stay_quiet, resolve_tables, support_ap,
)
from ..errors import IllegalActionError
from .position_text import to_string

OPENING_PLIES: Final = 10
QUIET_LIMIT: Final = 100            # R22 (4)
REPETITIONS: Final = 3              # R22 (3)

# The rank of the gate placed at each opening action 3..10 (R6).
OPENING_GATE_RANKS: Final[tuple[int, ...]] = (0, 7, 1, 6, 2, 5, 3, 4)

# ---------------------------------------------------------------------------
# Zobrist keys, fixed by seed so that hashes are stable across runs and machines.
_rng = random.Random(0x70A15)
_UNIT_KEYS: Final = [[_rng.getrandbits(64) for _ in range(64)] for _ in range(16)]
# Gate state codes: 0 inactive, 1 active, 2 + 8*(markers-1) + direction for jump gates.
_GATE_KEYS: Final = [[[_rng.getrandbits(64) for _ in range(18)] for _ in range(2)] for _ in range(64)]
_RESERVE_KEYS: Final = [[[_rng.getrandbits(64) for _ in range(9)] for _ in range(7)] for _ in range(2)]
_UNLOCK_KEYS: Final[tuple[int, ...]] = (_rng.getrandbits(64), _rng.getrandbits(64))
_BLACK_KEY: Final = _rng.getrandbits(64)


def _gate_key(gate) -> int:
    square, owner, state, markers, direction = gate
    code = state if state != JUMP else 2 + 8 * (markers - 1) + direction
    return _GATE_KEYS[square][owner][code]


# Interned actions, so that move generation builds no objects (performance issue).
_PLACE: Final = [[Place(kind, sq) for sq in range(64)] for kind in range(7)]


def _reachable(kind: int, square: int) -> list[int]:
    """Every square a ship of ``kind`` could ever move to from ``square`` on an empty board."""
    if kind == FRIGATE:
        return sorted({t for side in (WHITE, BLACK) for t in FRIGATE_STEPS[side][square]})
    return [t for d in SLIDER_DIRECTIONS[kind] for t in RAYS[square][d]]


# _MOVE[kind][square]: {target: Move}, filled on first use. Building every move a ship
# could make costs milliseconds that a one-file `tomis validate` would pay at start-up
# for tables it mostly never reads.
_MOVE: Final[dict[int, list]] = {kind: [None] * 64 for kind in (FRIGATE, SENTRY, TOWER, FLAGSHIP)}


def _moves_from(kind: int, square: int) -> dict:
    moves = _MOVE[kind][square]
    if moves is None:
        moves = _MOVE[kind][square] = {t: Move(kind, square, t) for t in _reachable(kind, square)}
    return moves


class _GateActions(NamedTuple):
    """The actions a gate's square can ever carry, by value: made once, on first use."""

    toggles: tuple[Toggle, Toggle]                  # [False] deactivate, [True] activate
    place_markers: tuple[PlaceMarker, ...]          # by direction N..NW
    rotations: tuple[RotateMarker, ...]             # by direction N..NW


# _GATE_ACTIONS[square], filled on first use like _MOVE: generation then builds no
# toggle or marker action (it built one per direction of every own gate before).
_GATE_ACTIONS: Final[list] = [None] * 64


def _gate_actions(square: int) -> _GateActions:
    actions = _GATE_ACTIONS[square]
    if actions is None:
        actions = _GATE_ACTIONS[square] = _GateActions(
            (Toggle(square, False), Toggle(square, True)),
            tuple(PlaceMarker(square, d) for d in range(8)),
            tuple(RotateMarker(square, d) for d in range(8)),
        )
    return actions


class Destroyed(NamedTuple):
    """A piece that left the game: a unit, or a jump gate (``piece == GATE``)."""

    square: int
    side: int
    piece: int

    def __str__(self) -> str:
        return f"{'jump gate' if self.piece == GATE else PIECE_NAMES[self.piece]} on {SQUARE_NAMES[self.square]}"

    def __repr__(self) -> str:
        # Reads back with tomis.board's names and this class in scope.
        return (f"Destroyed(square=parse_square({SQUARE_NAMES[self.square]!r}), "
                f"side={SIDE_CONSTANTS[self.side]}, piece={PIECE_CONSTANTS[self.piece]})")


class Report(NamedTuple):
    """What one action did.

    ``captured``: what the action itself destroyed (gate strike R13, gate-jump capture
    R12). ``destroyed``: what the combat after it destroyed (R15-R19), sorted by square.
    ``unlocked``: sides whose flagship became deployable (R20). ``result``: ``"*"`` or
    the final result, with ``reason`` naming the ruling that ended the game.
    """

    action: Action
    side: int
    captured: tuple[Destroyed, ...]
    destroyed: tuple[Destroyed, ...]
    unlocked: tuple[int, ...]
    result: str
    reason: str | None

    def __repr__(self) -> str:
        # Reads back with Action, Destroyed, Report and tomis.board's names in scope.
        names = [SIDE_CONSTANTS[side] for side in self.unlocked]
        unlocked = "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"
        return (f"Report(action={self.action!r}, side={SIDE_CONSTANTS[self.side]}, "
                f"captured={self.captured!r}, destroyed={self.destroyed!r}, "
                f"unlocked={unlocked}, result={self.result!r}, reason={self.reason!r})")


# Named tuples built once per action are made with tuple.__new__: their own constructor
# is a Python function, about 150 ns more per call (1-2 % of an action's cost).
_new_tuple: Final = tuple.__new__


class State:
    """One position of a game, with everything the end rules need (R22).

    ``State()`` is blank: :func:`new_game`, :func:`apply_unchecked` and
    :func:`tomis.rules.position.from_string` make states and set every field. Having no
    ``__init__`` makes that blank construction the cheapest there is, both in Python and
    in the optional compiled build (tomis/rules/compiled.py), where it is a direct call."""

    __slots__ = (
        "edition", "units", "gates", "reserve", "unlocked", "to_move", "result",
        "reason", "ply", "quiet", "history", "hash", "settled", "attacks",
    )
    edition: int
    units: dict[int, int]
    gates: list
    reserve: tuple[tuple[int, ...], ...]  # by side
    unlocked: tuple[bool, ...]            # by side
    to_move: int | None
    result: str
    reason: str | None
    ply: int                # actions played so far; the next is action ply + 1
    quiet: int              # actions since the last destruction or deployment (R22)
    history: tuple[int, ...]
    hash: int
    # True when the last combat destroyed nothing, so resolving again would not
    # either; False when unknown (a position read from a string).
    settled: bool
    # AP by side and slider sight (tomis.combat.new_tables), kept up to date by
    # apply; None when not yet built (a position read from a string). Shared
    # between states until an action changes them: never change them in place.
    attacks: bytearray | None

    def copy(self) -> State:
        new = State()
        new.edition = self.edition
        new.units = dict(self.units)
        new.gates = list(self.gates)
        new.reserve = self.reserve
        new.unlocked = self.unlocked
        new.to_move = self.to_move
        new.result = self.result
        new.reason = self.reason
        new.ply = self.ply
        new.quiet = self.quiet
        new.history = self.history
        new.hash = self.hash
        new.settled = self.settled
        new.attacks = self.attacks
        return new

    # -- queries ---------------------------------------------------------------
    @property
    def edition_name(self) -> str:
        return EDITIONS[self.edition]

    @property
    def action_number(self) -> int:
        """The number of the next action (1-based)."""
        return self.ply + 1

    @property
    def is_over(self) -> bool:
        return self.to_move is None

    def gate_at(self, square: int) -> Gate | None:
        gate = self.gates[RANK_OF[square]]
        return gate if gate is not None and gate.square == square else None

    def key(self) -> tuple:
        """Everything R22 (3) compares, as a value (the hash is its digest)."""
        return (
            tuple(sorted(self.units.items())), tuple(self.gates), self.reserve,
            self.unlocked, self.to_move,
        )

    def __eq__(self, other) -> bool:
        return (
            isinstance(other, State)
            and self.key() == other.key()
            and (self.edition, self.ply, self.quiet, self.result)
            == (other.edition, other.ply, other.quiet, other.result)
        )

    def __hash__(self) -> int:
        return self.hash

    def __repr__(self) -> str:
        """``from_string('...')``: code that rebuilds an equal state, with
        :func:`tomis.rules.position.from_string` in scope (reading checks the position
        against these rules, so it lives a layer up). The repetition history is not part
        of a position string, as it is not part of equality.
        """
        return f"from_string({to_string(self)!r})"

    # -- conveniences ------------------------------------------------------------
    def legal_actions(self) -> list[Action]:
        return legal_actions(self)

    def apply(self, action: Action) -> tuple[State, Report]:
        return apply(self, action)


def new_game(edition: str | int = "manual") -> State:
    """The empty board before action 1, for ``"manual"`` (default) or ``"readme"``."""
    if isinstance(edition, str):
        if edition not in EDITIONS:
            raise ValueError(f"unknown rules edition {edition!r} (manual or readme)")
        edition = EDITIONS.index(edition)
    state = State()
    state.edition = edition
    state.units = {}
    state.gates = [None] * 8
    state.reserve = (INITIAL_RESERVE, INITIAL_RESERVE)
    state.unlocked = (False, False)
    state.to_move = WHITE
    state.result = UNDECIDED
    state.reason = None
    state.ply = 0
    state.quiet = 0
    state.hash = compute_hash(state)
    state.history = (state.hash,)
    state.settled = True
    state.attacks = new_tables(state.units, edition)
    return state


def compute_hash(state: State) -> int:
    """The Zobrist hash of the position from scratch (R22's comparison, as a number)."""
    h = 0
    for square, code in state.units.items():
        h ^= _UNIT_KEYS[code][square]
    for gate in state.gates:
        if gate is not None:
            h ^= _gate_key(gate)
    for side in (WHITE, BLACK):
        for kind, count in enumerate(state.reserve[side]):
            h ^= _RESERVE_KEYS[side][kind][count]
        if state.unlocked[side]:
            h ^= _UNLOCK_KEYS[side]
    if state.to_move == BLACK:
        h ^= _BLACK_KEY
    return h


# ---------------------------------------------------------------------------
# Legal actions

def legal_actions(state: State) -> list[Action]:
    """Every legal action for the side to act, none missing and none extra."""
    return list(iter_legal_actions(state))


def iter_legal_actions(state: State):
    side = state.to_move
    if side is None:
        return
    if state.ply < OPENING_PLIES:
        yield from _opening_actions(state)
        return
    yield from _deployments(state, side)
    yield from _ship_actions(state, side)
    yield from _marker_actions(state, side)


def has_legal_action(state: State) -> bool:
    """Whether the side to act can do anything at all (R22 (2))."""
    side = state.to_move
    if side is not None and state.ply >= OPENING_PLIES and (
        _can_deploy(state, side) or _can_step(state, side)
    ):
        return True             # the common cases, answered without generating anything
    return next(iter_legal_actions(state), None) is not None


def _can_step(state: State, side: int) -> bool:
    """Whether some ship of ``side`` has an empty square one step along its moves (R9)."""
    units = state.units
    steps = FRIGATE_STEPS[side]
    for square, code in units.items():
        if UNIT_SIDE[code] != side:
            continue
        kind = UNIT_KIND[code]
        if kind == FRIGATE:
            for target in steps[square]:
                if target not in units:
                    return True
        elif kind != BASE:
            rays = RAYS[square]
            for d in SLIDER_DIRECTIONS[kind]:
                ray = rays[d]
                if ray and ray[0] not in units:
                    return True
    return False


def _can_deploy(state: State, side: int) -> bool:
    reserve = state.reserve[side]
    if not (reserve[FRIGATE] or reserve[SENTRY] or reserve[TOWER]
            or (reserve[FLAGSHIP] and state.unlocked[side])):
        return False
    gate = state.gates[HOME_RANK[side]]
    gate_square = gate.square if gate is not None else -1
    units = state.units
    for square in _ROW_SQUARES[side]:
        if square not in units and square != gate_square:
            return True
    return False


def _opening_actions(state: State):
    ply = state.ply
    if ply < 2:                                    # R5
        rank = HOME_RANK[ply]
        for square in range(rank * 8, rank * 8 + 8):
            yield _PLACE[BASE][square]
        return
    rank = OPENING_GATE_RANKS[ply - 2]             # R6
    side = (ply - 2) % 2                         # White places the first gate
    base_file = _base_file(state, side) if rank == HOME_RANK[side] else None
    for square in range(rank * 8, rank * 8 + 8):
        if base_file is not None and abs(FILE_OF[square] - base_file) < 2:
            continue
        if square in state.units:
            continue
        yield _PLACE[GATE][square]


def _base_file(state: State, side: int) -> int | None:
    base = unit_code(side, BASE)
    for square, code in state.units.items():
        if code == base:
            return FILE_OF[square]
    return None


def _deployments(state: State, side: int):
    reserve = state.reserve[side]
    kinds = [k for k in (FRIGATE, SENTRY, TOWER) if reserve[k]]
    if reserve[FLAGSHIP] and state.unlocked[side]:
        kinds.append(FLAGSHIP)
    if not kinds:
        return
    rank = HOME_RANK[side]
    gate = state.gates[rank]
    gate_square = gate.square if gate is not None else -1
    units = state.units
    for square in range(rank * 8, rank * 8 + 8):
        if square in units or square == gate_square:
            continue
        for kind in kinds:
            yield _PLACE[kind][square]


def _ship_actions(state: State, side: int):
    units = state.units
    gates = state.gates
    jump_gates = [g for g in gates if g is not None and g.state == JUMP]
    for square, code in list(units.items()):
        if UNIT_SIDE[code] != side:
            continue
        kind = UNIT_KIND[code]
        if kind == FRIGATE:
            moves = _moves_from(FRIGATE, square)
            for target in FRIGATE_STEPS[side][square]:
                if target not in units:
                    yield moves[target]
            yield from _frigate_gate_actions(state, side, square)
        elif kind != BASE:
            moves = _moves_from(kind, square)
            rays = RAYS[square]
            for d in SLIDER_DIRECTIONS[kind]:
                for target in rays[d]:
                    if target in units:
                        break
                    yield moves[target]
    if jump_gates:
        yield from _jumps(state, side, jump_gates)


def _frigate_gate_actions(state: State, side: int, square: int):
    rank = RANK_OF[square]
    gate = state.gates[rank]
    if gate is None or gate.square != square:
        return
    inactive = gate.state == INACTIVE
    yield _gate_actions(square).toggles[inactive]                   # R10
    if inactive:
        return
    units = state.units
    for other_rank in (rank + 1, rank - 1):                         # R12, R13
        if not 0 <= other_rank < 8:
            continue
        other = state.gates[other_rank]
        if other is None or other.state == INACTIVE:
            continue
        target = other.square
        code = units.get(target)
        if code is None:
            yield GateJump(square, target)
            continue
        if UNIT_SIDE[code] == side:
            continue
        if UNIT_KIND[code] == FRIGATE:
            yield GateStrike(square, target)
        if _gate_jump_capture_ok(state, side, square, target, code):
            yield GateJump(square, target)


def _gate_jump_capture_ok(state: State, side: int, origin: int, target: int, code: int) -> bool:
    kind = UNIT_KIND[code]
    if kind == BASE:
        return False    # a base falls only to R19's count, never to a capture (as check() says)
    defence = UNIT_DEFENCE[state.edition][kind]
    return 1 + support_ap(state.units, target, side, origin, state.edition) > defence


def jump_landing(state: State, gate: Gate) -> int | None:
    """Where a jump over ``gate`` lands, or None when R14 forbids it."""
    square, _owner, _state, markers, direction = gate
    first = offset(square, direction)
    if first is None:
        return None
    if state.edition == MANUAL:
        distance = 3 if markers == 2 else 2                          # E3 manual
    else:
        next_gate = state.gate_at(first)
        distance = 3 if next_gate is not None and next_gate.state == JUMP else 2   # E3 readme
    landing = offset(square, direction, distance)
    if landing is None or landing in state.units:
        return None
    for passed in RAYS[square][direction][:distance]:       # every rank up to the landing's
        if state.gates[RANK_OF[passed]] is None:
            return None
    return landing


def _jumps(state: State, side: int, jump_gates):
    units = state.units
    frigate = unit_code(side, FRIGATE)
    seen = set()
    for gate in jump_gates:
        landing = jump_landing(state, gate)
        if landing is None:
            continue
        for origin in NEIGHBOURS[gate.square]:
            if units.get(origin) == frigate and (origin, landing) not in seen:
                seen.add((origin, landing))
                yield Jump(origin, landing)


def _marker_actions(state: State, side: int):
    markers_left = state.reserve[side][MARKER]
    for gate in state.gates:
        if gate is None or gate.owner != side:
            continue
        square, _owner, gate_state, markers, direction = gate     # one unpack: hot
        if gate_state == ACTIVE and markers_left:
            yield from _gate_actions(square).place_markers
        elif gate_state == JUMP:
            actions = _gate_actions(square)
            if markers == 1 and markers_left and state.edition == MANUAL:   # E3
                yield actions.place_markers[direction]
            for rotation in actions.rotations:
                if rotation.direction != direction:
                    yield rotation


# ---------------------------------------------------------------------------
# Checking one action (faster than generating them all, and says which rule forbids it)

def _refuse(state: State, action: Action, why: str) -> IllegalActionError:
    # After the end, name the side whose turn it would have been, as the record reader does.
    side = SIDE_TITLES[state.to_move if state.to_move is not None else state.ply % 2]
    return IllegalActionError(
        f"action {state.ply + 1} ({side}) {action}: {why}",
        getattr(action, "line", None) or None,
        getattr(action, "column", None) or None,
    )


def check(state: State, action: Action) -> None:
    """Raise :class:`IllegalActionError` naming the ruling if ``action`` is illegal."""
    side = state.to_move
    if side is None:
        reason = f": {state.reason}" if state.reason else ""
        raise _refuse(state, action, f"the game is over ({state.result}{reason}); no action may follow (R22)")
    if state.ply < OPENING_PLIES:
        _check_opening(state, action, side)
        return
    checker = _CHECKERS[type(action)]
    checker(state, action, side)


def _check_opening(state: State, action: Action, side: int) -> None:
    ply = state.ply
    if ply < 2:
        if not (isinstance(action, Place) and action.piece == BASE):
            raise _refuse(state, action, f"action {ply + 1} places {SIDE_TITLES[side]}'s base (R5)")
        if RANK_OF[action.square] != HOME_RANK[side]:
            raise _refuse(state, action, f"the base goes on rank {HOME_RANK[side] + 1}, {SIDE_TITLES[side]}'s home row (R5)")
        return
    rank = OPENING_GATE_RANKS[ply - 2]
    if not (isinstance(action, Place) and action.piece == GATE):
        raise _refuse(state, action, "actions 3-10 place one gate each; nothing else before all eight gates are down (R6, R7)")
    if RANK_OF[action.square] != rank:
        raise _refuse(state, action, f"this gate goes on rank {rank + 1} (R6)")
    if rank == HOME_RANK[side]:
        base_file = _base_file(state, side)
        if base_file is not None and abs(FILE_OF[action.square] - base_file) < 2:
            raise _refuse(state, action, "a gate on the home row leaves at least one empty square between it and the base (R6)")
    if action.square in state.units:
        raise _refuse(state, action, "a gate cannot go under the base (R6)")


def _check_place(state: State, action: Place, side: int) -> None:
    kind = action.piece
    if kind in (BASE, GATE):
        raise _refuse(state, action, f"{PIECE_NAMES[kind]}s are placed only in the opening (R5, R6)")
    if kind == MARKER:
        raise _refuse(state, action, "a marker is placed with a direction, like M@c3:NE (R11)")
    if state.reserve[side][kind] == 0:
        raise _refuse(state, action, f"{SIDE_TITLES[side]} has no {PIECE_NAMES[kind]} left in reserve (R2, R8)")
    if kind == FLAGSHIP and not state.unlocked[side]:
        raise _refuse(state, action, "the flagship is not unlocked yet (R20)" + (
            ": a frigate must reach the enemy home row first" if state.edition == MANUAL
            else ": a ship must reach the enemy home row first"))
    if RANK_OF[action.square] != HOME_RANK[side]:
        raise _refuse(state, action, f"ships deploy on {SIDE_TITLES[side]}'s home row, rank {HOME_RANK[side] + 1} (R8)")
    if action.square in state.units:
        raise _refuse(state, action, f"{SQUARE_NAMES[action.square]} is occupied (R8)")
    if state.gate_at(action.square) is not None:
        raise _refuse(state, action, f"a ship cannot deploy onto the gate on {SQUARE_NAMES[action.square]} (R8)")


def _own_unit(state: State, action, side: int, square: int, kind: int, rule: str) -> None:
    code = state.units.get(square)
    if code is None:
        raise _refuse(state, action, f"no {PIECE_NAMES[kind]} stands on {SQUARE_NAMES[square]} ({rule})")
    if UNIT_SIDE[code] != side:
        raise _refuse(state, action, f"the unit on {SQUARE_NAMES[square]} is not {SIDE_TITLES[side]}'s ({rule})")
    if UNIT_KIND[code] != kind:
        raise _refuse(state, action, f"a {PIECE_NAMES[UNIT_KIND[code]]}, not a {PIECE_NAMES[kind]}, stands on {SQUARE_NAMES[square]} ({rule})")


def _check_move(state: State, action: Move, side: int) -> None:
    kind = action.piece
    if kind in (BASE, GATE, MARKER):
        what = {BASE: "the base never moves (R9)", GATE: "gates never move (R9)",
                MARKER: "a marker is rotated, like Mc3:SW, not moved (R11)"}[kind]
        raise _refuse(state, action, what)
    origin, target = action.origin, action.target
    if state.units.get(origin) != side << 3 | kind:     # unit_code(side, kind), inlined
        _own_unit(state, action, side, origin, kind, "R9")     # raises, naming what is wrong
    if target in state.units:
        raise _refuse(state, action, f"{SQUARE_NAMES[target]} is occupied; a move never captures (R9)")
    if kind == FRIGATE:
        if target not in FRIGATE_STEPS[side][origin]:
            raise _refuse(state, action, "a frigate moves one step straight forward or sideways, not backward or diagonally (R9)")
        return
    dirs = SLIDER_DIRECTIONS[kind]
    for d in dirs:
        ray = RAYS[origin][d]
        if target in ray:
            for sq in ray:
                if sq == target:
                    return
                if sq in state.units:
                    raise _refuse(state, action, f"the way is blocked at {SQUARE_NAMES[sq]}; slides stop before the first unit (R9)")
    shape = {SENTRY: "diagonally, like a bishop", TOWER: "orthogonally, like a rook",
             FLAGSHIP: "in a straight line in one of eight directions, like a queen"}[kind]
    raise _refuse(state, action, f"a {PIECE_NAMES[kind]} slides {shape} (R9)")


def _frigate_on_gate(state: State, action, side: int, square: int, rule: str) -> Gate:
    _own_unit(state, action, side, square, FRIGATE, rule)
    gate = state.gate_at(square)
    if gate is None:
        raise _refuse(state, action, f"no gate on {SQUARE_NAMES[square]} ({rule})")
    return gate


def _check_toggle(state: State, action: Toggle, side: int) -> None:
    gate = _frigate_on_gate(state, action, side, action.square, "R10")
    if action.activate and gate.state != INACTIVE:
        raise _refuse(state, action, f"the gate on {SQUARE_NAMES[action.square]} is already active; write ={'I'} to deactivate it (R10)")
    if not action.activate and gate.state == INACTIVE:
        raise _refuse(state, action, f"the gate on {SQUARE_NAMES[action.square]} is already inactive; write =A to activate it (R10)")


def _own_gate(state: State, action, side: int, square: int) -> Gate:
    gate = state.gate_at(square)
    if gate is None:
        raise _refuse(state, action, f"no gate on {SQUARE_NAMES[square]} (R11)")
    if gate.owner != side:
        raise _refuse(state, action, f"the gate on {SQUARE_NAMES[square]} is not {SIDE_TITLES[side]}'s; markers go only on your own gates (R11)")
    return gate


def _check_place_marker(state: State, action: PlaceMarker, side: int) -> None:
    gate = _own_gate(state, action, side, action.square)
    if state.reserve[side][MARKER] == 0:
        raise _refuse(state, action, f"{SIDE_TITLES[side]} has no marker left in reserve (R2, R11)")
    if gate.state == INACTIVE:
        raise _refuse(state, action, "a marker goes only on an active gate; activate it first (R11)")
    if gate.state == JUMP:
        if state.edition == README:
            raise _refuse(state, action, "a jump gate carries only one marker in the readme edition (R11, E3)")
        if gate.markers >= 2:
            raise _refuse(state, action, "a jump gate carries at most two markers (R11, E3)")
        if action.direction != gate.direction:
            raise _refuse(state, action, f"a second marker keeps the gate's direction; write M@{SQUARE_NAMES[action.square]}:{DIRECTION_NAMES[gate.direction]} (R11)")


def _check_rotate(state: State, action: RotateMarker, side: int) -> None:
    gate = _own_gate(state, action, side, action.square)
    if gate.state != JUMP:
        raise _refuse(state, action, f"the gate on {SQUARE_NAMES[action.square]} carries no marker to rotate (R11)")
    if action.direction == gate.direction:
        raise _refuse(state, action, f"the gate already points {DIRECTION_NAMES[gate.direction]}; a rotation picks a new direction (R11)")


def _adjacent_active_gate(state: State, action, origin: int, target: int, rule: str) -> Gate:
    gate = state.gate_at(target)
    if abs(RANK_OF[target] - RANK_OF[origin]) != 1 or gate is None:
        raise _refuse(state, action, f"{SQUARE_NAMES[target]} is not the gate on the next rank up or down ({rule})")
    if gate.state == INACTIVE:
        raise _refuse(state, action, f"the gate on {SQUARE_NAMES[target]} is inactive ({rule})")
    return gate


def _from_active_gate(state: State, action, side: int, rule: str) -> None:
    """The frigate stands on an active gate and aims at the active gate a rank away (R12, R13)."""
    gate = _frigate_on_gate(state, action, side, action.origin, rule)
    if gate.state == INACTIVE:
        raise _refuse(state, action, f"the frigate's gate on {SQUARE_NAMES[action.origin]} is inactive ({rule})")
    _adjacent_active_gate(state, action, action.origin, action.target, rule)


def _check_gate_jump(state: State, action: GateJump, side: int) -> None:
    _from_active_gate(state, action, side, "R12")
    code = state.units.get(action.target)
    if code is None:
        return
    if UNIT_SIDE[code] == side:
        raise _refuse(state, action, f"a friendly unit stands on {SQUARE_NAMES[action.target]} (R12)")
    if UNIT_KIND[code] == BASE or not _gate_jump_capture_ok(state, side, action.origin, action.target, code):
        raise _refuse(state, action, f"capturing the {PIECE_NAMES[UNIT_KIND[code]]} on {SQUARE_NAMES[action.target]} by gate jump needs 1 + supporting AP greater than its defence (R12, R17)")


def _check_gate_strike(state: State, action: GateStrike, side: int) -> None:
    _from_active_gate(state, action, side, "R13")
    code = state.units.get(action.target)
    if code is None or UNIT_SIDE[code] == side or UNIT_KIND[code] != FRIGATE:
        raise _refuse(state, action, f"a gate strike needs an enemy frigate on {SQUARE_NAMES[action.target]} (R13)")


def _check_jump(state: State, action: Jump, side: int) -> None:
    _own_unit(state, action, side, action.origin, FRIGATE, "R14")
    gates_near = [state.gate_at(sq) for sq in NEIGHBOURS[action.origin]]
    near = [g for g in gates_near if g is not None and g.state == JUMP]
    if not near:
        raise _refuse(state, action, f"no jump gate stands next to {SQUARE_NAMES[action.origin]} (R14)")
    landings = {jump_landing(state, g) for g in near}
    if action.target not in landings:
        raise _refuse(state, action, f"no jump gate next to {SQUARE_NAMES[action.origin]} lands on {SQUARE_NAMES[action.target]}; it lands n steps along its direction, on an empty square, over ranks that all have a gate (R14)")


_CHECKERS: Final[dict[type, Callable[[State, Any, int], None]]] = {
    Place: _check_place, Move: _check_move, Toggle: _check_toggle,
    PlaceMarker: _check_place_marker, RotateMarker: _check_rotate,
    GateJump: _check_gate_jump, GateStrike: _check_gate_strike, Jump: _check_jump,
}


# ---------------------------------------------------------------------------
# Applying an action

def apply(state: State, action: Action) -> tuple[State, Report]:
    """Check ``action``, play it, resolve combat and the end rules; return the new state."""
    check(state, action)
    return apply_unchecked(state, action)


def apply_unchecked(state: State, action: Action) -> tuple[State, Report]:
    """Play an action already known to be legal (from :func:`legal_actions`).

    Searches and perft call this once per node, so it does the work itself rather than
    through another call: the successor too is built here, field by field.

    ``action.origin`` and the like are read below after ``kind`` was tested, which type
    checkers do not follow (hence the ``type: ignore`` comments)."""
    side: int = state.to_move   # type: ignore[assignment]   # never None: the game goes on
    kind = type(action)
    # The next position: a new object with the parent's fields, the units, gates and
    # attack counts copied only if the action will change them (the rest is shared).
    new = State()
    new.edition = edition = state.edition
    new.reserve = state.reserve
    new.unlocked = state.unlocked
    new.result = state.result
    new.reason = state.reason
    new.ply = state.ply + 1
    new.to_move = to_act = 1 - side
    tables = state.attacks
    if kind in _UNIT_ACTIONS:
        new.units = units = dict(state.units)
        if tables is not None:
            tables = tables[:]
    else:
        new.units = units = state.units
    new.attacks = tables
    new.gates = list(state.gates) if kind in _GATE_ACTIONS_KINDS else state.gates
    raised: list[int] = []      # squares that gained attack points (tomis.combat)
    captured: tuple[Destroyed, ...]
    if kind is Move and tables is not None:     # the commonest action (R9), done here
        captured = ()
        origin = action.origin      # type: ignore[attr-defined]
        target = action.target      # type: ignore[attr-defined]
        code = move_unit(tables, units, origin, target, edition, raised)
        raised.append(target)   # the unit that arrived is a target that can fall
        keys = _UNIT_KEYS[code]
        new.hash = state.hash ^ keys[origin] ^ keys[target]
    else:
        new.hash = state.hash
        if tables is None:
            captured = _do(new, action, side, raised)
            new.attacks = tables = new_tables(new.units, edition)
        else:
            captured = _DOERS[kind](new, action, side, raised)
    # While both sides hold every marker no gate is a jump gate: combat has no gate to see.
    reserve = new.reserve
    gates = new.gates if reserve[0][MARKER] + reserve[1][MARKER] < _ALL_MARKERS else _NO_GATES
    if state.settled and (kind in _NO_TARGET_KINDS
                          or (kind is PlaceMarker and _changes_no_target(state, action))
                          or raised_stay_quiet(new.units, gates, edition, tables, raised)):
        destroyed: tuple[Destroyed, ...] = ()   # no target gained an attacker: combat repeats its empty result
    else:
        destroyed = _combat(new, state)
    new.settled = not destroyed
    # R20 needs a landing on the enemy home row: most actions are ruled out here, uncalled.
    if kind in _LANDING_ACTIONS and RANK_OF[action.target] == HOME_RANK[to_act]:  # type: ignore[attr-defined]
        unlocked = _unlock(new, action, side)
    else:
        unlocked = ()
    new.hash ^= _BLACK_KEY
    if captured or destroyed or kind is Place:     # irreversible (R22 (3), (4))
        new.quiet = 0
        new.history = (new.hash,)
    else:
        new.quiet = state.quiet + 1
        new.history = state.history + (new.hash,)
    # R21/R22's endings: the common case answered here, without the call to _decide,
    # when nothing was destroyed, the side to act can deploy or step, and neither the
    # repetition nor the quiet count has reached its limit.
    if (destroyed or new.ply < OPENING_PLIES
            or not (_can_deploy(new, to_act) or _can_step(new, to_act))
            or new.history.count(new.hash) >= REPETITIONS or new.quiet >= QUIET_LIMIT):
        _decide(new, destroyed, to_act)
    return new, _new_tuple(Report, (action, side, captured, destroyed, unlocked, new.result, new.reason))


# The actions that lift or land a unit, and so change the units and the attack tables
# (R15), and those that change a gate (R6, R10, R11): a successor copies only what its
# action changes and shares the rest with its parent (combat copies before a loss).
_UNIT_ACTIONS: Final = frozenset({Move, Place, Jump, GateJump, GateStrike})
_GATE_ACTIONS_KINDS: Final = frozenset({Place, Toggle, PlaceMarker, RotateMarker})


# Every marker of both sides (R2). Only a marker makes a gate a jump gate (R11), markers
# are never made, and a position string may show no more than a side owns (position.py):
# while the reserves hold them all, no gate is a jump gate (apply_unchecked).
_ALL_MARKERS: Final = 2 * INITIAL_RESERVE[MARKER]
_NO_GATES: Final[tuple] = ()


# Rotations and toggles leave every unit and jump gate where it was (_changes_no_target).
_NO_TARGET_KINDS: Final = frozenset({RotateMarker, Toggle})


def _changes_no_target(state: State, action: Action) -> bool:
    """Whether ``action`` leaves every unit and every jump gate where it was (R15-R18).

    Rotations, toggles and a second marker change no attack and add no target, so when
    the position before them was settled (its last resolution destroyed nothing) the
    resolution after them destroys nothing either.
    """
    kind = type(action)
    if kind is RotateMarker or kind is Toggle:
        return True
    return type(action) is PlaceMarker and state.gates[RANK_OF[action.square]].state == JUMP


def _combat(state: State, parent: State) -> tuple[Destroyed, ...]:
    """Resolve combat in ``state`` (R15-R19), remove the losses, and list them by square.

    ``parent`` is the position before the action: its units, gates and attack tables
    are still shared with ``state`` where the action changed none, so they are copied
    before a loss.
    """
    tables = state.attacks
    assert tables is not None       # apply_unchecked builds them before combat
    lost_units, lost_gates = resolve_tables(state.units, state.gates, state.edition, tables)
    if not (lost_units or lost_gates):
        return ()
    destroyed = []
    for square in lost_units:
        code = state.units[square]
        destroyed.append(Destroyed(square, UNIT_SIDE[code], UNIT_KIND[code]))
    for rank in lost_gates:
        gate = state.gates[rank]
        destroyed.append(Destroyed(gate.square, gate.owner, GATE))
    if lost_units:
        if parent.attacks is not None and state.attacks is parent.attacks:
            state.attacks = parent.attacks[:]
        if state.units is parent.units:
            state.units = dict(parent.units)
    if lost_gates and state.gates is parent.gates:
        state.gates = list(parent.gates)
    for square in lost_units:
        _remove_unit(state, square)
    for rank in lost_gates:
        _set_gate(state, rank, None)
    destroyed.sort()
    return tuple(destroyed)


def _remove_unit(state: State, square: int, raised: list[int] | None = None) -> None:
    tables = state.attacks
    if tables is None:
        code = state.units.pop(square)
    else:
        code = lift_unit(tables, state.units, square, state.edition, raised)
    state.hash ^= _UNIT_KEYS[code][square]


def _put_unit(state: State, square: int, code: int, raised: list[int]) -> None:
    tables = state.attacks
    if tables is None:
        state.units[square] = code
    else:
        land_unit(tables, state.units, square, code, state.edition, raised)
    raised.append(square)           # the unit that arrived is a target that can fall
    state.hash ^= _UNIT_KEYS[code][square]


def _set_gate(state: State, rank: int, gate: Gate | None) -> None:
    old = state.gates[rank]
    if old is not None:
        state.hash ^= _gate_key(old)
    if gate is not None:
        state.hash ^= _gate_key(gate)
    state.gates[rank] = gate


def _take_from_reserve(state: State, side: int, kind: int, amount: int = 1) -> None:
    row = list(state.reserve[side])
    state.hash ^= _RESERVE_KEYS[side][kind][row[kind]]
    row[kind] -= amount
    state.hash ^= _RESERVE_KEYS[side][kind][row[kind]]
    reserve = list(state.reserve)
    reserve[side] = tuple(row)
    state.reserve = tuple(reserve)


def _do(state: State, action: Action, side: int, raised: list[int]) -> tuple[Destroyed, ...]:
    """Carry out the action itself; return what it destroyed directly (R12, R13).

    ``raised`` collects the squares that gained attack points (:func:`_put_unit`)."""
    doer = _DOERS.get(type(action))
    if doer is None:
        raise TypeError(f"not an action: {action!r}")
    return doer(state, action, side, raised)


# Each kind of action carried out by its own function, found by type in one dict lookup
# (a chain of ``is`` tests made the later kinds, the gate actions, pay for every earlier one).

def _do_move(state: State, action: Move, side: int, raised: list[int]) -> tuple:
    code = state.units[action.origin]
    _remove_unit(state, action.origin, raised)
    _put_unit(state, action.target, code, raised)
    return ()


def _do_place(state: State, action: Place, side: int, raised: list[int]) -> tuple:
    piece = action.piece
    _take_from_reserve(state, side, piece)
    if piece == GATE:
        _set_gate(state, RANK_OF[action.square], _new_tuple(Gate, (action.square, side, INACTIVE, 0, -1)))
    else:
        _put_unit(state, action.square, unit_code(side, piece), raised)
    return ()


def _do_jump(state: State, action: Jump, side: int, raised: list[int]) -> tuple:
    _remove_unit(state, action.origin, raised)
    _put_unit(state, action.target, unit_code(side, FRIGATE), raised)
    return ()


def _do_toggle(state: State, action: Toggle, side: int, raised: list[int]) -> tuple:
    rank = RANK_OF[action.square]
    gate = state.gates[rank]
    if gate.markers:
        _take_from_reserve(state, gate.owner, MARKER, -gate.markers)   # markers go home (R10)
    _set_gate(state, rank, _new_tuple(Gate, (gate.square, gate.owner, ACTIVE if action.activate else INACTIVE, 0, -1)))
    return ()


def _do_place_marker(state: State, action: PlaceMarker, side: int, raised: list[int]) -> tuple:
    rank = RANK_OF[action.square]
    gate = state.gates[rank]
    _take_from_reserve(state, side, MARKER)
    _set_gate(state, rank, _new_tuple(Gate, (gate.square, gate.owner, JUMP, gate.markers + 1, action.direction)))
    return ()


def _do_rotate(state: State, action: RotateMarker, side: int, raised: list[int]) -> tuple:
    rank = RANK_OF[action.square]
    gate = state.gates[rank]
    # Built whole with tuple.__new__: _replace or the named tuple's own constructor
    # is a Python function, two to three times slower.
    _set_gate(state, rank, _new_tuple(Gate, (gate.square, gate.owner, gate.state, gate.markers, action.direction)))
    return ()


def _do_gate_strike(state: State, action: GateStrike, side: int, raised: list[int]) -> tuple:
    enemy = state.units[action.target]
    _remove_unit(state, action.origin, raised)
    _remove_unit(state, action.target, raised)
    return tuple(sorted((Destroyed(action.origin, side, FRIGATE), Destroyed(action.target, UNIT_SIDE[enemy], FRIGATE))))


def _do_gate_jump(state: State, action: GateJump, side: int, raised: list[int]) -> tuple:
    captured: tuple[Destroyed, ...] = ()
    enemy = state.units.get(action.target)
    if enemy is not None:
        _remove_unit(state, action.target)
        captured = (Destroyed(action.target, UNIT_SIDE[enemy], UNIT_KIND[enemy]),)
    _remove_unit(state, action.origin, raised)
    _put_unit(state, action.target, unit_code(side, FRIGATE), raised)
    return captured


_DOERS: Final[dict[type, Callable[[State, Any, int, list[int]], tuple[Destroyed, ...]]]] = {
    Move: _do_move, Place: _do_place, Jump: _do_jump, Toggle: _do_toggle,
    PlaceMarker: _do_place_marker, RotateMarker: _do_rotate,
    GateStrike: _do_gate_strike, GateJump: _do_gate_jump,
}


# The unit codes that unlock each side's flagship, by edition (R20, E2); read at a run-time
# index, so typed as tomis/rules/board.py says.
_UNLOCKERS: Final[tuple[tuple[frozenset[int], ...], ...]] = (
    tuple(frozenset({unit_code(side, FRIGATE)}) for side in (WHITE, BLACK)),
    tuple(frozenset(unit_code(side, k) for k in (FRIGATE, SENTRY, TOWER)) for side in (WHITE, BLACK)),
)
_ROW_SQUARES: Final = tuple(tuple(range(rank * 8, rank * 8 + 8)) for rank in HOME_RANK)
_LANDING_ACTIONS: Final = frozenset({Move, Jump, GateJump})


def _unlock(state: State, action: Action, side: int) -> tuple[int, ...]:
    """R20, E2: a frigate (manual) or any ship but the flagship (readme) on the enemy home row.

    Only the acting side's ship can newly stand there, and only on the square its
    action landed on: deployments are on one's own home row, and position strings
    refuse an unlocker already there without the flag (position._check_unlocks).
    It must still stand there after combat ("destroyed on arrival does not count").
    """
    if state.unlocked[side] or type(action) not in _LANDING_ACTIONS:
        return ()
    target = action.target      # type: ignore[attr-defined]   # a landing action, tested above
    if RANK_OF[target] != HOME_RANK[1 - side] or state.units.get(target) not in _UNLOCKERS[state.edition][side]:
        return ()
    flags = list(state.unlocked)
    flags[side] = True
    state.unlocked = tuple(flags)
    state.hash ^= _UNLOCK_KEYS[side]
    return (side,)


def unlocker_codes(edition: int, side: int) -> frozenset:
    """The unit codes whose arrival on the enemy home row unlocks ``side``'s flagship (R20)."""
    return _UNLOCKERS[edition][side]


def _decide(state: State, destroyed: tuple[Destroyed, ...], side: int) -> None:
    """R22's endings, in its order: base destroyed, no legal action, repetition, quiet.

    ``side`` is the side to act in ``state`` (the game is not over yet)."""
    lost = [d.side for d in destroyed if d.piece == BASE] if destroyed else None
    if lost:
        if len(lost) == 2:
            _end(state, DRAW, "both bases destroyed in one resolution (R21)")
        else:
            winner = 1 - lost[0]
            _end(state, WIN_RESULTS[winner], f"{SIDE_TITLES[lost[0]]}'s base destroyed (R21)")
        return
    # has_legal_action, inlined: this runs after every action
    if not ((state.ply >= OPENING_PLIES and (_can_deploy(state, side) or _can_step(state, side)))
            or next(iter_legal_actions(state), None) is not None):
        loser = side
        _end(state, WIN_RESULTS[1 - loser], f"{SIDE_TITLES[loser]} has no legal action (R22)")
        return
    if state.history.count(state.hash) >= REPETITIONS:
        _end(state, DRAW, "the same position stands for the third time (R22)")
        return
    if state.quiet >= QUIET_LIMIT:
        _end(state, DRAW, f"{QUIET_LIMIT} actions without destruction or deployment (R22)")


def _end(state: State, result: str, reason: str) -> None:
    state.result = result
    state.reason = reason
    if state.to_move == BLACK:
        state.hash ^= _BLACK_KEY     # a decided position has nobody to act
    state.to_move = None
