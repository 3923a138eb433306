"""Game records (``.tgn``): read and validate, build, and write in canonical form.

A :class:`Game` is tags, a start position, and one :class:`Node` per action with its
annotations. :func:`read` parses every game of a file and replays each action through
:func:`tomis.rules.apply`, so a record is accepted only if every action is legal and
every move number, result and combat suffix it states is true:

- move numbers: ``12.`` stands before White's action of move 12, ``12...`` before
  Black's (R4); numbers are optional, but a present one must be right;
- ``Rules`` tag ``manual`` or ``readme`` (E1-E4, default manual); ``Position`` tag: a
  position string (:mod:`tomis.position`) to start from;
- the result token agrees with the ``Result`` tag and with the position: a decided game
  (R21, R22) carries its result and nothing may follow; a result in an undecided
  position is a resignation or agreed draw (R23);
- a ``(e6,f6)`` suffix after an action lists every square the combat after it destroyed
  (R15-R19); when present it must be exactly right;
- a variation ``( ... )`` after an action replaces it: it is replayed from the position
  before that action, checked like the main line, and kept (:class:`Variation`);
- ``(=)`` marks a draw offer (``Entry.offer``); a record with a ``TimeControl`` tag, an
  offer or a comment command (``[%ts ...]``, ``[%if ...]``, ``[%draw accept]``,
  ``[%claim ...]``) has those checked by :mod:`tomis.correspondence` at its result.

Errors are :class:`~tomis.errors.TomisError` subclasses with ``path``, ``line``,
``column``, ``game`` (1-based) and ``action`` (1-based or None) filled; the message
starts with ``game N`` and, for an action, names its number, side and text.
Not kept on reading: the whitespace inside comments (the writer reflows them), which
comment form (``{}`` or ``;``) was used, and the ``Digest`` tag (checked, then dropped;
:func:`write` computes a fresh one).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import chain

from . import digest as _digest
from ..rules.actions import ACTION_TYPES, Action
from ..rules.board import DECIDED_RESULTS, EDITIONS, RESULTS, SIDE_TITLES, SQUARE_NAMES, UNDECIDED
from ..errors import IllegalActionError, PositionError, RecordError, TomisError
from .syntax import (
    GLYPHS, CommentItem, DestroyedItem, DrawOfferItem, GlyphItem, MoveNumber, NagItem, ResultItem,
    TagItem, VariationEnd, VariationStart, game_items, parse_action, parse_games, quote_tag_value,
)
from ..rules.position import from_string
from ..rules.core import Report, State, apply, apply_unchecked, check, new_game
from ..util.plain import OPEN, Plain
from ..util.textio import MAX_ACTIONS_PER_GAME, MAX_COMMENT, MAX_GAMES_PER_FILE
from .tags import (  # noqa: F401  (names scripts take from tomis.record)
    ABANDONED, ADJUDICATION, LEAVE_DAYS_TAG, RULES_INFRACTION, TERMINATION_TAG, TIME_CONTROL_TAG,
    TIME_FORFEIT,
)

ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
LINE_WIDTH = 79            # lines stay under 80 columns
MAX_NAGS_PER_ACTION = 255  # one of each value; more is a flood, not an annotation
MAX_VARIATION_DEPTH = 100  # deeper nesting is no analysis a person reads; it bounds the stack
_ACTION_TYPES = frozenset(ACTION_TYPES)


# The classes below are Plain (tomis/util/plain.py) rather than dataclasses: every command
# that reads a record loads this module, and a dataclass costs its making at each start.

class Entry(Plain):
    """One action as recorded, with what followed it in the text."""

    __slots__ = ("action", "glyphs", "nags", "comments", "report", "offer", "variations")

    def __init__(self, action: Action, glyphs: str = "", nags: tuple[int, ...] = (),
                 comments: list[str] | None = None, report: Report | None = None,
                 offer: bool = False, variations: list[Variation] | tuple = ()):
        self.action = action        # carries .line/.column of where it was written
        self.glyphs = glyphs        # "!", "?!", ... ("" if none)
        self.nags = nags
        self.comments = [] if comments is None else comments   # after this action, without braces
        self.report = report        # filled when the game is replayed
        self.offer = offer          # (=): its side offers a draw (R23)
        # Alternatives to this action. An empty tuple until the first one: a list per
        # node would cost every record a little for what few records have.
        self.variations = variations


_blank_entry = object.__new__


class Variation(Plain):
    """A side line ``( ... )``: actions replacing the node it follows, from ``start``."""

    __slots__ = ("start", "nodes", "comments") + OPEN

    def __init__(self, start: State, nodes: list[Entry] | None = None,
                 comments: list[str] | None = None):
        self.start = start          # the position before the action it replaces
        self.nodes = [] if nodes is None else nodes
        self.comments = [] if comments is None else comments   # before its first action


class Record(Plain):
    """A game record. ``states[i]`` is the position after action ``i`` (``states[0]`` is start).

    Two records are equal when their tags, actions, result, positions and comments are:
    where they stood in a source (``line``, ``tag_places``, ``command_places``) and the
    flag falls noted while reading are left out.
    """

    __slots__ = ("tags", "nodes", "result", "start", "states", "comments", "line", "tag_places",
                 "command_places", "flag_falls") + OPEN

    def __init__(self, tags: dict[str, str], nodes: list[Entry], result: str, start: State,
                 states: list[State], comments: list[str] | None = None, line: int = 1,
                 tag_places: dict[str, tuple[int, int]] | None = None,
                 command_places: dict[tuple[int, int], tuple[int, int]] | None = None,
                 flag_falls: tuple = ()):
        self.tags = tags
        self.nodes = nodes
        self.result = result
        self.start = start
        self.states = states
        self.comments = [] if comments is None else comments   # before the first action
        self.line = line            # where the game starts in its source
        # Where each tag pair stood in its source, (line, column of its '['), the Digest's
        # included; empty for a game built rather than read.
        self.tag_places = {} if tag_places is None else tag_places
        # Where each main-line comment holding a command [%...] stood: (index, k) -> (line,
        # column) of the k-th comment before the first action (index 0) or after node index.
        self.command_places = {} if command_places is None else command_places
        # Every late action of a game with a TimeControl (tomis.clock.FlagFall), for notes.
        self.flag_falls = flag_falls

    def _fields(self) -> tuple:
        return (self.tags, self.nodes, self.result, self.start, self.states, self.comments)

    @property
    def final(self) -> State:
        return self.states[-1]


# The record's classes were called Game and Node, as the library's tomis.Game and
# tomis.Node are; the old names stay for scripts written against them.
Game = Record
Node = Entry


class Checked(Plain):
    """One game of a file: as far as it was valid, and its first problem (or None)."""

    __slots__ = ("game", "error") + OPEN

    def __init__(self, game: Record | None, error: TomisError | None):
        self.game = game
        self.error = error


# ---------------------------------------------------------------------------
# Reading

def read(text: str, path: str | None = None) -> list[Checked]:
    """Every game in ``text``, each replayed and checked; one :class:`Checked` per game.

    A game with a syntax error that stops the parser has ``game=None``; otherwise the
    game holds the actions before its first problem.
    """
    with _collector_paused(promote=True):
        return [checked for _start, checked in _read(text, path)]


def iter_read(text: str, path: str | None = None) -> Iterator[Checked]:
    """Like :func:`read`, one game at a time, so a long file never holds every game at once.

    The collector pause covers each game's replay only: the caller's code between games
    runs with the collector as it was.
    """
    return _one_at_a_time(_read(text, path))


def _one_at_a_time(games) -> Iterator[Checked]:
    """The Checked items of ``games``, the collector paused only while each is made."""
    while True:
        with _collector_paused():
            item = next(games, None)
        if item is None:
            return
        yield item[1]


@contextmanager
def _collector_paused(promote: bool = False):
    """Pause Python's cyclic garbage collector while a record is replayed.

    Replaying keeps a position per action, and each allocation burst made the collector
    rescan everything kept so far: about a third of reading time on a large file. The
    replay creates no reference cycles, so nothing waits on the collector meanwhile; it
    is restored (if it was on) however the reading ends.

    ``promote``, for a reader that returns everything it made (:func:`read`): the new
    objects join the oldest generation directly. Otherwise the first collection after
    the pause scans the whole result as young objects and finds nothing to free (3 %
    of an in-process read, docs/PERFORMANCE.md). Garbage cycles among them (Lark's
    syntax errors make some) wait for a full collection instead. Not done while the
    caller holds objects frozen: moving them back out is not ours to do.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if promote and not gc.get_freeze_count():
                gc.freeze()         # every tracked object set aside, the young ones' count reset ...
                gc.unfreeze()       # ... then all put back, into the oldest generation
            gc.enable()


def no_game_error() -> RecordError:
    """The one error for a text that holds no game at all (every command says the same)."""
    return RecordError("no game found in this file")     # the file as a whole: no place in it


def read_game(text: str, path: str | None = None) -> Record:
    """Exactly one game; raise its first error, or a :class:`RecordError` if the text
    holds no game or more than one."""
    games = _read(text, path)
    with _collector_paused(promote=True):
        first = next(games, None)
        second = next(games, None)
        # Only counted, not kept: a whole archive given where one game is expected.
        count = 0 if first is None else 1 if second is None else 2 + sum(1 for _ in games)
    if first is None:
        raise _located(no_game_error(), path, None, None)
    if second is not None:
        raise _located(RecordError(f"expected one game, found {count}; game 2 starts here",
                                   *second[0]), path, 2, None)
    checked = first[1]
    if checked.error is not None:
        raise checked.error
    return checked.game


def iter_check(chunks, path: str | None = None, first: int = 1) -> Iterator[Checked]:
    """Check games already cut and tokenised (:func:`tomis.notation.parse_span` chunks),
    numbering them from ``first``; one :class:`Checked` per chunk, as :func:`iter_read`.

    For readers that cut a file themselves (:mod:`tomis.archive` hands pieces of one big
    file to several processes). No games limit applies here: the caller counts.
    """
    return _one_at_a_time(_read_chunks(chunks, path, first, None))


def games_limit_error(number: int, line: int | None, column: int | None) -> RecordError:
    """The error for game ``number`` of a file, past ``MAX_GAMES_PER_FILE`` (finding 6)."""
    return RecordError(f"a file may hold at most {MAX_GAMES_PER_FILE:,} games "
                       f"(MAX_GAMES_PER_FILE); game {number:,} starts here; split "
                       f"the file", line, column)


def _read(text: str, path: str | None) -> Iterator[tuple[tuple[int, int], Checked]]:
    """(line, column) where each game starts (its syntax error, if it has one), and the game."""
    return _read_chunks(parse_games(text), path, 1, MAX_GAMES_PER_FILE)


def _read_chunks(chunks, path, first: int, max_games: int | None):
    for number, chunk in enumerate(chunks, first):
        if max_games is not None and number > max_games:
            # Each game read is kept, so a file of millions of empty games ("*" lines)
            # would fill memory (finding 6): refuse the first game past the limit.
            where = chunk.where(chunk.tokens[0]) if chunk.tokens else (
                (chunk.error.line, chunk.error.column) if chunk.error else (chunk.line, chunk.column))
            error = games_limit_error(number, *where)
            yield where, Checked(None, _located(error, path, number, None))
            return
        if chunk.error is not None:
            error = chunk.error
            yield (error.line, error.column), Checked(None, _located(error, path, number, None))
            continue
        start = chunk.where(chunk.tokens[0])
        game = Record({}, [], UNDECIDED, None, [], [], start[0])
        try:
            _replay(chunk, game)
            error = None
        except TomisError as exc:
            error = _located(exc, path, number, exc.action)
            if game.start is not None:
                game.result = game.final.result if game.final.is_over else UNDECIDED
            else:
                game = None
        yield start, Checked(game, error)


def _located(error: TomisError, path, number, action) -> TomisError:
    """Fill the error's file, game and action, and name the game in its message."""
    error.path = path
    error.game = number
    if action is not None:
        error.action = action
    if number is not None:
        joint = ", " if error.message.startswith("action ") else ": "
        error.message = f"game {number}{joint}{error.message}"
        error.args = (error.message,)
    return error


def _action_words(state: State, action) -> str:
    """``action 14 (White) Fa2-b3``: how every message about one action begins."""
    # Once decided nobody is to act; name the side whose turn it would be (R4).
    side = SIDE_TITLES[state.to_move if state.to_move is not None else state.ply & 1]
    return f"action {state.ply + 1} ({side}) {action}"


def _replay(chunk, game: Record) -> None:
    """Read the game's items in one pass: tags, then actions replayed as they come."""
    items = game_items(chunk)
    item, value_at = _read_tags(items, game)
    # The Digest is derived from the history: checked at the result, never kept as a tag
    # (the writer computes a fresh one), so read(write(game)) == game.
    stated_digest = game.tags.pop(_digest.DIGEST_TAG, None)
    state = _start(game.tags, value_at)
    game.start = state
    states = game.states
    states.append(state)
    nodes = game.nodes
    node = None
    number = None            # a move number waiting for its action
    claimed = False          # the current node already has a destroyed suffix
    before = game.comments   # where comments before the line's first action go
    stack = []               # the lines a variation interrupts, innermost last
    commands = False         # the main line holds a (=) or a comment command [%...]
    for item in chain((item,), items):
        kind = type(item)
        if kind in _ACTION_TYPES:
            if len(nodes) >= MAX_ACTIONS_PER_GAME:
                raise _about(_too_many_actions(state, item.line, item.column), state)
            if state.to_move is None:
                raise _about(RecordError(
                    f"{_action_words(state, item)}: the game already ended at action {state.ply} "
                    f"({state.result}: {state.reason}); nothing may follow (R22)",
                    item.line, item.column), state)
            if number is not None:
                _check_number(number, state, item)
                number = None
            try:
                check(state, item)          # apply(), its two steps called here: once per action
                state, report = apply_unchecked(state, item)
            except IllegalActionError as exc:
                raise _about(exc, state)
            # Filled field by field with Entry's defaults: Entry(...) runs __init__ as a
            # Python call, once per action (tests/test_record.py checks the two agree).
            node = _blank_entry(Entry)
            node.action = item
            node.glyphs = ""
            node.nags = ()
            node.comments = []
            node.report = report
            node.offer = False
            node.variations = ()
            nodes.append(node)
            states.append(state)
            claimed = False
        elif kind is MoveNumber:
            if number is not None:
                raise RecordError(f"expected an action after the move number '{number.text}', "
                                  f"found another move number '{item.text}'", item.line, item.column)
            number = item
        elif kind is CommentItem:
            _check_comment_size(item)
            comments = node.comments if node is not None else before
            if "[%" in item.text and not stack:       # a command: keep where it stood
                game.command_places[(len(nodes), len(comments))] = (item.line, item.column)
                commands = True
            comments.append(item.text)
        elif kind is ResultItem:
            if number is not None:
                raise RecordError(f"the move number '{number.text}' has no action after it",
                                  number.line, number.column)
            if stack:
                opened = stack[-1][-1]
                raise RecordError(f"the variation opened with '(' at line {opened.line}, column "
                                  f"{opened.column} is never closed with ')'", item.line, item.column)
            _check_result(game, state, item, value_at)
            correspondence = commands or TIME_CONTROL_TAG in game.tags
            if correspondence:
                _check_correspondence(game, value_at, item)
            _check_digest(game, stated_digest, value_at, correspondence)
        elif kind is VariationStart:
            if node is None or number is not None:
                raise _no_action_before(item, number)
            if len(stack) >= MAX_VARIATION_DEPTH:
                raise RecordError(f"variations nest at most {MAX_VARIATION_DEPTH} deep "
                                  f"(MAX_VARIATION_DEPTH)", item.line, item.column)
            # The variation replaces the current node: it starts from the position before it.
            variation = Variation(states[-2])
            if not node.variations:
                node.variations = []
            node.variations.append(variation)
            stack.append((state, states, nodes, node, claimed, before, item))
            state, states, nodes, node, claimed = variation.start, [variation.start], variation.nodes, None, False
            before = variation.comments
        elif kind is VariationEnd:
            if not stack:
                raise RecordError("')' closes no variation; a variation is written ( ... ) after the "
                                  "action it replaces", item.line, item.column)
            if number is not None:
                raise RecordError(f"the move number '{number.text}' has no action after it",
                                  number.line, number.column)
            if not nodes:
                raise RecordError("this variation holds no action; write the actions that replace "
                                  "the one before '(' inside it", stack[-1][-1].line,
                                  stack[-1][-1].column)
            state, states, nodes, node, claimed, before, _opened = stack.pop()
        else:
            if node is None or number is not None:
                what = {GlyphItem: "an annotation glyph", NagItem: "a numeric annotation",
                        DestroyedItem: "the destroyed squares", DrawOfferItem: "a draw offer"}[kind]
                raise RecordError(f"{what} '{item.text}' must follow an action", item.line, item.column)
            if kind is GlyphItem:
                _add_glyph(node, item)
            elif kind is NagItem:
                _add_nag(node, item)
            elif kind is DrawOfferItem:
                if node.offer:
                    raise _about(RecordError(f"{_action_words(states[-2], node.action)}: the draw "
                                             f"offer (=) is given twice", item.line, item.column), states[-2])
                node.offer = True
                commands = commands or not stack
            else:
                if claimed:
                    raise _about(RecordError(f"{_action_words(states[-2], node.action)}: the destroyed "
                                             f"squares are given twice", item.line, item.column), states[-2])
                claimed = True
                _check_destroyed(node, states[-2], item)


def _no_action_before(item: VariationStart, number: MoveNumber | None) -> RecordError:
    if number is not None:
        return RecordError(f"the move number '{number.text}' has no action after it",
                           number.line, number.column)
    return RecordError("a variation '(' must follow an action: it replaces the action before it",
                       item.line, item.column)


def _check_correspondence(game: Record, value_at: dict, result: ResultItem) -> None:
    """Clocks, offers, claims and conditional lines (docs/NOTATION.md), only for records
    that use them: a plain record never imports their modules (10 ms of start-up)."""
    from . import conditional, correspondence

    facts = correspondence.read_facts(game, game.command_places, value_at.get(TIME_CONTROL_TAG),
                                      value_at.get(LEAVE_DAYS_TAG))
    checked = correspondence.check(game, facts, (result.line, result.column))
    owed = checked.lines.owed
    if owed is not None:
        action = game.nodes[-1].action
        raise _about(RecordError(f"{_action_words(game.states[-2], action)}: "
                                 f"{conditional.unfinished_reply(owed)}", action.line, action.column),
                     game.states[-2])
    if checked.clock is not None:
        game.flag_falls = checked.clock.flag_falls


def _read_tags(items, game: Record) -> tuple:
    """Take the leading tag items into ``game``; return the first movetext item, and
    where each tag's value starts (for errors about a value)."""
    tags, places, value_at = game.tags, game.tag_places, {}
    item = next(items)          # every game has at least its result
    while type(item) is TagItem:
        name = item.name
        if name in tags:
            raise RecordError(f"the tag {name} appears twice", item.line, item.column)
        tags[name] = item.value
        places[name] = (item.line, item.column)
        value_at[name] = (item.line, item.value_column)
        item = next(items)
    return item, value_at


def _about(error: TomisError, before: State) -> TomisError:
    """Mark ``error`` as being about the action played from ``before``."""
    error.action = before.ply + 1
    return error


def _too_many_actions(state: State, line: int, column: int) -> RecordError:
    # Checked before the action is read, so the limit holds however the text is made.
    return RecordError(f"action {state.ply + 1}: a game may hold at most {MAX_ACTIONS_PER_GAME:,} "
                       f"actions (MAX_ACTIONS_PER_GAME); no real game comes near that", line, column)


def _check_comment_size(comment: CommentItem) -> None:
    """A comment longer than ``MAX_COMMENT`` characters (between its delimiters) is refused."""
    if comment.size > MAX_COMMENT:
        raise RecordError(f"this comment holds {comment.size:,} characters; a comment may hold at most "
                          f"{MAX_COMMENT:,} (MAX_COMMENT)", comment.line, comment.column)


def _check_digest(game: Record, stated: str | None, tag_at: dict, correspondence: bool) -> None:
    """A Digest tag, when present, must be the digest of the history just read.

    ``correspondence``: whether the main line uses correspondence play, as the reading
    found it, so the digest does not look through the comments a second time."""
    if stated is None:
        return
    where = tag_at[_digest.DIGEST_TAG]
    if not _digest.is_well_formed(stated):
        raise RecordError(f"the Digest tag must be {_digest.DIGEST_DIGITS} lowercase hexadecimal digits, "
                          f"found '{stated}'", *where)
    if stated != _digest.game_digest(game, correspondence=correspondence):
        raise RecordError("the Digest tag does not match the actions: the history was edited, "
                          "or the file was written by hand", *where)


def _start(tags: dict[str, str], tag_at: dict) -> State:
    """The position before the first action: the Position tag's, else a new game."""
    rules_name = tags.get("Rules")
    if rules_name is not None and rules_name not in EDITIONS:
        raise RecordError(f"the Rules tag must be manual or readme, found '{rules_name}' (E1-E4)",
                          *tag_at["Rules"])
    text = tags.get("Position")
    if text is None:
        return _fresh(rules_name or "manual")
    try:
        state = from_string(text)
    except PositionError as exc:
        raise PositionError(f"the Position tag is not a valid position string: {exc.message}",
                            *tag_at["Position"]) from None
    if rules_name is not None and state.edition_name != rules_name:
        raise RecordError(f"the Rules tag says {rules_name} but the Position tag's edition is "
                          f"{state.edition_name} (E1-E4)", *tag_at["Rules"])
    return state


_FRESH: dict[str, State] = {}


def _fresh(edition: str) -> State:
    """The empty board; states are never changed, so one per edition serves every game."""
    state = _FRESH.get(edition)
    if state is None:
        state = _FRESH[edition] = new_game(edition)
    return state


def _check_number(number: MoveNumber, state: State, action) -> None:
    """A move number names move (action + 1) // 2, with ``.`` for White, ``...`` for Black (R4)."""
    text = number.text
    acting = state.ply + 1
    move = (acting + 1) // 2
    white_to_act = state.to_move == 0
    if text == (f"{move}." if white_to_act else f"{move}..."):
        return                  # as written by every writer; only other spellings need parsing
    black = text.endswith("...")
    stated = _bounded_int(text.rstrip("."))
    if stated != move or black == white_to_act:
        right = f"{move}." if white_to_act else f"{move}..."
        side = "White" if white_to_act else "Black"
        raise _about(RecordError(
            f"{_action_words(state, action)}: the move number '{_clipped(text)}' is wrong; this is "
            f"{side}'s action of move {move}, written '{right}' (R4)", number.line, number.column), state)


_MAX_NUMBER_DIGITS = 9   # more than any move number or annotation can need


def _bounded_int(digits: str) -> int:
    """The value of a run of digits; -1 when it has too many to mean anything here.

    Python refuses int() of more than 4,300 digits (ValueError), and a record may hold a
    number of any length: bounding the digits keeps that a located error (finding 4).
    """
    significant = digits.lstrip("0") or "0"
    if len(significant) > _MAX_NUMBER_DIGITS:
        return -1
    return int(significant)


def _clipped(text: str, keep: int = 20) -> str:
    """``text`` short enough to quote in a one-line message."""
    return text if len(text) <= keep else f"{text[:keep]}... ({len(text):,} characters)"


def _add_glyph(node: Entry, item: GlyphItem) -> None:
    glyph = item.text
    if glyph not in GLYPHS:
        raise RecordError(f"'{glyph}' is not an annotation glyph; use one of ! ? !! ?? !? ?!",
                          item.line, item.column)
    if node.glyphs:
        raise RecordError(f"one annotation glyph per action: '{node.glyphs}' is already given, "
                          f"then '{glyph}'; numeric annotations like $1 may add more", item.line, item.column)
    node.glyphs = glyph


def _add_nag(node: Entry, item: NagItem) -> None:
    text = item.text
    value = _bounded_int(text[1:])
    if not 1 <= value <= 255:
        raise RecordError(f"a numeric annotation is $1 to $255, found '{_clipped(text)}'",
                          item.line, item.column)
    if len(node.nags) >= MAX_NAGS_PER_ACTION:
        # Adding to a tuple copies it: without a bound, "$1 $1 ..." costs quadratic time.
        raise RecordError(f"at most {MAX_NAGS_PER_ACTION} numeric annotations may follow one action",
                          item.line, item.column)
    node.nags += (value,)


def _check_destroyed(node: Entry, before: State, item: DestroyedItem) -> None:
    """The suffix must name exactly the squares the combat after the action cleared."""
    stated = item.squares
    actual = tuple(sorted({d.square for d in node.report.destroyed}))
    if tuple(sorted(set(stated))) != actual or len(set(stated)) != len(stated):
        said = ", ".join(SQUARE_NAMES[s] for s in stated) or "nothing"
        did = ", ".join(SQUARE_NAMES[s] for s in actual) or "nothing"
        raise _about(RecordError(
            f"{_action_words(before, node.action)}: the record says the combat destroyed "
            f"{said}, but it destroyed {did} (R15-R19)", item.line, item.column), before)


def _check_result(game: Record, state: State, item: ResultItem, tag_at) -> None:
    result = item.result
    tagged = game.tags.get("Result")
    if tagged is not None and tagged not in RESULTS:
        raise RecordError(f"the Result tag must be 1-0, 0-1, 1/2-1/2 or *, found '{tagged}'",
                          *tag_at["Result"])
    if tagged is not None and tagged != result:
        raise RecordError(f"the Result tag says {tagged} but the game ends with {result}",
                          item.line, item.column)
    if state.to_move is None and result != state.result:
        if result == UNDECIDED:
            message = (f"the game is decided ({state.result}: {state.reason}); "
                       f"it must end with {state.result}, not *")
        else:
            message = (f"the position is decided {state.result} ({state.reason}), "
                       f"but the record ends with {result}")
        raise RecordError(message, item.line, item.column)
    # A result in an undecided position is a resignation or agreed draw (R23).
    game.result = result


# ---------------------------------------------------------------------------
# Building a record move by move

def new_record(*, white=None, black=None, rules="manual", event=None, site=None, date=None,
               round=None, position=None) -> Record:
    """An empty record with the seven roster tags (``?`` when not given), Rules, Result ``*``.

    ``position`` is a position string to start from (its edition must match ``rules``).
    Raises :class:`RecordError` or :class:`PositionError` on bad values.
    """
    if rules not in EDITIONS:
        raise RecordError(f"rules must be manual or readme, found {rules!r} (E1-E4)")
    tags = {
        "Event": event or "?", "Site": site or "?", "Date": date or "????.??.??",
        "Round": str(round) if round is not None else "?", "White": white or "?",
        "Black": black or "?", "Result": UNDECIDED, "Rules": rules,
    }
    for name, value in tags.items():
        if "\n" in value or "\r" in value:
            raise RecordError(f"the {name} tag must fit on one line")
    if position is not None:
        start = from_string(position)
        if start.edition_name != rules:
            raise RecordError(f"the position's edition is {start.edition_name} but rules is {rules} (E1-E4)")
        tags["Position"] = position
        if start.to_move is None:
            tags["Result"] = start.result
    else:
        start = _fresh(rules)
    return Record(tags, [], tags["Result"], start, [start], [])


def append(game: Record, action_text: str | Action) -> Report:
    """Read one action (unless it is an Action already), check it, play it and record
    it; return what it did.

    When the action decides the game, ``game.result`` and the Result tag are set.
    Raises :class:`NotationError`, :class:`IllegalActionError`, or :class:`RecordError`
    when the game has already ended.
    """
    state = game.final
    if game.result != UNDECIDED and not state.is_over:
        raise RecordError(f"the game has ended ({game.result}, resigned or agreed, R23); no action may follow")
    action = action_text if isinstance(action_text, Action) else parse_action(action_text)
    state, report = apply(state, action)     # refuses a decided position itself (R22)
    game.nodes.append(Entry(action, report=report))
    game.states.append(state)
    if state.is_over:
        game.result = state.result
        game.tags["Result"] = state.result
    return report


def finish(game: Record, result: str) -> None:
    """End an undecided game by resignation or agreed draw (R23)."""
    if result not in DECIDED_RESULTS:
        raise RecordError(f"a resignation or agreement ends 1-0, 0-1 or 1/2-1/2, not {result!r} (R23)")
    final = game.final
    if final.is_over:
        raise RecordError(f"the game is already decided ({final.result}: {final.reason}); its result stands (R22)")
    if game.result != UNDECIDED:
        raise RecordError(f"the game already ended {game.result} (R23)")
    game.result = result
    game.tags["Result"] = result


# ---------------------------------------------------------------------------
# Writing

def write(game: Record, *, digest: bool = True) -> str:
    """The canonical text of one game, ending with a newline.

    Tags in roster order, then Rules, then the rest alphabetically; a blank line; the
    movetext wrapped under 80 columns with move numbers, ``(sq,sq)`` destroyed-squares
    suffixes, glyphs, NAGs and comments; the result.

    A ``Digest`` tag computed now (:mod:`tomis.digest`) is written last among the tags,
    replacing any the game holds; it is part of the canonical form. ``digest=False``
    leaves it out, for text meant for a reader that should not see one.
    """
    tags = dict(game.tags)
    tags.pop(_digest.DIGEST_TAG, None)      # a stale one would no longer match a grown history
    if digest:
        tags[_digest.DIGEST_TAG] = _digest.game_digest(game)
    lines = [f"[{name} {quote_tag_value(tags[name])}]" for name in tag_order(tags)]
    if lines:
        lines.append("")
    lines.extend(_wrap(_movetext(game)))
    return "\n".join(lines) + "\n"


def write_all(games: list[Record], *, digest: bool = True) -> str:
    """Several games, separated by one blank line."""
    return "\n".join(write(game, digest=digest) for game in games)


def tag_order(tags: dict[str, str]) -> list[str]:
    """Tag names in canonical order: the roster, Rules, the rest by name, the Digest last."""
    first = [name for name in ROSTER if name in tags]
    if "Rules" in tags:
        first.append("Rules")
    rest = sorted(name for name in tags if name not in ROSTER and name not in ("Rules", _digest.DIGEST_TAG))
    seal = [_digest.DIGEST_TAG] if _digest.DIGEST_TAG in tags else []
    return first + rest + seal        # the Digest last: it seals what stands above it


def _reports(game: Record) -> list[Report]:
    """Each node's report, replaying from the start for nodes that have none."""
    return _line_reports(game.start, game.nodes)


def _line_reports(start: State, nodes: list[Entry]) -> list[Report]:
    """Each node's report, replaying from ``start`` for nodes that have none."""
    if all(node.report is not None for node in nodes):
        return [node.report for node in nodes]
    state, reports = start, []
    for node in nodes:
        state, report = apply(state, node.action)
        reports.append(report)
    return reports


def _movetext(game: Record) -> list[tuple[str, bool]]:
    """The movetext as (unit, line must break after it); a unit is never split."""
    units = _line_units(game.comments, game.nodes, game.start.ply, _reports(game))
    units.append((game.result, False))
    return units


def _line_units(comments: list[str], nodes: list[Entry], ply: int,
                reports: list[Report]) -> list[tuple[str, bool]]:
    """The units of a line of play (the main line or a variation) after position ``ply``."""
    units: list[tuple[str, bool]] = []
    for comment in comments:
        units.extend(_comment_units(comment))
    numbered = True                 # the first action always gets its number
    for index, (node, report) in enumerate(zip(nodes, reports)):
        acting = ply + index + 1
        text = str(node.action)
        if acting % 2:              # odd actions are White's (R4)
            text = f"{(acting + 1) // 2}. {text}"
        elif numbered:
            text = f"{acting // 2}... {text}"
        if report.destroyed:
            squares = sorted({d.square for d in report.destroyed})
            text += "(" + ",".join(SQUARE_NAMES[s] for s in squares) + ")"
        units.append((text + node.glyphs, False))
        if node.offer:
            units.append(("(=)", False))
        units.extend((f"${nag}", False) for nag in node.nags)
        for comment in node.comments:
            units.extend(_comment_units(comment))
        for variation in node.variations:
            units.extend(_variation_units(variation))
        numbered = bool(node.comments or node.variations)
    return units


def _variation_units(variation: Variation) -> list[tuple[str, bool]]:
    """``(`` glued to a variation's first unit and ``)`` to its last, so neither starts a line.

    After a ``;`` comment (which runs to the end of its line) the ``)`` goes on the next line.
    """
    units = _line_units(variation.comments, variation.nodes, variation.start.ply,
                        _line_reports(variation.start, variation.nodes))
    first, breaks = units[0]
    units[0] = ("(" + first, breaks)
    last, breaks = units[-1]
    if breaks:
        units.append((")", False))
    else:
        units[-1] = (last + ")", False)
    return units


def _comment_units(text: str) -> list[tuple[str, bool]]:
    """A comment as one unit if it fits on a line, else as words that wrap.

    A comment holding ``}`` is written in the ``;`` form, which runs to the end of its line.
    """
    words = text.split()
    if "}" in text:
        return [(";" + " ".join(words), True)]
    if len(text) + 2 <= LINE_WIDTH:
        return [("{" + text + "}", False)]
    words[0] = "{" + words[0]
    words[-1] += "}"
    return [(word, False) for word in words]


def _wrap(units: list[tuple[str, bool]]) -> list[str]:
    lines, line = [], ""
    for text, breaks in units:
        if line and len(line) + 1 + len(text) > LINE_WIDTH:
            lines.append(line)
            line = text
        else:
            line = f"{line} {text}" if line else text
        if breaks:
            lines.append(line)
            line = ""
    if line:
        lines.append(line)
    return lines
