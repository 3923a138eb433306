"""Leave across all of a player's games (issue 43): one period, written into the record of
each game the player has in play, counted once against the club's yearly allowance.

ICCF gives a player 45 days of leave a calendar year for all their games at once; a
game's own ``LeaveDays`` tag counts only that game. The club's allowance is the setting
``leave_days`` (default 45, ``settings --leave-days``); each period taken is a row of
``club_leaves`` (:class:`tomis.referee.store.ClubLeaves`), so a game that starts during
it gets the rest of it too (:func:`extend_to`). In each record the leave is the
library's (:meth:`tomis.Game.take_leave`): after the game's last action, naming the
player's side when that action is the opponent's (docs/NOTATION.md, "Leave").

Every function here works inside the caller's transaction and checks everything before
it writes anything: a period refused by the club or by any one game is refused whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from ..notation import clock
from ..rules.board import SIDE_TITLES
from . import letters
from .games import MAX_LEAVE_AHEAD_DAYS, RefereedGame, Refusal
from .queueing import Config, queue_update
from .store import ClubLeaveRow, PlayerRow, Store

LEAVE_DAYS = "leave_days"         # the club setting (tomis.referee.club.SETTINGS)
DEFAULT_LEAVE_DAYS = 45           # a calendar year, as ICCF
MAX_CLUB_LEAVES = 20              # periods not yet over a player holds (a game holds at most 20)


@dataclass(frozen=True)
class Account:
    """A player's leave in one calendar year: the club's allowance and the days taken."""

    year: int
    allowance: int
    used: int

    @property
    def left(self) -> int:
        return max(0, self.allowance - self.used)

    def words(self) -> str:
        return (f"Your leave in {self.year}: {self.used} of the club's {self.allowance} days "
                f"taken, {self.left} left.")


@dataclass
class Seated:
    """One game of the player's in play with clocks, and the seats the player holds there."""

    game: RefereedGame
    sides: tuple[int, ...]


def allowance(store: Store) -> int:
    """The club's leave a player may take per calendar year, across all their games."""
    return int(store.settings().get(LEAVE_DAYS, DEFAULT_LEAVE_DAYS))


def account(store: Store, player_id: int, year: int) -> Account:
    """``player_id``'s leave taken in ``year`` (UTC), cancelled leave not counted."""
    kept = [_leave_of(row) for row in store.club_leaves.of_player(player_id)]
    return Account(year, allowance(store), clock.leave_days_in_year(kept, 0, year))


def days_used(store: Store, year: int) -> dict[int, int]:
    """Each player's days of club leave in ``year`` (players without any left out): the
    organiser's listing reads them in one query."""
    by_player: dict[int, list[clock.Leave]] = {}
    for row in store.club_leaves.all_kept():
        by_player.setdefault(row.player, []).append(_leave_of(row))
    return {player: clock.leave_days_in_year(leaves, 0, year)
            for player, leaves in by_player.items()}


# --------------------------------------------------------------------------- take

def take(store: Store, config: Config, player: PlayerRow, first: date, last: date,
         at: int) -> list[str]:
    """``player`` takes leave from ``first`` to ``last`` (UTC days, inclusive) in every
    game they have in play with clocks, counted once against the club's allowance; each
    opponent is told in that game. Words for the player. Raises :class:`Refusal`, with
    nothing written anywhere, for a period not ahead, overlapping the player's club leave,
    past the allowance, or refused by any game (each such game named with its reason)."""
    leave = _period(first, last, at)
    kept = store.club_leaves.of_player(player.id)
    _refuse_overlap(leave, kept)
    if len([row for row in kept if _leave_of(row).ends > at]) >= MAX_CLUB_LEAVES:
        raise Refusal(f"at most {MAX_CLUB_LEAVES} periods of leave across your games not yet "
                      f"over")
    _refuse_past_allowance(store, leave, kept)
    seated = _games_of(store, player.id)
    refusals = []
    for each in seated:
        for side in each.sides:
            try:
                each.game.add_leave(side, first, last, at)
            except Refusal as error:
                refusals.append(f"game #{each.game.id}: {error.message}")
    if refusals:
        raise Refusal(f"leave {first} {last} is taken in all your games or in none, and "
                      f"{len(refusals)} refused it: " + "; ".join(refusals))
    store.club_leaves.add(player.id, first.isoformat(), last.isoformat(), at)
    for each in seated:
        each.game.save(store)
        _tell_opponents(store, config, each, at, "takes leave from",
                        "that clock stands still then", (first.isoformat(), last.isoformat()))
    numbers = ", ".join(f"#{each.game.id}" for each in seated)
    where = (f"in your {len(seated)} game(s) in play with clocks: {numbers}" if seated
             else "for the games you start before it ends (you have none in play with clocks now)")
    return [f"Leave from {first} to {last} (UTC, inclusive, {leave.days} day(s)) is taken "
            f"{where}. Your clock stands still then, and each opponent is told.",
            *_years_words(store, player.id, leave)]


def _period(first: date, last: date, at: int) -> clock.Leave:
    """The leave from ``first`` to ``last`` if the referee takes it at ``at``: future days
    only, the last day not before the first, ending within MAX_LEAVE_AHEAD_DAYS."""
    begins = clock.parse_date(first.isoformat())
    if last < first:
        raise Refusal(f"leave {first} {last}: the last day comes before the first")
    if begins <= at:
        raise Refusal(f"leave {first} {last}: leave is taken for future days only "
                      f"(today is {clock.format_date(at)}, UTC)")
    if clock.parse_date(last.isoformat()) > at + MAX_LEAVE_AHEAD_DAYS * clock.DAY:
        raise Refusal(f"leave {first} {last}: leave ends within {MAX_LEAVE_AHEAD_DAYS} days "
                      f"of today ({clock.format_date(at)}, UTC)")
    return clock.Leave(0, begins, clock.parse_date(last.isoformat()) + clock.DAY)


def _refuse_overlap(leave: clock.Leave, kept: list[ClubLeaveRow]) -> None:
    for row in kept:
        other = _leave_of(row)
        if other.begins < leave.ends and leave.begins < other.ends:
            raise Refusal(f"leave {leave}: it overlaps your leave from {row.first_day} to "
                          f"{row.last_day}")


def _refuse_past_allowance(store: Store, leave: clock.Leave, kept: list[ClubLeaveRow]) -> None:
    limit = allowance(store)
    taken = [_leave_of(row) for row in kept] + [leave]
    for year in clock.years_of(leave):
        days = clock.leave_days_in_year(taken, 0, year)
        if days > limit:
            before = days - clock.leave_days_in_year([leave], 0, year)
            raise Refusal(f"leave {leave} brings your leave in {year} to {days} days, more "
                          f"than the {limit} the club gives a player per calendar year "
                          f"({max(0, limit - before)} left)")


def _years_words(store: Store, player_id: int, leave: clock.Leave) -> list[str]:
    return [account(store, player_id, year).words() for year in clock.years_of(leave)]


# --------------------------------------------------------------------------- cancel

def cancel(store: Store, config: Config, player: PlayerRow, at: int) -> list[str]:
    """Cancel ``player``'s club leave whose first day has not begun at ``at``: taken out
    of the record of every game in play that holds it, and out of the account (its days
    given back); each opponent is told. Leave already begun stays whole. Words for the
    player."""
    ahead = [row for row in store.club_leaves.of_player(player.id)
             if clock.parse_date(row.first_day) > at]
    if not ahead:
        return ["You have no leave across your games that has not begun: nothing to cancel "
                "(leave already begun stays)."]
    seated = _games_of(store, player.id)
    changed = []
    for each in seated:
        for row in ahead:
            first, last = date.fromisoformat(row.first_day), date.fromisoformat(row.last_day)
            # Every seat's leave goes (a list, not a generator: any() would stop at the first).
            if any([each.game.cancel_leave(side, first, last, at) for side in each.sides]):
                changed.append((each, row))
    for row in ahead:
        store.club_leaves.cancel(row.id, at)
    for each in {id(each): each for each, _ in changed}.values():
        each.game.save(store)
    for each, row in changed:
        _tell_opponents(store, config, each, at, "cancels the leave from",
                        "that clock runs then after all", (row.first_day, row.last_day))
    periods = "; ".join(f"from {row.first_day} to {row.last_day}" for row in ahead)
    years = sorted({year for row in ahead for year in clock.years_of(_leave_of(row))})
    return [f"Your leave {periods} is cancelled in every game in play that held it, and "
            f"its days are given back.",
            *(account(store, player.id, year).words() for year in years)]


# --------------------------------------------------------------------------- a new game

def extend_to(store: Store, game: RefereedGame, at: int) -> list[str]:
    """Give a game that starts at ``at`` its players' club leave not yet over: the part
    from tomorrow on of a leave already begun, the whole of one ahead. A period the game
    refuses (its own ``LeaveDays`` is smaller, say) is left out of it, and said so in the
    lines returned (for its players). Inside the caller's transaction; the game is saved
    by the caller."""
    if game.clock() is None:
        return []
    tomorrow = date.fromisoformat(clock.format_date(at)) + timedelta(days=1)
    lines = []
    for side, player_id in enumerate(game.player_ids):
        if player_id is None:
            continue
        for row in store.club_leaves.of_player(player_id):
            first = max(date.fromisoformat(row.first_day), tomorrow)
            last = date.fromisoformat(row.last_day)
            if last < first:
                continue
            try:
                game.add_leave(side, first, last, at)
            except Refusal as error:
                lines.append(f"{letters.player_words(game, side)}'s leave across games from "
                             f"{first} to {last} is not in this game: {error.message}")
            else:
                lines.append(f"{letters.player_words(game, side)} is on leave across games from "
                             f"{first} to {last} (UTC, inclusive): that clock stands still then.")
    return lines


# --------------------------------------------------------------------------- the games

def _games_of(store: Store, player_id: int) -> list[Seated]:
    """The player's games in play with clocks (leave stops a clock: without one it means
    nothing), each loaded once, with the seats the player holds."""
    seated = []
    for number in store.games.of_player(player_id, in_play=True):
        game = RefereedGame.load(store, number)
        if game is None or game.over or game.clock() is None:
            continue
        sides = tuple(side for side in (0, 1) if game.player_ids[side] == player_id)
        if sides:
            seated.append(Seated(game, sides))
    return seated


def _tell_opponents(store: Store, config: Config, each: Seated, at: int, verb: str, then: str,
                    days: tuple[str, str]) -> None:
    """Tell the player's opponent in ``each`` game of the leave (a seat the player also
    holds is not told: they know)."""
    game = each.game
    for side in each.sides:
        opponent = 1 - side
        if opponent in each.sides:
            continue
        first, last = days
        queue_update(store, config, game, opponent, f"leave from {SIDE_TITLES[side]}",
                     [f"{letters.player_words(game, side)} {verb} {first} to {last} (UTC, "
                      f"inclusive), in all their games: {then}."], None, [], at)


def _leave_of(row: ClubLeaveRow) -> clock.Leave:
    """A kept period as a clock's leave (side 0: the club's account has one side)."""
    return clock.parse_leave(f"{row.first_day} {row.last_day}", 0)
