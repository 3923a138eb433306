"""How the message leaves: STARTTLS on 587, TLS from the first byte on 465, none, the CA
file, and a local sendmail program. Real servers (aiosmtpd on 127.0.0.1 with a certificate
from a CA made in the test) and a real program (a small fake sendmail the test writes).
"""

from __future__ import annotations

import json
import ssl
import sys
from pathlib import Path

import pytest
from mail_support import (  # noqa: F401 (certificates is a fixture)
    PASSWORD, RECORDS, USER, Inbox, certificates, check_password, make_ca, run,
    started_smtp,
)

aiosmtpd_controller = pytest.importorskip("aiosmtpd.controller")

# The 465 server takes AUTH over its TLS, which aiosmtpd does not count as "TLS required".
pytestmark = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")

NEVER_CONTACTED = "192.0.2.25"      # TEST-NET-1 (RFC 5737): no host there ever answers


@pytest.fixture
def server(certificates):
    """start(mode) -> (inbox, port): "starttls" offers STARTTLS and requires it before AUTH
    (as port 587 does), "tls" speaks TLS from the first byte (as port 465 does)."""
    ca, cert, key = certificates
    started = []

    def start(mode: str):
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert, key)
        inbox = Inbox()
        options = {"authenticator": check_password, "auth_required": True}
        if mode == "starttls":
            options.update(tls_context=context, require_starttls=True)
        else:
            options.update(ssl_context=context, auth_require_tls=False)
        return inbox, started_smtp(aiosmtpd_controller, started, inbox, **options)

    yield start
    for controller in started:
        controller.stop()


def environment(port: int | None = None, **settings) -> dict:
    env = {"TOMIS_SMTP_HOST": "127.0.0.1", "TOMIS_SMTP_PORT": str(port) if port else None,
           "TOMIS_SMTP_FROM": "Ana Lee <ana@example.org>", "TOMIS_SMTP_USER": USER,
           "TOMIS_SMTP_PASSWORD": PASSWORD, "TOMIS_MAIL_CONFIG": "/nonexistent/mail.ini",
           "TOMIS_SMTP_STARTTLS": None, "TOMIS_SMTP_SECURITY": None, "TOMIS_SMTP_CAFILE": None,
           "TOMIS_SMTP_SENDMAIL": None}
    env.update({f"TOMIS_SMTP_{name.upper()}": value for name, value in settings.items()})
    return env


def game_file(tmp_path: Path) -> Path:
    path = tmp_path / "ladder.tgn"
    path.write_bytes((RECORDS / "ladder-1.tgn").read_bytes())
    return path


def move(tmp_path: Path, env: dict):
    return run("move", game_file(tmp_path), "B@d8", "--to", "bo@example.net", "--send", env=env)


def test_587_starttls_with_the_ca_file_from_the_environment(server, certificates, tmp_path):
    inbox, port = server("starttls")
    result = move(tmp_path, environment(port, security="starttls", cafile=str(certificates[0])))
    assert result.exit_code == 0, result.stderr
    [envelope] = inbox.envelopes
    assert envelope.rcpt_tos == ["bo@example.net"]
    assert b"1. B@e1 B@d8 *" in envelope.content


def test_465_tls_from_the_first_byte_with_the_ca_file_from_the_settings_file(
        server, certificates, tmp_path):
    inbox, port = server("tls")
    config = tmp_path / "mail.ini"
    config.write_text(f"[smtp]\nhost = 127.0.0.1\nport = {port}\nsecurity = tls\n"
                      f"cafile = {certificates[0]}\nfrom = ana@example.org\nuser = {USER}\n",
                      encoding="utf-8")
    env = {"TOMIS_MAIL_CONFIG": str(config), "TOMIS_SMTP_PASSWORD": PASSWORD,
           **{f"TOMIS_SMTP_{name}": None for name in
              ("HOST", "PORT", "USER", "FROM", "STARTTLS", "SECURITY", "CAFILE", "SENDMAIL")}}
    result = move(tmp_path, env)
    assert result.exit_code == 0, result.stderr
    [envelope] = inbox.envelopes
    assert envelope.mail_from == "ana@example.org"


def test_a_server_certificate_from_another_ca_is_refused(server, tmp_path):
    inbox, port = server("tls")
    stranger = make_ca(tmp_path / "other", "Some other CA")
    result = move(tmp_path, environment(port, security="tls", cafile=str(stranger)))
    assert result.exit_code == 1
    last = result.stderr.splitlines()[-1]
    assert (f"the message was not sent: the SMTP server 127.0.0.1:{port} has a certificate "
            "tomis cannot trust (") in last
    assert "TOMIS_SMTP_CAFILE" in last
    assert inbox.envelopes == []


def test_tls_to_a_port_that_wants_starttls_says_which_mode_fits(server, certificates, tmp_path):
    _inbox, port = server("starttls")
    result = move(tmp_path, environment(port, security="tls", cafile=str(certificates[0])))
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1].endswith(
        "security = tls speaks TLS from the first byte (port 465); for port 587 use "
        f"security = starttls -- once that is fixed: tomis send {tmp_path / 'ladder.tgn'}")


def test_none_refuses_to_send_a_password_to_another_machine_before_connecting(tmp_path):
    game = game_file(tmp_path)
    env = environment(25, security="none", host=NEVER_CONTACTED)
    result = run("move", game, "B@d8", "--to", "bo@example.net", "--send", env=env)
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] == (
        f"{game}: the move is saved, but the message was not sent: security = none would send "
        f"the password for {USER} to {NEVER_CONTACTED}:25 in clear; use security = starttls "
        f"(port 587) or tls (465) -- once that is fixed: tomis send {game}")


def test_each_mode_has_its_default_port():
    from tomis import outgoing

    ports = {mode: outgoing.smtp_settings(environment(security=mode)).port
             for mode in ("starttls", "tls", "none")}
    assert ports == {"starttls": 587, "tls": 465, "none": 25}
    assert outgoing.smtp_settings(environment(starttls="no")).security == "none"


def test_starttls_contradicting_security_is_a_one_line_error(tmp_path):
    config = tmp_path / "mail.ini"
    config.write_text("[smtp]\nhost = 127.0.0.1\nfrom = ana@example.org\nsecurity = tls\n"
                      "starttls = yes\n", encoding="utf-8")
    game = game_file(tmp_path)
    before = game.read_bytes()
    env = {"TOMIS_MAIL_CONFIG": str(config), "TOMIS_SMTP_SECURITY": None,
           "TOMIS_SMTP_STARTTLS": None, "TOMIS_SMTP_FROM": None}
    result = run("move", game, "B@d8", "--to", "bo@example.net", "--send", env=env)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"{config}: starttls = yes contradicts security = tls; keep security alone"]
    assert game.read_bytes() == before


def test_no_sender_is_one_line_without_a_usage_block(tmp_path):
    game = game_file(tmp_path)
    result = run("move", game, "B@d8", "--to", "bo@example.net", "--send",
                 env=environment(587, **{"from": None}))
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"{game}: no sender address for --mail/--send: set TOMIS_SMTP_FROM or from = in [smtp] of "
        "/nonexistent/mail.ini"]


def test_send_security_and_its_older_alias_must_agree(tmp_path):
    result = run("send", game_file(tmp_path), "--security", "tls", "--no-starttls",
                 env=environment(1))
    assert result.exit_code == 2
    assert "--no-starttls means --security none, not tls; give one" in result.stderr


# --------------------------------------------------------------------------- sendmail

def fake_sendmail(folder: Path, status: int = 0, complaint: str = "") -> Path:
    """A program that keeps its arguments and its input in FOLDER/called.json, then exits
    with ``status`` after writing ``complaint`` on stderr."""
    program = folder / "fake-sendmail"
    program.write_text(
        f"#!{sys.executable}\n"
        "import json, sys\n"
        f"with open({str(folder / 'called.json')!r}, 'w') as out:\n"
        "    json.dump({'argv': sys.argv[1:], 'stdin': sys.stdin.buffer.read().decode('ascii')}, out)\n"
        f"sys.stderr.write({complaint!r})\n"
        f"sys.exit({status})\n", encoding="utf-8")
    program.chmod(0o755)
    return program


def test_sendmail_gets_the_sender_and_the_recipients_tomis_computed(tmp_path):
    program = fake_sendmail(tmp_path)
    out = tmp_path / "sent.eml"
    env = environment(None, host=None, sendmail=str(program), password=None)
    result = run("move", game_file(tmp_path), "B@d8", "--to", "Bo <bo@example.net>",
                 "--mail", out, "--send", env=env)
    assert result.exit_code == 0, result.stderr
    called = json.loads((tmp_path / "called.json").read_text(encoding="utf-8"))
    assert called["argv"] == ["-i", "-f", "ana@example.org", "--", "bo@example.net"]
    # The message on its input is the one written to sent.eml (sendmail wants LF ends).
    assert called["stdin"] == out.read_bytes().decode("ascii").replace("\r\n", "\n")
    assert result.stderr.splitlines()[-1] == (
        "sent to bo@example.net: Tomis: Ana vs Bo — action 2 (B@d8)")


def test_send_uses_sendmail_too_and_a_failure_says_what_the_program_said(tmp_path):
    program = fake_sendmail(tmp_path, 75, "sendmail: cannot reach the queue\n")
    game = game_file(tmp_path)
    env = environment(None, host=None, sendmail=str(program))
    result = run("send", game, "--to", "bo@example.net", env=env)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"{game}: not sent: {program} exited with status 75: sendmail: cannot reach the queue"]
    called = json.loads((tmp_path / "called.json").read_text(encoding="utf-8"))
    assert called["argv"][-2:] == ["--", "bo@example.net"]


def test_a_missing_sendmail_program_is_one_line(tmp_path):
    game = game_file(tmp_path)
    missing = tmp_path / "no-such-sendmail"
    result = run("send", game, "--to", "bo@example.net",
                 env=environment(None, sendmail=str(missing)))
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"{game}: not sent: no program {missing} (TOMIS_SMTP_SENDMAIL or sendmail = in [smtp])"]


# --------------------------------------------------------------------------- the README

def readme_block(after: str) -> str:
    """The first ```sh block of the README after the paragraph starting ``after``."""
    text = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    start = text.index("```sh\n", text.index(after)) + len("```sh\n")
    return text[start:text.index("```", start)]


def test_the_readme_email_walk_through_works_on_a_fresh_machine(tmp_path):
    """Emails 1 and 2 as written, in a shell with no settings file and no TOMIS_ variable."""
    import os
    import subprocess

    env = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    ana, bo = tmp_path / "ana", tmp_path / "bo"
    ana.mkdir()
    bo.mkdir()
    first = subprocess.run(["bash", "-euc", readme_block("**Email 1, Ana to Bo.**")], cwd=ana,
                           env=env, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    (bo / "ladder.tgn").write_bytes((ana / "sent.eml").read_bytes())   # Bo's "Save as"
    second = subprocess.run(["bash", "-euc", readme_block("**Email 2, Bo to Ana.**")], cwd=bo,
                            env=env, capture_output=True, text=True, timeout=120)
    assert second.returncode == 0, second.stderr
    reply = (bo / "sent.eml").read_text(encoding="ascii")
    assert "From: Bo <bo@example.net>" in reply and "To: ana@example.org" in reply
