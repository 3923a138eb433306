"""The middle of the queue: one stored message at a time becomes commands, a new game
state and the messages that causes.

A message is taken in three steps (issue 38): it is claimed, and the count of readings
begun raised, in a short transaction; it is read (parsed, bounded, within a time budget)
outside any transaction, so that no message holds the store while it is read; then it is
decided in one ``BEGIN IMMEDIATE`` transaction, which checks it is still undecided, so of
several processes exactly one decides it. A process killed before that ``COMMIT`` leaves
it undecided for the next ``deliver`` or ``tick``, which decides it the same way (its
clock is the time the mail system received it, within bounds, else the time it was
stored; never the time it is processed: :mod:`.stamps`); a message whose reading
was begun :data:`MAX_READINGS` times and never finished is refused as unreadable.
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass, field

from ..rules.board import SIDE_TITLES
from ..rules.core import legal_actions
from ..errors import TomisError, visible
from ..notation.clock import format_stamp
from . import clubmail, letters, stamps, tokens
from .bounces import Bounce, read_bounce
from .commands import CommandError, read_commands
from .games import RefereedGame, Refusal
from .inbound import Incoming, Unreadable, read_message, stored_envelope, with_envelope
from .queueing import (CHAT_LIMIT, FORGED, RELAY, TELL, Config, chat_passage, queue_letter,
                       queue_update, queue_why)
from .season import settle_endings
from .sending import process_alive
from .store import BounceRow, Busy, Decision, Store, Stored

DONE, REJECTED = "done", "rejected"
MAX_READINGS = 2              # readings cut off (the process killed) before a message is refused
READING_SECONDS = 60          # how long a living process's claim to read a message lasts
CUT_OFF = (f"unreadable: reading it was begun {MAX_READINGS} times and never finished "
           f"(the process was killed or crashed); not tried again")
# The refusal of a message that reached none of the players' reply addresses nor the
# club's: nothing is answered, so another copy of it that names one may have it decided again.
STRANGER = "not sent to a player's reply address (a stranger): no answer"

# What a bug of ours raises while a message is decided: the message is set aside, never lost.
_INTERNAL = (TomisError, ArithmeticError, LookupError, ValueError, TypeError)


@dataclass(frozen=True)
class Claim:
    """A stored message taken to be read, and whether it was refused at once as cut off."""

    stored: Stored
    cut_off: bool = False


def process_next(store: Store, config: Config) -> bool:
    """Decide the oldest undecided message no living process is reading; False when there
    is none.

    A message that trips a bug of ours is set aside as rejected, with the error, in the
    same transaction (what its deciding had written is rolled back to a savepoint), and
    its sender, when it is the seat's player, is told that nothing was played.
    """
    claim = _claim(store)
    if claim is None:
        return False
    if claim.cut_off:
        return True
    try:
        incoming = read_message(claim.stored.raw, claim.stored.recipient)
    except Unreadable as error:
        incoming = error
    bounce = (read_bounce(claim.stored.raw, config.referee.address)
              if _may_be_bounce(claim.stored.raw, incoming) else None)
    try:
        _decide_claimed(store, config, claim.stored, incoming, bounce)
    except Busy:
        _release(store, claim.stored)
        raise
    return True


def _may_be_bounce(raw: bytes, incoming: Incoming | Unreadable) -> bool:
    """Whether ``raw`` is worth reading as a bounce: a mail system's message is a
    machine's (an empty envelope sender, MAILER-DAEMON) or a delivery report; a player's
    reply, neither, is not parsed twice."""
    return (isinstance(incoming, Unreadable) or incoming.automatic is not None
            or b"report-type" in raw[:READ_HEAD].lower())


READ_HEAD = 64 * 1024         # of a message's bytes, where its top headers are looked for


def _claim(store: Store) -> Claim | None:
    """The oldest undecided message that no living process is reading, claimed for
    :data:`READING_SECONDS` with its readings counted; one begun :data:`MAX_READINGS`
    times before is refused here, in the same transaction. Only its body is read."""
    now = time.time()
    with store.transaction():
        for waiting in store.inbox.undecided():
            if waiting.reading_until is not None and waiting.reading_until >= now \
                    and process_alive(waiting.reading_by):
                continue            # another process is reading it now, and will decide it
            stored = store.inbox.stored(waiting.id)
            if waiting.readings >= MAX_READINGS:
                store.inbox.decide(waiting.id, Decision(REJECTED, CUT_OFF, None))
                return Claim(stored, cut_off=True)
            store.inbox.begin_reading(waiting.id, now + READING_SECONDS, os.getpid())
            return Claim(stored)
    return None


def _release(store: Store, stored: Stored) -> None:
    """A reading that finished but could not be decided (the store busy) does not count
    as cut off; best effort, as the store may still be busy."""
    with contextlib.suppress(Busy):
        with store.transaction():
            store.inbox.release(stored.id)


def _decide_claimed(store: Store, config: Config, stored: Stored,
                    incoming: Incoming | Unreadable, bounce: Bounce | None = None) -> None:
    """Decide ``stored`` as read, unless another process decided it meanwhile."""
    with store.transaction():
        if store.inbox.decision(stored.id).state != "new":
            return
        incoming = _with_later_copies(store, stored, incoming)
        store.savepoint("deciding")
        try:
            verdict = (decide(store, config, stored, incoming) if bounce is None
                       else file_bounce(store, config, stored, bounce))
        except _INTERNAL as error:
            store.rollback_to("deciding")
            verdict = _internal_error(store, config, stored, incoming, error)
        store.release("deciding")
        store.inbox.decide(stored.id, verdict)
        settle_endings(store, config, stored.stored_at)


def _with_later_copies(store: Store, stored: Stored, incoming: Incoming | Unreadable):
    """``incoming`` with the envelope recipients another copy of it added while it was
    read (:func:`tomis.referee.service.store_message`), which may name the reply address."""
    now_kept = store.inbox.recipient(stored.id)
    if now_kept == stored.recipient or not isinstance(incoming, Incoming):
        return incoming
    return with_envelope(incoming, now_kept)


def _internal_error(store: Store, config: Config, stored: Stored, incoming, error) -> Decision:
    """The verdict on a message that tripped a bug of ours; its sender, when it is the
    player of the seat it was sent to, is told that nothing was played."""
    reason = f"internal error: {type(error).__name__}: {visible(str(error))}"[:500]
    if not isinstance(incoming, Incoming):
        return Decision(REJECTED, reason)
    store.savepoint("telling")
    try:
        game = _told_of_error(store, config, stored, incoming)
    except _INTERNAL:
        store.rollback_to("telling")
        game = None
    store.release("telling")
    return Decision(REJECTED, reason, game)


def _told_of_error(store: Store, config: Config, stored: Stored, incoming: Incoming) -> int | None:
    """Queue the word that nothing was played to the seat's player; the game's number, or
    None when the sender is not that player."""
    seat = find_seat(store, config, incoming.recipients)
    game = RefereedGame.load(store, seat.game) if seat is not None else None
    if game is None or not game.writes_for(store, seat.side, incoming.sender):
        return None
    queue_why(store, config, game, seat.side, stored.stored_at,
              "Your message could not be handled because of an error in the referee, so "
              "nothing was played and nothing changed. The organiser can see it; send it "
              "again later, or ask the organiser.")
    game.save(store)
    return game.id


def process_pending(store: Store, config: Config) -> int:
    """Decide every undecided message no living process is reading; how many."""
    count = 0
    while process_next(store, config):
        count += 1
    return count


def find_seat(store: Store, config: Config, recipients: list[str]) -> tokens.Seat | None:
    """The seat of the first recipient that is a reply address of this referee for the
    seat's current token generation (an address the organiser replaced reads as none)."""
    local, domain = config.referee.local.lower(), config.referee.domain.lower()

    def generation(seat: tokens.Seat) -> int | None:
        return store.games.generation(seat.game, seat.side)

    for address in recipients:
        user, _, host = address.rpartition("@")
        base, plus, token = user.partition("+")
        if host == domain and base == local and plus:
            seat = tokens.read(config.secret, token, generation)
            if seat is not None:
                return seat
    return None


def file_bounce(store: Store, config: Config, stored: Stored, bounce: Bounce) -> Decision:
    """Keep a delivery report for the organiser, matched to the seat whose reply token
    the returned message (or the envelope recipient) carries, else to the newest game of
    the address that failed; never answered, never passed on."""
    # Every envelope recipient a copy of the report reached (a list since reply-all).
    seat = find_seat(store, config, [*bounce.returned, *(address.lower() for address in
                                                         stored_envelope(stored.recipient))])
    row = store.games.row(seat.game) if seat is not None else None
    if row is not None:
        address = (row.white_address, row.black_address)[seat.side]
        game, side = seat.game, seat.side
    else:
        address = bounce.failed[0] if bounce.failed else "unknown"
        found = store.games.seat_of(address)
        game, side = found if found is not None else (None, None)
    store.bounces.add(BounceRow(stored.id, stored.stored_at, address, game, side, bounce.reason))
    return Decision(REJECTED, f"a bounce: mail to {address} failed ({bounce.reason}); kept for "
                              f"the organiser, no answer"[:500], game)


def decide(store: Store, config: Config, stored: Stored,
           incoming: Incoming | Unreadable | None = None) -> Decision:
    """What the message ``stored`` does, as read into ``incoming`` (read here when None);
    every answer it causes is queued here."""
    if incoming is None:
        try:
            incoming = read_message(stored.raw, stored.recipient)
        except Unreadable as error:
            incoming = error
    if isinstance(incoming, Unreadable):
        return Decision(REJECTED, str(incoming))
    if incoming.automatic is not None:
        return Decision(REJECTED, f"written by a machine ({incoming.automatic}): no answer")
    seat = find_seat(store, config, incoming.recipients)
    game = RefereedGame.load(store, seat.game) if seat is not None else None
    if game is None:
        # No game's reply address among the recipients: the club's bare address or one
        # of its one-time request addresses makes it a club command (issue 43).
        where = clubmail.target(config, incoming)
        if where is None:
            return Decision(REJECTED, STRANGER)
        return clubmail.decide(store, config, incoming, where, stored.stored_at)
    side, at = seat.side, stored.stored_at
    player = game.players[side]
    if not game.writes_for(store, side, incoming.sender):
        shown = incoming.sender or "no single address"
        queue_why(store, config, game, side, at,
                  f"A message from {shown} reached your reply address for this game. Only "
                  f"mail from your registered address ({player.address}) acts for you, so it "
                  f"changed nothing. If you sent it, send it again from {player.address}.",
                  FORGED)
        game.save(store)
        return Decision(REJECTED, f"From {shown} is not {SIDE_TITLES[side]}'s address", game.id)
    stamp = stamps.choose(stored.received_at, stored.stored_at, game.last_stamp())
    store.inbox.set_stamp(stored.id, stamp.at, stamp.note)
    at = stamp.at
    if not game.over:
        ran_out, deadline = game.to_move, fallen_deadline(game, at)
        if deadline is not None and expire(store, config, game, at):
            return _too_late(store, config, game, stored, side, ran_out, deadline, at)
    elif _acts(incoming.text):
        # Ended on time already (by tick): an action of the side that lost, from after its
        # deadline, is late as well, and the organiser hears of it the same way.
        deadline = lost_on_time(game, side, at)
        if deadline is not None:
            return _too_late(store, config, game, stored, side, side, deadline, at)
    try:
        outcome = _apply(store, config, game, side, incoming.text, at)
    except (Refusal, CommandError) as error:
        # A command may fail after others changed the game in memory (an action played,
        # then its conditional line refused): the stored game is the one to keep.
        game = RefereedGame.load(store, game.id)
        return _refuse(store, config, game, side, at, error.message)
    game.save(store)
    return Decision(DONE, outcome, game.id)


def fallen_deadline(game: RefereedGame, at: int) -> int | None:
    """The deadline of the side to act when its time has run out by ``at``, else None."""
    readings = game.readings(at)
    side = game.to_move
    if readings is None or side is None or readings[side].fall is None:
        return None
    return readings[side].fall.deadline


def lost_on_time(game: RefereedGame, side: int, at: int) -> int | None:
    """``side``'s deadline when ``game`` ended with ``side``'s time run out (a claim on
    time, ``side`` to act) and ``at`` is after it, else None."""
    claim = game.facts().claim
    if claim is None or game.state.to_move != side:
        return None
    ran = game.clock()
    if ran is None or ran.since is None:
        return None
    # After a claim the loser's clock holds what it had at the claim, below zero: its
    # time ran out that long before the claim.
    left = ran.left[side]
    deadline = claim + left if left < 0 else ran.deadline(side)
    return deadline if deadline is not None and at > deadline else None


def _acts(text: str) -> bool:
    """Whether a message's text tries to play: an action, an acceptance, a resignation,
    conditional lines, or a command-like line that was refused (chat alone does not)."""
    try:
        commands = read_commands(text)
    except CommandError:
        return True
    return bool(commands.action or commands.accept or commands.resign or commands.lines)


def _too_late(store: Store, config: Config, game: RefereedGame, stored: Stored, side: int,
              ran_out: int, deadline: int, at: int) -> Decision:
    """The answer to a message that came once the game had ended on time (``ran_out``'s
    time ran out at ``deadline``, before ``at``): the game is over. When the sender's own
    time ran out, the message is kept as late, for the organiser's report."""
    when = f"at {format_stamp(deadline)}, before this message reached the club's mail " \
           f"system ({format_stamp(at)})"
    if ran_out == side:
        store.inbox.set_late(stored.id, side, deadline)
        why = f"your time ran out {when}: the game is over, {game.record.result}"
    else:
        why = (f"{letters.player_words(game, ran_out)}'s time ran out {when}: the game is "
               f"over, {game.record.result}")
    return _refuse(store, config, game, side, at, why)


def _refuse(store: Store, config: Config, game: RefereedGame, side: int, at: int, why: str) -> Decision:
    reason = visible(why)
    queue_why(store, config, game, side, at,
              f"Your message was not taken, and nothing changed: {reason}")
    game.save(store)
    return Decision(REJECTED, reason, game.id)


@dataclass
class Events:
    """What one message did, in words: for both players, and for each alone."""

    both: list[str] = field(default_factory=list)
    own: tuple[list[str], list[str]] = field(default_factory=lambda: ([], []))
    subject: str | None = None


def expire(store: Store, config: Config, game: RefereedGame, at: int) -> bool:
    """End ``game`` when the side to act has run out of time by ``at``; True if it did."""
    readings = game.readings(at)
    side = game.to_move
    if readings is None or side is None or readings[side].fall is None:
        return False
    deadline = readings[side].fall.deadline
    game.forfeit(side, at)
    events = Events(both=[f"{letters.player_words(game, side)}'s time ran out at "
                          f"{format_stamp(deadline)}: {letters.player_words(game, 1 - side)} "
                          f"wins on time. Result {game.record.result}"],
                    subject=f"{game.record.result}, {SIDE_TITLES[side]}'s time ran out")
    for each in (0, 1):
        queue_update(store, config, game, each, events.subject, events.both, None, [], at)
    return True


def _apply(store: Store, config: Config, game: RefereedGame, side: int, text: str, at: int) -> str:
    """Carry out the commands of ``text`` for ``side``; what was done, for the store."""
    if game.over:
        raise Refusal(f"game {game.id} has ended ({game.record.result}); this address is no "
                      f"longer in use")
    commands = read_commands(text)
    if commands.empty and not commands.chat:
        raise Refusal("the message holds no command and no text for your opponent")
    if commands.resign and (commands.action or commands.accept):
        raise Refusal("a message that resigns holds no action and no acceptance")
    if commands.accept and commands.action:
        raise Refusal("accepting a draw ends the game: send 'accept' without an action")
    events = Events()
    _clear_lines(game, side, commands, events)
    if commands.resign:
        game.resign(side)
        events.both.append(f"{letters.player_words(game, side)} resigns. Result {game.record.result}")
        events.subject = f"{game.record.result}, {SIDE_TITLES[side]} resigns"
    elif commands.accept:
        game.accept_draw(side)
        events.both.append(f"{letters.player_words(game, side)} accepts the draw. "
                           f"Result {game.record.result}")
        events.subject = f"{game.record.result}, draw agreed"
    elif commands.action:
        _play(game, side, commands, events, at)
    elif commands.lines:
        game.store_lines(side, commands.lines)
        events.own[side].extend(_stored_words(commands.lines))
    _take_leave(game, side, commands, events, at)
    return _send_news(store, config, game, side, commands, events, at)


def _take_leave(game: RefereedGame, side: int, commands, events: Events, at: int) -> None:
    """Leave is taken after the action the message carries, if any: after the side's own
    action the record says whose it is by its place; on the side's own turn the record
    names the side (docs/NOTATION.md, "Leave")."""
    for leave in commands.leaves:
        game.add_leave(side, leave.first, leave.last, at)
        events.both.append(f"{letters.player_words(game, side)} takes leave from {leave.first} "
                           f"to {leave.last} (UTC, inclusive): that clock stands still then.")


def _clear_lines(game: RefereedGame, side: int, commands, events: Events) -> None:
    if commands.clear_lines:
        game.lines[side] = []
        events.own[side].append("Your conditional lines are cleared.")


def _stored_words(lines) -> list[str]:
    return [f"Stored your conditional line: if {' '.join(line)}" for line in lines]


def _play(game: RefereedGame, side: int, commands, events: Events, at: int) -> None:
    _play_one(game, side, commands.action, at, commands.offer_draw, events)
    if commands.offer_draw and not game.over:
        events.both.append(f"{letters.player_words(game, side)} offers a draw.")
    if commands.lines and not game.over:
        game.store_lines(side, commands.lines)
        events.own[side].extend(_stored_words(commands.lines))
    mover, played = side, commands.action
    while not game.over:
        owner = 1 - mover
        had = list(game.lines[owner])
        reply = game.answer_from_lines(mover, played)
        if reply is None:
            if had:
                events.own[owner].append(f"{played} was not the action your conditional "
                                         f"lines waited for; they are cancelled.")
            break
        _play_one(game, owner, reply, at, False, events)
        events.own[owner].append(f"Your conditional line answered {played} with {reply}.")
        mover, played = owner, reply
    last = game.record.nodes[-1]
    events.subject = (f"action {game.actions_played} ({last.action})" if not game.over
                      else f"{game.record.result}, action {game.actions_played} ({last.action})")


def _play_one(game: RefereedGame, side: int, action: str, at: int, offer: bool,
              events: Events) -> None:
    """Play ``action`` for ``side``; its report, and the opponent's draw offer it lets
    lapse (an action instead of 'accept' declines it, R23), go to both players."""
    offerer = game.offer_open()
    report = game.play(side, action, at, offer)
    events.both += letters.action_lines(report, game.actions_played)
    if offerer is not None and offerer != side:
        events.both.append(f"The draw {letters.player_words(game, offerer)} offered has "
                           f"lapsed: {letters.player_words(game, side)} played {action} "
                           f"instead of accepting it.")


def _send_news(store: Store, config: Config, game: RefereedGame, side: int, commands, events: Events,
               at: int) -> str:
    """Queue what the players learn; a summary of what was done."""
    chat = _chat_to_pass(store, game, side, commands.chat, events, at)
    events.own[side].extend(_answers(game, side, commands))
    if events.subject is None and game.to_move == side:
        # The game did not move and it is the sender's turn: they hear why nothing was
        # played and what to send, whatever else the message held.
        events.own[side].extend(_nothing_played(game, side, commands, chat))
    if events.subject is not None:          # the game moved or ended: both hear of it
        for each in (0, 1):
            queue_update(store, config, game, each, events.subject,
                         events.both + events.own[each], side, chat if each != side else [], at,
                         rules=commands.help and each == side)
        return events.subject
    done = []
    if events.both or chat:                  # leave, or chat alone
        what = "leave" if events.both else "a message"
        queue_update(store, config, game, 1 - side, f"{what} from "
                     f"{SIDE_TITLES[side]}", events.both, side, chat, at)
        done.append(what)
    if events.own[side] or events.both or commands.answers:
        what = ", ".join(commands.answers) or "noted"
        queue_letter(store, config, game, side, what,
                     letters.update_body(game, side, events.both + events.own[side], None, [], at),
                     at, rules=commands.help)
        done.append(what)
    if commands.chat and not chat:
        done.append("chat not passed on (the daily limit)")
    return ", ".join(done) or "nothing to do"


def _chat_to_pass(store: Store, game: RefereedGame, side: int, chat: list[str], events: Events,
                  at: int) -> list[str]:
    """``chat`` when the sender's daily chat limit allows it, else none (the sender told
    the first time)."""
    if not chat:
        return []
    passage = chat_passage(store, game.players[side].address, at)
    if passage == TELL:
        events.own[side].append(f"Your text for your opponent was not passed on: at most "
                                f"{CHAT_LIMIT} messages of chat a day are. Your commands are "
                                f"taken as usual; chat waits until tomorrow (you are told "
                                f"this once a day).")
    return chat if passage == RELAY else []


def _answers(game: RefereedGame, side: int, commands) -> list[str]:
    """What ``moves``, ``help`` and ``draw`` alone ask for (``status`` is the letter itself)."""
    lines = []
    if commands.draw:
        lines.append(f"'draw' alone offers nothing: a draw is offered with an action, as "
                     f"'ACTION draw' on one line (e.g. '{_example(game, side)} draw'); the "
                     f"offer stands until the next action. That line was not passed on to "
                     f"your opponent.")
    if commands.moves:
        lines += letters.moves_lines(game, side) + [""]
    if commands.help:
        lines += letters.guide_lines(game, side) + [""]
    return lines


def _nothing_played(game: RefereedGame, side: int, commands, chat: list[str]) -> list[str]:
    """Why nothing was played on ``side``'s turn and what to send, unless the message only
    asked for ``status``, ``moves`` or ``help`` (their answer says it is their turn)."""
    asked_only = commands.answers and not (commands.chat or commands.draw or commands.lines
                                           or commands.clear_lines or commands.leaves)
    if asked_only or (commands.chat and not chat and not commands.draw):
        # Chat past the daily limit: the sender was told once (an autoresponder that
        # writes no mark is answered at most that often, and the loop ends there).
        return []
    opponent = letters.player_words(game, 1 - side)
    if chat:
        passed = f"Your text was passed on to {opponent}; "
    elif commands.chat:
        passed = "Your text was not passed on (the daily chat limit); "
    else:
        passed = ""
    runs = ", and your clock runs" if game.clock() is not None else ""
    return [f"{passed}no action was played{runs}. To act, send your action on a line of its "
            f"own (e.g. '{_example(game, side)}'); reply 'moves' for every legal one."]


def _example(game: RefereedGame, side: int) -> str:
    """An action ``side`` could send: a legal one when it is their turn, else a shape."""
    if game.to_move == side:
        return str(next(iter(legal_actions(game.state))))
    return "ACTION"
