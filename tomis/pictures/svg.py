"""Board pictures as SVG: one function, :func:`board`, and the colours it uses.

Layout: a fixed ``viewBox`` (squares :data:`SQUARE` units wide, a margin for the
coordinates) scaled to ``size`` pixels. One element per line, in a fixed order, so the
same input gives the same bytes and a diff of two boards reads like a diff of positions.

What a reader can rely on (tests and the replay page do):

- every square ``<rect class="square light|dark e4" data-square="e4">``;
- every unit ``<g class="unit" data-square data-side data-piece>``;
- every gate ``<g class="gate" data-square data-side data-state data-markers data-direction>``
  with the words of ``tomis show --json`` (``data-direction=""`` where JSON says null);
- the root ``<svg>`` carries ``data-position`` (the position string), ``data-to-move``
  (``white``/``black``, empty once decided) and ``data-result``.

White and Black differ by fill (hollow light shapes against solid dark ones), never by
hue alone, and each kind has its own outline -- base hexagon, frigate triangle pointing
the way it moves, sentry diamond, tower square, flagship star -- so a picture survives
black-and-white print and colour-blind eyes. Gate states differ by line: an inactive
gate is a dashed ring, an active one a solid ring, a jump gate a solid ring with one
pointer per marker toward its direction (R11).
"""

from __future__ import annotations

import math
from xml.sax.saxutils import escape, quoteattr

from ..rules.board import (
    BASE, DIRECTION_NAMES, DIRECTION_STEPS, FLAGSHIP, FRIGATE, FORWARD, PIECE_NAMES, SENTRY,
    SIDE_NAMES, SQUARE_NAMES, TOWER, WHITE, parse_square,
)
from ..rules.combat import ACTIVE, INACTIVE, JUMP
from ..rules.position import to_string
from .words import position_words

SQUARE = 50                   # viewBox units per square
MARGIN = 16                   # room for the coordinates around the board
GATE_STATES = ("inactive", "active", "jump")
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"     # named fonts first: a renderer may lack a default

# Every colour the picture uses; ``colors=`` overrides any of them by key.
COLORS = {
    "square light": "#e8dcc4",
    "square dark": "#9a8a70",
    "margin": "#1d2433",
    "coord": "#d8dee9",
    "white": "#fbfbf8",        # fill of White's units and gates
    "white stroke": "#111111",
    "black": "#1b1b1b",        # fill of Black's units and gates
    "black stroke": "#f2f2f2",
    "gate line": "#111111",
    "last from": "#6fa8dc",
    "last to": "#3d85c6",
    "destroyed": "#cc0000",
    "arrow": "#15781b",
    "mark": "#e69138",
}


def _point(x: float, y: float) -> str:
    return f"{_num(x)},{_num(y)}"


def _num(value: float) -> str:
    """A coordinate with at most one decimal and no ``-0``: fixed text for fixed input."""
    text = f"{round(value, 1):.1f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _polygon(points) -> str:
    return " ".join(_point(x, y) for x, y in points)


def _regular(corners: int, radius: float, turn: float = 0.0):
    """Corners of a regular polygon around the square's centre, the first at ``turn`` degrees from up."""
    centre = SQUARE / 2
    return [(centre + radius * math.sin(math.radians(turn + 360 * k / corners)),
             centre - radius * math.cos(math.radians(turn + 360 * k / corners))) for k in range(corners)]


def _star(points: int, outer: float, inner: float):
    outer_corners = _regular(points, outer)
    inner_corners = _regular(points, inner, 180 / points)
    return [corner for pair in zip(outer_corners, inner_corners) for corner in pair]


# Unit outlines in a square's own coordinates (0..SQUARE), frigates pointing up the screen.
_SHAPES = {
    BASE: _polygon(_regular(6, 17, 30)),
    FRIGATE: _polygon([(25, 9), (40, 39), (10, 39)]),
    SENTRY: _polygon([(25, 8), (42, 25), (25, 42), (8, 25)]),
    TOWER: _polygon([(11, 11), (39, 11), (39, 39), (11, 39)]),
    FLAGSHIP: _polygon(_star(8, 18, 8.5)),
}
_FRIGATE_DOWN = _polygon([(25, 41), (40, 11), (10, 11)])
GATE_RADIUS = 21


def _square_of(value) -> int:
    """A square given as an index (a1 = 0) or a name (``"e4"``)."""
    if isinstance(value, str):
        return parse_square(value)
    if isinstance(value, int) and 0 <= value < 64:
        return value
    raise ValueError(f"not a square: {value!r}")


class _Frame:
    """Where things go on the picture for one orientation."""

    def __init__(self, orientation: str, coordinates: bool):
        if orientation not in SIDE_NAMES:
            raise ValueError(f"orientation must be 'white' or 'black', not {orientation!r}")
        self.flipped = orientation == "black"
        self.margin = MARGIN if coordinates else 0
        self.extent = 8 * SQUARE + 2 * self.margin

    def corner(self, square: int) -> tuple[int, int]:
        """The top-left corner of ``square`` in viewBox units."""
        file, rank = square & 7, square >> 3
        column, row = (7 - file, rank) if self.flipped else (file, 7 - rank)
        return self.margin + column * SQUARE, self.margin + row * SQUARE

    def centre(self, square: int) -> tuple[float, float]:
        x, y = self.corner(square)
        return x + SQUARE / 2, y + SQUARE / 2

    def screen_step(self, direction: int) -> tuple[int, int]:
        """A compass direction (N toward rank 8, R1) as a step on the screen (y grows down)."""
        df, dr = DIRECTION_STEPS[direction]
        return (-df, dr) if self.flipped else (df, -dr)


def _state_of(position):
    """A rules State, or anything that wraps one in ``.state`` (the public Position)."""
    return getattr(position, "state", position)


def board(position, *, size: int = 400, orientation: str = "white", last=None, arrows=(), marks=(),
          coordinates: bool = True, colors: dict | None = None, style: str | None = None,
          legend: bool = False) -> str:
    """The SVG picture of ``position`` (a rules ``State`` or a ``Position``).

    ``last``: the last action's :class:`~tomis.rules.Report` or the public API's
    ``Position.last`` (its squares are tinted and what it and its combat destroyed is
    crossed out), or a bare action (squares only).
    ``arrows``: ``(from, to)`` square pairs; ``marks``: squares to ring. Squares are
    names or indexes. ``colors`` overrides keys of :data:`COLORS`; ``style`` is CSS
    added in a ``<style>`` element. ``legend`` adds a strip under the board naming each
    piece's shape, the gate states and the two sides' fills (``<g class="legend">``);
    the picture is then ``size`` wide and that much taller. The words describe the position itself: a game a
    record ends by resignation or agreement (R23) still reads as "to act" here.
    """
    state = _state_of(position)
    if not isinstance(size, int) or size < 1:
        raise ValueError(f"size must be a positive whole number of pixels, not {size!r}")
    frame = _Frame(orientation, coordinates)
    palette = dict(COLORS, **(colors or {}))
    report = last if hasattr(last, "destroyed") else None
    action = report.action if report is not None else last
    to_move = SIDE_NAMES[state.to_move] if state.to_move is not None else ""
    tall = frame.extent + (LEGEND_HEIGHT if legend else 0)
    height = round(size * tall / frame.extent)
    lines = [
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" viewBox="0 0 {frame.extent} {tall}" '
        f'width="{size}" height="{height}" role="img" aria-labelledby="tomis-title tomis-desc" '
        f'data-position={quoteattr(to_string(state))} data-to-move="{to_move}" '
        f'data-result={quoteattr(state.result)}>',
        f'<title id="tomis-title">{escape(_title(state, report, action))}</title>',
        f'<desc id="tomis-desc">{escape(position_words(state))}</desc>',
    ]
    if style:
        lines.append(f"<style>{escape(style)}</style>")
    lines.append(f'<rect class="margin" x="0" y="0" width="{frame.extent}" height="{tall}" '
                 f'fill="{palette["margin"]}"/>')
    lines += _squares(frame, palette)
    if coordinates:
        lines += _coordinates(frame, palette)
    lines += _last_squares(frame, palette, action)
    lines += _marks(frame, palette, marks)
    pointers = []
    for gate in sorted((g for g in state.gates if g is not None), key=lambda g: g[0]):
        gate_lines, pointer_lines = _gate(frame, palette, gate)
        lines += gate_lines
        pointers += pointer_lines
    lines += [_unit(frame, palette, square, code) for square, code in sorted(state.units.items())]
    lines += pointers            # over the units: a jump gate's direction stays visible
    if report is not None:
        lines += _crosses(frame, palette, report)
    lines += _arrows(frame, palette, arrows)
    if legend:
        lines += _legend(frame, palette)
    lines.append("</svg>")
    return "\n".join(lines) + "\n"


LEGEND_HEIGHT = 64           # viewBox units under the board for the legend: two rows
_LEGEND_UNITS = (BASE, FRIGATE, SENTRY, TOWER, FLAGSHIP)
_LEGEND_SCALE = 0.56         # a piece in the legend, against its size on a square


def _legend(frame: _Frame, palette: dict) -> list[str]:
    """The key under the board: each piece's outline (White's) with its name, then the
    three gate states and which fill is whose."""
    top = frame.extent
    step = (frame.extent - 8) / len(_LEGEND_UNITS)
    fill, stroke = _side_paint(palette, WHITE)
    # the font is said once, on the group, as for the coordinates
    out = [f'<g class="legend" font-family="{FONT}" font-size="11" fill="{palette["coord"]}">']
    for index, kind in enumerate(_LEGEND_UNITS):
        x = 6 + index * step
        out.append(f'<g class="legend-item" data-piece="{PIECE_NAMES[kind]}">'
                   f'<polygon points="{_SHAPES[kind]}" fill="{fill}" stroke="{stroke}" stroke-width="2.5" '
                   f'stroke-linejoin="round" transform="translate({_num(x)},{top + 2}) scale({_LEGEND_SCALE})"/>'
                   f'<text x="{_num(x + 30)}" y="{top + 21}">{PIECE_NAMES[kind]}</text></g>')
    row = top + 34
    for index, (state, words) in enumerate(((INACTIVE, "gate off"), (ACTIVE, "gate on"), (JUMP, "jump gate"))):
        cx, cy = 6 + index * step + 12, row + 14
        dash = ' stroke-dasharray="5 3"' if state == INACTIVE else ""
        shapes = [f'<circle cx="{_num(cx)}" cy="{cy}" r="9" fill="none" stroke="{palette["gate line"]}" '
                  f'stroke-width="5"{dash}/>',
                  f'<circle cx="{_num(cx)}" cy="{cy}" r="9" fill="none" stroke="{fill}" stroke-width="3"{dash}/>']
        if state == JUMP:        # the pointer toward its direction, here east
            shapes.append(f'<polygon points="{_num(cx + 6)},{cy - 5} {_num(cx + 13)},{cy} {_num(cx + 6)},{cy + 5}" '
                          f'fill="{fill}" stroke="{palette["gate line"]}" stroke-width="1.5"/>')
        out.append(f'<g class="legend-item" data-gate="{GATE_STATES[state]}">{"".join(shapes)}'
                   f'<text x="{_num(cx + 16)}" y="{cy + 4}">{words}</text></g>')
    note_x = 22 + 3 * step
    out.append(f'<g class="legend-item" data-sides="hollow white, solid black">'
               f'<text x="{_num(note_x)}" y="{row + 11}">hollow: White</text>'
               f'<text x="{_num(note_x)}" y="{row + 26}">solid: Black</text></g>')
    out.append("</g>")
    return out


def _side_name(side) -> str:
    """``"white"``/``"black"`` from the engine's 0/1 or from a name (the public API's)."""
    return side if isinstance(side, str) else SIDE_NAMES[side]


def _title(state, report, action) -> str:
    if state.ply == 0:
        return "Tomis: the empty board before action 1"
    if report is not None:
        number = state.ply
        dots = "." if number % 2 else "..."
        side = _side_name(report.side).title()
        return f"Tomis after action {number}: {side} played {(number + 1) // 2}{dots} {action} (action {number})"
    if action is not None:
        return f"Tomis after action {state.ply}: {action}"
    return f"Tomis after action {state.ply}"


def _squares(frame: _Frame, palette: dict) -> list[str]:
    lines = []
    for square in range(64):
        x, y = frame.corner(square)
        # a1 is dark, as on a chess board; colour alternates along files and ranks
        shade = "dark" if ((square & 7) + (square >> 3)) % 2 == 0 else "light"
        name = SQUARE_NAMES[square]
        lines.append(f'<rect class="square {shade} {name}" data-square="{name}" x="{x}" y="{y}" '
                     f'width="{SQUARE}" height="{SQUARE}" fill="{palette["square " + shade]}"/>')
    return lines


def _coordinates(frame: _Frame, palette: dict) -> list[str]:
    """File letters above and below, rank numbers left and right, as in the text board."""
    # the font is said once, on the group, not on each of the 32 labels
    lines = [f'<g class="coords" font-family="{FONT}" font-size="11" '
             f'text-anchor="middle" fill="{palette["coord"]}">']
    far = frame.extent - frame.margin / 2
    near = frame.margin / 2
    for index in range(8):
        file_x, _ = frame.centre(index)          # squares a1..h1 give each file's column
        _, rank_y = frame.centre(index * 8)      # squares a1..a8 give each rank's row
        letter, number = "abcdefgh"[index], str(index + 1)
        for y in (near, far):
            lines.append(f'<text class="coord file" x="{_num(file_x)}" y="{_num(y + 4)}">{letter}</text>')
        for x in (near, far):
            lines.append(f'<text class="coord rank" x="{_num(x)}" y="{_num(rank_y + 4)}">{number}</text>')
    return lines + ["</g>"]


def _action_squares(action) -> list[tuple[str, int]]:
    """(role, square) pairs the action touched: ``from`` and ``to``, or only ``to``."""
    if action is None:
        return []
    origin = getattr(action, "origin", None)
    target = getattr(action, "target", None)
    if origin is not None:
        return [("from", origin), ("to", target)]
    return [("to", action.square)]


def _last_squares(frame: _Frame, palette: dict, action) -> list[str]:
    lines = []
    for role, square in _action_squares(action):
        x, y = frame.corner(square)
        lines.append(f'<rect class="last {role}" data-square="{SQUARE_NAMES[square]}" x="{x}" y="{y}" '
                     f'width="{SQUARE}" height="{SQUARE}" fill="{palette["last " + role]}" fill-opacity="0.6"/>')
    return lines


def _marks(frame: _Frame, palette: dict, marks) -> list[str]:
    lines = []
    for value in marks:
        square = _square_of(value)
        x, y = frame.centre(square)
        lines.append(f'<circle class="mark" data-square="{SQUARE_NAMES[square]}" cx="{_num(x)}" cy="{_num(y)}" '
                     f'r="23" fill="none" stroke="{palette["mark"]}" stroke-width="3"/>')
    return lines


def _side_paint(palette: dict, side: int) -> tuple[str, str]:
    name = SIDE_NAMES[side]
    return palette[name], palette[name + " stroke"]


def _gate(frame: _Frame, palette: dict, gate) -> tuple[list[str], list[str]]:
    """A gate's ring (drawn under the units) and its jump pointers (drawn over them)."""
    square, owner, state, markers, direction = gate
    fill, _ = _side_paint(palette, owner)
    x, y = frame.corner(square)
    cx = cy = SQUARE / 2
    dash = ' stroke-dasharray="6 4"' if state == INACTIVE else ""
    words = DIRECTION_NAMES[direction] if state == JUMP else ""
    name = SQUARE_NAMES[square]
    ring = [
        f'<g class="gate" data-square="{name}" data-side="{SIDE_NAMES[owner]}" '
        f'data-state="{GATE_STATES[state]}" data-markers="{markers}" data-direction="{words}" '
        f'transform="translate({x},{y})">',
        # a thick ring in the owner's fill between two thin lines: readable on both square shades
        f'<circle cx="{cx}" cy="{cy}" r="{GATE_RADIUS}" fill="none" stroke="{palette["gate line"]}" '
        f'stroke-width="7"{dash}/>',
        f'<circle cx="{cx}" cy="{cy}" r="{GATE_RADIUS}" fill="none" stroke="{fill}" stroke-width="4"{dash}/>',
    ]
    if state != JUMP:
        return ring + ["</g>"], []
    # a shaft from the centre toward the direction: an empty jump gate reads as an arrow
    ux, uy = _unit_step(frame, direction)
    end_x, end_y = cx + ux * (_pointer_reach(frame, direction) - 12), cy + uy * (_pointer_reach(frame, direction) - 12)
    for colour, width in ((palette["gate line"], 7), (fill, 4)):
        ring.append(f'<line x1="{cx}" y1="{cy}" x2="{_num(end_x)}" y2="{_num(end_y)}" stroke="{colour}" '
                    f'stroke-width="{width}" stroke-linecap="round"/>')
    return ring + ["</g>"], [_pointers(frame, palette, gate)]


def _unit_step(frame: _Frame, direction: int) -> tuple[float, float]:
    """A direction as a unit vector on the screen."""
    dx, dy = frame.screen_step(direction)
    length = math.hypot(dx, dy)
    return dx / length, dy / length


def _pointer_reach(frame: _Frame, direction: int) -> float:
    """How far from the centre a pointer's tip goes: to the square's edge, or further
    along a diagonal, where the corner leaves room."""
    dx, dy = frame.screen_step(direction)
    return SQUARE / 2 if dx == 0 or dy == 0 else SQUARE / 2 + 5


def _pointers(frame: _Frame, palette: dict, gate) -> str:
    """One arrowhead per marker on the ring, pointing the jump gate's way (R11, E3)."""
    square, owner, _state, markers, direction = gate
    fill, stroke = _side_paint(palette, owner)
    cx, cy = frame.centre(square)
    ux, uy = _unit_step(frame, direction)      # toward the direction
    px, py = -uy, ux                           # perpendicular, for the arrowhead's width
    reach = _pointer_reach(frame, direction)
    heads = []
    for index in range(markers):
        tip = reach - 10 * index               # a second marker: a second head behind the first
        base = tip - 14
        points = [(cx + ux * tip, cy + uy * tip),
                  (cx + ux * base + px * 11, cy + uy * base + py * 11),
                  (cx + ux * base - px * 11, cy + uy * base - py * 11)]
        heads.append(f'<polygon points="{_polygon(points)}" fill="{fill}" stroke="{stroke}" '
                     f'stroke-width="1.5" stroke-linejoin="round"/>')
    return (f'<g class="pointer" data-square="{SQUARE_NAMES[square]}" '
            f'data-direction="{DIRECTION_NAMES[direction]}">' + "".join(heads) + "</g>")


def _unit(frame: _Frame, palette: dict, square: int, code: int) -> str:
    side, kind = code >> 3, code & 7
    fill, stroke = _side_paint(palette, side)
    x, y = frame.corner(square)
    shape = _SHAPES[kind]
    if kind == FRIGATE and (FORWARD[side] > 0) == frame.flipped:
        shape = _FRIGATE_DOWN                  # a frigate points the way it moves (R9)
    if side == WHITE:
        outline = f'fill="{fill}" stroke="{stroke}" stroke-width="2.5"'
    else:   # solid dark with a light inner line, so it stands out on a dark square too
        outline = f'fill="{fill}" stroke="{stroke}" stroke-width="1.5"'
    name = SQUARE_NAMES[square]
    return (f'<g class="unit" data-square="{name}" data-side="{SIDE_NAMES[side]}" '
            f'data-piece="{PIECE_NAMES[kind]}" transform="translate({x},{y})">'
            f'<polygon points="{shape}" {outline} stroke-linejoin="round"/></g>')


def _crosses(frame: _Frame, palette: dict, report) -> list[str]:
    """An X on every square the action and its combat cleared (R12, R13, R15-R19).

    ``report`` is the engine's Report (squares, sides and pieces as ints) or the public
    API's last action (the same as names); a destroyed jump gate is ``piece="gate"``.
    """
    lines = []
    for role, lost in (("captured", report.captured), ("destroyed", report.destroyed)):
        for item in lost:
            square = _square_of(item.square)
            piece = item.piece if isinstance(item.piece, str) else PIECE_NAMES[item.piece]
            x, y = frame.corner(square)
            a, b = 8, SQUARE - 8
            lines.append(
                f'<g class="{role}" data-square="{SQUARE_NAMES[square]}" data-side="{_side_name(item.side)}" '
                f'data-piece="{piece}" '
                f'transform="translate({x},{y})" stroke="{palette["destroyed"]}" stroke-width="5" '
                f'stroke-linecap="round"><line x1="{a}" y1="{a}" x2="{b}" y2="{b}"/>'
                f'<line x1="{b}" y1="{a}" x2="{a}" y2="{b}"/></g>')
    return lines


def _arrows(frame: _Frame, palette: dict, arrows) -> list[str]:
    lines = []
    for tail_value, head_value in arrows:
        tail, head = _square_of(tail_value), _square_of(head_value)
        x1, y1 = frame.centre(tail)
        x2, y2 = frame.centre(head)
        length = math.hypot(x2 - x1, y2 - y1) or 1.0
        ux, uy = (x2 - x1) / length, (y2 - y1) / length
        neck_x, neck_y = x2 - ux * 16, y2 - uy * 16
        wing = [(x2, y2), (neck_x - uy * 9, neck_y + ux * 9), (neck_x + uy * 9, neck_y - ux * 9)]
        colour = palette["arrow"]
        lines.append(
            f'<g class="arrow" data-from="{SQUARE_NAMES[tail]}" data-to="{SQUARE_NAMES[head]}" opacity="0.8">'
            f'<line x1="{_num(x1)}" y1="{_num(y1)}" x2="{_num(neck_x)}" y2="{_num(neck_y)}" '
            f'stroke="{colour}" stroke-width="8" stroke-linecap="round"/>'
            f'<polygon points="{_polygon(wing)}" fill="{colour}"/></g>')
    return lines
