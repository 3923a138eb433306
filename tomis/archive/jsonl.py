"""Games as JSON Lines: one object per action, for scripts and notebooks.

Each row: ``game`` (1-based in its file), ``number`` (the action, 1-based over the game),
``side``, ``action`` (its notation), ``glyphs``, ``comments``, ``position`` (the position
string after it), ``captured`` (what the action itself destroyed: a gate strike, R13, or a
gate-jump capture, R12) and ``destroyed`` (what the combat after it destroyed, R15-R19),
each piece as ``{"square", "side", "piece"}``. Fields are only ever added.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from ..notation import record
from ..rules.board import PIECE_NAMES, SIDE_NAMES, SQUARE_NAMES
from ..rules.position import to_string


def _pieces(removed) -> list[dict]:
    return [{"square": SQUARE_NAMES[d.square], "side": SIDE_NAMES[d.side], "piece": PIECE_NAMES[d.piece]}
            for d in removed]


def action_rows(game: record.Record, number: int, first: int = 1, last: int | None = None) -> Iterator[dict]:
    """The rows of ``game`` (game ``number`` of its file), actions ``first`` to ``last``."""
    start = game.start.ply
    last = len(game.nodes) if last is None else min(last, len(game.nodes))
    for index in range(first - 1, last):
        node = game.nodes[index]
        report = node.report
        acting = start + index + 1
        yield {"game": number, "number": acting, "side": SIDE_NAMES[(acting - 1) & 1],
               "action": str(node.action), "glyphs": node.glyphs, "comments": list(node.comments),
               "position": to_string(game.states[index + 1]),
               "captured": _pieces(report.captured), "destroyed": _pieces(report.destroyed)}


def row_line(row: dict) -> str:
    return json.dumps(row, ensure_ascii=False)
