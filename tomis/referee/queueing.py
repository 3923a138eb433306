"""Putting messages in the outbox, inside the caller's transaction: the update after a
change, a status, and the rate-limited explanation ("why") of a refused message."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources

from . import composing, deadlines, letters, tokens
from ..notation.clock import format_stamp
from ..outgoing.headers import message_bytes
from ..outgoing.message import Attachment
from .composing import Letter, Note, Referee, compose, compose_note
from .outages import notice_lines
from .sending import check_envelope
from .store import Store

WHY_LIMIT = 5                  # explanations an address gets ...
WHY_WINDOW = 86_400            # ... in this many seconds (the referee's clock)
CHAT_LIMIT = 10                # messages of chat a player's opponent is passed ...
CHAT_WINDOW = 86_400           # ... in this many seconds (the referee's clock)
RELAY, TELL, DROP = "relay", "tell", "drop"      # what becomes of one message's chat
REFUSED, FORGED = "refused", "forged"            # the two kinds of explanation, limited apart


@dataclass(frozen=True)
class Config:
    """The store's settings, read once per process."""

    referee: Referee
    secret: str
    settings: dict[str, str]


def load_config(settings: dict[str, str]) -> Config:
    local, domain = settings["address"].rsplit("@", 1)
    return Config(Referee(settings.get("name", "Tomis referee"), local, domain),
                  settings["secret"], settings)


def queue_letter(store: Store, config: Config, game, side: int, what: str, body: str, at: int,
                 *, attach: bool = True, rules: bool = False) -> None:
    """Queue ``body`` to ``side``'s player, with the record (and board) attached, and the
    rules for players when ``rules`` (the answer to 'help'); the outages credited to the
    game that the player is not told of yet are told here."""
    body = _with_notices(body, notice_lines(store, game.id, side))
    letter = Letter(
        to=game.players[side],
        token=tokens.make(config.secret, tokens.Seat(game.id, side), game.keys[side]),
        subject=letters.subject(game), headline=letters.headline(what), body=body,
        thread=game.first_message(side), record_text=_public_record(game) if attach else None,
        record_name=f"tomis-{game.id}.tgn", grid=letters.board_grid(game),
        png=_board(game) if attach else None,
        extra=((Attachment(letters.RULES_NAME, rules_text()),) if rules else ())
        + _calendar(store, config, game, side, at))
    message = compose(config.referee, letter, at)
    # Built once, serialised once: the sender's checks are made here, on the message
    # itself, and the stored bytes are sent as they are.
    check_envelope(message, config.referee.address, game.players[side].address)
    # The seat is stored with the message: resend finds a seat's last message by it.
    store.outbox.add(game.id, side, at, config.referee.address, game.players[side].address,
                     message_bytes(message))
    game.remember(side, message["Message-ID"])


def queue_note(store: Store, config: Config, note: Note, at: int) -> None:
    """Queue ``note`` to a person outside any game (:mod:`.clubmail`), checked as every
    letter is; the outbox row names no seat."""
    message = compose_note(config.referee, note, at)
    check_envelope(message, config.referee.address, note.to.address)
    store.outbox.add(None, None, at, config.referee.address, note.to.address,
                     message_bytes(message))


def _with_notices(body: str, notices: list[str]) -> str:
    """``body`` with ``notices`` as a paragraph after its first one (the game's title)."""
    if not notices:
        return body
    title, gap, rest = body.partition("\n\n")
    return f"{title}\n\n" + "\n".join(notices) + ("\n\n" + rest if gap else "")


def _calendar(store: Store, config: Config, game, side: int, at: int) -> tuple[Attachment, ...]:
    """``side``'s calendar event for the game as it stands (docs/REFEREE.md, "Calendars"):
    none for a game without clocks, before they start, or without the icalendar package.
    Its SEQUENCE is raised here, in the caller's transaction, when what it shows changed."""
    if not deadlines.available():
        return ()
    last = store.calendars.last(game.id)
    shown = deadlines.showing(game, None if last is None else last.shown)
    if shown is None:
        return ()
    stamping = deadlines.Stamping(store.calendars.sequence(game.id, shown.key()), at,
                                  config.referee.name, config.referee.address, config.secret)
    made = deadlines.attachment(game, side, shown, stamping)
    return () if made is None else (made,)


def _board(game) -> bytes | None:
    """The board after the last change as PNG (None without the images extra), drawn once."""
    key = (game.actions_played, game.record.result)
    if game.png_cache is None or game.png_cache[0] != key:
        report = game.record.nodes[-1].report if game.record.nodes else None
        game.png_cache = (key, composing.board_png(game.state, report))
    return game.png_cache[1]


def _public_record(game) -> str:
    return game.record_text()


def queue_update(store: Store, config: Config, game, side: int, what: str, events: list[str],
                 chat_from: int | None, chat: list[str], at: int, *, rules: bool = False) -> None:
    body = letters.update_body(game, side, events, chat_from, chat, at)
    queue_letter(store, config, game, side, what, body, at, rules=rules)


@functools.cache
def rules_text() -> str:
    """The rules for players as the package ships them (tomis/data/rules.md, a copy of
    docs/RULES.md), read once: a player can open an attachment, not a source checkout."""
    return resources.files("tomis").joinpath("data", "rules.md").read_text(encoding="utf-8")


def queue_why(store: Store, config: Config, game, side: int, at: int, reason: str,
              kind: str = REFUSED) -> bool:
    """Explain to ``side``'s registered address why its message was refused (``kind``
    :data:`REFUSED`), or that mail from another address reached its seat (:data:`FORGED`),
    unless it had :data:`WHY_LIMIT` explanations of that kind in the last
    :data:`WHY_WINDOW` seconds. The two are counted apart, so mail forged in a player's
    name never uses up the answers to their own. The last explanation before the limit
    says so, and when answers resume."""
    address = game.players[side].address
    since = at - WHY_WINDOW
    given = store.replies.count_since(address, since, kind)
    if given >= WHY_LIMIT:
        return False
    store.replies.forget_until(since)
    store.replies.add(address, at, kind)
    events = [reason]
    if given + 1 == WHY_LIMIT:
        oldest = store.replies.oldest_since(address, since, kind)
        events.append(_limit_words(kind, oldest + WHY_WINDOW))
    body = letters.update_body(game, side, events, None, [], at)
    queue_letter(store, config, game, side, "not taken", body, at, attach=False)
    return True


def _limit_words(kind: str, resume: int) -> str:
    """The warning in the last explanation of ``kind`` before the limit."""
    what = ("refused messages from you" if kind == REFUSED
            else "messages from other addresses to your reply address")
    return (f"This is the {WHY_LIMIT}th explanation of this kind in 24 hours, the last: "
            f"{what} get no answer until {format_stamp(resume)} (they are still "
            f"read, and what they hold that can be taken is taken).")


def chat_passage(store: Store, address: str, at: int) -> str:
    """What becomes of chat from ``address`` at ``at``, recorded in ``relayed``: RELAY
    while it had fewer than :data:`CHAT_LIMIT` relayed in the last :data:`CHAT_WINDOW`
    seconds; past that DROP, but TELL (drop, and tell the sender) the first time in the
    window. Two autoresponders writing to each other through the referee stop here."""
    since = at - CHAT_WINDOW
    store.relayed.forget_until(since)
    counts = store.relayed.counts_between(address, since, at)
    if counts.relayed < CHAT_LIMIT:
        store.relayed.add(address, at)
        return RELAY
    if counts.told:
        return DROP
    store.relayed.add(address, at, notice=True)
    return TELL
