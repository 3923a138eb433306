"""Mailboxes for every command (issue 25): an mbox and a Maildir with ``--message``, and
the commands that write putting the new record in a file of its own, never in the mailbox.

The mailboxes are written here with the standard library, as mutt's save-message and a
delivery agent leave them: "From " lines in an mbox, one file a message in a Maildir.
"""

from __future__ import annotations

import email
import email.policy
from pathlib import Path

import pytest
from mail_support import RECORDS, letter, make_maildir, make_mbox, run

OLD = (RECORDS / "ladder-2.tgn").read_text(encoding="utf-8")     # 1. B@e1 B@d8 *
NEW = (RECORDS / "ladder-3.tgn").read_text(encoding="utf-8")     # ... 2. G@b1 *, Black to act
SENDER = {"TOMIS_SMTP_FROM": "Bo <bo@example.org>", "TOMIS_MAIL_CONFIG": "/nonexistent"}
MESSAGES = [letter(1, "Ana <ana@example.org>", OLD), letter(2, "Ana <ana@example.org>", NEW)]


def snapshot(path: Path) -> dict:
    if path.is_dir():
        return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*"))
                if p.is_file()}
    return {"": path.read_bytes()}


@pytest.fixture(params=["mbox", "maildir"])
def box(request, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    maker = make_mbox if request.param == "mbox" else make_maildir
    return maker(tmp_path / f"in.{request.param}", MESSAGES)


@pytest.mark.parametrize("command", [["show"], ["moves"], ["replay"], ["validate"],
                                     ["extract"], ["clock"], ["move", "--dry-run", "G@g8"]])
@pytest.mark.parametrize("message", ["2", "<m2@example.org>", "m2@example.org"])
def test_every_reading_command_reads_the_message_named(box, command, message):
    name, *rest = command
    if name == "clock":
        result = run(name, box, "--message", message)
        assert result.exit_code == 1           # read: this game has no clock
        assert "TimeControl" in result.stderr
    else:
        result = run(name, box, *rest, "--message", message)
        assert result.exit_code == 0, result.stderr
    assert f"{box}: note: read message 2 of the mailbox" in result.stderr
    if name == "extract":
        assert result.stdout == NEW
    if name == "moves":
        assert result.stdout.startswith("Black to act (action 4)")


def test_without_message_a_one_message_mailbox_is_read_and_named(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    box = make_mbox(tmp_path / "one.mbox", MESSAGES[1:])
    result = run("move", box, "G@g8")
    assert result.exit_code == 0, result.stderr
    assert f"{box}: note: read message 1 of the mailbox" in result.stderr


def test_without_message_a_mailbox_of_several_asks_which(box):
    before = snapshot(box)
    result = run("move", box, "G@g8")
    assert result.exit_code == 2
    assert "this mailbox holds 2 messages; choose one with --message N (1-2)" in result.stderr
    assert snapshot(box) == before
    assert not Path("Ana-vs-Bo.tgn").exists()


def test_move_writes_white_vs_black_beside_and_never_the_mailbox(box):
    before = snapshot(box)
    result = run("move", box, "G@g8", "--message", "2")
    assert result.exit_code == 0, result.stderr
    assert snapshot(box) == before
    written = Path("Ana-vs-Bo.tgn").read_text(encoding="utf-8")
    assert "1. B@e1 B@d8 2. G@b1 G@g8 *" in written
    assert "Ana-vs-Bo.tgn: the new record is written here; the mailbox is left as it is" \
        in result.stderr
    # The address to answer is kept beside it, so the next reply goes to the sender.
    assert '"to": "ana@example.org"' in Path("Ana-vs-Bo.tgn.mail.json").read_text()
    # The next action of the same game, from the same message, is refused: the file
    # holds a later record than the message, and would lose an action.
    again = run("move", box, "G@h8", "--message", "2")
    assert again.exit_code == 1
    assert again.stderr.endswith("Ana-vs-Bo.tgn: already exists and is not an earlier record "
                                 "of this game; nothing was written: move it away or name "
                                 "another file with -o FILE\n")
    assert Path("Ana-vs-Bo.tgn").read_text(encoding="utf-8") == written


def test_an_earlier_record_of_the_same_game_is_replaced(box):
    Path("Ana-vs-Bo.tgn").write_text(OLD, encoding="utf-8")
    result = run("move", box, "G@g8", "--message", "2")
    assert result.exit_code == 0, result.stderr
    assert "2. G@b1 G@g8 *" in Path("Ana-vs-Bo.tgn").read_text(encoding="utf-8")


def test_another_game_in_the_file_is_refused_and_kept(box):
    other = OLD.replace('[Round "?"]', '[Round "7"]')
    Path("Ana-vs-Bo.tgn").write_text(other, encoding="utf-8")
    result = run("move", box, "G@g8", "--message", "2")
    assert result.exit_code == 1
    assert "already exists and is not an earlier record of this game" in result.stderr
    assert Path("Ana-vs-Bo.tgn").read_text(encoding="utf-8") == other


def test_output_names_the_file(box):
    result = run("move", box, "G@g8", "--message", "2", "-o", "games/../mine.tgn")
    assert result.exit_code == 0, result.stderr
    assert "mine.tgn: the new record is written here" in result.stderr
    assert "G@g8 *" in Path("mine.tgn").read_text(encoding="utf-8")
    assert not Path("Ana-vs-Bo.tgn").exists()


@pytest.mark.parametrize("white, black, name", [
    ("../../etc/passwd", "Bo", "etc_passwd-vs-Bo.tgn"),
    ("Zoë Ündin", "Björn", "Zoe_Undin-vs-Bjorn.tgn"),
    (".hidden", "-n", "hidden-vs-n.tgn"),
    ("?", "李", "White-vs-Black.tgn"),
])
def test_the_file_name_keeps_only_safe_characters(tmp_path, monkeypatch, white, black, name):
    monkeypatch.chdir(tmp_path)
    record = tmp_path / "g.tgn"
    assert run("new", record, "--white", white, "--black", black).exit_code == 0
    assert run("move", record, "B@e1").exit_code == 0
    box = make_mbox(tmp_path / "in.mbox", [letter(1, "Ana <ana@example.org>",
                                                  record.read_text(encoding="utf-8"))])
    result = run("move", box, "B@d8")
    assert result.exit_code == 0, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".tgn") == \
        sorted(["g.tgn", name])


def test_resign_and_draw_write_beside_the_mailbox(box, tmp_path):
    before = snapshot(box)
    result = run("resign", box, "--message", "2", "--as", "black")
    assert result.exit_code == 0, result.stderr
    assert "1-0" in Path("Ana-vs-Bo.tgn").read_text(encoding="utf-8")
    assert snapshot(box) == before
    offered = tmp_path / "offer.tgn"
    offered.write_text(NEW, encoding="utf-8")
    assert run("move", offered, "G@g8", "--offer-draw").exit_code == 0
    box2 = make_mbox(tmp_path / "offer.mbox",
                     [letter(3, "Bo <bo@example.org>", offered.read_text(encoding="utf-8"))])
    result = run("draw", box2, "--accept", "--as", "white", "-o", "drawn.tgn")
    assert result.exit_code == 0, result.stderr
    assert "1/2-1/2" in Path("drawn.tgn").read_text(encoding="utf-8")


def test_claim_reads_a_mailbox_message(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    record = tmp_path / "c.tgn"
    assert run("new", record, "--white", "Ana", "--black", "Bo", "--time-control", "1d+1d",
               "--time", "2026-11-01T10:00Z").exit_code == 0
    assert run("move", record, "B@e1", "--time", "2026-11-01T11:00Z").exit_code == 0
    box = make_mbox(tmp_path / "c.mbox", [letter(1, "Bo <bo@example.org>",
                                                 record.read_text(encoding="utf-8"))])
    result = run("claim", box, "--as", "white", "--now", "2026-11-20T10:00Z")
    assert result.exit_code == 0, result.stderr
    assert "time forfeit" in Path("Ana-vs-Bo.tgn").read_text(encoding="utf-8")


def test_a_saved_message_file_still_becomes_the_record(tmp_path):
    path = tmp_path / "reply.eml"
    path.write_bytes(MESSAGES[1])
    result = run("move", path, "G@g8")
    assert result.exit_code == 0, result.stderr
    assert path.read_text(encoding="utf-8").startswith('[Event "Club ladder"]')
    assert not (tmp_path / "Ana-vs-Bo.tgn").exists()


def test_extract_output_keeps_the_record_and_whom_to_answer(box):
    result = run("extract", box, "--message", "2", "-o", "game.tgn")
    assert result.exit_code == 0, result.stderr
    assert Path("game.tgn").read_text(encoding="utf-8") == NEW
    assert result.stdout == ""
    # The next move on the kept record answers the sender of the message, in its thread.
    result = run("move", "game.tgn", "G@g8", "--mail", "reply.eml", env=SENDER)
    assert result.exit_code == 0, result.stderr
    reply = email.message_from_bytes(Path("reply.eml").read_bytes(), policy=email.policy.default)
    assert str(reply["To"]) == "ana@example.org"
    assert str(reply["In-Reply-To"]) == "<m2@example.org>"


def test_extract_output_refuses_another_game_and_leaves_it(box):
    Path("game.tgn").write_text(OLD.replace('[Round "?"]', '[Round "7"]'), encoding="utf-8")
    result = run("extract", box, "--message", "2", "-o", "game.tgn")
    assert result.exit_code == 1
    assert '[Round "7"]' in Path("game.tgn").read_text(encoding="utf-8")
    assert not Path("game.tgn.mail.json").exists()


def test_send_refuses_a_mailbox_and_writes_nothing_beside_it(box, tmp_path):
    before = sorted(p.name for p in tmp_path.iterdir())
    result = run("send", box, "--to", "ana@example.org", env=SENDER)
    assert result.exit_code == 2
    assert f"{box} is a mailbox; send takes a message written by move --mail" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == before
