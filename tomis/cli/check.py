"""``tomis validate``: check every game of every file, on every core, in six report formats.

The walk (:mod:`tomis.archive`) reads one game at a time and shares the work among ``-j``
processes; the report (:mod:`tomis.reports`) is written as the results come, in file and
game order, the same byte for byte whatever ``-j``.
"""

from __future__ import annotations

import sys

import click

from .archive import FILES, JOBS, QUIET, walk_with_progress
from .output import is_terminal

FORMATS = ("text", "json", "jsonl", "sarif", "junit", "github")


@click.command()
@FILES
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
              help="Report format (default text; docs/ARCHIVES.md gives each schema).")
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@QUIET
@JOBS
def validate(files, fmt, as_json, quiet, jobs):
    """Check every game in every FILE. Exit 0 all valid, 1 any invalid, 2 unreadable file.

    Text reports problems on stderr, one ``path:line:column: message`` line each (on a
    terminal followed by the line and a caret), and
    ``path: ok, N game(s)`` on stdout; --json gives {"files": [...]} (shape in the README);
    the other formats write one report on stdout (docs/ARCHIVES.md).
    """
    from ..archive.reports import make_report

    if as_json and fmt not in (None, "json"):
        raise click.UsageError(f"--json and --format {fmt} ask for two reports; give one")
    fmt = "json" if as_json else fmt or "text"
    events, err, out = walk_with_progress(files, None, jobs, quiet, "validating")
    report = make_report(fmt, out, err, quiet, carets=is_terminal(sys.stderr))
    report.start()
    for event in events:
        report.event(event)
    report.finish()
    sys.stdout.flush()
    sys.exit(report.worst)
