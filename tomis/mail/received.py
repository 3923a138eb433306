"""When a mail system received a message, read from the ``Received:`` fields its own hosts
added (RFC 5321, section 4.4).

Each mail host that takes a message adds one ``Received:`` field on top of those already
there, so the fields read from the top down go back in time, host by host. The top ones
were written by the club's own hosts, which nobody outside can forge; everything below the
first field another host wrote is only what the sender, or some host of theirs, says.
:func:`received_time` therefore reads from the top down while each field was added
(``by HOST``) by one of the hosts it is told to trust, and gives the date (after the
``;``) of the lowest of them: when the club's mail system first had the message.

The fields are outside text: a field longer than :data:`MAX_FIELD_BYTES`, a chain of more
than :data:`MAX_FIELDS` trusted ones, a field that is no ``from ... by HOST`` or
``by HOST`` clause list, or one whose date cannot be read proves nothing, and the reading
stops or skips it rather than guess. Nothing here raises on any input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timezone
from email.utils import parsedate_to_datetime

from . import mime

MAX_HEAD_BYTES = 256 * 1024    # of a message, where its header block is looked for
MAX_FIELD_BYTES = 8 * 1024     # one Received field, folds included (a real one is < 1 KiB)
MAX_FIELDS = 20                # trusted fields read (a club has a few hosts, not twenty)
MAX_DATE_CHARS = 100           # the date after the ';'
MAX_HOSTS = 20                 # hosts a club may name
MAX_HOST_CHARS = 253           # a DNS name (RFC 1035)

_FIELD = re.compile(rb"^([!-9;-~]+):([^\n]*(?:\n[ \t][^\n]*)*)", re.MULTILINE)
_HOST = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*")
_COMMENT = re.compile(r"\([^()]*\)")


def host_name(text: str) -> str | None:
    """``text`` as a host name a ``by`` clause may carry (lowercased), or None when it is
    not one: letters, digits, ``-`` and dots, at most :data:`MAX_HOST_CHARS` characters."""
    name = text.strip().lower()
    if len(name) > MAX_HOST_CHARS or not _HOST.fullmatch(name):
        return None
    return name


def received_time(raw: bytes, hosts: tuple[str, ...] | list[str]) -> int | None:
    """When the hosts ``hosts`` (lowercase names) first had the message ``raw``, in seconds
    since the epoch: the date of the lowest ``Received:`` field of the unbroken run, from
    the top, of fields added by one of them. None when the top field is not theirs or no
    date in the run can be read."""
    trusted = frozenset(hosts)
    if not trusted:
        return None
    found = None
    for value in _received_fields(raw):
        clause = _by_clause(value)
        if clause is None or clause.host not in trusted:
            break                  # written elsewhere: it, and all below it, prove nothing
        if clause.date is not None:
            found = clause.date    # lower than the last one: earlier in the message's path
    return found


@dataclass(frozen=True)
class ByClause:
    """A ``Received:`` field's host (its ``by``) and date (None: unreadable), as read."""

    host: str
    date: int | None


def _received_fields(raw: bytes):
    """The values of the ``Received:`` fields of the header block, top first, at most
    :data:`MAX_FIELDS`; the reading ends at a field beyond :data:`MAX_FIELD_BYTES`."""
    head = _header_block(raw[:MAX_HEAD_BYTES])
    count = 0
    for match in _FIELD.finditer(head):
        if match[1].lower() != b"received":
            continue
        if len(match[0]) > MAX_FIELD_BYTES or count >= MAX_FIELDS:
            return
        count += 1
        yield match[2].replace(b"\r", b"").decode("ascii", "replace")


def _header_block(head: bytes) -> bytes:
    """The header fields of ``head``, up to its first empty line (CRLF or LF)."""
    head = head.replace(b"\r\n", b"\n")
    end = head.find(b"\n\n")
    return head if end < 0 else head[:end + 1]


def _by_clause(value: str) -> ByClause | None:
    """The host and date of one field, when its clauses read ``from X by HOST ...`` or
    ``by HOST ...`` once comments are taken out; else None."""
    words, semicolon, date_text = value.rpartition(";")
    if not semicolon:
        return None
    text = " ".join(words.split())
    for _depth in range(mime.MAX_COMMENT_DEPTH + 1):       # comments nest: innermost first
        text, taken = _COMMENT.subn(" ", text)
        if not taken:
            break
    if "(" in text or ")" in text:
        return None                # unbalanced or nested too deep: not a field to believe
    tokens = text.split()
    if len(tokens) >= 2 and tokens[0].lower() == "by":
        host = tokens[1]
    elif len(tokens) >= 4 and tokens[0].lower() == "from" and tokens[2].lower() == "by":
        host = tokens[3]
    else:
        return None
    name = host_name(host)
    return None if name is None else ByClause(name, _date(date_text))


def _date(text: str) -> int | None:
    """An RFC 5322 date as seconds since the epoch (no zone, or ``-0000``: UTC); None when
    it cannot be read."""
    text = " ".join(text.split())
    if not text or len(text) > MAX_DATE_CHARS:
        return None
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    try:
        return int(when.timestamp())
    except (OverflowError, OSError, ValueError):
        return None
