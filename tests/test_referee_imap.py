"""tomis referee fetch and run --imap: a real IMAP server (pymap) on 127.0.0.1. Each
message is taken once, the folder is left as it was (read-only), and a changed
UIDVALIDITY makes the referee read the folder again without taking anything twice."""

from __future__ import annotations


import pytest

from referee_support import Lab, run
from test_imap import PASSWORD, env_for, server  # noqa: F401 (server is a fixture)
from mail_support import certificates  # noqa: F401 (a fixture)


def fetch(lab, imap_server, folder="Games", now="2026-11-23T11:00Z"):
    result = run("referee", "fetch", lab.db, "--imap", imap_server.place(folder), "--now", now,
                 env=env_for(imap_server))
    assert result.exit_code == 0, result.output
    return result


def remembered(lab):
    return lab.query("SELECT uidvalidity, last_uid FROM imap_folders")


def test_fetch_takes_each_message_once_and_changes_nothing_on_the_server(server, tmp_path):
    imap_server = server()
    lab = Lab(tmp_path)
    imap_server.deliver("Games", lab.reply(0, "B@e1"))
    first = fetch(lab, imap_server)
    ((validity, last),) = remembered(lab)
    assert f"UID {last}: message 1, game 1, done: action 1 (B@e1)" in first.stderr
    imap_server.deliver("INBOX", b"From: x@x.test\r\nSubject: not here\r\n\r\nother folder\r\n")
    client = imap_server.admin()
    client.append("Games", None, None, lab.reply(1, "B@d8"))
    client.logout()
    second = fetch(lab, imap_server, now="2026-11-23T12:00Z")
    assert f"UID {last}:" not in second.stderr
    assert f"UID {last + 1}: message 2, game 1, done" in second.stderr
    assert remembered(lab) == [(validity, last + 1)]
    assert "B@d8" in lab.record() and len(lab.inbox()) == 2
    assert "taken 0" in fetch(lab, imap_server, now="2026-11-23T12:05Z").stderr
    for flags in imap_server.flags("Games"):
        assert b"FLAGS ()" in flags, flags            # EXAMINE and BODY.PEEK: nothing marked


def test_a_changed_uidvalidity_reads_again_and_takes_nothing_twice(server, tmp_path):
    imap_server = server()
    lab = Lab(tmp_path)
    one = lab.reply(0, "B@e1")
    imap_server.deliver("Games", one)
    fetch(lab, imap_server)
    ((old_validity, _last),) = remembered(lab)
    two = lab.reply(1, "B@d8")
    # The folder is rebuilt: deleted, made again, the old message and a new one put back.
    client = imap_server.admin()
    assert client.delete("Games")[0] == "OK"
    assert client.create("Games")[0] == "OK"
    for raw in (one, two):
        assert client.append("Games", None, None, raw)[0] == "OK"
    status, data = client.status("Games", "(UIDVALIDITY)")
    client.logout()
    assert f"UIDVALIDITY {old_validity})".encode() not in data[0], "the server kept UIDVALIDITY"
    again = fetch(lab, imap_server, now="2026-11-23T12:00Z")
    ((new_validity, last),) = remembered(lab)
    assert new_validity != old_validity
    assert f"UID {last - 1}: a copy of a message taken before, ignored" in again.stderr
    assert f"UID {last}: message 2, game 1, done" in again.stderr
    assert lab.record().count("B@e1") == 1 and "B@d8" in lab.record()
    assert len(lab.inbox()) == 2


def test_a_wrong_password_or_a_missing_folder_is_one_line(server, tmp_path):
    imap_server = server()
    lab = Lab(tmp_path)
    wrong = run("referee", "fetch", lab.db, "--imap", imap_server.place("INBOX"),
                env=env_for(imap_server, password="not-" + PASSWORD))
    assert wrong.exit_code == 1 and "refused the user name or password" in wrong.output
    missing = run("referee", "fetch", lab.db, "--imap", imap_server.place("Nowhere"),
                  env=env_for(imap_server))
    assert missing.exit_code == 1 and "no folder Nowhere" in missing.output
    assert "Traceback" not in wrong.output + missing.output


@pytest.mark.slow
def test_run_reads_an_imap_folder_until_sigterm(server, tmp_path):
    import signal
    import subprocess
    import sys

    from conftest import ROOT, tomis_env
    from test_referee_run import running, stop, wait_for

    imap_server = server()
    lab = Lab(tmp_path)
    imap_server.deliver("Games", lab.reply(0, "B@e1"))
    log_path = tmp_path / "run.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "tomis", "referee", "run", str(lab.db), "--imap",
             imap_server.place("Games"), "--every", "1s"], stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=log, cwd=ROOT,
            env=tomis_env({k: v for k, v in env_for(imap_server).items() if v is not None}))
    with running(process):
        wait_for(log_path, "message 1, game 1, done: action 1 (B@e1)")
        client = imap_server.admin()
        client.append("Games", None, None, lab.reply(1, "B@d8"))
        client.logout()
        wait_for(log_path, "message 2, game 1, done")
        assert stop(process, signal.SIGTERM) == 0
    assert "stopped (SIGTERM)" in log_path.read_text() and "B@d8" in lab.record()
