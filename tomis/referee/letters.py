"""The text of the referee's messages: what happened, the board, the clocks, the offer,
the chat, and how to answer. Pure text from a :class:`~tomis.referee.games.RefereedGame`."""

from __future__ import annotations

import textwrap

from ..rules.board import SIDE_TITLES
from ..rules.actions import (GateJump, GateStrike, Jump, Move, Place, PlaceMarker,
                             RotateMarker, Toggle)
from ..rules.core import legal_actions
from ..notation.clock import TIME_CONTROL_TAG, describe_duration, format_stamp
from ..errors import one_line, visible
from ..pictures import render, words
from .composing import HELP_LINES


# The answer to ``help``: the commands, then how the lines of a reply are read
# (tomis/referee/commands.py, docs/REFEREE.md).
READING_LINES = [
    "Commands, one a line, in any case, one final . or ! allowed:",
    *(line for line in HELP_LINES if line.startswith("  ")),
    "A line with one action and at most 4 other words is that action ('My move: B@e1').",
    "A line with an action and more (two actions, a '?', more words, 'if' without the",
    "form above) is refused with the whole message, and nothing of it is passed on.",
    "'draw' alone offers nothing: a draw is offered with an action ('B@e1 draw').",
    "Every other line goes to your opponent (at most 10 messages of chat a day).",
]


# The kinds of action a ``moves`` answer groups the legal ones by, in the order of
# docs/NOTATION.md's cheat sheet.
KIND_WORDS = {Place: "place", Move: "move", Toggle: "gate on/off", PlaceMarker: "place marker",
              RotateMarker: "turn marker", GateJump: "gate jump", GateStrike: "gate strike",
              Jump: "jump"}

# The notation as the help guide shows it: each kind of action with examples
# (docs/NOTATION.md, "Cheat sheet").
NOTATION_LINES = [
    "The notation: one action is one word, no spaces inside. Squares a1-h8 (files a-h,",
    "ranks 1-8, White's home row is 1); units B base, G gate, F frigate, S sentry,",
    "T tower, Q flagship, M marker; directions N NE E SE S SW W NW (N points to rank 8).",
    "  B@e1  G@c1  F@a1     place a base, a gate or a ship on a square",
    "  Fa2-a3  Td1-d7       move a ship",
    "  Fc3=A  Fc3=I         the frigate on a gate turns it on (active) or off",
    "  M@c3:NE  Mc3:SW      put a marker on your active gate, or turn it",
    "  Fc3>d4  Fc3xd4       gate jump, gate strike (from an active gate)",
    "  Fb2^e5               jump over a jump gate",
]
RULES_NAME = "tomis-rules.txt"


def guide_lines(game, side: int) -> list[str]:
    """The answer to ``help``: the notation with examples, the commands and how a reply's
    lines are read, and where the rules are (attached to the same message)."""
    return ["A short guide for players:", "", *NOTATION_LINES, "", *READING_LINES, "",
            f"The rules, ruling by ruling (R1-R23), are attached as {RULES_NAME}.",
            "Reply 'moves' for your legal actions at any time."]


def moves_lines(game, side: int) -> list[str]:
    """The answer to ``moves``: ``side``'s legal actions now, grouped by kind, or why
    there are none."""
    if game.to_move != side:
        return ["Legal actions: none, it is not your turn."]
    groups: dict[str, list[str]] = {}
    for action in legal_actions(game.state):
        groups.setdefault(KIND_WORDS[type(action)], []).append(str(action))
    lines = [f"Legal actions ({game.actions_played + 1}), by kind:"]
    for kind in KIND_WORDS.values():
        if kind in groups:
            lines += textwrap.wrap(" ".join(groups[kind]), 76, initial_indent=f"  {kind}: ",
                                   subsequent_indent="    ")
    return lines


MAX_NAME_SHOWN = 64          # characters of a player's name in a title (as registered)


def title(game) -> str:
    white, black = names(game)
    return f"[tomis #{game.id}] {white} (White) vs {black} (Black)"


def names(game) -> tuple[str, str]:
    """The players' names as one line each (a control character shown escaped) and at
    most :data:`MAX_NAME_SHOWN` characters: ``new`` refuses others, but a store is read
    as it is."""
    return tuple(_bounded(one_line(player.name)) for player in game.players)


def _bounded(name: str) -> str:
    return name if len(name) <= MAX_NAME_SHOWN else name[:MAX_NAME_SHOWN - 1] + "…"


def player_words(game, side: int) -> str:
    return f"{SIDE_TITLES[side]} ({visible(game.players[side].name)})"


def action_lines(report, number: int) -> list[str]:
    return render.report_lines(report, number)


def clock_lines(game, now: int) -> list[str]:
    """The clocks in the words of ``tomis clock``, each side named with its player."""
    ran = game.clock()
    if ran is None:
        return ["Clocks: none (this game has no time control)"]
    facts = game.facts()
    heading = words.control_heading(game.record.tags[TIME_CONTROL_TAG], facts.control)
    return words.clock_lines(f"Clocks ({heading}):", ran, game.to_move, now,
                       names=[player_words(game, side) for side in (0, 1)],
                       indent="  ", leave=facts)


def reminder_lines(reading) -> list[str]:
    """A reminder's words from the side to act's clock reading (tomis.notation.clock):
    the share of the turn's time used, the time left and the deadline. Shares are rounded
    down, so a reminder never says more was used than was."""
    used = 100 * (reading.had - reading.left) // reading.had if reading.had > 0 else 100
    return [f"A reminder: it is your turn, and you have used {used}% of the time you had",
            f"when it began. You have {describe_duration(reading.left)} left: your time runs "
            f"out at {format_stamp(reading.deadline)}."]


def turn_lines(game, side: int) -> list[str]:
    if game.over:
        ending = game.library.ending
        return [f"The game has ended: {game.record.result}"
                + (f" ({visible(ending.words)})" if ending is not None else "")]
    lines = []
    offerer = game.offer_open()
    if offerer is not None:
        lines.append(f"Draw offer: {player_words(game, offerer)} offers a draw; "
                     + ("reply 'accept' to take it, or play on to decline it."
                        if offerer != side else "it stands until the next action."))
    to_move = game.to_move
    lines.append("Your turn: reply above the line with your action." if to_move == side
                 else f"Waiting for {player_words(game, to_move)}.")
    return lines


def chat_lines(game, side: int, chat: list[str]) -> list[str]:
    if not chat:
        return []
    return [f"{visible(game.players[side].name)} writes:",
            *(f"| {visible(line)}" for line in chat), ""]


def position_lines(game) -> list[str]:
    return [render.position_text(game.state, result=game.record.result)]


def update_body(game, side: int, events: list[str], chat_from: int | None, chat: list[str],
                now: int) -> str:
    """The message to ``side`` after a change: events, chat, board, clocks, turn, help."""
    lines = [title(game), ""]
    lines += events + [""] if events else []
    if chat_from is not None:
        lines += chat_lines(game, chat_from, chat)
    lines += position_lines(game) + [""] + clock_lines(game, now) + [""]
    lines += turn_lines(game, side)
    if not game.over:
        lines += [""] + HELP_LINES
    return "\n".join(lines)


def subject(game) -> str:
    """The game's one subject, the same in every message of it, so that a reader that
    groups a conversation by subject (Gmail, Outlook) keeps the game in one. The names
    are the record's White and Black tags, written by ``new``: the organiser's
    ``address`` may rename a player later, and the subject must not change then. ``=?``
    is written ``= ?``: a reader decodes an encoded word in a Subject, into anything."""
    white, black = (_bounded(one_line(game.record.tags.get(tag) or player.name)
                             .replace("=?", "= ?"))
                    for tag, player in zip(("White", "Black"), game.players))
    return f"[tomis #{game.id}] {white} vs {black}"


def headline(what: str) -> str:
    """What a message tells, as its body's first line."""
    return what[:1].upper() + what[1:]


def board_grid(game) -> str:
    """The board's lines as :func:`position_lines` writes them, for the HTML part."""
    return render.board(game.state)
