"""``tomis referee run``: fetch and tick in a loop, for systemd or a terminal.

A stop request (SIGTERM, SIGINT) only sets a flag: the message in hand is stored, decided
and marked taken before the loop looks at the flag, so stopping never leaves a message
half done; between messages to send too, and each wait on a mail server is bounded
(:data:`tomis.referee.sending.SMTP_TIMEOUT`), so a server that does not answer delays a
stop by seconds, never for ever. A mailbox that cannot be read this round (a server down, the store busy) is
logged and tried again next round; a store that is missing or not a referee store ends
the loop, since waiting would not mend it. Status pages that cannot be written (a link
or a FIFO planted at a page's name) are said, and the loop goes on.
"""

from __future__ import annotations

import signal
import threading
from dataclasses import dataclass
from typing import Callable

from ..errors import TomisError, visible
from .fetching import Mailbox, Outcome, fetch, host_clock
from .sending import Unsent
from .service import tick
from .store import Busy, StoreError

MIN_EVERY = 1
MAX_EVERY = 86_400


class Stopper:
    """Set by a signal; waited on between rounds, asked between messages."""

    def __init__(self):
        self._event = threading.Event()
        self.signal_name: str | None = None

    def install(self) -> None:
        for number in (signal.SIGTERM, signal.SIGINT):
            signal.signal(number, self._on_signal)

    def _on_signal(self, number, _frame) -> None:
        self.signal_name = signal.Signals(number).name
        self._event.set()

    def stop(self) -> None:
        self._event.set()

    def __call__(self) -> bool:
        return self._event.is_set()

    def wait(self, seconds: float) -> bool:
        """Sleep up to ``seconds``; True when asked to stop meanwhile."""
        return self._event.wait(seconds)


@dataclass
class Round:
    taken: int = 0
    changed: bool = False


def one_round(path: str, mailbox: Mailbox, stop: Stopper, say: Callable[[str], None],
              log: Callable[[Outcome], None]) -> Round:
    """Fetch, then (unless asked to stop) tick; what it did. Transient failures are said
    and left for the next round."""
    done = Round()
    try:
        fetched = fetch(path, mailbox, host_clock, stop=stop, log=log)
        done.taken = fetched.taken
        done.changed = fetched.taken > 0
        _say_unsent(say, fetched.failures)
    except StoreError as error:
        if not isinstance(error, Busy):
            raise
        say(f"the store is busy, trying again next round: {visible(error.message)}")
    except TomisError as error:
        say(f"cannot read the mailbox, trying again next round: {visible(error.message)}")
    if stop():
        return done
    try:
        report = tick(path, host_clock(), stop)
    except Busy as error:
        say(f"the store is busy, tick waits for the next round: {visible(error.message)}")
        return done
    if report.reminders or report.forfeits:
        say(f"tick: reminders {report.reminders}, time-outs {report.forfeits}")
    _say_unsent(say, report.failures)
    done.changed = bool(done.changed or report.processed or report.reminders or report.forfeits)
    return done


def _say_unsent(say: Callable[[str], None], failures: list[Unsent] | None) -> None:
    for failure in failures or []:
        say(visible(failure.report()))


def _refresh(refresh: Callable[[], None], say: Callable[[str], None]) -> None:
    try:
        refresh()
    except TomisError as error:
        where = f"{error.path}: " if error.path else ""
        say(f"status pages not written: {visible(where + error.message)}")


def run(path: str, mailbox: Mailbox, every: float, stop: Stopper, say: Callable[[str], None],
        log: Callable[[Outcome], None], refresh: Callable[[], None] | None = None) -> int:
    """Rounds every ``every`` seconds until ``stop``; ``refresh()`` (the status pages)
    after a round that changed something, and once at the start. How many rounds ran."""
    rounds = 0
    if refresh is not None:
        _refresh(refresh, say)
    while not stop():
        done = one_round(path, mailbox, stop, say, log)
        rounds += 1
        if done.changed and refresh is not None:
            _refresh(refresh, say)
        if stop.wait(every):
            break
    return rounds
