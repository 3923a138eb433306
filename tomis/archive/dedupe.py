"""Duplicate games: the same action sequence reaching the same final position.

:class:`DedupeProbe` (run where each game is read) gives a short key and the canonical
record; :class:`Seen` keeps the first game of every key, in archive order. Tags do not
count (the same game entered twice with a different Round or a misspelt name is still one
game), nor do comments; the start position does, through the final position.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ..notation import record
from .walker import Probe
from ..rules.position import to_string


@dataclass(frozen=True, slots=True)
class Keyed:
    key: bytes            # 16 bytes of BLAKE2b over the actions and the final position
    text: str             # the canonical record


def game_key(game: record.Record) -> bytes:
    """The identity of a game for dedupe: its action texts and its final position string."""
    digest = hashlib.blake2b(digest_size=16)
    for node in game.nodes:
        digest.update(str(node.action).encode("ascii") + b" ")
    digest.update(b"\n" + to_string(game.final).encode("utf-8"))
    return digest.digest()


class DedupeProbe(Probe):
    def __call__(self, checked, source):
        if checked.error is not None or checked.game is None:
            return None
        return Keyed(game_key(checked.game), record.write(checked.game))


@dataclass(frozen=True, slots=True)
class GamePlace:
    path: str
    game: int


class Seen:
    """First occurrences by key (16 bytes and a place per distinct game)."""

    def __init__(self):
        self._first: dict[bytes, GamePlace] = {}

    def first(self, key: bytes, place: GamePlace) -> GamePlace | None:
        """None when ``key`` is new (``place`` is remembered), else where it was first seen."""
        found = self._first.get(key)
        if found is None:
            self._first[key] = place
        return found
