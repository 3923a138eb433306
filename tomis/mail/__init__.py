"""Mail, read: what a mail program saved or a server holds, taken apart for the record in it.

:mod:`.mime` bounds a message before the standard :mod:`email` package parses it, picks
the part a record is read from and the headers a reply needs; :mod:`.sniff` tells IMAP
places, mbox files, Maildir folders and messages apart from a name or a few bytes;
:mod:`.mailboxes` opens a mailbox and picks one message; :mod:`.imap`
reads a folder on a server, read-only; :mod:`.settings` finds the one mail settings file;
:mod:`.quotes` digs a record out of mail text (quoting, wrapping, the letter around it);
:mod:`.webmail` repairs or explains the debris editors leave in it. Nothing here prints,
and nothing here knows the rules: which of several records to read is decided one layer
up, in :mod:`tomis.sources`.

``tomis.mail`` was one module; the names it had that still live in this package answer
here, loaded on first use.
"""

from __future__ import annotations

from ..util.oldnames import answered_by

__getattr__, __dir__ = answered_by(__name__, ".mime", ".sniff", ".mailboxes", ".webmail", ".quotes")
