"""Correspondence play through the command line: new --time-control, move --time
--offer-draw --then, clock, claim, draw --accept, resign, and a whole exchange by email."""

from __future__ import annotations

import re
import shutil

import pytest

from conftest import invoke
from tomis.notation import record

TIMED = """\
[White "Ana"]
[Black "Bo"]
[Result "*"]
[TimeControl "30d+3d"]

{[%ts 2026-11-01T10:00Z]} 1. B@e1 {[%ts 2026-11-02T10:00Z]} B@d8 {[%ts 2026-11-05T10:00Z]}
2. G@b1 {[%ts 2026-11-05T12:00Z]} *
"""
# White: 30d - 1d + 3d = 32d, then - 2h + 3d = 34d 22h. Black: 30d - 3d + 3d = 30d,
# to act since 2026-11-05T12:00Z, so its time runs out at 2026-12-05T12:00Z.


@pytest.fixture
def timed(tmp_path):
    path = tmp_path / "timed.tgn"
    path.write_text(TIMED, encoding="utf-8")
    return path


def test_clock_shows_time_left_and_the_deadline(timed):
    result = invoke("clock", timed, "--now", "2026-11-20T10:00Z")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == [
        "TimeControl 30d+3d: 30d each, 3d more after each own action",
        "White: 34d 22h left",
        "Black: 15d 2h left, to act since 2026-11-05T12:00Z; time runs out at 2026-12-05T12:00Z",
    ]


def test_clock_after_the_deadline_says_who_may_claim(timed):
    result = invoke("clock", timed, "--now", "2026-12-05T12:01Z")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[2:] == [
        "Black: no time left, to act since 2026-11-05T12:00Z",
        f"Black's time ran out at 2026-12-05T12:00Z: White may claim the game "
        f"(tomis claim {timed} --as white)",
    ]


def test_clock_refuses_a_game_without_time_control(tmp_path):
    path = tmp_path / "plain.tgn"
    path.write_text("1. B@e1 *\n", encoding="utf-8")
    result = invoke("clock", path)
    assert result.exit_code == 1
    assert result.stderr.strip() == (f"{path}:1:1: this game has no TimeControl tag, so no clock "
                                     f"(tomis new --time-control 30d+3d starts one)")


def test_clock_refuses_a_bad_now(timed):
    result = invoke("clock", timed, "--now", "2026-11-20 10:00")
    assert result.exit_code == 2
    assert "Invalid value for --now: expected a UTC time like 2026-11-23T10:15Z, found " \
           "'2026-11-20 10:00'" in result.stderr


def test_claim_before_the_deadline_is_refused_and_changes_nothing(timed):
    result = invoke("claim", timed, "--as", "white", "--now", "2026-12-05T12:00Z")
    assert result.exit_code == 1
    assert result.stderr.strip() == (f"{timed}:1:1: Black's time has not run out: 0m left at "
                                     f"2026-12-05T12:00Z (TimeControl 30d+3d)")
    assert timed.read_text(encoding="utf-8") == TIMED


def test_claim_after_the_deadline_wins_with_termination_and_claim_stamp(timed):
    result = invoke("claim", timed, "--as", "white", "--now", "2026-12-06T09:00Z")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0] == (
        "White claims: Black's time ran out at 2026-12-05T12:00Z. Result 1-0 (time forfeit)")
    game = record.read_game(timed.read_text(encoding="utf-8"))
    assert game.result == "1-0"
    assert game.tags["Termination"] == "time forfeit"
    assert game.nodes[-1].comments == ["[%ts 2026-11-05T12:00Z]", "[%claim 2026-12-06T09:00Z]"]
    again = invoke("claim", timed, "--as", "white", "--now", "2026-12-07T09:00Z")
    assert again.exit_code == 1
    assert again.stderr.strip() == f"{timed}:1:1: the game has already ended 1-0 (R23)"


def test_claim_earlier_than_the_last_stamp_is_refused(timed):
    result = invoke("claim", timed, "--as", "white", "--now", "2026-11-05T11:00Z")
    assert result.exit_code == 1
    assert result.stderr.strip() == (f"{timed}:1:1: the claim at 2026-11-05T11:00Z is earlier than "
                                     f"the last timestamp, 2026-11-05T12:00Z")


def test_resign_gives_the_game_to_the_opponent(timed):
    result = invoke("resign", timed, "--as", "white")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0] == "White resigns. Result 0-1 (R23)"
    assert record.read_game(timed.read_text(encoding="utf-8")).result == "0-1"


def test_draw_without_an_offer_is_refused(timed):
    result = invoke("draw", timed, "--accept", "--as", "black")
    assert result.exit_code == 1
    assert result.stderr.strip() == (f"{timed}:1:1: White has not offered a draw: its last action "
                                     f"carries no (=) (an offer stands until the next action) (R23)")
    result = invoke("draw", timed, "--accept", "--as", "white")
    assert result.exit_code == 1
    assert result.stderr.strip() == (f"{timed}:1:1: only the side to act may accept a draw offer, "
                                     f"and that is Black (action 4), not White (--as white)")
    assert timed.read_text(encoding="utf-8") == TIMED


# --------------------------------------------------------------------------- new and move options

T0 = "2026-11-01T09:00Z"


def read(path):
    return record.read_game(path.read_text(encoding="utf-8"))


def ok(*args):
    result = invoke(*args)
    assert result.exit_code == 0, result.stderr
    return result


def test_new_with_a_time_control_starts_the_clock(tmp_path):
    game_file = tmp_path / "g.tgn"
    ok("new", game_file, "--white", "Ana", "--black", "Bo", "--time-control", "30d+3d", "--time", T0)
    game = read(game_file)
    assert game.tags["TimeControl"] == "30d+3d"
    assert game.comments == [f"[%ts {T0}]"]


@pytest.mark.parametrize("args, message", [
    (["--time-control", "30 days"], "Invalid value for --time-control: the TimeControl tag must be "
                                    "like 30d+3d, bank:240h+36h or 10/30d, found '30 days'"),
    (["--time-control", "30d", "--time", "today"],
     "Invalid value for --time: expected a UTC time like 2026-11-23T10:15Z, found 'today'"),
    (["--time", T0], "Invalid value for --time: --time is for a game with a clock: give "
                     "--time-control too"),
])
def test_new_refuses_bad_clock_options_and_writes_nothing(tmp_path, args, message):
    game_file = tmp_path / "g.tgn"
    result = invoke("new", game_file, *args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert not game_file.exists()


def test_move_stamps_and_stores_a_line(tmp_path):
    game_file = tmp_path / "g.tgn"
    ok("new", game_file, "--time-control", "30d+3d", "--time", T0)
    result = ok("move", game_file, "B@e1", "--time", "2026-11-01T10:00Z", "--then", "B@d8 G@b1")
    assert "stored the conditional line [%if B@d8 G@b1]" in result.stdout.splitlines()
    node = read(game_file).nodes[0]
    assert node.comments == ["[%ts 2026-11-01T10:00Z]", "[%if B@d8 G@b1]"]


def refused(game_file, code: int, *args) -> str:
    """``tomis ARGS`` fails with exit ``code`` and leaves ``game_file`` as it was; its stderr."""
    before = game_file.read_text(encoding="utf-8")
    result = invoke(*args)
    assert result.exit_code == code
    assert game_file.read_text(encoding="utf-8") == before
    return result.stderr


def test_a_stamp_earlier_than_the_last_is_refused(tmp_path):
    game_file = tmp_path / "g.tgn"
    ok("new", game_file, "--time-control", "30d+3d", "--time", T0)
    stderr = refused(game_file, 2, "move", game_file, "B@e1", "--time", "2026-10-31T10:00Z")
    assert ("Invalid value for --time: 2026-10-31T10:00Z is earlier than the record's last "
            "timestamp, 2026-11-01T09:00Z; timestamps never go backwards") in stderr


def test_a_line_that_cannot_be_played_is_refused_and_nothing_is_written(tmp_path):
    game_file = tmp_path / "g.tgn"
    ok("new", game_file)
    stderr = refused(game_file, 1, "move", game_file, "B@e1", "--then", "B@d8 G@d1")
    assert stderr.strip() == (
        "<then>:1:1: the conditional line [%if B@d8 G@d1] cannot be played: action 3 (White) G@d1: "
        "a gate on the home row leaves at least one empty square between it and the base (R6)")
    stderr = refused(game_file, 2, "move", game_file, "B@e1", "--then", "B@d8")
    assert ("Invalid value for --then: a conditional line holds pairs THEIRS MINE; its last "
            "action 'B@d8' has no reply after it (at column 1 of 'B@d8')") in stderr


def test_an_untimed_move_is_stamped_only_when_asked(tmp_path):
    game_file = tmp_path / "g.tgn"
    ok("new", game_file)
    ok("move", game_file, "B@e1")
    assert read(game_file).nodes[0].comments == []
    ok("move", game_file, "B@d8", "--time", "2026-11-02T10:00Z")
    assert read(game_file).nodes[1].comments == ["[%ts 2026-11-02T10:00Z]"]


def test_a_timed_move_is_stamped_with_the_current_minute(tmp_path):
    game_file = tmp_path / "g.tgn"
    ok("new", game_file, "--time-control", "bank:240h+36h", "--time", T0)
    ok("move", game_file, "B@e1")
    (stamp,) = read(game_file).nodes[0].comments
    assert re.fullmatch(r"\[%ts 20\d\d-\d\d-\d\dT\d\d:\d\dZ\]", stamp)


def test_the_opponents_move_plays_the_reply_a_line_fires(tmp_path):
    game_file = tmp_path / "g.tgn"
    ok("new", game_file, "--time-control", "30d+3d", "--time", T0)
    ok("move", game_file, "B@e1", "--time", "2026-11-01T10:00Z", "--then", "B@d8 G@b1 G@g8 G@f2")
    result = ok("move", game_file, "B@d8", "--as", "black", "--time", "2026-11-02T10:00Z")
    assert ("White's conditional line stored after action 1 answers B@d8 with G@b1 (action 3)"
            in result.stdout.splitlines())
    game = read(game_file)
    assert [str(node.action) for node in game.nodes] == ["B@e1", "B@d8", "G@b1"]
    assert game.nodes[2].comments == ["[%ts 2026-11-02T10:00Z]"]     # the same minute
    # Black to act again; the rest of the line waits for G@g8. G@a8 cancels it.
    ok("move", game_file, "G@a8", "--as", "black", "--time", "2026-11-02T11:00Z")
    ok("move", game_file, "G@c2", "--as", "white", "--time", "2026-11-03T11:00Z")
    assert [str(node.action) for node in read(game_file).nodes][-2:] == ["G@a8", "G@c2"]


def test_move_offers_a_draw_that_the_next_action_declines(tmp_path):
    game_file = tmp_path / "g.tgn"
    ok("new", game_file)
    result = ok("move", game_file, "B@e1", "--offer-draw")
    assert "White offers a draw (=)" in result.stdout.splitlines()
    assert read(game_file).nodes[0].offer
    ok("move", game_file, "B@d8")
    stderr = refused(game_file, 1, "draw", game_file, "--accept", "--as", "black")
    assert stderr.strip() == (f"{game_file}:1:1: only the side to act may accept a draw offer, and "
                              f"that is White (action 3), not Black (--as black)")
    stderr = refused(game_file, 1, "draw", game_file, "--accept", "--as", "white")
    assert stderr.strip() == (f"{game_file}:1:1: Black has not offered a draw: its last action "
                              f"carries no (=) (an offer stands until the next action) (R23)")


def test_validate_notes_a_flag_fall(tmp_path):
    game_file = tmp_path / "g.tgn"
    ok("new", game_file, "--time-control", "1d", "--time", T0)
    result = ok("move", game_file, "B@e1", "--time", "2026-11-03T09:00Z")      # two days for one
    note = ("action 1 (White) was played after White's time ran out at 2026-11-02T09:00Z; "
            "Black may claim the game (tomis claim)")
    assert f"note: {note}" in result.stdout.splitlines()
    result = ok("validate", game_file)
    assert result.stderr.splitlines() == [f"{game_file}: note: game 1: {note}"]


# --------------------------------------------------------------------------- three emails

def mail(result, path):
    """What a player pastes into an email, saved by the other as ``path``."""
    path.write_text("Hi,\n\nmy move:\n\n" + result.stdout + "\nBest\n", encoding="utf-8")


def test_three_emails_with_lines_offers_and_a_clock_claim(tmp_path):
    ana, bo = tmp_path / "ana.tgn", tmp_path / "bo.tgn"
    sent1, sent2 = tmp_path / "sent1.tgn", tmp_path / "sent2.tgn"

    # Email 1, Ana (White): a new game under a 30-day clock; her base; a draw offer; and
    # two conditional lines: if Bo mirrors her base she places her gate on b1 (and if he
    # then goes to g8, hers goes to f2); if he takes the corner a8 she answers on c1.
    ok("new", ana, "--white", "Ana", "--black", "Bo", "--time-control", "30d+3d", "--time", T0)
    first = ok("move", ana, "B@e1", "--as", "white", "--time", "2026-11-01T10:00Z",
               "--offer-draw", "--then", "B@d8 G@b1 G@g8 G@f2", "--then", "B@a8 G@c1")
    shutil.copy(ana, sent1)
    mail(first, bo)

    # Email 2, Bo (Black): d8 declines Ana's offer and fires her first line: G@b1 is played
    # in Bo's own call, stamped with his minute; her a8 line is cancelled.
    second = ok("move", bo, "B@d8", "--as", "black", "--time", "2026-11-02T10:00Z")
    assert ("White's conditional line stored after action 1 answers B@d8 with G@b1 (action 3)"
            in second.stdout.splitlines())
    game = read(bo)
    assert [str(n.action) for n in game.nodes] == ["B@e1", "B@d8", "G@b1"]
    assert game.nodes[2].comments == ["[%ts 2026-11-02T10:00Z]"]
    # Bo to act again. G@a8 is not G@g8, so the rest of Ana's line is cancelled. He offers
    # a draw and stores a line of his own: if she places her gate on g2, his goes to a7.
    second = ok("move", bo, "G@a8", "--as", "black", "--time", "2026-11-02T10:05Z",
                "--offer-draw", "--then", "G@g2 G@a7")
    assert "Black offers a draw (=)" in second.stdout.splitlines()
    assert [str(n.action) for n in read(bo).nodes] == ["B@e1", "B@d8", "G@b1", "G@a8"]
    shutil.copy(bo, sent2)
    mail(second, ana)

    # Email 3, Ana: she checks the reply is what she sent plus Bo's actions (and the reply
    # her own line played), looks at the clocks, and accepts Bo's offer.
    ok("move", ana, "G@f2", "--as", "white", "--since", sent1, "--dry-run")
    clocks = ok("clock", ana, "--now", "2026-11-03T10:00Z")
    assert clocks.stdout.splitlines() == [
        "TimeControl 30d+3d: 30d each, 3d more after each own action",
        "White: 34d 23h 5m left, to act since 2026-11-02T10:05Z; time runs out at "
        "2026-12-08T09:05Z",
        "Black: 34d 23h 55m left",
    ]
    third = ok("draw", ana, "--accept", "--as", "white")
    assert third.stdout.splitlines()[0] == "White accepts Black's draw offer. Result 1/2-1/2 (R23)"
    game = read(ana)
    assert game.result == "1/2-1/2" and game.nodes[-1].comments[-1] == "[%draw accept]"
    assert ok("validate", ana).stderr == ""

    # Had Ana played on instead, her G@f2 (not G@g2) would have cancelled Bo's line and
    # declined his offer; then Bo went silent, and once his time ran out she claimed.
    quiet = tmp_path / "quiet.tgn"
    shutil.copy(sent2, quiet)
    ok("move", quiet, "G@f2", "--as", "white", "--time", "2026-11-04T08:00Z")
    assert [str(n.action) for n in read(quiet).nodes][-2:] == ["G@a8", "G@f2"]
    stderr = refused(quiet, 1, "draw", quiet, "--accept", "--as", "black")
    assert "White has not offered a draw" in stderr
    stderr = refused(quiet, 1, "claim", quiet, "--as", "white", "--now", "2026-12-09T07:55Z")
    assert stderr.strip() == (f"{quiet}:1:1: Black's time has not run out: 0m left at "
                              f"2026-12-09T07:55Z (TimeControl 30d+3d)")
    stderr = refused(quiet, 1, "claim", quiet, "--as", "black", "--now", "2026-12-31T08:00Z")
    assert stderr.strip() == (f"{quiet}:1:1: White's time has not run out: 37d 1h 5m left at "
                              f"2026-12-31T08:00Z (TimeControl 30d+3d)")
    claimed = ok("claim", quiet, "--as", "white", "--now", "2026-12-09T07:56Z")
    assert claimed.stdout.splitlines()[0] == ("White claims: Black's time ran out at "
                                              "2026-12-09T07:55Z. Result 1-0 (time forfeit)")
    game = read(quiet)
    assert game.result == "1-0" and game.tags["Termination"] == "time forfeit"
    assert game.nodes[-1].comments[-1] == "[%claim 2026-12-09T07:56Z]"
    assert ok("validate", quiet).stderr == ""


# --------------------------------------------------------------------------- at one keyboard

def test_play_stamps_a_timed_game_and_a_bare_draw_is_refused_there(tmp_path):
    game_file = tmp_path / "g.tgn"
    ok("new", game_file, "--time-control", "30d", "--time", T0)
    result = invoke("play", game_file, input="B@e1\ndraw\ny\nquit\n")
    assert result.exit_code == 0, result.stderr
    assert ("in a game with a TimeControl a draw is agreed by accepting an offer, and the last "
            "action carries no (=) (R23)") in result.stderr
    game = read(game_file)            # read back without error: every action is stamped
    assert game.result == "*"
    (stamp,) = game.nodes[0].comments
    assert re.fullmatch(r"\[%ts 20\d\d-\d\d-\d\dT\d\d:\d\dZ\]", stamp)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_validate_notes_an_action_played_after_the_flag_fell(tmp_path, jobs):
    """A late action is valid (the opponent may claim, or play on): validate says so as a note."""
    game_file = tmp_path / "g.tgn"
    ok("new", game_file, "--time-control", "30d+3d", "--time", "2026-11-01T10:00Z")
    ok("move", game_file, "B@e1", "--time", "2026-11-02T10:00Z")
    ok("move", game_file, "B@d8", "--as", "black", "--time", "2026-12-20T10:00Z")
    result = invoke("validate", game_file, "-j", jobs)
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines() == [
        f"{game_file}: note: game 1: action 2 (Black) was played after Black's time ran out at "
        "2026-12-02T10:00Z; White may claim the game (tomis claim)"]
