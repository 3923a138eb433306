"""The library face of tomis: :class:`Position`, :class:`Game` and :func:`read_games`.

Everything a script needs to replay, check, build and write game records, in the words a
player uses: sides are ``"white"``/``"black"``, squares ``"e4"``, results ``"1-0"``.
The layers below (:mod:`tomis.rules` with its integer squares, :mod:`tomis.record`) stay
available for speed-minded code; this module only wraps them.

- A :class:`Position` is immutable and hashable. :meth:`Position.play` returns a new one
  whose :attr:`~Position.last` says what the action did.
- A :class:`Game` is a record: tags, the actions with their annotations, the result.
  ``str(game)`` is the canonical text, byte for byte what ``tomis fmt`` writes.
- :func:`read_games` reads a file one game at a time. A game with an error is still
  yielded, with ``game.error`` set and the actions read before the error.

Errors are the :mod:`tomis.errors` classes: :class:`~tomis.errors.IllegalActionError`
(an action the rules refuse; the message names the ruling, as the CLI prints it),
:class:`~tomis.errors.NotationError`, :class:`~tomis.errors.PositionError`,
:class:`~tomis.errors.RecordError`, :class:`~tomis.errors.FileError`, all
:class:`~tomis.errors.TomisError`.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterator, Sequence
from typing import IO, NamedTuple, Union

from .notation import record as _record
from .notation.ending import GameEnding, ending_of, note_of
from .notation.tags import ABANDONED, ADJUDICATION, NORMAL, TERMINATION_TAG
from .rules.actions import Action
from .rules.board import (
    DECIDED_RESULTS, DIRECTION_NAMES, DRAW, GATE_STATE_NAMES, PIECE_NAMES, RESULTS, SIDE_NAMES,
    SIDE_TITLES, SQUARE_NAMES, WIN_RESULTS, parse_square,
)
from .errors import FileError, PositionError, RecordError, TomisError
from .notation.syntax import GLYPHS, parse_action
from .rules.position import from_string, to_json, to_string
from .rules.core import EDITIONS, Report, State, apply, legal_actions, new_game
from .util.textio import MAX_COMMENT

__all__ = [
    "Position", "Game", "Node", "LastAction", "LateAction", "Removed", "Unit", "GateInfo",
    "read_games", "read_game", "SIDES", "RESULTS",
]

# The names scripts use, defined once in tomis.rules.board (RESULTS is re-exported as is).
SIDES = SIDE_NAMES
_RECORD_SUFFIXES = (".tgn", ".pgn", ".txt", ".eml", ".mbox")
_INPUT = "<input>"                 # how errors name a record that came from no file
_MOVE_NUMBER = re.compile(r"\d+\.(\.\.)?")     # "12." or "12...", skipped in a line of actions

# What read_games takes: a path, an open file, or the text itself.
Readable = Union[str, "os.PathLike[str]", IO[str], IO[bytes]]


# --------------------------------------------------------------------------- small values

class Removed(NamedTuple):
    """A piece that left the board: ``Removed("b4", "black", "frigate")``.

    ``piece`` is ``"gate"`` for a jump gate destroyed in combat (R19).
    """

    square: str
    side: str
    piece: str


class LastAction(NamedTuple):
    """What one action did (``Position.last``).

    ``captured``: what the action itself destroyed (a gate strike, R13, or a gate-jump
    capture, R12); ``destroyed``: what the combat after it destroyed (R15-R19), by square;
    ``unlocked``: sides whose flagship became deployable by it (R20); ``result``: the
    result if the action ended the game (R21, R22), else None, with ``reason`` saying why.
    """

    number: int
    side: str
    action: Action
    captured: tuple[Removed, ...]
    destroyed: tuple[Removed, ...]
    unlocked: tuple[str, ...]
    result: str | None
    reason: str | None


class Unit(NamedTuple):
    """A unit on the board, in the words of ``show --json``."""

    square: str
    side: str
    piece: str


class GateInfo(NamedTuple):
    """A gate on the board: ``state`` is inactive, active or jump; ``direction`` only for a jump gate."""

    square: str
    side: str
    state: str
    markers: int
    direction: str | None


class Node(NamedTuple):
    """One action of a game as recorded, with the annotations that follow it.

    ``offer``: the action carries ``(=)``, a draw offer (R23). ``variations``: the side
    lines ``( ... )`` written after it, each an alternative to this action (a tuple of
    nodes from this action's number on, which may hold variations in turn).
    """

    number: int                  # the action number, 1-based over the whole game
    side: str
    action: Action
    glyphs: str                  # "!", "?!", ... or ""
    nags: tuple[int, ...]
    comments: tuple[str, ...]
    offer: bool = False
    variations: tuple[tuple[Node, ...], ...] = ()


class LateAction(NamedTuple):
    """An action played after its side's time ran out at ``deadline`` (a UTC time)."""

    number: int
    side: str
    deadline: str


def _removed(destroyed) -> tuple[Removed, ...]:
    return tuple(Removed(SQUARE_NAMES[d.square], SIDE_NAMES[d.side], PIECE_NAMES[d.piece])
                 for d in destroyed)


def _last_action(report: Report, number: int) -> LastAction:
    ended = report.result != "*"
    return LastAction(
        number, SIDE_NAMES[report.side], report.action, _removed(report.captured),
        _removed(report.destroyed), tuple(SIDE_NAMES[side] for side in report.unlocked),
        report.result if ended else None, report.reason if ended else None)


def _reached(state: State, report: Report) -> Position:
    """``state`` as a Position that knows what the action that led to it (``report``) did."""
    return Position.from_state(state, _last_action(report, state.ply))


def _side(side: str) -> str:
    """``"white"`` or ``"black"`` from any capitalisation; anything else is refused."""
    name = str(side).strip().lower()
    if name not in SIDES:
        raise RecordError(f"a side is white or black, not {side!r}")
    return name


# --------------------------------------------------------------------------- positions

class Position:
    """A position of a game: the board, the reserves, the unlocks and whose turn it is.

    ``Position()`` is the empty board of the manual edition, ``Position(rules="readme")``
    that of the readme edition (E1-E4); :meth:`from_string` reads a position string.
    Positions are immutable; :meth:`play` returns a new one. Two positions are equal when
    everything the rules look at is equal (board, reserves, unlocks, side to act, action
    number, the quiet-action count and the result); equal positions hash alike.

    >>> pos = Position()
    >>> pos.turn, pos.action_number, pos.result
    ('white', 1, '*')
    >>> after = pos.play("B@e1")
    >>> after.turn, str(after.last.action)
    ('black', 'B@e1')
    """

    __slots__ = ("_state", "_last")

    def __init__(self, rules: str = "manual"):
        if rules not in EDITIONS:
            raise PositionError(f"rules must be manual or readme, found {rules!r} (E1-E4)")
        object.__setattr__(self, "_state", new_game(rules))
        object.__setattr__(self, "_last", None)

    @classmethod
    def from_state(cls, state: State, last: LastAction | None = None) -> Position:
        """A position around an engine :class:`tomis.rules.State` (which must not be changed after)."""
        self = object.__new__(cls)
        object.__setattr__(self, "_state", state)
        object.__setattr__(self, "_last", last)
        return self

    @classmethod
    def from_string(cls, text: str) -> Position:
        """The position a position string describes (docs/NOTATION.md); raises :class:`PositionError`.

        >>> Position.from_string("8/8/8/8/8/8/8/8 - w 1448221/1448221 - manual 1 0") == Position()
        True
        """
        return cls.from_state(from_string(text))

    def __setattr__(self, name, value):
        raise AttributeError(f"a Position is immutable; cannot set {name!r}")

    # -- what it is ----------------------------------------------------------
    @property
    def state(self) -> State:
        """The engine's state (integer squares; for code that needs speed). Do not change it."""
        return self._state

    @property
    def rules(self) -> str:
        """The edition: ``"manual"`` or ``"readme"`` (E1-E4)."""
        return self._state.edition_name

    @property
    def turn(self) -> str | None:
        """``"white"`` or ``"black"``, the side to act; ``None`` once the game is decided."""
        side = self._state.to_move
        return None if side is None else SIDE_NAMES[side]

    @property
    def result(self) -> str:
        """``"*"`` while the game goes on, else ``"1-0"``, ``"0-1"`` or ``"1/2-1/2"``."""
        return self._state.result

    @property
    def reason(self) -> str | None:
        """Why the game ended (names the ruling, e.g. R21), or None."""
        return self._state.reason

    @property
    def is_over(self) -> bool:
        """Decided by the rules (R21, R22). A resignation is a fact of the record, not of a position."""
        return self._state.to_move is None

    @property
    def action_number(self) -> int:
        """The number of the next action (1-based over the whole game; odd ones are White's, R4)."""
        return self._state.ply + 1

    @property
    def last(self) -> LastAction | None:
        """What the action that led here did, or None for a position not reached by :meth:`play`."""
        return self._last

    def units(self) -> list[Unit]:
        """The units on the board, by square (a1, b1, ... h8)."""
        return [Unit(SQUARE_NAMES[square], SIDE_NAMES[code >> 3], PIECE_NAMES[code & 7])
                for square, code in sorted(self._state.units.items())]

    def gates(self) -> list[GateInfo]:
        """The gates on the board, by square."""
        gates = sorted((g for g in self._state.gates if g is not None), key=lambda g: g[0])
        return [GateInfo(SQUARE_NAMES[g[0]], SIDE_NAMES[g[1]], GATE_STATE_NAMES[g[2]], g[3],
                         DIRECTION_NAMES[g[4]] if g[2] == 2 else None) for g in gates]

    def reserve(self, side: str) -> dict[str, int]:
        """What ``side`` still holds off the board, by piece name (R2)."""
        counts = self._state.reserve[SIDES.index(_side(side))]
        return dict(zip(PIECE_NAMES, counts))

    # -- what can be done ------------------------------------------------------
    def legal_actions(self) -> list[Action]:
        """The legal actions, in the order ``tomis moves`` prints them (by their text).

        Empty once the game is decided.

        >>> [str(a) for a in Position().legal_actions()][:3]
        ['B@a1', 'B@b1', 'B@c1']
        """
        return sorted(legal_actions(self._state), key=str)

    def is_legal(self, action: Action | str) -> bool:
        """Whether :meth:`play` would accept ``action`` (False for unreadable text too)."""
        try:
            self.play(action)
        except TomisError:
            return False
        return True

    def play(self, action: Action | str) -> Position:
        """The position after ``action`` (an :class:`~tomis.actions.Action` or its notation).

        Raises :class:`~tomis.errors.NotationError` for text that is not an action and
        :class:`~tomis.errors.IllegalActionError` for an action the rules refuse, with
        the message ``tomis move`` prints (it names the ruling).
        """
        if isinstance(action, str):
            action = parse_action(action)
        return _reached(*apply(self._state, action))

    # -- views -------------------------------------------------------------------
    def to_string(self) -> str:
        """The position string (docs/NOTATION.md); :meth:`from_string` reads it back."""
        return to_string(self._state)

    def to_json(self) -> dict:
        """The JSON view, the shape ``tomis show --json`` prints."""
        return to_json(self._state)

    def __str__(self) -> str:
        """The text diagram ``tomis show --ascii`` draws."""
        from .pictures.render import board     # only for scripts that print a board
        return board(self._state)

    def __repr__(self) -> str:
        return f"Position.from_string({self.to_string()!r})"

    def _repr_svg_(self) -> str:
        """The board as SVG (:func:`tomis.svg.board`), with the last action: notebooks show this."""
        from .pictures.svg import board        # only for a notebook or a script that draws
        return board(self, last=self._last)

    def __eq__(self, other) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return self._state == other._state

    def __hash__(self) -> int:
        return hash(self._state)


# --------------------------------------------------------------------------- games

class Game:
    """A game record: tags, a start position, the actions with their annotations, a result.

    ``Game(white="Ana", black="Bo", event="Club ladder")`` starts a new record with the
    seven roster tags (``?`` where not given) and ``Rules``; ``position="..."`` starts it
    from a position string (a ``Position`` tag). Other keywords become tags as written
    (``Annotator="Cy"``).

    >>> game = Game(white="Ana", black="Bo")
    >>> game.play("B@e1").turn
    'black'
    >>> game.tags["White"], len(game.actions), game.result
    ('Ana', 1, '*')
    """

    _ROSTER_KEYWORDS = ("event", "site", "date", "round", "position")

    def __init__(self, white: str | None = None, black: str | None = None,
                 rules: str = "manual", **tags: str):
        roster = {key: tags.pop(key) for key in self._ROSTER_KEYWORDS if key in tags}
        record = _record.new_record(white=white, black=black, rules=rules, **roster)
        for name, value in tags.items():
            _check_tag(name, value)
            record.tags[name] = str(value)
        self._record = record
        self._error: TomisError | None = None

    @classmethod
    def from_record(cls, record: _record.Game) -> Game:
        """A Game around a :mod:`tomis.record` game read without error (shared, not copied).

        For code that reads with :mod:`tomis.record` itself, as the command line does.
        """
        return cls._from_checked(_record.Checked(record, None))

    @classmethod
    def _from_checked(cls, checked: _record.Checked) -> Game:
        self = object.__new__(cls)
        rec = checked.game
        if rec is None:       # the parser stopped before the game's start was known
            rec = _record.Game({}, [], "*", new_game("manual"), [new_game("manual")], [],
                               checked.error.line or 1)
        self._record = rec
        self._error = checked.error
        return self

    # -- what it holds -------------------------------------------------------------
    @property
    def error(self) -> TomisError | None:
        """The game's first problem (with ``line``, ``column``, ``action``), or None.

        A game read with an error holds the actions before it.
        """
        return self._error

    @property
    def tags(self) -> dict[str, str]:
        """The tags, the seven-tag roster first, then Rules, then the rest by name.

        The dictionary is the game's own: changing a value changes the record. The
        ``Digest`` tag is not kept (it is checked on reading and written fresh).
        """
        order = _record.tag_order(self._record.tags)
        if list(self._record.tags) != order:
            self._record.tags = {name: self._record.tags[name] for name in order}
        return self._record.tags

    @property
    def actions(self) -> list[Action]:
        """The actions in order (a new list each time)."""
        return [node.action for node in self._record.nodes]

    @property
    def nodes(self) -> list[Node]:
        """Each action with its number, side, glyphs, NAGs, comments, offer and variations.

        >>> game = read_game("1. B@e1 (=) B@d8 (1... B@a8 {or the corner}) *")
        >>> [(node.number, str(node.action), node.offer) for node in game.nodes]
        [(1, 'B@e1', True), (2, 'B@d8', False)]
        >>> side_line = game.nodes[1].variations[0]
        >>> [(node.number, str(node.action), node.comments) for node in side_line]
        [(2, 'B@a8', ('or the corner',))]
        """
        return list(_public_nodes(self._record.nodes, self._record.start.ply + 1))

    @property
    def comments(self) -> list[str]:
        """The comments before the first action (those after an action are in :attr:`nodes`)."""
        return list(self._record.comments)

    @property
    def start(self) -> Position:
        """The position the game starts from (the empty board unless a Position tag says otherwise)."""
        return Position.from_state(self._record.start)

    def positions(self) -> list[Position]:
        """Every position from the start to the final one: one more than there are actions.

        Each after the first carries :attr:`Position.last`.
        """
        rec = self._record
        out = [Position.from_state(rec.start)]
        for state, node in zip(rec.states[1:], rec.nodes):
            out.append(_reached(state, node.report))
        return out

    @property
    def position(self) -> Position:
        """The final position (what ``tomis show`` draws)."""
        rec = self._record
        if not rec.nodes:
            return Position.from_state(rec.final)
        return _reached(rec.final, rec.nodes[-1].report)

    @property
    def result(self) -> str:
        """``*``, ``1-0``, ``0-1`` or ``1/2-1/2``: decided by the rules, or by resignation or agreement (R23)."""
        return self._record.result

    @property
    def is_over(self) -> bool:
        """Decided by the rules or ended by resignation or agreement (R23)."""
        return self._record.result != "*" or self._record.final.is_over

    @property
    def ending(self) -> GameEnding | None:
        """How the game ended, or None while it goes on: a :class:`GameEnding` whose
        ``word`` is ``resignation``, ``agreement``, ``base destroyed``, ``no action``,
        ``repetition``, ``quiet actions``, ``time forfeit``, ``adjudication`` or
        ``abandoned`` (or another Termination tag's value, as written), and whose
        ``words`` read ``Black resigned`` (docs/NOTATION.md, "How a game ended").

        >>> game = Game(); _ = game.play("B@e1"); game.resign("white")
        >>> game.ending.word, game.ending.words
        ('resignation', 'White resigned')
        """
        return ending_of(self._record)

    @property
    def line(self) -> int:
        """The line of its source where the game starts (1 for a game built in code)."""
        return self._record.line

    def time_left(self, now: str | None = None) -> dict[str, int] | None:
        """Seconds each side has under the ``TimeControl`` tag at ``now`` (a UTC time like
        ``2026-11-23T10:15Z``; default: this minute), or None for a game without one.

        Below zero once a side's time has run out; a finished game's clocks are stopped
        (docs/NOTATION.md, "The TimeControl tag"). Raises :class:`RecordError` for a
        ``now`` that is not such a time.
        """
        from datetime import datetime, timezone

        from .notation import clock, correspondence

        facts = correspondence.read_facts(self._record)
        if facts.control is None:
            return None
        ran = correspondence.check(self._record, facts).clock
        at = clock.parse_stamp(now) if now is not None else clock.stamp_of(datetime.now(timezone.utc))
        to_move = None if self.is_over else self._record.final.to_move
        return {SIDES[side]: ran.time_left(side, to_move, at) for side in (0, 1)}

    @property
    def flag_falls(self) -> list[LateAction]:
        """The actions played after their side's time ran out (a claim is then allowed)."""
        from .notation.clock import format_stamp

        return [LateAction(fall.number, SIDE_NAMES[fall.side], format_stamp(fall.deadline))
                for fall in self._record.flag_falls]

    @property
    def digest(self) -> str:
        """The Digest of the history (docs/SECURITY.md), as ``str(game)`` writes it."""
        from .notation.digest import game_digest
        return game_digest(self._record)

    @property
    def record(self) -> _record.Game:
        """The :mod:`tomis.record` game underneath (states per action, reports)."""
        return self._record

    def heading(self) -> str | None:
        """``Ana (White) vs Bo (Black), Club ladder`` from the tags present, or None."""
        tags = self._record.tags
        names = [f"{tags[t]} ({t})" for t in ("White", "Black") if tags.get(t) not in (None, "", "?")]
        heading = " vs ".join(names)
        event = tags.get("Event")
        if event not in (None, "", "?"):
            heading = f"{heading}, {event}" if heading else event
        return heading or None

    def legal_actions(self, square: str | None = None) -> list[Action]:
        """The actions that may follow, in the order ``tomis moves`` prints them.

        With ``square`` (``"e4"``), only those that start from it or place a piece on it.
        Empty once the game has ended, by the rules or by resignation or agreement (R23).
        A ``square`` that is no square raises :class:`~tomis.errors.PositionError`.

        >>> game = Game()
        >>> [str(a) for a in game.legal_actions("e1")]
        ['B@e1']
        >>> game.resign("white"); game.legal_actions()
        []
        """
        wanted = None if square is None else _square(square)
        if self.is_over:
            return []
        actions = Position.from_state(self._record.final).legal_actions()
        if wanted is None:
            return actions
        return [action for action in actions if _action_square(action) == wanted]

    # -- changing it -------------------------------------------------------------
    def play(self, action: Action | str, *, stamp: str | int | None = None,
             offer_draw: bool = False) -> Position:
        """Play the next action (an Action or its notation); return the new position.

        ``stamp``: when it was played, written ``{[%ts TIME]}`` after it as :meth:`stamp`
        writes it (a time as for the correspondence verbs below; None writes none).
        ``offer_draw``: the action offers a draw, ``(=)``; an action that ends the game
        offers nothing, so there the offer is dropped.

        Raises :class:`~tomis.errors.IllegalActionError` (naming the ruling),
        :class:`~tomis.errors.NotationError`, or :class:`~tomis.errors.RecordError` once the
        game has ended, when it was read with an error, or for a ``stamp`` earlier than the
        record's last; the game is then unchanged.

        >>> game = Game()
        >>> game.play("B@e1", stamp="2026-11-23T10:15Z", offer_draw=True).turn
        'black'
        >>> game.nodes[0].comments, game.nodes[0].offer
        (('[%ts 2026-11-23T10:15Z]',), True)
        """
        self._refuse_if_broken()
        when = None
        if stamp is not None:       # checked before the action is played: all or nothing
            from .notation import clock, correspondence   # loaded for correspondence play only

            facts = correspondence.read_facts(self._record)
            when = _forward_stamp(stamp, (facts.start, *facts.stamps))
        _record.append(self._record, action)
        if when is not None:
            self._last_comments().append(f"[%ts {clock.format_stamp(when)}]")
        if offer_draw and not self._record.final.is_over:
            self._record.nodes[-1].offer = True
        return self.position

    def node(self, number: int) -> Node:
        """Action ``number`` (1-based over the whole game) as a :class:`Node`; raises
        :class:`RecordError` when the game has no such action."""
        index = self._index_of(number)
        return _public_nodes(self._record.nodes[index:index + 1], number)[0]

    def annotate(self, number: int, *, glyph: str | None = None, nags: Sequence[int] = (),
                 comment: str | None = None) -> None:
        """Annotate action ``number``: a ``glyph`` (one of ``! ? !! ?? !? ?!``, one per
        action), numeric annotations ``nags`` ($1 to $255), and a ``comment`` written after
        it (an evaluation is the comment ``[%eval +1.25]``, docs/ENGINE.md).

        Raises :class:`RecordError` for an action the game lacks, a second glyph, a value
        the record reader would refuse, or a comment that is a correspondence command
        (``[%ts]``, ``[%if]``, ...: each has its own verb); the game is then unchanged.

        >>> game = Game(); _ = game.play("B@e1")
        >>> game.annotate(1, glyph="!", nags=[1], comment="[%eval +0.10]")
        >>> node = game.node(1); node.glyphs, node.nags, node.comments
        ('!', (1,), ('[%eval +0.10]',))
        """
        self._refuse_if_broken()
        entry = self._record.nodes[self._index_of(number)]
        if glyph is not None:
            _check_glyph(glyph, entry.glyphs, number)
        nags = tuple(nags)
        _check_nags(nags, len(entry.nags))
        if comment is not None:
            _check_comment(comment)
        if glyph is not None:
            entry.glyphs = glyph
        entry.nags += nags
        if comment is not None:
            entry.comments.append(comment)

    def add_variation(self, number: int, actions: str | Sequence[Action | str],
                      comments: Sequence[Sequence[str]] | None = None) -> tuple[Node, ...]:
        """Add a side line to action ``number``: ``actions`` played instead of it, from the
        position before it; return the line as nodes (numbered from ``number``).

        ``actions`` is notation text (``"2... B@a8 3. G@b1"``; move numbers are skipped)
        or a list of actions or their texts; ``comments``, when given, the comments after
        each action of the line, one list per action.

        Raises :class:`RecordError` for an action the game lacks, a line without actions,
        or a line that the main line or another variation already plays;
        :class:`~tomis.errors.NotationError` or :class:`~tomis.errors.IllegalActionError`
        for an action that cannot be read or played there, located (line 1, column) in
        ``actions`` when it is text. The game is then unchanged.

        >>> game = read_game("1. B@e1 B@d8 2. G@b1 *")
        >>> [str(node.action) for node in game.add_variation(2, "1... B@a8 2. G@c1")]
        ['B@a8', 'G@c1']
        >>> str(game).splitlines()[-1]
        '1. B@e1 B@d8 (1... B@a8 2. G@c1) 2. G@b1 *'
        """
        self._refuse_if_broken()
        rec = self._record
        index = self._index_of(number)
        line = _record.Variation(rec.states[index])
        line.nodes = _played_line(line.start, actions)
        if comments is not None:
            _comment_line(line.nodes, comments)
        _refuse_a_held_line(rec.nodes, index, line.nodes)
        entry = rec.nodes[index]
        if not entry.variations:          # a tuple until the first one (notation.record)
            entry.variations = []
        entry.variations.append(line)
        return _public_nodes(line.nodes, number)

    def adjudicate(self, result: str, reason: str | None = None) -> None:
        """An arbiter ends the game with ``result`` (``1-0``, ``0-1``, ``1/2-1/2``):
        ``[Termination "adjudication"]``, and ``reason``, when given, as a comment after
        the last action.

        Raises :class:`RecordError` when the game has ended, for a result that is none
        of those, or a reason that is a correspondence command; the game is then unchanged.

        >>> game = Game(); _ = game.play("B@e1")
        >>> game.adjudicate("1-0", "Black left the club")
        >>> game.result, game.tags["Termination"], game.nodes[-1].comments
        ('1-0', 'adjudication', ('Black left the club',))
        """
        if result not in DECIDED_RESULTS:
            raise RecordError(f"an adjudicated result is 1-0, 0-1 or 1/2-1/2, not {result!r}")
        self._end_by(ADJUDICATION, reason, result)

    def abort(self, reason: str | None = None) -> None:
        """The game is abandoned without a result: it stays ``*``, with
        ``[Termination "abandoned"]`` and ``reason``, when given, as a comment after the
        last action. That no action follows is for whoever keeps the game to enforce (the
        referee marks it over); the record itself stays undecided.

        Raises :class:`RecordError` when the game has ended or for a reason that is a
        correspondence command; the game is then unchanged.

        >>> game = Game(); _ = game.play("B@e1")
        >>> game.abort("nobody turned up")
        >>> game.result, game.tags["Termination"], game.nodes[-1].comments
        ('*', 'abandoned', ('nobody turned up',))
        """
        self._end_by(ABANDONED, reason)

    def _end_by(self, termination: str, reason: str | None, result: str | None = None) -> None:
        """An arbiter's end: ``result`` (None: none), the Termination tag, the reason as a
        comment; everything checked before anything changes."""
        self._refuse_if_broken()
        self.check_not_ended()
        if reason is not None:
            _check_comment(reason)
        if result is not None:
            _record.finish(self._record, result)
        self._record.tags[TERMINATION_TAG] = termination
        if reason is not None:
            self._last_comments().append(reason)

    def note_ending(self) -> None:
        """Write into the record how the game ended: ``[Termination "normal"]`` and a
        comment after the last action naming it (``{Black resigned}``, ``{draw agreed}``,
        ``{White's base destroyed}``), for the endings PGN's Termination tag has no value
        of its own for; nothing for those it has (``time forfeit``, ``adjudication``,
        ``abandoned``: their verbs write the tag), and nothing twice.

        Raises :class:`RecordError` for a game that has not ended.

        >>> game = Game(); _ = game.play("B@e1"); game.resign("black"); game.note_ending()
        >>> game.tags["Termination"], game.nodes[-1].comments
        ('normal', ('Black resigned',))
        """
        self._refuse_if_broken()
        ending = self.ending
        if ending is None:
            raise RecordError("the game has not ended, so there is no ending to write", 1, 1)
        note = note_of(ending)
        comments = self._last_comments()
        if note is None or (self._record.tags.get(TERMINATION_TAG) == NORMAL
                            and comments[-1:] == [note]):
            return
        self._record.tags[TERMINATION_TAG] = NORMAL
        comments.append(note)

    def _index_of(self, number: int) -> int:
        """The index in the record's nodes of action ``number``, or a RecordError."""
        rec = self._record
        first, count = rec.start.ply + 1, len(rec.nodes)
        if isinstance(number, bool) or not isinstance(number, int) or not first <= number < first + count:
            held = f"actions {first} to {first + count - 1}" if count else "no actions"
            raise RecordError(f"the game has {held}, not action {number!r}")
        return number - first

    def undo(self) -> Action | None:
        """Take back the last action and return it; after a resignation or agreed draw,
        take back only that result and return None. What stays keeps its comments.

        Raises :class:`~tomis.errors.RecordError` when there is nothing to take back.
        """
        self._refuse_if_broken()
        rec = self._record
        _drop_ending_note(rec)
        if rec.result != "*" and not rec.final.is_over:      # resigned or agreed (R23)
            _reopen(rec)
            _drop_ending_commands(rec)
            return None
        if not rec.nodes:
            raise RecordError("there is no action to take back")
        node = rec.nodes.pop()
        rec.states.pop()
        _reopen(rec)       # an earlier position cannot be decided: an action followed it
        return node.action

    def resign(self, side: str) -> None:
        """``side`` resigns: the result becomes 0-1 (White resigns) or 1-0 (R23)."""
        self._refuse_if_broken()
        _record.finish(self._record, WIN_RESULTS[1 - SIDES.index(_side(side))])   # the other side wins

    def agree_draw(self) -> None:
        """Both sides agree a draw: the result becomes 1/2-1/2 (R23).

        When the last action offered a draw, ``(=)``, this accepts it (``{[%draw
        accept]}`` is written after it). A game with a ``TimeControl`` tag may end in an
        agreed draw only that way (docs/NOTATION.md), so there it raises
        :class:`RecordError` unless such an offer stands.
        """
        self._refuse_if_broken()
        rec = self._record
        offered = bool(rec.nodes) and rec.nodes[-1].offer
        if not offered and _record.TIME_CONTROL_TAG in rec.tags:
            raise RecordError("in a game with a TimeControl a draw is agreed by accepting an "
                              "offer, and the last action carries no (=) (R23)")
        if offered:
            self._accept_offer()
        else:
            _record.finish(rec, DRAW)

    # -- correspondence play (docs/NOTATION.md, "Correspondence play") -------------
    # Times are UTC texts like ``2026-11-23T10:15Z`` or the seconds of
    # :func:`tomis.notation.clock.parse_stamp`; None is this minute.

    def start_clock(self, time_control: str, at: str | int | None = None,
                    leave_days: int | None = None) -> None:
        """Give a game without actions a ``TimeControl`` (``30d+3d``, ``bank:240h+36h``,
        ``10/30d``) and its start stamp, and with ``leave_days`` the ``LeaveDays`` tag (the
        leave each side may take per calendar year). Raises :class:`RecordError` for a value
        that is no control or no such number of days."""
        from .notation import clock

        self._refuse_if_broken()
        clock.parse_time_control(time_control)
        if leave_days is not None:
            clock.parse_leave_days(str(leave_days))
            self._record.tags[clock.LEAVE_DAYS_TAG] = str(leave_days)
        self._record.tags[clock.TIME_CONTROL_TAG] = time_control
        self._record.comments.append(f"[%ts {clock.format_stamp(_stamp(at))}]")

    def stamps_actions(self, asked: bool = False) -> bool:
        """Whether a new action is stamped: always under a ``TimeControl``, else when ``asked``."""
        from .notation.clock import TIME_CONTROL_TAG

        return asked or TIME_CONTROL_TAG in self._record.tags

    def stamp(self, at: str | int | None = None) -> None:
        """Write when the last action was played, ``{[%ts TIME]}`` after it.

        Raises :class:`RecordError` for a time earlier than the record's last stamp:
        timestamps never go backwards.
        """
        from .notation import clock, correspondence

        self._refuse_if_broken()
        facts = correspondence.read_facts(self._record)
        # The last action's own place is the one being stamped: only those before it count.
        when = _forward_stamp(at, (facts.start, *facts.stamps[:-1]))
        self._last_comments().append(f"[%ts {clock.format_stamp(when)}]")

    def offer_draw(self) -> None:
        """Offer a draw with the last action, ``(=)``; the opponent's next action declines it."""
        self._refuse_if_broken()
        if not self._record.nodes:
            raise RecordError("a draw is offered with an action, and the game has none yet (R23)")
        self._record.nodes[-1].offer = True

    def take_leave(self, side: str, first: str, last: str, at: str | int | None = None) -> None:
        """``side`` takes leave from ``first`` to ``last`` (``YYYY-MM-DD``, UTC, both
        inclusive), written after the last action (before the first if there is none):
        ``{[%leave FIRST LAST]}`` when that place is the side's own (its own action, or
        the start for the side that does not act first), else ``{[%leave SIDE FIRST
        LAST]}``, which names it, so a side may take leave on its own turn too.

        With ``at``, a time, the leave is refused when its first day begins before then.
        Raises :class:`RecordError` when the game has ended or has no ``TimeControl``, or
        for a leave the reader refuses (not ahead of the last stamp, overlapping the
        side's earlier leave, past the yearly allowance); the record is then unchanged
        (docs/NOTATION.md, "Leave").

        >>> game = Game()
        >>> game.start_clock("30d", "2026-11-23T09:00Z")
        >>> game.take_leave("white", "2026-12-20", "2026-12-24")
        >>> game.record.comments[-1]
        '[%leave white 2026-12-20 2026-12-24]'
        """
        from .notation import clock, correspondence

        self._refuse_if_broken()
        self.check_not_ended()
        taker = SIDES.index(_side(side))
        rec = self._record
        leave = clock.parse_leave(f"{first} {last}", taker)
        if at is not None and leave.begins < _stamp(at):
            raise RecordError(f"{leave.command()}: leave is taken ahead, but its first day "
                              f"begins before {clock.format_stamp(_stamp(at))}")
        own_place = correspondence.leave_side(rec, len(rec.nodes)) == taker
        comments = self._last_comments()
        comments.append(leave.command() if own_place else leave.named_command())
        try:
            correspondence.check(rec, correspondence.read_facts(rec))
        except TomisError as error:
            comments.pop()
            raise RecordError(error.message) from None

    def cancel_leave(self, side: str, at: str | int | None = None, *,
                     first: str | None = None, last: str | None = None) -> list:
        """Take out of the record every leave of ``side`` that has not begun at ``at`` (a
        time, None: this minute): its first day begins after it. Such a leave stopped no
        clock, so the record stays true without it (docs/NOTATION.md, "Cancelling leave
        not yet begun"); a leave already begun stays whole. With ``first`` and ``last``
        (``YYYY-MM-DD``), only a leave of exactly those days. Returns the
        :class:`~tomis.notation.clock.Leave` taken out, in record order (empty when there
        was none).

        Raises :class:`RecordError` when the game has ended or ``at`` is before the
        record's last stamp; the record is then unchanged.

        >>> game = Game()
        >>> game.start_clock("30d", "2026-11-23T09:00Z")
        >>> game.take_leave("white", "2026-12-20", "2026-12-24")
        >>> [str(leave) for leave in game.cancel_leave("white", "2026-11-24T10:00Z")]
        ['2026-12-20 2026-12-24']
        >>> game.record.comments
        ['[%ts 2026-11-23T09:00Z]']
        """
        from .notation import clock, correspondence

        self._refuse_if_broken()
        self.check_not_ended()
        rec = self._record
        facts = correspondence.read_facts(rec)
        when = _forward_stamp(at, (facts.start, *facts.stamps))
        taker = SIDES.index(_side(side))
        only = None if first is None and last is None else clock.parse_leave(f"{first} {last}", taker)
        places = [rec.comments] + [node.comments for node in rec.nodes]
        saved = [list(comments) for comments in places]
        cancelled = []
        for index, comments in enumerate(places):
            emptied = []                  # comments that held nothing but the leave taken out
            for k, comment in enumerate(comments):
                kept, gone = _without_leave(comment, correspondence.leave_side(rec, index),
                                            taker, when, only)
                comments[k] = kept
                cancelled.extend(gone)
                if gone and not kept:
                    emptied.append(k)
            comments[:] = [comment for k, comment in enumerate(comments) if k not in emptied]
        try:
            correspondence.check(rec, correspondence.read_facts(rec))
        except TomisError as error:       # a record that read before reads after: kept safe
            for comments, before in zip(places, saved):
                comments[:] = before
            raise RecordError(error.message) from None
        return cancelled

    def record_outage(self, begins: str | int, ends: str | int) -> None:
        """Write that the referee could not take mail from ``begins`` to ``ends``:
        ``{[%outage START END]}`` after the last action. No clock runs in an outage, so the
        side to act gets back the time its clock ran in it (docs/NOTATION.md, "Outages and
        credits").

        Raises :class:`RecordError` when the game has ended or has no ``TimeControl``, or
        for an outage the reader refuses (not ending after it begins, beginning before the
        last stamp or before the end of the last outage); the record is then unchanged.

        >>> game = Game()
        >>> game.start_clock("1d", "2026-11-23T09:00Z")
        >>> game.record_outage("2026-11-23T10:00Z", "2026-11-23T13:00Z")
        >>> facts, ran = game.clock()
        >>> ran.deadline(0) - ran.since       # 1 day, and the 3 hours given back
        97200
        """
        from .notation import clock

        outage = clock.Outage(_stamp(begins), _stamp(ends))
        self._add_clock_command(clock.parse_outage(str(outage)).command())

    def credit(self, side: str, seconds: int, at: str | int | None = None,
               reason: str | None = None) -> None:
        """Give ``side`` ``seconds`` more time (whole minutes): ``{[%credit SIDE DURATION]
        REASON}`` after the last action; its time left grows by that much from there on.

        With ``at``, a time, the credit is refused when ``side``'s time had run out by
        then: a credit does not give a lost game back. Raises :class:`RecordError` for
        that, for a game that has ended or has no ``TimeControl``, for a duration that is
        not whole minutes from 1m to 3650d, and for a reason that is no plain comment
        text; the record is then unchanged.

        >>> game = Game()
        >>> game.start_clock("30d", "2026-11-23T09:00Z")
        >>> game.credit("black", 2 * 86400, reason="the club's server moved")
        >>> game.clock()[1].left
        (2592000, 2764800)
        """
        from .notation import clock

        giver = SIDES.index(_side(side))
        if isinstance(seconds, bool) or not isinstance(seconds, int) or seconds % clock.MINUTE:
            raise RecordError(f"a credit is whole minutes, not {seconds!r} seconds")
        command = clock.parse_credit(f"{SIDES[giver]} {clock.format_duration(seconds)}", 0).command()
        if reason is not None:
            _check_comment(reason)
            command += f" {reason}"
        if at is not None:
            self._refuse_credit_after_fall(giver, _stamp(at))
        self._add_clock_command(command)

    def _refuse_credit_after_fall(self, side: int, when: int) -> None:
        from .notation import clock

        self._refuse_if_broken()
        _, ran = self.clock()
        fall = clock.ran_out(ran, side, self._record.final.to_move, when)
        if fall is not None:
            raise RecordError(f"{SIDE_TITLES[side]}'s time ran out at "
                              f"{clock.format_stamp(fall.deadline)}; a credit does not give a "
                              f"lost game back")

    def _add_clock_command(self, comment: str) -> None:
        """``comment`` after the last action, kept only when the record still reads."""
        from .notation import correspondence

        self._refuse_if_broken()
        self.check_not_ended()
        comments = self._last_comments()
        comments.append(comment)
        rec = self._record
        try:
            facts = correspondence.read_facts(rec)
            if facts.control is None:
                raise RecordError("outages and credits count on the clocks, and this game has "
                                  "no TimeControl tag")
            correspondence.check(rec, facts)
        except TomisError as error:
            comments.pop()
            raise RecordError(error.message) from None

    def add_lines(self, lines: Sequence[Sequence[str]]) -> None:
        """Store conditional lines after the last action, each ``(THEIRS, MINE, ...)`` in
        canonical texts, checked playable from the position after it (docs/NOTATION.md).

        A line that cannot be played raises :class:`RecordError` whose ``line`` is its
        1-based place among ``lines``; nothing is stored then.
        """
        from .notation import conditional

        self._refuse_if_broken()
        after = self._record.final
        for number, line in enumerate(lines, 1):
            conditional.check_playable(after, line, number)
        for line in lines:
            self._last_comments().append(f"[%{conditional.COMMAND} {' '.join(line)}]")

    def play_fired_lines(self, at: str | int | None = None, stamp: bool = False) -> list:
        """Play every reply a stored conditional line owes, each stamped ``at`` when
        ``stamp``; return the :class:`~tomis.notation.conditional.Fired` lines played."""
        from .notation import conditional, correspondence

        played = []
        while True:
            rec = self._record
            owed = conditional.follow_record(rec, correspondence.read_facts(rec).lines).owed
            if owed is None:
                return played
            _record.append(rec, owed.reply)
            if stamp:
                self.stamp(at)
            played.append(owed)

    def flag_fall_of(self, number: int):
        """The :class:`~tomis.notation.clock.FlagFall` of action ``number`` when it was
        played after its side's time ran out, else None (also for an unstamped game)."""
        from .notation import clock, correspondence

        rec = self._record
        facts = correspondence.read_facts(rec)
        if facts.control is None or any(stamp is None for stamp in facts.stamps):
            return None
        first = rec.start.ply + 1
        stamps = [clock.Stamp(first + i, (first + i - 1) & 1, at) for i, at in enumerate(facts.stamps)]
        ran = clock.run(facts.control, facts.start, stamps, facts.stops, facts.credits)
        return next((fall for fall in ran.flag_falls if fall.number == number), None)

    def check_not_ended(self) -> None:
        """Raise :class:`RecordError` when the game has ended, by the rules (R22) or by
        resignation, agreement or time (R23): it cannot end again."""
        state = self._record.final
        if state.is_over:
            raise RecordError(f"the game is over ({state.result}: {state.reason}); "
                              f"it cannot end again (R22)", 1, 1)
        if self._record.result != "*":
            raise RecordError(f"the game has already ended {self._record.result} (R23)", 1, 1)

    def clock(self):
        """The game's correspondence facts and clock, ``(Facts, Clock)``; raises
        :class:`RecordError` for a game without a ``TimeControl`` tag."""
        from .notation import correspondence

        facts = correspondence.read_facts(self._record)
        if facts.control is None:
            raise RecordError("this game has no TimeControl tag, so no clock "
                              "(tomis new --time-control 30d+3d starts one)", 1, 1)
        return facts, correspondence.check(self._record, facts).clock

    def claim_time(self, side: str, at: str | int | None = None):
        """``side`` wins because its opponent's time ran out: the result, ``[Termination
        "time forfeit"]`` and ``{[%claim TIME]}``. Returns the opponent's
        :class:`~tomis.notation.clock.FlagFall`. Raises :class:`RecordError` when the game
        has ended, has no clock, or the opponent still has time."""
        from .notation import clock, correspondence

        self._refuse_if_broken()
        self.check_not_ended()
        claimant = SIDES.index(_side(side))
        opponent = 1 - claimant
        when = _stamp(at)
        _, ran = self.clock()
        to_move = self._record.final.to_move
        if ran.since is not None and when < ran.since:
            raise RecordError(
                f"the claim at {clock.format_stamp(when)} is earlier than the last timestamp, "
                f"{clock.format_stamp(ran.since)}", 1, 1)
        fall = clock.ran_out(ran, opponent, to_move, when)
        if fall is None:
            left = clock.describe_duration(ran.time_left(opponent, to_move, when))
            raise RecordError(
                f"{SIDE_TITLES[opponent]}'s time has not run out: {left} left at "
                f"{clock.format_stamp(when)} (TimeControl {self._record.tags[clock.TIME_CONTROL_TAG]})",
                1, 1)
        self._last_comments().append(f"[%claim {clock.format_stamp(when)}]")
        self._record.tags[correspondence.TERMINATION_TAG] = correspondence.TIME_FORFEIT
        _record.finish(self._record, correspondence.WIN_FOR[claimant])
        return fall

    def accept_draw(self, side: str) -> None:
        """``side``, the side to act, accepts the draw its opponent offered with the last
        action, ``(=)``: result 1/2-1/2 and ``{[%draw accept]}`` (R23)."""
        self._refuse_if_broken()
        self.check_not_ended()
        accepting = SIDES.index(_side(side))
        state = self._record.final
        if state.to_move != accepting:
            raise RecordError(
                f"only the side to act may accept a draw offer, and that is {SIDE_TITLES[state.to_move]} "
                f"(action {state.ply + 1}), not {SIDE_TITLES[accepting]} (--as {SIDES[accepting]})", 1, 1)
        if not self._record.nodes or not self._record.nodes[-1].offer:
            raise RecordError(
                f"{SIDE_TITLES[1 - accepting]} has not offered a draw: its last action carries no (=) "
                f"(an offer stands until the next action) (R23)", 1, 1)
        self._accept_offer()

    def _accept_offer(self) -> None:
        """The offer standing after the last action is accepted: 1/2-1/2, written as
        ``{[%draw accept]}`` after that action (R23)."""
        _record.finish(self._record, DRAW)
        self._record.nodes[-1].comments.append("[%draw accept]")

    def _last_comments(self) -> list[str]:
        """Where a comment command goes: after the last action, before the first if none."""
        rec = self._record
        return rec.nodes[-1].comments if rec.nodes else rec.comments

    def _refuse_if_broken(self) -> None:
        if self._error is not None:
            raise RecordError(f"this game was read with an error and cannot be changed: {self._error}")

    def __str__(self) -> str:
        """The canonical record, byte for byte what ``tomis fmt`` writes (Digest included)."""
        return _record.write(self._record)

    def __repr__(self) -> str:
        heading = self.heading() or "a game"
        state = f", error at line {self._error.line}" if self._error is not None else ""
        return f"<Game {heading}: {len(self._record.nodes)} actions, {self.result}{state}>"


def _reopen(rec: _record.Game) -> None:
    """The record's result back to undecided, in the result and the Result tag alike."""
    rec.result = "*"
    rec.tags["Result"] = "*"


def _forward_stamp(at: str | int | None, earlier) -> int:
    """``at`` as the clock's seconds, refused when it is before the last of the ``earlier``
    stamps that are known (None: unstamped): timestamps never go backwards."""
    from .notation import clock      # loaded for correspondence play only

    when = _stamp(at)
    stamped = [s for s in earlier if s is not None]
    if stamped and when < stamped[-1]:
        raise RecordError(
            f"{clock.format_stamp(when)} is earlier than the record's last timestamp, "
            f"{clock.format_stamp(stamped[-1])}; timestamps never go backwards")
    return when


def _without_leave(comment: str, place_side: int, side: int, after: int,
                   only=None) -> tuple[str, list]:
    """``comment`` without its ``[%leave]`` commands of ``side`` that begin after
    ``after`` (and are ``only``, a Leave, when given), and those leaves; ``place_side``
    is whose leave an unnamed one is."""
    from .notation import clock, correspondence

    kept, gone, end = [], [], 0
    for arguments, begins, ends in correspondence.leave_spans(comment):
        leave = clock.parse_leave(arguments, place_side)
        if leave.side != side or leave.begins <= after or only not in (None, leave):
            continue
        # One blank beside the command goes with it: "a [%leave ...] b" becomes "a b".
        if comment[ends:ends + 1] == " ":
            ends += 1
        elif comment[begins - 1:begins] == " ":
            begins -= 1
        kept.append(comment[end:begins])
        gone.append(leave)
        end = ends
    if not gone:
        return comment, gone
    return ("".join(kept) + comment[end:]).strip(), gone


def _check_glyph(glyph: str, held: str, number: int) -> None:
    if glyph not in GLYPHS:
        raise RecordError(f"{glyph!r} is not an annotation glyph; use one of {' '.join(GLYPHS)}")
    if held:
        raise RecordError(f"one annotation glyph per action: action {number} has '{held}' already")


def _check_nags(nags: tuple, held: int) -> None:
    for value in nags:
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 255:
            raise RecordError(f"a numeric annotation is 1 to 255 ($1 to $255), not {value!r}")
    if held + len(nags) > _record.MAX_NAGS_PER_ACTION:
        raise RecordError(f"at most {_record.MAX_NAGS_PER_ACTION} numeric annotations may follow one action")


def _check_comment(comment: str) -> None:
    """A comment the record reader reads back as written, and no correspondence command:
    those are written by their own verbs, which check them."""
    from .notation.correspondence import commands_in     # loaded only when annotating

    if not isinstance(comment, str) or not comment.strip():
        raise RecordError(f"a comment is some text, not {comment!r}")
    if len(comment) > MAX_COMMENT:
        raise RecordError(f"a comment may hold at most {MAX_COMMENT:,} characters (MAX_COMMENT), "
                          f"this one holds {len(comment):,}")
    found = commands_in(comment)
    if found:
        raise RecordError(f"[%{found[0][0]} ...] is a correspondence command, written by its own "
                          f"verb (docs/NOTATION.md), not as a comment")


def _played_line(start: State, actions: str | Sequence[Action | str]) -> list:
    """``actions`` played from ``start`` as record entries; an error in text is located
    (line 1, column) in it."""
    if isinstance(actions, str):
        words = [(found.start() + 1, found.group()) for found in re.finditer(r"\S+", actions)
                 if not _MOVE_NUMBER.fullmatch(found.group())]
    else:
        words = [(None, action) for action in actions]
    if not words:
        raise RecordError("a variation holds at least one action")
    entries, state = [], start
    for column, word in words:
        try:
            action = word if isinstance(word, Action) else parse_action(word)
            state, report = apply(state, action)
        except TomisError as error:
            if column is None:
                raise
            raise type(error)(error.message, 1, column) from None
        entries.append(_record.Entry(action, report=report))
    return entries


def _comment_line(entries: list, comments: Sequence[Sequence[str]]) -> None:
    """Give each entry of a new line its comments, one list per entry, each checked."""
    comments = [list(each) for each in comments]
    if len(comments) != len(entries):
        raise RecordError(f"comments for {len(comments)} action(s) given, and the line has {len(entries)}")
    for entry, texts in zip(entries, comments):
        for text in texts:
            _check_comment(text)
        entry.comments = texts


def _refuse_a_held_line(nodes: list, index: int, entries: list) -> None:
    """A side line that the main line or another variation already plays adds nothing."""
    wanted = [entry.action for entry in entries]
    main = [node.action for node in nodes[index:index + len(wanted)]]
    held = [[node.action for node in other.nodes] for other in nodes[index].variations]
    if main == wanted or wanted in held:
        where = "the main line" if main == wanted else "a variation of the record"
        raise RecordError(f"{where} already plays these actions from there", 1, 1)


def _stamp(at: str | int | None) -> int:
    """A time as the clock's seconds: a UTC text, seconds already, or None for this minute."""
    from .notation import clock

    if at is None:
        from datetime import datetime, timezone
        return clock.stamp_of(datetime.now(timezone.utc))
    return clock.parse_stamp(at) if isinstance(at, str) else at


def _square(name: str) -> int:
    try:
        return parse_square(name)
    except ValueError:
        raise PositionError(f"{name!r} is not a square like e4") from None


def _action_square(action: Action) -> int:
    """The square an action starts from, or places on."""
    origin = getattr(action, "origin", None)
    return origin if origin is not None else action.square


def _public_nodes(nodes, first: int) -> tuple[Node, ...]:
    """The record's nodes as :class:`Node` values, numbered from ``first``, variations too."""
    return tuple(
        Node(first + i, SIDE_NAMES[(first + i - 1) & 1], node.action, node.glyphs, tuple(node.nags),
             tuple(node.comments), node.offer,
             tuple(_public_nodes(line.nodes, first + i) for line in node.variations))
        for i, node in enumerate(nodes))


def _drop_ending_commands(rec: _record.Game) -> None:
    """Take back what an accepted draw or a claim on time wrote (docs/NOTATION.md)."""
    from .notation.correspondence import TERMINATION_TAG, TIME_FORFEIT, ending_command

    comments = rec.nodes[-1].comments if rec.nodes else rec.comments
    if comments and ending_command(comments[-1]):
        comments.pop()
        if rec.tags.get(TERMINATION_TAG) == TIME_FORFEIT:
            del rec.tags[TERMINATION_TAG]


def _drop_ending_note(rec: _record.Game) -> None:
    """Take back what :meth:`Game.note_ending` wrote: the game it described goes on."""
    if rec.tags.get(TERMINATION_TAG) != NORMAL:
        return
    ending = ending_of(rec)
    note = None if ending is None else note_of(ending)
    comments = rec.nodes[-1].comments if rec.nodes else rec.comments
    if note is not None and comments[-1:] == [note]:
        comments.pop()
    del rec.tags[TERMINATION_TAG]


def _check_tag(name: str, value) -> None:
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name):
        raise RecordError(f"{name!r} is not a tag name (a letter, then letters, digits or _)")
    if "\n" in str(value) or "\r" in str(value):
        raise RecordError(f"the {name} tag must fit on one line")


# --------------------------------------------------------------------------- reading

def read_games(source: Readable, *, message: str | None = None) -> Iterator[Game]:
    """Every game of ``source``, one at a time, each replayed and checked.

    ``source`` is a path (``str`` or ``os.PathLike``: a record, a saved message, an mbox
    or a Maildir), an open file (text or binary), or the text of a record. A ``str``
    holding a line break is text; one without is a path when such a file exists (or
    when it ends like a record file name, ``.tgn``, ``.pgn``, ...), else text.

    Everything is read exactly as the command line reads it (:mod:`tomis.sources`): UTF-8
    with or without a byte order mark, any line ends, the documented size limits
    (:mod:`tomis.textio`), the record dug out of a pasted or saved email (MIME parts,
    quoting, webmail debris), and, when a message quotes several records of the game,
    the one that extends the others. ``message`` picks one message of a mailbox, as the
    CLI's ``--message`` does. Error places count in what was saved.

    A game with an error is yielded too, with :attr:`Game.error` set. What cannot be
    read raises :class:`~tomis.errors.FileError`; records that diverge raise
    :class:`~tomis.errors.RecordError`; a text with no game yields nothing.

    >>> [g.result for g in read_games("1. B@e1 B@d8 1-0 1. B@a1 *")]
    ['1-0', '*']
    """
    found, name = _find_record(source, message)
    for checked in _record.iter_read(found.text, name):
        if checked.error is not None:
            checked.error = found.located(checked.error)
        yield Game._from_checked(checked)


def read_game(source: Readable, *, message: str | None = None) -> Game | None:
    """The first game of ``source`` (see :func:`read_games`), or None if it holds none."""
    return next(read_games(source, message=message), None)


def _find_record(source: Readable, message: str | None):
    """What :func:`tomis.sources.read_source` finds in ``source``, and the name errors carry."""
    from . import sources

    if isinstance(source, os.PathLike) or (
            isinstance(source, str) and "\n" not in source and _names_a_file(source)):
        path = os.fspath(source)
        return sources.read_source(path, message=message), path
    if isinstance(source, str):
        stream, name = io.BytesIO(source.encode("utf-8", "surrogatepass")), None
    elif hasattr(source, "read"):
        stream = source
        name = getattr(source, "name", None)
        name = name if isinstance(name, str) else None
    else:
        raise TypeError(f"read_games takes a path, a file or a string, not {type(source).__name__}")
    return sources.read_source(name or _INPUT, message=message, stream=stream, name=name or _INPUT), name


def _names_a_file(text: str) -> bool:
    if not text or text != text.strip():
        return False
    if os.path.exists(text):
        return True
    if text.lower().endswith(_RECORD_SUFFIXES):
        raise _missing(text)
    return False


def _missing(path: str) -> FileError:
    error = FileError("no such file")
    error.path = path
    return error
