"""``tomis validate``: check every game of every file, one file at a time."""

from __future__ import annotations

import os
import sys
from typing import NamedTuple

import click

from . import EXIT_INVALID, EXIT_USAGE, Failure
from .correspondence import flag_fall_notes
from .files import INPUT_PATH, load_games, no_game_error, read_record, shown
from .output import JsonList, caret_lines, is_terminal, with_progress


@click.command()
@click.argument("files", nargs=-1, required=True, type=INPUT_PATH)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON report and nothing else.")
@click.option("--quiet", "-q", is_flag=True, help="Print only the problems.")
def validate(files, as_json, quiet):
    """Check every game in every FILE. Exit 0 all valid, 1 any invalid, 2 unreadable file.

    Problems go to stderr, one ``path:line:column: message`` line each (on a terminal
    followed by the line and a caret); with --json, stdout gets {"files": [...]} (shape
    in the README) and nothing else is printed.
    """
    # Each file is reported as soon as it is read and then forgotten, so memory stays
    # flat however many files a club archive holds.
    worst = 0
    json_out = JsonList("files") if as_json else None
    carets = is_terminal(sys.stderr)
    for path in with_progress(files):
        result = _validate_file_guarded(path)
        worst = max(worst, result.exit_code)
        if json_out is not None:
            json_out.add(result.as_json())
            continue
        for line in result.problem_lines(carets) + result.notes:
            click.echo(line, err=True)
        if not quiet and result.exit_code == 0:
            click.echo(result.ok_line())
    if json_out is not None:
        json_out.close()
    sys.exit(worst)


class GameResult(NamedTuple):
    """What ``validate`` found in one game."""

    actions: int            # the actions read (for a failing game, those before the failing one)
    result: str | None      # None for a failing game
    error: object | None    # the first TomisError, located in the file


class FileResult:
    """What ``validate`` found in one file.

    ``games`` holds a :class:`GameResult` per game. ``error`` is a file-level problem: unreadable (``unreadable`` True, exit 2), or
    readable but holding no game at all.
    """

    def __init__(self, name: str, games=(), error=None, unreadable: bool = False,
                 text: str | None = None, notes=()):
        self.name = name
        self.games = list(games)
        self.error = error
        self.unreadable = unreadable
        self.notes = list(notes)    # what is valid but worth saying: flag falls
        self.text = text            # the text as read, for caret lines; None if unreadable

    @property
    def exit_code(self) -> int:
        if self.unreadable:
            return EXIT_USAGE
        if self.error is not None or any(game.error is not None for game in self.games):
            return EXIT_INVALID
        return 0

    def as_json(self) -> dict:
        data = {"path": self.name, "ok": self.exit_code == 0, "games": [
            {"ok": game.error is None, "actions": game.actions, "result": game.result,
             "error": error_json(game.error)}
            for game in self.games]}
        if self.error is not None:
            data["error"] = error_json(self.error)
        return data

    def problem_lines(self, carets: bool = False) -> list[str]:
        """A located line per problem; with ``carets``, each followed by the offending
        source line and a caret under the column, as every other command shows them."""
        lines = []
        for error in [self.error] + [game.error for game in self.games]:
            if error is None:
                continue
            lines.append(error.located())
            if carets and self.text is not None:
                lines += caret_lines(self.text, error.line, error.column)
        return lines

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
        return FileResult(name, error=failure.error, unreadable=failure.code == EXIT_USAGE)
    try:
        checked = load_games(source)
    except Failure as failure:
        return FileResult(name, error=failure.error, text=source.raw)
    games, notes = [], []
    for number, item in enumerate(checked, 1):
        if item.error is not None:
            error = source.locate(item.error)
            games.append(GameResult(error.action - 1 if error.action else 0, None, error))
        else:
            games.append(GameResult(len(item.game.nodes), item.game.result, None))
            notes.extend(f"{name}: note: game {number}: {words}"
                         for words in flag_fall_notes(item.game))
    if not games:
        return FileResult(name, error=source.locate(no_game_error()))
    return FileResult(name, games, text=source.raw, notes=notes)
