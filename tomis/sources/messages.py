"""Records in mail: the part of a message a record is read from, or mail text pasted as it
came, turned into a :class:`~.source.Source` (quoting, webmail debris, several records).

:mod:`.reading` loads this module only when its input turns out to be mail, or text that
is no plain record: a record file as saved, by far the most common input, is read without
:mod:`tomis.mail.mime`, :mod:`tomis.mail.webmail` and :mod:`.regions` (start-up,
docs/PERFORMANCE.md). Mailboxes and IMAP folders are :mod:`.boxes`' part.
"""

from __future__ import annotations

from datetime import datetime

from ..errors import RecordError
from ..mail.mime import Body, Origin, aware, body_and_origin, parse_message
from ..mail.webmail import repair, repair_note
from .regions import DifferentGames, ExtractedPlaces, MailPlaces, choose_region, find_regions
from .source import Source


def message_source(data: bytes, name: str) -> Source | None:
    """The record in ``data``, a file that starts like a message, read as one; None when
    its headers are no mail headers after all (a record that opens ``Subject: ...``)."""
    msg = parse_message(data)
    return None if msg is None else from_message(msg, data, name, None)


def from_text(text: str, name: str) -> Source:
    """Text that is no message but is no plain record either: pasted mail, or a record
    with letters outside ASCII (the debris repairs and the record choice look at it)."""
    return found_in(Body(text, "the text", 1), None, name, None)


def message_time(origin: Origin | None) -> datetime | None:
    """The message's Date, a date without a zone taken as UTC, so all times compare."""
    return aware(origin.date) if origin is not None and origin.date else None


def from_message(msg, data: bytes | None, name: str, label: str | None) -> Source:
    """The record in parsed message ``msg`` (``data``: its bytes as saved, when a file held
    it alone); ``label`` names the message of a mailbox it is (None for a file)."""
    body, origin = body_and_origin(msg, name, data)
    if label:
        body.notes.insert(0, f"read {label} of the mailbox")
    found = found_in(body, data, name, origin)
    found.mailbox = label is not None
    return found


def found_in(body: Body, data: bytes | None, name: str, origin: Origin | None) -> Source:
    """The record to read in ``body`` (a message's part, or text): debris repaired, quoting
    undone, one record chosen among several (a divergence is a :class:`RecordError`)."""
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
