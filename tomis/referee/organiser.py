"""The organiser's commands: list and show games, export a record, change a player's
address, give a side time, end a game by adjudication or abort it, send the last
messages again, and look at what waits in the outbox and what was refused.

Each change is one transaction, queues what the players are told in it (as a player's
message does, :mod:`.process`), then sends. Nothing here prints: the CLI does.
"""

from __future__ import annotations

import email
import email.policy
from dataclasses import dataclass

from ..errors import TomisError, one_line, visible
from ..notation.clock import TIME_CONTROL_TAG, describe_duration, format_stamp, year_of
from ..notation.ending import ending_words
from ..rules.board import DECIDED_RESULTS, SIDE_NAMES, SIDE_TITLES
from . import club, letters
from .alerts import Alerts, gather
from .durations import parse_setting_duration
from .games import RefereedGame
from .queueing import queue_update
from .sending import Unsent, Waiting, send_queued, unsent_messages
from .players import (Glicko, PlayerListing, RefereeError, add_address, listing, named,
                      parse_player, register, rename)
from .season import settle_endings
from .service import connect
from .store import PlayerRow, Store

MAX_REASON = 200


@dataclass(frozen=True)
class Summary:
    """One line of ``games``: what an organiser wants to see of a game at a glance."""

    number: int
    white: str
    black: str
    result: str
    over: bool
    to_act: str | None              # "white", "black", or None when the game has ended
    clocks: tuple[int, int] | None  # seconds left each side at ``now`` (None: no clocks)
    actions: int
    last_action: str | None
    last_change: int                # its newest action, else when it began
    termination: str | None         # how it ended, one word (tomis.notation.ending); None: in play

    @property
    def ended(self) -> str | None:
        """How the game ended as a person reads it (``Black resigned``), or None in play;
        the same words wherever a game's ending is shown."""
        return None if self.termination is None else ending_words(self.termination, self.result)

    def to_json(self) -> dict:
        return {"number": self.number, "white": self.white, "black": self.black,
                "result": self.result, "over": self.over, "to_act": self.to_act,
                "time_left": None if self.clocks is None else
                {"white": self.clocks[0], "black": self.clocks[1]},
                "actions": self.actions, "last_action": self.last_action,
                "waiting_since": format_stamp(self.last_change),
                "termination": self.termination}


def _load(store: Store, number: int) -> RefereedGame:
    game = RefereedGame.load(store, number)
    if game is None:
        raise RefereeError(f"there is no game {number} in this store")
    return game


def _load_in_play(store: Store, number: int, ended: str) -> RefereedGame:
    """Game ``number``, refused in words (``ended``) when it is over."""
    game = _load(store, number)
    if game.over:
        raise RefereeError(f"game {number} {ended} ({game.record.result})")
    return game




def summarise(game: RefereedGame, now: int) -> Summary:
    readings = game.readings(now)
    clocks = None if readings is None else (readings[0].left, readings[1].left)
    last = game.record.nodes[-1].action if game.record.nodes else None
    to_act = None if game.to_move is None else SIDE_NAMES[game.to_move]
    return Summary(game.id, game.players[0].name, game.players[1].name, game.record.result,
                   game.over, to_act, clocks, game.actions_played,
                   None if last is None else str(last), game.waiting_since(),
                   game.termination)


def games(path: str, now: int, *, every: bool) -> list[Summary]:
    """The games of the store, oldest first: those still played, or ``every`` one."""
    store, _config = connect(path)
    with store:
        return [summarise(RefereedGame.load(store, number), now)
                for number in store.games.numbers(in_play=not every)]


def show(path: str, number: int, now: int) -> str:
    """The board, the clocks and whose turn it is, as the players' messages show them."""
    store, _config = connect(path)
    with store:
        game = _load(store, number)
    if game.over:
        turn = letters.turn_lines(game, 0)        # once the game is over, the same for both
    else:
        turn = [f"To act: {letters.player_words(game, game.to_move)}"]
    return "\n".join([letters.title(game), "", *letters.position_lines(game), "",
                      *letters.clock_lines(game, now), "", *turn])


def export(path: str, number: int) -> str:
    """The public record: the stamps and offers, never a private conditional line (those
    live in their own table and never enter the record)."""
    store, _config = connect(path)
    with store:
        return _load(store, number).record_text()


def side_of(word: str) -> int:
    try:
        return SIDE_NAMES.index(word.lower())
    except ValueError:
        raise RefereeError(f"{word!r}: the side is white or black") from None


def reason_text(text: str) -> str:
    """A reason the players read and the record keeps as a comment: one printable line."""
    text = text.strip()
    if not text or len(text) > MAX_REASON or not text.isprintable() or any(c in text for c in "{}"):
        raise RefereeError(f"--reason: 1 to {MAX_REASON} printable characters on one line, "
                           f"without {{ or }}")
    return text


def change_address(path: str, number: int, side: int, text: str, now: int) -> list[str]:
    """Register ``text`` (``NAME <ADDR>``) for ``side``, give the seat a new reply token
    (mail to the old reply address is then a stranger's) and tell the new address its new
    reply address; the messages not sent yet, in words. The old address is not mailed:
    anything sent there would hand the seat back to whoever reads it."""
    player = parse_player(text, f"the {SIDE_NAMES[side]} player")
    store, config = connect(path)
    with store:
        with store.transaction():
            game = _load_in_play(store, number, "has ended")
            if game.players[1 - side].address == player.address:
                raise RefereeError(f"{player.address} is the other player's address: the "
                                   f"address says who acts")
            old = game.players[side]
            store.games.set_player(number, side, player.name, player.address)
            game.players = (player, game.players[1]) if side == 0 else (game.players[0], player)
            game.new_key(store, side)
            _tell_new_address(store, config, game, side, old, player, now)
        return _send(store, config, now)


def _tell_new_address(store: Store, config, game: RefereedGame, side: int, old, player, now: int) -> None:
    queue_update(store, config, game, side, "your address changed",
                 [f"The organiser changed your address for this game from {old.address} "
                  f"to {player.address}: only mail from {player.address} acts for you now. "
                  f"Your reply address for this game is new too (this message's Reply-To); "
                  f"the old one no longer works."],
                 None, [], now)
    game.save(store)


def credit(path: str, number: int, side: int, duration: str, reason: str, now: int) -> list[Unsent]:
    """Give ``side`` of game ``number`` ``duration`` (``90m``, ``6h``, ``2d``, ``1d12h``)
    more time: ``{[%credit SIDE DURATION] organiser: REASON}`` after the last action, both
    players told. Refused for a game over, without clocks, or whose side ran out by ``now``."""
    seconds = parse_setting_duration(duration, False, "DURATION")
    reason = reason_text(reason)
    store, config = connect(path)
    with store:
        with store.transaction():
            game = _load_in_play(store, number, "has ended")
            if TIME_CONTROL_TAG not in game.record.tags:
                raise RefereeError(f"game {number} has no clocks (no TimeControl): there is "
                                   f"no time to give")
            try:
                game.library.credit(SIDE_NAMES[side], seconds, at=now,
                                    reason=_organiser_says(reason))
            except TomisError as error:
                raise RefereeError(f"game {number}: {error.message}") from None
            game.record_changed()
            words = (f"The organiser gave {SIDE_TITLES[side]} {describe_duration(seconds)} "
                     f"more time. Reason: {reason}")
            for seat in (0, 1):
                queue_update(store, config, game, seat, "time given", [words], None, [], now)
            game.save(store)
        return _send(store, config, now)


def adjudicate(path: str, number: int, result: str, reason: str, now: int) -> list[Unsent]:
    """End ``number`` with ``result``: ``Termination`` adjudication, the reason as a comment
    on the last action, both players told."""
    if result not in DECIDED_RESULTS:
        raise RefereeError(f"{result!r}: an adjudicated result is 1-0, 0-1 or 1/2-1/2")
    reason = reason_text(reason)

    def end(game: RefereedGame) -> str:
        try:
            game.library.adjudicate(result, _organiser_says(reason))
        except TomisError as error:
            raise RefereeError(error.message) from None
        return f"The organiser adjudicated the game: {result}. Reason: {reason}"

    return _end(path, number, end, f"{result}, adjudicated", now)


def abort(path: str, number: int, reason: str, now: int) -> list[Unsent]:
    """End ``number`` without a result (``*``, ``Termination`` abandoned), both players told."""
    reason = reason_text(reason)

    def end(game: RefereedGame) -> str:
        try:
            game.library.abort(_organiser_says(reason))
        except TomisError as error:
            raise RefereeError(error.message) from None
        return f"The organiser aborted the game; it has no result. Reason: {reason}"

    return _end(path, number, end, "aborted", now)


def _organiser_says(reason: str) -> str:
    """The comment the record keeps after its last action when the organiser ends it."""
    return f"organiser: {reason}"


def _end(path: str, number: int, end, subject: str, now: int) -> list[Unsent]:
    store, config = connect(path)
    with store:
        with store.transaction():
            game = _load_in_play(store, number, "has already ended")
            words = end(game)
            game.record_changed()
            game.over = True
            game.lines = [[], []]
            for side in (0, 1):
                queue_update(store, config, game, side, subject, [words], None, [], now)
            game.save(store)
            settle_endings(store, config, now)
        return _send(store, config, now)


def resend(path: str, number: int, now: int) -> list[Unsent]:
    """Queue the last message each player got again, to the address registered now.

    A seat's last message is found by its row (game and side, stored when it was queued),
    never by what its bytes hold: a player's chat may quote any address.
    """
    store, config = connect(path)
    with store:
        with store.transaction():
            game = _load(store, number)
            for side, player in enumerate(game.players):
                raw = store.outbox.newest(number, side)
                if raw is None:
                    raise RefereeError(f"game {number}: no message to {SIDE_TITLES[side]} to "
                                       f"send again")
                store.outbox.add(number, side, now, config.referee.address, player.address, raw)
        return _send(store, config, now)


def _send(store: Store, config, now: int) -> list[Unsent]:
    return send_queued(store, config.settings, now=now, retry=False)


def outbox(path: str) -> list[Waiting]:
    """The messages not sent, those given up included, each with its tries."""
    store, _config = connect(path)
    with store:
        return unsent_messages(store)


@dataclass(frozen=True)
class Refused:
    """A message the referee refused, who it said it was from, and why."""

    id: int
    stored_at: int
    game: int | None
    sender: str
    subject: str
    reason: str


def rejected(path: str) -> list[Refused]:
    store, _config = connect(path)
    with store:
        rows = store.inbox.refused()
    return [Refused(row.id, row.stored_at, row.game, *_from_and_subject(row.raw),
                    visible(one_line(row.reason or ""))) for row in rows]


def _from_and_subject(raw: bytes) -> tuple[str, str]:
    """The From and Subject as sent (outside text: bounded, control characters shown)."""
    head = raw[:64 * 1024]
    try:
        message = email.message_from_bytes(head, policy=email.policy.compat32)
        values = [str(message.get(name, "") or "") for name in ("From", "Subject")]
    except Exception:             # noqa: BLE001 -- a header nobody can read is shown as none
        values = ["", ""]
    return tuple(visible(one_line(" ".join(value.split())))[:120] for value in values)


def alerts(path: str, now: int) -> Alerts:
    """What needs a person at ``now`` (docs/REFEREE.md, "What needs a person")."""
    store, _config = connect(path)
    with store:
        return gather(store, now)


def settings(path: str, values: dict[str, str | None]) -> list[club.Shown]:
    """Change the club's settings given (None: not given), each checked; every setting
    as it now is."""
    store, _config = connect(path)
    with store:
        try:
            return club.change(store, values)
        except club.SettingError as error:
            raise RefereeError(str(error)) from None


# --------------------------------------------------------------------------- players

def players(path: str, now: int) -> list[PlayerListing]:
    """Every player, by name (the leave they took in ``now``'s year)."""
    store, _config = connect(path)
    with store:
        return listing(store, year_of(now))


def add_player(path: str, text: str, glicko: Glicko, now: int) -> PlayerRow:
    """Register the player ``text`` ("NAME <ADDR>"), with a rating given by hand or a new
    player's."""
    addressee = parse_player(text, "the player")
    store, _config = connect(path)
    with store:
        with store.transaction():
            return register(store, addressee.name, addressee.address, now, glicko=glicko)


def player_address(path: str, name: str, address: str) -> tuple[PlayerRow, list[int]]:
    """Mail player ``name`` at ``address`` from now on; the games in play that changed."""
    store, _config = connect(path)
    with store:
        with store.transaction():
            return add_address(store, name, address)


def rename_player(path: str, old: str, new: str) -> PlayerRow:
    store, _config = connect(path)
    with store:
        with store.transaction():
            return rename(store, old, new)


def approve_player(path: str, name: str, now: int) -> PlayerRow:
    """Approve a player who joined while the club approves new players; approving one
    approved already changes nothing."""
    store, _config = connect(path)
    with store:
        with store.transaction():
            player = named(store, name)
            store.players.approve(player.id)
            return store.players.get(player.id)
