"""``tomis validate``: check every game of every file, one file at a time."""

from __future__ import annotations

import os
import sys

import click

from . import EXIT_INVALID, EXIT_USAGE, Failure
from .files import load_games, no_game_error, read_record, shown
from .output import JsonList, with_progress


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--json", "as_json", is_flag=True, help="Print a JSON report and nothing else.")
@click.option("--quiet", "-q", is_flag=True, help="Print only the problems.")
def validate(files, as_json, quiet):
    """Check every game in every FILE. Exit 0 all valid, 1 any invalid, 2 unreadable file.

    Problems go to stderr, one ``path:line:column: message`` line each; with --json,
    stdout gets {"files": [...]} (shape in the README) and nothing else is printed.
    """
    # Each file is reported as soon as it is read and then forgotten, so memory stays
    # flat however many files a club archive holds.
    worst = 0
    json_out = JsonList("files") if as_json else None
    for path in with_progress(files):
        result = _validate_file_guarded(path)
        worst = max(worst, result.exit_code)
        if json_out is not None:
            json_out.add(result.as_json())
            continue
        for line in result.problem_lines():
            click.echo(line, err=True)
        if not quiet and result.exit_code == 0:
            click.echo(result.ok_line())
    if json_out is not None:
        json_out.close()
    sys.exit(worst)


class FileResult:
    """What ``validate`` found in one file.

    ``games`` holds one ``(actions, result, error)`` per game: the number of actions read
    (for a failing game, those before the failing one), the result, the first error.
    ``error`` is a file-level problem: unreadable (``unreadable`` True, exit 2), or
    readable but holding no game at all.
    """

    def __init__(self, name: str, games=(), error=None, unreadable: bool = False):
        self.name = name
        self.games = list(games)
        self.error = error
        self.unreadable = unreadable

    @property
    def exit_code(self) -> int:
        if self.unreadable:
            return EXIT_USAGE
        if self.error is not None or any(error is not None for _a, _r, error in self.games):
            return EXIT_INVALID
        return 0

    def as_json(self) -> dict:
        data = {"path": self.name, "ok": self.exit_code == 0, "games": [
            {"ok": error is None, "actions": actions, "result": result,
             "error": error_json(error)}
            for actions, result, error in self.games]}
        if self.error is not None:
            data["error"] = error_json(self.error)
        return data

    def problem_lines(self) -> list[str]:
        errors = [self.error] + [error for _a, _r, error in self.games]
        return [error.located() for error in errors if error is not None]

    def ok_line(self) -> str:
        return f"{self.name}: ok, {len(self.games)} game(s)"


def error_json(error) -> dict | None:
    """An error as validate --json shows it; ``action`` is 1-based or null."""
    if error is None:
        return None
    return {"line": error.line, "column": error.column, "action": error.action,
            "message": error.message}


def _validate_file_guarded(path: str) -> FileResult:
    """``validate_file``, with a bug of ours reported as that file's error, not a crash.

    So the other files are still checked and ``--json`` still prints one complete
    document (finding 4 of docs/SECURITY.md).
    """
    from ..errors import TomisError

    try:
        return validate_file(path)
    except Exception as bug:  # noqa: BLE001 -- any bug: this file fails, the run goes on
        if os.environ.get("TOMIS_DEBUG"):
            raise
        error = TomisError(f"internal error: {type(bug).__name__}: {_clipped_words(bug)} "
                           "(please report it; TOMIS_DEBUG=1 shows the traceback)")
        error.path = shown(path)
        return FileResult(shown(path), error=error)


def _clipped_words(error: BaseException, keep: int = 200) -> str:
    text = str(error)
    return text if len(text) <= keep else text[:keep] + "..."


def validate_file(path: str) -> FileResult:
    name = shown(path)
    try:
        source = read_record(path)
    except Failure as failure:
        return FileResult(name, error=failure.error, unreadable=True)
    try:
        checked = load_games(source)
    except Failure as failure:
        return FileResult(name, error=failure.error)
    games = []
    for item in checked:
        if item.error is not None:
            error = source.locate(item.error)
            games.append((error.action - 1 if error.action else 0, None, error))
        else:
            games.append((len(item.game.nodes), item.game.result, None))
    if not games:
        return FileResult(name, error=source.locate(no_game_error()))
    return FileResult(name, games)
