"""The front door for outside text: what a player saved or a server holds, read into a
:class:`Source` for the record reader.

:func:`read_source` takes a path (``-`` or an open stream for stdin or a file already
opened), a file of a folder, one message of an mbox, a Maildir or an IMAP folder, and
gives a :class:`Source`: the record text, the text error places count in, how to map a
place of the one to the other, notes on what was taken and repaired, and the message it
came from (for a reply). :func:`place_items` reads every record-holding thing of a place.

What it reads:

- plain text (a ``.tgn`` file or a pasted email): decoded strictly as UTF-8;
- a saved message (``.eml``, or a pasted message with its headers), one message of an
  ``mbox`` file, a Maildir folder or an IMAP folder (``message``: 1-based number,
  Message-ID, Maildir key or IMAP UID): the part :mod:`tomis.mail.mime` picks;
- every quoting style (:mod:`tomis.mail.quotes`), several records in one text
  (:mod:`.regions`), webmail debris (:mod:`tomis.mail.webmail`).

Line numbers: errors count lines of the saved file when the record's part is stored
as-is (plain text, 7bit or 8bit); for a quoted-printable, base64, flowed or HTML part
they count lines of the decoded text, and a note says so. It prints nothing.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from ..errors import FileError, TomisError
from ..mail import quotes
from ..mail.sniff import MBOX_FROM, is_maildir, is_mbox, is_place, starts_like_a_message
from ..util import textio
from .source import Item, Source

if TYPE_CHECKING:
    from ..mail.mime import Body, Origin

__all__ = ["Item", "Source", "place_items", "read_source"]


# The mail half of this package is imported where it is needed: .messages (with
# tomis.mail.mime, tomis.mail.webmail and .regions, about 20 ms) when the input is mail
# or text that is no plain record, .boxes (with mailbox, 25 ms more) for a mailbox. A
# record file as saved, by far the most common input, is read without either (start-up,
# docs/PERFORMANCE.md).


def _is_mailbox(path: str) -> bool:
    """An IMAP place, a Maildir folder or an mbox file: read by .boxes."""
    return is_place(path) or (is_maildir(path) if os.path.isdir(path) else is_mbox(path))


def read_source(path: str, message: str | None = None, stream=None,
                name: str | None = None, password=None) -> Source:
    """Read ``path`` and find the record in it; see the module docstring.

    ``stream`` (binary, or text with ``.buffer``) is read instead of opening ``path``: stdin
    for ``-``, or a file the caller opened already (and locked); mailboxes are looked for
    only when ``path`` is opened here. ``name`` is how messages name the input (default
    ``path``, ``<stdin>`` for ``-``).

    Raises :class:`FileError` for what cannot be read (exit 2 in the CLI: a missing file,
    no such ``message``, an unknown charset, bytes that are not text) and
    :class:`RecordError` for two records that diverge. Errors carry ``.path``;
    ``.source_text`` is the text their place counts in.

    A ``path`` like ``imaps://USER@HOST/FOLDER`` is read from the server (:mod:`tomis.imap`;
    ``message`` is then a UID or Message-ID); ``password(place)`` gives its password.
    """
    if name is None:
        name = "<stdin>" if path == "-" else path
    try:
        if stream is None and _is_mailbox(path):      # before reading: a mailbox may be big
            from .boxes import box_message      # mailbox and the IMAP client: see above

            return box_message(path, message, name, password)
        data = textio.read_bytes(path) if stream is None else textio.read_stream_bytes(stream, name)
        if MBOX_FROM.match(data):
            # Read through a stream: stdin, or a file opened to be written back (move).
            raise FileError("this is an mbox mailbox: name its file as FILE, not stdin, and "
                            "choose a message with --message N|ID; a record is never "
                            "written into it")
        if starts_like_a_message(data):
            from .messages import message_source    # email and the mail modules: see above

            found = message_source(data, name)
            if found is not None:
                return found
        if message is not None:
            raise FileError(f"--message {message}: this file is not a mailbox")
        text = textio.decode(data, name)
        del data        # 16 MiB of bytes need not live on beside their text (issue 16)
        return _from_text(text, name)
    except TomisError as error:
        if error.path is None:
            error.path = name
        raise
    except OSError as exc:      # a mailbox's own files: permissions, a message gone meanwhile
        error = FileError(f"cannot read this mailbox: {exc.strerror or exc}")
        error.path = name
        raise error from None


def _from_text(text: str, name: str) -> Source:
    """A text that is no message: a record file as saved (read as it is, without the mail
    modules), or pasted mail (quoting, debris and several records looked for)."""
    if text.isascii() and quotes.is_plain_record(text):
        # What the general path gives such a text, without its work: ASCII holds no
        # debris to repair, and a plain record is one region with nothing cut.
        return Source(text, text)
    from .messages import from_text         # the mail modules: see above

    return from_text(text, name)


def _found(body: Body, data: bytes | None, name: str, origin: Origin | None) -> Source:
    """The general path, which every text not read by the shortcut above takes
    (:func:`tomis.sources.messages.found_in`)."""
    from .messages import found_in          # the mail modules: see above

    return found_in(body, data, name, origin)


def place_items(place: str, password=None):
    """Every file of a folder, every message of an mbox or a Maildir, or the one file, each
    read with :func:`read_source` rules; what cannot be read comes with its ``error``.
    Hidden files and ``.json`` files (what tomis keeps beside records) are passed over.
    A place that cannot be listed at all is a :class:`FileError`; an IMAP place
    (``imaps://...``) is read from the server, ``password(place)`` giving its password."""
    try:
        if _is_mailbox(place):
            from .boxes import box_items        # mailbox and the IMAP client: see above

            yield from box_items(place, password)
            return
        yield from _place_items(place)
    except OSError as exc:
        error = FileError(f"cannot read this place: {exc.strerror or exc}")
        error.path = place
        raise error from None


def _place_items(place: str):
    if os.path.isdir(place):
        for name in sorted(os.listdir(place)):
            path = os.path.join(place, name)
            if os.path.isfile(path) and not name.startswith(".") and not name.endswith(".json"):
                yield _file_item(path)
        return
    yield _file_item(place)


def _file_item(path: str) -> Item:
    try:
        found = read_source(path)
    except TomisError as error:
        return Item(path, None, None, error, path)
    when = None
    if found.origin is not None:
        from .messages import message_time      # loaded already: a saved message was read

        when = message_time(found.origin)
    if when is None:
        when = datetime.fromtimestamp(os.stat(path).st_mtime, timezone.utc)
    return Item(path, found, when, path=path)
