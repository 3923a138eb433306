"""What a path or some bytes are: an IMAP place, an mbox, a Maildir, a message, or none of
these (a record, pasted text). Told from the name or the first bytes, importing nothing
heavy: every command asks it of every file it reads (start-up, docs/PERFORMANCE.md).
"""

from __future__ import annotations

import os
import re

# Headers that show a text is a message and not a pasted record ("Note: ..." is not one).
MAIL_HEADERS = frozenset({
    "from", "to", "cc", "subject", "date", "message-id", "mime-version", "content-type",
    "received", "return-path", "in-reply-to", "references", "reply-to", "delivered-to",
    "user-agent", "x-mailer", "content-transfer-encoding", "sender",
})
# A first line that could start a message's header: a known name and a colon. Anything
# else (a tag, a move, a greeting) is plain text and never reaches the email parser.
_HEADER_NAME = re.compile(rb"([A-Za-z][A-Za-z0-9-]*)[ \t]*:")
MBOX_FROM = re.compile(rb"From \S+ ")


# An IMAP place's schemes and their ports (imaps: TLS from the first byte; imap: STARTTLS).
IMAP_SCHEMES = {"imaps": 993, "imap": 143}


def is_place(path: str) -> bool:
    """Does ``path`` name an IMAP folder (``imaps://...``) rather than a file? Asked of
    every path a command reads, so it imports nothing (:mod:`.imap` loads ssl)."""
    scheme = path.split("://", 1)[0].lower() if "://" in path else ""
    return scheme in IMAP_SCHEMES


def starts_like_a_message(data: bytes) -> bool:
    """Does ``data`` start with a mail header a message has (``From:``, ``Subject:``, ...)?
    A tag, a move or a greeting does not; the email package is asked only then."""
    first = _HEADER_NAME.match(data.lstrip(b"\r\n")[:200])
    return first is not None and first[1].decode("ascii").lower() in MAIL_HEADERS


def is_mbox(path: str) -> bool:
    """Does the file start as an mbox does ("From " and an address)? Reads 64 bytes; a file
    that cannot be opened is not one (reading it later says why)."""
    try:
        with open(path, "rb") as stream:
            return MBOX_FROM.match(stream.read(64)) is not None
    except (OSError, ValueError):
        return False


def is_maildir(path: str) -> bool:
    """A folder with ``cur`` and ``new`` inside, as every Maildir has."""
    return all(os.path.isdir(os.path.join(path, sub)) for sub in ("cur", "new"))
