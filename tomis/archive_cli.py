"""Archive commands for club organisers: validate (on every core, six report formats),
select, dedupe, stats; and the JSON Lines views of export and replay.

Click commands that the ``tomis`` group adds (``register``); like the rest of the command
line, the only code here that prints or exits. The work is in :mod:`tomis.archive` (the
walk), :mod:`tomis.reports`, :mod:`tomis.select`, :mod:`tomis.dedupe`, :mod:`tomis.stats`
and :mod:`tomis.jsonl`. docs/ARCHIVES.md shows every command with its output.

Exit codes, as validate's: 0 fine; 1 an invalid game (validate), or an output that could
not be written; 2 a usage error or an input file that could not be read.
"""

from __future__ import annotations

import os
import sys
import time

import click

EXIT_INVALID = 1
EXIT_USAGE = 2
PROGRESS_AFTER = 1.0          # seconds of work before a progress line is worth drawing
PROGRESS_EVERY = 0.2          # seconds between redraws
PARALLEL_MIN_BYTES = 256 << 10  # less input than this is checked faster in this process

FILES = click.argument("files", nargs=-1, required=True,
                       type=click.Path(dir_okay=False, allow_dash=True))
JOBS = click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
                    help="Worker processes (default: this machine's cores; 1: all in this process).")
QUIET = click.option("--quiet", "-q", is_flag=True, help="Print only the problems; no progress line.")


# --------------------------------------------------------------------------- shared plumbing

def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class ProgressLine:
    """Draws ``progress.line()`` on stderr, for a terminal only, once work passes a second.

    Stands in for stderr: anything else written there first clears the line, so problem
    lines never mix with it; the next tick draws it again.
    """

    def __init__(self, stream, progress, enabled: bool, verb: str):
        self.stream, self.progress, self.enabled, self.verb = stream, progress, enabled, verb
        self.drawn = 0              # width of the line on screen
        self.last = 0.0

    def write(self, text: str) -> None:
        self.clear()
        self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()

    def tick(self) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if self.progress.elapsed < PROGRESS_AFTER or now - self.last < PROGRESS_EVERY:
            return
        self.last = now
        line = self.progress.line(self.verb)
        self.stream.write("\r" + line + " " * max(0, self.drawn - len(line)))
        self.stream.flush()
        self.drawn = len(line)

    def clear(self) -> None:
        if self.drawn:
            self.stream.write("\r" + " " * self.drawn + "\r")
            self.drawn = 0


def progress_wanted(stream, quiet: bool) -> bool:
    """A progress line only for a person watching a terminal: never on a pipe or with --quiet."""
    return not quiet and _is_terminal(stream)


def _walk(files, probe, jobs, quiet: bool, verb: str):
    """(events, the stderr to write to): the archive walk with its progress line."""
    from . import archive

    sizes = [archive.file_size(path) for path in files]
    progress = archive.Progress(len(files), sum(sizes))
    err = ProgressLine(sys.stderr, progress, progress_wanted(sys.stderr, quiet), verb)
    jobs = archive.default_jobs() if jobs is None else jobs
    if sum(sizes) < PARALLEL_MIN_BYTES and archive.STDIN_PATH not in files:
        jobs = 1              # starting workers would cost more than they save

    def events():
        try:
            for event in archive.walk(files, probe, jobs, progress):
                yield event
                err.tick()
        finally:
            err.clear()
    return events(), err


def _located_failure(error) -> None:
    click.echo(error.located(), err=True)


def _write_output(path: str | None, parts) -> None:
    """``parts`` (an iterable of text) to stdout, or atomically to ``path``."""
    if path is None or path == "-":
        for part in parts:
            sys.stdout.write(part)
        sys.stdout.flush()
        return
    from . import safefile

    safefile.atomic_write(path, parts)


# --------------------------------------------------------------------------- validate

@click.command("validate")
@FILES
@click.option("--format", "fmt", type=click.Choice(["text", "json", "jsonl", "sarif", "junit", "github"]),
              default=None, help="Report format (default text; docs/ARCHIVES.md gives each schema).")
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@QUIET
@JOBS
def validate(files, fmt, as_json, quiet, jobs):
    """Check every game in every FILE. Exit 0 all valid, 1 any invalid, 2 unreadable file.

    Text reports problems on stderr, one ``path:line:column: message`` line each, and
    ``path: ok, N game(s)`` on stdout; the other formats write one report on stdout.
    """
    from .reports import make_report

    if as_json and fmt not in (None, "json"):
        raise click.UsageError(f"--json and --format {fmt} ask for two reports; give one")
    fmt = "json" if as_json else fmt or "text"
    events, err = _walk(files, None, jobs, quiet, "validating")
    report = make_report(fmt, sys.stdout, err, quiet)
    report.start()
    for event in events:
        report.event(event)
    report.finish()
    sys.stdout.flush()
    sys.exit(report.worst)


# --------------------------------------------------------------------------- select

@click.command("select")
@FILES
@click.option("--tag", "tags", multiple=True, metavar="NAME=REGEX",
              help="The tag's value must match the regular expression (searched). Repeatable.")
@click.option("--player", metavar="REGEX", help="White or Black matches the regular expression.")
@click.option("--result", "results", multiple=True, type=click.Choice(["1-0", "0-1", "1/2-1/2", "*"]),
              help="One of these results. Repeatable.")
@click.option("--rules", type=click.Choice(["manual", "readme"]), help="Played under this edition.")
@click.option("--min-actions", type=click.IntRange(min=0), help="At least this many actions.")
@click.option("--max-actions", type=click.IntRange(min=0), help="At most this many actions.")
@click.option("--ended", "endings", multiple=True,
              type=click.Choice(["base-destroyed", "no-legal-action", "repetition", "quiet-actions",
                                 "resignation", "agreement", "unfinished"]),
              help="How the game ended. Repeatable (any of them).")
@click.option("--played", multiple=True, metavar="PATTERN",
              help="An action played: a prefix like Q@, or a pattern with * ? like 'F?2-*'. Repeatable (all).")
@click.option("--position", metavar="PATTERN",
              help="A position reached: 8 ranks like a position string's units, with ? and * (docs/ARCHIVES.md).")
@click.option("--invalid", is_flag=True, help="Select the games with an error, as written, instead.")
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False, allow_dash=True),
              help="Write the selected games here (atomically) instead of stdout.")
@QUIET
@JOBS
def select(files, tags, player, results, rules, min_actions, max_actions, endings, played,
           position, invalid, output, quiet, jobs):
    """Write the games of FILES that pass every filter, as canonical records."""
    from .select import SelectProbe

    filters = _filters(tags, player, results, rules, min_actions, max_actions, endings, played,
                       position, invalid)
    events, err = _walk(files, SelectProbe(filters), jobs, quiet, "selecting")
    counts = {"games": 0, "selected": 0, "skipped": 0, "files": 0, "worst": 0}

    def selected_texts():
        from .archive import FileEnd, GameOutcome

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

    _finish_output(output, selected_texts())
    if not quiet:
        skipped = f"; {counts['skipped']:,} invalid game(s) skipped (--invalid selects them)" \
            if counts["skipped"] else ""
        err.write(f"selected {counts['selected']:,} of {counts['games']:,} game(s) in "
                  f"{counts['files']:,} file(s){skipped}\n")
    sys.exit(counts["worst"])


def _filters(tags, player, results, rules, min_actions, max_actions, endings, played, position, invalid):
    from .select import (Filters, PatternError, compile_played, compile_position, regex_filter,
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


def _finish_output(output, parts) -> None:
    from .errors import FileError

    try:
        _write_output(output, parts)
    except FileError as error:
        _located_failure(error)
        sys.exit(EXIT_INVALID)


# --------------------------------------------------------------------------- dedupe

@click.command("dedupe")
@FILES
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False, allow_dash=True),
              help="Write the unique games here (atomically) instead of stdout.")
@click.option("--duplicates", "duplicates", type=click.Path(dir_okay=False),
              help="Also write the duplicates to this file.")
@QUIET
@JOBS
def dedupe(files, output, duplicates, quiet, jobs):
    """Write each game of FILES once: the first of those with the same actions and final position.

    Each duplicate is named on stderr with the game it repeats; invalid games are left out
    and named too.
    """
    import tempfile

    from .dedupe import DedupeProbe, Place, Seen

    if duplicates is not None and output is not None and os.path.abspath(duplicates) == os.path.abspath(output):
        raise click.UsageError("--duplicates and -o name the same file")
    events, err = _walk(files, DedupeProbe(), jobs, quiet, "deduplicating")
    seen = Seen()
    counts = {"games": 0, "unique": 0, "duplicates": 0, "invalid": 0, "files": 0, "worst": 0}
    spool = tempfile.SpooledTemporaryFile(max_size=4 << 20, mode="w+", encoding="utf-8") \
        if duplicates is not None else None

    def unique_texts():
        from .archive import FileEnd, GameOutcome

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
            first = seen.first(event.payload.key, Place(event.path, event.number))
            if first is None:
                yield ("\n" if counts["unique"] else "") + event.payload.text
                counts["unique"] += 1
                continue
            if not quiet:
                err.write(f"{event.path}: game {event.number} duplicates {first.path}: game {first.game}\n")
            if spool is not None:
                spool.write(("\n" if counts["duplicates"] else "") + event.payload.text)
            counts["duplicates"] += 1

    _finish_output(output, unique_texts())
    if spool is not None:
        spool.seek(0)
        _finish_output(duplicates, iter(lambda: spool.read(1 << 16), ""))
    if not quiet:
        err.write(f"{counts['games']:,} game(s) in {counts['files']:,} file(s): {counts['unique']:,} unique, "
                  f"{counts['duplicates']:,} duplicate(s), {counts['invalid']:,} invalid left out\n")
    sys.exit(counts["worst"])


# --------------------------------------------------------------------------- stats

@click.command("stats")
@FILES
@click.option("--json", "as_json", is_flag=True, help="Print the figures as one JSON object.")
@QUIET
@JOBS
def stats(files, as_json, quiet, jobs):
    """Figures for FILES: results, endings, lengths, openings, players, crosstable, ratings.

    Invalid games count only in the totals; each is named on stderr.
    """
    import json

    from .archive import FileEnd, GameOutcome
    from .stats import Stats, StatsProbe

    events, err = _walk(files, StatsProbe(), jobs, quiet, "counting")
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


# --------------------------------------------------------------------------- export / replay views

def game_of(path: str, number: int):
    """Game ``number`` of ``path`` as the reader checked it, read one game at a time.

    Raises ``click.BadParameter`` when the file holds fewer games; a TomisError (with its
    place) when the file cannot be read or that game is invalid.
    """
    from . import record, textio
    from .archive import display_name, read_source

    text = textio.extract_record(read_source(path))
    count = 0
    for count, checked in enumerate(record.iter_read(text, display_name(path)), 1):
        if count == number:
            if checked.error is not None:
                raise text.relocate(checked.error)
            return checked.game
    if count == 0:
        error = text.relocate(record.no_game_error())
        error.path = display_name(path)
        raise error
    raise click.BadParameter(f"{display_name(path)} holds {count} game(s), there is no game {number}",
                             param_hint="--game")


def export_jsonl(path: str, out=None) -> int:
    """``tomis export FILE --jsonl``: every action of every valid game of ``path`` as a row.

    Invalid games are named on stderr and left out; returns the exit code (1 if any).
    """
    from . import record, textio
    from .archive import display_name, read_source
    from .jsonl import action_rows, row_line

    out = out or sys.stdout
    text = textio.extract_record(read_source(path))
    code = 0
    for number, checked in enumerate(record.iter_read(text, display_name(path)), 1):
        if checked.error is not None:
            click.echo(text.relocate(checked.error).located() + " (left out)", err=True)
            code = EXIT_INVALID
            continue
        for row in action_rows(checked.game, number):
            out.write(row_line(row) + "\n")
    return code


def replay_jsonl(game, number: int, first: int, last: int, out=None) -> None:
    """``tomis replay --format jsonl``: the rows of actions ``first`` to ``last``."""
    from .jsonl import action_rows, row_line

    out = out or sys.stdout
    for row in action_rows(game, number, first, last):
        out.write(row_line(row) + "\n")


def annotated_heading(game, index: int) -> list[str]:
    """What ``replay`` adds for action ``index`` (0-based): its glyphs and NAGs on the
    heading line, then its comments, each on a line starting ``  {``.

    The heading is render's (``White played 11. Fb1^d3 (action 21)``) with the glyph
    written right after the action, as in the record (``Fb1^d3!``).
    """
    from . import render

    node = game.nodes[index]
    number = game.start.ply + index + 1
    lines = render.report_lines(node.report, number)
    if node.glyphs or node.nags:
        marks = node.glyphs + "".join(f" ${nag}" for nag in node.nags)
        lines[0] = lines[0].replace(f" {node.action} (action", f" {node.action}{marks} (action", 1)
    lines[1:1] = [f"  {{{comment}}}" for comment in node.comments]
    return lines


def opening_comments(game) -> list[str]:
    """The comments before the first action, for ``replay`` to show first."""
    return [f"{{{comment}}}" for comment in game.comments]


COMMANDS = (validate, select, dedupe, stats)


def register(group: click.Group, *, with_validate: bool = True) -> None:
    """Add the archive commands to ``group`` (the ``tomis`` group)."""
    for command in COMMANDS:
        if command is validate and not with_validate:
            continue
        group.add_command(command)
