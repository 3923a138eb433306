"""tomis clock / claim / draw --accept / resign: correspondence commands through click's CliRunner."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from tomis import corr_cli, record
from tomis.cli import TomisGroup

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


def _group():
    group = TomisGroup(name="tomis")
    corr_cli.register(group)
    return group


def invoke(*args):
    try:
        runner = CliRunner(mix_stderr=False)
    except TypeError:            # click 8.2 keeps stderr apart by itself
        runner = CliRunner()
    return runner.invoke(_group(), [str(a) for a in args], catch_exceptions=False)


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
