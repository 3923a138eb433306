"""Text views of a position: the board diagram, reserves, whose turn, combat in words.

Everything here returns text and prints nothing; :mod:`tomis.cli` decides where it goes.
The plain diagram uses ASCII only, so it survives a plain-text email and a reply quote
(``> ``) without shifting columns. With ``color=True`` the same layout gets ANSI colours
(via ``click.style``, imported only then): each unit and each gate in its owner's colour,
so ownership shows without reading letter case. ``arrows`` (by default as ``color``)
draws jump-gate directions as arrows; :mod:`tomis.terminal` decides both for a stream.

One square is one cell six characters wide (the longest mark is five)::

    F      a White frigate (uppercase White, lowercase Black)
    .g-    no unit, an inactive Black gate
    Fg+    a White frigate standing on an active Black gate
    .GNE   a White jump gate pointing north-east, one marker
    fGNE2  a Black frigate on a White jump gate with two markers (manual edition, E3)
"""

from __future__ import annotations

from ..errors import visible
from ..notation.tags import NORMAL
from ..rules.board import (
    ACTIVE, BASE, BLACK, DIRECTION_NAMES, DRAW, FLAGSHIP, FRIGATE, GATE, INACTIVE, MARKER, PIECE_LETTERS,
    PIECE_NAMES, SENTRY, SIDE_TITLES, SQUARE_NAMES, TOWER, UNDECIDED, UNIT_KIND, UNIT_SIDE, WHITE,
)

CELL = 6
FILES_LINE = "     " + "".join(f"{f:<{CELL}}" for f in "abcdefgh").rstrip()
RULE_LINE = "   +" + "-" * (CELL * 8 + 1) + "+"
ARROWS = ("\u2191", "\u2197", "\u2192", "\u2198", "\u2193", "\u2199", "\u2190", "\u2196")
# The legend keeps every line under 72 columns, so a mail client does not rewrap it.
LEGEND = (
    "units: B base  F frigate  S sentry  T tower  Q flagship",
    "       UPPERCASE White, lowercase Black",
    "gates: G White  g Black;  - inactive  + active",
    "       {directions}: jump gate direction (2: two markers)",
)
_STATE_MARKS = {INACTIVE: "-", ACTIVE: "+"}
_PLURALS = {FRIGATE: "frigates", SENTRY: "sentries", TOWER: "towers", MARKER: "markers",
            GATE: "gates", BASE: "bases", FLAGSHIP: "flagships"}
# The order reserves are listed in: what a player can still bring in first.
_RESERVE_ORDER = (BASE, GATE, FRIGATE, SENTRY, TOWER, FLAGSHIP, MARKER)


def unit_letter(code: int | None) -> str:
    """``F`` for a White frigate, ``f`` for a Black one, ``.`` for no unit."""
    if code is None:
        return "."
    letter = PIECE_LETTERS[UNIT_KIND[code]]
    return letter if UNIT_SIDE[code] == WHITE else letter.lower()


def gate_mark(gate, arrows: bool = False, flipped: bool = False) -> str:
    """The gate part of a cell: ``G``/``g`` by owner, then its state or jump direction.

    An arrow points the way the gate points on the board as drawn, so on a ``flipped``
    board (rank 1 on top) a gate pointing north shows ``↓``, as the SVG and PNG draw
    it. A direction's name (``N``, ``NE``) is notation and stays the same either way.
    """
    if gate is None:
        return ""
    _square, owner, state, markers, direction = gate     # a Gate, or any such tuple
    letter = "G" if owner == WHITE else "g"
    if state in _STATE_MARKS:
        return letter + _STATE_MARKS[state]
    if arrows:
        pointer = ARROWS[(direction + 4) % 8 if flipped else direction]   # half a turn
    else:
        pointer = DIRECTION_NAMES[direction]
    return letter + pointer + ("2" if markers == 2 else "")


def _cell(state, square: int, color: bool, arrows: bool, flipped: bool = False) -> str:
    code = state.units.get(square)
    unit = unit_letter(code)
    gate_here = state.gate_at(square)
    gate = gate_mark(gate_here, arrows=arrows, flipped=flipped)
    text = f"{unit}{gate:<{CELL - 1}}"
    if not color:
        return text
    import click  # only a terminal asks for colour; keep the plain path import-free

    unit_text = click.style(unit, fg=_side_colour(UNIT_SIDE[code]), bold=True) if code is not None else unit
    gate_text = ""
    if gate_here is not None:
        # In its owner's colour, not bold, so that a unit standing on it stands out.
        gate_text = click.style(gate, fg=_side_colour(gate_here.owner))
    return unit_text + gate_text + " " * (CELL - 1 - len(gate))


def _side_colour(side: int) -> str:
    return "yellow" if side == WHITE else "magenta"


def _files_line(flipped: bool) -> str:
    return FILES_LINE if not flipped else "     " + "".join(f"{f:<{CELL}}" for f in "hgfedcba").rstrip()


def _rank_lines(state, color: bool, arrows: bool, flipped: bool) -> list[str]:
    """One line per rank, the top one first: rank 8 (rank 1 when ``flipped``)."""
    ranks = range(8) if flipped else range(7, -1, -1)
    files = range(7, -1, -1) if flipped else range(8)
    lines = []
    for rank in ranks:
        cells = "".join(_cell(state, rank * 8 + file, color, arrows, flipped) for file in files)
        lines.append(f" {rank + 1} | {cells}| {rank + 1}")
    return lines


def board(state, *, color: bool = False, legend: bool = True, arrows: bool | None = None,
          flipped: bool = False) -> str:
    """The diagram of ``state``: rank 8 on top, files and ranks labelled on every edge.

    ``color`` adds ANSI colours, ``arrows`` (default: as ``color``) arrow glyphs for
    jump-gate directions; with neither the text is pure ASCII. ``flipped`` turns the
    board round: rank 1 on top and file h on the left, as Black sees it.
    """
    arrows = color if arrows is None else arrows
    files = _files_line(flipped)
    lines = [files, RULE_LINE, *_rank_lines(state, color, arrows, flipped), RULE_LINE, files]
    if legend:
        directions = " ".join(ARROWS if arrows else DIRECTION_NAMES)
        lines += ["   " + line.format(directions=directions) for line in LEGEND]
        if arrows and flipped:
            lines.append("          arrows as drawn, the board turned: \u2193 points N (to rank 8)")
    return "\n".join(lines)


def reserve_words(state, side: int) -> str:
    """What ``side`` still has off the board, in words: ``White reserve: 7 frigates, ...``."""
    parts = []
    for kind in _RESERVE_ORDER:
        count = state.reserve[side][kind]
        if not count:
            continue
        if kind == FLAGSHIP:
            parts.append("flagship")
        else:
            parts.append(f"{count} {PIECE_NAMES[kind] if count == 1 else _PLURALS[kind]}")
    return _wrap_items(f"{SIDE_TITLES[side]} reserve:", parts or ["empty"])


def _wrap_items(head: str, items: list[str], width: int = 72) -> str:
    """``head`` and comma-separated items, broken only between items, so that a mail
    client never has to rewrap the line and never splits a count from its piece."""
    lines, line = [], head
    for index, item in enumerate(items):
        piece = item + ("," if index < len(items) - 1 else "")
        if len(line) + 1 + len(piece) > width:
            lines.append(line)
            line = "   "
        line += " " + piece
    lines.append(line)
    return "\n".join(lines)


def turn_words(state, result: str = UNDECIDED, termination: str = "") -> str:
    """Whose turn it is, or how the game ended.

    ``result`` is the record's result: a game can end by resignation, agreement or an
    arbiter's word (R23) in a position where someone is still to act; ``termination`` is
    the record's Termination tag, which names the last (``time forfeit``).
    """
    if state.to_move is None:
        reason = f", {state.reason}" if state.reason else ""
        return f"Game over: {state.result}{reason}"
    if result != UNDECIDED:
        return f"Game over: {result}, {ending_words(result, termination)}"
    return f"Action {state.ply + 1}: {SIDE_TITLES[state.to_move]} to act"


def ending_words(result: str, termination: str = "") -> str:
    """How a game the rules did not decide ended (R23): as its Termination tag says
    (``time forfeit (R23)``), else a win by resignation and a draw by agreement: also
    when the tag says ``normal``, PGN's value for those (docs/NOTATION.md, "How a game
    ended"). The tag is the record's text, so its control characters are made visible."""
    arbiter = visible(termination.strip().lower())
    if arbiter and arbiter != NORMAL:
        return f"{arbiter} (R23)"
    return "by agreement (R23)" if result == DRAW else "by resignation (R23)"


def piece_words(destroyed) -> str:
    """``Black frigate on e6`` or ``White jump gate on c3`` for one destroyed piece."""
    name = "jump gate" if destroyed.piece == GATE else PIECE_NAMES[destroyed.piece]
    return f"{SIDE_TITLES[destroyed.side]} {name} on {SQUARE_NAMES[destroyed.square]}"


def combat_words(report) -> str:
    """What the combat after an action destroyed, in one line."""
    if not report.destroyed:
        return "combat destroyed nothing"
    return "combat destroyed: " + ", ".join(piece_words(d) for d in report.destroyed)


def numbered_action(action, number: int) -> str:
    """``11. Fb1^d3`` or ``11... Fh8-g8``: action ``number`` (1-based over the whole game,
    a game from a position counting on from its ply) after its move number (R4)."""
    move = (number + 1) // 2
    dots = "." if number % 2 else "..."
    return f"{move}{dots} {action}"


def action_heading(report, number: int) -> str:
    """``White played 11. Fb1^d3 (action 21)``: the action with its move number (R4)."""
    return f"{SIDE_TITLES[report.side]} played {numbered_action(report.action, number)} (action {number})"


def report_lines(report, number: int) -> list[str]:
    """Everything action ``number`` did, a line each: heading, captures, combat, unlocks, end."""
    lines = [action_heading(report, number)]
    if report.captured:
        lines.append("the action destroyed: " + ", ".join(piece_words(d) for d in report.captured))
    lines.append(combat_words(report))
    for side in report.unlocked:
        lines.append(f"{SIDE_TITLES[side]}'s flagship is now unlocked (R20)")
    if report.result != UNDECIDED:
        lines.append(f"result {report.result}" + (f": {report.reason}" if report.reason else ""))
    return lines


def unlock_words(state) -> str:
    """Which flagships may be deployed (R20)."""
    words = [f"{SIDE_TITLES[side]} {'unlocked' if state.unlocked[side] else 'locked'}"
             for side in (WHITE, BLACK)]
    return "Flagships: " + ", ".join(words) + " (R20)"


def position_text(state, *, color: bool = False, result: str = UNDECIDED,
                  arrows: bool | None = None, flipped: bool = False, termination: str = "") -> str:
    """Board, reserves, unlocks, edition and whose turn: all a player needs to act
    (``result`` and ``termination`` as :func:`turn_words` takes them)."""
    return "\n".join([
        board(state, color=color, arrows=arrows, flipped=flipped),
        *(reserve_words(state, side) for side in (WHITE, BLACK)),
        unlock_words(state),
        f"Rules: {state.edition_name}",
        turn_words(state, result, termination),
    ])



def compact_text(state, *, color: bool = False, result: str = UNDECIDED,
                 arrows: bool | None = None, flipped: bool = False, termination: str = "") -> str:
    """The position in ten lines: the ranks, the files, whose turn (no frame, no legend,
    no reserves), for a game at a small terminal."""
    arrows = color if arrows is None else arrows
    return "\n".join([*_rank_lines(state, color, arrows, flipped), _files_line(flipped),
                      turn_words(state, result, termination)])
