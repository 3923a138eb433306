"""tomis referee's organiser commands: games, show, export, address, adjudicate, abort,
resend, outbox and rejected, through the CLI in process on a real store."""

from __future__ import annotations

import json
import os

import pytest

from referee_support import Lab, body_of, headline, run

from tomis.notation import record

LATER = "2026-11-25T10:00Z"


@pytest.fixture
def lab(tmp_path):
    return Lab(tmp_path)


def _ok(*args):
    result = run(*args)
    assert result.exit_code == 0, result.output
    return result


def _fails(*args, code=1):
    result = run(*args)
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    return result


def test_games_lists_the_games_in_play_and_all_with_json(lab):
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-23T11:00Z")
    second = int(_ok("referee", "new", lab.db, "--white", "Cy <cy@c.test>",
                     "--black", "Di <di@d.test>", "--now", "2026-11-23T12:00Z").stdout)
    _ok("referee", "adjudicate", lab.db, second, "1/2-1/2", "--reason", "both left the club",
        "--now", "2026-11-24T12:00Z")
    line, = _ok("referee", "games", lab.db, "--now", LATER).stdout.splitlines()
    assert line.startswith(f"#{lab.game}  Ana Lungu - Bo Marin  black to act")
    assert "action 1 B@e1" in line and "since 2026-11-23T11:00Z" in line
    # White used one hour and got 3 days back; Black has been to act for 1 day 23 hours
    assert "clocks 32d 23h / 28d 1h" in line
    rows = [json.loads(text) for text in
            _ok("referee", "games", lab.db, "--json", "--all", "--now", LATER).stdout.splitlines()]
    assert [row["number"] for row in rows] == [lab.game, second]
    assert rows[0]["to_act"] == "black" and rows[0]["last_action"] == "B@e1"
    assert rows[0]["time_left"] == {"white": (33 * 24 - 1) * 3600, "black": (28 * 24 + 1) * 3600}
    assert rows[1]["over"] and rows[1]["result"] == "1/2-1/2"
    assert rows[1]["termination"] == "adjudication" and rows[1]["to_act"] is None


def test_show_prints_the_board_clocks_and_who_acts(lab):
    text = _ok("referee", "show", lab.db, lab.game, "--now", LATER).stdout
    assert text.startswith(f"[tomis #{lab.game}] Ana Lungu (White) vs Bo Marin (Black)")
    assert "Clocks (TimeControl 30d+3d: " in text and "To act: White (Ana Lungu)" in text
    assert "28d left" in text
    assert "no game 9" in _fails("referee", "show", lab.db, 9).output


def test_export_leaves_the_conditional_lines_out(lab, tmp_path):
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-23T11:00Z")
    lab.deliver(lab.reply(1, "B@d8"), "2026-11-23T12:00Z")
    lab.deliver(lab.reply(0, "G@b1\nif G@g8 G@c2"), "2026-11-23T13:00Z")
    assert lab.query("SELECT COUNT(*) FROM lines")[0][0] == 1
    text = _ok("referee", "export", lab.db, lab.game).stdout
    game = record.read_game(text)
    assert [str(node.action) for node in game.nodes] == ["B@e1", "B@d8", "G@b1"]
    assert "G@c2" not in text and "%if" not in text
    out = tmp_path / "game.tgn"
    _ok("referee", "export", lab.db, lab.game, "-o", out)
    assert out.read_text() == text


def test_address_changes_who_acts_and_tells_the_new_address(lab):
    old = lab.last_to(1)
    lab.new_messages()
    _ok("referee", "address", lab.db, lab.game, "black", "Bo Marin <bo@new.test>", "--now", LATER)
    (told,) = lab.new_messages()
    assert str(told["To"]) == "Bo Marin <bo@new.test>"
    assert "from bo@b.test to bo@new.test" in body_of(told)
    assert told["Reply-To"] != old["Reply-To"]          # the seat has a new token (issue 38)
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-25T11:00Z")
    from referee_support import reply_to
    lab.deliver(reply_to(told, "Bo Marin <bo@b.test>", "B@d8"), "2026-11-25T12:00Z")
    assert "B@d8" not in lab.record()
    lab.deliver(reply_to(told, "Bo Marin <bo@new.test>", "B@d8"), "2026-11-25T12:05Z")
    assert "B@d8" in lab.record()


@pytest.mark.parametrize("player, message", [
    ("bo@new.test", "must be like"),
    ("Bo <bo@new.test>, Cy <cy@c.test>", "must be like"),
    ("Ana <ANA@a.test>", "other player's address"),
    ("Bo\x1b[31m <bo@new.test>", "must be like"),
])
def test_address_refuses_a_bad_or_taken_address(lab, player, message):
    before = lab.query("SELECT black_address FROM games")
    result = _fails("referee", "address", lab.db, lab.game, "black", player)
    assert message in result.output and "\x1b" not in result.output
    assert lab.query("SELECT black_address FROM games") == before
    assert _fails("referee", "address", lab.db, lab.game, "grey", "Bo <b@b.test>", code=2)


def test_adjudicate_ends_the_game_with_a_termination_tag_and_both_are_told(lab):
    lab.new_messages()
    _ok("referee", "adjudicate", lab.db, lab.game, "1-0", "--reason", "Black stopped answering",
        "--now", LATER)
    game = record.read_game(lab.record())
    assert game.result == "1-0" and game.tags["Termination"] == "adjudication"
    assert "organiser: Black stopped answering" in lab.record()
    told = lab.new_messages()
    assert len(told) == 2
    for message in told:
        assert "adjudicated the game: 1-0. Reason: Black stopped answering" in body_of(message)
        assert "1-0" in headline(message)
    assert lab.query("SELECT over FROM games") == [(1,)]
    assert "already ended" in _fails("referee", "abort", lab.db, lab.game, "--reason", "x").output
    _fails("referee", "adjudicate", lab.db, lab.game, "2-0", "--reason", "x", code=2)


def test_an_adjudicated_draw_of_a_timed_game_is_a_record_every_reader_takes(lab):
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-23T11:00Z")
    _ok("referee", "adjudicate", lab.db, lab.game, "1/2-1/2", "--reason", "a dead position",
        "--now", LATER)
    text = _ok("referee", "export", lab.db, lab.game).stdout
    assert '[Termination "adjudication"]' in text and "[%draw" not in text
    assert record.read_game(text).result == "1/2-1/2"
    assert "1/2-1/2" in _ok("referee", "show", lab.db, lab.game).stdout
    # without the Termination tag the same record is refused: only an arbiter's draw stands
    bare = text.replace('[Termination "adjudication"]\n', "")
    with pytest.raises(Exception, match="accepted offer"):
        record.read_game(bare)


def test_adjudicate_refuses_a_reason_that_could_break_the_record(lab):
    before = lab.record()
    assert "--reason" in _fails("referee", "adjudicate", lab.db, lab.game, "1-0",
                                "--reason", "a } b").output
    assert "--reason" in _fails("referee", "abort", lab.db, lab.game, "--reason", "a\nb").output
    assert lab.record() == before


def test_abort_ends_without_a_result_and_later_moves_are_refused(lab):
    lab.new_messages()
    _ok("referee", "abort", lab.db, lab.game, "--reason", "played twice by mistake",
        "--now", LATER)
    game = record.read_game(lab.record())
    assert game.result == "*" and game.tags["Termination"] == "abandoned"
    assert all("aborted the game" in body_of(m) for m in lab.new_messages())
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-25T11:00Z")
    assert "B@e1" not in lab.record()
    assert _ok("referee", "games", lab.db).stdout == ""


def test_resend_queues_each_players_last_message_again(lab):
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-23T11:00Z")
    last = {side: lab.last_to(side).as_bytes() for side in (0, 1)}
    lab.new_messages()
    _ok("referee", "resend", lab.db, lab.game, "--now", LATER)
    again = lab.new_messages()
    assert sorted(m.as_bytes() for m in again) == sorted(last.values())


def test_outbox_and_rejected_say_what_waits_and_why(lab, tmp_path):
    assert _ok("referee", "outbox", lab.db).stdout == ""
    lab.deliver(lab.reply(0, "B@e9"), "2026-11-23T11:00Z")
    lab.deliver(lab.reply(0, "B@e1", sender="Eve\x1b[2J <eve@x.test>", to="ref@club.test"),
                "2026-11-23T11:01Z")
    lines = _ok("referee", "rejected", lab.db).stdout.splitlines()
    assert len(lines) == 2 and "\x1b" not in "".join(lines)
    assert "from Ana Lungu <ana@a.test>" in lines[0] and "expected a square" in lines[0]
    assert "stranger" in lines[1] and "no game" in lines[1]
    reply = lab.reply(0, "B@e1")
    hidden = tmp_path / "away"
    os.rename(lab.out, hidden)               # the outbox folder is gone: both stay queued
    try:
        lab.deliver(reply, "2026-11-23T12:00Z")
    finally:
        os.rename(hidden, lab.out)
    waiting = _ok("referee", "outbox", lab.db).stdout.splitlines()
    assert len(waiting) == 2 and all("tries 1" in line for line in waiting)
    assert "to ana@a.test" in waiting[0] and "to bo@b.test" in waiting[1]
    _ok("referee", "tick", lab.db, "--now", "2026-11-23T12:30Z")
    assert _ok("referee", "outbox", lab.db).stdout == ""


def test_organiser_commands_on_a_missing_store_say_so(tmp_path):
    for command in ("games", "outbox", "rejected"):
        assert "no such store" in _fails("referee", command, tmp_path / "none.db").output
