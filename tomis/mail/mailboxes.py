"""Mailboxes: mbox files, Maildir folders and IMAP places told apart, and one message of
one picked by its number, Message-ID or key. :mod:`mailbox` is imported on use.
"""

from __future__ import annotations

import os
import re

from ..errors import FileError
from .mime import parse_bounded


MBOX_FROM = re.compile(rb"From \S+ ")


# An IMAP place's schemes and their ports (imaps: TLS from the first byte; imap: STARTTLS).
IMAP_SCHEMES = {"imaps": 993, "imap": 143}


def is_place(path: str) -> bool:
    """Does ``path`` name an IMAP folder (``imaps://...``) rather than a file? Asked of
    every path a command reads, so it imports nothing (:mod:`.imap` loads ssl)."""
    scheme = path.split("://", 1)[0].lower() if "://" in path else ""
    return scheme in IMAP_SCHEMES


def open_maildir(path: str):
    import mailbox

    return mailbox.Maildir(path, factory=None, create=False)


def open_mbox(path: str):
    import mailbox

    return mailbox.mbox(path, factory=None, create=False)


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


def mailbox_messages(box) -> list[tuple[str, object]]:
    """The keys of ``box`` in order: an mbox's own, a Maildir's by delivery (its keys
    start with the delivery time)."""
    import mailbox

    keys = list(box.keys())
    if isinstance(box, mailbox.Maildir):
        keys.sort()
    return keys


def message_of(box, key):
    """One message of a mailbox, refused when larger than a file may be."""
    return parse_bounded(box.get_bytes(key))


def pick_message(box, wanted: str | None, name: str):
    """The message ``wanted`` names (number, Message-ID or Maildir key) and a label for it."""
    keys = mailbox_messages(box)
    count = len(keys)
    if count == 0:
        raise FileError("this mailbox holds no message")
    if wanted is None:
        if count > 1:
            raise FileError(f"this mailbox holds {count} messages; choose one with "
                            f"--message N (1-{count}) or --message MESSAGE-ID")
        return message_of(box, keys[0]), "message 1"
    if wanted.isdigit():
        number = int(wanted)
        if not 1 <= number <= count:
            raise FileError(f"--message {wanted}: this mailbox holds {count} message(s)")
        return message_of(box, keys[number - 1]), f"message {number}"
    bare = wanted.strip("<>")
    for number, key in enumerate(keys, 1):
        msg = message_of(box, key)
        if key == wanted or str(msg.get("Message-ID", "")).strip().strip("<>") == bare:
            return msg, f"message {number}"
    raise FileError(f"--message {wanted}: no message with this Message-ID in the mailbox")
