"""The messages the referee writes: headers from validated parts only, the body a player
reads, the record attached, and the board as PNG when the images extra is installed. What
is the referee's own is here (who it is, the players, a letter, the help); the message is
built by :mod:`tomis.outgoing.message`, as every message tomis sends.

Every message has ``From`` and ``Reply-To`` ``NAME <LOCAL+TOKEN@DOMAIN>`` (the token of
the player it goes to), ``Auto-Submitted: auto-replied`` (RFC 3834), the game's one
subject ``[tomis #N] WHITE vs BLACK`` (what happened is the body's first line), and
``In-Reply-To``/``References`` naming the first message the player got in the game, so
that every reader keeps a game in one flat conversation. Its body is
``multipart/alternative``: the text, and an HTML page with the board as an inline PNG or
a monospace block (:mod:`tomis.outgoing.htmlpart`). It is written with
``email.policy.SMTP`` and read back by :func:`tomis.outgoing.headers.message_bytes` (every
part holds exactly the headers it was given) before it is queued.
"""

from __future__ import annotations

from dataclasses import dataclass
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import make_msgid

from ..errors import one_line
from ..outgoing import message as mail_message
from ..outgoing.headers import checked_id
# The bytes of a message are written by the one function every sender uses; queueing
# serialises through this name.
from .inbound import REPLY_MARKER, valid_id

MAILER = "tomis referee"
# The end of a club message's id before the @ (``<...N.club@DOMAIN>``): a reply naming it
# is the club's, a reply naming another of the referee's ids a game's (tomis.referee.clubmail).
CLUB_ID_MARK = ".club"
HELP_LINES = [
    "Reply above the line with one command a line:",
    "  ACTION            your action, as in the record (e.g. Fe2-e3)",
    "  ACTION draw       your action, offering a draw",
    "  accept            accept the draw your opponent offered",
    "  resign            resign the game",
    "  if THEIRS MINE    a private conditional line (more pairs may follow); 'if' alone clears them",
    "  leave FROM TO     leave, dates YYYY-MM-DD (UTC, inclusive): your clock stops",
    "  status            the board and clocks, to you alone",
    "  moves             the legal actions, to you alone",
    "  help              how to write each command, to you alone",
    "A line with other words and no action is passed to your opponent; a line with an",
    "action and more than four other words, two actions, or a '?' is refused, never passed on.",
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
class Addressee:
    """A player as the organiser registered them."""

    name: str
    address: str         # addr-spec, lowercased

    def header(self) -> Address:
        username, domain = self.address.rsplit("@", 1)
        return Address(display_name=self.name, username=username, domain=domain)


@dataclass(frozen=True)
class Letter:
    """One message to one player, before it is a MIME message."""

    to: Addressee
    token: str
    subject: str                          # the game's, the same in every message
    headline: str                         # what happened: the body's first line
    body: str
    thread: str | None = None             # the first message this player got in the game
    record_text: str | None = None
    record_name: str = "game.tgn"
    grid: str | None = None               # the board's lines as they stand in ``body``
    png: bytes | None = None
    # More files after the record and the board (the rules, to a player who asked 'help').
    extra: tuple[mail_message.Attachment, ...] = ()


def compose(referee: Referee, letter: Letter, when: int) -> EmailMessage:
    """``letter`` as a complete message dated ``when`` (seconds, the referee's clock),
    built by :func:`tomis.outgoing.message.build_message` as every message tomis sends."""
    sender = referee.reply_address(letter.token)
    # Flat: every message answers the player's first one, never the one before it, so a
    # reader that draws threads as trees keeps them one level deep.
    first = valid_id(letter.thread) if letter.thread else None
    headers = [("From", sender), ("Reply-To", sender), ("To", letter.to.header()),
               ("Subject", letter.subject), ("Date", mail_message.date_of(when)),
               ("Message-ID", mail_message.new_message_id(referee.domain)),
               *mail_message.thread_headers([first] if first else []),
               ("Auto-Submitted", "auto-replied"), ("X-Mailer", MAILER)]
    attachments = []
    if letter.record_text is not None:
        attachments.append(mail_message.Attachment(letter.record_name, letter.record_text))
    attachments += letter.extra
    # The headline comes first, above the marker: a reader's list of a conversation
    # shows the start of each message, and the subject no longer says what happened.
    body = f"{one_line(letter.headline)}\n{REPLY_MARKER}\n\n{letter.body.rstrip()}\n"
    return mail_message.build_message(headers, body, attachments,
                                      mail_message.BoardView(letter.grid, letter.png))


@dataclass(frozen=True)
class Note:
    """One message to a person outside any game (the club's mail, issue 43): a
    confirmation request, a challenge, an answer to a command, a digest."""

    to: Addressee
    subject: str                          # the referee's own words, never outside text
    headline: str
    body: str
    token: str | None = None              # a one-time request's token: the reply address
    auto: str = "auto-replied"            # RFC 3834: an answer; a digest is auto-generated


def compose_note(referee: Referee, note: Note, when: int) -> EmailMessage:
    """``note`` as a complete message dated ``when``: From and Reply-To the request's
    one-time address when it has one (so the reply confirms), else the bare address."""
    sender = (referee.reply_address(note.token) if note.token is not None else
              Address(display_name=referee.name, username=referee.local, domain=referee.domain))
    headers = [("From", sender), ("Reply-To", sender), ("To", note.to.header()),
               ("Subject", note.subject), ("Date", mail_message.date_of(when)),
               ("Message-ID", checked_id(make_msgid(idstring=CLUB_ID_MARK[1:],
                                                     domain=referee.domain), "its own id")),
               ("Auto-Submitted", note.auto), ("X-Mailer", MAILER)]
    body = f"{one_line(note.headline)}\n{REPLY_MARKER}\n\n{note.body.rstrip()}\n"
    return mail_message.build_message(headers, body)


def board_png(state, report=None) -> bytes | None:
    """The board as PNG, or None without the images extra (a name of its own here, so that
    a bench can leave the drawing out of the referee's cost)."""
    return mail_message.board_png(state, report)
