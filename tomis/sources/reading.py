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
import re
from typing import TYPE_CHECKING

from ..errors import FileError, RecordError, TomisError
from ..mail import quotes
from ..mail.sniff import MBOX_FROM, is_maildir, is_mbox, is_place, starts_like_a_message
from ..util import textio
from ..util.plain import OPEN, Plain

if TYPE_CHECKING:
    from datetime import datetime

    from ..mail.mime import Body, Origin
    from .regions import ExtractedPlaces, MailPlaces

# The MIME, webmail and record-choosing modules are imported where they are needed: a
# record file as saved, by far the most common input, is read without them (start-up,
# docs/PERFORMANCE.md).


class Source(Plain):
    """What :func:`read_source` found: ``text`` goes to the record reader; ``raw`` is the
    text error places count in (what the user has open); ``places``, when the two differ,
    maps a place of ``text`` to ``raw`` (see :meth:`located`). (Plain, not a dataclass:
    every command that reads a record loads this module.)"""

    __slots__ = ("text", "raw", "notes", "origin", "mailbox", "places") + OPEN

    def __init__(self, text: str, raw: str, notes: list[str] | None = None,
                 origin: Origin | None = None, mailbox: bool = False,
                 places: MailPlaces | ExtractedPlaces | None = None):
        self.text = text
        self.raw = raw
        self.notes = [] if notes is None else notes
        self.origin = origin
        self.mailbox = mailbox      # one message of a mailbox, not a file of its own
        self.places = places

    def located(self, error: TomisError) -> TomisError:
        """``error`` (found in ``text``) as placed in ``raw``: a copy when it moves."""
        return error if self.places is None else self.places.located(error)


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
        if stream is None and is_place(path):
            return _from_imap(path, message, name, password)
        if stream is None and os.path.isdir(path) and is_maildir(path):
            from ..mail.mailboxes import open_maildir, pick_message

            msg, label = pick_message(open_maildir(path), message, name)
            return _from_message(msg, None, name, label)
        if stream is None and is_mbox(path):      # before reading: a mailbox may be big
            from ..mail.mailboxes import open_mbox, pick_message

            msg, label = pick_message(open_mbox(path), message, name)
            return _from_message(msg, None, name, label)
        data = textio.read_bytes(path) if stream is None else textio.read_stream_bytes(stream, name)
        if MBOX_FROM.match(data):
            # Read through a stream: stdin, or a file opened to be written back (move).
            raise FileError("this is an mbox mailbox: name its file as FILE, not stdin, and "
                            "choose a message with --message N|ID; a record is never "
                            "written into it")
        msg = _message(data)
        if msg is None:
            if message is not None:
                raise FileError(f"--message {message}: this file is not a mailbox")
            text = textio.decode(data, name)
            del data        # 16 MiB of bytes need not live on beside their text (issue 16)
            return _from_text(text, name)
        return _from_message(msg, data, name, None)
    except TomisError as error:
        if error.path is None:
            error.path = name
        raise
    except OSError as exc:      # a mailbox's own files: permissions, a message gone meanwhile
        error = FileError(f"cannot read this mailbox: {exc.strerror or exc}")
        error.path = name
        raise error from None


def _message(data: bytes):
    """``data`` as a parsed message, or None for a record or pasted text."""
    if not starts_like_a_message(data):
        return None
    from ..mail.mime import parse_message

    return parse_message(data)


def _from_text(text: str, name: str) -> Source:
    """A text that is no message: a record file as saved (read as it is, without the mail
    modules), or pasted mail (quoting, debris and several records looked for)."""
    if text.isascii() and quotes.is_plain_record(text):
        # What the general path gives such a text, without its work: ASCII holds no
        # debris to repair, and a plain record is one region with nothing cut.
        return Source(text, text)
    from ..mail.mime import Body

    return _found(Body(text, "the text", 1), None, name, None)


def _from_imap(place: str, wanted: str | None, name: str, password) -> Source:
    from ..mail import imap
    from ..mail.mime import parse_bounded

    fetched = imap.read_message(place, wanted, password)
    return _from_message(parse_bounded(fetched.data), None, name, f"UID {fetched.uid}")


def _imap_items(place: str, password):
    from ..mail import imap
    from ..mail.mime import aware, parse_bounded

    for fetched in imap.read_folder(place, password):
        label = f"{place} --message {fetched.uid}"
        try:
            found = _from_message(parse_bounded(fetched.data), None, label, None)
        except TomisError as error:
            yield Item(label, None, None, error, place, str(fetched.uid))
            continue
        yield Item(label, found, aware(found.origin.date) if found.origin.date else None,
                   path=place, message=str(fetched.uid))


class Item(Plain):
    """One record-holding thing of a place (a file, or one message of a mailbox)."""

    __slots__ = ("label", "found", "when", "error", "path", "message") + OPEN

    def __init__(self, label: str, found: Source | None, when: datetime | None,
                 error: TomisError | None = None, path: str | None = None,
                 message: str | None = None):
        self.label = label
        self.found = found
        self.when = when            # the message's Date, else the file's last change
        self.error = error
        self.path = path            # the file, or the mailbox, a command reads it from
        self.message = message      # what --message takes for it: a Message-ID, number or UID


def place_items(place: str, password=None):
    """Every file of a folder, every message of an mbox or a Maildir, or the one file, each
    read with :func:`read_source` rules; what cannot be read comes with its ``error``.
    Hidden files and ``.json`` files (what tomis keeps beside records) are passed over.
    A place that cannot be listed at all is a :class:`FileError`; an IMAP place
    (``imaps://...``) is read from the server, ``password(place)`` giving its password."""
    try:
        if is_place(place):
            yield from _imap_items(place, password)
            return
        yield from _place_items(place)
    except OSError as exc:
        error = FileError(f"cannot read this place: {exc.strerror or exc}")
        error.path = place
        raise error from None


def _place_items(place: str):
    from ..mail.mailboxes import open_maildir, open_mbox

    if os.path.isdir(place):
        if is_maildir(place):
            yield from _box_items(open_maildir(place), place)
            return
        for name in sorted(os.listdir(place)):
            path = os.path.join(place, name)
            if os.path.isfile(path) and not name.startswith(".") and not name.endswith(".json"):
                yield _file_item(path)
        return
    if is_mbox(place):
        yield from _box_items(open_mbox(place), place)
    else:
        yield _file_item(place)


def _file_item(path: str) -> Item:
    from ..mail.mime import aware

    try:
        found = read_source(path)
    except TomisError as error:
        return Item(path, None, None, error, path)
    when = found.origin.date if found.origin is not None else None
    if when is None:
        from datetime import datetime, timezone

        when = datetime.fromtimestamp(os.stat(path).st_mtime, timezone.utc)
    return Item(path, found, aware(when), path=path)


def _box_items(box, place: str):
    from ..mail.mailboxes import mailbox_messages, message_of
    from ..mail.mime import aware

    for number, key in enumerate(mailbox_messages(box), 1):
        label = f"{place} message {number}"
        try:
            msg = message_of(box, key)
            found = _from_message(msg, None, label, None)
        except TomisError as error:
            yield Item(label, None, None, error, place)
            continue
        except (OSError, KeyError) as exc:      # removed or unreadable meanwhile
            yield Item(label, None, None, FileError(f"cannot read this message: {exc}"), place)
            continue
        # A Message-ID names the message however the mailbox changes; a number otherwise.
        wanted = _usable_id(found.origin.message_id) if found.origin else None
        yield Item(label, found, aware(found.origin.date) if found.origin.date else None,
                   path=place, message=wanted or str(number))


_USABLE_ID = re.compile(r"<?([!-;=?-~]{1,250})>?")


def _usable_id(message_id: str | None) -> str | None:
    """A Message-ID without its angle brackets, when it is one plain token."""
    match = _USABLE_ID.fullmatch(message_id or "")
    return match[1] if match else None


def _from_message(msg, data: bytes | None, name: str, label: str | None) -> Source:
    from ..mail.mime import body_and_origin

    body, origin = body_and_origin(msg, name, data)
    if label:
        body.notes.insert(0, f"read {label} of the mailbox")
    found = _found(body, data, name, origin)
    found.mailbox = label is not None
    return found


def _found(body: Body, data: bytes | None, name: str, origin: Origin | None) -> Source:
    from ..mail.webmail import repair, repair_note
    from .regions import DifferentGames, ExtractedPlaces, MailPlaces, choose_region, find_regions

    # A record file edited by hand is read literally but for invisible characters (its
    # typos get the reader's own hints); text that came through mail gets every repair.
    repaired = repair(body.text, visible=origin is not None)
    # A message's text holds one game, in as many records as replies quote it.
    one_game = origin is not None and not body.attachment
    regions = find_regions(repaired.text, one_game)
    if origin is None and (len(regions) > 1 or regions[0].extracted.notes):
        repaired = repair(body.text)
        regions = find_regions(repaired.text)
    shift = (body.first_line or 1) - 1

    def locate_body(line, column):
        if column is not None:
            column = repaired.original_column(line, column)
        return line + shift, column

    for region in regions:
        region.shown_shift = shift
    raw = body.text
    if body.first_line is not None and data is not None and origin is not None:
        raw = data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
    try:
        try:
            region, choice_notes = choose_region(regions, locate_body)
        except DifferentGames:
            # Different games one after the other, nothing between them: games sent in
            # the text, read together as from a file (the reader checks each).
            whole = find_regions(repaired.text) if one_game else []
            if len(whole) != 1:
                raise
            regions, region, choice_notes = whole, whole[0], []
            region.shown_shift = shift
    except RecordError as error:
        error.source_text = raw
        raise
    repairs = repaired.on_lines(region.first, region.last)
    # A record file read as before keeps the reader's own messages; mail gets MailPlaces,
    # which also names debris the reader stumbles on.
    plain = origin is None and not repaired.repairs and len(regions) == 1
    text = region.extracted.text
    if not plain:
        places = MailPlaces(text, region, repaired, shift + 1)
    else:
        places = ExtractedPlaces(region.extracted) if region.extracted.changed else None
    notes = list(body.notes) + choice_notes
    if len(regions) == 1 or not choice_notes:
        notes += list(region.extracted.notes)
    else:
        notes += [note for note in region.extracted.notes if note.startswith("removed mail")]
    note = repair_note(repairs)
    if note:
        notes.append(note)
    return Source(text, raw, notes, origin, places=places)
