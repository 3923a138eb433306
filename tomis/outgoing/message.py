"""One message tomis writes, whoever writes it: checked header values, a text body and
its HTML alternative (the board inline, :mod:`.htmlpart`), attachments (the record as a
``.tgn`` file), the transfer encoding chosen, under ``email.policy.SMTP``.

A message with a board is ``multipart/mixed``: first ``multipart/alternative`` (text/plain
first, as RFC 2046 orders the plainest first, then text/html, inside
``multipart/related`` with the board's ``image/png`` when it is drawn), then each
attachment.

:func:`build_message` is the one place a message is put together, for ``tomis move
--mail`` and ``tomis send`` (:func:`tomis.outgoing.reply.compose`) and for the referee
(:mod:`tomis.referee.composing`); each caller says only what its message holds. Every
header value goes through :func:`tomis.outgoing.headers.put_header`, and the bytes through
:func:`tomis.outgoing.headers.message_bytes`, once, before they leave.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from typing import Iterable, Sequence

from ..pictures import images, svg
from . import htmlpart
from .headers import POLICY, bounded_thread, checked_id, put_header

# Past this many characters a line is sent quoted-printable: SMTP allows 998 a line
# (RFC 5321), and a relay may wrap or refuse longer ones.
MAX_7BIT_LINE = 900
PNG_NAME = "board.png"


@dataclass(frozen=True)
class Attachment:
    """A file a message carries: ``content`` text (``text/plain``, the record) or bytes
    (``mime_type`` says which, ``image/png`` for the board)."""

    filename: str
    content: str | bytes
    mime_type: str = "text/plain"


@dataclass(frozen=True)
class BoardView:
    """The board of a message's body: ``grid``, its lines as they stand in the text, and
    the ``png`` drawing (None without the images extra, or when the sender leaves it out)."""

    grid: str | None
    png: bytes | None = None


def build_message(headers: Iterable[tuple[str, object]], body: str,
                  attachments: Iterable[Attachment] = (),
                  board: BoardView | None = None) -> EmailMessage:
    """A message with ``headers`` in order (each value checked: a :class:`MailError`
    names one that would not read back as one clean line), the text ``body`` and the
    ``attachments``, text ones 7-bit safe (:func:`transfer_encoding`). With a ``board``
    the body has an HTML alternative that shows it (:func:`add_html`)."""
    message = EmailMessage(policy=POLICY)
    for name, value in headers:
        put_header(message, name, value)
    message.set_content(body, cte=transfer_encoding(body))
    if board is not None:
        add_html(message, body, board)
    for attachment in attachments:
        _attach(message, attachment)
    return message


def add_html(message: EmailMessage, body: str, board: BoardView) -> None:
    """Make ``message`` (its text ``body`` set) ``multipart/alternative`` with the HTML
    page of :func:`htmlpart.page`; a drawn board goes beside it, ``multipart/related``,
    named by a Content-ID made from the message's own id (unique as that is)."""
    image = None
    if board.png is not None:
        image = htmlpart.InlineImage(board_content_id(message["Message-ID"]), board.png)
    page = htmlpart.page(body, board.grid, image)
    message.add_alternative(page, subtype="html", cte=transfer_encoding(page))
    if image is not None:
        html_part = message.get_payload()[1]
        html_part.add_related(image.png, maintype="image", subtype="png",
                              cid=f"<{image.content_id}>", disposition="inline",
                              filename=PNG_NAME)


def board_content_id(message_id: str | None) -> str:
    """``board.LEFT@RIGHT`` for the message ``<LEFT@RIGHT>`` (a message without an id:
    ``board@tomis.invalid``, RFC 2606's name for one that is no host)."""
    if not message_id:
        return "board@tomis.invalid"
    return "board." + checked_id(str(message_id), "its own id")[1:-1]


def _attach(message: EmailMessage, attachment: Attachment) -> None:
    maintype, subtype = attachment.mime_type.split("/", 1)
    if isinstance(attachment.content, str):
        message.add_attachment(attachment.content, subtype=subtype, filename=attachment.filename,
                               cte=transfer_encoding(attachment.content))
    else:
        message.add_attachment(attachment.content, maintype=maintype, subtype=subtype,
                               filename=attachment.filename)


def transfer_encoding(text: str) -> str:
    """7bit for ASCII in short lines; quoted-printable for accented names or a long line,
    so the message stays 7-bit and within SMTP's line length (the email package would
    choose raw 8bit, which a server may refuse)."""
    short = max(map(len, text.split("\n"))) < MAX_7BIT_LINE
    return "7bit" if text.isascii() and short else "quoted-printable"


def thread_headers(thread: Sequence[str]) -> list[tuple[str, str]]:
    """``In-Reply-To`` and ``References`` of a reply to the last of ``thread`` (message
    ids, oldest first; none: no headers). Each id must be one (a :class:`MailError`
    otherwise); References keeps the thread's first and latest (:func:`bounded_thread`)."""
    if not thread:
        return []
    replied = checked_id(thread[-1], "In-Reply-To")
    earlier = [checked_id(ref, "References") for ref in thread[:-1]]
    return [("In-Reply-To", replied), ("References", " ".join(bounded_thread(earlier + [replied])))]


def new_message_id(domain: str | None) -> str:
    """A new Message-ID at ``domain`` (the sender's), checked as every id is."""
    return checked_id(make_msgid(domain=domain), "its own id")


def date_of(seconds: int) -> str:
    """The Date header for ``seconds`` since the epoch (a clock that is not the host's)."""
    return format_datetime(datetime.fromtimestamp(seconds, tz=timezone.utc))


def board_png(state, report=None) -> bytes | None:
    """The board as PNG, or None when the images extra is not installed."""
    try:
        return images.svg_to_png(svg.board(state, last=report))
    except images.MissingExtra:
        return None
