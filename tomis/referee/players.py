"""The club's players: who they are (a name, the addresses they write from, a rating),
how the organiser registers and changes them, and how a game between two of them starts.

A player lasts beyond one game: games, events, leave and ratings refer to them by their
number in the store (:class:`tomis.referee.store.Players`). A name is unique whatever its
case, so that mail commands and ``--players "A, B"`` can name a player; it holds no comma
for the same reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from ..errors import MailError, TomisError
from ..game import Game as LibraryGame
from ..outgoing.headers import address_pairs
from . import clubleave
from .composing import Addressee
from .games import RefereedGame
from .queueing import Config, queue_update
from .store import PlayerRow, Store

MAX_NAME = 64
# The ranges a rating may be given in by hand: Glicko-2's deviation never grows past a new
# player's 350, and a volatility past 0.15 is none seen in practice.
RATING_RANGE = (0.0, 4000.0)
DEVIATION_RANGE = (1.0, 350.0)
VOLATILITY_RANGE = (0.0001, 0.15)

# What the first message of a game tells both players, so that no one has to guess.
FIRST_HELP = ("New to Tomis or to playing by mail? Reply 'help' for a short guide: the "
              "notation with examples, the commands, and the rules attached.")


class RefereeError(TomisError):
    """A bad value given to a referee command."""


def check_name(text: str, what: str) -> str:
    """``text`` as a name (an event's, a referee's): 1 to :data:`MAX_NAME` printable
    characters without ``< > " \\``, stripped."""
    if not text.strip() or len(text) > MAX_NAME or not text.isprintable() or any(
            c in text for c in '<>"\\'):
        raise RefereeError(f"{what} {text!r}: a name is 1 to {MAX_NAME} printable characters "
                           f"without < > \" \\")
    return text.strip()


def check_player_name(text: str, what: str) -> str:
    """A player's name: a name (:func:`check_name`) without a comma, as lists of players
    are written "A, B, C"."""
    name = check_name(text, what)
    if "," in name:
        raise RefereeError(f"{what} {text!r}: a player's name holds no comma (lists of "
                           f"players are written \"Ana Lungu, Bo Marin\")")
    return name


def parse_player(text: str, what: str) -> Addressee:
    """``NAME <ADDR>`` as a :class:`Addressee` (the address checked and lowercased)."""
    try:
        ((name, address),) = address_pairs(text, what, single=True)
    except MailError:
        name = address = ""
    if not name:
        raise RefereeError(f"{what} {text!r} must be like \"Ana Lungu <ana@example.org>\"")
    return Addressee(check_name(name, what), address.lower())


def parse_address(text: str, what: str) -> str:
    """One plain mail address, lowercased."""
    try:
        ((_name, address),) = address_pairs(text, what, single=True)
    except MailError:
        address = ""
    if not address:
        raise RefereeError(f"{what} {text!r} must be one address like ana@example.org")
    return address.lower()


@dataclass(frozen=True)
class Glicko:
    """A rating given by hand (None: a new player's)."""

    rating: float | None = None
    deviation: float | None = None
    volatility: float | None = None


def _in_range(value: float | None, bounds: tuple[float, float], what: str) -> None:
    if value is not None and not bounds[0] <= value <= bounds[1]:
        raise RefereeError(f"{what} {value:g}: from {bounds[0]:g} to {bounds[1]:g}")


def register(store: Store, name: str, address: str, at: int, *, approved: bool = True,
             glicko: Glicko = Glicko()) -> PlayerRow:
    """A new player, in the caller's transaction; a name or an address already a
    player's is refused (in one line, naming whose it is)."""
    name = check_player_name(name, "the player")
    _in_range(glicko.rating, RATING_RANGE, "--rating")
    _in_range(glicko.deviation, DEVIATION_RANGE, "--deviation")
    _in_range(glicko.volatility, VOLATILITY_RANGE, "--volatility")
    if store.players.by_name(name) is not None:
        raise RefereeError(f"there is a player named {store.players.by_name(name).name} "
                           f"already")
    owner = store.players.by_address(address)
    if owner is not None:
        raise RefereeError(f"{address} is {owner.name}'s address already")
    given = {key: value for key, value in (("rating", glicko.rating),
                                            ("deviation", glicko.deviation),
                                            ("volatility", glicko.volatility))
             if value is not None}
    number = store.players.add(name, address, at, approved=approved, **given)
    return store.players.get(number)


def named(store: Store, name: str) -> PlayerRow:
    """The player called ``name`` (whatever its case); a one-line error when none is."""
    player = store.players.by_name(name.strip())
    if player is None:
        raise RefereeError(f"there is no player named {name.strip()!r} (see 'tomis referee "
                           f"players')")
    return player


def seat(store: Store, addressee: Addressee, at: int) -> PlayerRow:
    """The player a game's seat is given to: the player who writes from the address,
    else a new player. A registered name with another address is refused rather than
    guessed at: it may be someone else of that name, or the player's new address, which
    ``player address`` gives them for all their games."""
    player = store.players.by_address(addressee.address)
    if player is not None:
        return player
    named_so = store.players.by_name(addressee.name)
    if named_so is not None:
        raise RefereeError(f"{named_so.name} is registered at {named_so.address}, not "
                           f"{addressee.address}: give the name alone for that player, or "
                           f"add the address with 'tomis referee player address'")
    return register(store, addressee.name, addressee.address, at)


def seat_named(store: Store, text: str, what: str, at: int) -> PlayerRow:
    """A seat given on the command line: "NAME <ADDR>" (:func:`seat`) or a registered
    player's NAME."""
    if "<" in text or "@" in text:
        return seat(store, parse_player(text, what), at)
    return named(store, text)


@dataclass(frozen=True)
class Terms:
    """What a new game is played under."""

    time_control: str | None = None
    leave_days: int = 45
    event: str | None = None
    round: str | None = None
    rules: str = "manual"


def start_game(store: Store, config: Config, white: PlayerRow, black: PlayerRow,
               terms: Terms, now: int, *, announce: bool = True) -> RefereedGame:
    """Start a game of ``white`` against ``black``, in the caller's transaction. With
    ``announce`` each player is mailed the game's first message; without, the caller
    tells them (an event lists all of a player's games in one message)."""
    if white.id == black.id:
        raise RefereeError(f"{white.name} cannot play against themselves")
    if terms.event is not None:
        check_name(terms.event, "--event")
    day = datetime.fromtimestamp(now, tz=timezone.utc).strftime("%Y.%m.%d")
    library = LibraryGame(white=white.name, black=black.name, rules=terms.rules,
                          event=terms.event, site=config.referee.domain, date=day,
                          round=terms.round)
    if terms.time_control is not None:
        try:
            # The allowance is written out, so the record says it without a default.
            library.start_clock(terms.time_control, now, terms.leave_days)
        except TomisError as error:
            raise RefereeError(f"--time-control: {error.message}") from None
    game = RefereedGame.insert(
        store, (Addressee(white.name, white.address), Addressee(black.name, black.address)),
        library.record, terms.leave_days, now, (white.id, black.id))
    # leave: a player on leave across their games is on leave in this one too.
    on_leave = clubleave.extend_to(store, game, now)
    if announce:
        for side, words in ((0, "You have White: your turn."),
                            (1, "You have Black: White plays first; you will hear of it.")):
            queue_update(store, config, game, side, "the game begins",
                         [f"A new game of Tomis begins. {words}", *on_leave, FIRST_HELP],
                         None, [], now)
    game.save(store)
    return game


# --------------------------------------------------------------------------- the organiser

@dataclass(frozen=True)
class PlayerListing:
    """A player as ``tomis referee players`` shows them."""

    name: str
    address: str
    addresses: list[str]
    rating: float
    deviation: float
    volatility: float
    approved: bool
    games_in_play: int
    games: int
    leave_days_used: int = 0        # leave: days of leave across games taken this year

    def as_json(self) -> dict:
        return {"name": self.name, "address": self.address, "addresses": self.addresses,
                "rating": round(self.rating, 2), "deviation": round(self.deviation, 2),
                "volatility": round(self.volatility, 6), "approved": self.approved,
                "games_in_play": self.games_in_play, "games": self.games,
                "leave_days_used": self.leave_days_used}


def listing(store: Store, year: int) -> list[PlayerListing]:
    """Every player, by name, with their addresses, how many games they play, and the days
    of leave across games they took in ``year``."""
    used = clubleave.days_used(store, year)
    return [PlayerListing(player.name, player.address, store.players.addresses(player.id),
                   player.rating, player.deviation, player.volatility, player.approved,
                   len(store.games.of_player(player.id, in_play=True)),
                   len(store.games.of_player(player.id, in_play=False)),
                   used.get(player.id, 0))
            for player in store.players.all()]


def add_address(store: Store, name: str, text: str) -> tuple[PlayerRow, list[int]]:
    """Give player ``name`` the address ``text`` and mail them there from now on, in their
    games in play too; the player and those games' numbers."""
    player = named(store, name)
    address = parse_address(text, "the address")
    owner = store.players.by_address(address)
    if owner is not None and owner.id != player.id:
        raise RefereeError(f"{address} is {owner.name}'s address already")
    store.players.add_address(player.id, address)
    store.games.readdress_player(player.id, address)
    return store.players.get(player.id), store.games.of_player(player.id, in_play=True)


def rename(store: Store, old: str, new: str) -> PlayerRow:
    """Call player ``old`` ``new`` from now on (in their games in play too)."""
    player = named(store, old)
    new = check_player_name(new, "the new name")
    other = store.players.by_name(new)
    if other is not None and other.id != player.id:
        raise RefereeError(f"there is a player named {other.name} already")
    store.players.rename(player.id, new)
    store.games.rename_player(player.id, new)
    return store.players.get(player.id)
