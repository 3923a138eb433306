"""The referee's own outages, credited to the clocks (docs/REFEREE.md, "Outages").

Every take of mail (``deliver``, ``fetch``, ``run``'s rounds, ``tick``) is noted in the
store. Once the referee has ticked at least once, a take that comes more than the
``outage_after`` setting after the one before finds an outage: from the last take to this
one, nobody could be heard. Before anything else in that take is decided (a message, a
time-out), every game in play whose clock ran in the gap gets ``[%outage BEGINS ENDS]``
in its record (from the later of the last take and the game's last stamp), which gives its
side to act that running time back. Both players are told in the next message each gets
(:func:`notice_lines`, called as it is queued): composing two messages for every game at
once would hold the store's lock for minutes in a big club.
"""

from __future__ import annotations

from ..errors import TomisError
from ..notation import clock
from .durations import parse_setting_duration
from .games import RefereedGame
from .store import OutageRow, Store

OUTAGE_AFTER = "outage_after"            # the settings key
DEFAULT_OUTAGE_AFTER = "1h"


def outage_after(settings: dict[str, str]) -> int | None:
    """The longest gap between two takes that is no outage, in seconds; None: off."""
    return parse_setting_duration(settings.get(OUTAGE_AFTER, DEFAULT_OUTAGE_AFTER), True,
                                  "--outage-after")


def note_take(store: Store, settings: dict[str, str], now: int, *, ticked: bool) -> OutageRow | None:
    """Note that the referee takes mail at ``now`` (``ticked``: this is tick), crediting the
    gap since the last take first when it is an outage (``settings``: the store's); the
    outage found, or None."""
    with store.transaction():
        mark = store.takes.mark()
        longest = outage_after(settings)
        found = None
        if mark is not None and mark.ticked and longest is not None and now - mark.last > longest:
            found = OutageRow(mark.last, now, credit_outage(store, mark.last, now))
            store.takes.add_outage(found)
        store.takes.note(now, ticked)
    return found


def credit_outage(store: Store, begins: int, ends: int) -> int:
    """Write the outage into every game in play whose clock ran in it; how many."""
    credited = 0
    for number in store.games.numbers(in_play=True):
        game = RefereedGame.load(store, number)
        if game is not None and credit_game(store, game, begins, ends):
            credited += 1
    return credited


def credit_game(store: Store, game: RefereedGame, begins: int, ends: int) -> bool:
    """``[%outage]`` in ``game`` for the part of ``begins``..``ends`` in which its side to
    act's clock ran, both players to be told; False when no clock ran in it."""
    ran, side = game.clock(), game.to_move
    if ran is None or side is None or ran.since is None:
        return False
    begins = max(begins, ran.since, _last_outage_end(game))
    if clock.running_time(ran.leaves, side, begins, ends) <= 0:
        return False
    try:
        game.library.record_outage(begins, ends)
    except TomisError:
        return False                  # a record the library will not extend stays as it is
    game.record_changed()
    for seat in (0, 1):
        store.takes.add_notice(game.id, seat, begins, ends)
    game.save(store)
    return True


def notice_lines(store: Store, game: int, side: int) -> list[str]:
    """What ``side`` of ``game`` is not told yet of the outages credited to it, one line
    each; taken from the store, so the message being queued is the one that tells them."""
    return [f"The referee could not take mail from {clock.format_stamp(begins)} to "
            f"{clock.format_stamp(ends)}; that time was given back to your clocks."
            for begins, ends in store.takes.take_notices(game, side)]


def _last_outage_end(game: RefereedGame) -> int:
    """Where the game's last recorded outage ended (outages never overlap), else 0."""
    outages = game.facts().outages
    return outages[-1].ends if outages else 0
