"""``tomis export``: a game file in other forms for other tools.

``--jsonl``: one JSON line per action of every valid game (:mod:`tomis.jsonl`). The
pictures issue adds ``--html`` and ``--gif`` to this same command.
"""

from __future__ import annotations

import sys

import click

from . import EXIT_INVALID


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--jsonl", "as_jsonl", is_flag=True,
              help="One JSON object per action: game, number, side, action, position, destroyed.")
def export(file, as_jsonl):
    """Write FILE's games in another form (--jsonl: a row per action, docs/ARCHIVES.md)."""
    if not as_jsonl:
        raise click.UsageError("choose a form: --jsonl")
    sys.exit(export_jsonl(file))


def export_jsonl(path: str) -> int:
    """Every action of every valid game of ``path`` as a row, read one game at a time.

    Invalid games are named on stderr and left out; returns the exit code (1 if any).
    """
    from .. import record
    from ..jsonl import action_rows, row_line
    from .files import read_record

    source = read_record(path)
    code = number = 0
    for number, checked in enumerate(record.iter_read(source.text, source.name), 1):
        if checked.error is not None:
            click.echo(source.locate(checked.error).located() + " (left out)", err=True)
            code = EXIT_INVALID
            continue
        for row in action_rows(checked.game, number):
            sys.stdout.write(row_line(row) + "\n")
    if number == 0:
        raise source.failure(record.no_game_error())
    return code
