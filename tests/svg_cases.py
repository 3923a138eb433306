"""The golden SVG cases: each a name and how to draw it (shared by the test and the tool
that rewrites the goldens, tools/gen_svg_goldens.py)."""

from __future__ import annotations

from pathlib import Path

from tomis.notation import record
from tomis.pictures import svg

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "samples").glob("*.tgn"))
GOLDEN_DIR = ROOT / "tests" / "data" / "svg"


def sample_game(name: str):
    [checked] = record.read((ROOT / "samples" / name).read_text(encoding="utf-8"))
    return checked.game


def _after(name: str, number: int, **options) -> str:
    game = sample_game(name)
    return svg.board(game.states[number], last=game.nodes[number - 1].report, **options)


# name -> a function drawing it. Together they cover every unit kind, every gate state,
# one and two markers, a destroyed square, a gate strike's capture, both orientations,
# arrows, marks, no coordinates and a colour override.
CASES = {
    "empty": lambda: svg.board(sample_game("manual-win.tgn").states[0]),
    "every-action-21": lambda: _after("every-action.tgn", 21),
    "every-action-37-one-marker": lambda: _after("every-action.tgn", 37),
    "every-action-50": lambda: _after("every-action.tgn", 50),
    "every-action-40-black": lambda: _after("every-action.tgn", 40, orientation="black", size=300,
                                           arrows=[("c2", "c6"), ("f5", "f4")], marks=["d4", 0]),
    "readme-win-final": lambda: _after("readme-win.tgn", len(sample_game("readme-win.tgn").nodes)),
    "manual-win-30-plain": lambda: _after("manual-win.tgn", 30, coordinates=False,
                                         colors={"square dark": "#777777"}, style="rect.square{stroke:none}"),
}
