"""Choosing games from an archive: tags, players, results, rules, length, ending, actions
played, positions reached; and the facts every archive command shares (how a game ended).

A :class:`Filters` is built once from the command line and evaluated where each game is
read (:class:`SelectProbe` runs in the worker processes of :func:`tomis.archive.walk`), so
only the selected games' text travels back. All given filters must hold.

Position patterns (``--position``): eight ranks separated by ``/``, rank 8 first, as the
units field of a position string. In a rank, a unit letter (``B F S T Q`` White,
``b f s t q`` Black) is that unit on that square; a digit 1-8 that many empty squares;
``?`` one square, whatever is on it; ``*`` any number of squares (none too), whatever is on
them. ``*/*/*/*/*/*/*/*Q*``: a White flagship somewhere on rank 1. A game matches when any
of its positions (the start, and after every action) fits. Gates are not part of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import lru_cache

from ..notation import record
from .walker import Probe
from ..rules.board import PIECE_LETTERS, WHITE
from ..errors import TomisError

# How a game ended: stable names (select --ended, stats).
ENDINGS = ("base-destroyed", "no-legal-action", "repetition", "quiet-actions",
           "resignation", "agreement", "adjudicated", "forfeit", "unfinished")
_REASONS = (("base-destroyed", "(R21)"), ("no-legal-action", "no legal action"),
            ("repetition", "third time"), ("quiet-actions", "without destruction or deployment"))
# A result the rules did not decide (R23) is a resignation or an agreed draw unless the
# record's Termination tag (the PGN standard's values, which `tomis match` writes) says
# an arbiter decided it: a game cut short, or lost by breaking a match's rules.
_TERMINATIONS = {record.ADJUDICATION: "adjudicated", record.RULES_INFRACTION: "forfeit",
                 record.TIME_FORFEIT: "forfeit", record.ABANDONED: "forfeit"}


def ending_of(game: record.Record) -> str:
    """How ``game`` ended: decided by the rules (R21, R22), resigned, agreed, adjudicated
    or forfeited (R23), or not."""
    final = game.final
    if final.to_move is None:
        reason = final.reason or ""
        for name, words in _REASONS:
            if words in reason:
                return name
        return "unfinished"        # a reason tomis does not know yet; never seen
    if game.result == "*":
        return "unfinished"
    by_arbiter = _TERMINATIONS.get(game.tags.get(record.TERMINATION_TAG, "").strip().lower())
    if by_arbiter:
        return by_arbiter
    return "agreement" if game.result == "1/2-1/2" else "resignation"


def rules_of(game: record.Record) -> str:
    return game.start.edition_name


class PatternError(TomisError):
    """A --position or --played pattern that cannot be read."""


_RANK_TOKEN = re.compile(r"[BFSTQbfstq]|[1-8]|\?|\*")


@lru_cache(maxsize=64)
def compile_position(pattern: str) -> re.Pattern:
    """The regular expression of a position pattern, matched against :func:`board_text`."""
    ranks = pattern.split()[0].split("/") if pattern.strip() else []
    if len(ranks) != 8:
        raise PatternError(f"a position pattern has 8 ranks separated by '/', rank 8 first; "
                           f"found {len(ranks)} in '{pattern}'")
    parts = []
    for number, rank in zip(range(8, 0, -1), ranks):
        at = 0
        pieces, fixed, open_ended = [], 0, False
        for match in _RANK_TOKEN.finditer(rank):
            if match.start() != at:
                break
            at = match.end()
            token = match.group()
            if token == "*":
                pieces.append("[^/]*")
                open_ended = True
            elif token == "?":
                pieces.append("[^/]")
                fixed += 1
            elif token.isdigit():
                pieces.append(r"\." * int(token))
                fixed += int(token)
            else:
                pieces.append(token)
                fixed += 1
        if at != len(rank):
            raise PatternError(f"rank {number} of the position pattern: unexpected '{rank[at]}' in "
                               f"'{rank}'; use unit letters B F S T Q (b f s t q for Black), "
                               f"digits for empty squares, ? and *")
        if fixed > 8 or (fixed < 8 and not open_ended):
            raise PatternError(f"rank {number} of the position pattern '{rank}' covers {fixed} "
                               f"squares; a rank has 8 (use * for the rest)")
        parts.append("".join(pieces))
    return re.compile("/".join(parts))


def board_text(state) -> str:
    """The units of ``state`` as 8 ranks of 8 characters (rank 8 first, ``.`` empty)."""
    units = state.units
    rows = []
    for rank in range(7, -1, -1):
        row = []
        for square in range(rank * 8, rank * 8 + 8):
            code = units.get(square)
            if code is None:
                row.append(".")
            else:
                letter = PIECE_LETTERS[code & 7]
                row.append(letter if code >> 3 == WHITE else letter.lower())
        rows.append("".join(row))
    return "/".join(rows)


@lru_cache(maxsize=64)
def compile_played(pattern: str):
    """A test of one action text: shell-style with ``* ? [..]``, else a prefix (``Q@``)."""
    if not pattern:
        raise PatternError("an action pattern cannot be empty")
    if any(char in pattern for char in "*?["):
        return lambda text: fnmatchcase(text, pattern)
    return lambda text: text.startswith(pattern)


@dataclass(frozen=True)
class Filters:
    """What a game must satisfy to be selected (all given conditions)."""

    tags: tuple[tuple[str, re.Pattern], ...] = ()      # (tag name, regex searched in its value)
    player: re.Pattern | None = None                    # searched in White or Black
    results: tuple[str, ...] = ()
    rules: str | None = None
    min_actions: int | None = None
    max_actions: int | None = None
    endings: tuple[str, ...] = ()
    played: tuple[str, ...] = ()                        # action patterns, each must be played
    position: str | None = None                         # a position pattern
    invalid: bool = False                               # select the games with an error instead

    def matches(self, checked: record.Checked) -> bool:
        if (checked.error is not None) != self.invalid:
            return False
        game = checked.game
        if game is None:        # nothing read but the error: only --invalid alone selects it
            return self == Filters(invalid=True)
        return self._tags_match(game) and self._counts_match(game) and self._play_matches(game)

    def _tags_match(self, game) -> bool:
        tags = game.tags
        for name, regex in self.tags:
            value = tags.get(name)
            if value is None or not regex.search(value):
                return False
        if self.player is not None and not any(
                self.player.search(tags.get(side, "")) for side in ("White", "Black")):
            return False
        return True

    def _counts_match(self, game) -> bool:
        count = len(game.nodes)
        if self.min_actions is not None and count < self.min_actions:
            return False
        if self.max_actions is not None and count > self.max_actions:
            return False
        if self.results and game.result not in self.results:
            return False
        if self.rules is not None and rules_of(game) != self.rules:
            return False
        return not self.endings or ending_of(game) in self.endings

    def _play_matches(self, game) -> bool:
        if self.played:
            texts = [str(node.action) for node in game.nodes]
            for pattern in self.played:
                test = compile_played(pattern)
                if not any(test(text) for text in texts):
                    return False
        if self.position is not None:
            regex = compile_position(self.position)
            if not any(regex.fullmatch(board_text(state)) for state in game.states):
                return False
        return True


def tag_filter(option: str) -> tuple[str, re.Pattern]:
    """``White=Ana`` -> ("White", regex); the value is a regular expression, searched."""
    name, sep, value = option.partition("=")
    if not sep or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name):
        raise PatternError(f"expected NAME=REGEX like White=Ana, found '{option}'")
    return name, regex_filter(value, f"--tag {name}")


def regex_filter(value: str, what: str) -> re.Pattern:
    try:
        return re.compile(value)
    except re.error as exc:
        raise PatternError(f"{what}: '{value}' is not a regular expression: {exc}") from None


@dataclass(frozen=True)
class Selected:
    """A selected game: its canonical record, or (for an invalid one) its text as written."""

    text: str


class SelectProbe(Probe):
    """The selected game's text, or None."""

    def __init__(self, filters: Filters):
        self.filters = filters

    def __call__(self, checked, source):
        if not self.filters.matches(checked):
            return None
        if checked.error is not None:
            return Selected(source().strip("\n") + "\n")
        return Selected(record.write(checked.game))
