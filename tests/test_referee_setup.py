"""docs/REFEREE.md's setup of a club's host (issue 40, findings 2 and 6), read out of the
doc: the run unit and the tick unit can send with postfix's sendmail (no NoNewPrivileges,
nothing implying it, the maildrop folder writable), the postfix recipe is whole and its
parts name the same user, store and service; and a sendmail that never finishes (postdrop
without its setgid bit) is ended with every process it started and said in one line.

The recipe itself is played through a real postfix in tests/test_referee_setup_lab.py
(slow).
"""

from __future__ import annotations

import shlex
import time
from pathlib import Path

import pytest

import recipe_blocks as recipe
from referee_support import ANA, BO, REFEREE, run

PIPE = "tomisref"
USER = "tomis"
STORE = "/var/lib/tomis/club.db"


@pytest.mark.parametrize("name", ["tomis-referee.service", "tomis-tick.service"])
def test_a_unit_that_sends_keeps_the_setgid_bit_of_postdrop(name):
    unit = recipe.unit(recipe.block(name))
    service = unit.sections["Service"]
    assert (unit.one("Service", "NoNewPrivileges") or "no").lower() in recipe.SYSTEMD_NO
    assert not recipe.IMPLY_NO_NEW_PRIVILEGES & set(service), \
        sorted(recipe.IMPLY_NO_NEW_PRIVILEGES & set(service))
    assert unit.one("Service", "User") == USER
    if unit.one("Service", "ProtectSystem") == "strict":     # all of /var read-only then
        writable = " ".join(unit.get("Service", "ReadWritePaths")).split()
        assert any("/var/spool/postfix/maildrop".startswith(path.rstrip("/") + "/")
                   or path.rstrip("/") == "/var/spool/postfix/maildrop" for path in writable)


def test_the_run_unit_runs_run_on_the_store_as_its_user():
    unit = recipe.unit(recipe.block("tomis-referee.service"))
    start = shlex.split(recipe.systemd_unescape(unit.one("Service", "ExecStart")))
    assert start[:4] == ["/usr/local/bin/tomis", "referee", "run", STORE]
    assert "--imap" in start or "--maildir" in start


def test_the_postfix_pipe_runs_deliver_one_recipient_at_a_time_as_the_store_s_user():
    service = recipe.master_cf(recipe.block("master.cf"))
    assert (service.name, service.kind, service.command) == (PIPE, "unix", "pipe")
    assert service.attributes["user"] == USER
    assert "R" in service.attributes["flags"] and "q" in service.attributes["flags"]
    assert service.attributes["argv"] == \
        f"/usr/local/bin/tomis referee deliver {STORE} --recipient ${{recipient}}"
    main = recipe.main_cf(recipe.block("main.cf"))
    # Finding 1 of issue 40: without it a reply-all reaches one deliver with two recipients.
    assert main[f"{PIPE}_destination_recipient_limit"] == "1"
    assert main["recipient_delimiter"] == "+"
    kind, _, map_path = main["transport_maps"].partition(":")
    assert kind == "hash"
    assert recipe.block("transport").split() == ["referee@club.example", f"{PIPE}:"]
    assert recipe.commands(recipe.block("postfix-commands")) == \
        [f"postmap {map_path}", "newaliases", "postfix reload"]


def test_the_referee_address_is_a_local_alias_or_postfix_answers_user_unknown():
    aliases = dict(line.split(":", 1) for line in recipe.commands(recipe.block("aliases")))
    assert aliases["referee"].strip() == USER


def test_tomis_is_installed_in_a_virtual_environment_linked_from_usr_local_bin():
    install = recipe.commands(recipe.block("install"))
    assert "python3 -m venv /opt/tomis" in install
    pip = next(line for line in install if line.startswith("/opt/tomis/bin/pip install "))
    assert "[referee]" in pip
    assert "ln -s /opt/tomis/bin/tomis /usr/local/bin/tomis" in install
    # never the system's Python, which Debian 12 refuses (PEP 668)
    assert not [line for line in install if line.startswith(("pip ", "pip3 ", "python3 -m pip"))]


def test_the_service_user_owns_the_store_folder_alone_and_runs_every_command():
    user = recipe.commands(recipe.block("user"))
    assert any(line.startswith("useradd --system ") and line.endswith(f" {USER}") for line in user)
    assert f"install -d -o {USER} -g {USER} -m 0700 /var/lib/tomis" in user
    assert f"sudo -u {USER} /usr/local/bin/tomis --version" in user
    for name in ("init", "organiser"):
        for line in recipe.commands(recipe.block(name)):
            assert line.startswith(f"sudo -u {USER} tomis referee "), line
            assert f" {STORE} " in line
    init = recipe.commands(recipe.block("init"))[0]
    assert "--send-by sendmail" in init and "--address referee@club.example" in init


def test_cron_d_lines_name_the_user_and_the_tick_timer_runs_tick_and_page():
    lines = recipe.cron_lines(recipe.block("cron"))
    assert {line.user for line in lines} == {USER}
    verbs = [shlex.split(line.command)[:3] for line in lines]
    assert ["/usr/local/bin/tomis", "referee", "tick"] in verbs
    assert ["/usr/local/bin/tomis", "referee", "page"] in verbs
    service = recipe.unit(recipe.block("tomis-tick.service"))
    assert service.one("Service", "Type") == "oneshot"
    starts = [shlex.split(line)[:4] for line in service.get("Service", "ExecStart")]
    assert starts == [["/usr/local/bin/tomis", "referee", "tick", STORE],
                      ["/usr/local/bin/tomis", "referee", "page", STORE]]
    timer = recipe.unit(recipe.block("tomis-tick.timer"))
    assert timer.one("Timer", "OnCalendar") and timer.one("Install", "WantedBy") == "timers.target"


# ---------------------------------------------------------------- a sendmail that hangs

def stuck_sendmail(folder: Path) -> tuple[Path, Path]:
    """A sendmail that does what postfix's does under NoNewPrivileges: it starts a child
    (postdrop) that complains on stderr and retries for ever. The child's pid goes to a file."""
    pid_file = folder / "postdrop.pid"
    program = folder / "sendmail"
    program.write_text(
        "#!/bin/sh\ncat >/dev/null\n"
        f"sh -c 'echo $$ > {pid_file}; while :; do "
        "echo \"postdrop: warning: mail_queue_enter: create file maildrop/1.2: Permission denied\" >&2; "
        "sleep 0.2; done' &\nwait\n", encoding="utf-8")
    program.chmod(0o755)
    return program, pid_file


def running(pid: int) -> bool:
    """Is ``pid`` a process that runs (not gone, not a zombie nobody reaped)?"""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] not in ("Z", "X")


def test_a_stuck_sendmail_is_ended_with_its_children_and_said(tmp_path, monkeypatch):
    from tomis.referee import sending

    program, pid_file = stuck_sendmail(tmp_path)
    monkeypatch.setattr(sending, "SENDMAIL_TIMEOUT", 1.0)
    db, started = tmp_path / "club.db", time.monotonic()
    assert run("referee", "init", db, "--address", REFEREE, "--send-by",
               f"sendmail:{program}").exit_code == 0
    result = run("referee", "new", db, "--white", ANA, "--black", BO)
    assert result.exit_code == 0, result.output        # the game is stored all the same
    assert time.monotonic() - started < 30               # two messages, 1 s each, not 60
    assert f"{program} did not finish within 1 s: postdrop: warning: mail_queue_enter: " \
           "create file maildrop/1.2: Permission denied" in result.output
    assert "not sent yet (tick tries again)" in result.output
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while running(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running(pid), "the stuck child was left running"
    waiting = run("referee", "outbox", db)
    assert waiting.output.count("did not finish within 1 s") == 2, waiting.output

