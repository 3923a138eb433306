"""Sending a message: SMTP settings and a server, or a local sendmail program.

:func:`smtp_settings` reads host, port, user, sender, security (``starttls``, ``tls`` or
``none``), a CA file and a ``sendmail`` program from ``TOMIS_SMTP_*`` variables over the
mail settings file (:mod:`tomis.mail.settings`; docs/MAIL.md). :func:`send` hands the
message over, addressed to the envelope of its own ``To`` and ``Cc`` and no other
(:func:`envelope`). The password is ``TOMIS_SMTP_PASSWORD`` or the CLI's prompt, never a
setting in a file, never a command-line argument, never written anywhere; a program that
runs unattended (the referee) reads it from the file ``password_file =`` names, which only
its owner may read (:func:`file_password`, the one reading of such a file). Every failure is
one :class:`~tomis.errors.MailError` line; nothing here prints or prompts. A failure that
sending again cannot mend (the server's 5xx answer to the message's sender, recipients or
content; a sendmail program's permanent exit status) is a :class:`RefusedForGood`.
"""

from __future__ import annotations

import ipaddress
import os
import signal
import smtplib
import ssl
import stat
import subprocess
from dataclasses import dataclass
from email.message import EmailMessage
from email.parser import BytesHeaderParser

from ..errors import MailError, one_line
from ..mail import settings as mailsettings
from .headers import POLICY, address_pairs, message_bytes


SECURITY_MODES = ("starttls", "tls", "none")
# Submission with STARTTLS, submission over TLS from the first byte (RFC 8314), plain SMTP.
DEFAULT_PORTS = {"starttls": 587, "tls": 465, "none": 25}
SMTP_TIMEOUT = 30.0
SENDMAIL_TIMEOUT = 60.0
KILLED_PROGRAM_WAIT = 5.0      # for the output of a program killed at its timeout
ENV = {"host": "TOMIS_SMTP_HOST", "port": "TOMIS_SMTP_PORT", "user": "TOMIS_SMTP_USER",
       "from": "TOMIS_SMTP_FROM", "starttls": "TOMIS_SMTP_STARTTLS",
       "security": "TOMIS_SMTP_SECURITY", "cafile": "TOMIS_SMTP_CAFILE",
       "sendmail": "TOMIS_SMTP_SENDMAIL"}
PASSWORD_ENV = "TOMIS_SMTP_PASSWORD"
# sysexits.h codes a sendmail program ends with when this message can never go as it is:
# EX_USAGE 64 (it refused its command line: the addresses), EX_DATAERR 65 (the message),
# EX_NOUSER 67, EX_NOHOST 68 (the recipient), EX_NOPERM 77 (not allowed to send it). Every
# other status (EX_UNAVAILABLE 69, EX_SOFTWARE 70, EX_OSERR 71, EX_OSFILE 72, EX_CANTCREAT
# 73, EX_IOERR 74, EX_TEMPFAIL 75, 1 and the rest) may pass once the program or host is
# mended, so it is worth another try.
PERMANENT_EXITS = frozenset({64, 65, 67, 68, 77})


class RefusedForGood(MailError):
    """The server or program refused this very message (a 5xx answer to its sender,
    recipients or content, or a permanent exit status): sending it again would be refused
    again. A refused connection, a 4xx answer, a password or TLS problem are not this."""


# Headers that choose recipients besides To and Cc; tomis never writes them, and a
# message holding one is not sent (smtplib would deliver to a Bcc).
FOREIGN_RECIPIENTS = ("bcc", "resent-to", "resent-cc", "resent-bcc", "resent-from",
                      "resent-sender")
CONFIG_ENV = mailsettings.CONFIG_ENV


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
    password_file: str | None = None    # the owner-only file an unattended sender reads

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
                        values.get("sendmail") or None, _beside(path, values.get("password_file")))


def _beside(config: str, named: str | None) -> str | None:
    """A file the settings file names, read from the settings file's folder when relative."""
    if not named:
        return None
    return os.path.join(os.path.dirname(os.path.abspath(config)), os.path.expanduser(named))


def file_password(settings: SmtpSettings) -> str:
    """The first line of the file ``password_file =`` names in ``[smtp]`` (beside the
    settings file when relative): the password of a sender with no one at a terminal.

    The one policy for such a file: only its owner may read or write it (``chmod 600``),
    else it is not read. Every fault is one :class:`MailError` line.
    """
    path = settings.password_file
    if path is None:
        raise MailError(f"{settings.source} names a user but no password_file = in [smtp]")
    try:
        if os.stat(path).st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise MailError(f"the password file {path} may be read by others: chmod 600 it")
        with open(path, encoding="utf-8") as stream:
            return stream.readline().rstrip("\r\n")
    except OSError as error:
        raise MailError(f"cannot read the password file {path}: {error.strerror}") from None


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


def _headers_of(message: EmailMessage | bytes) -> EmailMessage:
    """What :func:`envelope` reads: the message, or the headers of written bytes (the
    body is not parsed again)."""
    if isinstance(message, bytes):
        return BytesHeaderParser(policy=POLICY).parsebytes(message)
    return message


def _bytes_of(message: EmailMessage | bytes) -> bytes:
    """The bytes to send: written and read back by :func:`message_bytes`, once."""
    return message if isinstance(message, bytes) else message_bytes(message)


def envelope_sender(address: str) -> str:
    """A bare address checked as :func:`address_pairs` checks a From header's."""
    [(_name, addr)] = address_pairs(address, "the envelope sender", single=True)
    if addr != address:
        raise MailError(f"the envelope sender is a bare address, not {address!r}")
    return addr


def _title(name: str) -> str:
    return "-".join(part.capitalize() for part in name.split("-"))


def send(message: EmailMessage | bytes, settings: SmtpSettings, password: str | None,
         sender: str | None = None, timeout: float = SMTP_TIMEOUT) -> list[str]:
    """Hand ``message`` to the SMTP server, or to the ``sendmail`` program when one is
    set, addressed to :func:`envelope`'s recipients (returned); every failure is one
    :class:`MailError` line. ``message`` may be the bytes :func:`message_bytes` wrote
    (a queue keeps those): they are sent as they are, not written again.

    ``sender`` replaces the envelope sender (the From address otherwise): where bounces
    go, for a program whose replies go to other addresses than its bounces. ``timeout``
    bounds each wait on the server (the connection included), in seconds.
    """
    from_addr, recipients = envelope(_headers_of(message))
    sender = from_addr if sender is None else envelope_sender(sender)
    send_bytes(_bytes_of(message), settings, password, sender, recipients, timeout)
    return recipients


def send_bytes(data: bytes, settings: SmtpSettings, password: str | None, sender: str,
               recipients: list[str], timeout: float = SMTP_TIMEOUT) -> None:
    """Hand the bytes of a message already written and checked (:func:`message_bytes`,
    :func:`envelope`) to the SMTP server or the ``sendmail`` program, as they are: for a
    queue that stores each message once and sends it later. Failures as :func:`send`."""
    if settings.sendmail:
        pipe_bytes_to_sendmail(data, settings.sendmail, sender, recipients)
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
        with _connect(settings, context, timeout) as smtp:
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
        for_good = all(code >= 500 for code, _text in exc.recipients.values())
        raise _refused(for_good)(f"the SMTP server {where} refused every recipient: "
                                 f"{_refusals(exc.recipients)}") from None
    except (smtplib.SMTPSenderRefused, smtplib.SMTPDataError) as exc:
        raise _refused(exc.smtp_code >= 500)(
            f"the SMTP server {where} answered {_answer(exc)}") from None
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
        raise MailError(f"the SMTP server {where} did not answer within {timeout:g} s; "
                        f"{_tls_advice(settings)}") from None
    except (OSError, smtplib.SMTPException) as exc:
        raise MailError(f"cannot talk to the SMTP server {where}: {exc}") from None
    if refused:
        raise MailError(f"the SMTP server {where} refused some recipients: {_refusals(refused)}")


def _refused(for_good: bool) -> type[MailError]:
    """The error class for an answer to the message itself: 5xx is for good."""
    return RefusedForGood if for_good else MailError


def _connect(settings: SmtpSettings, context: ssl.SSLContext, timeout: float) -> smtplib.SMTP:
    if settings.security == "tls":
        return smtplib.SMTP_SSL(settings.host, settings.port, timeout=timeout, context=context)
    return smtplib.SMTP(settings.host, settings.port, timeout=timeout)


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
    if host.lower() in ("localhost", "localhost.localdomain"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def pipe_to_sendmail(message: EmailMessage | bytes, program: str, sender: str,
                     recipients: list[str]) -> None:
    """``PROGRAM -i -f SENDER -- RECIPIENT...`` with the message on its stdin: the form
    sendmail, msmtp and postfix's sendmail all take. Never ``-t``, which would take the
    recipients from the headers (a Bcc: among them). A permanent exit status
    (:data:`PERMANENT_EXITS`) is a :class:`RefusedForGood`."""
    pipe_bytes_to_sendmail(_bytes_of(message), program, sender, recipients)


def pipe_bytes_to_sendmail(data: bytes, program: str, sender: str,
                           recipients: list[str], timeout: float = SENDMAIL_TIMEOUT) -> None:
    """:func:`pipe_to_sendmail` for the bytes of a message already written and checked
    (:func:`message_bytes`). A program that has not finished within ``timeout`` seconds is
    ended with every process it started (see :func:`_run_program`)."""
    # A local program reads Unix line ends; the header checks of message_bytes hold for
    # the CRLF form, and only the line ends differ.
    data = data.replace(b"\r\n", b"\n")
    try:
        done = _run_program([program, "-i", "-f", sender, "--", *recipients], data, timeout)
    except FileNotFoundError:
        raise MailError(f"no program {program} ({ENV['sendmail']} or sendmail = in "
                        "[smtp])") from None
    except PermissionError:
        raise MailError(f"{program} cannot be run (permission denied)") from None
    except subprocess.TimeoutExpired as late:
        said = _program_said(late.stderr or late.output or b"")
        raise MailError(f"{program} did not finish within {timeout:g} s" +
                        (f": {said}" if said else "")) from None
    except OSError as exc:
        raise MailError(f"cannot run {program}: {exc.strerror or exc}") from None
    if done.returncode != 0:
        said = _program_said(done.stderr or done.stdout)
        failure = _refused(done.returncode in PERMANENT_EXITS)
        raise failure(f"{program} exited with status {done.returncode}" +
                      (f": {said}" if said else ""))


def _run_program(command: list[str], data: bytes, timeout: float) -> subprocess.CompletedProcess:
    """``command`` with ``data`` on its stdin, in a session of its own. Postfix's sendmail
    hands the message to its setgid ``postdrop``; where the setgid bit is not honoured
    (systemd's ``NoNewPrivileges``), postdrop retries for ever, and killing sendmail alone
    would leave it looping. So on a timeout the whole process group goes, and what the
    program wrote to stderr travels with the :class:`subprocess.TimeoutExpired`."""
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, start_new_session=True) as process:
        try:
            stdout, stderr = process.communicate(data, timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(process.pid)
            stdout, stderr = _what_is_left(process)
            raise subprocess.TimeoutExpired(command, timeout, stdout, stderr) from None
        except BaseException:
            _kill_group(process.pid)
            raise
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def _what_is_left(process: subprocess.Popen) -> tuple[bytes, bytes]:
    """What a killed program had written. Its pipes close once every process of its group
    has gone; one that left the group and holds them is not waited for long."""
    try:
        return process.communicate(timeout=KILLED_PROGRAM_WAIT)
    except subprocess.TimeoutExpired:
        return b"", b""


def _kill_group(leader: int) -> None:
    try:
        os.killpg(leader, signal.SIGKILL)
    except ProcessLookupError:          # it ended on its own meanwhile
        pass


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
