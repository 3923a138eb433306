"""The front door for records in outside text: files, stdin, saved messages, mailboxes, IMAP
(the referee reads its players' replies, which are commands, through :mod:`tomis.mail`).

Every command and :func:`tomis.read_games` read a record through :func:`read_source`,
which gives a :class:`Source` (the text for the reader, the text as saved, how to place
an error in it, notes, the message it came from); :func:`place_items` reads every file of
a folder or message of a mailbox. :mod:`.reading` does that, with :mod:`.source` (the two
classes it gives), :mod:`.messages` (a message, or pasted mail text), :mod:`.boxes` (mbox,
Maildir and IMAP) and :mod:`.regions` (the choice among several records in one text); the
last three load only when the input needs them. All sit above :mod:`tomis.mail` (messages taken apart) and
:mod:`tomis.notation` (the reader that tells a record that reads from one that does not).
"""

from __future__ import annotations

from .reading import Item, Source, place_items, read_source

__all__ = ["Item", "Source", "place_items", "read_source"]
