"""A stored message read for the referee: who sent it, to which address, whether a
machine wrote it, and the new text of the reply (quoted text taken away).

Outside text is hostile: the message is measured on its bytes first
(:func:`tomis.mail.mime.check_bounds`: parts, nesting, header fields) and only then parsed
by the standard :mod:`email` package; header values are taken only when they validate
(:mod:`tomis.outgoing.headers`' checks: one plain address, an RFC 5322 message id), and nothing
read here reaches an outgoing header unless it passed those checks.
:func:`read_message` is the one door in.
"""

from __future__ import annotations

import contextlib
import re
import signal
import threading
from dataclasses import dataclass, field

from ..errors import FileError, MailError
from ..mail.mime import html_to_text, param_of, parse_bounded, unflow
from ..outgoing.headers import address_pairs, msg_id

MAX_MESSAGE_BYTES = 2 * 2**20     # a reply is a few lines; 2 MiB leaves room for HTML and pictures
MAX_TEXT_CHARS = 100_000          # of the chosen text part
MAX_REFERENCES = 20
READ_SECONDS = 5                  # the most one message's reading may take (docs/SECURITY.md)
REPLY_MARKER = "-- reply above this line --"
RECIPIENT_HEADERS = ("Delivered-To", "X-Original-To", "To", "Cc")

_BULK = frozenset({"bulk", "list", "junk"})


class Unreadable(Exception):
    """The message is not one the referee will read (the reason in words)."""


class _OutOfTime(BaseException):
    """The reading's time ran out. A BaseException, so that no ``except Exception`` on the
    way (the email package's, ours around a header) takes it for a bad header and goes on."""


@dataclass
class Incoming:
    """What the referee needs of one message."""

    message_id: str | None                  # validated <id@host>, or None
    references: list[str]                   # validated ids, oldest first
    sender: str | None                      # From's address, lowercased; None if not one address
    recipients: list[str]                   # every address it was sent to, lowercased
    automatic: str | None                   # why a machine wrote it (no reply then), or None
    text: str = ""                          # the new text of the reply
    notes: list[str] = field(default_factory=list)


def read_message(raw: bytes, envelope_recipient: str | None = None,
                 seconds: float = READ_SECONDS) -> Incoming:
    """The facts of the message ``raw``; :class:`Unreadable` when it cannot be read, or not
    in ``seconds`` (beyond the bounds of :func:`tomis.mail.mime.check_bounds`, which keep
    every parse short, in case one shape was missed)."""
    try:
        with _time_budget(seconds):
            return _read(raw, envelope_recipient)
    except _OutOfTime:
        raise Unreadable(f"the message could not be read in {seconds:g} seconds") from None


@contextlib.contextmanager
def _time_budget(seconds: float):
    """Raise :class:`_OutOfTime` in the block after ``seconds`` (SIGALRM: only where the
    platform has it and in the main thread; elsewhere the block runs unbounded)."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def out_of_time(_number, _frame):
        raise _OutOfTime

    previous = signal.signal(signal.SIGALRM, out_of_time)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _read(raw: bytes, envelope_recipient: str | None) -> Incoming:
    if len(raw) > MAX_MESSAGE_BYTES:
        raise Unreadable(f"the message is larger than {MAX_MESSAGE_BYTES // 2**20} MiB")
    try:
        msg = parse_bounded(raw)
    except FileError as error:
        raise Unreadable(error.message) from None
    except Exception as error:  # noqa: BLE001 -- the email package's many ways to fail on junk
        raise Unreadable(f"the message cannot be read: {type(error).__name__}") from None
    try:
        incoming = Incoming(
            message_id=valid_id(_header(msg, "Message-ID")),
            references=_references(msg),
            sender=_single_address(_header(msg, "From")),
            recipients=_recipients(msg, envelope_recipient),
            automatic=automatic_reason(msg),
        )
        incoming.text = new_text(_body_text(msg))
    except Unreadable:
        raise
    except Exception as error:  # noqa: BLE001 -- the email package's many ways to fail on junk
        raise Unreadable(f"the message cannot be read: {type(error).__name__}") from None
    return incoming


def _header(msg, name: str) -> str | None:
    try:
        value = msg.get(name)
    except Exception:  # noqa: BLE001 -- a header the policy cannot parse counts as absent
        return None
    return None if value is None else str(value)


def valid_id(text: str | None) -> str | None:
    """``text`` (blanks around it dropped) when it is one RFC 5322 message id, else None."""
    return msg_id(text.strip()) if isinstance(text, str) else None


def _references(msg) -> list[str]:
    found = []
    for name in ("References", "In-Reply-To"):
        for word in (_header(msg, name) or "").split():
            good = valid_id(word)
            if good and good not in found:
                found.append(good)
    return found[-MAX_REFERENCES:]


def _addresses(value: str | None) -> list[str]:
    """The plain addresses of a header value, lowercased; one bad address among several
    costs only itself."""
    if not value:
        return []
    try:
        return [addr.lower() for _name, addr in address_pairs(value, "an address")]
    except MailError:
        pass
    found = []
    for piece in value.split(",")[:100]:
        try:
            found += [addr.lower() for _name, addr in address_pairs(piece.strip(), "an address",
                                                                    single=True)]
        except MailError:
            continue
    return found


def _single_address(value: str | None) -> str | None:
    found = _addresses(value)
    return found[0] if len(found) == 1 else None


def _recipients(msg, envelope_recipient: str | None) -> list[str]:
    found = _addresses(envelope_recipient)
    for name in RECIPIENT_HEADERS:
        try:
            values = msg.get_all(name) or []
        except Exception:  # noqa: BLE001
            values = []
        for value in values:
            found.extend(_addresses(str(value)))
    return list(dict.fromkeys(found))


def automatic_reason(msg) -> str | None:
    """Why the message was written by a machine (RFC 3834 and common practice), or None."""
    auto = (_header(msg, "Auto-Submitted") or "").strip().lower()
    if auto and auto.split(";")[0].strip() != "no":
        return f"Auto-Submitted: {auto[:40]}"
    precedence = (_header(msg, "Precedence") or "").strip().lower()
    if precedence in _BULK:
        return f"Precedence: {precedence}"
    return_path = _header(msg, "Return-Path")
    if return_path is not None and return_path.strip() in ("<>", ""):
        return "an empty envelope sender (a bounce)"
    for name in ("From", "Return-Path", "Sender"):
        if "mailer-daemon" in (_header(msg, name) or "").lower():
            return f"{name} is MAILER-DAEMON (a bounce)"
    return None


def _body_text(msg) -> str:
    """The text/plain body, else the text of the HTML one (blockquotes marked ``> ``)."""
    part = msg.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    try:
        text = part.get_content()
    except (LookupError, UnicodeError, AssertionError):
        text = (part.get_payload(decode=True) or b"").decode("utf-8", "replace")
    if not isinstance(text, str):
        return ""
    text = text[:MAX_TEXT_CHARS]
    if part.get_content_subtype() == "html":
        return html_to_text(text)
    if str(param_of(part, "format", "")).lower() == "flowed":
        return unflow(text, str(param_of(part, "delsp", "")).lower() == "yes")
    return text


# --------------------------------------------------------------------------- quoted text

_ATTRIBUTION_END = re.compile(r"\bwrote:\s*$", re.IGNORECASE)
_ORIGINAL = re.compile(r"-{2,}\s*Original Message\s*-{2,}", re.IGNORECASE)
_OUTLOOK_FIELDS = ("sent:", "date:", "to:", "subject:")


def _quoted(line: str) -> bool:
    return line.lstrip(" \t").startswith((">", "\uff1e"))


def _attribution(lines: list[str], index: int) -> int:
    """How many lines an ``On ... wrote:`` attribution at ``index`` takes (0: none)."""
    line = lines[index].strip()
    if not line.startswith("On "):
        return 0
    if _ATTRIBUTION_END.search(line):
        return 1
    if index + 1 < len(lines) and _ATTRIBUTION_END.search(lines[index + 1]):
        return 2          # a client wrapped the attribution after the sender's name
    return 0


def _outlook_block(lines: list[str], index: int) -> bool:
    """``From:`` followed within three lines by ``Sent:``/``Date:``: Outlook's header block."""
    if not lines[index].strip().lower().startswith("from:"):
        return False
    following = [line.strip().lower() for line in lines[index + 1:index + 4]]
    return any(line.startswith(_OUTLOOK_FIELDS) for line in following)


def _ends_new_text(lines: list[str], index: int) -> bool:
    line = lines[index]
    stripped = line.strip()
    return (stripped == REPLY_MARKER or line.rstrip("\r\n") in ("-- ", "--")
            or _ORIGINAL.fullmatch(stripped) is not None or _outlook_block(lines, index))


def new_text(text: str) -> str:
    """What the writer of a reply typed: ``text`` without quoted lines, attributions,
    Outlook's original-message blocks, the signature, or anything after the referee's
    ``-- reply above this line --`` (docs/REFEREE.md).

    An ``On ... wrote:`` line followed by quoted lines is cut with them, and text after
    the quote (a bottom-posted reply) is kept; one followed by unquoted text ends the
    new text there, as a top-posted reply does.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    kept: list[str] = []
    index = 0
    while index < len(lines):
        if _ends_new_text(lines, index):
            break
        if _quoted(lines[index]):
            index += 1
            continue
        size = _attribution(lines, index)
        if size:
            after = index + size
            while after < len(lines) and not lines[after].strip():
                after += 1
            if after < len(lines) and _quoted(lines[after]):
                index = after
                continue
            break
        kept.append(lines[index])
        index += 1
    return "\n".join(kept).strip("\n")
