"""What the referee tests share: a store with one game, replies shaped as real mail
programs write them, and delivering them in process or as real processes.

Not a test module (no test_ prefix); pytest puts tests/ on sys.path.
"""

from __future__ import annotations

import email
import email.policy
import os
import sqlite3
import subprocess
import sys
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

from conftest import ROOT, cli_runner

ANA = "Ana Lungu <ana@a.test>"
BO = "Bo Marin <bo@b.test>"
ADDRESSES = ("ana@a.test", "bo@b.test")
REFEREE = "ref@club.test"
START = "2026-11-23T10:00Z"


def run(*args, input=None, env=None):
    from tomis.cli import cli

    return cli_runner().invoke(cli, [str(a) for a in args], input=input, env=env,
                               catch_exceptions=False)


def process(*args, input=None, env=None, timeout=60):
    """``python -m tomis ARGS`` as a real process."""
    return subprocess.run([sys.executable, "-m", "tomis", *map(str, args)], input=input,
                          capture_output=True, timeout=timeout, cwd=ROOT,
                          env={**os.environ, **(env or {})})


class Outbox:
    """What a referee store sending to the outbox folder ``out`` wrote, and its rows
    (``db``); ``seen`` counts the messages :meth:`new_messages` has given."""

    db: Path
    out: Path
    seen: int = 0

    def messages(self) -> list[EmailMessage]:
        return [email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
                for path in sorted(self.out.glob("*.eml"))]

    def new_messages(self) -> list[EmailMessage]:
        every = self.messages()
        fresh, self.seen = every[self.seen:], len(every)
        return fresh

    def query(self, sql: str, *args):
        with sqlite3.connect(self.db) as connection:
            return connection.execute(sql, args).fetchall()


class Lab(Outbox):
    """A referee store (sending to an outbox folder) and the messages it wrote."""

    def __init__(self, tmp_path: Path, time_control: str | None = "30d+3d",
                 leave_days: int | None = None, outage_after: str = "off"):
        self.db = tmp_path / "referee.db"
        self.out = tmp_path / "out"
        self.out.mkdir()
        # Outages off by default: these tests move the referee's clock on by days between
        # two ticks, which a running referee never does; the outage tests turn them on.
        assert run("referee", "init", self.db, "--address", REFEREE, "--name", "Club Referee",
                   "--send-by", f"outbox:{self.out}", "--outage-after", outage_after
                   ).exit_code == 0
        args = ["referee", "new", self.db, "--white", ANA, "--black", BO, "--now", START]
        if time_control:
            args += ["--time-control", time_control]
        if leave_days is not None:
            args += ["--leave-days", leave_days]
        result = run(*args)
        assert result.exit_code == 0, result.output
        self.game = int(result.stdout.strip())
        self.seen = 0

    # -- what the referee sent
    def last_to(self, side: int) -> EmailMessage:
        return [m for m in self.messages() if ADDRESSES[side] in str(m["To"])][-1]

    # -- the store
    def record(self) -> str:
        return self.query("SELECT record FROM games WHERE id = ?", self.game)[0][0]

    def inbox(self) -> list[tuple]:
        return self.query("SELECT state, reason FROM inbox ORDER BY id")

    # -- talking to it
    def deliver(self, raw: bytes, now: str, *args):
        result = run("referee", "deliver", self.db, "--now", now, *args, input=raw)
        assert result.exit_code == 0, result.output
        return result

    def reply(self, side: int, text: str, *, style: str = "top", sender: str | None = None,
              to: str | None = None, headers: dict | None = None) -> bytes:
        """``side``'s player answering the referee's last message to it."""
        return reply_to(self.last_to(side), sender or (ANA, BO)[side], text, style=style,
                        to=to, headers=headers)


def body_of(message: EmailMessage) -> str:
    return message.get_body(("plain",)).get_content()


def headline(message: EmailMessage) -> str:
    """What a referee's message tells: its body's first line (the subject is the game's)."""
    return body_of(message).splitlines()[0]


def board_image(message: EmailMessage) -> bytes | None:
    """The PNG the message's HTML part shows inline (None: the board is drawn in text)."""
    for part in message.walk():
        if part.get_content_type() == "image/png":
            return part.get_content()
    return None


def attachment(message: EmailMessage, suffix: str):
    for part in message.iter_attachments():
        if (part.get_filename() or "").endswith(suffix):
            return part.get_content()
    return None


def reply_to(original: EmailMessage, sender: str, text: str, *, style: str = "top",
             to: str | None = None, headers: dict | None = None) -> bytes:
    """A reply to ``original`` as a mail program writes it.

    Styles: ``top`` (new text, an attribution, the original quoted with ``>``), ``bottom``
    (the quote first), ``qp`` (top-posted, quoted-printable, with a signature), ``html``
    (HTML only, the original in a ``<blockquote>``), ``outlook`` (new text, then the
    original under a From:/Sent: block, unquoted), ``original`` (Outlook's
    -----Original Message----- line).
    """
    quoted = body_of(original)
    reply = EmailMessage()
    reply["From"] = sender
    reply["To"] = to or str(original["Reply-To"])
    reply["Subject"] = "Re: " + str(original["Subject"])
    reply["Message-ID"] = make_msgid(domain="player.test")
    reply["In-Reply-To"] = original["Message-ID"]
    for name, value in (headers or {}).items():
        reply[name] = value
    attribution = f"On Mon, 23 Nov 2026 at 10:00, Club Referee <{REFEREE}> wrote:"
    as_quote = "".join(f"> {line}\n" for line in quoted.splitlines())
    if style == "top":
        reply.set_content(f"{text}\n\n{attribution}\n{as_quote}")
    elif style == "bottom":
        reply.set_content(f"{attribution}\n{as_quote}\n{text}\n")
    elif style == "qp":
        reply.set_content(f"{text}\n\n-- \nAna, sent from a café\n\n{attribution}\n{as_quote}",
                          cte="quoted-printable")
    elif style == "html":
        from html import escape

        lines = "".join(f"<div>{escape(line)}</div>" for line in text.splitlines())
        old = "<br>".join(escape(line) for line in quoted.splitlines())
        reply.set_content(f"<html><body>{lines}<div class='gmail_quote'>"
                          f"<div>{escape(attribution)}</div><blockquote>{old}</blockquote>"
                          f"</div></body></html>", subtype="html")
    elif style == "outlook":
        reply.set_content(f"{text}\r\n\r\n________________________________\r\nFrom: Club "
                          f"Referee <{REFEREE}>\r\nSent: Monday, November 23, 2026 10:00\r\n"
                          f"To: {sender}\r\nSubject: {original['Subject']}\r\n\r\n{quoted}")
    elif style == "original":
        reply.set_content(f"{text}\n\n-----Original Message-----\nFrom: {REFEREE}\n\n{quoted}")
    else:
        raise ValueError(style)
    return reply.as_bytes()
