"""Conditional lines ``[%if THEIRS MINE ...]``: storing, checking, firing, cancelling.

Pure (no I/O). A line is stored after an action of side X and says: "if my opponent
plays THEIRS, I play MINE", pair after pair (docs/NOTATION.md, "Conditional lines").
This module parses a line, checks it is playable from the position it follows (with
the rules (:func:`tomis.rules.apply`, so the engine names the ruling of any illegal action), and
follows the main line of a record to decide which lines fired, which were cancelled,
which are still pending, and whether every fired line was honoured.

Actions are handled as their canonical texts (``str(action)``), so two spellings of one
action compare equal and lines go into the Digest as they are checked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, NamedTuple, Sequence

from ..rules.board import SIDE_TITLES
from ..rules.core import apply
from ..errors import NotationError, RecordError, TomisError
from .syntax import parse_action

if TYPE_CHECKING:
    from ..rules.core import State

COMMAND = "if"


class Line(NamedTuple):
    """A binding line: ``actions`` alternate THEIRS, MINE, ... (canonical texts).

    ``stored_at`` is the number of the action it follows (played by ``side``, 0 White,
    1 Black); ``next`` indexes the THEIRS it waits for (0 when stored, 2 after a firing).
    """

    side: int
    stored_at: int
    actions: tuple[str, ...]
    next: int = 0

    @property
    def waiting_for(self) -> str:
        return self.actions[self.next]

    @property
    def reply(self) -> str:
        return self.actions[self.next + 1]

    @property
    def rest(self) -> tuple[str, ...]:
        """The pairs not played yet, THEIRS first."""
        return self.actions[self.next:]

    def text(self) -> str:
        """``[%if Fa2-a3 Fh7-h6]``, as the record writes it (the whole line as stored)."""
        return f"[%{COMMAND} {' '.join(self.actions)}]"


class Fired(NamedTuple):
    """A line that fired: ``side`` must play ``reply`` as action ``number``."""

    line: Line
    number: int

    @property
    def side(self) -> int:
        return self.line.side

    @property
    def reply(self) -> str:
        return self.line.reply


def parse_line(arguments: str) -> tuple[str, ...]:
    """The canonical action texts of ``[%if ...]``'s arguments, checked for form only.

    Raises :class:`NotationError` whose ``column`` is the 1-based column of the fault in
    ``arguments`` (the caller adds where the arguments start).

    >>> parse_line("Fa2-a3  Fh7-h6")
    ('Fa2-a3', 'Fh7-h6')
    """
    words = _words(arguments)
    if not words:
        raise NotationError("a conditional line [%if THEIRS MINE ...] names at least one pair "
                            "of actions, found none", 1, 1)
    texts = []
    for column, word in words:
        try:
            action = parse_action(word)
        except NotationError as error:
            raise NotationError(f"in a conditional line: {error.message}", 1,
                                column + (error.column or 1) - 1) from None
        texts.append(str(action))
    if len(texts) % 2:
        column, word = words[-1]
        raise NotationError(f"a conditional line holds pairs THEIRS MINE; its last action "
                            f"'{word}' has no reply after it", 1, column)
    return tuple(texts)


def _words(text: str) -> list[tuple[int, str]]:
    """(1-based column, word) of each blank-separated word."""
    out, column = [], 0
    for part in text.split(" "):
        if part:
            out.append((column + 1, part))
        column += len(part) + 1
    return out


def check_playable(state: State, actions: Sequence[str], line: int | None = None) -> None:
    """Refuse a line whose actions cannot all be played, in turn, from ``state``.

    ``state`` is the one right after the action the line follows. The error is the
    engine's (it names the action's number, side and ruling), after
    ``the conditional line [%if ...] cannot be played: ``; it stands at column 1 of
    ``line`` when one is given (where the caller wrote the line).
    """
    where = (line, 1) if line is not None else ()
    for index, text in enumerate(actions):
        try:
            state, _ = apply(state, parse_action(text))
        except TomisError as error:
            raise RecordError(f"the conditional line [%{COMMAND} {' '.join(actions)}] cannot be "
                              f"played: {_engine_words(state, text, error)}", *where) from None
        if state.is_over and index < len(actions) - 1:
            raise RecordError(f"the conditional line [%{COMMAND} {' '.join(actions)}] cannot be "
                              f"played: action {state.ply} {text} ends the game "
                              f"({state.result}: {state.reason}), but the line goes on", *where)


def _engine_words(state: State, text: str, error: TomisError) -> str:
    """The engine's message, named like every message about one action."""
    message = error.message
    if message.startswith("action "):
        return message
    number = state.ply + 1
    side = SIDE_TITLES[(number - 1) & 1]
    return f"action {number} ({side}) {text}: {message}"


class NotHonoured(RecordError):
    """A fired line whose reply was not played; ``number`` is the action at fault."""

    def __init__(self, message: str, number: int):
        super().__init__(message)
        self.number = number


class Follow(NamedTuple):
    """Where the lines stand after the main line: pending per side, and a reply owed."""

    pending: tuple[tuple[Line, ...], tuple[Line, ...]]
    owed: Fired | None


class Walk:
    """The one walk over conditional lines: each side's pending lines, and the reply a
    fired line owes, as actions are played one by one. :func:`follow` takes it along a
    record's main line; the referee, whose lines are private, after each action it plays.
    """

    def __init__(self, pending: Sequence[Sequence[Line]] = ((), ())):
        self.pending: list[list[Line]] = [list(pending[0]), list(pending[1])]
        self.owed: Fired | None = None

    def played(self, number: int, side: int, text: str) -> Fired | None:
        """Action ``number``, ``side``'s ``text``, was played; the reply now owed, if any.

        When a reply was owed, ``text`` must be it (else :class:`NotHonoured`), and the
        line keeps its rest. Otherwise a pending line of the opponent that waits for
        ``text`` fires, and every other line of the opponent is cancelled.
        """
        if self.owed is not None:
            if text != self.owed.reply:
                raise NotHonoured(_not_honoured(self.owed, text), number)
            self.pending[side] = after_reply(self.owed.line)
            self.owed = None
        else:
            fired = fire(self.pending[1 - side], text)
            self.pending[1 - side] = []      # every line that does not fire is cancelled
            self.owed = None if fired is None else Fired(fired, number + 1)
        return self.owed

    def store(self, line: Line) -> None:
        """Add ``line`` to its side's pending lines (:func:`store`: :class:`Clash`)."""
        store(self.pending[line.side], line)


def follow(first: int, actions: Sequence[str],
           stored: dict[int, Iterable[tuple[str, ...]]]) -> Follow:
    """Follow the main line and every line stored on it; refuse a line not honoured.

    ``first`` is the number of ``actions[0]`` (1 unless a Position tag starts later);
    ``stored[n]`` are the lines stored after action ``n`` (canonical texts, pairs).
    Raises :class:`NotHonoured` for a fired line whose reply was not the next action,
    and :class:`Clash` for a line whose first THEIRS another pending line of the
    same side already waits for. A reply owed at the end (the record stops between a
    line's THEIRS and its MINE) is returned in :attr:`Follow.owed`, for the caller to
    play (``tomis move``) or refuse (a finished record).
    """
    walk = Walk()
    for offset, text in enumerate(actions):
        number = first + offset
        side = (number - 1) & 1
        walk.played(number, side, text)
        for actions_stored in stored.get(number, ()):
            walk.store(Line(side, number, tuple(actions_stored)))
    return Follow((tuple(walk.pending[0]), tuple(walk.pending[1])), walk.owed)


def follow_record(game, lines: dict[int, Iterable[tuple[str, ...]]]) -> Follow:
    """:func:`follow` along the main line of the record ``game``, ``lines[i]`` being the
    lines stored after its ``i``-th action (1-based, as the correspondence facts count)."""
    stored = {game.start.ply + index: each for index, each in lines.items()}
    return follow(game.start.ply + 1, [str(node.action) for node in game.nodes], stored)


def fire(lines: Sequence[Line], text: str) -> Line | None:
    """The one of a side's pending ``lines`` that the opponent's action ``text`` fires, or
    None. Either way the others are cancelled: the caller drops them."""
    return next((line for line in lines if line.waiting_for == text), None)


def after_reply(line: Line) -> list[Line]:
    """What stays pending of a fired ``line`` once its reply is played: its rest, if any."""
    rest = line._replace(next=line.next + 2)
    return [rest] if rest.next < len(rest.actions) else []


class Clash(RecordError):
    """Two pending lines of one side wait for the same action; ``number``: where the later was stored."""

    def __init__(self, message: str, number: int):
        super().__init__(message)
        self.number = number


def store(lines: list[Line], line: Line) -> None:
    """Add ``line`` to its side's pending ``lines``; raises :class:`Clash` when another
    already waits for the same action (at most one line answers an action)."""
    for other in lines:
        if other.waiting_for == line.waiting_for:
            raise Clash(
                f"two conditional lines of {SIDE_TITLES[line.side]} wait for {line.waiting_for}: "
                f"[%{COMMAND} {' '.join(line.actions)}] and [%{COMMAND} {' '.join(other.rest)}]; "
                f"at most one line may answer an action", line.stored_at)
    lines.append(line)


def _not_honoured(owed: Fired, found: str) -> str:
    line = owed.line
    return (f"the conditional line [%{COMMAND} {' '.join(line.actions)}] stored after action "
            f"{line.stored_at} binds {SIDE_TITLES[line.side]} to answer {line.waiting_for} "
            f"with {line.reply}, but {found} was played; the line was not honoured")


def unfinished_reply(owed: Fired) -> str:
    """The message for a record that stops between a fired line's THEIRS and its MINE."""
    line = owed.line
    return (f"the conditional line [%{COMMAND} {' '.join(line.actions)}] stored after action "
            f"{line.stored_at} binds {SIDE_TITLES[line.side]} to answer {line.waiting_for} "
            f"with {line.reply} at once, but the record stops there; the line was not honoured")
