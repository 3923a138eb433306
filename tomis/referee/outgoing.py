"""The messages the referee writes: headers from validated parts only, the body a player
reads, the record attached, and the board as PNG when the images extra is installed.

Every message has ``From`` and ``Reply-To`` ``NAME <LOCAL+TOKEN@DOMAIN>`` (the token of
the player it goes to), ``Auto-Submitted: auto-replied`` (RFC 3834), ``[tomis #N]`` in
the subject, ``In-Reply-To``/``References`` from ids that passed
:func:`tomis.outgoing.headers.msg_id`, and is written with ``email.policy.SMTP`` and read back
by :func:`tomis.outgoing.headers.message_bytes` (every part holds exactly the headers it was
given) before it is queued.
"""

from __future__ import annotations

from dataclasses import dataclass
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid

from .inbound import REPLY_MARKER, valid_id

MAILER = "tomis referee"
THREAD_LENGTH = 20           # ids kept per player for References
HELP_LINES = [
    "Reply above the line with one command a line:",
    "  ACTION            your action, as in the record (e.g. Fe2-e3)",
    "  ACTION draw       your action, offering a draw",
    "  accept            accept the draw your opponent offered",
    "  resign            resign the game",
    "  if THEIRS MINE    a private conditional line (more pairs may follow); 'if' alone clears them",
    "  leave FROM TO     leave, dates YYYY-MM-DD (UTC, inclusive): your clock stops",
    "  status            the board and clocks, to you alone",
    "Any other line is passed to your opponent.",
]


@dataclass(frozen=True)
class Referee:
    """Who the referee is: its name and the two halves of its address."""

    name: str
    local: str
    domain: str

    @property
    def address(self) -> str:
        return f"{self.local}@{self.domain}"

    def reply_address(self, token: str) -> Address:
        return Address(display_name=self.name, username=f"{self.local}+{token}",
                       domain=self.domain)


@dataclass(frozen=True)
class Player:
    """A player as the organiser registered them."""

    name: str
    address: str         # addr-spec, lowercased

    def header(self) -> Address:
        username, domain = self.address.rsplit("@", 1)
        return Address(display_name=self.name, username=username, domain=domain)


@dataclass(frozen=True)
class Letter:
    """One message to one player, before it is a MIME message."""

    to: Player
    token: str
    subject: str
    body: str
    thread: tuple[str, ...] = ()          # earlier ids of this player's thread, oldest first
    record_text: str | None = None
    record_name: str = "game.tgn"
    png: bytes | None = None


def compose(referee: Referee, letter: Letter, when: int) -> EmailMessage:
    """``letter`` as a complete message dated ``when`` (seconds, the referee's clock)."""
    from datetime import datetime, timezone

    from ..outgoing.headers import POLICY

    message = EmailMessage(policy=POLICY)
    sender = referee.reply_address(letter.token)
    message["From"] = sender
    message["Reply-To"] = sender
    message["To"] = letter.to.header()
    message["Subject"] = letter.subject
    message["Date"] = format_datetime(datetime.fromtimestamp(when, tz=timezone.utc))
    message["Message-ID"] = make_msgid(domain=referee.domain)
    thread = [ref for ref in (valid_id(ref) for ref in letter.thread) if ref][-THREAD_LENGTH:]
    if thread:
        message["In-Reply-To"] = thread[-1]
        message["References"] = " ".join(thread)
    message["Auto-Submitted"] = "auto-replied"
    message["X-Mailer"] = MAILER
    body = f"{REPLY_MARKER}\n\n{letter.body.rstrip()}\n"
    message.set_content(body, cte=_encoding(body))
    if letter.record_text is not None:
        message.add_attachment(letter.record_text, subtype="plain", filename=letter.record_name,
                               cte=_encoding(letter.record_text))
    if letter.png is not None:
        message.add_attachment(letter.png, maintype="image", subtype="png", filename="board.png")
    return message


def _encoding(text: str) -> str:
    return "7bit" if text.isascii() and max(map(len, text.split("\n"))) < 900 else "quoted-printable"


def message_bytes(message: EmailMessage) -> bytes:
    """The message's bytes, read back to hold the headers it was given (a MailError if not)."""
    from ..outgoing.headers import message_bytes as checked_bytes

    return checked_bytes(message)


def board_png(state, report=None) -> bytes | None:
    """The board as PNG, or None when the images extra is not installed."""
    try:
        from ..pictures import images
        from ..pictures import svg
    except ImportError:
        return None
    try:
        return images.svg_to_png(svg.board(state, last=report))
    except images.MissingExtra:
        return None
