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

A game that uses correspondence play (a ``TimeControl`` tag, ``[%ts]`` stamps, ``(=)``
offers, ``[%if]`` lines, ``[%draw accept]``, ``[%claim]``) is hashed in format 2
(``tomis-digest 2``), which adds those facts in record order (docs/NOTATION.md, "What
the Digest covers"; :func:`tomis.correspondence.digest_lines`), so that an edited stamp
or a removed offer no longer matches. Every other game keeps format 1, so digests
written before format 2 existed stay valid.

This is integrity, not authentication. The digest has no key, so anyone who edits a
record can compute the new digest with this module (or ``sha256sum``) and write it in;
what catches a rewritten past is comparing with the digest, or the file, *you* sent
(``tomis move --since``). See docs/SECURITY.md.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from functools import cache

from ..errors import RecordError
from ..rules.board import SIDE_TITLES
from ..rules.position import to_string
from .tags import TIME_CONTROL_TAG

DIGEST_TAG = "Digest"
DIGEST_DIGITS = 16
FORMAT_LINE = "tomis-digest 1"      # changes if the serialisation ever changes
FORMAT_LINE_2 = "tomis-digest 2"    # with the correspondence facts
_WELL_FORMED = re.compile(r"[0-9a-f]{16}")


def canonical_history(rules: str, start: str, actions: Iterable, result: str) -> str:
    """The text that is hashed: one fact per line, in the order of the module docstring.

    ``actions``: their texts, or the actions themselves (each is written as ``str()``
    gives it)."""
    # Joined once, each action's line made whole in one step: this runs over every
    # action of a record whose Digest tag is checked.
    moves = "".join([f"action {text}\n" for text in actions])
    return f"{FORMAT_LINE}\nrules {rules}\nstart {start}\n{moves}result {result}\n"


def digest_of(rules: str, start: str, actions: Iterable, result: str) -> str:
    """The 16-digit digest of a history given as texts (or actions, as canonical_history)."""
    return _fingerprint(canonical_history(rules, start, actions, result))


def _fingerprint(history: str) -> str:
    """The first DIGEST_DIGITS hex digits of the SHA-256 of ``history``."""
    return _sha256()(history.encode("utf-8")).hexdigest()[:DIGEST_DIGITS]


@cache
def _sha256():
    """SHA-256, loaded on first use so that a record without a Digest tag never loads it.

    CPython's own implementation (``_sha2`` from 3.12, ``_sha256`` before) loads in a
    third of the time ``hashlib`` takes to open OpenSSL (1.2 against 3.6 ms here), a
    saving every command that checks one record makes. It hashes more slowly (30 against
    5 µs for a 5 KB history): an archive of 2,000 games pays about 50 ms of a validate
    that takes seconds. ``hashlib`` stays the fallback where neither module is built in.
    """
    try:                                   # 3.12 renamed the module: ask for one name only
        return __import__("_sha2" if sys.version_info >= (3, 12) else "_sha256").sha256
    except ImportError:
        pass
    import hashlib      # the fallback: 3.6 ms of OpenSSL start-up the built-in module spares

    return hashlib.sha256


def game_digest(game, actions: int | None = None, result: str | None = None,
                correspondence: bool | None = None) -> str:
    """The digest of a :class:`tomis.record.Record` (anything with ``start``, ``nodes``, ``result``).

    ``actions`` keeps only the first N actions and ``result`` overrides the game's result,
    so the digest of an earlier stage of the game (say, the one you sent) can be
    recomputed from a later record. ``correspondence`` says whether the main line holds
    a ``TimeControl`` tag, an offer or a ``[%`` command, when the caller already knows
    (the record reader learns it while reading the comments); None looks for them.
    """
    nodes = game.nodes if actions is None else game.nodes[:actions]
    result = game.result if result is None else result
    if correspondence is None:
        correspondence = _may_use_correspondence(game)
    if correspondence:
        history = _history_2(game, nodes, actions is None, to_string(game.start), result)
        if history is not None:
            return _fingerprint(history)
    return digest_of(game.start.edition_name, to_string(game.start),
                     [node.action for node in nodes], result)     # formatted by canonical_history


def _may_use_correspondence(game) -> bool:
    """A cheap first look: most records have no clock, no offer and no command at all."""
    if TIME_CONTROL_TAG in game.tags or any("[%" in comment for comment in game.comments):
        return True
    return any(node.offer or any("[%" in c for c in node.comments) for node in game.nodes)


def _history_2(game, nodes, whole: bool, start: str, result: str) -> str | None:
    """Format 2's canonical history, or None when the stage hashed uses none of it.

    For an earlier stage (``whole`` False: the first ``len(nodes)`` actions), only what
    stood with those actions counts, so the digest you sent is found again.
    """
    from .correspondence import digest_lines    # 10 ms that a game without correspondence play never pays

    head, per_action, tail = digest_lines(game)
    per_action = per_action[:len(nodes)]
    if not whole:
        tail = []
    if not (head or tail or any(per_action)):
        return None
    lines = [FORMAT_LINE_2, f"rules {game.start.edition_name}", f"start {start}", *head]
    for node, extra in zip(nodes, per_action):
        lines.append(f"action {node.action}")
        lines.extend(extra)
    lines.extend(tail)
    lines.append(f"result {result}")
    return "".join(line + "\n" for line in lines)


def is_well_formed(value: str) -> bool:
    """Exactly 16 lowercase hexadecimal digits, as the writer writes them."""
    return _WELL_FORMED.fullmatch(value) is not None


# --------------------------------------------------------------------------- play by email

# The tags that say which game this is and who plays which side. A change to any of them
# between the record you sent and the reply is reported. Result is checked on its own;
# Digest is recomputed; other tags (annotators, clocks, notes) may change freely.
TAGS_THAT_MATTER = ("Event", "Site", "Date", "Round", "White", "Black", "Rules", "Position")


def check_extends(sent, received, sent_name: str) -> None:
    """Refuse ``received`` unless it is ``sent`` plus the opponent's new action(s) only.

    Both are :class:`tomis.record.Record` objects read without error. "The opponent" is
    the side to act at the end of ``sent``. Checked, in this order, each failure a
    :class:`~tomis.errors.RecordError` naming the first difference and located in
    ``received``'s source where possible (tags by ``received.tag_places``):
    ``sent`` must be unfinished; the tags in
    :data:`TAGS_THAT_MATTER` must be equal (Rules and Position compared by meaning);
    every action of ``sent`` must be there unchanged, and, in a game using correspondence
    play, its stamps, offers and conditional lines too (the Digest of that stage); at
    least one action must be new and every new one the opponent's, or a reply that one
    of our conditional lines played for us at once; a result must not be claimed by
    resignation or agreement. Comments, glyphs and numeric annotations are not compared.
    """
    if sent.result != "*" or sent.final.is_over:
        raise RecordError(f"{sent_name} holds a finished game ({sent.result}); nothing may follow it", 1, 1)
    _compare_tags(sent, received, sent_name)
    _compare_actions(sent, received, sent_name)
    _compare_stage(sent, received, sent_name)
    _check_new_actions(sent, received, sent_name)
    if received.result != "*" and not received.final.is_over:
        raise RecordError(f"this record ends {received.result} by resignation or agreement, "
                          f"which {sent_name} does not (R23)", *_tag_place(received, "Result"))


def _compare_tags(sent, received, sent_name: str) -> None:
    for name in TAGS_THAT_MATTER:
        if name == "Rules":
            before, after = sent.start.edition_name, received.start.edition_name
        elif name == "Position":
            before, after = to_string(sent.start), to_string(received.start)
        else:
            before, after = sent.tags.get(name), received.tags.get(name)
        if before != after:
            raise RecordError(f"the {name} tag was {_shown(before)} in {sent_name} but is "
                              f"{_shown(after)} here", *_tag_place(received, name))


def _shown(value: str | None) -> str:
    return "absent" if value is None else f'"{value}"'


def _compare_actions(sent, received, sent_name: str) -> None:
    for number, (old, new) in enumerate(zip(sent.nodes, received.nodes), 1):
        if str(old.action) != str(new.action):
            raise RecordError(f"action {number} was {old.action} in {sent_name} but {new.action} here",
                              new.action.line, new.action.column)
    if len(received.nodes) < len(sent.nodes):
        missing = len(received.nodes) + 1
        raise RecordError(f"{sent_name} has {len(sent.nodes)} actions but this record only "
                          f"{len(received.nodes)}: action {missing} "
                          f"({sent.nodes[missing - 1].action}) is missing", *_last_place(received))


def _check_new_actions(sent, received, sent_name: str) -> None:
    opponent = sent.final.to_move
    count = len(sent.nodes)
    if len(received.nodes) == count:
        raise RecordError(f"this record has no action after the {count} of {sent_name}: it is still "
                          f"{SIDE_TITLES[opponent]}'s turn (action {count + 1})", *_last_place(received))
    for index in range(count, len(received.nodes)):
        side = received.states[index].to_move
        if side != opponent and not _fired_reply(received, index):
            action = received.nodes[index].action
            raise RecordError(f"action {index + 1} ({SIDE_TITLES[side]}) {action} is new since "
                              f"{sent_name}, but only {SIDE_TITLES[opponent]}'s reply may be new",
                              action.line, action.column)


def _compare_stage(sent, received, sent_name: str) -> None:
    """What stood with the actions sent (stamps, offers, lines) must stand unchanged."""
    count = len(sent.nodes)
    if game_digest(received, actions=count, result=sent.result) != game_digest(sent):
        raise RecordError(f"the timestamps, draw offers or conditional lines that {sent_name} holds "
                          f"were changed here (the Digest of its {count} action(s) differs)",
                          *_last_place(received))


def _fired_reply(game, index: int) -> bool:
    """Whether action ``index`` (0-based) is the reply a conditional line owed at once."""
    if not _may_use_correspondence(game):
        return False
    from . import conditional, correspondence      # only a game using correspondence play loads them

    facts = correspondence.read_facts(game)
    stored = {game.start.ply + i: lines for i, lines in facts.lines.items()}
    texts = [str(node.action) for node in game.nodes[:index]]
    owed = conditional.follow(game.start.ply + 1, texts, stored).owed
    return owed is not None and owed.reply == str(game.nodes[index].action)


def _last_place(game) -> tuple[int | None, int | None]:
    if not game.nodes:
        return 1, 1
    action = game.nodes[-1].action
    return action.line, action.column


def _tag_place(game, name: str) -> tuple[int, int]:
    """Line and column where ``game``'s tag ``name`` stood when read (1, 1 when it did not)."""
    return game.tag_places.get(name, (1, 1))
