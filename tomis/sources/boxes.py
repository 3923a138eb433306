"""Records in mailboxes: one message, or every message, of an mbox file, a Maildir folder
or an IMAP folder, each read as :mod:`.messages` reads a message.

:mod:`.reading` loads this module only for a mailbox, so that reading a file pays nothing
for :mod:`mailbox`; the IMAP client (:mod:`tomis.mail.imap`, with :mod:`ssl` and
:mod:`imaplib`) loads only for an ``imaps://`` place.
"""

from __future__ import annotations

import os
import re

from ..errors import FileError, TomisError
from ..mail.mailboxes import mailbox_messages, message_of, open_maildir, open_mbox, pick_message
from ..mail.mime import parse_bounded
from ..mail.sniff import is_place
from .messages import from_message, message_time
from .source import Item, Source


def _imap():
    """:mod:`tomis.mail.imap`, loaded on first use: ssl and imaplib cost 30-40 ms that a
    Maildir or mbox never needs."""
    from ..mail import imap

    return imap


def box_message(path: str, wanted: str | None, name: str, password) -> Source:
    """The record in message ``wanted`` of the IMAP folder, Maildir folder or mbox file
    ``path`` (``password(place)`` gives an IMAP place's password)."""
    if is_place(path):
        return imap_message(path, wanted, name, password)
    if os.path.isdir(path):
        return maildir_message(path, wanted, name)
    return mbox_message(path, wanted, name)


def box_items(place: str, password):
    """An :class:`Item` per message of the IMAP folder, Maildir folder or mbox file ``place``."""
    if is_place(place):
        return imap_items(place, password)
    return _box_items(open_maildir(place) if os.path.isdir(place) else open_mbox(place), place)


def maildir_message(path: str, wanted: str | None, name: str) -> Source:
    """The record in message ``wanted`` (number, Message-ID or key) of the Maildir ``path``."""
    msg, label = pick_message(open_maildir(path), wanted, name)
    return from_message(msg, None, name, label)


def mbox_message(path: str, wanted: str | None, name: str) -> Source:
    """The record in message ``wanted`` (number or Message-ID) of the mbox file ``path``."""
    msg, label = pick_message(open_mbox(path), wanted, name)
    return from_message(msg, None, name, label)


def imap_message(place: str, wanted: str | None, name: str, password) -> Source:
    """The record in message ``wanted`` (UID or Message-ID) of the IMAP folder ``place``."""
    fetched = _imap().read_message(place, wanted, password)
    return from_message(parse_bounded(fetched.data), None, name, f"UID {fetched.uid}")


def imap_items(place: str, password):
    """An :class:`Item` per message of the IMAP folder ``place``."""
    for fetched in _imap().read_folder(place, password):
        label = f"{place} --message {fetched.uid}"
        try:
            found = from_message(parse_bounded(fetched.data), None, label, None)
        except TomisError as error:
            yield Item(label, None, None, error, place, str(fetched.uid))
            continue
        yield Item(label, found, message_time(found.origin), path=place, message=str(fetched.uid))


def _box_items(box, place: str):
    for number, key in enumerate(mailbox_messages(box), 1):
        label = f"{place} message {number}"
        try:
            msg = message_of(box, key)
            found = from_message(msg, None, label, None)
        except TomisError as error:
            yield Item(label, None, None, error, place)
            continue
        except (OSError, KeyError) as exc:      # removed or unreadable meanwhile
            yield Item(label, None, None, FileError(f"cannot read this message: {exc}"), place)
            continue
        # A Message-ID names the message however the mailbox changes; a number otherwise.
        wanted = _usable_id(found.origin.message_id) if found.origin else None
        yield Item(label, found, message_time(found.origin), path=place, message=wanted or str(number))


_USABLE_ID = re.compile(r"<?([!-;=?-~]{1,250})>?")


def _usable_id(message_id: str | None) -> str | None:
    """A Message-ID without its angle brackets, when it is one plain token."""
    match = _USABLE_ID.fullmatch(message_id or "")
    return match[1] if match else None
