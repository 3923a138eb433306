"""Mail going out: a ready-to-send message for a move, the address book of a game, SMTP.

A layer above :mod:`tomis.record`, :mod:`tomis.render` and :mod:`tomis.mail`, below the
CLI; it prints and prompts nothing (the password comes in as an argument). Messages are
built with :class:`email.message.EmailMessage` under ``email.policy.SMTP`` and sent with
:meth:`smtplib.SMTP.sendmail`, to the envelope tomis computed from ``To`` and ``Cc``.

Every header value comes from checked data (docs/SECURITY.md, finding 1): a message id
only when it is one RFC 5322 ``msg-id`` (:func:`msg_id`), an address only when the email
package's two parsers agree it is exactly one plain address (:func:`one_address`,
:func:`addresses`), no control character anywhere, and the bytes written are read back
to prove they hold the headers composed and no other (:func:`message_bytes`).

- :func:`compose`: subject ``Tomis: Ana vs Bo — action 3 (G@b1)``, the board and the
  record in the text body, the record attached as a ``.tgn`` file, ``In-Reply-To`` and
  ``References`` when the record came from a message (:func:`thread_of` checks its ids).
- :class:`Sidecar`: what is remembered about a game's mail beside its record
  (``ladder.tgn.mail.json``): the opponent's address and the thread. Never the password,
  never inside the record.
- :func:`smtp_settings` and :func:`send`: host, port, user, sender, security
  (``starttls``, ``tls`` or ``none``), CA file and a ``sendmail`` program from
  ``TOMIS_SMTP_*`` variables over a config file (``TOMIS_MAIL_CONFIG``, else
  ``$XDG_CONFIG_HOME/tomis/mail.ini``, else ``~/.config/tomis/mail.ini``, section
  ``[smtp]``; docs/MAIL.md). The password is ``TOMIS_SMTP_PASSWORD`` or the CLI's prompt, never a
  setting in a file, never a command-line argument, never written anywhere.
"""

from __future__ import annotations

import email.policy
import json
import os
import re
import smtplib
import ssl
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import format_datetime, localtime, make_msgid

from . import mailsettings
from .errors import FileError, TomisError, one_line

SIDECAR_SUFFIX = ".mail.json"
MAILER = "tomis"                # X-Mailer of the messages tomis writes (and alone resends)
SECURITY_MODES = ("starttls", "tls", "none")
# Submission with STARTTLS, submission over TLS from the first byte (RFC 8314), plain SMTP.
DEFAULT_PORTS = {"starttls": 587, "tls": 465, "none": 25}
SMTP_TIMEOUT = 30.0
SENDMAIL_TIMEOUT = 60.0
ENV = {"host": "TOMIS_SMTP_HOST", "port": "TOMIS_SMTP_PORT", "user": "TOMIS_SMTP_USER",
       "from": "TOMIS_SMTP_FROM", "starttls": "TOMIS_SMTP_STARTTLS",
       "security": "TOMIS_SMTP_SECURITY", "cafile": "TOMIS_SMTP_CAFILE",
       "sendmail": "TOMIS_SMTP_SENDMAIL"}
PASSWORD_ENV = "TOMIS_SMTP_PASSWORD"
# SMTP's line ends; the email package refuses a header value holding a line break itself.
POLICY = email.policy.SMTP
MAX_MSG_ID = 250                # characters of one message id, brackets included
MAX_REFERENCES = 20             # ids in a reply's References: the first and the latest
MAX_ADDRESS = 254               # characters of one addr-spec (RFC 5321's path, less <>)
MAX_NAME_IN_SUBJECT = 100       # characters of a player's name in the Subject
MAX_SIDECAR_BYTES = 64 * 1024   # tomis writes a few hundred bytes there
# Headers that choose recipients besides To and Cc; tomis never writes them, and a
# message holding one is not sent (smtplib would deliver to a Bcc).
FOREIGN_RECIPIENTS = ("bcc", "resent-to", "resent-cc", "resent-bcc", "resent-from",
                      "resent-sender")
CONFIG_ENV = mailsettings.CONFIG_ENV


class MailError(TomisError):
    """A message that cannot be composed or sent; the move itself is already saved."""


# --------------------------------------------------------------------------- composing

def players(game) -> tuple[str, str]:
    """The names on the White and Black tags, or the side's name when a tag is missing."""
    def name(tag: str) -> str:
        value = game.tags.get(tag)
        return value if value not in (None, "", "?") else tag
    return name("White"), name("Black")


def subject(game) -> str:
    """``Tomis: White vs Black — action N (ACTION)`` for the last action of ``game``.

    The names come from the record, which the opponent wrote. A control character in a
    name is shown escaped (``\\x1d``): a header is one line. ``=?`` is written ``= ?``:
    the email package (and every mail program) would decode an RFC 2047 encoded word
    in the Subject, and one can decode to anything, a line break and a header included.
    A name is cut at :data:`MAX_NAME_IN_SUBJECT` characters.
    """
    white, black = (_subject_name(name) for name in players(game))
    if not game.nodes:
        return f"Tomis: {white} vs {black} — new game"
    return f"Tomis: {white} vs {black} — action {len(game.nodes)} ({game.nodes[-1].action})"


def _subject_name(name: str) -> str:
    shown = one_line(name).replace("=?", "= ?")
    return shown if len(shown) <= MAX_NAME_IN_SUBJECT else shown[:MAX_NAME_IN_SUBJECT - 1] + "…"


def body_text(game, record_text: str) -> str:
    """What the opponent reads: the last action and its combat, the board, the clocks and
    an open draw offer, the Digest, the record. Plain ASCII: it survives every mail client."""
    from .notation import digest
    from .pictures import render

    lines = []
    if game.nodes:
        lines += render.report_lines(game.nodes[-1].report, len(game.nodes)) + [""]
    lines.append(render.position_text(game.final, color=False, result=game.result))
    situation = clock_lines(game) + draw_offer_lines(game)
    if situation:
        lines += [""] + situation
    lines += ["", f"Digest after action {len(game.nodes)}: {digest.game_digest(game)}",
              "", record_text.rstrip("\n"), ""]
    return "\n".join(lines)


def clock_lines(game) -> list[str]:
    """Each side's time left after the last action, and when the side to act runs out,
    for a game with a TimeControl tag (else nothing): the opponent learns it without
    running tomis."""
    from .notation import clock, correspondence
    from .rules.board import SIDE_TITLES

    control = game.tags.get(clock.TIME_CONTROL_TAG)
    if not control:
        return []
    ran = correspondence.check(game, correspondence.read_facts(game)).clock
    if ran is None:
        return []
    lines = [f"Clocks ({control}) after action {len(game.nodes)}:"]
    for side in (0, 1):
        left = ran.left[side]
        lines.append(f"  {SIDE_TITLES[side]}: "
                     + (f"{clock.describe_duration(left)} left" if left >= 0 else "no time left"))
    to_act = _side_to_act(game)
    if to_act is not None and ran.since is not None and ran.left[to_act] >= 0:
        lines.append(f"  {SIDE_TITLES[to_act]} is to act; its time runs out at "
                     f"{clock.format_stamp(ran.deadline(to_act))}")
    return lines


def draw_offer_lines(game) -> list[str]:
    """The draw the last action offers (R23), while it stands: until the next action."""
    from .rules.board import SIDE_TITLES

    to_act = _side_to_act(game)
    if to_act is None or not game.nodes or not getattr(game.nodes[-1], "offer", False):
        return []
    return [f"{SIDE_TITLES[1 - to_act]} offers a draw with this action (=); any action "
            "declines it.",
            f"{SIDE_TITLES[to_act]} accepts with: tomis draw FILE --accept --as "
            f"{SIDE_TITLES[to_act].lower()}"]


def _side_to_act(game) -> int | None:
    """The side to act, or None once the game is over."""
    if game.result != "*" or game.final.is_over:
        return None
    return game.final.to_move


def compose(game, record_text: str, *, sender: str, to: str, attachment_name: str,
            in_reply_to: str | None = None, references: tuple[str, ...] = (),
            date=None) -> EmailMessage:
    """A complete RFC 5322 message carrying ``game`` (its text ``record_text``).

    Raises :class:`MailError` when ``sender`` is not one address, ``to`` not a list of
    addresses (``Name <local@domain>`` or ``local@domain``), or an id of the thread not
    a message id (:func:`thread_of` drops those before they come here).
    """
    message = EmailMessage(policy=POLICY)
    _put(message, "From", addresses(sender, "the sender", single=True))
    _put(message, "To", addresses(to, "the address to send to"))
    _put(message, "Subject", subject(game))
    _put(message, "Date", format_datetime(date or localtime()))
    _put(message, "Message-ID", _checked_id(make_msgid(domain=_domain(sender)), "its own id"))
    if in_reply_to:
        _put(message, "In-Reply-To", _checked_id(in_reply_to, "In-Reply-To"))
        thread = [_checked_id(ref, "References") for ref in references if ref != in_reply_to]
        _put(message, "References", " ".join(_bounded(thread + [in_reply_to])))
    _put(message, "X-Mailer", MAILER)
    body = body_text(game, record_text)
    message.set_content(body, cte=_transfer_encoding(body))
    message.add_attachment(record_text, subtype="plain", filename=attachment_name,
                           cte=_transfer_encoding(record_text))
    return message


def _put(message: EmailMessage, name: str, value: str) -> None:
    """Set one header and prove the email package read it as given: it decodes encoded
    words while parsing a value, so what it holds, not what was passed, must be one
    clean line."""
    message[name] = value
    held = str(message[name])
    if not held.isprintable() or message[name].defects:
        raise MailError(f"the {name} header would read {_clipped(held)!r}; "
                        "no message was composed")


def _checked_id(text: str, what: str) -> str:
    if msg_id(text) is None:
        raise MailError(f"{what} {_clipped(text)!r} is not a message id (RFC 5322)")
    return text


def _bounded(thread: list[str]) -> list[str]:
    """At most MAX_REFERENCES ids: the thread's first and its latest, as RFC 5322
    suggests trimming (the first names the thread, the latest its branch)."""
    if len(thread) <= MAX_REFERENCES:
        return thread
    return thread[:1] + thread[len(thread) - MAX_REFERENCES + 1:]


def _transfer_encoding(text: str) -> str:
    """7bit for ASCII; quoted-printable for accented names, so the message stays 7-bit
    (the email package would choose raw 8bit, which a server may refuse)."""
    return "7bit" if text.isascii() else "quoted-printable"


# A plain addr-spec: a dot-atom local part (no quoted string, no encoded word, ASCII: a
# non-ASCII address needs SMTPUTF8, which tomis does not speak) at a host name.
_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
_DOT_ATOM_TEXT = rf"{_ATEXT}+(?:\.{_ATEXT}+)*"
_HOST = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*"
_ADDR_SPEC = re.compile(rf"{_DOT_ATOM_TEXT}@{_HOST}")
# RFC 5322's msg-id without CFWS: "<" dot-atom-text "@" (dot-atom-text / no-fold-literal) ">".
_MSG_ID = re.compile(rf"<{_DOT_ATOM_TEXT}@(?:{_DOT_ATOM_TEXT}|\[[!-Z^-~]*\])>")


def msg_id(text) -> str | None:
    """``text`` when it is exactly one RFC 5322 msg-id of at most MAX_MSG_ID characters,
    else None. One holding ``=?`` is refused too: it matches the grammar (``=`` and
    ``?`` are atext), but the email package decodes the encoded word inside it."""
    if not isinstance(text, str) or len(text) > MAX_MSG_ID or "=?" in text:
        return None
    return text if _MSG_ID.fullmatch(text) else None


def _plain_addr_spec(addr: str) -> bool:
    return len(addr) <= MAX_ADDRESS and "=?" not in addr and bool(_ADDR_SPEC.fullmatch(addr))


def _parsed(text: str) -> list[tuple[str, str]] | None:
    """(display name, addr-spec) of each address in ``text``; None unless the email
    package's header parser and its older ``getaddresses`` find the same addresses,
    each a plain addr-spec."""
    from email.utils import getaddresses

    try:
        header = POLICY.header_factory("To", text)
        legacy = getaddresses([text])
    except Exception:            # whatever the email package raises on hostile text
        return None
    pairs = [(address.display_name, address.addr_spec) for address in header.addresses]
    if not pairs or [addr for _name, addr in legacy] != [addr for _name, addr in pairs]:
        return None
    return pairs if all(_plain_addr_spec(addr) for _name, addr in pairs) else None


def addresses(text: str, what: str, single: bool = False) -> str:
    """``text`` as a header value of mail addresses, each checked; a MailError names the
    one that is not an address (a control character never reaches a header)."""
    from email.utils import formataddr

    return ", ".join(formataddr(pair) for pair in address_pairs(text, what, single))


def address_pairs(text: str, what: str, single: bool = False) -> list[tuple[str, str]]:
    """(display name, addr-spec) of each address of ``text``, or a MailError: a control
    character anywhere, before or after the email package decodes a name, refuses it."""
    pairs = _parsed(text) if isinstance(text, str) and text.isprintable() else None
    if pairs is None or (single and len(pairs) > 1) or not all(
            name.isprintable() for name, _addr in pairs):
        raise MailError(f"{what} {_clipped(text)!r} is not "
                        f"{'a mail address' if single else 'a list of mail addresses'} "
                        "like Ana <ana@example.org>")
    return pairs


def one_address(text: str, what: str) -> str:
    """The addr-spec of ``text`` (a header of a received message) when it holds exactly
    one plain address; its display name is not kept. A MailError otherwise."""
    pairs = _parsed(text) if isinstance(text, str) else None
    if pairs is None or len(pairs) != 1:
        raise MailError(f"{what} {_clipped(text)!r} is not one mail address; "
                        "give --to ADDRESS")
    return pairs[0][1]


def _clipped(text, limit: int = 120) -> str:
    """Hostile text to quote (with ``!r``, which shows control characters escaped): not
    a screenful of it."""
    text = str(text)
    return text if len(text) <= limit else text[:limit] + "..."


def _domain(address: str) -> str | None:
    from email.headerregistry import Address
    from email.utils import parseaddr

    addr = parseaddr(address)[1]
    try:
        return Address(addr_spec=addr).domain or None
    except (ValueError, IndexError, TypeError):
        return None


def attachment_name(record_path: str) -> str:
    """The record's own file name when it is a .tgn file, else ``game.tgn``. A name
    holding an encoded word (``=?``) is not used either: the email package decodes it
    in the Content-Disposition header, and a saved attachment may bear any name."""
    base = os.path.basename(record_path)
    usable = base.lower().endswith(".tgn") and base.isprintable() and "=?" not in base
    return base if usable else "game.tgn"


def message_bytes(message: EmailMessage) -> bytes:
    """The message as a mail program saves it (``.eml``), CRLF line ends as on the wire.

    Read back before it leaves: every part must hold exactly the headers it was given.
    An email package without the check on written headers that Python added in 2024
    (gh-121650; not in 3.11.7, say) writes a header value holding a line break as it is,
    which would add a header of the sender's choosing; this refuses that.
    """
    data = message.as_bytes(policy=POLICY)
    if _header_names(message) != _header_names(email.message_from_bytes(data, policy=POLICY)):
        raise MailError("the message would not hold the headers it was given "
                        "(a line break in a value?); it was neither written nor sent")
    return data


def _header_names(message: EmailMessage) -> list[list[str]]:
    """The header names of each part, in order."""
    return [[name.lower() for name in part.keys()] for part in message.walk()]


def thread_of(message_id: str | None, references) -> Thread:
    """The ids a reply to a message may carry: its Message-ID when that is one msg-id
    (else no thread at all), and those of its References that are."""
    if not message_id:
        return Thread(None, ())
    if msg_id(message_id) is None:
        return Thread(None, (), dropped_id=_clipped(message_id))
    kept = [ref for ref in references if msg_id(ref) is not None]
    return Thread(message_id, tuple(_bounded(kept)), dropped_references=len(references) - len(kept))


@dataclass(frozen=True)
class Thread:
    """What a reply threads on, and what was left out of it (for a note)."""

    in_reply_to: str | None
    references: tuple[str, ...]
    dropped_id: str | None = None          # the message's own id, shown, when not one
    dropped_references: int = 0


# --------------------------------------------------------------------------- sidecar

@dataclass
class Sidecar:
    """What is remembered about one game's mail, in ``RECORD.mail.json`` beside it."""

    to: str | None = None
    in_reply_to: str | None = None
    references: list[str] = field(default_factory=list)

    @staticmethod
    def path_for(record_path: str) -> str:
        return record_path + SIDECAR_SUFFIX

    @classmethod
    def load(cls, record_path: str) -> Sidecar:
        """The remembered facts; an absent file is an empty sidecar. Anyone may have
        written the file, so anything tomis would not have written there is a FileError
        naming it: a value that is not an address or a message id, the wrong type, more
        than MAX_SIDECAR_BYTES, JSON nested too deep."""
        path = cls.path_for(record_path)
        try:
            with open(path, "rb") as stream:
                data = stream.read(MAX_SIDECAR_BYTES + 1)
        except FileNotFoundError:
            return cls()
        except OSError as exc:
            raise _sidecar_error(path, f"cannot read it: {exc.strerror or exc}") from None
        if len(data) > MAX_SIDECAR_BYTES:
            raise _sidecar_error(path, f"it is larger than {MAX_SIDECAR_BYTES // 1024} KiB, "
                                 "which tomis never writes there")
        try:
            facts = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise _sidecar_error(path, f"it is not JSON: {exc}") from None
        try:
            return cls._checked(facts)
        except MailError as exc:
            raise _sidecar_error(path, exc.message) from None

    @classmethod
    def _checked(cls, facts) -> Sidecar:
        if not isinstance(facts, dict):
            raise MailError("it holds no JSON object")
        to, in_reply_to = facts.get("to"), facts.get("in_reply_to")
        refs = facts.get("references", [])
        if to is not None:
            to = addresses(to, '"to"')
        if in_reply_to is not None:
            in_reply_to = _checked_id(in_reply_to, '"in_reply_to"')
        if not isinstance(refs, list):
            raise MailError(f'"references" {_clipped(refs)!r} is not a list of message ids')
        return cls(to or None, in_reply_to or None,
                   [_checked_id(ref, 'an id in "references"') for ref in refs])

    def save(self, record_path: str) -> None:
        from .util import safefile

        text = json.dumps({"to": self.to, "in_reply_to": self.in_reply_to,
                           "references": self.references}, indent=2) + "\n"
        safefile.atomic_write(self.path_for(record_path), text)


def _sidecar_error(path: str, why: str) -> FileError:
    error = FileError(f"what is remembered about this game's mail cannot be used: {why} "
                      "(delete the file, or mend it, and answer with --to ADDRESS)")
    error.path = path
    return error


# --------------------------------------------------------------------------- sending

@dataclass(frozen=True)
class SmtpSettings:
    host: str | None
    port: int
    user: str | None
    sender: str | None
    security: str               # one of SECURITY_MODES
    source: str                 # where they were read, for messages
    cafile: str | None = None   # the CA that vouches for the server, else the system's
    sendmail: str | None = None     # a local program to pipe the message to instead of SMTP

    @property
    def starttls(self) -> bool:
        return self.security == "starttls"


def config_path(env=None) -> str:
    return mailsettings.config_path(env)


def smtp_settings(env=None, *, security: str | None = None) -> SmtpSettings:
    """Settings from the config file, overridden by ``TOMIS_SMTP_*``; ``security`` (an
    explicit option) overrides both. A bad port, mode or yes/no value, or ``starttls``
    saying the opposite of ``security``, is a :class:`MailError` naming the file."""
    env = os.environ if env is None else env
    path = config_path(env)
    values = _config_values(path)
    if env.get(ENV["security"]) or env.get(ENV["starttls"]):
        # The environment speaks for TLS as a whole: a file's starttls = no does not
        # contradict TOMIS_SMTP_SECURITY=tls, it is overridden by it.
        values.pop("security", None)
        values.pop("starttls", None)
    for key, variable in ENV.items():
        if env.get(variable):
            values[key] = env[variable]
    try:
        mode = security or _security(values)
    except MailError as error:
        error.path = path
        raise
    port_text = values.get("port", str(DEFAULT_PORTS[mode]))
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise MailError(f"the SMTP port {port_text!r} is not a port number (1-65535)")
    user = values.get("user") or None
    sender = values.get("from") or (user if user and "@" in user else None)
    cafile = values.get("cafile") or None
    return SmtpSettings(values.get("host") or None, int(port_text), user, sender, mode, path,
                        os.path.expanduser(cafile) if cafile else None,
                        values.get("sendmail") or None)


def _security(values: dict[str, str]) -> str:
    """The mode from ``security =``, else the older ``starttls = yes|no``; both may be
    given only when they agree."""
    mode = values.get("security", "").lower() or None
    if mode is not None and mode not in SECURITY_MODES:
        raise MailError(f"security must be one of {', '.join(SECURITY_MODES)}, not "
                        f"{values['security']!r}")
    if "starttls" not in values or not values["starttls"]:
        return mode or "starttls"
    wants_starttls = _yes_no(values["starttls"], "starttls")
    if mode is None:
        return "starttls" if wants_starttls else "none"
    if wants_starttls != (mode == "starttls"):
        raise MailError(f"starttls = {values['starttls']} contradicts security = {mode}; "
                        "keep security alone")
    return mode


def _config_values(path: str) -> dict[str, str]:
    return mailsettings.section(path, "smtp", MailError, PASSWORD_ENV)


def _yes_no(value: str, name: str) -> bool:
    return mailsettings.yes_no(value, name, MailError)


def envelope(message: EmailMessage) -> tuple[str, list[str]]:
    """The sender and the recipients SMTP is told: From, and the message's own To and Cc.

    A message that names other recipients (Bcc, Resent-*), or holds From, To or Cc twice,
    is refused: tomis writes none of those, so sending it would send what someone else
    chose. Every address goes through :func:`address_pairs`, as when composing.
    """
    def headers(name: str) -> list[str]:
        try:
            return [str(value) for value in message.get_all(name, [])]
        except Exception:        # whatever the email package raises on a hostile header
            raise MailError(f"the {name} header cannot be read") from None

    names = [name.lower() for name in message.keys()]
    for name in FOREIGN_RECIPIENTS:
        if name in names:
            raise MailError(f"the message holds a {_title(name)} header, which tomis never "
                            "writes: nothing was sent")
    for name in ("from", "to", "cc"):
        if names.count(name) > 1:
            raise MailError(f"the message holds {names.count(name)} {_title(name)} headers, "
                            "where tomis writes one: nothing was sent")
    try:
        [sender] = headers("From") or [""]
        from_addr = address_pairs(sender, "the From header", single=True)[0][1]
        to_addrs = [addr for name in ("To", "Cc") for text in headers(name)
                    for _name, addr in address_pairs(text, f"the {name} header")]
    except MailError as error:
        raise MailError(f"{error.message}: nothing was sent") from None
    if not to_addrs:
        raise MailError("the message has no To: nothing was sent")
    return from_addr, to_addrs


def envelope_sender(address: str) -> str:
    """A bare address checked as :func:`address_pairs` checks a From header's."""
    [(_name, addr)] = address_pairs(address, "the envelope sender", single=True)
    if addr != address:
        raise MailError(f"the envelope sender is a bare address, not {address!r}")
    return addr


def _title(name: str) -> str:
    return "-".join(part.capitalize() for part in name.split("-"))


def send(message: EmailMessage, settings: SmtpSettings, password: str | None,
         sender: str | None = None) -> list[str]:
    """Hand ``message`` to the SMTP server, or to the ``sendmail`` program when one is
    set, addressed to :func:`envelope`'s recipients (returned); every failure is one
    :class:`MailError` line.

    ``sender`` replaces the envelope sender (the From address otherwise): where bounces
    go, for a program whose replies go to other addresses than its bounces.
    """
    from_addr, recipients = envelope(message)
    sender = from_addr if sender is None else envelope_sender(sender)
    if settings.sendmail:
        pipe_to_sendmail(message, settings.sendmail, sender, recipients)
        return recipients
    data = message_bytes(message)
    if not settings.host:
        raise MailError(f"no SMTP server: set {ENV['host']} or host = in [smtp] of "
                        f"{settings.source} (or sendmail = PATH to hand mail to a local program)")
    where = f"{settings.host}:{settings.port}"
    if settings.security == "none" and settings.user and not is_loopback(settings.host):
        # Refused before any connection: the password would cross the network in clear.
        raise MailError(f"security = none would send the password for {settings.user} to "
                        f"{where} in clear; use security = starttls (port 587) or tls (465)")
    context = _tls_context(settings)
    try:
        with _connect(settings, context) as smtp:
            smtp.ehlo()
            if settings.security == "starttls":
                smtp.starttls(context=context)
                smtp.ehlo()
            if settings.user:
                smtp.login(settings.user, password or "")
            # sendmail with an explicit envelope: send_message would read Bcc and
            # Resent-* headers itself.
            refused = smtp.sendmail(sender, recipients, data)
    except smtplib.SMTPNotSupportedError as exc:
        raise MailError(f"the SMTP server {where} does not offer "
                        f"{_what_unsupported(exc, settings.security)}") from None
    except smtplib.SMTPAuthenticationError as exc:
        raise MailError(f"the SMTP server {where} refused the user name or password for "
                        f"{settings.user}: {_answer(exc)}") from None
    except smtplib.SMTPRecipientsRefused as exc:
        raise MailError(f"the SMTP server {where} refused every recipient: "
                        f"{_refusals(exc.recipients)}") from None
    except smtplib.SMTPResponseException as exc:
        raise MailError(f"the SMTP server {where} answered {_answer(exc)}") from None
    except smtplib.SMTPServerDisconnected as exc:
        raise MailError(f"the SMTP server {where} closed the connection: {exc}") from None
    except ConnectionRefusedError:
        raise MailError(f"nothing answers at {where} (connection refused)") from None
    except ssl.SSLCertVerificationError as exc:
        raise MailError(f"the SMTP server {where} has a certificate tomis cannot trust "
                        f"({exc.verify_message or exc.reason}); if it is your own server, give "
                        f"its CA file with {ENV['cafile']} or cafile = in [smtp]") from None
    except ssl.SSLError as exc:
        raise MailError(f"TLS with {where} failed ({exc.reason or exc}); "
                        f"{_tls_advice(settings)}") from None
    except TimeoutError:
        raise MailError(f"the SMTP server {where} did not answer within {SMTP_TIMEOUT:g} s; "
                        f"{_tls_advice(settings)}") from None
    except (OSError, smtplib.SMTPException) as exc:
        raise MailError(f"cannot talk to the SMTP server {where}: {exc}") from None
    if refused:
        raise MailError(f"the SMTP server {where} refused some recipients: {_refusals(refused)}")
    return recipients


def _connect(settings: SmtpSettings, context: ssl.SSLContext) -> smtplib.SMTP:
    if settings.security == "tls":
        return smtplib.SMTP_SSL(settings.host, settings.port, timeout=SMTP_TIMEOUT,
                                context=context)
    return smtplib.SMTP(settings.host, settings.port, timeout=SMTP_TIMEOUT)


def _tls_context(settings: SmtpSettings) -> ssl.SSLContext:
    if settings.cafile is not None and not os.path.isfile(settings.cafile):
        raise MailError(f"no CA file {settings.cafile} ({ENV['cafile']} or cafile = in [smtp] "
                        f"of {settings.source})")
    try:
        return ssl.create_default_context(cafile=settings.cafile)
    except (ssl.SSLError, OSError) as exc:
        raise MailError(f"the CA file {settings.cafile} holds no certificate tomis can read: "
                        f"{getattr(exc, 'reason', None) or exc}") from None


def _tls_advice(settings: SmtpSettings) -> str:
    """What usually fixes a TLS mismatch: each mode has its usual port."""
    if settings.security == "tls":
        return "security = tls speaks TLS from the first byte (port 465); for port 587 use security = starttls"
    if settings.security == "starttls":
        return "security = starttls is for port 587; for port 465 use security = tls"
    return "security = none is only for a server on this machine; use starttls (587) or tls (465)"


def is_loopback(host: str) -> bool:
    """Is ``host`` this machine, by its literal name or address (no name is looked up)?"""
    import ipaddress

    if host.lower() in ("localhost", "localhost.localdomain"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def pipe_to_sendmail(message: EmailMessage, program: str, sender: str,
                     recipients: list[str]) -> None:
    """``PROGRAM -i -f SENDER -- RECIPIENT...`` with the message on its stdin: the form
    sendmail, msmtp and postfix's sendmail all take. Never ``-t``, which would take the
    recipients from the headers (a Bcc: among them)."""
    import subprocess

    # A local program reads Unix line ends; the header checks of message_bytes hold for
    # the CRLF form, and only the line ends differ.
    data = message_bytes(message).replace(b"\r\n", b"\n")
    try:
        done = subprocess.run([program, "-i", "-f", sender, "--", *recipients], input=data,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=SENDMAIL_TIMEOUT, check=False)
    except FileNotFoundError:
        raise MailError(f"no program {program} ({ENV['sendmail']} or sendmail = in "
                        "[smtp])") from None
    except PermissionError:
        raise MailError(f"{program} cannot be run (permission denied)") from None
    except subprocess.TimeoutExpired:
        raise MailError(f"{program} did not finish within {SENDMAIL_TIMEOUT:g} s") from None
    except OSError as exc:
        raise MailError(f"cannot run {program}: {exc.strerror or exc}") from None
    if done.returncode != 0:
        said = _program_said(done.stderr or done.stdout)
        raise MailError(f"{program} exited with status {done.returncode}" +
                        (f": {said}" if said else ""))


def _program_said(output: bytes) -> str:
    """A program's complaint, one printable line, bounded (it may say anything)."""
    text = " ".join(output.decode("utf-8", "replace").split())
    return one_line(text[:300] + ("..." if len(text) > 300 else ""))


def _answer(exc) -> str:
    text = exc.smtp_error
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return f"{exc.smtp_code} {' '.join(str(text).split())}"


def _refusals(recipients: dict) -> str:
    parts = []
    for address, (code, text) in recipients.items():
        if isinstance(text, bytes):
            text = text.decode("utf-8", "replace")
        parts.append(f"{address} ({code} {' '.join(str(text).split())})")
    return ", ".join(parts)


def _what_unsupported(exc, security: str) -> str:
    text = str(exc).lower()
    if "starttls" in text:
        return ("STARTTLS; if it speaks TLS from the first byte (port 465) use security = tls; "
                "security = none only for a server on this machine")
    if "auth" in text:
        if security == "none":
            return ("AUTH without TLS, as most servers do; use security = starttls (port 587) "
                    "or tls (port 465)")
        return "AUTH, so it cannot check the user name; unset the user if it needs none"
    return str(exc)
