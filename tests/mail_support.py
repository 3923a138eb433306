"""What the mail tests share: the corpus, running the CLI with an environment (the SMTP
settings live in environment variables), and a real SMTP server (aiosmtpd) on 127.0.0.1
that keeps every envelope it receives.

Not a test module (no test_ prefix); pytest puts tests/ on sys.path, so both import it.
"""

from __future__ import annotations

import mailbox
import os
import socket
from pathlib import Path

import pytest
from conftest import cli_runner

MAIL = Path(__file__).resolve().parent / "data" / "mail"
RECORDS = MAIL / "records"
USER, PASSWORD = "ana", "s3cret-Tomis"


def run(*args, env=None, input=None):
    """``tomis ARGS`` in process, with ``env`` added to the environment (None unsets)."""
    from tomis.cli import cli

    return cli_runner().invoke(cli, [str(a) for a in args], env=env, input=input,
                               catch_exceptions=False)


class Inbox:
    """An aiosmtpd handler that keeps what it receives, or refuses it with ``answer``."""

    def __init__(self, answer: str | None = None):
        self.envelopes = []
        self.answer = answer

    async def handle_DATA(self, server, session, envelope):
        if self.answer:
            return self.answer
        self.envelopes.append(envelope)
        return "250 OK: queued"


# --------------------------------------------------------------------------- mailboxes

def letter(number: int, sender: str, record: str) -> bytes:
    """A plain reply from ``sender`` holding ``record``, as a mail client saves it."""
    return (f"From: {sender}\nTo: Bo <bo@example.org>\nSubject: Re: Club ladder\n"
            f"Message-ID: <m{number}@example.org>\n"
            f"Date: Mon, 23 Nov 2026 1{number}:00:00 +0000\nMIME-Version: 1.0\n"
            "Content-Type: text/plain; charset=utf-8\n\nYour turn.\n\n" + record).encode("utf-8")


def make_mbox(path: Path, messages: list[bytes]) -> Path:
    box = mailbox.mbox(path)
    for data in messages:
        box.add(data)
    box.flush()
    box.close()
    return path


def make_maildir(path: Path, messages: list[bytes]) -> Path:
    box = mailbox.Maildir(path, create=True)
    for number, data in enumerate(messages, 1):
        # Keys that sort in delivery order, as a delivery agent's time-based names do.
        key = box.add(data)
        os.rename(path / "new" / key, path / "new" / f"17000000{number:02d}.M1P1.host")
    return path


# --------------------------------------------------------------------------- TLS for test servers

def make_ca(folder: Path, name: str = "Tomis test CA") -> Path:
    """A throw-away certificate authority in ``folder`` (``ca.pem``, ``ca.key``), made with
    the openssl program; servers get certificates from :func:`make_server_cert`."""
    import subprocess

    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", f"/CN={name}", "-keyout", folder / "ca.key", "-out", folder / "ca.pem",
                    "-addext", "basicConstraints=critical,CA:TRUE",
                    "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
                   check=True, capture_output=True)
    return folder / "ca.pem"


def certificates_in(folder: Path) -> tuple[Path, Path, Path]:
    """(CA file, server certificate, its key) made afresh in ``folder``."""
    ca = make_ca(folder)
    return (ca, *make_server_cert(ca, folder))


@pytest.fixture(scope="module")
def certificates(tmp_path_factory):
    """(CA file, server certificate, key) for a module's TLS servers: made once, as RSA
    keys take a while."""
    return certificates_in(tmp_path_factory.mktemp("ca"))


def make_server_cert(ca: Path, folder: Path) -> tuple[Path, Path]:
    """(certificate, key) for 127.0.0.1 and localhost, signed by the CA at ``ca``."""
    import subprocess

    key, request, cert = folder / "server.key", folder / "server.csr", folder / "server.pem"
    extensions = folder / "server.ext"
    extensions.write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n"
                          "extendedKeyUsage=serverAuth\n", encoding="ascii")
    subprocess.run(["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
                    "-keyout", key, "-out", request], check=True, capture_output=True)
    subprocess.run(["openssl", "x509", "-req", "-in", request, "-CA", ca,
                    "-CAkey", ca.with_suffix(".key"), "-CAcreateserial", "-days", "2",
                    "-extfile", extensions, "-out", cert], check=True, capture_output=True)
    return cert, key


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def check_password(server, session, envelope, mechanism, auth_data):
    from aiosmtpd.smtp import AuthResult, LoginPassword

    ok = (isinstance(auth_data, LoginPassword)
          and auth_data.login == USER.encode() and auth_data.password == PASSWORD.encode())
    # handled=False: aiosmtpd then answers 535 itself (its default waits for us to answer).
    return AuthResult(success=ok, handled=False)


def started_smtp(controller_module, started: list, handler, **options) -> int:
    """An aiosmtpd server for ``handler`` on a free port of 127.0.0.1, appended to
    ``started`` for the fixture to stop; its port."""
    port = free_port()
    controller = controller_module.Controller(handler, hostname="127.0.0.1", port=port, **options)
    controller.start()
    started.append(controller)
    return port


@pytest.fixture
def server():
    """Start a server; yields a function (answer=None, auth=False) -> (inbox, port)."""
    controller_module = pytest.importorskip("aiosmtpd.controller")
    started = []

    def start(answer=None, auth=False):
        inbox = Inbox(answer)
        options = {"authenticator": check_password, "auth_require_tls": False,
                   "auth_required": True} if auth else {}
        return inbox, started_smtp(controller_module, started, inbox, **options)

    yield start
    for controller in started:
        controller.stop()


def environment(port: int, user: str | None = None, password: str | None = None,
                starttls: str = "no") -> dict:
    """The SMTP settings for the test server at ``port``; STARTTLS off unless told."""
    env = {"TOMIS_SMTP_HOST": "127.0.0.1", "TOMIS_SMTP_PORT": str(port),
           "TOMIS_SMTP_FROM": "Ana Lee <ana@example.org>", "TOMIS_SMTP_STARTTLS": starttls,
           "TOMIS_MAIL_CONFIG": "/nonexistent/mail.ini",
           "TOMIS_SMTP_USER": user, "TOMIS_SMTP_PASSWORD": password}
    return env


def wait_for_port(port: int, process=None, tries: int = 300) -> None:
    """Until something accepts on 127.0.0.1:``port`` (a server starting), or fail saying why."""
    import socket
    import time

    for _ in range(tries):
        if process is not None and process.poll() is not None:
            raise AssertionError(f"the server exited with {process.returncode} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"nothing listens on 127.0.0.1:{port}")
