"""The organiser's event commands: ``event new``, ``event list`` and ``event show``.

Starting an event is one transaction, however many games it starts (1,770 for a round
robin of 60): the games, their rows, the byes and one message per player are all written
or none is. Then the queue is sent. Nothing here prints: the CLI does.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..notation.clock import format_stamp
from .events import (EventGame, EventPlan, Started, event_games,
                     event_standings, rounds_done, start_event, state_words)
from .players import RefereeError
from .sending import Unsent, send_queued
from .service import connect
from .store import EventRow, Store


def new_event(path: str, plan: EventPlan, now: int) -> tuple[Started, list[Unsent]]:
    """Start the event of ``plan`` (:func:`tomis.referee.events.start_event`) and send its
    messages; what was started, and the messages not sent yet."""
    store, config = connect(path)
    with store:
        with store.transaction():
            started = start_event(store, config, plan, now)
        return started, send_queued(store, config.settings, now=now, retry=False)


@dataclass(frozen=True)
class EventListing:
    """One line of ``event list``."""

    name: str
    format: str
    double: bool
    players: int
    rounds_done: int
    rounds: int
    state: str
    created: int

    def to_json(self) -> dict:
        return {"name": self.name, "format": self.format, "double": self.double,
                "players": self.players, "rounds_done": self.rounds_done,
                "rounds": self.rounds, "state": self.state,
                "created": format_stamp(self.created)}


def list_events(path: str) -> list[EventListing]:
    """Every event, oldest first: its format, players, rounds ended of all, state."""
    store, _config = connect(path)
    with store:
        listed = []
        for event in store.events.all():
            games = event_games(store, event)
            listed.append(EventListing(event.name, event.format, event.double,
                                       len(store.events.entrants(event.id)),
                                       rounds_done(event, games), event.rounds,
                                       state_words(event, games), event.created))
        return listed


@dataclass(frozen=True)
class StandingLine:
    rank: int
    number: int
    name: str
    score: float
    sonneborn_berger: float
    buchholz: float
    games: int
    player: int | None = None       # players.id: the page links the player's own page

    def to_json(self) -> dict:
        return {"rank": self.rank, "number": self.number, "name": self.name,
                "score": self.score, "sonneborn_berger": self.sonneborn_berger,
                "buchholz": self.buchholz, "games": self.games}


@dataclass(frozen=True)
class RoundGame:
    """A game of a round as ``event show`` lists it (``black`` None: a bye)."""

    game: int | None
    white: str
    black: str | None
    result: str
    white_number: int
    black_number: int | None

    def to_json(self) -> dict:
        return {"game": self.game, "white": self.white, "black": self.black,
                "result": self.result}


@dataclass(frozen=True)
class EventShown:
    """``event show``: the event, its standings and its rounds with their results."""

    event: EventRow
    players: int
    state: str
    standings: list[StandingLine]
    rounds: dict[int, list[RoundGame]]

    def to_json(self) -> dict:
        return {"name": self.event.name, "format": self.event.format,
                "double": self.event.double, "players": self.players,
                "rounds": self.event.rounds, "time_control": self.event.time_control,
                "state": self.state,
                "standings": [line.to_json() for line in self.standings],
                "pairings": {str(round): [game.to_json() for game in games]
                             for round, games in self.rounds.items()}}


def show_event(path: str, name: str) -> EventShown:
    """The event named ``name`` (in any case), with standings and rounds."""
    store, _config = connect(path)
    with store:
        event = store.events.by_name(name.strip())
        if event is None:
            raise RefereeError(f"there is no event named {name!r} (tomis referee event list DB)")
        return shown_event(store, event)


def shown_event(store: Store, event: EventRow) -> EventShown:
    games = event_games(store, event)
    entrants = {entrant.number: entrant for entrant in store.events.entrants(event.id)}
    names = {number: entrant.name for number, entrant in entrants.items()}
    table = [StandingLine(rank, standing.number, names[standing.number], standing.score,
                          standing.sonneborn_berger, standing.buchholz, standing.games,
                          entrants[standing.number].player)
             for rank, standing in enumerate(event_standings(store, event, games), 1)]
    return EventShown(event, len(names), state_words(event, games), table,
                      rounds_of(store, event, games, names))


def rounds_of(store: Store, event: EventRow, games: list[EventGame],
              names: dict[int, str]) -> dict[int, list[RoundGame]]:
    """Each started round's games in board order, then its byes."""
    rounds: dict[int, list[RoundGame]] = {round: [] for round in range(1, event.paired + 1)}
    for game in games:
        rounds[game.round].append(RoundGame(game.game, names[game.white], names[game.black],
                                            game.result, game.white, game.black))
    for bye in store.events.byes(event.id):
        rounds[bye.round].append(RoundGame(None, names[bye.number], None, "bye", bye.number,
                                           None))
    return rounds
