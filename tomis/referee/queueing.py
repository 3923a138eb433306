"""Putting messages in the outbox, inside the caller's transaction: the update after a
change, a status, and the rate-limited explanation ("why") of a refused message."""

from __future__ import annotations

from dataclasses import dataclass

from . import composing, letters, tokens
from ..outgoing.headers import message_bytes
from .composing import Letter, Referee, compose
from .sending import check_envelope
from .store import Store

WHY_LIMIT = 5                  # explanations an address gets ...
WHY_WINDOW = 86_400            # ... in this many seconds (the referee's clock)
CHAT_LIMIT = 10                # messages of chat a player's opponent is passed ...
CHAT_WINDOW = 86_400           # ... in this many seconds (the referee's clock)
RELAY, TELL, DROP = "relay", "tell", "drop"      # what becomes of one message's chat


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
                 *, attach: bool = True) -> None:
    """Queue ``body`` to ``side``'s player, with the record (and board) attached."""
    letter = Letter(
        to=game.players[side],
        token=tokens.make(config.secret, tokens.Seat(game.id, side), game.keys[side]),
        subject=letters.subject(game), headline=letters.headline(what), body=body,
        thread=game.first_message(side), record_text=_public_record(game) if attach else None,
        record_name=f"tomis-{game.id}.tgn", grid=letters.board_grid(game),
        png=_board(game) if attach else None)
    message = compose(config.referee, letter, at)
    # Built once, serialised once: the sender's checks are made here, on the message
    # itself, and the stored bytes are sent as they are.
    check_envelope(message, config.referee.address, game.players[side].address)
    # The seat is stored with the message: resend finds a seat's last message by it.
    store.outbox.add(game.id, side, at, config.referee.address, game.players[side].address,
                     message_bytes(message))
    game.remember(side, message["Message-ID"])


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
                 chat_from: int | None, chat: list[str], at: int) -> None:
    body = letters.update_body(game, side, events, chat_from, chat, at)
    queue_letter(store, config, game, side, what, body, at)


def queue_why(store: Store, config: Config, game, side: int, at: int, reason: str) -> bool:
    """Explain a refusal to ``side``'s registered address, unless it had
    :data:`WHY_LIMIT` explanations in the last :data:`WHY_WINDOW` seconds."""
    address = game.players[side].address
    if store.replies.count_since(address, at - WHY_WINDOW) >= WHY_LIMIT:
        return False
    store.replies.forget_until(at - WHY_WINDOW)
    store.replies.add(address, at)
    body = letters.update_body(game, side, [reason], None, [], at)
    queue_letter(store, config, game, side, "not taken", body, at, attach=False)
    return True


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
