"""tomis referee fetch --maildir: every new message taken once, marked seen the Maildir
way only after it is stored, so a process killed in between loses nothing."""

from __future__ import annotations

import os

import pytest

from referee_support import Lab, headline, run

from tomis.notation.clock import parse_stamp
from tomis.referee import fetching

ELEVEN = lambda: parse_stamp("2026-11-23T11:00Z")  # noqa: E731 -- the referee's clock


@pytest.fixture
def lab(tmp_path):
    return Lab(tmp_path)


def maildir(tmp_path):
    folder = tmp_path / "Maildir"
    for part in ("new", "cur", "tmp"):
        (folder / part).mkdir(parents=True)
    return folder


def drop(folder, name: str, raw: bytes, part: str = "new"):
    (folder / part / name).write_bytes(raw)


def fetch(lab, folder, now="2026-11-23T11:00Z"):
    result = run("referee", "fetch", lab.db, "--maildir", folder, "--now", now)
    assert result.exit_code == 0, result.output
    return result


def test_fetch_takes_each_new_message_once_and_marks_it_seen(lab, tmp_path):
    folder = maildir(tmp_path)
    drop(folder, "1700000000.1.host", lab.reply(0, "B@e1"))
    # To a reply address no game has (the bare address is the club's: tests/test_referee_clubmail.py).
    drop(folder, "1700000001.2.host",
         b"From: eve@x.test\r\nTo: ref+aaaaaaaaaaaaaaaaaaaaaaaa@club.test\r\n\r\nhi\r\n")
    lab.new_messages()
    result = fetch(lab, folder)
    assert "B@e1" in lab.record()
    assert sorted(os.listdir(folder / "cur")) == ["1700000000.1.host:2,S", "1700000001.2.host:2,S"]
    assert os.listdir(folder / "new") == []
    lines = [line for line in result.stderr.splitlines()
             if line.startswith("tomis referee: ") and ": message " in line]
    # The names' delivery time (2023) is more than a day before the store time: the store
    # time stamps the action, and the log says so on a line of its own.
    assert ("tomis referee: new/1700000000.1.host: the mail system's time 2023-11-14T22:13:20Z "
            "is more than 24 hours before the time it was stored") in result.stderr
    assert lines[0] == "tomis referee: new/1700000000.1.host: message 1, game 1, done: action 1 (B@e1)"
    assert "message 2, no game, rejected" in lines[1] and "stranger" in lines[1]
    assert len(lab.new_messages()) == 2                  # both players heard of B@e1
    # nothing new: nothing taken, nothing sent
    again = fetch(lab, folder, "2026-11-23T11:05Z")
    assert "taken 0" in again.stderr and lab.new_messages() == []
    assert [state for state, _ in lab.inbox()] == ["done", "rejected"]


def test_fetch_takes_a_message_a_mail_program_left_unseen_in_cur(lab, tmp_path):
    folder = maildir(tmp_path)
    drop(folder, "1.a.host:2,", lab.reply(0, "B@e1"), part="cur")
    drop(folder, "2.b.host:2,FS", lab.reply(0, "B@e2"), part="cur")     # seen: left alone
    drop(folder, ".hidden", lab.reply(0, "B@e3"))                       # not a message
    fetch(lab, folder)
    assert "B@e1" in lab.record() and "B@e2" not in lab.record()
    assert sorted(os.listdir(folder / "cur")) == ["1.a.host:2,S", "2.b.host:2,FS"]
    assert os.listdir(folder / "new") == [".hidden"]


def test_a_fetch_killed_between_storing_and_marking_loses_nothing(lab, tmp_path, monkeypatch):
    folder = maildir(tmp_path)
    drop(folder, "1.a.host", lab.reply(0, "B@e1"))

    def killed(*_args):
        raise SystemExit(137)

    monkeypatch.setattr(fetching, "_mark_seen", killed)
    with pytest.raises(SystemExit):
        fetching.fetch(str(lab.db), fetching.Mailbox(maildir=str(folder)), ELEVEN)
    assert os.listdir(folder / "new") == ["1.a.host"]       # still waiting in the mailbox ...
    assert "B@e1" in lab.record()                            # ... and already stored and played
    monkeypatch.undo()
    lab.new_messages()
    fetch(lab, folder, "2026-11-23T12:00Z")
    assert os.listdir(folder / "cur") == ["1.a.host:2,S"]
    assert lab.record().count("B@e1") == 1 and len(lab.inbox()) == 1
    # the two updates queued before the kill go out now, once; the copy queued nothing
    sent = lab.new_messages()
    assert len(sent) == 2 and all(headline(m) == "Action 1 (B@e1)" for m in sent)
    fetch(lab, folder, "2026-11-23T12:05Z")
    assert lab.new_messages() == []


def test_fetch_needs_one_mailbox_and_a_real_maildir(lab, tmp_path):
    usage = run("referee", "fetch", lab.db)
    assert usage.exit_code == 2 and "--maildir DIR or --imap URL" in usage.output
    both = run("referee", "fetch", lab.db, "--maildir", tmp_path, "--imap", "imaps://a@b/INBOX")
    assert both.exit_code == 2
    plain = run("referee", "fetch", lab.db, "--maildir", tmp_path)
    assert plain.exit_code == 1 and "is not a Maildir: it has no new/ folder" in plain.output
    bad = run("referee", "fetch", lab.db, "--imap", "imaps://b/INBOX")
    assert bad.exit_code == 1 and "names the user" in bad.output


def test_an_oversized_message_is_kept_as_rejected_and_marked(lab, tmp_path, monkeypatch):
    monkeypatch.setattr(fetching, "MAX_MESSAGE_BYTES", 2000)
    folder = maildir(tmp_path)
    drop(folder, "1.a.host", lab.reply(0, "B@e1") + b"x" * 5000)
    fetching.fetch(str(lab.db), fetching.Mailbox(maildir=str(folder)), ELEVEN)
    assert os.listdir(folder / "cur") == ["1.a.host:2,S"]
    assert lab.query("SELECT state, size FROM inbox") == [("rejected", 2000)]
