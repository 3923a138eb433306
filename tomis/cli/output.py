"""What the commands print and how: colour or not, JSON (whole or streamed), caret lines,
progress bars, the list of legal actions in words."""

from __future__ import annotations

import sys

import click

from ..terminal import COLOR_CHOICES, is_terminal  # noqa: F401 -- is_terminal: the CLI's one test for a tty

PROGRESS_MIN_FILES = 20        # fewer files finish before a progress bar helps


def display(ascii_only: bool = False, choice: str = "auto", stream=None):
    """How to draw for ``stream`` (stdout by default): the policy of :mod:`tomis.terminal`."""
    from ..terminal import display_for

    return display_for(sys.stdout if stream is None else stream, choice, ascii_only=ascii_only)


def colour_options(command):
    """``--color auto|always|never`` and ``--ascii``, for every command that draws a board."""
    # Applied innermost first, so --ascii is added before --color lists above it.
    command = click.option("--ascii", "ascii_only", is_flag=True,
                           help="Plain ASCII: no colour, no arrows.")(command)
    return click.option(
        "--color", "color", type=click.Choice(COLOR_CHOICES, case_sensitive=False),
        default="auto", show_default=True,
        help="Colour: auto (a terminal, unless NO_COLOR is set), always (even into a "
             "pipe; FORCE_COLOR=1 does the same) or never.")(command)


def echo_position(text: str, shown, err: bool = False) -> None:
    """Print ``text`` drawn for ``shown`` (a Display): keep its colours even into a pipe
    when colour was asked for, which click.echo would otherwise strip."""
    click.echo(text, err=err, color=shown.colour or None)


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
