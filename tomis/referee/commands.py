"""The lines of a reply's new text, read as commands or chat (docs/REFEREE.md).

A command is a whole trimmed line, keywords in any case, one trailing ``.`` or ``!``
allowed: ``ACTION``, ``ACTION draw``, ``accept``, ``resign``, ``if THEIRS MINE ...``,
``if``, ``leave YYYY-MM-DD YYYY-MM-DD``, ``status``. Every other line is chat. A line
that starts like an action but is no action is an error, not chat: the referee never
guesses what a player meant.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from ..errors import NotationError, TomisError

MAX_CHAT_CHARS = 4000
MAX_LINES = 20            # conditional lines one message may store

# A word that can only be meant as an action: a unit letter and a square or a drop.
_ACTION_LIKE = re.compile(r"[BGFSTQM](?:@|[a-h][1-8])\S*")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


class CommandError(TomisError):
    """A command line that cannot be taken; the whole message is refused."""


@dataclass
class Leave:
    first: date
    last: date


@dataclass
class Commands:
    """Everything one message asks for."""

    action: str | None = None            # canonical text
    offer_draw: bool = False
    accept: bool = False
    resign: bool = False
    status: bool = False
    clear_lines: bool = False
    lines: list[tuple[str, ...]] = field(default_factory=list)
    leaves: list[Leave] = field(default_factory=list)
    chat: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.action or self.accept or self.resign or self.status
                    or self.clear_lines or self.lines or self.leaves)


def read_commands(text: str) -> Commands:
    """The commands and chat in ``text``; :class:`CommandError` for a bad command line."""
    commands = Commands()
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if not line:
            commands.chat.append("")
            continue
        try:
            if not _command(line, commands):
                commands.chat.append(raw.rstrip())
        except TomisError as error:
            raise CommandError(f"line {number} '{line}': {error.message}") from None
    commands.chat = _trim(commands.chat)
    return commands


def _trim(chat: list[str]) -> list[str]:
    while chat and not chat[0]:
        chat.pop(0)
    while chat and not chat[-1]:
        chat.pop()
    text = "\n".join(chat)
    return text[:MAX_CHAT_CHARS].split("\n") if text else []


def _command(line: str, commands: Commands) -> bool:
    """Record the command on ``line`` in ``commands``; False when it is chat."""
    body = line[:-1].rstrip() if line[-1] in ".!" else line
    words = body.split()
    keyword = words[0].lower() if words else ""
    if keyword in ("accept", "resign", "status") and len(words) == 1:
        setattr(commands, keyword, True)
        return True
    if keyword == "if":
        _conditional(words[1:], commands)
        return True
    if keyword == "leave" and len(words) == 3 and all(_DATE.fullmatch(w) for w in words[1:]):
        commands.leaves.append(Leave(_day(words[1]), _day(words[2])))
        return True
    offer = len(words) == 2 and words[1].lower() == "draw"
    if len(words) == 1 or offer:
        return _action(words[0], offer, commands)
    return False


def _conditional(words: list[str], commands: Commands) -> None:
    from ..notation.conditional import parse_line

    if not words:
        commands.clear_lines = True
        return
    if len(commands.lines) >= MAX_LINES:
        raise CommandError(f"at most {MAX_LINES} conditional lines in one message")
    commands.lines.append(parse_line(" ".join(words)))


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise CommandError(f"{text} is not a date of the calendar") from None


def _action(word: str, offer: bool, commands: Commands) -> bool:
    from ..rules.actions import Action

    try:
        action = Action.parse(word)
    except NotationError:
        if _ACTION_LIKE.fullmatch(word) or offer:
            raise
        return False
    if commands.action is not None:
        raise CommandError(f"a second action, after {commands.action}: send one action "
                           f"per message")
    commands.action = str(action)
    commands.offer_draw = offer
    return True
