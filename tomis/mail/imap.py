"""Reading one folder of an IMAP server, read-only, with the standard :mod:`imaplib`.

A PLACE names the folder: ``imaps://USER@HOST[:PORT]/FOLDER`` (TLS from the first byte,
port 993) or ``imap://USER@HOST[:PORT]/FOLDER`` (port 143, then STARTTLS, which must be
offered: without it the password would cross the network in clear, so the server is
refused). A user name holding ``@`` is written percent-encoded (``ana%40example.org``);
no FOLDER means ``INBOX``. A password in the PLACE is refused: it would sit in the shell's
history and in every process listing.

Nothing on the server changes: the folder is opened with ``EXAMINE`` and messages are
fetched with ``BODY.PEEK[]``, so not even the ``\\Seen`` flag is set. The server's
certificate is checked against the system's CAs, or the CA file from
``TOMIS_IMAP_CAFILE`` or ``cafile =`` in ``[imap]`` of the mail settings file
(:mod:`tomis.mailsettings`). What a server sends is bounded: a time-out on every socket
operation, at most :data:`MAX_MESSAGES` messages (the newest) and
:data:`~tomis.textio.MAX_FILE_BYTES` per message.

The password is not this module's business to ask for: the caller passes a function
that gives it (the CLI reads ``TOMIS_IMAP_PASSWORD`` or prompts). Every failure is one
:class:`ImapError` line. Prints nothing.
"""

from __future__ import annotations

import base64
import imaplib
import os
import re
import socket
import ssl
from dataclasses import dataclass
from datetime import datetime, timezone
from email.parser import BytesHeaderParser
from email.policy import default
from typing import Callable
from urllib.parse import unquote, urlsplit

from . import settings as mailsettings
from .sniff import IMAP_SCHEMES, is_place  # noqa: F401 -- is_place answered here too
from ..util import textio
from ..errors import FileError, one_line

SCHEMES = IMAP_SCHEMES
TIMEOUT = 30.0                  # seconds, for each connect, read and write
MAX_MESSAGES = 500              # the newest of a folder; an inbox of games is never that long
MAX_SERVER_TEXT = 200           # characters of a server's answer quoted in an error
PASSWORD_ENV = "TOMIS_IMAP_PASSWORD"
ENV = {"cafile": "TOMIS_IMAP_CAFILE"}

_FETCH_UID = re.compile(rb"\bUID (\d+)")
_FETCH_SIZE = re.compile(rb"\bRFC822\.SIZE (\d+)")
_MESSAGE_START = re.compile(rb"\d+ \(")
# RFC 3501's date-time: "DD-Mon-YYYY HH:MM:SS +ZZZZ" (the day may be padded with a space).
_INTERNALDATE = re.compile(rb'\bINTERNALDATE "([ \d]\d)-([A-Za-z]{3})-(\d{4}) '
                           rb'(\d\d):(\d\d):(\d\d) ([+-])(\d\d)(\d\d)"')
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


class ImapError(FileError):
    """A folder that cannot be read: the server, the network, TLS, the login or the PLACE."""


@dataclass(frozen=True)
class ImapPlace:
    """A parsed ``imaps://USER@HOST[:PORT]/FOLDER``."""

    scheme: str
    user: str
    host: str
    port: int
    folder: str

    @property
    def server(self) -> str:
        return f"{self.host}:{self.port}"

    def __str__(self) -> str:
        return f"{self.scheme}://{self.user}@{self.server}/{self.folder}"


@dataclass(frozen=True)
class ListedMessage:
    """What the folder listing says of one message before its body is fetched."""

    uid: int
    size: int
    message_id: str | None


@dataclass(frozen=True)
class Fetched:
    """One message of the folder: its bytes as stored, its UID and its Message-ID."""

    uid: int
    message_id: str | None
    data: bytes


@dataclass(frozen=True)
class UidMessage:
    """A message fetched by UID: its bytes (a limit and one byte at most) and when the
    server received it (its ``INTERNALDATE`` as seconds since the epoch; None when the
    server gave none that reads)."""

    data: bytes
    received: int | None


@dataclass(frozen=True)
class Settings:
    cafile: str | None
    source: str                 # where the settings file is, for messages


# --------------------------------------------------------------------------- places

def parse_place(text: str) -> ImapPlace:
    """``text`` as an :class:`ImapPlace`; anything missing or odd is an :class:`ImapError`."""
    example = "imaps://USER@HOST[:PORT]/FOLDER"
    if not text.isprintable() or any(char.isspace() for char in text):
        raise ImapError(f"an IMAP place is one word without spaces, like {example}")
    parts = urlsplit(text)
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        raise ImapError(f"an IMAP place starts with imaps:// or imap://, like {example}")
    if parts.password is not None:
        raise ImapError(f"no password in the place (it would show in the shell's history); "
                        f"set {PASSWORD_ENV} or answer the prompt")
    if not parts.username or not parts.hostname:
        raise ImapError(f"an IMAP place names the user and the server, like {example} "
                        "(an @ in the user name is written %40)")
    try:
        port = parts.port or SCHEMES[scheme]
    except ValueError:
        raise ImapError("the port of an IMAP place is a number from 1 to 65535") from None
    if parts.query or parts.fragment:
        raise ImapError(f"an IMAP place has no ? or # part, like {example}")
    folder = unquote(parts.path.lstrip("/")) or "INBOX"
    user = unquote(parts.username)
    if not folder.isprintable() or not user.isprintable():
        raise ImapError("the user and folder of an IMAP place are printable text")
    return ImapPlace(scheme, user, parts.hostname, port, folder)


def settings(env=None) -> Settings:
    """The CA file from ``TOMIS_IMAP_CAFILE``, else ``[imap] cafile`` of the settings file."""
    env = os.environ if env is None else env
    path = mailsettings.config_path(env)
    values = mailsettings.section(path, "imap", ImapError, PASSWORD_ENV)
    cafile = env.get(ENV["cafile"]) or values.get("cafile") or None
    return Settings(os.path.expanduser(cafile) if cafile else None, path)


# --------------------------------------------------------------------------- reading

def env_password(place: ImapPlace) -> str:
    """The password from ``TOMIS_IMAP_PASSWORD``; without it, an :class:`ImapError`."""
    value = os.environ.get(PASSWORD_ENV)
    if value is None:
        raise ImapError(f"no password for {one_line(place.user)}: set {PASSWORD_ENV} or run "
                        "tomis on a terminal")
    return value


def read_folder(text: str, password: Callable[[ImapPlace], str] | None = None,
                env=None) -> list[Fetched]:
    """Every message of the folder (the newest :data:`MAX_MESSAGES`), oldest first;
    ``password(place)`` gives the password (default: :func:`env_password`)."""
    place = parse_place(text)
    with Folder(place, settings(env), password or env_password) as folder:
        return [folder.fetch(summary) for summary in folder.listing()]


def read_message(text: str, wanted: str | None,
                 password: Callable[[ImapPlace], str] | None = None, env=None) -> Fetched:
    """The message ``wanted`` names (a UID, or a Message-ID with or without <>), or the
    folder's only message when ``wanted`` is None."""
    place = parse_place(text)
    with Folder(place, settings(env), password or env_password) as folder:
        return folder.fetch(pick(folder.listing(), wanted))


def pick(listing: list[ListedMessage], wanted: str | None) -> ListedMessage:
    if not listing:
        raise ImapError("this folder holds no message")
    if wanted is None:
        if len(listing) > 1:
            raise ImapError(f"this folder holds {len(listing)} messages; choose one with "
                            f"--message UID ({listing[0].uid}-{listing[-1].uid}) or "
                            "--message MESSAGE-ID")
        return listing[0]
    bare = wanted.strip().strip("<>")
    for summary in listing:
        if (wanted.isdigit() and summary.uid == int(wanted)) or (
                summary.message_id is not None and summary.message_id.strip("<>") == bare):
            return summary
    what = "UID" if wanted.isdigit() else "Message-ID"
    raise ImapError(f"--message {one_line(wanted)}: no message with this {what} in the folder")


class Folder:
    """A connection with the folder open read-only; a context manager that logs out.

    ``read_folder`` and ``read_message`` read a whole folder through it; the referee
    (:mod:`tomis.referee.fetching`) takes new messages by UID with :meth:`uidvalidity`,
    :meth:`uids_after` and :meth:`fetch_uid`."""

    def __init__(self, place: ImapPlace, config: Settings, password: Callable[[ImapPlace], str]):
        self.place, self.config = place, config
        self.connection = None
        self.exists = 0
        self._password = password

    def __enter__(self) -> Folder:
        try:
            self.connection = self._connect()
            self._login()
            self._examine()
        except BaseException:
            self._close()
            raise
        return self

    def __exit__(self, *_exc) -> None:
        self._close()

    def _close(self) -> None:
        if self.connection is None:
            return
        try:
            self.connection.logout()
        except (imaplib.IMAP4.error, OSError):
            pass                # the folder was read, or the error is already said
        self.connection = None

    # ---- the conversation, each step with its own words for what goes wrong

    def _connect(self):
        context = self._tls_context()
        with self._failures("connect to"):
            if self.place.scheme == "imaps":
                return imaplib.IMAP4_SSL(self.place.host, self.place.port,
                                         ssl_context=context, timeout=TIMEOUT)
            connection = imaplib.IMAP4(self.place.host, self.place.port, timeout=TIMEOUT)
            if "STARTTLS" not in connection.capabilities:
                connection.shutdown()
                raise ImapError(f"the IMAP server {self.place.server} does not offer STARTTLS, "
                                "so the password would cross the network in clear; use "
                                "imaps:// if it offers TLS on another port (993)")
            connection.starttls(ssl_context=context)
            return connection

    def _tls_context(self) -> ssl.SSLContext:
        cafile = self.config.cafile
        if cafile is not None and not os.path.isfile(cafile):
            raise ImapError(f"no CA file {one_line(cafile)} ({ENV['cafile']} or cafile = in "
                            f"[imap] of {one_line(self.config.source)})")
        try:
            return ssl.create_default_context(cafile=cafile)
        except (ssl.SSLError, OSError) as exc:
            raise ImapError(f"the CA file {one_line(cafile or '')} holds no certificate "
                            f"tomis can read: {getattr(exc, 'reason', None) or exc}") from None

    def _login(self) -> None:
        secret = self._password(self.place)
        with self._failures("log in to"):
            try:
                self.connection.login(self.place.user, secret)
            except imaplib.IMAP4.error as exc:
                raise ImapError(f"the IMAP server {self.place.server} refused the user name or "
                                f"password for {one_line(self.place.user)}: "
                                f"{_server_text(exc)}") from None

    def _examine(self) -> None:
        with self._failures("open the folder on"):
            status, data = self.connection.select(_mailbox_name(self.place.folder), readonly=True)
        if status != "OK":
            raise ImapError(f"the IMAP server {self.place.server} has no folder "
                            f"{one_line(self.place.folder)} for {one_line(self.place.user)}: "
                            f"{_server_text(data)}")
        count = data[0] if data else b"0"
        self.exists = int(count) if count and count.isdigit() else 0

    def listing(self) -> list[ListedMessage]:
        """UID, size and Message-ID of the newest :data:`MAX_MESSAGES` messages."""
        if self.exists == 0:
            return []
        first = max(1, self.exists - MAX_MESSAGES + 1)
        with self._failures("list the folder on"):
            status, data = self.connection.fetch(
                f"{first}:*", "(UID RFC822.SIZE BODY.PEEK[HEADER.FIELDS (MESSAGE-ID)])")
        if status != "OK":
            raise self._answered("the folder listing", data)
        summaries = [_summary(meta, header) for meta, header in _responses(data)]
        return sorted((s for s in summaries if s is not None), key=lambda s: s.uid)

    def fetch(self, summary: ListedMessage) -> Fetched:
        limit = textio.MAX_FILE_BYTES
        if summary.size > limit:
            raise ImapError(f"message UID {summary.uid} is larger than {limit // 2**20} MiB; "
                            "a game record is never that big")
        with self._failures("fetch a message from"):
            # A partial fetch: the server sends no more than the limit (and one byte, to
            # see that a message it listed small has grown).
            status, data = self.connection.uid("FETCH", str(summary.uid),
                                               f"(BODY.PEEK[]<0.{limit + 1}>)")
        bodies = [body for _meta, body in _responses(data)] if status == "OK" else []
        if not bodies or bodies[0] is None:
            raise ImapError(f"the IMAP server {self.place.server} did not send message UID "
                            f"{summary.uid}; was it removed meanwhile?")
        if len(bodies[0]) > limit:
            raise ImapError(f"message UID {summary.uid} is larger than {limit // 2**20} MiB")
        return Fetched(summary.uid, summary.message_id, bodies[0])

    def uidvalidity(self) -> int:
        """The folder's ``UIDVALIDITY``: while it stays, a UID names the same message."""
        _name, data = self.connection.response("UIDVALIDITY")
        value = data[0] if data and data[0] else b""
        if not value.isdigit():
            raise ImapError(f"the IMAP server {self.place.server} gave no UIDVALIDITY for the "
                            f"folder, so new messages cannot be told from old")
        return int(value)

    def uids_after(self, last: int) -> list[int]:
        """The UIDs above ``last``, ascending."""
        if self.exists == 0:
            return []
        with self._failures("search the folder on"):
            status, data = self.connection.uid("SEARCH", f"UID {last + 1}:*")
        if status != "OK":
            raise self._answered("the search for new messages", data)
        words = b" ".join(part for part in data if isinstance(part, bytes)).split()
        # "N:*" always matches the newest message, even below N: keep those above ``last``.
        return sorted(uid for uid in (int(word) for word in words if word.isdigit())
                      if uid > last)

    def fetch_uid(self, uid: int, limit: int) -> UidMessage:
        """Message ``uid`` as stored, at most ``limit`` + 1 bytes of it (a partial fetch:
        the server sends no more, and the extra byte tells a longer message), with its
        ``INTERNALDATE``: when the server received it, which the referee stamps."""
        with self._failures("fetch a message from"):
            status, data = self.connection.uid(
                "FETCH", str(uid), f"(INTERNALDATE BODY.PEEK[]<0.{limit + 1}>)")
        answers = _responses(data) if status == "OK" else []
        if not answers or answers[0][1] is None:
            raise ImapError(f"the IMAP server {self.place.server} did not send message UID {uid}")
        meta, body = answers[0]
        return UidMessage(body, internal_date(meta))

    def _answered(self, what: str, data) -> ImapError:
        return ImapError(f"the IMAP server {self.place.server} refused {what}: {_server_text(data)}")

    def _failures(self, doing: str):
        return _Failures(self.place, doing)


class _Failures:
    """Turns what the network, TLS and imaplib raise into one ImapError line."""

    def __init__(self, place: ImapPlace, doing: str):
        self.place, self.doing = place, doing

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, _tb) -> bool:
        if exc is None or isinstance(exc, ImapError):
            return False
        message = self._words(exc)
        if message is None:
            return False
        raise ImapError(message) from None

    def _words(self, exc) -> str | None:
        server = self.place.server
        if isinstance(exc, socket.gaierror):
            return f"cannot find the IMAP server {one_line(self.place.host)}: {exc.strerror or exc}"
        if isinstance(exc, ConnectionRefusedError):
            return f"nothing answers at {server} (connection refused)"
        if isinstance(exc, (TimeoutError, socket.timeout)):
            return f"the IMAP server {server} did not answer within {TIMEOUT:g} s"
        if isinstance(exc, ssl.SSLCertVerificationError):
            return (f"the IMAP server {server} has a certificate tomis cannot trust "
                    f"({exc.verify_message or exc.reason}); if it is your own server, give its "
                    f"CA file with {ENV['cafile']} or cafile = in [imap]")
        if isinstance(exc, ssl.SSLError):
            return f"TLS with the IMAP server {server} failed: {exc.reason or exc}"
        if isinstance(exc, imaplib.IMAP4.abort):
            return f"the IMAP server {server} closed the connection: {_server_text(exc)}"
        if isinstance(exc, imaplib.IMAP4.error):
            return f"the IMAP server {server} answered: {_server_text(exc)}"
        if isinstance(exc, OSError):
            return f"cannot {self.doing} the IMAP server {server}: {exc.strerror or exc}"
        return None


def _responses(data) -> list[tuple[bytes, bytes | None]]:
    """imaplib's FETCH answer as (the non-literal text, the literal) per message.

    imaplib gives a message with a literal as a tuple (text up to the literal, literal)
    followed by the rest of its text as bytes (`` UID 101)``), one without as bytes alone;
    which item comes first is the server's choice, so the texts are joined before use.
    """
    answers: list[list] = []
    for part in data or ():
        if isinstance(part, tuple):
            answers.append([part[0], part[1]])
        elif isinstance(part, bytes) and _MESSAGE_START.match(part):
            answers.append([part, None])
        elif isinstance(part, bytes) and answers:
            answers[-1][0] += part          # the tail after a literal
    return [(meta, literal) for meta, literal in answers]


def internal_date(meta: bytes) -> int | None:
    """The ``INTERNALDATE`` in a FETCH answer's text as seconds since the epoch, or None
    when there is none or it is no date (the server's text is not trusted to be one)."""
    found = _INTERNALDATE.search(meta[:4096])
    if found is None:
        return None
    day, month, year, hour, minute, second, sign, zone_h, zone_m = found.groups()
    name = month.decode("ascii").lower()
    if name not in _MONTHS:
        return None
    try:
        when = datetime(int(year), _MONTHS.index(name) + 1, int(day), int(hour), int(minute),
                        int(second), tzinfo=timezone.utc)
    except ValueError:
        return None
    offset = (int(zone_h) * 3600 + int(zone_m) * 60) * (1 if sign == b"+" else -1)
    return int(when.timestamp()) - offset


def _summary(meta: bytes, header: bytes | None) -> ListedMessage | None:
    uid, size = _FETCH_UID.search(meta), _FETCH_SIZE.search(meta)
    if uid is None or size is None:
        return None             # an unsolicited FLAGS update, say: not a listing line
    return ListedMessage(int(uid[1]), int(size[1]), _message_id(header or b""))


def _message_id(header: bytes) -> str | None:
    try:
        value = BytesHeaderParser(policy=default).parsebytes(header[:4096]).get("Message-ID")
    except Exception:           # a header the email package cannot read: no Message-ID
        return None
    if value is None:
        return None
    return str(value).strip() or None


def _server_text(answer) -> str:
    """What the server said, one printable line, bounded (it is outside text)."""
    if isinstance(answer, (list, tuple)):
        answer = b" ".join(a if isinstance(a, bytes) else str(a).encode() for a in answer
                           if not isinstance(a, tuple))
    if isinstance(answer, BaseException):       # imaplib raises with the server's bytes
        answer = answer.args[0] if answer.args else ""
    if isinstance(answer, bytes):
        answer = answer.decode("utf-8", "replace")
    text = " ".join(str(answer).split())
    if len(text) > MAX_SERVER_TEXT:
        text = text[:MAX_SERVER_TEXT] + "..."
    return one_line(text) or "no reason given"


def _mailbox_name(folder: str) -> str:
    """The folder as an IMAP quoted string, in modified UTF-7 (RFC 3501 5.1.3)."""
    encoded = _modified_utf7(folder)
    return '"' + encoded.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _modified_utf7(text: str) -> str:
    out, pending = [], []

    def flush():
        if pending:
            raw = "".join(pending).encode("utf-16-be")
            out.append("&" + base64.b64encode(raw).decode("ascii").rstrip("=").replace("/", ",") + "-")
            pending.clear()

    for char in text:
        if " " <= char <= "~":
            flush()
            out.append("&-" if char == "&" else char)
        else:
            pending.append(char)
    flush()
    return "".join(out)
