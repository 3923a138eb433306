"""Sending what the outbox holds: SMTP (the project's settings file), a sendmail
program, or a folder of ``.eml`` files. Whichever way, the envelope sender is the
referee's bare address (bounces come back to it, where ``deliver`` knows them for what
they are), while From and Reply-To are the player's token address.

Each queued message is claimed for a while (:data:`CLAIM_SECONDS`, host time, or until
the claiming process is gone) in its own small transaction, sent, then marked sent, so
that several processes never send one message twice; one killed between sending and
marking leaves it to be sent again (at least once, never lost).

A message that cannot be sent is tried again later, never at once: after
:data:`FIRST_DELAY` seconds, then twice as long each time up to :data:`MAX_DELAY`
(``outbox.next_try``, the referee's clock), each try kept in ``attempts`` with the
server's answer. One round (one call of :func:`send_queued`) tries each message at most
once, and looks at its ``stop`` between messages. A message refused for good
(:class:`tomis.outgoing.sending.RefusedForGood`: a 5xx answer, a permanent sendmail exit
status), or still unsent :data:`GIVE_UP_AFTER` seconds after it was queued, is marked
failed (``outbox.failed_at``) and never tried again: :func:`failed_messages` lists those,
as a bounce would be listed.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Callable

from ..errors import FileError, TomisError
from ..notation.clock import format_stamp
from ..errors import MailError
from ..outgoing import sending as outgoing_sending
from ..util import safefile
from .store import Queued, Store, Waiting

CLAIM_SECONDS = 300
SENDMAIL = "/usr/sbin/sendmail"
FIRST_DELAY = 60               # seconds before the first retry ...
MAX_DELAY = 6 * 3600           # ... doubling each time up to this
GIVE_UP_AFTER = 5 * 86_400     # seconds after queuing: then the message is marked failed
SMTP_TIMEOUT = 10.0            # each wait on the server: a stop request waits at most this
# A local sendmail only writes the message into the mail server's queue, in far less than
# this; one that takes longer is stuck (postfix's postdrop without its setgid bit loops for
# ever), and a message waiting longer would hold up the rest of the queue and a stop request.
SENDMAIL_TIMEOUT = 10.0
OUTBOX_MODE = 0o600            # an outbox message holds its player's reply token


class SendError(TomisError):
    """A message that could not be handed on; it stays queued."""


@dataclass(frozen=True)
class Method:
    """How messages leave: ``kind`` smtp, sendmail or outbox, ``where`` its path."""

    kind: str
    where: str | None = None

    def __str__(self) -> str:
        return self.kind if self.where is None else f"{self.kind}:{self.where}"


def parse_method(text: str, base: str | None = None) -> Method:
    """``smtp``, ``sendmail``, ``sendmail:PATH`` or ``outbox:DIR``; ValueError otherwise.
    A relative PATH or DIR is taken in the folder ``base`` (default: this process's)."""
    kind, _, where = text.partition(":")
    if kind == "smtp" and not where:
        return Method("smtp")
    if kind == "sendmail":
        return Method("sendmail", _absolute(where, base) if where else SENDMAIL)
    if kind == "outbox" and where:
        return Method("outbox", _absolute(where, base))
    raise ValueError("expected smtp, sendmail, sendmail:PATH or outbox:DIR")


def absolute_method(text: str, base: str | None = None) -> str:
    """``text`` with its PATH or DIR made absolute (taken in ``base``, default this
    process's folder), as the store keeps it: the mail server runs ``deliver`` in a folder
    of its own, where a relative path would name another place. ``smtp`` and a bare
    ``sendmail`` stay as they are."""
    kind, colon, where = text.partition(":")
    return str(parse_method(text, base)) if colon and where else text


def _absolute(where: str, base: str | None) -> str:
    return os.path.abspath(os.path.join(base, where) if base is not None else where)


@dataclass(frozen=True)
class Unsent:
    """A message this round could not send, and what becomes of it."""

    id: int
    to: str
    error: str
    next_try: int | None       # the referee's clock; None: given up (``failed_at`` set)

    @property
    def given_up(self) -> bool:
        return self.next_try is None

    def __str__(self) -> str:
        return f"message {self.id} to {self.to}: {self.error}"

    def report(self) -> str:
        """The line a command says of it: queued for a retry, or given up."""
        if self.next_try is None:
            return f"not sent, given up (tomis referee outbox lists it): {self}"
        return f"not sent yet (tick tries again): {self}; next try {format_stamp(self.next_try)}"


def retry_delay(tries: int) -> int:
    """Seconds to wait after the ``tries``-th failed try: 1 min, 2, 4, ... up to 6 h."""
    return min(FIRST_DELAY << min(max(tries - 1, 0), 20), MAX_DELAY)


def send_queued(store: Store, settings: dict[str, str], *, now: int, retry: bool,
                stop: Callable[[], bool] = lambda: False) -> list[Unsent]:
    """Send every unsent message not claimed by another process, each at most once; the
    ones not sent. ``now`` is the referee's clock, for the retry times.

    Without ``retry`` only messages never tried are taken (``deliver``, the organiser's
    commands); with it, those whose retry time has come too (``tick``). ``stop()`` is
    asked before each message.
    """
    method = parse_method(settings["send_by"])
    unsent = []
    last = 0
    while not stop() and (queued := _claim(store, now, retry, after=last)) is not None:
        last = queued.id                # ordered by id: nothing is tried twice in a round
        try:
            _send_one(method, settings, queued)
        except TomisError as error:
            unsent.append(_not_sent(store, queued, error, now))
        else:
            _mark_sent(store, queued.id, now)
    return unsent


def _claim(store: Store, now: int, retry: bool, after: int) -> Queued | None:
    """Take the first unsent message after ``after`` that is due and no living process
    holds, for :data:`CLAIM_SECONDS`; only its body is read."""
    host_now = time.time()
    with store.transaction():
        for due in store.outbox.due(after, now, retry):
            if due.claimed_until is None or due.claimed_until < host_now \
                    or not process_alive(due.claimed_by):
                return store.outbox.claim(due.id, host_now + CLAIM_SECONDS, os.getpid())
    return None


def process_alive(pid: int | None) -> bool:
    """Whether the process that claimed a message still runs (a killed one's claim lapses
    at once; the store is on this host, as SQLite needs)."""
    if pid is None or pid == os.getpid():
        return pid is not None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _mark_sent(store: Store, message_id: int, now: int) -> None:
    with store.transaction():
        store.outbox.mark_sent(message_id, now, time.time())


def _not_sent(store: Store, queued: Queued, error: TomisError, now: int) -> Unsent:
    """Record the failed try; the message is tried again after :func:`retry_delay`, or,
    refused for good or queued :data:`GIVE_UP_AFTER` ago, marked failed."""
    tries = queued.attempts + 1
    words = error.message
    if isinstance(error, outgoing_sending.RefusedForGood):
        next_try = None
        words += " (refused for good: not tried again)"
    elif now - queued.queued_at >= GIVE_UP_AFTER:
        next_try = None
        words += f" (unsent {GIVE_UP_AFTER // 86_400} days after it was queued: given up)"
    else:
        next_try = now + retry_delay(tries)
    with store.transaction():
        store.outbox.mark_unsent(queued.id, now, tries, error.message, words, next_try)
    return Unsent(queued.id, queued.envelope_to, words, next_try)


def _send_one(method: Method, settings: dict[str, str], queued: Queued) -> None:
    if method.kind == "outbox":
        _to_folder(method.where, queued)
    elif method.kind == "sendmail":
        _to_sendmail(method.where, queued)
    else:
        _to_smtp(settings.get("config"), queued)


def _to_folder(folder: str, queued: Queued) -> None:
    """One ``.eml`` per message, named by its place in the queue, written atomically,
    0600 (it holds the player's reply token), never through a link planted at its name."""
    try:
        safefile.write_own(folder, f"{queued.id:010d}.eml", queued.raw, OUTBOX_MODE)
    except FileError as error:          # the name, for the organiser to find what is there
        raise SendError(f"{error.path}: {error.message}") from None


def _to_sendmail(program: str, queued: Queued) -> None:
    """``PROGRAM -i -f ADDR -- RECIPIENT`` (:func:`tomis.outgoing.sending.pipe_to_sendmail`):
    never ``-t``, so no header picks recipients."""
    outgoing_sending.pipe_bytes_to_sendmail(queued.raw, program, queued.envelope_from,
                                            [queued.envelope_to], timeout=SENDMAIL_TIMEOUT)


def _to_smtp(config: str | None, queued: Queued) -> None:
    """Through the SMTP server of the settings file (``[smtp]``), the password read from
    the file its ``password_file =`` names, which only its owner may read. Each wait on
    the server is bounded by :data:`SMTP_TIMEOUT`, so ``run`` hears a stop request soon."""
    if not config:
        raise SendError("no mail settings file: give tomis referee init --config FILE")
    settings = outgoing_sending.smtp_settings({outgoing_sending.CONFIG_ENV: config})
    password = outgoing_sending.file_password(settings) if settings.user else None
    # The recipient is the message's own To, the player, checked when it was queued
    # (check_envelope); the envelope sender is the referee's bare address, as for sendmail.
    outgoing_sending.send_bytes(queued.raw, settings, password, queued.envelope_from,
                                [queued.envelope_to], timeout=SMTP_TIMEOUT)


def check_envelope(message, envelope_from: str, envelope_to: str) -> None:
    """The sender's header checks (:func:`tomis.outgoing.sending.envelope`), made on the
    composed message before it is queued, so that its stored bytes are sent as they are:
    no foreign recipient header, one From and one To, the To the seat's player, and the
    envelope sender a bare address. A :class:`~tomis.errors.MailError` if not."""
    _sender, recipients = outgoing_sending.envelope(message)
    outgoing_sending.envelope_sender(envelope_from)
    if recipients != [envelope_to]:
        raise MailError(f"the message is addressed to {', '.join(recipients)}, not to "
                        f"{envelope_to}: nothing was queued")


# --------------------------------------------------------------------------- what waits

def unsent_messages(store: Store) -> list[Waiting]:
    """Every message not sent, those given up included, oldest first, with their tries."""
    return store.outbox.unsent()


def failed_messages(store: Store) -> list[Waiting]:
    """The messages given up (refused for good, or unsent for :data:`GIVE_UP_AFTER`): as
    bounces are, they are for the organiser to read and act on."""
    return store.outbox.unsent(failed_only=True)
