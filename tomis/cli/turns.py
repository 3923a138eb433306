"""What a player of ``tomis play`` hands the loop on its turn: an action, or a command.

A :class:`~tomis.cli.play.Player` answers ``turn(game)`` with an
:class:`~tomis.actions.Action` or one of the small frozen command objects below; the loop
acts on the object and never parses text again. :func:`read_turn` is where a typed line
becomes one of them (the only place a person's words are read), so a computer player
builds the same objects directly.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Help:
    """List the commands."""


@dataclass(frozen=True)
class Moves:
    """The legal actions, or those starting from ``square``."""
    square: str | None = None


@dataclass(frozen=True)
class Show:
    """The board again, in full."""


@dataclass(frozen=True)
class Undo:
    """Take back ``count`` actions (against the computer: the player's, with its answers)."""
    count: int = 1


@dataclass(frozen=True)
class Redo:
    """Play again ``count`` actions that undo took back."""
    count: int = 1


@dataclass(frozen=True)
class Resign:
    """The side to act resigns (R23)."""


@dataclass(frozen=True)
class OfferDraw:
    """Offer a draw to the other side (R23)."""


@dataclass(frozen=True)
class Save:
    """Save now, to ``path`` when given (which then becomes the game's file)."""
    path: str | None = None


@dataclass(frozen=True)
class Quit:
    """Leave the game."""


@dataclass(frozen=True)
class Hint:
    """The computer's suggestion for the side to act, with its expected line."""


@dataclass(frozen=True)
class ShowClock:
    """Each side's time left under the game's TimeControl."""


@dataclass(frozen=True)
class History:
    """The actions so far, numbered."""


@dataclass(frozen=True)
class Flip:
    """Turn the board round."""


@dataclass(frozen=True)
class SetLevel:
    """Play the computer's side(s) at ``level`` from now on."""
    level: int


@dataclass(frozen=True)
class Compact:
    """Switch between the full and the compact board."""


Command = (Help | Moves | Show | Undo | Redo | Resign | OfferDraw | Save | Quit | Hint
           | ShowClock | History | Flip | SetLevel | Compact)

# Each command word, what it takes, and its line in ``help``.
COMMAND_HELP = (
    ("moves", "[SQUARE]", "legal actions (all, or those starting from SQUARE)"),
    ("show", "", "the board again, in full"),
    ("undo", "[N]", "take back your last N actions (default 1; against the computer,\n"
                    "                  with its answers), or a resignation or agreed draw"),
    ("redo", "[N]", "play again what undo took back"),
    ("hint", "", "the computer's suggestion for the side to act, with its line"),
    ("history", "", "the actions so far, numbered"),
    ("clock", "", "each side's time left (a game with a TimeControl)"),
    ("flip", "", "turn the board round (it starts with your side at the bottom)"),
    ("compact", "", "switch between the compact and the full board"),
    ("level", "N", "the computer plays at level N (1-8) from now on"),
    ("resign", "", "the side to act resigns"),
    ("draw", "", "offer a draw; the other player answers yes or no"),
    ("save", "[FILE]", "save now (to FILE, which then becomes the game's file)"),
    ("help", "", "this text"),
    ("quit", "", "leave; a game with a file is saved after every action, for one\n"
                 "                  without a file you are asked first"),
)
COMMAND_WORDS = tuple(word for word, _args, _words in COMMAND_HELP)


class TurnError(ValueError):
    """A typed line that is neither an action nor a command; the message says why.

    ``column`` (1-based, or None) points into the line, for a caret under it.
    """

    def __init__(self, message: str, column: int | None = None):
        super().__init__(message)
        self.message = message
        self.column = column


def read_turn(line: str):
    """A typed line as an Action or a command object; None for a blank line.

    Raises :class:`TurnError` for anything else (an action that does not read, a
    command with a wrong argument).
    """
    word, _, rest = line.strip().partition(" ")
    if not word:
        return None
    maker = _COMMANDS.get(word.lower())
    if maker is not None:
        return maker(word.lower(), rest.strip())
    return _action(line.strip())


def _action(text: str):
    from ..errors import TomisError
    from ..notation import parse_action

    try:
        return parse_action(text)
    except TomisError as error:
        column = error.column if error.line in (None, 1) else None
        raise TurnError(error.message, column) from None


def _no_argument(make):
    def build(word: str, rest: str):
        if rest:
            raise TurnError(f"{word} takes nothing after it (found {rest!r}); type help for the commands")
        return make()
    return build


def _count(make):
    def build(word: str, rest: str):
        if not rest:
            return make(1)
        if not rest.isdigit() or int(rest) < 1:
            raise TurnError(f"{word} N takes a number of actions from 1, not {rest!r}")
        return make(int(rest))
    return build


def _level(_word: str, rest: str) -> SetLevel:
    from ..engine.levels import MAX_LEVEL, MIN_LEVEL

    if not rest.isdigit() or not MIN_LEVEL <= int(rest) <= MAX_LEVEL:
        raise TurnError(f"level N takes a level from {MIN_LEVEL} to {MAX_LEVEL}, not {rest!r}")
    return SetLevel(int(rest))


_COMMANDS = {
    "help": _no_argument(Help), "?": _no_argument(Help),
    "moves": lambda _word, rest: Moves(rest.lower() or None),
    "show": _no_argument(Show), "undo": _count(Undo), "redo": _count(Redo),
    "resign": _no_argument(Resign), "draw": _no_argument(OfferDraw),
    "save": lambda _word, rest: Save(rest or None),
    "quit": _no_argument(Quit), "exit": _no_argument(Quit),
    "hint": _no_argument(Hint), "clock": _no_argument(ShowClock),
    "history": _no_argument(History), "flip": _no_argument(Flip),
    "level": _level, "compact": _no_argument(Compact),
}
