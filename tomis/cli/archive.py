"""Archive commands for club organisers: select, dedupe, stats; and the walk with its
progress line that they share with ``validate`` (check.py).

The work is in :mod:`tomis.archive` (the walk), :mod:`tomis.select`, :mod:`tomis.dedupe`
and :mod:`tomis.stats`. docs/ARCHIVES.md shows every command with its output.
Exit codes: 0 fine; 1 an output that could not be written; 2 a usage error or an input
file that could not be read. Invalid games are skipped (select, counted) or named on
stderr (dedupe, stats): they are not failures of these commands.
"""

from __future__ import annotations

import os
import sys

import click

from .base import EXIT_INVALID, EXIT_USAGE
from .files import INPUT_PATH, OUTPUT_PATH, refuse_a_non_file
from .output import ProgressLine, progress_wanted

PARALLEL_MIN_BYTES = 256 << 10  # less input than this is checked faster in this process

FILES = click.argument("files", nargs=-1, required=True, type=INPUT_PATH)
JOBS = click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
                    help="Worker processes (default: this machine's cores; 1: all in this process).")
QUIET = click.option("--quiet", "-q", is_flag=True, help="Print only the problems; no progress line.")


# --------------------------------------------------------------------------- shared plumbing

def walk_with_progress(files, probe, jobs, quiet: bool, verb: str):
    """(events, the stderr and the stdout to write to): the archive walk with its progress
    line, which either stream clears before it writes."""
    from ..archive import walker as archive
    from .files import ask_imap_password_first

    ask_imap_password_first(files)
    sizes = [archive.file_size(path) for path in files]
    progress = archive.Progress(len(files), sum(sizes))
    err = ProgressLine(sys.stderr, progress, progress_wanted(sys.stderr, quiet), verb)
    jobs = archive.default_jobs() if jobs is None else jobs
    if sum(sizes) < PARALLEL_MIN_BYTES and archive.STDIN_PATH not in files:
        jobs = 1              # starting workers would cost more than they save

    ctx = click.get_current_context(silent=True)
    message = ctx.meta.get("tomis.message") if ctx is not None else None     # --message

    def events():
        try:
            for event in archive.walk(files, probe, jobs, progress, message=message):
                yield event
                err.tick()
        finally:
            err.clear()
    return events(), err, err.beside(sys.stdout)


def _located_failure(error) -> None:
    click.echo(error.located(), err=True)


def _write_output(path: str | None, parts, out=None) -> None:
    """``parts`` (an iterable of text) to ``out`` (stdout), or atomically to ``path``."""
    if path is None or path == "-":
        out = out or sys.stdout
        for part in parts:
            out.write(part)
        out.flush()
        return
    from .files import write_over

    write_over(path, parts)


# --------------------------------------------------------------------------- select

@click.command()
@FILES
@click.option("--tag", "tags", multiple=True, metavar="NAME=REGEX",
              help="The tag's value must match the regular expression (searched). Repeatable.")
@click.option("--player", metavar="REGEX", help="White or Black matches the regular expression.")
@click.option("--result", "results", multiple=True, type=click.Choice(["1-0", "0-1", "1/2-1/2", "*"]),
              help="One of these results. Repeatable.")
@click.option("--rules", type=click.Choice(["manual", "readme"]), help="Played under this edition.")
@click.option("--min-actions", type=click.IntRange(min=0), help="At least this many actions.")
@click.option("--max-actions", type=click.IntRange(min=0), help="At most this many actions.")
@click.option("--ended", "endings", multiple=True, metavar="HOW",
              type=click.Choice(["base-destroyed", "no-legal-action", "repetition", "quiet-actions",
                                 "resignation", "agreement", "adjudicated", "forfeit", "unfinished"]),
              help="How the game ended: base-destroyed, no-legal-action, repetition, "
                   "quiet-actions, resignation, agreement, adjudicated, forfeit (a match's "
                   "Termination tag) or unfinished. Repeatable (any of them).")
@click.option("--played", multiple=True, metavar="PATTERN",
              help="An action played: a prefix like Q@, or a pattern with * ? like 'F?2-*'. Repeatable (all).")
@click.option("--position", metavar="PATTERN",
              help="A position reached: 8 ranks like a position string's units, with ? and * (docs/ARCHIVES.md).")
@click.option("--invalid", is_flag=True, help="Select the games with an error, as written, instead.")
@click.option("-o", "--output", "output", type=OUTPUT_PATH, callback=refuse_a_non_file, metavar="FILE",
              help="Write the selected games here (atomically) instead of stdout.")
@QUIET
@JOBS
def select(files, tags, player, results, rules, min_actions, max_actions, endings, played,
           position, invalid, output, quiet, jobs):
    """Write the games of FILES that pass every filter, as canonical records."""
    from ..archive.select import SelectProbe

    filters = _filters(tags, player, results, rules, min_actions, max_actions, endings, played,
                       position, invalid)
    events, err, out = walk_with_progress(files, SelectProbe(filters), jobs, quiet, "selecting")
    counts = {"games": 0, "selected": 0, "skipped": 0, "files": 0, "worst": 0}

    def selected_texts():
        from ..archive.walker import FileEnd, GameOutcome

        for event in events:
            if isinstance(event, GameOutcome):
                counts["games"] += 1
                counts["skipped"] += event.finding is not None and not invalid
                if event.payload is not None:
                    yield ("\n" if counts["selected"] else "") + event.payload.text
                    counts["selected"] += 1
            elif isinstance(event, FileEnd):
                counts["files"] += 1
                _file_problem(event, err, counts)

    _finish_output(output, selected_texts(), out)
    if not quiet:
        skipped = f"; {counts['skipped']:,} invalid game(s) skipped (--invalid selects them)" \
            if counts["skipped"] else ""
        err.write(f"selected {counts['selected']:,} of {counts['games']:,} game(s) in "
                  f"{counts['files']:,} file(s){skipped}\n")
    sys.exit(counts["worst"])


def _filters(tags, player, results, rules, min_actions, max_actions, endings, played, position, invalid):
    from ..archive.select import (Filters, PatternError, compile_played, compile_position, regex_filter,
                         tag_filter)

    try:
        parsed_tags = tuple(tag_filter(option) for option in tags)
        player_regex = regex_filter(player, "--player") if player is not None else None
        for pattern in played:
            compile_played(pattern)
        if position is not None:
            compile_position(position)
    except PatternError as error:
        raise click.BadParameter(error.message) from None
    if min_actions is not None and max_actions is not None and max_actions < min_actions:
        raise click.BadParameter(f"--max-actions {max_actions} is below --min-actions {min_actions}",
                                 param_hint="--max-actions")
    return Filters(parsed_tags, player_regex, tuple(results), rules, min_actions, max_actions,
                   tuple(endings), tuple(played), position, invalid)


def _file_problem(end, err, counts) -> None:
    """A file-level problem (unreadable, no game) on stderr; unreadable makes the exit 2."""
    if end.finding is not None:
        err.write(end.finding.located() + "\n")
    if end.unreadable:
        counts["worst"] = EXIT_USAGE


def _finish_output(output, parts, out=None) -> None:
    from ..errors import FileError

    try:
        _write_output(output, parts, out)
    except FileError as error:
        _located_failure(error)
        sys.exit(EXIT_INVALID)


# --------------------------------------------------------------------------- dedupe

@click.command()
@FILES
@click.option("-o", "--output", "output", type=OUTPUT_PATH, callback=refuse_a_non_file, metavar="FILE",
              help="Write the unique games here (atomically) instead of stdout.")
@click.option("--duplicates", "duplicates", type=OUTPUT_PATH, callback=refuse_a_non_file, metavar="FILE",
              help="Also write the duplicates to this file.")
@QUIET
@JOBS
def dedupe(files, output, duplicates, quiet, jobs):
    """Write each game of FILES once: the first of those with the same actions and final position.

    Each duplicate is named on stderr with the game it repeats; invalid games are left out
    and named too.
    """
    import tempfile

    from ..archive.dedupe import DedupeProbe, GamePlace, Seen

    if duplicates is not None and output is not None and os.path.abspath(duplicates) == os.path.abspath(output):
        raise click.UsageError("--duplicates and -o name the same file")
    events, err, out = walk_with_progress(files, DedupeProbe(), jobs, quiet, "deduplicating")
    seen = Seen()
    counts = {"games": 0, "unique": 0, "duplicates": 0, "invalid": 0, "files": 0, "worst": 0}
    spool = tempfile.SpooledTemporaryFile(max_size=4 << 20, mode="w+", encoding="utf-8") \
        if duplicates is not None else None

    def unique_texts():
        from ..archive.walker import FileEnd, GameOutcome

        for event in events:
            if isinstance(event, FileEnd):
                counts["files"] += 1
                _file_problem(event, err, counts)
                continue
            if not isinstance(event, GameOutcome):
                continue
            counts["games"] += 1
            if event.finding is not None:
                counts["invalid"] += 1
                err.write(f"{event.finding.located()} (left out)\n")
                continue
            first = seen.first(event.payload.key, GamePlace(event.path, event.number))
            if first is None:
                yield ("\n" if counts["unique"] else "") + event.payload.text
                counts["unique"] += 1
                continue
            if not quiet:
                err.write(f"{event.path}: game {event.number} duplicates {first.path}: game {first.game}\n")
            if spool is not None:
                spool.write(("\n" if counts["duplicates"] else "") + event.payload.text)
            counts["duplicates"] += 1

    _finish_output(output, unique_texts(), out)
    if spool is not None:
        spool.seek(0)
        _finish_output(duplicates, iter(lambda: spool.read(1 << 16), ""))
    if not quiet:
        err.write(f"{counts['games']:,} game(s) in {counts['files']:,} file(s): {counts['unique']:,} unique, "
                  f"{counts['duplicates']:,} duplicate(s), {counts['invalid']:,} invalid left out\n")
    sys.exit(counts["worst"])


# --------------------------------------------------------------------------- stats

@click.command()
@FILES
@click.option("--json", "as_json", is_flag=True, help="Print the figures as one JSON object.")
@QUIET
@JOBS
def stats(files, as_json, quiet, jobs):
    """Figures for FILES: results, endings, lengths, openings, players, crosstable, ratings.

    Invalid games count only in the totals; each is named on stderr.
    """
    import json

    from ..archive.walker import FileEnd, GameOutcome
    from ..archive.stats import Stats, StatsProbe

    events, err, _out = walk_with_progress(files, StatsProbe(), jobs, quiet, "counting")
    figures = Stats()
    worst = 0
    for event in events:
        if isinstance(event, GameOutcome):
            if event.payload is None:
                figures.add_invalid()
                if not quiet and event.finding is not None:
                    err.write(event.finding.located() + "\n")
            else:
                figures.add(event.payload)
        elif isinstance(event, FileEnd):
            figures.files += 1
            if event.finding is not None:
                err.write(event.finding.located() + "\n")
            if event.unreadable:
                worst = EXIT_USAGE
    if as_json:
        click.echo(json.dumps(figures.as_json(), indent=2, ensure_ascii=False))
    else:
        click.echo(figures.text(), nl=False)
    sys.exit(worst)


# --------------------------------------------------------------------------- export --jsonl

def export_jsonl(path: str, output: str | None, game: int | None) -> int:
    """``tomis export FILE --jsonl``: every action of every valid game of ``path`` (or of
    game ``game`` only) as a JSON line, read one game at a time, to stdout or atomically
    to ``output``. Invalid games are named on stderr and left out; the exit code (1 if any).
    """
    from ..notation import record
    from ..archive.jsonl import action_rows, row_line
    from .files import read_record

    source = read_record(path)
    source.refuse_prose()
    state = {"code": 0, "games": 0}

    def rows():
        for number, checked in enumerate(record.iter_read(source.text, source.name), 1):
            state["games"] = number
            if game is not None and number != game:
                continue
            if checked.error is not None:
                click.echo(source.locate(checked.error).located() + " (left out)", err=True)
                state["code"] = EXIT_INVALID
            else:
                for row in action_rows(checked.game, number):
                    yield row_line(row) + "\n"
            if number == game:
                return
        # Raised while writing, so an -o file is never left behind half made or empty.
        if state["games"] == 0:
            raise source.failure(record.no_game_error())
        if game is not None:
            raise click.BadParameter(f"{source.name} holds {state['games']} game(s), there is no "
                                     f"game {game}", param_hint="--game")

    _finish_output(output, rows())
    return state["code"]
