"""Positions, actions and clocks in plain sentences, for pictures that must also be read
aloud and for the messages a player reads.

The SVG's ``<title>`` and ``<desc>`` and the replay page's announcements (a screen
reader speaks them) use these; :func:`clock_lines` is the one text of the clocks, for
``tomis clock``, the reply ``tomis move --mail`` writes and the referee's messages.
Everything returns text; nothing is printed here.
"""

from __future__ import annotations

from ..rules.actions import GateJump, GateStrike, Jump, Move, Place, PlaceMarker, RotateMarker, Toggle
from ..rules.board import BLACK, DIRECTION_NAMES, GATE, PIECE_NAMES, SIDE_TITLES, SQUARE_NAMES, WHITE
from ..rules.combat import ACTIVE, INACTIVE
from ..notation.clock import format_stamp
from ..notation.correspondence import control_words, leave_lines, side_clock_words, time_left_words
from .render import reserve_words, turn_words, unlock_words

# Directions spoken, not abbreviated: "NE" read aloud is two letters, not a bearing.
DIRECTION_WORDS = dict(zip(DIRECTION_NAMES, (
    "north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west")))
_PLURAL = {"base": "base", "frigate": "frigates", "sentry": "sentries", "tower": "towers",
           "flagship": "flagships"}
_STATE_WORDS = {INACTIVE: "inactive gate", ACTIVE: "active gate"}


def direction_word(direction: int) -> str:
    return DIRECTION_WORDS[DIRECTION_NAMES[direction]]


def gate_words(gate) -> str:
    """``inactive gate on b1`` or ``jump gate on c3 pointing north-east, 2 markers``."""
    square, _owner, state, markers, direction = gate
    where = SQUARE_NAMES[square]
    if state in _STATE_WORDS:
        return f"{_STATE_WORDS[state]} on {where}"
    count = "1 marker" if markers == 1 else f"{markers} markers"
    return f"jump gate on {where} pointing {direction_word(direction)}, {count}"


def _units_of(state, side: int) -> str:
    """``base on e1; frigates on a2, b3; tower on h1`` (by kind, squares in board order)."""
    by_kind: dict[int, list[str]] = {}
    for square, code in sorted(state.units.items()):
        if code >> 3 == side:
            by_kind.setdefault(code & 7, []).append(SQUARE_NAMES[square])
    parts = []
    for kind in sorted(by_kind):
        squares = by_kind[kind]
        name = PIECE_NAMES[kind] if len(squares) == 1 else _PLURAL[PIECE_NAMES[kind]]
        parts.append(f"{name} on {', '.join(squares)}")
    return "; ".join(parts) or "no units"


def _gates_of(state, side: int) -> str:
    gates = sorted((g for g in state.gates if g is not None and g[1] == side), key=lambda g: g[0])
    return "; ".join(gate_words(g) for g in gates) or "no gates"


def position_words(state) -> str:
    """The whole position in sentences: units, gates, reserves, flagships, whose turn."""
    sentences = []
    for side in (WHITE, BLACK):
        title = SIDE_TITLES[side]
        sentences.append(f"{title} units: {_units_of(state, side)}.")
        sentences.append(f"{title} gates: {_gates_of(state, side)}.")
    for side in (WHITE, BLACK):
        sentences.append(" ".join(reserve_words(state, side).split()) + ".")
    sentences.append(unlock_words(state) + ".")
    sentences.append(turn_words(state) + ".")
    return " ".join(sentences)


def action_words(action) -> str:
    """What an action does, spoken: ``frigate a2 to a3``, ``base placed on e1``."""
    if isinstance(action, Place):
        return f"{PIECE_NAMES[action.piece]} placed on {SQUARE_NAMES[action.square]}"
    if isinstance(action, Move):
        return f"{PIECE_NAMES[action.piece]} {SQUARE_NAMES[action.origin]} to {SQUARE_NAMES[action.target]}"
    if isinstance(action, Toggle):
        verb = "activates" if action.activate else "deactivates"
        return f"frigate on {SQUARE_NAMES[action.square]} {verb} its gate"
    if isinstance(action, PlaceMarker):
        return (f"marker placed on {SQUARE_NAMES[action.square]}, "
                f"jump gate pointing {direction_word(action.direction)}")
    if isinstance(action, RotateMarker):
        return f"jump gate on {SQUARE_NAMES[action.square]} turned to point {direction_word(action.direction)}"
    origin, target = SQUARE_NAMES[action.origin], SQUARE_NAMES[action.target]
    if isinstance(action, GateJump):
        return f"frigate {origin} gate-jumps to {target}"
    if isinstance(action, GateStrike):
        return f"frigate {origin} strikes the frigate on {target} through the gates"
    if isinstance(action, Jump):
        return f"frigate {origin} jumps over the jump gate to {target}"
    raise TypeError(f"not an action: {action!r}")


def lost_words(destroyed) -> str:
    """``Black's frigate on b4`` (a destroyed gate is always a jump gate, R18)."""
    name = "jump gate" if destroyed.piece == GATE else PIECE_NAMES[destroyed.piece]
    return f"{SIDE_TITLES[destroyed.side]}'s {name} on {SQUARE_NAMES[destroyed.square]}"


def report_words(report, number: int) -> str:
    """One action announced: ``Action 14, White: frigate a2 to a3; combat destroyed
    Black's frigate on b4``, then captures, unlocks and the end of the game if any."""
    parts = [f"Action {number}, {SIDE_TITLES[report.side]}: {action_words(report.action)}"]
    if report.captured:
        parts.append("the action destroyed " + ", ".join(lost_words(d) for d in report.captured))
    if report.destroyed:
        parts.append("combat destroyed " + ", ".join(lost_words(d) for d in report.destroyed))
    else:
        parts.append("combat destroyed nothing")
    for side in report.unlocked:
        parts.append(f"{SIDE_TITLES[side]}'s flagship is unlocked (R20)")
    if report.result != "*":
        parts.append(f"game over, {report.result}" + (f", {report.reason}" if report.reason else ""))
    return "; ".join(parts)



# --------------------------------------------------------------------------- the clocks

def control_heading(time_control: str, control) -> str:
    """``TimeControl 30d+3d: 30d each, 3d more after each own action``."""
    return f"TimeControl {time_control}: {control_words(control)}"


def clock_lines(heading: str, ran, to_move: int | None, now: int | None = None, *,
                names=SIDE_TITLES, indent: str = "", leave=None) -> list[str]:
    """The clocks in words: ``heading``, then a line per side (``names[side]: ...``) and,
    from ``leave`` (the record's correspondence facts), its leave, each line after
    ``indent``. ``to_move`` is None once the game has ended.

    At ``now``, each side's reading is :func:`side_clock_words`' (time left, the action
    its allowance runs to, since when it is to act, when its time runs out). With ``now``
    None, the clocks as the last action left them, for a message read whenever it
    arrives: each side's time left, then when the side to act runs out.
    """
    if now is None:
        lines = [f"{indent}{names[side]}: {time_left_words(ran.left[side], to_move is None)}"
                 for side in (0, 1)]
        if to_move is not None and ran.since is not None and ran.left[to_move] >= 0:
            lines.append(f"{indent}{names[to_move]} is to act; its time runs out at "
                         f"{format_stamp(ran.deadline(to_move))}")
        return [heading, *lines]
    lines = [f"{indent}{names[side]}: {side_clock_words(ran, side, to_move, now)}"
             for side in (0, 1)]
    if leave is not None:
        lines.extend(f"{indent}{line}" for line in leave_lines(leave, now))
    return [heading, *lines]
