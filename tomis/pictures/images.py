"""PNG and animated GIF from the SVG boards of :mod:`tomis.svg`.

Rasterising SVG well is a project of its own, so this uses ``resvg-py`` (the resvg
renderer, no system libraries needed) and Pillow for the GIF frames. Both are the
optional extra ``tomis[images]``: without them everything else in tomis works, and
asking for a PNG or GIF says in one line what to install.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from html import escape

from . import svg
from .render import ending_words, numbered_action
from ..notation.tags import TERMINATION_TAG
from ..rules.board import DRAW, SIDE_TITLES, UNDECIDED, WIN_RESULTS

INSTALL_HINT = "pip install 'tomis[images]'"
GIF_COLOURS = 64             # the board has a handful of colours plus their anti-aliased edges
TRANSPARENT = GIF_COLOURS - 1  # the index kept free for "unchanged since the frame before"
GIF_PALETTE_FRAMES = 8       # frames sampled to build the one palette every frame shares
FINAL_HOLD = 3               # the last frame stays this many delays, so a loop reads as an end
CAPTION_HEIGHT = 0.12        # of the board's width: the strip under each GIF frame
MIN_CAPTION_HEIGHT = 16      # pixels, so a small board's caption stays readable
CAPTION_FONTS = "DejaVu Sans, Verdana, Arial, sans-serif"   # as the board's coordinates
CAPTION_ADVANCE = 0.6        # a generous average glyph width, in ems, to shrink long lines


class MissingExtra(RuntimeError):
    """The optional packages for pictures are not installed."""


def _resvg():
    try:
        import resvg_py     # an optional extra (tomis[pictures]): asked for only when drawing
    except ImportError:
        raise MissingExtra(f"PNG and GIF pictures need resvg-py and Pillow: {INSTALL_HINT}") from None
    return resvg_py


def _pillow():
    try:
        from PIL import Image       # an optional extra, as resvg_py above
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
    return [_board_svg(game, index, options) for index in range(len(game.nodes) + 1)]


def _board_svg(game, index: int, options: dict) -> str:
    """The SVG of position ``index`` of ``game`` (0 the start), with its action's report."""
    last = game.nodes[index - 1].report if index else None
    return svg.board(game.states[index], last=last, **options)


@dataclass(frozen=True)
class Caption:
    """The words under a GIF frame: a ``headline`` and, for the result, a ``detail``."""

    headline: str
    detail: str = ""


def frame_captions(game) -> list[Caption]:
    """The caption of every frame of :func:`gif`: ``start``, ``6... Fb1-b2 (action 12)``
    (the action after its move number, and its number over the whole game, as every
    command says it), and last the result."""
    captions = [Caption("start")]
    captions += [Caption(f"{numbered_action(node.action, state.ply)} (action {state.ply})")
                 for node, state in zip(game.nodes, game.states[1:])]
    captions.append(result_caption(game))
    return captions


def result_caption(game) -> Caption:
    """How ``game`` ended, in the words the rest of tomis uses: ``1-0 White wins`` over the
    ruling (``Black's base destroyed (R21)``), a resignation, an agreement or an arbiter's
    decision (R23), or who is to act in an unfinished game."""
    final, result = game.final, game.result
    if final.to_move is None:                      # the rules decided it (R21, R22)
        return Caption(_result_headline(final.result), final.reason or "")
    if result == UNDECIDED:
        return Caption(f"{UNDECIDED} unfinished", f"{SIDE_TITLES[final.to_move]} to act, action {final.ply + 1}")
    return Caption(_result_headline(result), ending_words(result, game.tags.get(TERMINATION_TAG, "")))


def _result_headline(result: str) -> str:
    if result == DRAW:
        return f"{DRAW} draw"
    return f"{result} {SIDE_TITLES[WIN_RESULTS.index(result)]} wins"


def caption_svg(caption: Caption, width: int, height: int, colours: dict) -> str:
    """The caption strip as SVG, drawn by the same renderer and fonts as the board. The
    text is shrunk to fit the width (estimated from the font's average advance)."""
    lines = [(caption.headline, 0.42)] + ([(caption.detail, 0.27)] if caption.detail else [])
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}">',
             f'<rect width="{width}" height="{height}" fill="{colours["margin"]}"/>',
             f'<g font-family="{CAPTION_FONTS}" text-anchor="middle" fill="{colours["coord"]}">']
    total = sum(share for _text, share in lines)
    top = (height * (1 - total)) / 2
    for text, share in lines:
        size = min(height * share, 0.94 * width / (CAPTION_ADVANCE * max(1, len(text))))
        top += height * share
        parts.append(f'<text x="{width / 2:.1f}" y="{top - height * share * 0.22:.1f}" '
                     f'font-size="{size:.1f}">{escape(text)}</text>')
    parts.append("</g></svg>")
    return "".join(parts)


def gif(game, *, delay: float = 1.0, **options) -> bytes:
    """An animated GIF of ``game`` as bytes: see :func:`gif_parts`."""
    return b"".join(gif_parts(game, delay=delay, **options))


def gif_parts(game, *, delay: float = 1.0, **options) -> Iterator[bytes]:
    """An animated GIF of ``game``, in pieces as it is made: a frame for the start, one
    per action and one for the result, ``delay`` seconds each (the result held longer),
    each with its caption under the board (:func:`frame_captions`).

    Memory stays that of a few frames whatever the game's length: the frames are drawn,
    encoded and handed out one at a time (Pillow's own multi-frame writer keeps every
    frame until the end; here it encodes single frames only). All frames share one
    palette, made first from a few frames spread over the game, so colours do not
    flicker; each frame after the first stores only the rectangle that changed, with the
    unchanged pixels in it transparent.

    Raises :class:`MissingExtra` at once, before anything is drawn.
    """
    image_type = _pillow()
    _resvg()
    colours = dict(svg.COLORS, **(options.get("colors") or {}))
    captions = frame_captions(game)
    count = len(captions)

    def frame(index: int):
        board = _board_svg(game, min(index, len(game.nodes)), options)
        return _with_caption(image_type, svg_to_png(board), captions[index], colours)

    picks = sorted({round(i * (count - 1) / max(1, GIF_PALETTE_FRAMES - 1)) for i in range(GIF_PALETTE_FRAMES)})
    palette = _shared_palette(image_type, [frame(index) for index in picks], colours)
    step = max(20, round(delay * 1000))   # GIF delays are in 10 ms; browsers treat < 20 ms as 100
    return _encode_frames(image_type, (frame(index) for index in range(count)), palette,
                          [step] * (count - 1) + [step * FINAL_HOLD])


def _with_caption(image_type, png_bytes: bytes, caption: Caption, colours: dict):
    """The board (PNG) with its caption strip under it, as one RGB image."""
    board = image_type.open(io.BytesIO(png_bytes)).convert("RGB")
    width, height = board.size
    strip_height = max(MIN_CAPTION_HEIGHT, round(width * CAPTION_HEIGHT))
    strip = image_type.open(io.BytesIO(svg_to_png(caption_svg(caption, width, strip_height, colours))))
    picture = image_type.new("RGB", (width, height + strip_height))
    picture.paste(board, (0, 0))
    picture.paste(strip.convert("RGB"), (0, height))
    return picture


def _encode_frames(image_type, frames: Iterator, palette, durations: list[int]) -> Iterator[bytes]:
    """The GIF, piece by piece: header and first frame whole, then each frame as the
    rectangle that changed since the one before; one frame in memory at a time."""
    from PIL import GifImagePlugin, ImageChops     # the extra _pillow() found; only a GIF needs these

    previous = None
    for frame, duration in zip(frames, durations):
        indexed = frame.quantize(palette=palette, dither=image_type.Dither.NONE)
        if previous is None:
            header, _used = GifImagePlugin.getheader(indexed, info={"loop": 0, "duration": duration})
            yield b"".join(header)
            yield b"".join(GifImagePlugin.getdata(indexed, duration=duration, disposal=1))
        else:
            changed = ImageChops.difference(_indexes(image_type, previous), _indexes(image_type, indexed))
            box = changed.getbbox() or (0, 0, 1, 1)
            piece = indexed.crop(box)
            # unchanged pixels become the transparent index: they show the frame before
            piece.paste(TRANSPARENT, mask=changed.crop(box).point([255] + [0] * 255, "1"))
            yield b"".join(GifImagePlugin.getdata(piece, offset=box[:2], duration=duration,
                                                  disposal=1, transparency=TRANSPARENT))
        previous = indexed
    yield b";"                                  # the GIF trailer


def _indexes(image_type, indexed):
    """The palette indexes of a "P" image as a greyscale image, to compare two frames."""
    return image_type.frombytes("L", indexed.size, indexed.tobytes())
def _shared_palette(image_type, frames, colours: dict):
    """A palette from a few frames spread over the game (the last one included).

    A band of every drawing colour is added: a colour that covers few pixels (the red
    cross on a destroyed square) would otherwise lose its palette entry to the squares'
    anti-aliased shades.
    """
    from PIL import ImageColor      # the extra _pillow() found; only a GIF needs it

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
    # one index fewer than a GIF table holds: the last stays free for transparency
    return strip.quantize(colors=GIF_COLOURS - 1, method=image_type.Quantize.MEDIANCUT,
                          dither=image_type.Dither.NONE)
