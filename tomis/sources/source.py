"""What the front door gives: a :class:`Source` per record read, an :class:`Item` per
record-holding thing of a place. Data only, so that :mod:`.reading` and the mail half
(:mod:`.messages`, :mod:`.boxes`) share them without importing each other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import TomisError
from ..util.plain import OPEN, Plain

if TYPE_CHECKING:
    from datetime import datetime

    from ..mail.mime import Origin
    from .regions import ExtractedPlaces, MailPlaces


class Source(Plain):
    """What :func:`~tomis.sources.read_source` found: ``text`` goes to the record reader; ``raw`` is the
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
