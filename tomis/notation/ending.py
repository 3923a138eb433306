"""How a game ended, in one word, read from its record (docs/NOTATION.md, "How a game
ended").

The word is one of :data:`ENDINGS`: the rules' own endings (R21, R22) come from the final
position; the others (R23) from the ``Termination`` tag (PGN's values ``time forfeit``,
``adjudication``, ``abandoned``) and, where it says ``normal`` or is absent, from the
result: a win the rules did not decide is a resignation, such a draw an agreement (R23
allows no other). So a record written before the referee kept the ending reads the same
as one written after.

:func:`note_of` is the comment the record keeps after its last action for the endings PGN
has no Termination value of its own for (``{Black resigned}``, ``{draw agreed}``); it is
the same text every reader shows (:attr:`GameEnding.words`).
"""

from __future__ import annotations

from ..rules.board import DRAW, SIDE_TITLES, UNDECIDED, WIN_RESULTS
from ..util.plain import Plain
from .tags import ABANDONED, ADJUDICATION, NORMAL, RULES_INFRACTION, TERMINATION_TAG, TIME_FORFEIT

RESIGNATION = "resignation"
AGREEMENT = "agreement"
BASE_DESTROYED = "base destroyed"
NO_ACTION = "no action"
REPETITION = "repetition"              # R22 (3): the same position the third time
QUIET_ACTIONS = "quiet actions"        # R22 (4): 100 actions without destruction or deployment

ENDINGS = (RESIGNATION, AGREEMENT, BASE_DESTROYED, NO_ACTION, REPETITION, QUIET_ACTIONS,
           TIME_FORFEIT, ADJUDICATION, ABANDONED)
# The endings whose word is PGN's own Termination value: the tag says it, no comment needed.
BY_TAG = (TIME_FORFEIT, ADJUDICATION, ABANDONED, RULES_INFRACTION)
# The rules' endings, told by the words of the ruling that ended the game (rules/core.py).
_RULED = (("(R21)", BASE_DESTROYED), ("no legal action", NO_ACTION),
          ("third time", REPETITION), ("without destruction or deployment", QUIET_ACTIONS))


class GameEnding(Plain):
    """How a game ended: ``word`` (one of :data:`ENDINGS`, or a Termination value tomis
    does not know, as written) and the ``result`` it ended with."""

    __slots__ = ("word", "result")

    def __init__(self, word: str, result: str):
        self.word = word
        self.result = result

    @property
    def ruled(self) -> bool:
        """Whether the rules ended the game (R21, R22), not the players or an arbiter."""
        return self.word in (BASE_DESTROYED, NO_ACTION, REPETITION, QUIET_ACTIONS)

    @property
    def words(self) -> str:
        """``Black resigned``, ``draw agreed``, ``White's base destroyed``, ``time forfeit
        by Black``: the ending as a person reads it, its word in it where the phrase
        allows (a Termination value tomis does not know, as written: whoever shows it
        makes its control characters visible)."""
        return ending_words(self.word, self.result)


def ending_words(word: str, result: str) -> str:
    """The words for an ending ``word`` with ``result`` (see :attr:`GameEnding.words`)."""
    loser = _loser(result)
    if word == RESIGNATION and loser is not None:
        return f"{loser} resigned"
    if word == AGREEMENT:
        return "draw agreed"
    if word == BASE_DESTROYED:
        return f"{loser}'s base destroyed" if loser is not None else "both bases destroyed"
    if word == NO_ACTION and loser is not None:
        return f"no action for {loser}"
    if word == QUIET_ACTIONS:
        return "100 quiet actions"
    if word == TIME_FORFEIT and loser is not None:
        return f"time forfeit by {loser}"
    return word


def _loser(result: str) -> str | None:
    """The side a decisive ``result`` goes against, titled; None for a draw or none."""
    return SIDE_TITLES[1 - WIN_RESULTS.index(result)] if result in WIN_RESULTS else None


def ending_of(record) -> GameEnding | None:
    """How ``record`` (a :class:`tomis.notation.record.Record`) ended, or None while it
    goes on (or when it stops with ``*`` and no Termination tag says why)."""
    final = record.final
    if final.to_move is None:
        reason = final.reason or ""
        for words, word in _RULED:
            if words in reason:
                return GameEnding(word, final.result)
    tag = record.tags.get(TERMINATION_TAG, "").strip().lower()
    if tag and tag != NORMAL:
        return GameEnding(tag, record.result)
    if record.result == UNDECIDED:
        return None
    return GameEnding(AGREEMENT if record.result == DRAW else RESIGNATION, record.result)


def note_of(ending: GameEnding) -> str | None:
    """The comment the record keeps after its last action to say how it ended, with
    ``[Termination "normal"]``; None where the Termination tag itself says it."""
    return None if ending.word in BY_TAG else ending.words
