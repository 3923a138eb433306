"""The HTML alternative of a message tomis writes: the text body again, for the web mail
readers (Gmail's, Outlook's) that show text/plain in a proportional font, where a board
drawn in text falls apart.

The page is the text body, escaped: its first line as a heading, every other line in
``<pre>`` blocks in a monospace font (Gmail draws ``<pre>`` monospace even where it strips
styles), and the board either as an inline PNG (``cid:``) or as a ``<pre>`` whose lines do
not wrap. Only inline styles: no ``<style>`` (some views strip it), no script, no remote
image, no stylesheet, no link. Every character of outside text (a name, relayed chat) is
escaped, so it is only text here.
"""

from __future__ import annotations

import html
import struct
from dataclasses import dataclass

MONOSPACE = "font-family: monospace; font-size: 13px; line-height: 1.25; margin: 0 0 1em 0"
TEXT_BLOCK = f"{MONOSPACE}; white-space: pre-wrap"
BOARD_BLOCK = f"{MONOSPACE}; white-space: pre"
HEADING = "font-family: sans-serif; font-size: 15px; font-weight: bold; margin: 0 0 0.5em 0"
IMAGE = "display: block; margin: 0 0 1em 0; max-width: 100%; height: auto; border: 0"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@dataclass(frozen=True)
class InlineImage:
    """The board as an image the HTML shows from the message itself: its ``cid:`` id
    (without the angle brackets) and the PNG."""

    content_id: str
    png: bytes
    alt: str = "The board (the text part draws it too)"


def page(text: str, grid: str | None = None, image: InlineImage | None = None) -> str:
    """``text`` (a message's text body) as an HTML document. ``grid``, when it stands in
    ``text``, is the board: shown as ``image`` when there is one, else as a ``<pre>`` that
    never wraps (a wrapped rank would move the columns)."""
    first, _, rest = text.partition("\n")
    parts = [f'<p style="{HEADING}">{html.escape(first)}</p>']
    if grid and grid in rest:
        before, after = rest.split(grid, 1)
        parts += [_text_block(before), _board(grid, image), _text_block(after)]
    else:
        parts.append(_text_block(rest))
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width\"></head>\n"
            "<body style=\"margin: 0; padding: 8px\">\n"
            + "\n".join(part for part in parts if part) + "\n</body></html>\n")


def _text_block(text: str) -> str:
    text = text.strip("\n")
    return f'<pre style="{TEXT_BLOCK}">{html.escape(text)}</pre>' if text.strip() else ""


def _board(grid: str, image: InlineImage | None) -> str:
    if image is None:
        return f'<pre style="{BOARD_BLOCK}">{html.escape(grid)}</pre>'
    size = png_size(image.png)
    dimensions = f' width="{size[0]}" height="{size[1]}"' if size else ""
    return (f'<img src="cid:{html.escape(image.content_id)}" alt="{html.escape(image.alt)}"'
            f'{dimensions} style="{IMAGE}">')


def png_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from a PNG's header (IHDR, the first chunk), or None for bytes
    that are not one: the reader lays the page out before the image is decoded."""
    if len(data) < 24 or not data.startswith(PNG_SIGNATURE) or data[12:16] != b"IHDR":
        return None
    width, height = struct.unpack(">II", data[16:24])
    return width, height
