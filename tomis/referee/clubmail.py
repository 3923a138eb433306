"""Mail to the club's bare address (issue 43): a person joins, a player challenges another,
lists their games, takes leave across them, asks for a digest, or asks for help, by mail.

A message whose recipients include a game's reply address is that game's
(:func:`tomis.referee.process.decide` looks for one first); one sent to the bare address
(``referee@club.example``) or to one of the one-time request addresses this module mails
is the club's. From can be forged, so what changes anything (``join``, ``challenge``,
``leave``, ``leave cancel``, ``digest``) takes effect only when confirmed: the From
address is mailed a one-time reply address (:func:`tomis.referee.tokens.make_request`),
and a reply from that address, once, within :data:`REQUEST_DAYS` days, confirms, as
mailing lists confirm a subscription. At most :data:`CONFIRM_LIMIT` such requests go to
one address a day, so the club cannot be made to flood anyone. ``games`` and ``help``
change nothing and answer the registered address, never another.

Nothing read from the mail reaches a header: subjects are the referee's own words, and
a name or address shown in a body is made visible (:func:`tomis.errors.visible`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date

from ..errors import MailError, TomisError, visible
from ..notation.clock import describe_duration, format_stamp, parse_time_control
from ..rules.board import SIDE_TITLES
from . import club, clubleave, players, tokens
from .composing import CLUB_ID_MARK, Addressee, Note
from .games import RefereedGame, Refusal
from .inbound import Incoming
from .queueing import Config, queue_note
from .store import CHALLENGE, CONFIRM, Decision, PlayerRow, RequestRow, Store

DONE, REJECTED = "done", "rejected"
DAY = 86_400
REQUEST_DAYS = 7               # a one-time request confirms (or a challenge is answered) this long
CONFIRM_LIMIT = 3              # requests mailed to one address a day (of each kind); more: silence
ANSWER_LIMIT = 5               # answers to 'games', 'help' and unknown text to one address a day
ANSWER_KIND = "club"           # how those answers are counted in the store's replies
MAX_LINE = 200                 # of a command line, what is read
DIGEST_PERIODS = {"daily": DAY, "weekly": 7 * DAY}
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
COLOURS = ("white", "black")

HELP_LINES = [
    "Mail one command, on the first line, to {address}:",
    "  join NAME                       become a player of the club (anyone)",
    "  challenge NAME [TC] [white|black]  ask a player for a game (time control like 30d+1d)",
    "  games                           your games in play, those waiting on you first",
    "  leave FROM TO                   leave in all your games, dates YYYY-MM-DD (UTC)",
    "  leave cancel                    cancel your leave not yet begun",
    "  digest daily|weekly|off         a message listing the games that wait on you",
    "  help                            this text",
    "join, challenge, leave and digest take effect when you confirm them: the referee mails",
    "you a one-time reply address; reply to it from the same address within 7 days.",
    "A game's own messages come from its own reply address: answer those to play.",
]


@dataclass(frozen=True)
class ClubTarget:
    """Where a club message was sent: a one-time request's address (its number), or the
    bare address (None)."""

    request: int | None


@dataclass(frozen=True)
class Sent:
    """Whom an answer goes to and under which name (none for a stranger)."""

    name: str
    address: str


def target(config: Config, incoming: Incoming) -> ClubTarget | None:
    """The club address among ``incoming``'s recipients: a request's one-time address
    first (its reply confirms), else the bare address, unless the message answers one of
    the games' messages (:func:`answers_a_game`); None when it is not the club's."""
    local, domain = config.referee.local.lower(), config.referee.domain.lower()
    for address in incoming.recipients:
        user, _, host = address.rpartition("@")
        base, plus, token = user.partition("+")
        if host == domain and base == local and plus:
            number = tokens.read_request(config.secret, token)
            if number is not None:
                return ClubTarget(number)
    if config.referee.address.lower() in incoming.recipients and not answers_a_game(
            config, incoming):
        return ClubTarget(None)
    return None


def answers_a_game(config: Config, incoming: Incoming) -> bool:
    """Whether ``incoming`` replies to a message the referee sent that is not the club's
    (a game's, whose ids end ``@DOMAIN`` without the club's mark): a copy of a game's
    reply that reached the bare address (a reply-all, one copy per recipient) is no club
    command, and the copy for the game's reply address is decided as the game's."""
    own = f"@{config.referee.domain.lower()}>"
    return any(reference.lower().endswith(own) and not reference.lower().endswith(
        f"{CLUB_ID_MARK}{own}") for reference in incoming.references)


def decide(store: Store, config: Config, incoming: Incoming, where: ClubTarget,
           at: int) -> Decision:
    """What a message to the club's addresses does; every answer is queued here."""
    if incoming.sender is None:
        return Decision(REJECTED, "club mail whose From is not one address: no answer")
    if _own(config, incoming.sender):
        # Answered, it would come back here: the referee never writes to itself.
        return Decision(REJECTED, "club mail from one of the referee's own addresses: "
                                  "no answer")
    try:
        if where.request is not None:
            return _answer_request(store, config, incoming, where.request, at)
        return _command(store, config, incoming.sender, first_line(incoming.text), at)
    except MailError as error:
        # An address the sender's checks refuse (the answer could not be addressed).
        return Decision(REJECTED, f"club mail: no answer could be addressed: "
                                  f"{visible(error.message)}"[:500])


def _own(config: Config, address: str) -> bool:
    """Whether ``address`` is the referee's bare address or one of its ``+TOKEN`` ones."""
    user, _, host = address.rpartition("@")
    return (host == config.referee.domain.lower()
            and user.partition("+")[0] == config.referee.local.lower())


def first_line(text: str) -> str:
    """The first non-empty line of ``text``, its blanks collapsed, at most
    :data:`MAX_LINE` characters; a final '.' or '!' dropped."""
    for line in text.splitlines():
        words = " ".join(line.split())
        if words:
            return words[:MAX_LINE].rstrip(".!")
    return ""


# --------------------------------------------------------------------------- the bare address

def _command(store: Store, config: Config, sender: str, line: str, at: int) -> Decision:
    word, _, rest = line.partition(" ")
    word = word.lower()
    if word == "join":
        return _ask_join(store, config, sender, rest, at)
    unknown = None if word == "help" else f"'{visible(line[:60])}' is no command of the club."
    player = store.players.by_address(sender)
    if player is None:
        return _help(store, config, Sent("", sender), at,
                     "Only the club's players may send that; to become one, mail 'join "
                     "YOUR NAME'." if word in ("challenge", "games", "leave", "digest") else
                     unknown)
    to = Sent(player.name, player.address)
    if word == "games":
        return _games(store, config, player, at)
    if word == "challenge":
        return _ask_challenge(store, config, sender, player, rest, at)
    if word == "leave":
        return _ask_leave(store, config, sender, player, rest, at)
    if word == "digest":
        return _ask_digest(store, config, sender, player, rest, at)
    return _help(store, config, to, at, unknown)


def _help(store: Store, config: Config, to: Sent, at: int, why: str | None) -> Decision:
    """The commands, to ``to`` (rate-limited: :data:`ANSWER_LIMIT` a day), after ``why``
    the message was not taken as a command (None: it asked for help). Answered, it is
    done: nothing in it needs the organiser."""
    lines = ([why, ""] if why else []) + [line.format(address=config.referee.address)
                                          for line in HELP_LINES]
    if not _answer(store, config, to, "[tomis] the club's commands", "The club's commands",
                   lines, at):
        return Decision(REJECTED, "club mail: help not sent (the daily limit of answers)")
    return Decision(DONE, f"club mail: help sent ({why or 'asked for'})"[:500])


def _answer(store: Store, config: Config, to: Sent, subject: str, headline: str,
            lines: list[str], at: int) -> bool:
    """Queue an answer that changes nothing, unless ``to`` had :data:`ANSWER_LIMIT` of
    them in the last day; whether it was queued."""
    since = at - DAY
    if store.replies.count_since(to.address, since, ANSWER_KIND) >= ANSWER_LIMIT:
        return False
    store.replies.forget_until(since)
    store.replies.add(to.address, at, ANSWER_KIND)
    _tell(store, config, to, subject, headline, lines, at)
    return True


def _tell(store: Store, config: Config, to: Sent, subject: str, headline: str,
          lines: list[str], at: int, *, token: str | None = None,
          auto: str = "auto-replied") -> None:
    queue_note(store, config, Note(Addressee(to.name, to.address), subject, headline,
                                   "\n".join(lines), token, auto), at)


def _ask(store: Store, config: Config, to: Sent, player: int | None, command: dict,
         what: str, at: int) -> Decision:
    """Mail ``to`` a one-time address that confirms ``command`` (``what`` it does, in
    words), unless :data:`CONFIRM_LIMIT` went there in the last day."""
    if store.requests.count_since(to.address, at - DAY, CONFIRM) >= CONFIRM_LIMIT:
        return Decision(REJECTED, f"club mail: {command['verb']}: no confirmation request "
                                  f"sent, {CONFIRM_LIMIT} went to {to.address} in 24 hours")
    number = store.requests.add(CONFIRM, to.address, player, json.dumps(command), at)
    until = format_stamp(at + REQUEST_DAYS * DAY)
    _tell(store, config, to, "[tomis] please confirm", f"Please confirm: {command['verb']}", [
        f"The club's referee ({config.referee.address}) was asked, by mail from "
        f"{to.address}, to {what}.",
        "",
        f"To confirm, reply to this message from {to.address} by {until}; the reply's text "
        f"does not matter, and its address works once.",
        "If you did not ask for this, do nothing: nothing happens without your reply.",
    ], at, token=tokens.make_request(config.secret, number))
    return Decision(DONE, f"club mail: {command['verb']}: confirmation request {number} "
                          f"sent to {to.address}")


def _refuse(store: Store, config: Config, to: Sent, why: str, at: int) -> Decision:
    """A command that cannot be taken, answered in one sentence (rate-limited)."""
    _answer(store, config, to, "[tomis] not taken", "Not taken", [why], at)
    return Decision(REJECTED, f"club mail: {why}"[:500])


# --------------------------------------------------------------------------- join

def _ask_join(store: Store, config: Config, sender: str, rest: str, at: int) -> Decision:
    to = Sent("", sender)
    mode = config.settings.get(club.JOIN, "open")
    if mode == "closed":
        return _refuse(store, config, to, "The club takes no new players by mail; ask its "
                                          "organiser.", at)
    owner = store.players.by_address(sender)
    if owner is not None:
        return _refuse(store, config, Sent(owner.name, owner.address),
                       f"{sender} is already the address of the club's player "
                       f"{visible(owner.name)}.", at)
    try:
        name = players.check_player_name(rest, "join:")
    except TomisError as error:
        return _refuse(store, config, to, f"{visible(error.message)}", at)
    if store.players.by_name(name) is not None:
        return _refuse(store, config, to, f"The club has a player named {visible(name)} "
                                          f"already: choose another name.", at)
    return _ask(store, config, to, None, {"verb": "join", "name": name},
                f"make {sender} a player of the club named {visible(name)}", at)


def _join(store: Store, config: Config, row: RequestRow, command: dict, at: int) -> Decision:
    to = Sent("", row.address)
    mode = config.settings.get(club.JOIN, "open")
    if mode == "closed":
        return _refuse(store, config, to, "The club takes no new players by mail; ask its "
                                          "organiser.", at)
    try:
        player = players.register(store, command["name"], row.address, at,
                                  approved=mode == "open")
    except TomisError as error:
        return _refuse(store, config, to, f"{visible(error.message)}", at)
    name = visible(player.name)
    if player.approved:
        words = [f"Welcome, {name}: you are a player of the club.",
                 f"Mail 'challenge NAME' to {config.referee.address} to ask another player "
                 f"for a game, or 'help' for every command."]
    else:
        words = [f"Thank you, {name}: you are signed up, and the club's organiser approves "
                 f"each new player.",
                 "Until then no one can challenge you and you can challenge no one; mail "
                 f"'help' to {config.referee.address} for the commands."]
    _tell(store, config, Sent(player.name, player.address), "[tomis] welcome",
          "Welcome to the club", words, at)
    return Decision(DONE, f"club mail: {row.address} joined as player {player.id}"
                          + ("" if player.approved else " (waiting for approval)"))


# --------------------------------------------------------------------------- challenge

@dataclass(frozen=True)
class Challenge:
    """``challenge NAME [TC] [white|black]`` read: whom, under which control (None: the
    club's), and the challenger's colour (None: not asked)."""

    name: str
    control: str | None
    colour: str | None


def read_challenge(text: str) -> Challenge:
    """The words after ``challenge``: a colour last, a time control before it, both
    optional; the name is the rest. A :class:`Refusal` when no name is left."""
    words = text.split()
    colour = words.pop().lower() if words and words[-1].lower() in COLOURS else None
    control = None
    if words:
        try:
            parse_time_control(words[-1])
            control = words.pop()
        except TomisError:
            pass
    if not words:
        raise Refusal("a challenge names a player: 'challenge NAME [30d+1d] [white|black]'")
    return Challenge(" ".join(words), control, colour)


def _ask_challenge(store: Store, config: Config, sender: str, player: PlayerRow, rest: str,
                   at: int) -> Decision:
    to = Sent(player.name, player.address)
    try:
        wanted = read_challenge(rest)
        opponent = _opponent(store, player, wanted.name)
    except Refusal as error:
        return _refuse(store, config, to, visible(error.message), at)
    control = wanted.control or config.settings.get(club.TIME_CONTROL,
                                                    club.DEFAULT_TIME_CONTROL)
    colour = f", you with {wanted.colour.title()}" if wanted.colour else ""
    return _ask(store, config, Sent(player.name, sender), player.id,
                {"verb": "challenge", "opponent": opponent.id, "control": control,
                 "colour": wanted.colour},
                f"challenge {visible(opponent.name)} to a game ({control}{colour})", at)


def _opponent(store: Store, player: PlayerRow, name: str) -> PlayerRow:
    """The player ``player`` may challenge by ``name``; a :class:`Refusal` otherwise."""
    if not player.approved:
        raise Refusal("the organiser has not approved you yet: you cannot challenge anyone")
    opponent = store.players.by_name(name)
    if opponent is None:
        raise Refusal(f"the club has no player named {name[:64]!r}")
    if opponent.id == player.id:
        raise Refusal("you cannot challenge yourself")
    if not opponent.approved:
        raise Refusal(f"{opponent.name} is not approved yet: they cannot be challenged")
    return opponent


def _challenge(store: Store, config: Config, row: RequestRow, command: dict,
               at: int) -> Decision:
    """A confirmed challenge: its player is asked, with a one-time address of their own."""
    challenger = store.players.get(row.player)
    opponent = store.players.get(command["opponent"])
    to = Sent(challenger.name, challenger.address)
    try:
        _opponent(store, challenger, opponent.name if opponent else "")
    except Refusal as error:
        return _refuse(store, config, to, visible(error.message), at)
    if store.requests.count_since(opponent.address, at - DAY, CHALLENGE) >= CONFIRM_LIMIT:
        return _refuse(store, config, to, f"{visible(opponent.name)} was challenged "
                                          f"{CONFIRM_LIMIT} times today already; challenge "
                                          f"again tomorrow.", at)
    number = store.requests.add(CHALLENGE, opponent.address, opponent.id,
                                json.dumps({**command, "challenger": challenger.id}), at)
    colour = command["colour"]
    theirs = ("" if colour is None else
              f" {visible(challenger.name)} asks to play {colour.title()}, so you would have "
              f"{COLOURS[1 - COLOURS.index(colour)].title()}.")
    until = format_stamp(at + REQUEST_DAYS * DAY)
    _tell(store, config, Sent(opponent.name, opponent.address), "[tomis] a challenge",
          "A challenge", [
              f"{visible(challenger.name)} challenges you to a game of Tomis, time control "
              f"{command['control']}.{theirs}",
              "",
              f"Reply 'accept' to start the game, or 'decline', by {until}.",
          ], at, token=tokens.make_request(config.secret, number))
    _tell(store, config, to, "[tomis] challenge sent", "Challenge sent", [
        f"{visible(opponent.name)} is asked for the game; you will hear when they accept or "
        f"decline (the challenge lapses after {REQUEST_DAYS} days)."], at)
    return Decision(DONE, f"club mail: challenge {number} of player {challenger.id} to "
                          f"player {opponent.id} sent")


def _challenge_answer(store: Store, config: Config, incoming: Incoming, row: RequestRow,
                      at: int) -> Decision:
    """'accept' or 'decline' from the challenged player (any of their addresses)."""
    if not store.players.owns(row.player, incoming.sender):
        return Decision(REJECTED, f"club mail: an answer to challenge {row.id} from "
                                  f"{incoming.sender}, not its player's address: nothing done")
    opponent = store.players.get(row.player)
    word = first_line(incoming.text).split(" ")[0].lower()
    if word not in ("accept", "decline"):
        return _refuse(store, config, Sent(opponent.name, opponent.address),
                       "Reply 'accept' or 'decline' on the first line to answer the "
                       "challenge.", at)
    store.requests.use(row.id, at)
    command = json.loads(row.command)
    challenger = store.players.get(command["challenger"])
    if word == "decline":
        _tell(store, config, Sent(challenger.name, challenger.address),
              "[tomis] challenge declined", "Challenge declined",
              [f"{visible(opponent.name)} declines your challenge."], at)
        return Decision(DONE, f"club mail: challenge {row.id} declined")
    return _start(store, config, challenger, opponent, command, at)


def _start(store: Store, config: Config, challenger: PlayerRow, opponent: PlayerRow,
           command: dict, at: int) -> Decision:
    if not (challenger.approved and opponent.approved):
        return _refuse(store, config, Sent(opponent.name, opponent.address),
                       "one of you is no longer approved by the organiser: no game.", at)
    white, black = _colours(store, challenger, opponent, command["colour"])
    terms = players.Terms(time_control=command["control"],
                          leave_days=int(config.settings.get("leave_days", "45")))
    try:
        game = players.start_game(store, config, white, black, terms, at)
    except TomisError as error:
        return _refuse(store, config, Sent(opponent.name, opponent.address),
                       f"the game could not start: {visible(error.message)}", at)
    return Decision(DONE, f"club mail: challenge accepted, game {game.id} started", game.id)


def _colours(store: Store, challenger: PlayerRow, opponent: PlayerRow,
             asked: str | None) -> tuple[PlayerRow, PlayerRow]:
    """White and Black: as the challenger asked; else the two alternate, the one who had
    White in their last game together now Black; the first time, the challenged player
    has White (the challenger chose the moment, the other moves first)."""
    if asked is not None:
        return (challenger, opponent) if asked == "white" else (opponent, challenger)
    for number in reversed(store.games.of_player(challenger.id, in_play=False)):
        row = store.games.row(number)
        if {row.white_player, row.black_player} == {challenger.id, opponent.id}:
            return ((opponent, challenger) if row.white_player == challenger.id
                    else (challenger, opponent))
    return opponent, challenger


# --------------------------------------------------------------------------- leave, digest

def _ask_leave(store: Store, config: Config, sender: str, player: PlayerRow, rest: str,
               at: int) -> Decision:
    to = Sent(player.name, player.address)
    words = rest.split()
    if [word.lower() for word in words] == ["cancel"]:
        return _ask(store, config, Sent(player.name, sender), player.id,
                    {"verb": "leave cancel"}, "cancel your leave not yet begun", at)
    if len(words) != 2 or not all(_DATE.fullmatch(word) for word in words):
        return _refuse(store, config, to, "leave is 'leave FROM TO' with dates like "
                                          "2026-12-24 (UTC, inclusive), or 'leave cancel'.",
                       at)
    try:
        first, last = (date.fromisoformat(word) for word in words)
    except ValueError:
        return _refuse(store, config, to, "leave: that is no date of the calendar.", at)
    if last < first:
        return _refuse(store, config, to, "leave: the last day comes before the first.", at)
    return _ask(store, config, Sent(player.name, sender), player.id,
                {"verb": "leave", "first": first.isoformat(), "last": last.isoformat()},
                f"give you leave from {first} to {last} (UTC, inclusive) in all your games",
                at)


def _leave(store: Store, config: Config, row: RequestRow, command: dict, at: int) -> Decision:
    player = store.players.get(row.player)
    to = Sent(player.name, player.address)
    try:
        if command["verb"] == "leave cancel":
            words = clubleave.cancel(store, config, player, at)
        else:
            words = clubleave.take(store, config, player, date.fromisoformat(command["first"]),
                                   date.fromisoformat(command["last"]), at)
    except Refusal as error:
        return _refuse(store, config, to, visible(error.message), at)
    _tell(store, config, to, "[tomis] leave", "Leave", words, at)
    return Decision(DONE, f"club mail: {command['verb']} for player {player.id}")


def _ask_digest(store: Store, config: Config, sender: str, player: PlayerRow, rest: str,
                at: int) -> Decision:
    every = rest.strip().lower()
    if every not in (*DIGEST_PERIODS, "off"):
        return _refuse(store, config, Sent(player.name, player.address),
                       "digest is 'digest daily', 'digest weekly' or 'digest off'.", at)
    what = ("send you no digest" if every == "off" else
            f"send you a {every} digest of the games that wait on you")
    return _ask(store, config, Sent(player.name, sender), player.id,
                {"verb": "digest", "every": every}, what, at)


def _digest(store: Store, config: Config, row: RequestRow, command: dict, at: int) -> Decision:
    player = store.players.get(row.player)
    every = command["every"]
    if every == "off":
        store.digests.stop(player.id)
        words = ["You will get no digest."]
    else:
        due = at + DIGEST_PERIODS[every]
        store.digests.set(player.id, every, due)
        words = [f"You will get a {every} digest, first at {format_stamp(due)}, when games "
                 f"wait on you (none waiting: no message)."]
    _tell(store, config, Sent(player.name, player.address), "[tomis] digest", "Digest",
          words, at)
    return Decision(DONE, f"club mail: digest {every} for player {player.id}")


def send_digests(store: Store, config: Config, now: int) -> int:
    """Each due digest, one transaction each: the games that wait on the player, in one
    message (none waiting: none), and when the next is due; how many were queued."""
    sent = 0
    for number in store.digests.due(now):
        with store.transaction():
            sent += _one_digest(store, config, number, now)
    return sent


def _one_digest(store: Store, config: Config, number: int, now: int) -> int:
    player = store.players.get(number)
    every = store.digests.every(number)
    if player is None or every not in DIGEST_PERIODS:
        store.digests.stop(number)
        return 0
    # The next is one period on from now: a tick after a pause sends one digest, not many.
    store.digests.set_due(number, now + DIGEST_PERIODS[every])
    waiting = [entry for entry in game_entries(store, config, player, now) if entry.waiting]
    if not waiting:
        return 0
    lines = [f"{len(waiting)} game(s) wait on you:", ""]
    for entry in waiting:
        lines += entry.lines() + [""]
    lines.append(f"Mail 'digest off' to {config.referee.address} to stop these.")
    _tell(store, config, Sent(player.name, player.address), "[tomis] your games",
          f"Your {every} digest", lines, now, auto="auto-generated")
    return 1


# --------------------------------------------------------------------------- games

@dataclass(frozen=True)
class GameEntry:
    """One game of a player, as ``games`` and the digest list it."""

    number: int
    opponent: str
    colour: str
    waiting: bool                  # the player is to act
    deadline: int | None           # when their time runs out if they do not act
    last: str                      # the last action and when, in words
    reply_to: str                  # the player's reply address for this game

    def lines(self) -> list[str]:
        turn = ("Your turn" + (f", until {format_stamp(self.deadline)}"
                               if self.deadline is not None else "") + "."
                if self.waiting else "Waiting for your opponent.")
        return [f"#{self.number} against {visible(self.opponent)}, you have {self.colour}. "
                f"{turn}",
                f"  Last action: {self.last}.",
                f"  Reply to: {self.reply_to}"]


def game_entries(store: Store, config: Config, player: PlayerRow, at: int) -> list[GameEntry]:
    """``player``'s games in play: those waiting on them first, soonest deadline first,
    then the others by number."""
    entries = []
    for number in store.games.of_player(player.id, in_play=True):
        game = RefereedGame.load(store, number)
        if game is None or game.over:
            continue
        side = 0 if game.player_ids[0] == player.id else 1
        entries.append(_entry(config, game, side, at))
    return sorted(entries, key=lambda entry: (not entry.waiting,
                                              entry.deadline is None and entry.waiting,
                                              entry.deadline or 0, entry.number))


def _entry(config: Config, game: RefereedGame, side: int, at: int) -> GameEntry:
    waiting = game.to_move == side
    readings = game.readings(at) if waiting else None
    deadline = readings[side].deadline if readings is not None else None
    if game.record.nodes:
        node = game.record.nodes[-1]
        when = f" ({format_stamp(game.acted_at)})" if game.acted_at is not None else ""
        last = f"{game.actions_played}. {node.action}{when}"
    else:
        last = "none yet"
    token = tokens.make(config.secret, tokens.Seat(game.id, side), game.keys[side])
    return GameEntry(game.id, game.players[1 - side].name, SIDE_TITLES[side], waiting,
                     deadline, last, str(config.referee.reply_address(token).addr_spec))


def _games(store: Store, config: Config, player: PlayerRow, at: int) -> Decision:
    entries = game_entries(store, config, player, at)
    waiting = sum(entry.waiting for entry in entries)
    lines = [f"You play {len(entries)} game(s); {waiting} wait on you."
             if entries else "You play no game now."]
    for entry in entries:
        lines += [""] + entry.lines()
    if entries:
        lines += ["", "Answer a game from its own reply address above to play in it."]
    if not _answer(store, config, Sent(player.name, player.address), "[tomis] your games",
                   "Your games", lines, at):
        return Decision(REJECTED, "club mail: games not sent (the daily limit of answers)")
    return Decision(DONE, f"club mail: games sent to player {player.id}")


# --------------------------------------------------------------------------- a request's reply

def _answer_request(store: Store, config: Config, incoming: Incoming, number: int,
                    at: int) -> Decision:
    """A reply to one-time request ``number``: it confirms (or answers a challenge) once,
    within :data:`REQUEST_DAYS` days, from the address it was mailed to; anything else
    does nothing and is not answered (a forger learns nothing)."""
    row = store.requests.get(number)
    if row is None:
        return Decision(REJECTED, f"club mail: request {number} does not exist: nothing done")
    if row.used_at is not None:
        return Decision(REJECTED, f"club mail: request {number} was used at "
                                  f"{format_stamp(row.used_at)}: nothing done")
    if at > row.created + REQUEST_DAYS * DAY:
        return Decision(REJECTED, f"club mail: request {number} lapsed after "
                                  f"{describe_duration(REQUEST_DAYS * DAY)}: nothing done")
    if row.kind == CHALLENGE:
        return _challenge_answer(store, config, incoming, row, at)
    if incoming.sender != row.address:
        return Decision(REJECTED, f"club mail: a reply to request {number} from "
                                  f"{incoming.sender}, not {row.address}: nothing done")
    store.requests.use(number, at)
    command = json.loads(row.command)
    verb = command["verb"]
    if verb == "join":
        return _join(store, config, row, command, at)
    if verb == "challenge":
        return _challenge(store, config, row, command, at)
    if verb in ("leave", "leave cancel"):
        return _leave(store, config, row, command, at)
    return _digest(store, config, row, command, at)
