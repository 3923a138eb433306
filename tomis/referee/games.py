"""One refereed game: its row in the store, its record, its private lines, and the
changes a player's commands make to it.

The record is the public one, and every change to it is made by the library's write side
(:class:`tomis.Game`): each action stamped with the time its message was stored
(``[%ts]``), draw offers as ``(=)``, an accepted draw (``[%draw accept]``), a claim on time
(``[%claim]``), leave (``[%leave]``). The clocks are the library's reading of that record
(:mod:`tomis.notation.clock`), so the attached record and ``tomis clock`` agree with the
referee. Conditional lines are private: they live in their own table, never in the
record, and fire by the library's rule (:mod:`tomis.notation.conditional`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import date

from ..archive.stats import StatsProbe
from ..errors import TomisError
from ..game import SIDES
from ..game import Game as LibraryGame
from ..notation import clock, conditional, correspondence
from ..notation import record as _record
from ..notation.clock import TIME_CONTROL_TAG
from ..rules.board import SIDE_TITLES
from ..rules.core import legal_actions
from . import reminders
from .composing import Addressee
from .store import GameChange, LeaveRow, LineRow, Store

MAX_LEAVES = 20                  # periods a player may hold in one game
# Leave ends within this many days of today: no game waits longer for a player, and a day
# near the calendar's end (9999-12-31) is no day to count leave in.
MAX_LEAVE_AHEAD_DAYS = 2 * 366


class Refusal(TomisError):
    """A command the game cannot take; the message is refused with this reason."""


@dataclass(frozen=True)
class _Checked:
    """What :class:`StatsProbe` reads of a game: the record, read without error."""

    game: object
    error: None = None


def clocks_left(saved: dict | None, to_move: int | None, now: int) -> tuple[int, int] | None:
    """Each side's time left at ``now`` from the clocks saved in a game's summary
    (:meth:`RefereedGame.saved_summary`), without replaying its record: what
    :meth:`RefereedGame.readings` gives as ``left``."""
    if saved is None:
        return None
    ran = clock.Clock(None, tuple(saved["left"]), saved["since"], (), None,
                      tuple(clock.Leave(*leave) for leave in saved["leaves"]))
    return ran.time_left(0, to_move, now), ran.time_left(1, to_move, now)


@dataclass
class RefereedGame:
    """A game as loaded from the store, changed in memory, saved in the same transaction."""

    id: int
    players: tuple[Addressee, Addressee]
    record: _record.Game
    over: bool
    leave_days: int
    thread: dict[str, list[str]]
    reminded_ply: int
    lines: list[list[conditional.Line]] = field(default_factory=lambda: [[], []])
    keys: tuple[int, int] = (0, 0)          # each seat's token generation
    # The club's players (store.players) in each seat; None in a game from before players.
    player_ids: tuple[int | None, int | None] = (None, None)
    # The PNG board of the last state drawn, (actions played, result) -> bytes: both
    # players' messages after one change show the same board, drawn once.
    png_cache: tuple | None = field(default=None, compare=False, repr=False)
    created: int = 0                        # when the game began (the referee's clock)
    # When the last action was played (the referee's clock; None: none yet). "Waiting
    # since" is this, so chat, status and the organiser's looks do not move it.
    acted_at: int | None = None
    # How many of the reminder moments of reminded_ply's turn were sent (earliest first),
    # and the club's schedule they come from (read with the game).
    reminders_sent: int = 0
    schedule: reminders.Schedule = field(default_factory=lambda: reminders.parse(
        reminders.DEFAULT), compare=False, repr=False)
    # The record's text as last written or read (None: changed since), see record_text.
    _text: str | None = field(default=None, init=False, compare=False, repr=False)

    # ------------------------------------------------------------------ the store
    @classmethod
    def load(cls, store: Store, number: int) -> RefereedGame | None:
        """Game ``number`` from ``store``: its record read (replayed) once, here."""
        row = store.games.row(number)
        if row is None:
            return None
        game = cls(number, (Addressee(row.white_name, row.white_address),
                            Addressee(row.black_name, row.black_address)),
                   _record.read_game(row.record), row.over, row.leave_days,
                   json.loads(row.thread) or {}, row.reminded_ply,
                   keys=(row.white_key, row.black_key), created=row.created,
                   acted_at=row.acted_at, reminders_sent=row.reminders_sent,
                   player_ids=(row.white_player, row.black_player),
                   schedule=reminders.of_settings(store.settings()))
        game._text = row.record
        for line in store.games.lines(number):
            game.lines[line.side].append(
                conditional.Line(line.side, game.actions_played, tuple(json.loads(line.actions))))
        return game

    @classmethod
    def insert(cls, store: Store, players: tuple[Addressee, Addressee], rec: _record.Game,
               leave_days: int, created: int,
               player_ids: tuple[int | None, int | None] = (None, None)) -> RefereedGame:
        text = _record.write(rec)
        number = store.games.insert(tuple((player.name, player.address) for player in players),
                                    text, leave_days, created, player_ids)
        game = cls(number, players, rec, False, leave_days, {}, -1, created=created,
                   player_ids=player_ids, schedule=reminders.of_settings(store.settings()))
        game._text = text
        return game

    def writes_for(self, store: Store, side: int, address: str | None) -> bool:
        """Whether mail from ``address`` acts for ``side``: the seat's address, or any
        address of the club's player who sits there while the seat is mailed at one of
        theirs. A seat the organiser gave an address of its own (``tomis referee
        address``, for an address lost or taken over) acts from that address alone."""
        if address is None:
            return False
        seat_address = self.players[side].address
        if address == seat_address:
            return True
        player = self.player_ids[side]
        return (player is not None and store.players.owns(player, seat_address)
                and store.players.owns(player, address))

    def new_key(self, store: Store, side: int) -> None:
        """Raise ``side``'s token generation: its old reply address stops working."""
        keys = list(self.keys)
        keys[side] += 1
        self.keys = (keys[0], keys[1])
        store.games.set_generation(self.id, side, self.keys[side])

    def record_text(self) -> str:
        """The public record as written, computed once per change: the store's row and
        every message's attachment share it. Each verb here that changes the record
        forgets the text (:meth:`record_changed`)."""
        if self._text is None:
            self._text = _record.write(self.record)
        return self._text

    def record_changed(self) -> None:
        """Say that the record changed (a verb here, or a caller that wrote it directly):
        its text is written anew when next asked for."""
        self._text = None

    def save(self, store: Store) -> None:
        """Write the game in the caller's transaction, with when tick next has something
        to do for it and what the status index shows of it (so neither replays it)."""
        store.games.save(self.id, GameChange(
            record=self.record_text(), over=self.over, thread=json.dumps(self.thread),
            reminded_ply=self.reminded_ply,
            lines=[LineRow(side, json.dumps(line.rest))
                   for side in (0, 1) for line in self.lines[side]],
            # The leaves table mirrors the record's [%leave] commands, for the organiser.
            leaves=[LeaveRow(leave.side, clock.format_date(leave.begins),
                             clock.format_date(leave.ends - clock.DAY))
                    for leave in self.leaves()],
            due=self.next_due(), summary=json.dumps(self.saved_summary()),
            acted_at=self.acted_at, reminders_sent=self.reminders_sent))

    def next_due(self, now: int | None = None) -> int | None:
        """The earliest time at which tick may have something to do for this game (a
        reminder or a time-out), from ``now`` when given; None when nothing can be due
        until a player acts (no clocks, the clocks not started, the game over). Never
        later than the reminder or the flag fall, it may come early: tick then looks
        again later."""
        ran, side = self.clock(), self.to_move
        if ran is None or side is None or ran.since is None:
            return None
        due = min([ran.deadline(side), *self.reminders_to_send(ran, side)[:1]])
        return due if now is None else max(due, now + 1)

    def reminders_to_send(self, ran: clock.Clock, side: int) -> list[int]:
        """The moments of ``side``'s turn whose reminder has not gone, earliest first."""
        moments = self.schedule.moments(ran, side)
        sent = self.reminders_sent if self.reminded_ply == self.actions_played else 0
        return moments[sent:]

    def saved_summary(self) -> dict:
        """What the status index shows of this game, saved with it: the players, the
        state, the last action, the clocks as numbers (read at any time by
        :func:`clocks_left`) and the facts ``tomis stats`` counts."""
        ran = self.clock()
        last = self.record.nodes[-1].action if self.record.nodes else None
        facts = StatsProbe()(_Checked(self.record), None)
        return {"white": self.players[0].name, "black": self.players[1].name,
                "white_player": self.player_ids[0], "black_player": self.player_ids[1],
                "result": self.record.result, "over": self.over, "to_move": self.to_move,
                "actions": self.actions_played,
                "last_action": None if last is None else str(last),
                "termination": self.termination,
                "created": self.created, "since": self.waiting_since(),
                "clock": None if ran is None else
                {"left": list(ran.left), "since": ran.since,
                 "leaves": [list(leave) for leave in ran.leaves]},
                "facts": None if facts is None else asdict(facts)}

    def waiting_since(self) -> int:
        """When the game last moved: its last action, else when it began. Chat, ``status``
        and refused mail do not move it: the side to act waits on an action."""
        return max(self.acted_at or self.created, self.created)

    @staticmethod
    def generation(store: Store, number: int, side: int) -> int | None:
        """The token generation of game ``number``'s ``side``; None without that game."""
        return store.games.generation(number, side)

    # ------------------------------------------------------------------ facts
    @property
    def state(self):
        return self.record.final

    @property
    def to_move(self) -> int | None:
        return None if self.over else self.state.to_move

    @property
    def actions_played(self) -> int:
        return len(self.record.nodes)

    @property
    def termination(self) -> str | None:
        """How the game ended in one word (``resignation``, ``time forfeit``, ...; see
        :mod:`tomis.notation.ending`), or None while it goes on."""
        ending = self.library.ending if self.over else None
        return None if ending is None else ending.word

    def offer_open(self) -> int | None:
        """The side whose draw offer stands (its last action carries ``(=)``), or None."""
        if self.over or not self.record.nodes or not self.record.nodes[-1].offer:
            return None
        return 1 - self.state.to_move

    def facts(self) -> correspondence.Facts:
        """The record's correspondence facts (stamps, leave, the allowance)."""
        return correspondence.read_facts(self.record)

    def leaves(self, side: int | None = None) -> list[clock.Leave]:
        """The leave in the record, of ``side`` or of both, in record order."""
        return [leave for leave in self.facts().leaves if side in (None, leave.side)]

    def clock(self) -> clock.Clock | None:
        """Both clocks as the library runs the record, or None for a game without a
        TimeControl."""
        if TIME_CONTROL_TAG not in self.record.tags:
            return None
        return self.library.clock()[1]

    def readings(self, now: int) -> tuple[clock.Reading, clock.Reading] | None:
        """Each side's clock at ``now`` (time left, deadline, flag, leave, half used)."""
        ran = self.clock()
        if ran is None:
            return None
        return tuple(clock.reading(ran, side, self.to_move, now) for side in (0, 1))

    # ------------------------------------------------------------------ changes
    @property
    def library(self) -> LibraryGame:
        """The record as a :class:`tomis.Game` (shared, not copied): its write side makes
        every change."""
        return LibraryGame.from_record(self.record)

    def play(self, side: int, action: str, at: int, offer: bool = False):
        """Play ``action`` for ``side`` stamped ``at``; the engine's report."""
        if self.to_move != side:
            raise Refusal(self._not_your_turn(side))
        # A message stored before the record's last stamp (the host's clock stepped back)
        # is stamped at that stamp: stamps never go backwards.
        last = self.last_stamp()
        self.record_changed()
        game = self.library
        stamp = (at if last is None else max(at, last)) if game.stamps_actions() else None
        try:
            game.play(action, stamp=stamp, offer_draw=offer)
        except TomisError as error:
            raise Refusal(f"{action} cannot be played: {error.message}. "
                          f"{self.legal_near(action)}") from None
        self.over = self.state.is_over
        self.acted_at = at if stamp is None else stamp
        if self.over:                   # the rules ended it: the record says how
            game.note_ending()
        return self.record.nodes[-1].report

    def last_stamp(self) -> int | None:
        """The record's latest time: its last ``[%ts]``, else its start; None if it has none."""
        facts = self.facts()
        stamped = [at for at in (facts.start, *facts.stamps) if at is not None]
        return max(stamped, default=None)

    def _not_your_turn(self, side: int) -> str:
        if self.over:
            return f"the game has ended ({self.record.result})"
        return (f"it is not your turn: {SIDE_TITLES[self.to_move]} is to play action "
                f"{self.actions_played + 1}")

    def legal_near(self, text: str, limit: int = 24) -> str:
        """The legal actions that share the square or piece of ``text``, in words."""
        every = [str(action) for action in legal_actions(self.state)]
        square = next((text[i:i + 2] for i in range(len(text) - 1)
                       if text[i] in "abcdefgh" and text[i + 1] in "12345678"), None)
        near = [a for a in every if square and square in a] or \
            [a for a in every if a[:1] == text[:1]] or every
        shown = " ".join(near[:limit]) + (" ..." if len(near) > limit else "")
        return f"Legal actions{' near ' + square if square and square in shown else ''}: {shown}"

    def accept_draw(self, side: int) -> None:
        # Asked here first: the library's refusals speak of the command line's --as.
        if self.offer_open() != 1 - side:
            raise Refusal(f"there is no draw offer of {SIDE_TITLES[1 - side]} to accept: an "
                          f"offer stands only until the next action (R23)")
        self._change(lambda game: game.accept_draw(SIDES[side]))

    def resign(self, side: int) -> None:
        if self.over:
            raise Refusal(self._not_your_turn(side))
        self._change(lambda game: game.resign(SIDES[side]))

    def forfeit(self, side: int, at: int) -> None:
        """``side``'s time ran out: the opponent claims the win at ``at``."""
        self._change(lambda game: game.claim_time(SIDES[1 - side], at))

    def _change(self, change) -> None:
        """Make an ending ``change`` through the library; what it refuses, the player is told."""
        self.record_changed()
        game = self.library
        try:
            change(game)
        except TomisError as error:
            raise Refusal(error.message) from None
        game.note_ending()              # the record says how it ended, not only the result
        self.over = True

    def remember(self, side: int, message_id: str | None) -> None:
        """Keep ``message_id`` as the thread of ``side``'s player if it has none yet.

        The thread is one id, the first message the player got in the game (``new``
        writes to both players before any reply can come); every later message names it
        (a flat thread). The column keeps its list shape, so a store written before holds
        the oldest id it kept first."""
        if message_id and not self.thread.get(str(side)):
            self.thread[str(side)] = [message_id]

    def first_message(self, side: int) -> str | None:
        """The id of the first message ``side``'s player got in this game (None: none yet)."""
        ids = self.thread.get(str(side)) or []
        return ids[0] if ids else None

    # ------------------------------------------------------------------ conditional lines
    def store_lines(self, side: int, lines: list[tuple[str, ...]]) -> None:
        """Keep ``side``'s lines, each checked playable from the position now; the
        opponent must be the one to act."""
        if not lines:
            return
        if self.to_move != 1 - side:
            raise Refusal("a conditional line starts with your opponent's next action, so it "
                          "is sent with your own action (or while your opponent is to act)")
        kept = list(self.lines[side])
        try:
            for actions in lines:
                conditional.check_playable(self.state, actions)
                conditional.store(kept, conditional.Line(side, self.actions_played, tuple(actions)))
        except TomisError as error:
            raise Refusal(f"the conditional line 'if {' '.join(actions)}' cannot be stored: "
                          f"{error.message}") from None
        self.lines[side] = kept

    def answer_from_lines(self, side_moved: int, action: str) -> str | None:
        """After ``side_moved`` played ``action``: the opponent's stored reply, if a line
        fires. The other lines are cancelled; the one that fires keeps its rest."""
        walk = conditional.Walk(self.lines)
        owed = walk.played(self.actions_played, side_moved, action)
        if owed is not None:            # the referee plays the reply at once
            walk.played(owed.number, owed.side, owed.reply)
        self.lines = walk.pending
        return None if owed is None else owed.reply

    # ------------------------------------------------------------------ leave
    def add_leave(self, side: int, first: date, last: date, at: int) -> None:
        """Take leave from ``first`` to ``last`` (UTC days, inclusive) at the time ``at``:
        future days only, a bounded number of periods, and what the record's reader allows
        (docs/NOTATION.md)."""
        if self.over:
            raise Refusal(f"the game has ended ({self.record.result})")
        if clock.parse_date(first.isoformat()) <= at:
            raise Refusal(f"leave {first} {last}: leave is taken for future days only "
                          f"(today is {clock.format_date(at)}, UTC)")
        if clock.parse_date(last.isoformat()) > at + MAX_LEAVE_AHEAD_DAYS * clock.DAY:
            raise Refusal(f"leave {first} {last}: leave ends within {MAX_LEAVE_AHEAD_DAYS} days "
                          f"of today ({clock.format_date(at)}, UTC)")
        if len(self.leaves(side)) >= MAX_LEAVES:
            raise Refusal(f"at most {MAX_LEAVES} leave periods in one game")
        self.record_changed()
        try:
            self.library.take_leave(SIDES[side], first.isoformat(), last.isoformat())
        except TomisError as error:
            raise Refusal(f"leave {first} {last}: {error.message}") from None

    def cancel_leave(self, side: int, first: date, last: date, at: int) -> bool:
        """Take ``side``'s leave from ``first`` to ``last`` out of the record if it has not
        begun at ``at`` (docs/NOTATION.md, "Cancelling leave not yet begun"); whether it
        was there to take out. A game's last stamp may lie a little after ``at`` (a stamp
        is when the mail system received the message): "not begun" is then counted from it."""
        ran = self.clock()
        if self.over or ran is None:
            return False
        when = max(at, ran.since or at)
        self.record_changed()
        try:
            gone = self.library.cancel_leave(SIDES[side], when, first=first.isoformat(),
                                             last=last.isoformat())
        except TomisError as error:
            raise Refusal(f"leave {first} {last}: {error.message}") from None
        return bool(gone)
