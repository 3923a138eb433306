"""Header values of outgoing mail, each from checked data (docs/SECURITY.md, finding 1).

A message id is used only when it is one RFC 5322 ``msg-id`` (:func:`msg_id`); an address
only when the email package's two parsers agree it is exactly one plain address
(:func:`one_address`, :func:`addresses`); no control character anywhere; and the bytes
written are read back to prove they hold the headers composed and no other
(:func:`message_bytes`). :func:`thread_of` gives the ids a reply may carry.
"""

from __future__ import annotations

import email.policy
import re
from dataclasses import dataclass
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import formataddr, getaddresses, parseaddr

from ..errors import MailError


MAILER = "tomis"                # X-Mailer of the messages tomis writes (and alone resends)


class FoldingPolicy(email.policy.EmailPolicy):
    """``email.policy.SMTP`` whose Subject always begins on the header's own line.

    The email package moves a whole value to a line of its own when it does not fit after
    the name but would fit alone, so a subject of 70 to 77 characters was written
    ``Subject:`` CRLF `` [tomis #1] ...``: some readers show that as an empty subject, and
    it splits a game's conversation. Unfolded and folded again at the spaces it had (an
    encoded word holds none, and unfolding takes away only the CRLF), the value reads back
    the same and its first line carries text.
    """

    def fold(self, name, value):
        return _first_line_full(name, super().fold(name, value), self)

    def fold_binary(self, name, value):
        folded = super().fold_binary(name, value)
        try:
            text = folded.decode("ascii")
        except UnicodeDecodeError:         # 8-bit headers (utf8=True): left as they are
            return folded
        return _first_line_full(name, text, self).encode("ascii")


def _first_line_full(name: str, folded: str, policy) -> str:
    if name.lower() != "subject":
        return folded
    linesep, limit = policy.linesep, policy.max_line_length or 998
    words = _FOLD.sub("", folded[:-len(linesep)] if folded.endswith(linesep) else folded).split(" ")
    # words[0] is "Subject:"; an empty word is a space of the value itself, kept.
    lines = [f"{words[0]} {words[1]}" if len(words) > 1 else words[0]]
    for word in words[2:]:
        if len(lines[-1]) + 1 + len(word) <= limit or not word:
            lines[-1] += " " + word
        else:
            lines.append(" " + word)
    return linesep.join(lines) + linesep


_FOLD = re.compile(r"\r?\n(?=[ \t])")

# SMTP's line ends; the email package refuses a header value holding a line break itself.
POLICY = FoldingPolicy(linesep="\r\n")
MAX_MSG_ID = 250                # characters of one message id, brackets included
MAX_REFERENCES = 20             # ids in a reply's References: the first and the latest
MAX_ADDRESS = 254               # characters of one addr-spec (RFC 5321's path, less <>)


def put_header(message: EmailMessage, name: str, value: str) -> None:
    """Set one header and prove the email package read it as given: it decodes encoded
    words while parsing a value, so what it holds, not what was passed, must be one
    clean line."""
    message[name] = value
    held = str(message[name])
    if not held.isprintable() or message[name].defects:
        raise MailError(f"the {name} header would read {clipped(held)!r}; "
                        "no message was composed")


def checked_id(text: str, what: str) -> str:
    if msg_id(text) is None:
        raise MailError(f"{what} {clipped(text)!r} is not a message id (RFC 5322)")
    return text


def bounded_thread(thread: list[str]) -> list[str]:
    """At most MAX_REFERENCES ids: the thread's first and its latest, as RFC 5322
    suggests trimming (the first names the thread, the latest its branch)."""
    if len(thread) <= MAX_REFERENCES:
        return thread
    return thread[:1] + thread[len(thread) - MAX_REFERENCES + 1:]


# A plain addr-spec: a dot-atom local part (no quoted string, no encoded word, ASCII: a
# non-ASCII address needs SMTPUTF8, which tomis does not speak) at a host name.
_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
_DOT_ATOM_TEXT = rf"{_ATEXT}+(?:\.{_ATEXT}+)*"
_HOST = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*"
_ADDR_SPEC = re.compile(rf"{_DOT_ATOM_TEXT}@{_HOST}")
# RFC 5322's msg-id without CFWS: "<" dot-atom-text "@" (dot-atom-text / no-fold-literal) ">".
_MSG_ID = re.compile(rf"<{_DOT_ATOM_TEXT}@(?:{_DOT_ATOM_TEXT}|\[[!-Z^-~]*\])>")


def msg_id(text) -> str | None:
    """``text`` when it is exactly one RFC 5322 msg-id of at most MAX_MSG_ID characters,
    else None. One holding ``=?`` is refused too: it matches the grammar (``=`` and
    ``?`` are atext), but the email package decodes the encoded word inside it."""
    if not isinstance(text, str) or len(text) > MAX_MSG_ID or "=?" in text:
        return None
    return text if _MSG_ID.fullmatch(text) else None


def _plain_addr_spec(addr: str) -> bool:
    return len(addr) <= MAX_ADDRESS and "=?" not in addr and bool(_ADDR_SPEC.fullmatch(addr))


def _parsed(text: str) -> list[tuple[str, str]] | None:
    """(display name, addr-spec) of each address in ``text``; None unless the email
    package's header parser and its older ``getaddresses`` find the same addresses,
    each a plain addr-spec."""
    try:
        header = POLICY.header_factory("To", text)
        legacy = getaddresses([text])
    except Exception:            # whatever the email package raises on hostile text
        return None
    pairs = [(address.display_name, address.addr_spec) for address in header.addresses]
    if not pairs or [addr for _name, addr in legacy] != [addr for _name, addr in pairs]:
        return None
    return pairs if all(_plain_addr_spec(addr) for _name, addr in pairs) else None


def addresses(text: str, what: str, single: bool = False) -> str:
    """``text`` as a header value of mail addresses, each checked; a MailError names the
    one that is not an address (a control character never reaches a header)."""
    return ", ".join(formataddr(pair) for pair in address_pairs(text, what, single))


def address_pairs(text: str, what: str, single: bool = False) -> list[tuple[str, str]]:
    """(display name, addr-spec) of each address of ``text``, or a MailError: a control
    character anywhere, before or after the email package decodes a name, refuses it."""
    pairs = _parsed(text) if isinstance(text, str) and text.isprintable() else None
    if pairs is None or (single and len(pairs) > 1) or not all(
            name.isprintable() for name, _addr in pairs):
        raise MailError(f"{what} {clipped(text)!r} is not "
                        f"{'a mail address' if single else 'a list of mail addresses'} "
                        "like Ana <ana@example.org>")
    return pairs


def one_address(text: str, what: str) -> str:
    """The addr-spec of ``text`` (a header of a received message) when it holds exactly
    one plain address; its display name is not kept. A MailError otherwise."""
    pairs = _parsed(text) if isinstance(text, str) else None
    if pairs is None or len(pairs) != 1:
        raise MailError(f"{what} {clipped(text)!r} is not one mail address; "
                        "give --to ADDRESS")
    return pairs[0][1]


def clipped(text, limit: int = 120) -> str:
    """Hostile text to quote (with ``!r``, which shows control characters escaped): not
    a screenful of it."""
    text = str(text)
    return text if len(text) <= limit else text[:limit] + "..."


def domain_of(address: str) -> str | None:
    addr = parseaddr(address)[1]
    try:
        return Address(addr_spec=addr).domain or None
    except (ValueError, IndexError, TypeError):
        return None


def message_bytes(message: EmailMessage) -> bytes:
    """The message as a mail program saves it (``.eml``), CRLF line ends as on the wire.

    Read back before it leaves: every part must hold exactly the headers it was given.
    An email package without the check on written headers that Python added in 2024
    (gh-121650; not in 3.11.7, say) writes a header value holding a line break as it is,
    which would add a header of the sender's choosing; this refuses that.
    """
    data = message.as_bytes(policy=POLICY)
    if _header_names(message) != _header_names(email.message_from_bytes(data, policy=POLICY)):
        raise MailError("the message would not hold the headers it was given "
                        "(a line break in a value?); it was neither written nor sent")
    return data


def _header_names(message: EmailMessage) -> list[list[str]]:
    """The header names of each part, in order."""
    return [[name.lower() for name in part.keys()] for part in message.walk()]


def thread_of(message_id: str | None, references) -> Thread:
    """The ids a reply to a message may carry: its Message-ID when that is one msg-id
    (else no thread at all), and those of its References that are."""
    if not message_id:
        return Thread(None, ())
    if msg_id(message_id) is None:
        return Thread(None, (), dropped_id=clipped(message_id))
    kept = [ref for ref in references if msg_id(ref) is not None]
    return Thread(message_id, tuple(bounded_thread(kept)), dropped_references=len(references) - len(kept))


@dataclass(frozen=True)
class Thread:
    """What a reply threads on, and what was left out of it (for a note)."""

    in_reply_to: str | None
    references: tuple[str, ...]
    dropped_id: str | None = None          # the message's own id, shown, when not one
    dropped_references: int = 0
