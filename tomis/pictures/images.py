"""PNG and animated GIF from the SVG boards of :mod:`tomis.svg`.

Rasterising SVG well is a project of its own, so this uses ``resvg-py`` (the resvg
renderer, no system libraries needed) and Pillow for the GIF frames. Both are the
optional extra ``tomis[images]``: without them everything else in tomis works, and
asking for a PNG or GIF says in one line what to install.
"""

from __future__ import annotations

import io

from . import svg

INSTALL_HINT = "pip install 'tomis[images]'"
GIF_COLOURS = 64             # the board has a handful of colours plus their anti-aliased edges
GIF_PALETTE_FRAMES = 8       # frames sampled to build the one palette every frame shares
FINAL_HOLD = 3               # the last frame stays this many delays, so a loop reads as an end


class MissingExtra(RuntimeError):
    """The optional packages for pictures are not installed."""


def _resvg():
    try:
        import resvg_py
    except ImportError:
        raise MissingExtra(f"PNG and GIF pictures need resvg-py and Pillow: {INSTALL_HINT}") from None
    return resvg_py


def _pillow():
    try:
        from PIL import Image
    except ImportError:
        raise MissingExtra(f"GIF pictures need Pillow and resvg-py: {INSTALL_HINT}") from None
    return Image


def svg_to_png(text: str) -> bytes:
    """The PNG bytes of an SVG document."""
    return bytes(_resvg().svg_to_bytes(svg_string=text))


def png(position, **options) -> bytes:
    """The board of ``position`` as PNG; ``options`` are those of :func:`tomis.svg.board`."""
    return svg_to_png(svg.board(position, **options))


def game_frames(game, **options) -> list[str]:
    """One SVG per position of ``game``: the start, then after each action (with its report)."""
    boards = [svg.board(game.states[0], **options)]
    for number, node in enumerate(game.nodes, 1):
        boards.append(svg.board(game.states[number], last=node.report, **options))
    return boards


def gif(game, *, delay: float = 1.0, **options) -> bytes:
    """An animated GIF of ``game``, one frame per action, ``delay`` seconds each.

    All frames share one palette, so colours do not flicker between frames, and Pillow
    stores each frame as the rectangle that changed since the one before.
    """
    image_type = _pillow()
    _resvg()                              # say what is missing before rendering anything
    frames = [image_type.open(io.BytesIO(svg_to_png(text))).convert("RGB") for text in game_frames(game, **options)]
    palette = _shared_palette(image_type, frames, dict(svg.COLORS, **(options.get("colors") or {})))
    indexed = [frame.quantize(palette=palette, dither=image_type.Dither.NONE) for frame in frames]
    step = max(20, round(delay * 1000))   # GIF delays are in 10 ms; browsers treat < 20 ms as 100
    durations = [step] * len(indexed)
    durations[-1] = step * FINAL_HOLD
    out = io.BytesIO()
    indexed[0].save(out, format="GIF", save_all=True, append_images=indexed[1:], duration=durations,
                    loop=0, optimize=True, disposal=1)
    return out.getvalue()


def _shared_palette(image_type, frames, colours: dict):
    """A palette from a few frames spread over the game (the last one included).

    A band of every drawing colour is added: a colour that covers few pixels (the red
    cross on a destroyed square) would otherwise lose its palette entry to the squares'
    anti-aliased shades.
    """
    from PIL import ImageColor

    count = len(frames)
    picks = sorted({round(i * (count - 1) / max(1, GIF_PALETTE_FRAMES - 1)) for i in range(GIF_PALETTE_FRAMES)})
    width, height = frames[0].size
    band = height // 4
    strip = image_type.new("RGB", (width, height * len(picks) + band))
    for row, index in enumerate(picks):
        strip.paste(frames[index], (0, row * height))
    swatch = max(1, width // len(colours))
    for column, value in enumerate(colours.values()):
        strip.paste(ImageColor.getrgb(value)[:3], (column * swatch, height * len(picks),
                                                   (column + 1) * swatch, height * len(picks) + band))
    return strip.quantize(colors=GIF_COLOURS, method=image_type.Quantize.MEDIANCUT, dither=image_type.Dither.NONE)
