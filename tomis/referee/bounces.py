"""Delivery reports (bounces) of the messages the referee sent, read so that each can be
matched to the player and game it is about, kept for the organiser and never answered.

A report says which recipients failed and why; the message it returns (whole, as
``message/rfc822``, or its headers, as ``text/rfc822-headers``, or quoted in plain text)
carries the seat's reply address ``LOCAL+TOKEN@DOMAIN`` in its From and Reply-To: that
token, checked by the store's secret, names the game and side.

The failed recipients are read by Mailman's ``flufl.bounce`` (the ``referee`` extra),
which knows RFC 3464 reports and the shapes of many servers that write none. Without it
the referee reads RFC 3464 reports (``multipart/report; report-type=delivery-status``)
itself, and matches any other bounce from a mail server only by the token of the message
it returns (docs/REFEREE.md, "What needs a person").
"""

from __future__ import annotations

import email
import email.policy
import re
from dataclasses import dataclass

from ..errors import FileError, visible
from ..mail import mime

MAX_REASON = 200            # characters of the server's words kept
MAX_ADDRESS = 254           # characters of a failed address kept (RFC 5321's path limit)
MAX_SCANNED = 100_000       # characters of the report's text searched for a reply address
READERS = ("flufl.bounce", "RFC 3464")
# Who writes bounces: the mail system's own names (RFC 5321 section 4.5.5: an empty
# envelope sender; by custom MAILER-DAEMON or postmaster in From).
_DAEMONS = ("mailer-daemon", "postmaster", "mail delivery subsystem", "mail delivery system")
_RETURNED_TYPES = ("message/rfc822", "text/rfc822-headers", "message/rfc822-headers")
_TOKEN_WORD = r"[a-z2-7]{24}"


@dataclass(frozen=True)
class Bounce:
    """What a delivery report says: the recipients that failed (lowercased; perhaps none
    found), the reason in one line, and the addresses of the message it returns that may
    be a seat's reply address."""

    failed: tuple[str, ...]
    reason: str
    returned: tuple[str, ...]


def read_bounce(raw: bytes, referee_address: str) -> Bounce | None:
    """The bounce ``raw`` is, or None when it is no report of a failed delivery (a
    report of a delay or of a delivery is none). Hostile text: bounded before parsing
    (:func:`tomis.mail.mime.check_bounds`), the reason made one visible line."""
    try:
        mime.check_bounds(raw)
        message = email.message_from_bytes(raw, policy=email.policy.compat32)
        return _read(message, referee_address)
    except FileError:
        return None
    except Exception:  # noqa: BLE001 -- the email package's many ways to fail on junk
        return None


def _read(message, referee_address: str) -> Bounce | None:
    report = _is_report(message)
    if not report and not _from_mail_system(message):
        return None
    statuses = _dsn_failures(message)
    failed = dict.fromkeys(address for address, _reason in statuses)
    if not statuses and report and _dsn_blocks(message):
        return None          # a report of a delay or a delivery: nothing failed
    failed.update(dict.fromkeys(_flufl_failures(message)))
    failed = {visible(address)[:MAX_ADDRESS]: None for address in failed}
    returned = _returned_addresses(message, referee_address)
    if not failed and not returned:
        return None
    reason = next((why for _address, why in statuses if why), "") or _header(message, "Subject")
    return Bounce(tuple(failed), _one_line(reason or "no reason given"), tuple(returned))


def _header(message, name: str) -> str:
    try:
        return " ".join(str(message.get(name, "") or "").split())
    except Exception:  # noqa: BLE001 -- a header nobody can read counts as absent
        return ""


def _is_report(message) -> bool:
    return (message.get_content_type() == "multipart/report"
            and (message.get_param("report-type") or "").lower() == "delivery-status")


def _from_mail_system(message) -> bool:
    """Written by a mail server about a delivery: an empty envelope sender, or From a
    mail system's name."""
    if _header(message, "Return-Path") in ("<>", ""):
        if message.get("Return-Path") is not None:
            return True
    sender = _header(message, "From").lower()
    return any(name in sender for name in _DAEMONS)


def _dsn_blocks(message) -> list:
    """The per-recipient field blocks of every ``message/delivery-status`` part."""
    blocks = []
    for part in message.walk():
        if part.get_content_type() == "message/delivery-status" and part.is_multipart():
            blocks.extend(block for block in part.get_payload()[1:])
    return blocks


def _dsn_failures(message) -> list[tuple[str, str]]:
    """RFC 3464 read by the referee: each recipient whose ``Action`` is ``failed``, with
    its ``Diagnostic-Code`` (else its ``Status``)."""
    found = []
    for block in _dsn_blocks(message):
        if not _header(block, "Action").lower().startswith("fail"):
            continue
        recipient = _header(block, "Original-Recipient") or _header(block, "Final-Recipient")
        address = recipient.partition(";")[2].strip().strip("<>").lower()
        why = _header(block, "Diagnostic-Code").partition(";")[2].strip() or \
            f"status {_header(block, 'Status')}"
        if "@" in address:
            found.append((address, why))
    return found


def _flufl_failures(message) -> list[str]:
    """The recipients Mailman's reader finds failed for good; none without the extra."""
    try:
        # The optional referee extra, imported only when a mail server's report is read
        # (74 ms of start-up that deliver of a player's reply never pays).
        from flufl.bounce import scan_message
    except ImportError:
        return []
    try:
        found = scan_message(message)
    except Exception:  # noqa: BLE001 -- a heuristic reader tripped by junk finds nothing
        return []
    return sorted(address.decode("ascii", "replace").lower() for address in found
                  if isinstance(address, bytes) and b"@" in address)


def _returned_addresses(message, referee_address: str) -> list[str]:
    """The referee's token addresses found in what the report returns: the From,
    Reply-To and Sender of a returned message or its headers, and any such address in
    the text of a bounce that quotes the headers instead."""
    local, _, domain = referee_address.lower().rpartition("@")
    pattern = re.compile(rf"{re.escape(local)}\+{_TOKEN_WORD}@{re.escape(domain)}",
                         re.IGNORECASE)
    found: list[str] = []
    for part in message.walk():
        found.extend(pattern.findall(_part_text(part).lower()))
    return list(dict.fromkeys(found))


def _part_text(part) -> str:
    """A part's text for the search: a returned message's headers, a text part's
    words; bounded."""
    kind = part.get_content_type()
    if kind == "message/rfc822" and part.is_multipart():
        returned = part.get_payload()[0]
        return "\n".join(f"{name}: {_header(returned, name)}"
                         for name in ("From", "Reply-To", "Sender"))[:MAX_SCANNED]
    if part.is_multipart() or part.get_content_maintype() not in ("text", "message"):
        return ""
    payload = part.get_payload(decode=True) or b""
    return payload[:MAX_SCANNED].decode("utf-8", "replace") if kind in _RETURNED_TYPES \
        or part.get_content_maintype() == "text" else ""


def _one_line(text: str) -> str:
    return visible(" ".join(text.split()))[:MAX_REASON]
