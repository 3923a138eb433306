"""Mailboxes: an mbox file or a Maildir folder opened, and one message of one picked by its
number, Message-ID or key (:mod:`.sniff` tells them apart). This module is loaded only
when the input is a mailbox (:mod:`tomis.sources`), so :mod:`mailbox` loads with it.
"""

from __future__ import annotations

import mailbox

from ..errors import FileError
from .mime import parse_bounded


def open_maildir(path: str):
    return mailbox.Maildir(path, factory=None, create=False)


def open_mbox(path: str):
    return mailbox.mbox(path, factory=None, create=False)


def mailbox_messages(box) -> list[tuple[str, object]]:
    """The keys of ``box`` in order: an mbox's own, a Maildir's by delivery (its keys
    start with the delivery time)."""
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
