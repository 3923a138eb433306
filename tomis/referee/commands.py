"""The lines of a reply's new text, read as commands or chat (docs/REFEREE.md, "How a
reply's lines are read").

Each line is trimmed and read ignoring case and one trailing ``.`` or ``!``:

1. A line that *is* a command is that command: ``ACTION``, ``ACTION draw``, ``accept``,
   ``resign``, ``if THEIRS MINE ...``, ``if``, ``leave YYYY-MM-DD YYYY-MM-DD``,
   ``status``, ``moves``, ``help``; and ``draw`` alone, which offers nothing (an offer
   goes with an action) but is answered with how to offer one, never passed on.
2. A line holding exactly one action-like word (:func:`action_words`), at most
   :data:`MAX_OTHER_WORDS` other words and no ``?`` is that action (``My move: B@e1``).
3. Any other line holding an action-like word is *command-like*: the whole message is
   refused, naming the line, and nothing of it is relayed. So is a line that begins with
   ``if`` and holds one, and one whose other words include ``accept``, ``resign``,
   ``draw`` or ``leave`` (those act only as whole lines, so the referee does not guess).
4. Every other line is chat.

A line that is or holds an action but whose action cannot be read (``Fb1-b9``) is an
error, not chat: the referee never guesses what a player meant.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from ..errors import TomisError
from ..notation.conditional import parse_line
from ..rules.actions import Action

MAX_CHAT_CHARS = 4000
MAX_LINES = 20            # conditional lines one message may store
MAX_QUOTED = 80           # characters of a refused line quoted back to its writer
MAX_OTHER_WORDS = 4       # words beside an action on a line that is read as that action

# Where an action-like word begins: a unit letter, either case, then a square (``Fa2``) or
# ``@`` and a letter and a digit (``B@e1``, and the mistyped ``B@e9``), not inside a longer
# word or number. Every action shape of docs/NOTATION.md (``B@e1``, ``Fa2-a3``, ``Fc3=A``,
# ``M@c3:NE``, ``Mc3:SW``, ``Fc3>d4``, ``Fc3xd4``, ``Fb2^e5``) begins so, and no English
# word does: its third character is a digit. A letter or digit right after a square (but
# ``x`` and a square: a strike) makes it something else, a postcode like ``SE17``.
_ACTION_START = re.compile(r"(?<![0-9A-Za-z@])[BGFSTQMbgfstqm]"
                           r"(?:@[A-Za-z][0-9]"
                           r"|[a-hA-H][1-8](?![0-9A-WYZa-wyz]|[xX](?![a-hA-H][1-8])))")
# Punctuation a player may put around an action in a sentence: "(B@e1)", "B@e1,", "B@e1 —".
_AROUND = "\"'()[]{}<>«»“”‘’.,;:!?*_—–-…"
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_HOW = (f"Write your action alone on its line or with at most {MAX_OTHER_WORDS} other words "
        f"('My move: B@e1'), a conditional line as 'if THEIRS MINE ...', and chat without "
        f"actions.")
_WHOLE_LINE_ONLY = ("accept", "resign", "draw", "leave")
_SINGLE_WORD = ("accept", "resign", "status", "moves", "help", "draw")


class CommandError(TomisError):
    """A command line that cannot be taken; the whole message is refused."""


@dataclass
class LeaveRequest:
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
    moves: bool = False                  # the legal actions, to the sender alone
    help: bool = False                   # the commands, to the sender alone
    # 'draw' alone: no offer (an offer goes with an action), so the sender is told how,
    # and the line is not passed on as chat.
    draw: bool = False
    clear_lines: bool = False
    lines: list[tuple[str, ...]] = field(default_factory=list)
    leaves: list[LeaveRequest] = field(default_factory=list)
    chat: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.action or self.accept or self.resign or self.status or self.moves
                    or self.help or self.draw or self.clear_lines or self.lines or self.leaves)

    @property
    def answers(self) -> list[str]:
        """What the sender asked to be told: ``status``, ``moves``, ``help``."""
        return [name for name in ("status", "moves", "help") if getattr(self, name)]


def read_commands(text: str) -> Commands:
    """The commands and chat in ``text``; :class:`CommandError` for a bad or command-like
    line (its number and text in the message)."""
    commands = Commands()
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if not line:
            commands.chat.append("")
            continue
        try:
            if not _read_line(line, commands):
                commands.chat.append(raw.rstrip())
        except TomisError as error:
            raise CommandError(f"line {number} '{_clipped(line)}': {error.message}") from None
    commands.chat = _trim(commands.chat)
    return commands


def _clipped(line: str) -> str:
    """``line`` as a refusal quotes it: its start, when it is long (outside text, bounded)."""
    return line if len(line) <= MAX_QUOTED else line[:MAX_QUOTED - 3] + "..."


def _trim(chat: list[str]) -> list[str]:
    while chat and not chat[0]:
        chat.pop(0)
    while chat and not chat[-1]:
        chat.pop()
    text = "\n".join(chat)
    return text[:MAX_CHAT_CHARS].split("\n") if text else []


def action_words(line: str) -> list[str]:
    """The blank-separated words of ``line`` in which an action-like word begins, with
    the punctuation around them taken off (a word holding two counts twice)."""
    found = []
    for word in line.split():
        starts = len(_ACTION_START.findall(word))
        found += [word.strip(_AROUND)] * starts
    return found


def canonical(word: str) -> str:
    """``word`` written as the notation writes actions, whatever its case: the unit letter
    upper, squares and ``x`` lower, a direction or gate state upper (``fc3=a`` -> ``Fc3=A``,
    ``m@C3:ne`` -> ``M@c3:NE``). Whether it is an action is :meth:`Action.parse`'s to say."""
    head, tail = re.fullmatch(r"([^:=]*)(.*)", word, re.DOTALL).groups()
    return head[:1].upper() + head[1:].lower() + tail.upper()


def _read_line(line: str, commands: Commands) -> bool:
    """Record the command on ``line`` in ``commands``; False when it is chat."""
    body = line[:-1].rstrip() if line[-1] in ".!" else line
    words = body.split()
    if _whole_command(words, commands):
        return True
    found = action_words(line)
    if not found:
        return False
    _refuse_command_like(line, words, found)
    _action(found[0], False, commands)
    return True


def _whole_command(words: list[str], commands: Commands) -> bool:
    """Record ``words`` when they are one whole command; False when they are not."""
    keyword = words[0].lower() if words else ""
    if keyword in _SINGLE_WORD and len(words) == 1:
        setattr(commands, keyword, True)
        return True
    if keyword == "if" and (len(words) == 1 or action_words(words[1])):
        _conditional(words[1:], commands)
        return True
    if keyword == "leave" and len(words) == 3 and all(_DATE.fullmatch(w) for w in words[1:]):
        commands.leaves.append(LeaveRequest(_day(words[1]), _day(words[2])))
        return True
    offer = len(words) == 2 and words[1].lower() == "draw"
    if (len(words) == 1 or offer) and _lone_action(words[0]):
        return _action(words[0], offer, commands)
    return False


def _lone_action(word: str) -> bool:
    """Whether ``word`` is one action-like word and nothing else (not ``12.Fa2-a3``,
    ``B@e1?`` or ``B@e1,G@b2``): rule 1's ``ACTION``."""
    return action_words(word) == [word] and _ACTION_START.match(word) is not None


def _refuse_command_like(line: str, words: list[str], found: list[str]) -> None:
    """Raise :class:`CommandError` unless ``line`` reads as its one action (rule 2)."""
    others = [word.strip(_AROUND).lower() for word in words]
    others = [word for word in others if word and not action_words(word)]
    if len(found) > 1:
        what = f"{len(found)} actions on one line"
    elif words[0].strip(_AROUND).lower() == "if":
        what = "a conditional line must be 'if THEIRS MINE ...' with nothing else"
    elif "?" in line:
        what = "an action with a question mark"
    elif not _ACTION_START.match(found[0]):
        what = f"an action inside the word '{found[0]}'"
    elif len(others) > MAX_OTHER_WORDS:
        what = f"an action among more than {MAX_OTHER_WORDS} other words"
    else:
        keyword = next((word for word in others if word in _WHOLE_LINE_ONLY), None)
        if keyword is None:
            return
        what = f"'{keyword}' acts only as a line of its own ('ACTION draw' offers a draw)"
    raise CommandError(f"{what}, so the line was neither played nor passed on. {_HOW}")


def _conditional(words: list[str], commands: Commands) -> None:
    if not words:
        commands.clear_lines = True
        return
    if len(commands.lines) >= MAX_LINES:
        raise CommandError(f"at most {MAX_LINES} conditional lines in one message")
    commands.lines.append(parse_line(" ".join(canonical(word) for word in words)))


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise CommandError(f"{text} is not a date of the calendar") from None


def _action(word: str, offer: bool, commands: Commands) -> bool:
    """Record the action ``word``; a word that is no action raises NotationError."""
    action = Action.parse(canonical(word))
    if commands.action is not None:
        raise CommandError(f"a second action, after {commands.action}: send one action "
                           f"per message")
    commands.action = str(action)
    commands.offer_draw = offer
    return True
