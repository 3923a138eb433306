"""The ``Digest`` tag: a short fingerprint of a game's history, so an edited past shows.

The digest is the first 16 hexadecimal digits (lowercase, 64 bits) of SHA-256 over the
game's *canonical history*, UTF-8 encoded: these lines, each ended by ``\\n``::

    tomis-digest 1
    rules manual
    start <position string of the start position>
    action <canonical text of action 1>
    action <canonical text of action 2>
    ...
    result <the result: 1-0, 0-1, 1/2-1/2 or *>

``rules`` is the edition the game is played under (the ``Rules`` tag, default manual);
``start`` is :func:`tomis.position.to_string` of the start position, which is the empty
board of that edition when there is no ``Position`` tag; each action is written as
``str(action)`` (no move numbers, suffixes, glyphs or comments). Nothing else counts:
player names, dates, comments and annotations can change without changing the digest.

This is integrity, not authentication. The digest has no key, so anyone who edits a
record can compute the new digest with this module (or ``sha256sum``) and write it in;
what catches a rewritten past is comparing with the digest, or the file, *you* sent
(``tomis move --since``). See docs/SECURITY.md.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

DIGEST_TAG = "Digest"
DIGEST_DIGITS = 16
FORMAT_LINE = "tomis-digest 1"      # changes if the serialisation ever changes
_WELL_FORMED = re.compile(r"[0-9a-f]{16}")


def canonical_history(rules: str, start: str, actions: Iterable[str], result: str) -> str:
    """The text that is hashed: one fact per line, in the order of the module docstring."""
    lines = [FORMAT_LINE, f"rules {rules}", f"start {start}"]
    lines.extend(f"action {text}" for text in actions)
    lines.append(f"result {result}")
    return "".join(line + "\n" for line in lines)


def digest_of(rules: str, start: str, actions: Iterable[str], result: str) -> str:
    """The 16-digit digest of a history given as texts."""
    data = canonical_history(rules, start, actions, result).encode("utf-8")
    return hashlib.sha256(data).hexdigest()[:DIGEST_DIGITS]


def game_digest(game, actions: int | None = None, result: str | None = None) -> str:
    """The digest of a :class:`tomis.record.Game` (anything with ``start``, ``nodes``, ``result``).

    ``actions`` keeps only the first N actions and ``result`` overrides the game's result,
    so the digest of an earlier stage of the game (say, the one you sent) can be
    recomputed from a later record.
    """
    from .position import to_string

    nodes = game.nodes if actions is None else game.nodes[:actions]
    return digest_of(game.start.edition_name, to_string(game.start),
                     (str(node.action) for node in nodes),
                     game.result if result is None else result)


def is_well_formed(value: str) -> bool:
    """Exactly 16 lowercase hexadecimal digits, as the writer writes them."""
    return _WELL_FORMED.fullmatch(value) is not None
