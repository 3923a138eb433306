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
  (R15-R19); when present it must be exactly right.

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
from dataclasses import dataclass, field

from . import digest as _digest
from .actions import Action
from .board import SIDE_TITLES, SQUARE_NAMES
from .errors import IllegalActionError, NotationError, PositionError, RecordError, TomisError
from .notation import (
    ACTION_TERMINALS, GLYPHS, RESULTS, comment_text, destroyed_squares, explain_action,
    make_action, parse_action, parse_games, quote_tag_value, tag_pair,
)
from .position import from_string
from .rules import EDITIONS, Report, State, apply, new_game
from .textio import MAX_ACTIONS_PER_GAME, MAX_COMMENT, MAX_GAMES_PER_FILE

ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
LINE_WIDTH = 79            # lines stay under 80 columns
MAX_NAGS_PER_ACTION = 255  # one of each value; more is a flood, not an annotation
DECIDED_RESULTS = ("1-0", "0-1", "1/2-1/2")


@dataclass(slots=True)
class Node:
    """One action as recorded, with what followed it in the text."""

    action: Action                 # carries .line/.column of where it was written
    glyphs: str = ""               # "!", "?!", ... ("" if none)
    nags: tuple[int, ...] = ()
    comments: list[str] = field(default_factory=list)   # after this action, without braces
    report: Report | None = None   # filled when the game is replayed


@dataclass
class Game:
    """A game record. ``states[i]`` is the position after action ``i`` (``states[0]`` is start)."""

    tags: dict[str, str]
    nodes: list[Node]
    result: str
    start: State
    states: list[State]
    comments: list[str] = field(default_factory=list)   # before the first action
    line: int = field(default=1, compare=False)           # where the game starts in its source

    @property
    def final(self) -> State:
        return self.states[-1]


@dataclass
class Checked:
    """One game of a file: as far as it was valid, and its first problem (or None)."""

    game: Game | None
    error: TomisError | None


# ---------------------------------------------------------------------------
# Reading

def read(text: str, path: str | None = None) -> list[Checked]:
    """Every game in ``text``, each replayed and checked; one :class:`Checked` per game.

    A game with a syntax error that stops the parser has ``game=None``; otherwise the
    game holds the actions before its first problem.
    """
    with _collector_paused():
        return [checked for _start, checked in _read(text, path)]


def iter_read(text: str, path: str | None = None) -> Iterator[Checked]:
    """Like :func:`read`, one game at a time, so a long file never holds every game at once.

    The collector pause covers each game's replay only: the caller's code between games
    runs with the collector as it was.
    """
    games = _read(text, path)
    while True:
        with _collector_paused():
            item = next(games, None)
        if item is None:
            return
        yield item[1]


@contextmanager
def _collector_paused():
    """Pause Python's cyclic garbage collector while a record is replayed.

    Replaying keeps a position per action, and each allocation burst made the collector
    rescan everything kept so far: about a third of reading time on a large file. The
    replay creates no reference cycles, so nothing waits on the collector meanwhile; it
    is restored (if it was on) however the reading ends.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def no_game_error() -> RecordError:
    """The one error for a text that holds no game at all (every command says the same)."""
    return RecordError("no game found in this file", 1, 1)


def read_game(text: str, path: str | None = None) -> Game:
    """Exactly one game; raise its first error, or a :class:`RecordError` if the text
    holds no game or more than one."""
    with _collector_paused():
        games = list(_read(text, path))
    if not games:
        raise _located(no_game_error(), path, None, None)
    if len(games) > 1:
        raise _located(RecordError(f"expected one game, found {len(games)}; game 2 starts here",
                                   *games[1][0]), path, 2, None)
    checked = games[0][1]
    if checked.error is not None:
        raise checked.error
    return checked.game


def _read(text: str, path: str | None) -> Iterator[tuple[tuple[int, int], Checked]]:
    """(line, column) where each game starts (its syntax error, if it has one), and the game."""
    for number, chunk in enumerate(parse_games(text), 1):
        if number > MAX_GAMES_PER_FILE:
            # Each game read is kept, so a file of millions of empty games ("*" lines)
            # would fill memory (finding 6): refuse the first game past the limit.
            where = chunk.where(chunk.tokens[0]) if chunk.tokens else (
                (chunk.error.line, chunk.error.column) if chunk.error else (chunk.line, chunk.column))
            error = RecordError(f"a file may hold at most {MAX_GAMES_PER_FILE:,} games "
                                f"(MAX_GAMES_PER_FILE); game {number:,} starts here; split "
                                f"the file", *where)
            yield where, Checked(None, _located(error, path, number, None))
            return
        if chunk.error is not None:
            error = chunk.error
            yield (error.line, error.column), Checked(None, _located(error, path, number, None))
            continue
        start = chunk.where(chunk.tokens[0])
        game = Game({}, [], "*", None, [], [], start[0])
        try:
            _replay(chunk, game)
            error = None
        except TomisError as exc:
            error = _located(exc, path, number, exc.action)
            if game.start is not None:
                game.result = game.final.result if game.final.is_over else "*"
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


def _replay(chunk, game: Game) -> None:
    """Walk the game's tokens in order: tags, then actions replayed as they come."""
    tokens = chunk.tokens
    where = chunk.where
    first_line = chunk.line - 1       # token line 1 is the chunk's line
    first_column = chunk.column - 1   # ... and on it, columns start at the chunk's column
    tags = game.tags
    tag_at = {}
    index = 0
    count = len(tokens)
    while index < count and tokens[index].type == "TAG":
        token = tokens[index]
        name, value, quote = tag_pair(token.value)
        line, column = where(token)
        if name in tags:
            raise RecordError(f"the tag {name} appears twice", line, column)
        tags[name] = value
        tag_at[name] = (line, column + quote)
        index += 1
    # The Digest is derived from the history: checked at the result, never kept as a tag
    # (the writer computes a fresh one), so read(write(game)) == game.
    stated_digest = tags.pop(_digest.DIGEST_TAG, None)
    state = _start(tags, tag_at)
    game.start = state
    states = game.states
    states.append(state)
    nodes = game.nodes
    node = None
    number = None            # a move-number token waiting for its action
    claimed = False          # the current node already has a destroyed suffix
    for token in tokens[index:]:
        kind = token.type
        if kind in ACTION_TERMINALS:
            line = token.line       # where(token), inlined: this runs once per action
            column = token.column + first_column if line == 1 else token.column
            line += first_line
            if len(nodes) >= MAX_ACTIONS_PER_GAME:
                raise _about(_too_many_actions(state, line, column), state)
            action = make_action(kind, token.value, line, column)
            if state.to_move is None:
                raise _about(RecordError(
                    f"{_action_words(state, action)}: the game already ended at action {state.ply} "
                    f"({state.result}: {state.reason}); nothing may follow (R22)", line, column), state)
            if number is not None:
                _check_number(number, state, action, where)
                number = None
            try:
                state, report = apply(state, action)
            except IllegalActionError as exc:
                raise _about(exc, state)
            node = Node(action, report=report)
            nodes.append(node)
            states.append(state)
            claimed = False
        elif kind == "MOVE_NUMBER":
            if number is not None:
                raise RecordError(f"expected an action after the move number '{number.value.rstrip()}', "
                                  f"found another move number '{token.value.rstrip()}'", *where(token))
            number = token
        elif kind == "COMMENT" or kind == "LINE_COMMENT":
            _check_comment_size(token, where)
            (node.comments if node is not None else game.comments).append(comment_text(token.value))
        elif kind == "RESULT":
            if number is not None:
                raise RecordError(f"the move number '{number.value.rstrip()}' has no action after it",
                                  *where(number))
            _check_result(game, state, token, tag_at, where)
            _check_digest(game, stated_digest, tag_at)
        elif kind == "BAD_ACTION":
            offset, message = explain_action(token.value.rstrip())
            line, column = where(token)
            raise NotationError(message, line, column + offset)
        else:
            if node is None or number is not None:
                what = {"GLYPH": "an annotation glyph", "NAG": "a numeric annotation",
                        "DESTROYED": "the destroyed squares"}[kind]
                raise RecordError(f"{what} '{token.value.rstrip()}' must follow an action", *where(token))
            if kind == "GLYPH":
                _add_glyph(node, token, where)
            elif kind == "NAG":
                _add_nag(node, token, where)
            else:
                if claimed:
                    raise _about(RecordError(f"{_action_words(states[-2], node.action)}: the destroyed "
                                             f"squares are given twice", *where(token)), states[-2])
                claimed = True
                _check_destroyed(node, states[-2], token, where)


def _about(error: TomisError, before: State) -> TomisError:
    """Mark ``error`` as being about the action played from ``before``."""
    error.action = before.ply + 1
    return error


def _too_many_actions(state: State, line: int, column: int) -> RecordError:
    # Checked before the action is read, so the limit holds however the text is made.
    return RecordError(f"action {state.ply + 1}: a game may hold at most {MAX_ACTIONS_PER_GAME:,} "
                       f"actions (MAX_ACTIONS_PER_GAME); no real game comes near that", line, column)


def _check_comment_size(token, where) -> None:
    """A comment longer than ``MAX_COMMENT`` characters (between its delimiters) is refused."""
    size = len(token.value.rstrip()) - (2 if token.value[0] == "{" else 1)
    if size > MAX_COMMENT:
        raise RecordError(f"this comment holds {size:,} characters; a comment may hold at most "
                          f"{MAX_COMMENT:,} (MAX_COMMENT)", *where(token))


def _check_digest(game: Game, stated: str | None, tag_at: dict) -> None:
    """A Digest tag, when present, must be the digest of the history just read."""
    if stated is None:
        return
    where = tag_at[_digest.DIGEST_TAG]
    if not _digest.is_well_formed(stated):
        raise RecordError(f"the Digest tag must be {_digest.DIGEST_DIGITS} lowercase hexadecimal digits, "
                          f"found '{stated}'", *where)
    if stated != _digest.game_digest(game):
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


def _check_number(token, state: State, action, where) -> None:
    """A move number names move (action + 1) // 2, with ``.`` for White, ``...`` for Black (R4)."""
    text = token.value.rstrip()
    black = text.endswith("...")
    stated = _bounded_int(text.rstrip("."))
    acting = state.ply + 1
    move = (acting + 1) // 2
    white_to_act = state.to_move == 0
    if stated != move or black == white_to_act:
        right = f"{move}." if white_to_act else f"{move}..."
        side = "White" if white_to_act else "Black"
        raise _about(RecordError(
            f"{_action_words(state, action)}: the move number '{_clipped(text)}' is wrong; this is "
            f"{side}'s action of move {move}, written '{right}' (R4)", *where(token)), state)


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


def _add_glyph(node: Node, token, where) -> None:
    glyph = token.value.rstrip()
    if glyph not in GLYPHS:
        raise RecordError(f"'{glyph}' is not an annotation glyph; use one of ! ? !! ?? !? ?!", *where(token))
    if node.glyphs:
        raise RecordError(f"one annotation glyph per action: '{node.glyphs}' is already given, "
                          f"then '{glyph}'; numeric annotations like $1 may add more", *where(token))
    node.glyphs = glyph


def _add_nag(node: Node, token, where) -> None:
    text = token.value.rstrip()
    value = _bounded_int(text[1:])
    if not 1 <= value <= 255:
        raise RecordError(f"a numeric annotation is $1 to $255, found '{_clipped(text)}'",
                          *where(token))
    if len(node.nags) >= MAX_NAGS_PER_ACTION:
        # Adding to a tuple copies it: without a bound, "$1 $1 ..." costs quadratic time.
        raise RecordError(f"at most {MAX_NAGS_PER_ACTION} numeric annotations may follow one action",
                          *where(token))
    node.nags += (value,)


def _check_destroyed(node: Node, before: State, token, where) -> None:
    """The suffix must name exactly the squares the combat after the action cleared."""
    stated = destroyed_squares(token.value)
    actual = tuple(sorted({d.square for d in node.report.destroyed}))
    if tuple(sorted(set(stated))) != actual or len(set(stated)) != len(stated):
        said = ", ".join(SQUARE_NAMES[s] for s in stated) or "nothing"
        did = ", ".join(SQUARE_NAMES[s] for s in actual) or "nothing"
        raise _about(RecordError(
            f"{_action_words(before, node.action)}: the record says the combat destroyed "
            f"{said}, but it destroyed {did} (R15-R19)", *where(token)), before)


def _check_result(game: Game, state: State, token, tag_at, where) -> None:
    result = token.value
    tagged = game.tags.get("Result")
    if tagged is not None and tagged not in RESULTS:
        raise RecordError(f"the Result tag must be 1-0, 0-1, 1/2-1/2 or *, found '{tagged}'",
                          *tag_at["Result"])
    if tagged is not None and tagged != result:
        raise RecordError(f"the Result tag says {tagged} but the game ends with {result}", *where(token))
    if state.to_move is None and result != state.result:
        if result == "*":
            message = (f"the game is decided ({state.result}: {state.reason}); "
                       f"it must end with {state.result}, not *")
        else:
            message = (f"the position is decided {state.result} ({state.reason}), "
                       f"but the record ends with {result}")
        raise RecordError(message, *where(token))
    # A result in an undecided position is a resignation or agreed draw (R23).
    game.result = result


# ---------------------------------------------------------------------------
# Building a record move by move

def new_record(*, white=None, black=None, rules="manual", event=None, site=None, date=None,
               round=None, position=None) -> Game:
    """An empty record with the seven roster tags (``?`` when not given), Rules, Result ``*``.

    ``position`` is a position string to start from (its edition must match ``rules``).
    Raises :class:`RecordError` or :class:`PositionError` on bad values.
    """
    if rules not in EDITIONS:
        raise RecordError(f"rules must be manual or readme, found {rules!r} (E1-E4)")
    tags = {
        "Event": event or "?", "Site": site or "?", "Date": date or "????.??.??",
        "Round": str(round) if round is not None else "?", "White": white or "?",
        "Black": black or "?", "Result": "*", "Rules": rules,
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
    return Game(tags, [], tags["Result"], start, [start], [])


def append(game: Game, action_text: str) -> Report:
    """Read one action, check it, play it and record it; return what it did.

    When the action decides the game, ``game.result`` and the Result tag are set.
    Raises :class:`NotationError`, :class:`IllegalActionError`, or :class:`RecordError`
    when the game has already ended.
    """
    state = game.final
    if game.result != "*" and not state.is_over:
        raise RecordError(f"the game has ended ({game.result}, resigned or agreed, R23); no action may follow")
    action = parse_action(action_text)
    state, report = apply(state, action)     # refuses a decided position itself (R22)
    game.nodes.append(Node(action, report=report))
    game.states.append(state)
    if state.is_over:
        game.result = state.result
        game.tags["Result"] = state.result
    return report


def finish(game: Game, result: str) -> None:
    """End an undecided game by resignation or agreed draw (R23)."""
    if result not in DECIDED_RESULTS:
        raise RecordError(f"a resignation or agreement ends 1-0, 0-1 or 1/2-1/2, not {result!r} (R23)")
    final = game.final
    if final.is_over:
        raise RecordError(f"the game is already decided ({final.result}: {final.reason}); its result stands (R22)")
    if game.result != "*":
        raise RecordError(f"the game already ended {game.result} (R23)")
    game.result = result
    game.tags["Result"] = result


# ---------------------------------------------------------------------------
# Writing

def write(game: Game, *, digest: bool = True) -> str:
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


def write_all(games: list[Game], *, digest: bool = True) -> str:
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


def _reports(game: Game) -> list[Report]:
    """Each node's report, replaying from the start for nodes that have none."""
    if all(node.report is not None for node in game.nodes):
        return [node.report for node in game.nodes]
    state, reports = game.start, []
    for node in game.nodes:
        state, report = apply(state, node.action)
        reports.append(report)
    return reports


def _movetext(game: Game) -> list[tuple[str, bool]]:
    """The movetext as (unit, line must break after it); a unit is never split."""
    units: list[tuple[str, bool]] = []
    for comment in game.comments:
        units.extend(_comment_units(comment))
    ply = game.start.ply
    numbered = True                 # the first action always gets its number
    for index, (node, report) in enumerate(zip(game.nodes, _reports(game))):
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
        units.extend((f"${nag}", False) for nag in node.nags)
        for comment in node.comments:
            units.extend(_comment_units(comment))
        numbered = bool(node.comments)
    units.append((game.result, False))
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
