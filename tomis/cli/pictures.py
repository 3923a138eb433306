"""Pictures on the command line: ``show --svg|--png`` and ``export --html|--gif``
(``export --jsonl``, rows for scripts, is in :mod:`tomis.cli.archive`).

:func:`picture_options` and :func:`show_picture` give ``tomis show`` (in
:mod:`tomis.cli.views`) its picture options; :data:`export` is a command of its own.

Output: with ``-o OUT`` the file is replaced atomically (readers see the old picture or
the new, never half) by the writer every -o uses, which replaces only a regular file or
nothing (:func:`tomis.safefile.writable_target`); without it an SVG goes to stdout, while PNG and GIF bytes refuse a
terminal. Missing optional packages (``tomis[images]``) are one line and exit 1.
"""

from __future__ import annotations

import os
import sys

import click

from .files import (
    INPUT_PATH, OUTPUT_PATH, finite, game_option, pick_game, read_record, refuse_a_non_file,
    write_over,
)
from .output import is_terminal

DEFAULT_SIZE = 400
MAX_SIZE = 4096               # pixels a side; beyond that a board is only a memory bill
MAX_GIF_DELAY = 60.0          # seconds per frame


def _fail(message: str, code: int = 1):
    """One line on stderr and the exit code: the same shape as every other tomis error."""
    click.echo(f"tomis: {message}", err=True)
    raise click.exceptions.Exit(code)


def write_output(path: str, data) -> None:
    """Replace ``path`` with ``data`` (bytes, or pieces of bytes as they are made) all at
    once, through the one writer every -o uses (tomis.safefile); ``-`` is stdout."""
    if path == "-":
        for piece in (data,) if isinstance(data, bytes) else data:
            sys.stdout.buffer.write(piece)
        sys.stdout.buffer.flush()
        return
    write_over(path, data)


def _binary_to(output: str | None, what: str) -> str:
    """Where binary output goes: refuse a terminal, whose screen it would only garble."""
    target = output or "-"
    if target == "-" and is_terminal(sys.stdout):
        raise click.UsageError(f"a {what} is binary and stdout is a terminal; use -o FILE or redirect stdout")
    return target


def picture_options(command):
    """The picture options of ``tomis show``: ``--svg|--png [-o OUT] [--flip] [--size PX]``."""
    options = [
        click.option("--svg", "picture", flag_value="svg", help="Draw the board as SVG."),
        click.option("--png", "picture", flag_value="png", help="Draw the board as PNG (needs tomis[images])."),
        click.option("-o", "--output", type=OUTPUT_PATH, callback=refuse_a_non_file,
                     help="Write the picture to OUT (default: stdout)."),
        click.option("--flip", is_flag=True, help="Black at the bottom (the text board too)."),
        click.option("--size", type=click.IntRange(min=16, max=MAX_SIZE), default=DEFAULT_SIZE,
                     show_default=True, help="Picture width and height in pixels."),
        click.option("--legend", is_flag=True,
                     help="Add a key under the board: the pieces' shapes, the gate states, the sides."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def show_picture(state, last, *, picture: str | None, output: str | None, flip: bool,
                 size: int, legend: bool = False) -> bool:
    """Draw ``state``, reached by the action whose report is ``last`` (None at the
    start), when a picture was asked for; False otherwise."""
    if picture is None:
        if output is not None:
            raise click.UsageError("-o writes a picture: add --svg or --png")
        return False
    from ..pictures import svg

    options = dict(size=size, orientation="black" if flip else "white", last=last, legend=legend)
    if picture == "svg":
        text = svg.board(state, **options)
        if output in (None, "-"):
            click.echo(text, nl=False)
        else:
            write_output(output, text.encode("utf-8"))
        return True
    from ..pictures import images      # light: resvg and Pillow load only when a picture is made

    target = _binary_to(output, "PNG")
    try:
        data = images.png(state, **options)
    except images.MissingExtra as error:
        _fail(str(error))
    write_output(target, data)
    return True


@click.command("export")
@click.argument("file", type=INPUT_PATH)
@click.option("--html", "kind", flag_value="html", help="A replay page: one file, works offline.")
@click.option("--gif", "kind", flag_value="gif", help="An animated GIF, one frame per action (needs tomis[images]).")
@click.option("--jsonl", "kind", flag_value="jsonl",
              help="One JSON line per action of every game (or --game K), for scripts: docs/ARCHIVES.md.")
@click.option("-o", "--output", type=OUTPUT_PATH, callback=refuse_a_non_file,
              help="The file to write (- for stdout, not a terminal for a GIF; --jsonl: stdout if left out).")
@game_option
@click.option("--delay", type=click.FloatRange(min=0.02, max=MAX_GIF_DELAY), default=1.0, show_default=True,
              callback=finite, help="Seconds per action: GIF frame time, or the page's autoplay speed.")
@click.option("--legend/--no-legend", default=True, show_default=True,
              help="The key to the pieces' shapes under each board.")
@click.pass_context
def export(ctx, file, kind, output, game_number, delay, legend):
    """Export a whole game as a replay page (--html) or an animated GIF (--gif), or every
    game's actions as JSON lines (--jsonl)."""
    if kind is None:
        raise click.UsageError("choose --html or --gif (or --jsonl: a JSON line per action)")
    if kind == "jsonl":
        from click.core import ParameterSource

        from .archive import export_jsonl

        chosen = ctx.get_parameter_source("game_number") is not ParameterSource.DEFAULT
        sys.exit(export_jsonl(file, output, game_number if chosen else None))
    if output is None:
        raise click.UsageError("--html and --gif write a file: give -o OUT (- for stdout)")
    game = pick_game(read_record(file), game_number).record
    if kind == "html":
        from ..pictures import html

        text = html.page(game, delay=delay, name=_record_name(file, game_number), legend=legend)
        if output == "-":
            click.echo(text, nl=False)
        else:
            write_output(output, text.encode("utf-8"))
        return
    from ..pictures import images

    target = _binary_to(output, "GIF")
    try:
        data = images.gif_parts(game, delay=delay, size=DEFAULT_SIZE, legend=legend)   # written as it is made
    except images.MissingExtra as error:
        _fail(str(error))
    write_output(target, data)


def _record_name(file: str, game_number: int) -> str:
    """The name offered by the page's download button: the record's own, or game.tgn."""
    if file == "-":
        return "game.tgn"
    stem = os.path.splitext(os.path.basename(file))[0] or "game"
    return f"{stem}.tgn" if game_number == 1 else f"{stem}-{game_number}.tgn"
