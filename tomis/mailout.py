"""Mail going out: a ready-to-send message for a move, the address book of a game, SMTP.

A layer above :mod:`tomis.record`, :mod:`tomis.render` and :mod:`tomis.mail`, below the
CLI; it prints and prompts nothing (the password comes in as an argument). Messages are
built with :class:`email.message.EmailMessage` and sent with
:meth:`smtplib.SMTP.send_message`.

- :func:`compose`: subject ``Tomis: Ana vs Bo — action 3 (G@b1)``, the board and the
  record in the text body, the record attached as a ``.tgn`` file, ``In-Reply-To`` and
  ``References`` when the record came from a message.
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

import json
import os
import re
import smtplib
import ssl
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import format_datetime, localtime, make_msgid

from . import mailsettings
from .errors import FileError, TomisError

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

    A control character in a name is shown escaped (``\\x1d``): a header is one line.
    """
    from .errors import one_line

    white, black = (one_line(name) for name in players(game))
    if not game.nodes:
        return f"Tomis: {white} vs {black} — new game"
    return f"Tomis: {white} vs {black} — action {len(game.nodes)} ({game.nodes[-1].action})"


def body_text(game, record_text: str) -> str:
    """What the opponent reads: the last action and its combat, the board, the clocks and
    an open draw offer, the Digest, the record. Plain ASCII: it survives every mail client."""
    from . import digest, render

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
    from . import clock, correspondence
    from .board import SIDE_TITLES

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
    from .board import SIDE_TITLES

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

    Raises :class:`MailError` when ``sender`` is not one address or ``to`` not a list of
    addresses (``Name <local@domain>`` or ``local@domain``).
    """
    message = EmailMessage()
    message["From"] = addresses(sender, "the sender", single=True)
    message["To"] = addresses(to, "the address to send to")
    message["Subject"] = subject(game)
    message["Date"] = format_datetime(date or localtime())
    message["Message-ID"] = make_msgid(domain=_domain(sender))
    if in_reply_to:
        message["In-Reply-To"] = in_reply_to
        thread = [ref for ref in references if ref != in_reply_to] + [in_reply_to]
        message["References"] = " ".join(thread)
    message["X-Mailer"] = MAILER
    body = body_text(game, record_text)
    message.set_content(body, cte=_transfer_encoding(body))
    message.add_attachment(record_text, subtype="plain", filename=attachment_name,
                           cte=_transfer_encoding(record_text))
    return message


def _transfer_encoding(text: str) -> str:
    """7bit for ASCII; quoted-printable for accented names, so the message stays 7-bit
    (the email package would choose raw 8bit, which a server may refuse)."""
    return "7bit" if text.isascii() else "quoted-printable"


_ADDR_SPEC = re.compile(r"[^@\s<>()\[\],;:\"]+@[^@\s<>()\[\],;:\"]+")


def addresses(text: str, what: str, single: bool = False) -> str:
    """``text`` as a header value of mail addresses, each checked; a MailError names the
    one that is not an address (a line break never reaches a header)."""
    from email.utils import formataddr, getaddresses

    shown = " ".join(text.split())
    pairs = getaddresses([shown]) if not any(c in text for c in "\r\n") else [("", "")]
    # An address must be ASCII: a non-ASCII one needs SMTPUTF8, which tomis does not speak
    # (and the email package refuses to write it); a display name may be anything.
    if not pairs or (single and len(pairs) > 1) or not all(
            addr.isascii() and _ADDR_SPEC.fullmatch(addr) for _name, addr in pairs):
        raise MailError(f"{what} {text!r} is not {'a mail address' if single else 'a list of mail addresses'} "
                        "like Ana <ana@example.org>")
    return ", ".join(formataddr(pair) for pair in pairs)


def _domain(address: str) -> str | None:
    from email.headerregistry import Address
    from email.utils import parseaddr

    addr = parseaddr(address)[1]
    try:
        return Address(addr_spec=addr).domain or None
    except (ValueError, IndexError, TypeError):
        return None


def attachment_name(record_path: str) -> str:
    """The record's own file name when it is a .tgn file, else ``game.tgn``."""
    base = os.path.basename(record_path)
    return base if base.lower().endswith(".tgn") and base.isprintable() else "game.tgn"


def message_bytes(message: EmailMessage) -> bytes:
    """The message as a mail program saves it (``.eml``), CRLF line ends as on the wire."""
    return message.as_bytes(policy=message.policy.clone(linesep="\r\n"))


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
        """The remembered facts; an absent file is an empty sidecar, a broken one an error."""
        path = cls.path_for(record_path)
        try:
            with open(path, encoding="utf-8") as stream:
                data = json.load(stream)
        except FileNotFoundError:
            return cls()
        except (OSError, ValueError) as exc:
            error = FileError(f"cannot read what was remembered about this game's mail: {exc}")
            error.path = path
            raise error from None
        if not isinstance(data, dict):
            data = {}
        refs = data.get("references")
        return cls(_text(data.get("to")), _text(data.get("in_reply_to")),
                   [r for r in refs if isinstance(r, str)] if isinstance(refs, list) else [])

    def save(self, record_path: str) -> None:
        from . import safefile

        text = json.dumps({"to": self.to, "in_reply_to": self.in_reply_to,
                           "references": self.references}, indent=2) + "\n"
        safefile.atomic_write(self.path_for(record_path), text)


def _text(value) -> str | None:
    return value if isinstance(value, str) and value else None


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


def send(message: EmailMessage, settings: SmtpSettings, password: str | None) -> None:
    """Hand ``message`` to the SMTP server, or to the ``sendmail`` program when one is
    set; every failure is one :class:`MailError` line."""
    if settings.sendmail:
        pipe_to_sendmail(message, settings.sendmail)
        return
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
            refused = smtp.send_message(message)
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


def envelope(message: EmailMessage) -> tuple[str, list[str]]:
    """The envelope sender (From's address) and recipients (every To and Cc address)."""
    from email.utils import getaddresses, parseaddr

    sender = parseaddr(str(message["From"]))[1]
    recipients = [addr for _name, addr in getaddresses(
        [str(value) for name in ("To", "Cc") for value in message.get_all(name, [])]) if addr]
    return sender, recipients


def pipe_to_sendmail(message: EmailMessage, program: str) -> None:
    """``PROGRAM -i -f SENDER -- RECIPIENT...`` with the message on its stdin: the form
    sendmail, msmtp and postfix's sendmail all take. Never ``-t``, which would take the
    recipients from the headers (a Bcc: among them)."""
    import subprocess

    sender, recipients = envelope(message)
    if not sender or not recipients:
        raise MailError("the message has no sender or no recipient address")
    data = message.as_bytes(policy=message.policy.clone(linesep="\n"))
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
    from .errors import one_line

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
