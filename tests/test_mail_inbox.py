"""``tomis inbox PLACE...`` (issue 25): several places (the inbox and the Sent folder), a
game you answered is not listed, each line names what ``move`` takes, and ``--json``."""

from __future__ import annotations

import json
import shlex

from mail_support import RECORDS, letter, make_maildir, make_mbox, run

THREE = (RECORDS / "ladder-3.tgn").read_text(encoding="utf-8")    # Ana's G@b1: Black (Bo) to act
NOW = ("--now", "2026-11-23T18:00:00+00:00")


def bos_reply(tmp_path) -> str:
    """The record Bo sent back: G@g8 played on Ana's."""
    record = tmp_path / "bo.tgn"
    record.write_text(THREE, encoding="utf-8")
    assert run("move", record, "G@g8").exit_code == 0
    return record.read_text(encoding="utf-8")


def test_an_answered_game_is_not_listed_once_the_sent_folder_is_named(tmp_path):
    inbox = make_maildir(tmp_path / "Inbox", [letter(2, "Ana <ana@example.org>", THREE)])
    sent = make_mbox(tmp_path / "Sent", [letter(3, "Bo <bo@example.org>", bos_reply(tmp_path))])
    waiting = run("inbox", inbox, "--me", "Bo", *NOW)
    assert waiting.exit_code == 0, waiting.stderr
    assert waiting.stdout.splitlines() == [
        "1 game(s) waiting for Bo, oldest first",
        f"  {inbox} --message m2@example.org: vs Ana (Club ladder), you play Black, action 4 "
        "after 3, waiting 6 h 0 min"]
    answered = run("inbox", inbox, sent, "--me", "Bo", *NOW)
    assert answered.exit_code == 0, answered.stderr
    assert answered.stdout == "0 game(s) waiting for Bo\n"
    # For Ana the same two places hold Bo's answer: her turn, named in Bo's Sent folder.
    hers = run("inbox", sent, inbox, "--me", "Ana", *NOW)
    assert hers.stdout.splitlines()[1].startswith(f"  {sent} --message m3@example.org: vs Bo")


def test_your_own_record_file_counts_as_your_answer(tmp_path):
    inbox = make_mbox(tmp_path / "in.mbox", [letter(2, "Ana <ana@example.org>", THREE)])
    games = tmp_path / "games"
    games.mkdir()
    (games / "Ana-vs-Bo.tgn").write_text(bos_reply(tmp_path), encoding="utf-8")
    assert run("inbox", inbox, games, "--me", "Bo", *NOW).stdout == "0 game(s) waiting for Bo\n"


def test_the_line_printed_is_what_move_takes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    odd = letter(2, "Ana <ana@example.org>", THREE).replace(
        b"Message-ID: <m2@example.org>", b"Message-ID: <a$b'c!2@example.org>")
    inbox = make_mbox(tmp_path / "in.mbox", [letter(1, "Ana <ana@example.org>", THREE), odd])
    listed = run("inbox", inbox, "--me", "Bo", *NOW)
    lines = listed.stdout.splitlines()[1:]
    assert len(lines) == 1
    named = lines[0].strip().split(": vs ")[0]
    assert named == f"{inbox} --message " + shlex.quote("a$b'c!2@example.org")
    moved = run("move", *shlex.split(named), "G@g8")
    assert moved.exit_code == 0, moved.stderr
    assert "read message 2 of the mailbox" in moved.stderr
    assert "G@g8 *" in (tmp_path / "Ana-vs-Bo.tgn").read_text(encoding="utf-8")


def test_a_message_without_an_id_is_named_by_its_number(tmp_path):
    data = letter(1, "Ana <ana@example.org>", THREE).replace(b"Message-ID: <m1@example.org>\n", b"")
    inbox = make_mbox(tmp_path / "in.mbox", [data])
    listed = run("inbox", inbox, "--me", "Bo", *NOW)
    assert listed.stdout.splitlines()[1].startswith(f"  {inbox} --message 1: vs Ana")


def test_json_lists_each_waiting_game(tmp_path):
    inbox = make_mbox(tmp_path / "in.mbox", [letter(2, "Ana <ana@example.org>", THREE)])
    result = run("inbox", inbox, "--me", "Bo", "--json", *NOW)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == {"me": "Bo", "waiting": [{
        "file": str(inbox), "message": "m2@example.org", "white": "Ana", "black": "Bo",
        "event": "Club ladder", "you_play": "black", "opponent": "Ana", "actions": 3,
        "since": "2026-11-23T12:00:00+00:00", "waiting_minutes": 360}]}
    record = tmp_path / "g.tgn"
    record.write_text(THREE, encoding="utf-8")
    row = json.loads(run("inbox", record, "--me", "Bo", "--json", *NOW).stdout)["waiting"][0]
    assert (row["file"], row["message"]) == (str(record), None)


def test_a_missing_place_among_several_is_a_usage_error(tmp_path):
    inbox = make_mbox(tmp_path / "in.mbox", [letter(2, "Ana <ana@example.org>", THREE)])
    result = run("inbox", inbox, tmp_path / "Sent", "--me", "Bo", *NOW)
    assert result.exit_code == 2
    assert result.stderr == f"{tmp_path / 'Sent'}: no such file or folder\n"
    assert result.stdout == ""
