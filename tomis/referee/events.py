"""Events: a round robin or a Swiss, its games started by rounds, its standings.

A round robin starts every round at once (Berger tables, :func:`tomis.season.pairing.
round_robin`; ``double`` plays each pairing with both colours); a Swiss starts round 1 at
once and each next round when the last game of the round before ends, by
:func:`advance`, the season's step for an event (:mod:`tomis.referee.season`). The
games are the referee's usual games, started by :func:`tomis.referee.players.start_game`
without their first message: each player gets one message per start instead, listing
their games, each with the seat's own reply address (a reply there plays in that game
alone). Standings rank by score, then Sonneborn-Berger, then Buchholz
(:func:`tomis.season.tiebreaks.standings`).

Everything here runs inside the caller's transaction and takes the :class:`Store`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from email.headerregistry import Address
from typing import Sequence

from ..errors import TomisError, one_line, visible
from ..notation.clock import parse_time_control
from ..outgoing import message as mail_message
from ..outgoing.headers import message_bytes
from ..season.pairing import Entrant, Pairing, PairingError, round_robin, swiss_round
from ..season.tiebreaks import GameResult, Standing, standings
from . import tokens
from .games import RefereedGame
from .players import RefereeError, Terms, check_name, start_game
from .queueing import Config
from .sending import check_envelope
from .store import EventGameRow, EventRow, PlayerRow, Store

ROUND_ROBIN, SWISS = "round-robin", "swiss"
FORMATS = (ROUND_ROBIN, SWISS)
BYE_POINTS = {ROUND_ROBIN: 0.0, SWISS: 1.0}      # a round robin's bye scores nothing
# Bounds that keep one start within one transaction of seconds: a round robin of 100
# players is 4,950 games started at once; a Swiss round of 1,000 is 500.
MAX_PLAYERS = {ROUND_ROBIN: 100, SWISS: 1000}
MAX_ROUNDS = 99
SCORES = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}      # White's score by the result


@dataclass(frozen=True)
class EventPlan:
    """What ``event new`` asks for, before it is checked."""

    name: str
    format: str
    double: bool
    rounds: int | None
    time_control: str
    leave_days: int
    names: tuple[str, ...]          # the players as registered, in seeding order


@dataclass(frozen=True)
class EventSeat:
    """A player's game in one round: the game, their side, the opponent's number."""

    round: int
    game: RefereedGame
    side: int
    opponent: int


@dataclass(frozen=True)
class Started:
    """What starting an event (or one more round of it) did."""

    event: int
    rounds: tuple[int, ...]
    games: int
    letters: int


# --------------------------------------------------------------------------- checking

def player_names(values: Sequence[str]) -> tuple[str, ...]:
    """The names of ``--players`` options, each a comma-separated list, in order."""
    names = []
    for value in values:
        for part in value.split(","):
            name = part.strip()
            if not name:
                raise RefereeError(f"--players {one_line(value)!r}: an empty name between "
                                 f"commas; write the names as registered, like \"Ana, Bo\"")
            names.append(name)
    return tuple(names)


def check_event_name(text: str) -> str:
    """An event's name: a name as a player's is (:func:`tomis.referee.players.check_name`),
    for it stands in the records' Event tag and the subject of the players' mail."""
    return check_name(text, "the event's name")


def check_plan(store: Store, plan: EventPlan) -> list[PlayerRow]:
    """The players of ``plan`` as registered, in its order, when the plan can start;
    else an :class:`RefereeError` saying what is wrong (nothing is written)."""
    name = check_event_name(plan.name)
    if plan.format not in FORMATS:
        raise RefereeError(f"--format {plan.format!r}: round-robin or swiss")
    if store.events.by_name(name) is not None:
        raise RefereeError(f"there is already an event named {name!r}: choose another name")
    if plan.format == SWISS and plan.double:
        raise RefereeError("--double is for a round robin (a Swiss never pairs two players twice)")
    if plan.format == ROUND_ROBIN and plan.rounds is not None:
        raise RefereeError("--rounds is for a Swiss: a round robin plays every pairing, so its "
                         "rounds follow from the number of players")
    if plan.format == SWISS and plan.rounds is None:
        raise RefereeError("a Swiss needs --rounds N, the number of rounds it plays")
    try:
        parse_time_control(plan.time_control)
    except TomisError as error:
        raise RefereeError(f"--time-control: {error.message}") from None
    players = _registered(store, plan.names)
    least = 3 if plan.format == SWISS else 2
    if len(players) < least:
        raise RefereeError(f"a {_format_words(plan.format)} needs at least {least} players; "
                         f"--players names {len(players)}")
    most = MAX_PLAYERS[plan.format]
    if len(players) > most:
        raise RefereeError(f"a {_format_words(plan.format)} takes at most {most} players; "
                         f"--players names {len(players)}")
    if plan.format == SWISS:
        # Without a repeated pair or a second bye: n - 1 rounds for an even n, n for an odd.
        most_rounds = min(MAX_ROUNDS, len(players) - 1 + len(players) % 2)
        if not 1 <= plan.rounds <= most_rounds:
            raise RefereeError(f"--rounds {plan.rounds}: a Swiss of {len(players)} players "
                             f"plays 1 to {most_rounds} rounds (no pair twice, one bye each)")
    return players


def _registered(store: Store, names: tuple[str, ...]) -> list[PlayerRow]:
    players, seen = [], {}
    for name in names:
        player = store.players.by_name(name)
        if player is None:
            raise RefereeError(f"--players: no player is registered as {visible(name)!r} "
                             f"(tomis referee players DB lists them)")
        if not player.approved:
            raise RefereeError(f"--players: {visible(player.name)!r} is not approved yet "
                             f"(tomis referee player approve DB NAME)")
        if player.id in seen:
            raise RefereeError(f"--players names {visible(player.name)!r} twice")
        seen[player.id] = name
        players.append(player)
    return players


def _format_words(format: str) -> str:
    return "round robin" if format == ROUND_ROBIN else "Swiss"


# --------------------------------------------------------------------------- starting

def start_event(store: Store, config: Config, plan: EventPlan, now: int) -> Started:
    """Check ``plan`` and start its event in the caller's transaction: a round robin's
    every round, a Swiss's first; each player gets one message listing their games."""
    players = check_plan(store, plan)
    count = len(players)
    if plan.format == ROUND_ROBIN:
        tables = round_robin(count, double=plan.double)
    else:
        tables = [swiss_round([Entrant(number, 0.0, (), "", False)
                               for number in range(1, count + 1)])]
    rounds = len(tables) if plan.format == ROUND_ROBIN else plan.rounds
    number = store.events.add(check_event_name(plan.name), plan.format, double=plan.double,
                              rounds=rounds, time_control=plan.time_control,
                              leave_days=plan.leave_days, created=now)
    store.events.add_players(number, [player.id for player in players])
    event = store.events.get(number)
    return _start_rounds(store, config, event, players,
                         {round: pairings for round, pairings in enumerate(tables, 1)}, now)


def _start_rounds(store: Store, config: Config, event: EventRow, players: list[PlayerRow],
                  tables: dict[int, list[Pairing]], now: int) -> Started:
    """Start the games of ``tables`` (round -> pairings, numbers 1-based into
    ``players``), note the byes, and mail each player their games of these rounds."""
    seats: dict[int, list[EventSeat]] = {number: [] for number in range(1, len(players) + 1)}
    byes: dict[int, list[int]] = {number: [] for number in seats}
    games = 0
    for round, pairings in tables.items():
        terms = Terms(event.time_control, event.leave_days, event.name, str(round))
        started = []
        for pairing in pairings:
            if pairing.black is None:
                store.events.add_bye(event.id, round, pairing.white)
                byes[pairing.white].append(round)
                continue
            game = start_game(store, config, players[pairing.white - 1],
                              players[pairing.black - 1], terms, now, announce=False)
            started.append(game.id)
            seats[pairing.white].append(EventSeat(round, game, 0, pairing.black))
            seats[pairing.black].append(EventSeat(round, game, 1, pairing.white))
        store.events.place_games(event.id, round, started)
        games += len(started)
    store.events.set_paired(event.id, max(tables))
    for number, player in enumerate(players, 1):
        _queue_games_letter(store, config, event, player, number, len(players),
                            seats[number], byes[number], tuple(tables), players, now)
    return Started(event.id, tuple(tables), games, len(players))


# --------------------------------------------------------------------------- the message

def _queue_games_letter(store: Store, config: Config, event: EventRow, player: PlayerRow,
                        number: int, count: int, seats: list[EventSeat], byes: list[int],
                        rounds: tuple[int, ...], players: list[PlayerRow], now: int) -> None:
    """One message to ``player`` listing their games of ``rounds``, each with its seat's
    reply address: from the referee's bare address, since it is no one game's."""
    referee = config.referee
    body = "\n".join(games_letter_lines(event, config, number, count, seats, byes, rounds,
                                        players))
    local, domain = player.address.rsplit("@", 1)
    headers = [("From", Address(display_name=referee.name, username=referee.local,
                                domain=referee.domain)),
               ("To", Address(display_name=player.name, username=local, domain=domain)),
               ("Subject", letter_subject(event, rounds)),
               ("Date", mail_message.date_of(now)),
               ("Message-ID", mail_message.new_message_id(referee.domain)),
               ("Auto-Submitted", "auto-generated"), ("X-Mailer", "tomis referee")]
    message = mail_message.build_message(headers, body + "\n")
    check_envelope(message, referee.address, player.address)
    store.outbox.add(None, None, now, referee.address, player.address, message_bytes(message))


def letter_subject(event: EventRow, rounds: tuple[int, ...]) -> str:
    """``[tomis] EVENT: your games`` (a round robin), ``[tomis] EVENT, round N: your
    game``; ``=?`` is written ``= ?`` so that no reader decodes it as an encoded word."""
    name = one_line(event.name).replace("=?", "= ?")
    if len(rounds) == 1 and event.format == SWISS:
        return f"[tomis] {name}, round {rounds[0]}: your game"
    return f"[tomis] {name}: your games"


def seat_address(config: Config, game: RefereedGame, side: int) -> str:
    """The reply address of ``side`` in ``game``: mail to it plays there."""
    token = tokens.make(config.secret, tokens.Seat(game.id, side), game.keys[side])
    return config.referee.reply_address(token).addr_spec


def games_letter_lines(event: EventRow, config: Config, number: int, count: int,
                       seats: list[EventSeat], byes: list[int], rounds: tuple[int, ...],
                       players: list[PlayerRow]) -> list[str]:
    """The text of a player's message at a start: the event, then each of their games
    of ``rounds`` (round, game, colour, opponent, whose turn) with its reply address."""
    what = _format_words(event.format) + (" with both colours" if event.double else "")
    if len(rounds) == 1 and event.format == SWISS:
        opening = (f"Round {rounds[0]} of {event.rounds} of {event.name} is paired.")
    else:
        opening = (f"{event.name} begins: a {what} of {count} players in {event.rounds} "
                   f"rounds, every game started now.")
    lines = [opening,
             f"You are player {number} of {count}. Time control: {event.time_control}; "
             f"each game's clock runs from now.", "",
             "Each game has its own address. To play in a game, reply to a message of that",
             "game or write to its address below: a message to one game's address plays in",
             "that game only. A reply to this message reaches the club, not a game.", ""]
    listed = sorted([(seat.round, 0, seat) for seat in seats]
                    + [(round, 1, None) for round in byes], key=lambda item: item[:2])
    for round, _bye, seat in listed:
        if seat is None:
            scored = "one point" if event.format == SWISS else "no point"
            lines.append(f"Round {round}: a bye, no game ({scored}).")
            continue
        colour = "White" if seat.side == 0 else "Black"
        turn = ("your turn." if seat.side == 0
                else "White plays first; you will hear of it.")
        lines += [f"Round {round}, game #{seat.game.id}: {colour} against "
                  f"{visible(players[seat.opponent - 1].name)}; {turn}",
                  f"  {seat_address(config, seat.game, seat.side)}"]
    lines += ["", "Send 'help' to a game's address for a short guide: the notation, the "
              "commands,", "and the rules attached."]
    return lines


# --------------------------------------------------------------------------- rounds end

def advance(store: Store, config: Config, game: RefereedGame, at: int) -> None:
    """The season's step for a game that ended: when it was the last game in play of its
    round, a Swiss pairs and starts the next round (until its last), and an event with
    no game left to play is finished. A round that cannot be paired (no pairing without a
    repeated pair) ends the event there; the step never fails the change it follows."""
    place = store.events.place_of(game.id)
    if place is None:
        return
    event = store.events.get(place.event)
    if event is None or event.finished is not None or store.events.in_play(event.id, place.round):
        return
    if event.format == SWISS and place.round == event.paired < event.rounds:
        players = [store.players.get(entrant.player)
                   for entrant in store.events.entrants(event.id)]
        try:
            pairings = swiss_round(entrants_now(store, event))
        except PairingError as error:
            store.events.finish(event.id, at, f"round {place.round + 1} could not be "
                                              f"paired: {error.message}"[:300])
            return
        _start_rounds(store, config, event, players, {place.round + 1: pairings}, at)
        return
    if event.paired >= event.rounds and store.events.in_play(event.id) == 0:
        store.events.finish(event.id, at)


# --------------------------------------------------------------------------- results

@dataclass(frozen=True)
class EventGame:
    """A game of an event by the players' numbers, with White's score (None: not decided)."""

    game: int
    round: int
    white: int
    black: int
    result: str
    over: bool
    white_score: float | None


def event_games(store: Store, event: EventRow) -> list[EventGame]:
    """The event's games by round, each by its players' numbers and its result (from the
    summary saved with the game; a game an older program saved is read)."""
    numbers = {entrant.player: entrant.number for entrant in store.events.entrants(event.id)}
    return [_event_game(store, row, numbers) for row in store.events.games(event.id)]


def _event_game(store: Store, row: EventGameRow, numbers: dict[int, int]) -> EventGame:
    if row.summary is not None:
        result = json.loads(row.summary)["result"]
    else:
        result = RefereedGame.load(store, row.game).record.result
    return EventGame(row.game, row.round, numbers[row.white_player], numbers[row.black_player],
                     result, row.over, SCORES.get(result) if row.over else None)


def entrants_now(store: Store, event: EventRow) -> list[Entrant]:
    """Each player as a Swiss pairs them: score (a bye a point), opponents, colours in
    the order played, and whether they had a bye. A game ended without a result (aborted)
    counts as met, and scores nothing."""
    count = len(store.events.entrants(event.id))
    score = {number: 0.0 for number in range(1, count + 1)}
    opponents: dict[int, list[int]] = {number: [] for number in score}
    colours = {number: "" for number in score}
    had_bye = set()
    for bye in store.events.byes(event.id):
        score[bye.number] += BYE_POINTS[event.format]
        had_bye.add(bye.number)
    for game in event_games(store, event):
        opponents[game.white].append(game.black)
        opponents[game.black].append(game.white)
        colours[game.white] += "w"
        colours[game.black] += "b"
        if game.white_score is not None:
            score[game.white] += game.white_score
            score[game.black] += 1.0 - game.white_score
    return [Entrant(number, score[number], tuple(opponents[number]), colours[number],
                    number in had_bye) for number in score]


def event_standings(store: Store, event: EventRow,
                    games: list[EventGame] | None = None) -> list[Standing]:
    """The event's standings, ranked: score, then Sonneborn-Berger, then Buchholz."""
    games = event_games(store, event) if games is None else games
    count = len(store.events.entrants(event.id))
    results = [GameResult(game.white, game.black, game.white_score) for game in games]
    results += [GameResult(bye.number, None, BYE_POINTS[event.format])
                for bye in store.events.byes(event.id)]
    return standings(list(range(1, count + 1)), results,
                     bye_points=BYE_POINTS[event.format])


def rounds_done(event: EventRow, games: list[EventGame]) -> int:
    """How many of the started rounds have every game ended."""
    open_rounds = {game.round for game in games if not game.over}
    return sum(1 for round in range(1, event.paired + 1) if round not in open_rounds)


def state_words(event: EventRow, games: list[EventGame]) -> str:
    """Where the event stands, in a few words: ``finished``, ``round 2 of 5 in play``."""
    if event.finished is not None and event.stopped is not None:
        return f"ended after round {event.paired} of {event.rounds}: {event.stopped}"
    if event.finished is not None:
        return "finished"
    done = rounds_done(event, games)
    if event.format == SWISS:
        return f"round {event.paired} of {event.rounds} in play"
    return f"{done} of {event.rounds} rounds ended"

