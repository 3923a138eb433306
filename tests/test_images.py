"""tomis.pictures.images: PNG and GIF from the SVG boards, and the one-line hint when the extra is missing."""

from __future__ import annotations

import io
import sys

import pytest

from svg_cases import sample_game
from tomis.pictures import images, svg

Image = pytest.importorskip("PIL.Image", reason="Pillow is not installed (pip install 'tomis[images]')")
pytest.importorskip("resvg_py", reason="resvg-py is not installed (pip install 'tomis[images]')")


def rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))


def close(a, b, tolerance=3) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a, b))


def test_png_is_the_svg_drawn_at_its_size():
    """A 432-unit board drawn at 432 px: one unit per pixel, so squares can be sampled."""
    game = sample_game("every-action.tgn")
    data = images.png(game.states[50], size=432, last=game.nodes[49].report)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    picture = Image.open(io.BytesIO(data)).convert("RGB")
    assert picture.size == (432, 432)
    margin, square = svg.MARGIN, svg.SQUARE
    # a8 is light and empty; a1 is dark and empty; the margin is the margin colour
    assert close(picture.getpixel((margin + 5, margin + 5)), rgb(svg.COLORS["square light"]))
    assert close(picture.getpixel((margin + 5, margin + 7 * square + 5)), rgb(svg.COLORS["square dark"]))
    assert close(picture.getpixel((3, 3)), rgb(svg.COLORS["margin"]))
    # e1 holds White's base: its centre is White's fill; d8 holds Black's base
    assert close(picture.getpixel((margin + 4 * square + 25, margin + 7 * square + 25)), rgb(svg.COLORS["white"]))
    assert close(picture.getpixel((margin + 3 * square + 25, margin + 25)), rgb(svg.COLORS["black"]))
    # f4 (destroyed by action 50's combat): the cross's centre is the destroyed colour
    assert close(picture.getpixel((margin + 5 * square + 25, margin + 4 * square + 25)), rgb(svg.COLORS["destroyed"]), 40)


def test_gif_has_a_frame_per_action_and_the_delay():
    game = sample_game("resignation.tgn")
    data = images.gif(game, delay=0.5, size=200)
    animation = Image.open(io.BytesIO(data))
    assert data[:6] == b"GIF89a"
    assert animation.n_frames == len(game.nodes) + 2      # the start, one per action, the result
    assert animation.size == (200, 200 + round(200 * images.CAPTION_HEIGHT))   # the board, its caption
    animation.seek(1)
    assert animation.info["duration"] == 500
    animation.seek(animation.n_frames - 1)
    assert animation.info["duration"] == 500 * images.FINAL_HOLD


def test_gif_frames_show_the_positions():
    """Frame N is position N: e1 is empty in the first frame and holds White's base later."""
    game = sample_game("every-action.tgn")
    animation = Image.open(io.BytesIO(images.gif(game, size=432)))
    e1 = (svg.MARGIN + 4 * svg.SQUARE + 25, svg.MARGIN + 7 * svg.SQUARE + 25)
    animation.seek(0)
    assert close(animation.convert("RGB").getpixel(e1), rgb(svg.COLORS["square dark"]), 12)
    animation.seek(5)
    assert close(animation.convert("RGB").getpixel(e1), rgb(svg.COLORS["white"]), 12)


def test_missing_extra_names_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "resvg_py", None)      # import resvg_py now fails
    with pytest.raises(images.MissingExtra, match=r"pip install 'tomis\[images\]'"):
        images.png(sample_game("every-action.tgn").final)
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(images.MissingExtra, match=r"pip install 'tomis\[images\]'"):
        images.gif(sample_game("every-action.tgn"))


def test_gif_frames_after_the_first_store_only_what_changed():
    """As lichess does: a frame holds the rectangle that changed, not the whole board."""
    game = sample_game("resignation.tgn")
    animation = Image.open(io.BytesIO(images.gif(game, size=200)))
    extents = []
    for index in range(animation.n_frames):
        animation.seek(index)
        left, top, right, bottom = animation.dispose_extent
        extents.append((right - left) * (bottom - top))
    assert extents[0] == 200 * (200 + round(200 * images.CAPTION_HEIGHT))
    # a frame is as big as the span of what changed (old and new highlights included),
    # so some are large; together they hold far less than whole boards would
    assert sum(extents[1:]) < 0.5 * extents[0] * (len(extents) - 1)
