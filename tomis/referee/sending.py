"""Sending what the outbox holds: SMTP (the project's settings file), a sendmail
program, or a folder of ``.eml`` files. Whichever way, the envelope sender is the
referee's bare address (bounces come back to it, where ``deliver`` knows them for what
they are), while From and Reply-To are the player's token address.

Each queued message is claimed for a while (:data:`CLAIM_SECONDS`, host time, or until
the claiming process is gone) in its own small transaction, sent, then marked sent, so
that several processes never send one message twice; one killed between sending and
marking leaves it to be sent again (at least once, never lost). A failure stays queued with its reason for ``tick``.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

from ..errors import TomisError
from .store import transaction

CLAIM_SECONDS = 300
SENDMAIL = "/usr/sbin/sendmail"


class SendError(TomisError):
    """A message that could not be handed on; it stays queued."""


@dataclass(frozen=True)
class Method:
    """How messages leave: ``kind`` smtp, sendmail or outbox, ``where`` its path."""

    kind: str
    where: str | None = None

    def __str__(self) -> str:
        return self.kind if self.where is None else f"{self.kind}:{self.where}"


def parse_method(text: str) -> Method:
    """``smtp``, ``sendmail``, ``sendmail:PATH`` or ``outbox:DIR``; ValueError otherwise."""
    kind, _, where = text.partition(":")
    if kind == "smtp" and not where:
        return Method("smtp")
    if kind == "sendmail":
        return Method("sendmail", os.path.abspath(where) if where else SENDMAIL)
    if kind == "outbox" and where:
        return Method("outbox", os.path.abspath(where))
    raise ValueError("expected smtp, sendmail, sendmail:PATH or outbox:DIR")


@dataclass(frozen=True)
class Queued:
    id: int
    envelope_from: str
    envelope_to: str
    raw: bytes


def send_queued(connection, settings: dict[str, str], *, retry: bool) -> list[str]:
    """Send every unsent message not claimed by another process; the failures, in words.

    Without ``retry`` only messages never tried are taken (``deliver``); with it, those
    that failed before too (``tick``).
    """
    method = parse_method(settings["send_by"])
    failures = []
    while (queued := _claim(connection, retry)) is not None:
        try:
            _send_one(method, settings, queued)
        except (SendError, TomisError) as error:
            failures.append(f"message {queued.id} to {queued.envelope_to}: {error.message}")
            _mark(connection, queued.id, error.message)
        else:
            _mark(connection, queued.id, None)
    return failures


def _claim(connection, retry: bool) -> Queued | None:
    """Take the first unsent message no living process holds, for :data:`CLAIM_SECONDS`."""
    now = time.time()
    tried = "" if retry else "AND attempts = 0"
    with transaction(connection):
        rows = connection.execute(
            "SELECT id, envelope_from, envelope_to, raw, claimed_until, claimed_by FROM outbox "
            f"WHERE sent_at IS NULL {tried} ORDER BY id").fetchall()
        for row in rows:
            if row[4] is None or row[4] < now or not _alive(row[5]):
                connection.execute("UPDATE outbox SET claimed_until = ?, claimed_by = ? "
                                   "WHERE id = ?", (now + CLAIM_SECONDS, os.getpid(), row[0]))
                return Queued(*row[:4])
    return None


def _alive(pid: int | None) -> bool:
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


def _mark(connection, message_id: int, error: str | None) -> None:
    with transaction(connection):
        if error is None:
            connection.execute("UPDATE outbox SET sent_at = ?, claimed_until = NULL, error = NULL "
                               "WHERE id = ?", (time.time(), message_id))
        else:
            connection.execute("UPDATE outbox SET attempts = attempts + 1, claimed_until = NULL, "
                               "error = ? WHERE id = ?", (error, message_id))


def _send_one(method: Method, settings: dict[str, str], queued: Queued) -> None:
    if method.kind == "outbox":
        _to_folder(method.where, queued)
    elif method.kind == "sendmail":
        _to_sendmail(method.where, queued)
    else:
        _to_smtp(settings.get("config"), queued)


def _to_folder(folder: str, queued: Queued) -> None:
    """One ``.eml`` per message, named by its place in the queue, written atomically."""
    from ..util import safefile

    path = os.path.join(folder, f"{queued.id:010d}.eml")
    safefile.atomic_write(path, queued.raw.decode("ascii", "replace"))


def _to_sendmail(program: str, queued: Queued) -> None:
    """``PROGRAM -i -f ADDR -- RECIPIENT`` (:func:`tomis.mailout.pipe_to_sendmail`):
    never ``-t``, so no header picks recipients."""
    from .. import mailout

    mailout.pipe_to_sendmail(_message(queued), program, queued.envelope_from,
                             [queued.envelope_to])


def _to_smtp(config: str | None, queued: Queued) -> None:
    """Through the SMTP server of the settings file (``[smtp]``), the password read from
    the file its ``password_file =`` names, which only its owner may read."""
    from .. import mailout

    if not config:
        raise SendError("no mail settings file: give tomis referee init --config FILE")
    settings = mailout.smtp_settings({mailout.CONFIG_ENV: config})
    password = _password(config) if settings.user else None
    # The recipients are the message's own To, the player, checked again there; the
    # envelope sender is the referee's bare address either way, as for sendmail.
    mailout.send(_message(queued), settings, password, sender=queued.envelope_from)


def _message(queued: Queued):
    """The queued bytes as a message again, for the sender's header checks."""
    import email

    from .. import mailout

    return email.message_from_bytes(queued.raw, policy=mailout.POLICY)


def _password(config: str) -> str:
    import configparser
    import stat

    parser = configparser.ConfigParser(interpolation=None)
    parser.read(config, encoding="utf-8")
    path = parser.get("smtp", "password_file", fallback=None)
    if not path:
        raise SendError(f"{config} names a user but no password_file = in [smtp]")
    path = os.path.join(os.path.dirname(os.path.abspath(config)), os.path.expanduser(path))
    try:
        info = os.stat(path)
        if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise SendError(f"the password file {path} may be read by others: chmod 600 it")
        with open(path, encoding="utf-8") as stream:
            return stream.readline().rstrip("\r\n")
    except OSError as error:
        raise SendError(f"cannot read the password file {path}: {error.strerror}") from None
