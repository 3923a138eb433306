"""Position strings written: one line of text for a :class:`~.core.State`.

A position string is one line of eight space-separated fields::

    <units> <gates> <to-act> <reserves> <unlocks> <edition> <action> <quiet>

- ``units``: ranks 8 down to 1 separated by ``/``; in each rank, files a..h, a digit for
  a run of empty squares and a letter for a unit, uppercase White, lowercase Black
  (``B`` base, ``F`` frigate, ``S`` sentry, ``T`` tower, ``Q`` flagship).
- ``gates``: ``-`` or comma-separated gates by square, each ``<square><owner><state>``:
  owner ``w``/``b``; state ``I`` inactive, ``A`` active, or ``J<markers><direction>`` for a
  jump gate (``c3wJ1NE``).
- ``to-act``: ``w`` or ``b``, or the result (``1-0``, ``0-1``, ``1/2-1/2``) of a decided game.
- ``reserves``: White's then Black's reserve counts in the order B G M F S T Q, ``1448221/1448221``.
- ``unlocks``: ``-``, ``w``, ``b`` or ``wb`` — whose flagship is unlocked (R20).
- ``edition``: ``manual`` or ``readme`` (E1-E4).
- ``action``: the number of the next action (1 before the first).
- ``quiet``: actions since the last destruction or deployment (R22 (4)).

The repetition history (R22 (3)) starts afresh at a position string, as in chess FEN.

Writing needs only the board's names, so it sits below the rules core, whose
``repr(state)`` it makes; reading a string back builds a state and checks it against the
rules, so :mod:`.position` (``from_string``) sits above the core.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .board import (
    ACTIVE, DIRECTION_NAMES, INACTIVE, PIECE_LETTERS, SQUARE_NAMES, UNIT_KIND, UNIT_SIDE, WHITE,
)

if TYPE_CHECKING:
    from .core import State

_STATE_LETTERS = {INACTIVE: "I", ACTIVE: "A"}


def to_string(state: State) -> str:
    """The position string of ``state`` (see the module docstring)."""
    return " ".join((
        _units_field(state), _gates_field(state),
        ("w", "b")[state.to_move] if state.to_move is not None else state.result,
        "/".join("".join(str(n) for n in row) for row in state.reserve),
        "".join(s for s, on in zip("wb", state.unlocked) if on) or "-",
        state.edition_name, str(state.ply + 1), str(state.quiet),
    ))


def _units_field(state: State) -> str:
    ranks = []
    for rank in range(7, -1, -1):
        text, empty = "", 0
        for file in range(8):
            code = state.units.get(rank * 8 + file)
            if code is None:
                empty += 1
                continue
            if empty:
                text, empty = text + str(empty), 0
            letter = PIECE_LETTERS[UNIT_KIND[code]]
            text += letter if UNIT_SIDE[code] == WHITE else letter.lower()
        ranks.append(text + (str(empty) if empty else ""))
    return "/".join(ranks)


def _gates_field(state: State) -> str:
    parts = []
    for gate in state.gates:
        if gate is None:
            continue
        tail = _STATE_LETTERS.get(gate.state) or f"J{gate.markers}{DIRECTION_NAMES[gate.direction]}"
        parts.append(f"{SQUARE_NAMES[gate.square]}{'wb'[gate.owner]}{tail}")
    return ",".join(parts) or "-"
