"""Archives: many record files, read one game at a time, on every core, in order.

:func:`walk` reads files and yields what it finds as events, in file order and game
order, whatever the number of processes:

- :class:`FileStart` (the file's name, and notes on what was taken, skipped or repaired),
- one :class:`GameOutcome` per game (actions read, result, the first problem as a
  :class:`~tomis.findings.Finding`, and what the command's :class:`Probe` made of it),
- :class:`FileEnd` (counts, and a file-level finding: unreadable, or no game in it).

Files are read as every command reads a record (:func:`tomis.sources.read_source`: plain
text, a pasted or saved message, one message of a mailbox). Memory stays flat in the
number of games per file and per run: a game is dropped once its outcome is made, and
only a bounded window of work is in flight.

Work is shared out two ways. Small files go to worker processes by batches of names; each
worker reads, cuts and checks them whole. A big file (over ``SPLIT_CHARS``) or stdin is
read and cut into games here, and pieces of it (``PIECE_CHARS`` of text each) go to the
workers; their games come back numbered within the piece and are renumbered here. With
``jobs=1`` the very same tasks run in this process, so the events are the same, byte for
byte, for every ``jobs`` (tests/test_archive.py checks it).

The games limit of docs/SECURITY.md (``MAX_GAMES_PER_FILE``, finding 6) still holds, here
counted as the games the file is cut into: memory no longer depends on it, but it bounds
the time a file of millions of empty games can cost.
"""

from __future__ import annotations

import gc
import os
import sys
import time
from collections import deque
from contextlib import contextmanager
from collections.abc import Callable, Iterable, Iterator

from .. import sources
from ..notation import syntax as notation, record
from ..errors import FileError, TomisError, one_line
from ..util.hints import looks_like_a_record, no_record_hint
from ..util.plain import OPEN, Plain
from .findings import Finding, internal_finding, rule_id

SPLIT_CHARS = 512 << 10       # a file larger than this is cut here and shared out in pieces
PIECE_CHARS = 128 << 10        # the text of one piece of a big file (about 800 small games)
TASK_FILES = 16                # small files per task: fewer round trips between processes
TASK_BYTES = 512 << 10         # ... and no more bytes than this per task
STDIN_PATH = "-"
STDIN_NAME = "<stdin>"


# --------------------------------------------------------------------------- events

# The events and the work items below are Plain classes rather than dataclasses: this
# module loads at every validate, and a dataclass costs its making at each start.

class FileStart(Plain):
    __slots__ = ("path", "notes")

    def __init__(self, path: str, notes: tuple[str, ...] = ()):
        self.path = path            # the name as reports show it (one line, <stdin> for -)
        self.notes = notes          # what mail extraction removed (tomis.mail.quotes.extract_record)


class GameOutcome(Plain):
    """One game: ``actions`` read (for a failing game, those before the failing one)."""

    __slots__ = ("path", "number", "actions", "result", "finding", "payload", "notes")

    def __init__(self, path: str, number: int, actions: int, result: str | None,
                 finding: Finding | None = None, payload: object = None,
                 notes: tuple[str, ...] = ()):
        self.path = path
        self.number = number        # 1-based within its file
        self.actions = actions
        self.result = result        # None for a failing game
        self.finding = finding
        self.payload = payload      # what the Probe made of the game
        self.notes = notes          # valid but worth saying: actions played after a flag fell


class FileEnd(Plain):
    __slots__ = ("path", "games", "invalid", "finding", "unreadable", "size")

    def __init__(self, path: str, games: int = 0, invalid: int = 0,
                 finding: Finding | None = None, unreadable: bool = False, size: int = 0):
        self.path = path
        self.games = games
        self.invalid = invalid
        self.finding = finding      # unreadable, no game, or an internal error
        self.unreadable = unreadable
        self.size = size            # bytes (characters for stdin) read

    @property
    def ok(self) -> bool:
        return self.finding is None and self.invalid == 0

    @property
    def exit_code(self) -> int:
        """0 valid, 1 a problem, 2 unreadable: the validate exit codes."""
        return 2 if self.unreadable else 0 if self.ok else 1


Event = FileStart | GameOutcome | FileEnd


class Probe:
    """What a command wants to know of each game, computed where the game is read.

    Called in a worker process: a subclass must pickle (module-level, plain fields) and
    return something small that pickles. ``checked`` is the reader's
    :class:`tomis.record.Checked`; ``source()`` gives the game's text as written.
    The base probe wants nothing (validate).
    """

    def __call__(self, checked: record.Checked, source: Callable[[], str]) -> object:
        return None


# --------------------------------------------------------------------------- reading one file

def display_name(path: str) -> str:
    """A path as reports name it: one line however odd the name, ``<stdin>`` for ``-``."""
    return STDIN_NAME if path == STDIN_PATH else one_line(path)


def read_source(path: str, message: str | None = None):
    """What :func:`tomis.sources.read_source` finds in ``path`` (``-`` is stdin), as every
    command reads a record: plain text, a pasted or saved email, one message of a mailbox
    (``message``). Raises :class:`FileError` when unreadable, :class:`TomisError` for two
    records that diverge."""
    name = display_name(path)
    stream = None
    if path == STDIN_PATH:
        if sys.stdin is None:      # started with stdin closed (docs/SECURITY.md, finding 5)
            error = FileError("cannot read: stdin is closed; name a file or pipe the record in")
            error.path = STDIN_NAME
            raise error
        stream = sys.stdin
    return sources.read_source(path, message=message, stream=stream, name=name)


class Piece(Plain):
    """Consecutive games of a text: ``spans`` are offsets into ``text``; ``origin`` is the
    offset at which the file is at ``line``/``column`` (the first span's start)."""

    __slots__ = ("name", "text", "spans", "origin", "line", "column")

    def __init__(self, name: str, text: str, spans: list[tuple[int, int]], origin: int,
                 line: int, column: int):
        self.name = name
        self.text = text
        self.spans = spans
        self.origin = origin
        self.line = line
        self.column = column

    def detached(self) -> Piece:
        """A copy holding only its own text, to send to another process."""
        start, end = self.spans[0][0], self.spans[-1][1]
        return Piece(self.name, self.text[start:end],
                     [(a - start, b - start) for a, b in self.spans], 0, self.line, self.column)

    @property
    def size(self) -> int:
        return self.spans[-1][1] - self.spans[0][0]


class TooMany(Plain):
    """The first game past ``MAX_GAMES_PER_FILE``, starting at ``line``/``column``."""

    __slots__ = ("line", "column")

    def __init__(self, line: int, column: int):
        self.line = line
        self.column = column


def plan(text: str, name: str, piece_chars: int = PIECE_CHARS) -> Iterator[Piece | TooMany]:
    """Cut ``text`` into games and group them into pieces of about ``piece_chars``.

    Lazily: the spans of one piece at a time. After ``MAX_GAMES_PER_FILE`` games, a
    :class:`TooMany` for the next one ends the plan.
    """
    lines = _Lines(text)
    spans: list[tuple[int, int]] = []
    games = 0
    for span in notation.iter_game_spans(text):
        if games == record.MAX_GAMES_PER_FILE:
            if spans:
                yield _piece(text, name, spans, lines)
            start = _first_word(text, span[0])
            yield TooMany(lines.at(start), start - text.rfind("\n", 0, start))
            return
        games += 1
        spans.append(span)
        if span[1] - spans[0][0] >= piece_chars:
            yield _piece(text, name, spans, lines)
            spans = []
    if spans:
        yield _piece(text, name, spans, lines)


class _Lines:
    """Line numbers of offsets asked for in increasing order, counted once."""

    def __init__(self, text: str):
        self.text, self.offset, self.line = text, 0, 1

    def at(self, offset: int) -> int:
        self.line += self.text.count("\n", self.offset, offset)
        self.offset = offset
        return self.line


def _piece(text: str, name: str, spans, lines: _Lines) -> Piece:
    origin = spans[0][0]
    return Piece(name, text, spans, origin, lines.at(origin), origin - text.rfind("\n", 0, origin))


def _first_word(text: str, start: int) -> int:
    """Where the game starting at ``start`` has its first token (blanks skipped)."""
    head = text[start:start + 4096]
    return start + len(head) - len(head.lstrip())


def check_piece(piece: Piece, probe: Probe | None) -> list[GameOutcome]:
    """Check every game of ``piece``, numbered from 1 within it; places are file places
    in the text as given (the caller maps them back through mail extraction)."""
    text = piece.text
    state = {"span": None}

    def chunks():
        line, counted = piece.line, piece.origin
        for start, end in piece.spans:
            line += text.count("\n", counted, start)
            counted = start
            newline = text.rfind("\n", piece.origin, start)
            column = piece.column + (start - piece.origin) if newline < 0 else start - newline
            state["span"] = (start, end)     # the span of the chunk handed out last
            yield from notation.parse_span(text, start, end, line, column)

    outcomes = []
    # iter_check takes one chunk and checks it before asking for the next, so
    # state["span"] is always the span of the game it just yielded.
    for number, checked in enumerate(record.iter_check(chunks(), piece.name), 1):
        span = state["span"]
        payload = None
        if probe is not None:
            payload = probe(checked, lambda span=span: text[span[0]:span[1]])
        outcomes.append(_outcome(piece.name, number, checked, payload))
    return outcomes


def _flag_fall_notes(game: record.Record) -> tuple[str, ...]:
    """A note per action played after its side's time ran out (only records with a clock)."""
    if not game.flag_falls:
        return ()
    from ..notation.correspondence import flag_fall_words   # 10 ms a record without a clock never pays
    return tuple(flag_fall_words(fall) for fall in game.flag_falls)


def _outcome(name: str, number: int, checked: record.Checked, payload) -> GameOutcome:
    error = checked.error
    if error is None:
        game = checked.game
        return GameOutcome(name, number, len(game.nodes), game.result, None, payload,
                           _flag_fall_notes(game))
    prefix = f"game {number}"
    tail = error.message[len(prefix):] if error.message.startswith(prefix) else error.message
    finding = Finding(rule_id(error, tail), error.message, name, number, error.line,
                      error.column, error.action)
    return GameOutcome(name, number, error.action - 1 if error.action else 0, None, finding, payload)


# --------------------------------------------------------------------------- one file, assembled

class _File:
    """One file's games as they come back: renumbered, placed, counted."""

    def __init__(self, name: str, text: str, notes, size: int, raw: str | None = None,
                 found=None):
        self.name = name
        self.text = text            # what the reader reads
        self.found = found          # the tomis.sources.Source, which places errors in raw
        self.raw = text if raw is None else raw     # what the user has open, for carets
        self._line_at = (1, 0)      # (line, offset of its start) last looked up in raw
        self.notes = tuple(notes)
        self.size = size
        self.games = 0
        self.invalid = 0
        self.failure: Finding | None = None

    def start(self) -> FileStart:
        return FileStart(self.name, self.notes)

    def place(self, outcomes: list[GameOutcome]) -> list[GameOutcome]:
        """The piece's outcomes numbered within the file and located in the original text."""
        shift = self.games
        placed = []
        for outcome in outcomes:
            outcome.number += shift
            if outcome.finding is not None:
                outcome.finding = self._placed(outcome.finding, shift)
                self.invalid += 1
            placed.append(outcome)
        self.games += len(outcomes)
        return placed

    def _placed(self, finding: Finding, shift: int) -> Finding:
        message = finding.message
        if shift:
            prefix = f"game {finding.game}"
            if message.startswith(prefix) and message[len(prefix):len(prefix) + 1] in (",", ":"):
                message = f"game {finding.game + shift}{message[len(prefix):]}"
        error = self._relocated(TomisError(message, finding.line, finding.column))
        return finding.moved(message=error.message, game=finding.game + shift,
                             line=error.line, column=error.column,
                             source=self._source_line(error.line))

    def _source_line(self, line: int | None) -> str | None:
        """Line ``line`` of the text as saved; looked up forward from the last one asked
        for (findings come in file order), from the top otherwise."""
        if line is None or line < 1:
            return None
        known, start = self._line_at
        if line < known:
            known, start = 1, 0
        raw = self.raw
        while known < line:
            newline = raw.find("\n", start)
            if newline < 0:
                return None
            known, start = known + 1, newline + 1
        self._line_at = (known, start)
        end = raw.find("\n", start)
        return raw[start:] if end < 0 else raw[start:end]

    def _relocated(self, error: TomisError) -> TomisError:
        """``error`` placed in the file as saved (and, for mail, with its debris hint)."""
        return error if self.found is None else self.found.located(error)

    def too_many(self, where: TooMany) -> GameOutcome:
        number = self.games + 1
        error = self._relocated(record.games_limit_error(number, where.line, where.column))
        finding = Finding("N-limit", f"game {number}: {error.message}", self.name, number,
                          error.line, error.column, None)
        self.games += 1
        self.invalid += 1
        return GameOutcome(self.name, number, 0, None, finding)

    def prose(self) -> FileEnd | None:
        """The file's end at once when its text has nothing of a record in it (a letter):
        "no game found", with what a record looks like, as every command says it."""
        if not self.text or self.text.isspace() or looks_like_a_record(self.text):   # no copies
            return None
        message = f"{record.no_game_error().message}: {no_record_hint()}"
        return FileEnd(self.name, 0, 0, Finding("F-no-game", message, self.name), False, self.size)

    def end(self) -> FileEnd:
        finding = self.failure
        if finding is None and self.games == 0:
            error = self._relocated(record.no_game_error())
            finding = Finding("F-no-game", error.message, self.name, None, error.line, error.column)
        return FileEnd(self.name, self.games, self.invalid, finding, False, self.size)


def _open(path: str, message: str | None = None) -> _File | FileEnd:
    """Read ``path``: the file to assemble, or its FileEnd when it cannot be read (exit 2)
    or holds two records that diverge (exit 1), as validate has always said."""
    name = display_name(path)
    try:
        found = read_source(path, message)
    except TomisError as error:
        finding = Finding(rule_id(error), error.message, name, None, error.line, error.column)
        return FileEnd(name, finding=finding, unreadable=isinstance(error, FileError))
    # Most files are plain records, read as saved: then carets need no second copy.
    raw = None if found.raw == found.text else found.raw
    return _File(name, found.text, found.notes, len(found.raw), raw, found)


def check_file(path: str, probe: Probe | None, message: str | None = None) -> list[Event]:
    """Every event of one file, read and checked in this process (``message``: which
    message of a mailbox)."""
    opened = _open(path, message)
    if isinstance(opened, FileEnd):
        return [FileStart(opened.path), opened]
    events: list[Event] = [opened.start()]
    prose = opened.prose()
    if prose is not None:
        return events + [prose]
    try:
        for item in plan(opened.text, opened.name):
            if isinstance(item, TooMany):
                events.append(opened.too_many(item))
            else:
                events.extend(opened.place(check_piece(item, probe)))
    except Exception as bug:  # noqa: BLE001 -- a bug of ours: this file fails, the run goes on
        if os.environ.get("TOMIS_DEBUG"):
            raise
        del events[1:]
        opened.games = opened.invalid = 0
        opened.failure = internal_finding(bug, opened.name)
    events.append(opened.end())
    return events


def check_files(paths: list[str], probe: Probe | None, message: str | None) -> list[list[Event]]:
    """A worker task: several small files, each whole."""
    return [_check_file_guarded(path, probe, message) for path in paths]


def _check_file_guarded(path: str, probe: Probe | None, message: str | None) -> list[Event]:
    try:
        return check_file(path, probe, message)
    except Exception as bug:  # noqa: BLE001 -- as in check_file: this file fails, the run goes on
        if os.environ.get("TOMIS_DEBUG"):
            raise
        name = display_name(path)
        return [FileStart(name), FileEnd(name, finding=internal_finding(bug, name))]


def check_detached(piece: Piece, probe: Probe | None):
    """A worker task: one piece of a big file; a bug of ours comes back as a Finding."""
    try:
        return check_piece(piece, probe)
    except Exception as bug:  # noqa: BLE001 -- reported as the file's error by the parent
        if os.environ.get("TOMIS_DEBUG"):
            raise
        return internal_finding(bug, piece.name)


# --------------------------------------------------------------------------- the walk

class Progress(Plain):
    """Counts for a progress line: files, games, bytes, and the time left they suggest."""

    __slots__ = ("files_total", "bytes_total", "files", "games", "bytes", "started") + OPEN

    def __init__(self, files_total: int, bytes_total: int, files: int = 0, games: int = 0,
                 bytes: int = 0, started: float | None = None):
        self.files_total = files_total
        self.bytes_total = bytes_total
        self.files = files
        self.games = games
        self.bytes = bytes
        self.started = time.monotonic() if started is None else started

    def advance(self, files: int = 0, games: int = 0, size: int = 0) -> None:
        self.files += files
        self.games += games
        self.bytes += size

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def seconds_left(self) -> float | None:
        """Estimated from the share of bytes done; None until some are done."""
        if self.bytes <= 0 or self.bytes_total <= 0:
            return None
        return max(0.0, self.elapsed * (self.bytes_total - self.bytes) / self.bytes)

    def line(self, verb: str = "checking") -> str:
        """``checking: 120/2,000 files, 23,456 games, 4,321 games/s, 0:12 left``."""
        rate = self.games / self.elapsed if self.elapsed > 0 else 0.0
        left = self.seconds_left()
        tail = "" if left is None else f", {int(left) // 60}:{int(left) % 60:02d} left"
        return (f"{verb}: {self.files:,}/{self.files_total:,} files, {self.games:,} games, "
                f"{rate:,.0f} games/s{tail}")


def file_size(path: str) -> int:
    """Bytes in ``path`` (0 for stdin or anything that cannot be looked at)."""
    if path == STDIN_PATH:
        return 0
    try:
        return os.stat(path).st_size
    except (OSError, ValueError):
        return 0


def default_jobs() -> int:
    """The cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def walk(paths: Iterable[str], probe: Probe | None = None, jobs: int = 1,
         progress: Progress | None = None, split_chars: int = SPLIT_CHARS,
         piece_chars: int = PIECE_CHARS, message: str | None = None) -> Iterator[Event]:
    """Every event of every file, in order (see the module docstring).

    ``message`` picks one message of each mailbox (``--message``); ``split_chars`` and
    ``piece_chars`` size the sharing of big files (tests make them small).
    """
    paths = list(paths)
    tasks = _tasks(paths, probe, split_chars, piece_chars, message)
    executor = None
    if jobs > 1:
        try:
            executor = _executor(jobs)
        except (OSError, NotImplementedError, ImportError):
            executor = None      # no worker processes here (a sandbox): the same tasks, here
    if executor is None:
        results = ((task, _run_here(task)) for task in tasks)
        with _sparse_collection():
            yield from _assemble(results, progress)
        return
    try:
        yield from _assemble(_ordered(executor, tasks, 2 * jobs), progress)
    finally:
        executor.shutdown(wait=True, cancel_futures=True)


# The collector's first threshold (allocations between collections of young objects)
# while games are checked; CPython's default is 700.
SPARSE_GC_THRESHOLD = 50_000


def _sparse_threshold() -> tuple[int, ...]:
    """Set the sparse threshold; return the one it replaces."""
    before = gc.get_threshold()
    gc.set_threshold(SPARSE_GC_THRESHOLD, *before[1:])
    return before


@contextmanager
def _sparse_collection():
    """Collect young objects rarely while checking games, as worker processes always do.

    Each game is replayed with the collector paused (record._collector_paused), so at
    the default threshold the collector ran right after every game and scanned the whole
    game just built, all of it still alive: 6 % of validate's CPU time on
    bench/gen_games.py's corpus (5.25 s -> 4.91 s, bench/bench_archive.py). Collections
    every 50,000 allocations mostly find the earlier games already freed by reference
    counting. The threshold is restored when the walk ends.
    """
    before = _sparse_threshold()
    try:
        yield
    finally:
        gc.set_threshold(*before)


# Tasks, in file order. Those with work for a worker carry ``call`` and ``args``.
class _Task(Plain):
    __slots__ = ("kind", "call", "args", "file", "value")

    def __init__(self, kind: str, call: Callable | None = None, args: tuple = (),
                 file: _File | None = None, value: object = None):
        self.kind = kind            # "files", "head", "piece", "too-many", "tail"
        self.call = call
        self.args = args
        self.file = file
        self.value = value


def _tasks(paths: list[str], probe: Probe | None, split_chars: int, piece_chars: int,
           message: str | None) -> Iterator[_Task]:
    batch: list[str] = []
    batch_bytes = 0
    for path in paths:
        size = file_size(path)
        if path != STDIN_PATH and size <= split_chars:
            batch.append(path)
            batch_bytes += size
            if len(batch) >= TASK_FILES or batch_bytes >= TASK_BYTES:
                yield _Task("files", check_files, (batch, probe, message))
                batch, batch_bytes = [], 0
            continue
        if batch:
            yield _Task("files", check_files, (batch, probe, message))
            batch, batch_bytes = [], 0
        yield from _big_file_tasks(path, probe, piece_chars, message)
    if batch:
        yield _Task("files", check_files, (batch, probe, message))


def _big_file_tasks(path: str, probe: Probe | None, piece_chars: int,
                    message: str | None) -> Iterator[_Task]:
    opened = _open(path, message)
    if isinstance(opened, FileEnd):
        yield _Task("tail", value=opened)
        return
    yield _Task("head", file=opened)
    prose = opened.prose()
    if prose is not None:
        yield _Task("tail", value=prose, file=opened)
        return
    for item in plan(opened.text, opened.name, piece_chars):
        if isinstance(item, TooMany):
            yield _Task("too-many", file=opened, value=item)
        else:
            yield _Task("piece", check_detached, (item.detached(), probe), file=opened)
    yield _Task("tail", file=opened)


def _run_here(task: _Task):
    return task.call(*task.args) if task.call is not None else None


def _executor(jobs: int):
    """A pool of ``jobs`` worker processes, started now, while this process is still small.

    On Linux the workers are forked: they start at once with tomis already imported, and
    need nothing of ``__main__``. A fork made later would copy whatever this process holds
    by then (a 16 MiB file, say), so the pool starts every worker before any file is read.
    Elsewhere they are spawned (fresh interpreters).
    """
    # 25 ms of process-pool machinery that a validate without --jobs never loads
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    method = "fork" if sys.platform.startswith("linux") else "spawn"
    executor = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context(method),
                                   initializer=_sparse_threshold)
    executor.submit(int).result()        # a fork pool launches every worker on its first task
    return executor


def _ordered(executor, tasks: Iterator[_Task], window: int):
    """(task, result) in task order, with at most ``window`` worker tasks in flight."""
    pending: deque = deque()
    in_flight = 0
    for task in tasks:
        if task.call is not None:
            pending.append((task, executor.submit(task.call, *task.args)))
            in_flight += 1
        else:
            pending.append((task, None))
        # Hand on what heads the queue without work outstanding; wait when the window is full.
        while pending and (pending[0][1] is None or in_flight >= window):
            head, future = pending.popleft()
            if future is not None:
                in_flight -= 1
            yield head, None if future is None else future.result()
    while pending:
        head, future = pending.popleft()
        yield head, None if future is None else future.result()


def _assemble(results, progress: Progress | None) -> Iterator[Event]:
    for task, result in results:
        if task.kind == "files":
            for events in result:
                yield from events
                if progress is not None:
                    end = events[-1]
                    progress.advance(files=1, games=end.games, size=end.size)
        elif task.kind == "head":
            yield task.file.start()
        elif task.kind == "piece":
            if task.file.failure is not None:
                continue
            if isinstance(result, Finding):
                task.file.failure = result
                continue
            placed = task.file.place(result)
            if progress is not None:
                progress.advance(games=len(placed), size=task.args[0].size)
            yield from placed
        elif task.kind == "too-many":
            yield task.file.too_many(task.value)
        else:          # tail
            if task.value is not None:      # decided before any game: unreadable, or prose
                end = task.value
                if task.file is None:       # unreadable: no head was given either
                    yield FileStart(end.path)
            else:
                end = task.file.end()
            if progress is not None:
                progress.advance(files=1)
            yield end


def games(paths: Iterable[str], probe: Probe | None = None, jobs: int = 1) -> Iterator[GameOutcome]:
    """Only the games of :func:`walk`."""
    for event in walk(paths, probe, jobs):
        if isinstance(event, GameOutcome):
            yield event


__all__ = [
    "walk", "games", "plan", "check_piece", "check_file", "Probe", "Progress", "FileStart",
    "GameOutcome", "FileEnd", "Piece", "TooMany", "display_name", "read_source",
    "default_jobs", "file_size",
]
