"""What the commands print and how: colour or not, JSON, records, caret lines, the
progress line, the list of legal actions in words.

Text from a record or a message that is printed for a person goes through
:func:`tomis.errors.visible` first (its control characters escaped); a record or a
document printed as such goes out byte for byte through :func:`echo_record`."""

from __future__ import annotations

import sys

import click

from ..util.terminal import COLOR_CHOICES, is_terminal  # noqa: F401 -- is_terminal: the CLI's one test for a tty


def display(ascii_only: bool = False, choice: str = "auto", stream=None):
    """How to draw for ``stream`` (stdout by default): the policy of :mod:`tomis.terminal`."""
    from ..util.terminal import display_for

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
    from ..notation.syntax import caret_context     # only on the error path

    context = caret_context(text, line, column)
    if not context:
        return []
    source, caret = context.split("\n")
    if not column or column < 1:
        return ["  " + source]
    return ["  " + source, "  " + caret]


def echo_record(text: str, err: bool = False) -> None:
    """Print a record (or another document) exactly as it would be written to a file.

    click.echo strips what looks like a colour code from text going into a pipe, which
    would change a tag holding one; a record is data, so nothing is stripped."""
    click.echo(text, nl=False, err=err, color=True)


def echo_json(data) -> None:
    import json

    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


PROGRESS_AFTER = 1.0          # seconds of work before a progress line is worth drawing
PROGRESS_EVERY = 0.2          # seconds between redraws


def progress_wanted(stream, quiet: bool) -> bool:
    """A progress line only for a person watching a terminal: never on a pipe or with --quiet."""
    return not quiet and is_terminal(stream)


class ProgressLine:
    """Draws a :class:`tomis.archive.Progress` on stderr, once work passes a second.

    Stands in for stderr: anything else written there first clears the line, so problem
    lines never mix with it, and a whole line written draws it again under that line at
    once. (It used to wait for the next tick, and with many small files every ``ok`` line
    cleared it a millisecond after it was drawn: it never showed.)
    """

    def __init__(self, stream, progress, enabled: bool, verb: str):
        self.stream, self.progress, self.enabled, self.verb = stream, progress, enabled, verb
        self.drawn = 0              # width of the line on screen
        self.last = 0.0

    def write(self, text: str) -> None:
        self.around(self.stream, text)

    def around(self, stream, text: str) -> None:
        """Write ``text`` to ``stream`` with the line out of its way, and after a whole line
        draw the line again under it."""
        shown = self.drawn
        self.clear()
        stream.write(text)
        if shown and text.endswith("\n"):
            stream.flush()              # stdout's line first, then the progress on stderr
            self._draw()

    def flush(self) -> None:
        self.stream.flush()

    def tick(self) -> None:
        if not self.enabled:
            return
        import time

        now = time.monotonic()
        if self.progress.elapsed < PROGRESS_AFTER or now - self.last < PROGRESS_EVERY:
            return
        self.last = now
        self._draw()

    def _draw(self) -> None:
        line = self.progress.line(self.verb)
        self.stream.write("\r" + line + " " * max(0, self.drawn - len(line)))
        self.stream.flush()
        self.drawn = len(line)

    def clear(self) -> None:
        if self.drawn:
            self.stream.write("\r" + " " * self.drawn + "\r")
            self.drawn = 0

    def beside(self, stream) -> _Beside:
        """``stream`` (stdout) as a writer that clears the line first: on a terminal both
        streams share the screen, and a report line must not land after the progress text."""
        return _Beside(self, stream)


class _Beside:
    def __init__(self, line: ProgressLine, stream):
        self.line, self.stream = line, stream

    def write(self, text: str) -> None:
        self.line.around(self.stream, text)

    def flush(self) -> None:
        self.stream.flush()


def legal_action_words(game, square: str | None) -> str:
    """The legal actions of ``game`` (a :class:`tomis.Game`), optionally only those from
    ``square``, under a line saying who acts; or how the game ended."""
    import textwrap

    from ..pictures import render

    texts = [str(action) for action in game.legal_actions(square)]   # checks the square
    position = game.position
    if game.is_over:
        return render.turn_words(position.state, game.result, termination(game))
    where = f" from {square}" if square else ""
    head = (f"{position.turn.capitalize()} to act (action {position.action_number}): "
            f"{len(texts)} legal action(s){where}")
    return "\n".join([head] + textwrap.wrap("  ".join(texts), width=72))


def digest_line(game) -> str:
    """The new Digest and why to keep it (docs/SECURITY.md)."""
    return (f"Digest after action {len(game.record.nodes)}: {game.digest} (keep it, or the "
            f"file you send: a reply that rewrites the past will not match; see --since)")


def termination(game) -> str:
    """The Termination tag of ``game`` (a :class:`tomis.Game`), which says how a game the
    rules did not decide ended when it was not a resignation or an agreement."""
    from ..notation.tags import TERMINATION_TAG

    return game.tags.get(TERMINATION_TAG, "")
