"""What the commands print and how: colour or not, JSON (whole or streamed), caret lines,
progress bars, the list of legal actions in words."""

from __future__ import annotations

import os
import sys

import click

PROGRESS_MIN_FILES = 20        # fewer files finish before a progress bar helps


def is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def use_colour(ascii_only: bool) -> bool:
    """Colour (and arrow glyphs) only for a terminal that can show them and wants them."""
    if ascii_only or "NO_COLOR" in os.environ or not is_terminal(sys.stdout):
        return False
    encoding = (getattr(sys.stdout, "encoding", None) or "ascii").lower()
    return "utf" in encoding


def caret_lines(text: str, line: int | None, column: int | None) -> list[str]:
    """The source line an error points at and a caret under its column, indented, if both exist."""
    from ..notation import caret_context     # only on the error path

    context = caret_context(text, line, column)
    if not context:
        return []
    source, caret = context.split("\n")
    if not column or column < 1:
        return ["  " + source]
    return ["  " + source, "  " + caret]


def echo_json(data) -> None:
    import json

    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


class JsonList:
    """Writes ``{"<key>": [item, ...]}`` item by item, byte-identical to ``echo_json``."""

    def __init__(self, key: str):
        import json

        self._dumps = json.dumps
        self._key = key
        self._count = 0

    def add(self, item: dict) -> None:
        text = self._dumps(item, indent=2, ensure_ascii=False).replace("\n", "\n    ")
        head = f'{{\n  "{self._key}": [\n    ' if self._count == 0 else ",\n    "
        click.echo(head + text, nl=False)
        self._count += 1

    def close(self) -> None:
        click.echo(f'{{\n  "{self._key}": []\n}}' if self._count == 0 else "\n  ]\n}")


def with_progress(items):
    """The items, with a progress bar on stderr only for many of them and a terminal."""
    if len(items) < PROGRESS_MIN_FILES or not is_terminal(sys.stderr):
        return list(items)
    return _progress_iter(items)


def _progress_iter(items):
    with click.progressbar(items, label="validating", file=sys.stderr) as bar:
        yield from bar


def legal_action_words(game, square: str | None) -> str:
    """The legal actions of ``game`` (a :class:`tomis.Game`), optionally only those from
    ``square``, under a line saying who acts; or how the game ended."""
    import textwrap

    from .. import render

    texts = [str(action) for action in game.legal_actions(square)]   # checks the square
    position = game.position
    if game.is_over:
        return render.turn_words(position.state, game.result)
    where = f" from {square}" if square else ""
    head = (f"{position.turn.capitalize()} to act (action {position.action_number}): "
            f"{len(texts)} legal action(s){where}")
    return "\n".join([head] + textwrap.wrap("  ".join(texts), width=72))
