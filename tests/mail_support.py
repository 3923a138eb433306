"""What tests/test_mail.py and tests/test_mail_send.py share: the corpus, and running the
CLI with an environment (the SMTP settings live in environment variables).

Not a test module (no test_ prefix); pytest puts tests/ on sys.path, so both import it.
"""

from __future__ import annotations

from pathlib import Path

from conftest import cli_runner

MAIL = Path(__file__).resolve().parent / "data" / "mail"
RECORDS = MAIL / "records"


def run(*args, env=None, input=None):
    """``tomis ARGS`` in process, with ``env`` added to the environment (None unsets)."""
    from tomis.cli import cli

    return cli_runner().invoke(cli, [str(a) for a in args], env=env, input=input,
                               catch_exceptions=False)


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
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


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
