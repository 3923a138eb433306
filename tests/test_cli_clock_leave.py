"""tomis clock for ICCF-style N/Md controls and leave: time left to the next control
point, leave taken and left this year, a side on leave, and who may claim."""

from __future__ import annotations

import pytest

from conftest import invoke

ICCF = """\
[White "Ana"]
[Black "Bo"]
[Result "*"]
[TimeControl "10/30d"]

{[%ts 2026-11-01T10:00Z] [%leave 2026-11-03 2026-11-12]} 1. B@e1 {[%ts 2026-11-02T10:00Z]}
B@d8 {[%ts 2026-11-20T10:00Z] [%leave 2026-12-20 2027-01-03]}
2. G@b1 {[%ts 2026-11-21T12:00Z]} *
"""
# Both leaves are Black's: the first stands before the first action (the side that does
# not act first), the second after Black's own action.
# White used 1d and 1d 2h of the 30d to its 10th action: 27d 22h left. Black's 18 days
# held 10 of leave, so it used 8: 22d left, to act since 2026-11-21T12:00Z.


@pytest.fixture
def iccf(tmp_path):
    path = tmp_path / "iccf.tgn"
    path.write_text(ICCF, encoding="utf-8")
    return path


def clock_at(path, now):
    result = invoke("clock", path, "--now", now)
    assert result.exit_code == 0, result.stderr
    return result.stdout.splitlines()


def test_clock_shows_time_to_the_next_control_point_and_leave_ahead(iccf):
    assert clock_at(iccf, "2026-11-25T10:00Z") == [
        "TimeControl 10/30d: 10 own actions in 30d, cumulative (time saved carries forward)",
        "White: 27d 22h left until its 10th action",
        "Black: 18d 2h left until its 10th action, to act since 2026-11-21T12:00Z; time runs out "
        "at 2026-12-13T12:00Z",
        "Leave in 2026 (45 days a side per calendar year): White 0 taken, 45 left; Black 22 "
        "taken, 23 left",
        "Black takes leave from 2026-12-20 to 2027-01-03",
    ]


def test_clock_during_leave_and_after_the_flag_fell(iccf):
    lines = clock_at(iccf, "2026-12-25T10:00Z")
    assert lines[2:] == [
        "Black: no time left, to act since 2026-11-21T12:00Z",
        "Leave in 2026 (45 days a side per calendar year): White 0 taken, 45 left; Black 22 "
        "taken, 23 left",
        "Black is on leave from 2026-12-20 to 2027-01-03: its clock stands still",
        f"Black's time ran out at 2026-12-13T12:00Z: White may claim the game "
        f"(tomis claim {iccf} --as white)",
    ]
    # In the next year, only the days of January count.
    assert clock_at(iccf, "2027-01-10T00:00Z")[3] == (
        "Leave in 2027 (45 days a side per calendar year): White 0 taken, 45 left; Black 3 "
        "taken, 42 left")


def test_leave_moves_the_deadline(tmp_path):
    path = tmp_path / "g.tgn"
    path.write_text(ICCF.replace("2026-12-20 2027-01-03", "2026-12-01 2026-12-10"), encoding="utf-8")
    # 22 days from 2026-11-21T12:00Z, with 10 of them stopped: 2026-12-23T12:00Z.
    assert clock_at(path, "2026-12-05T00:00Z")[2].endswith("time runs out at 2026-12-23T12:00Z")


def test_a_leave_naming_its_side_on_its_own_turn_moves_its_deadline(tmp_path):
    # Black is to act since White's action 3; it names itself to take leave there.
    path = tmp_path / "g.tgn"
    path.write_text(ICCF.replace(" [%leave 2026-12-20 2027-01-03]", "").replace(
        "2. G@b1 {[%ts 2026-11-21T12:00Z]}",
        "2. G@b1 {[%ts 2026-11-21T12:00Z] [%leave black 2026-12-01 2026-12-10]}"), encoding="utf-8")
    lines = clock_at(path, "2026-12-05T00:00Z")
    # 22 days from 2026-11-21T12:00Z, 10 of them on leave: as if written after its own action.
    assert lines[2].endswith("time runs out at 2026-12-23T12:00Z")
    assert lines[3] == ("Leave in 2026 (45 days a side per calendar year): White 0 taken, 45 left; "
                        "Black 20 taken, 25 left")
    assert lines[4] == "Black is on leave from 2026-12-01 to 2026-12-10: its clock stands still"
    # Named for White, the same days stop White's clock, which is not running: Black's runs on.
    path.write_text(path.read_text(encoding="utf-8").replace("[%leave black 2026-12-01", "[%leave white 2026-12-01"),
                    encoding="utf-8")
    assert clock_at(path, "2026-12-05T00:00Z")[2].endswith("time runs out at 2026-12-13T12:00Z")


def test_validate_refuses_a_malformed_named_leave_in_one_line_at_the_comment(tmp_path):
    path = tmp_path / "g.tgn"
    path.write_text(ICCF.replace("2. G@b1 {[%ts 2026-11-21T12:00Z]}",
                                 "2. G@b1 {[%ts 2026-11-21T12:00Z] [%leave blak 2026-12-01 2026-12-10]}"),
                    encoding="utf-8")
    before = path.read_bytes()
    result = invoke("validate", path)
    assert result.exit_code == 1
    said = [line for line in (result.stdout + result.stderr).splitlines() if "[%leave" in line]
    assert said == [f"{path}:8:42: game 1: [%leave ...]: a leave is written like [%leave "
                    f"2026-12-20 2027-01-03]: its first and last day, or like [%leave white "
                    f"2026-12-20 2027-01-03], naming its side; found 'blak 2026-12-01 2026-12-10'"]
    assert "Traceback" not in result.stdout + result.stderr
    assert path.read_bytes() == before


def test_claim_refused_while_leave_holds_the_flag_up(tmp_path):
    path = tmp_path / "g.tgn"
    path.write_text(ICCF.replace("2026-12-20 2027-01-03", "2026-12-01 2026-12-10"), encoding="utf-8")
    before = path.read_bytes()
    result = invoke("claim", path, "--as", "white", "--now", "2026-12-20T00:00Z")
    assert result.exit_code == 1
    assert "Black's time has not run out: 3d 12h left at 2026-12-20T00:00Z" in result.stderr
    assert path.read_bytes() == before
    won = invoke("claim", path, "--as", "white", "--now", "2026-12-23T12:01Z")
    assert won.exit_code == 0, won.stderr
    assert "Black's time ran out at 2026-12-23T12:00Z" in won.stdout


def test_validate_refuses_a_leave_taken_after_the_fact(tmp_path):
    path = tmp_path / "g.tgn"
    path.write_text(ICCF.replace("[%leave 2026-11-03", "[%leave 2026-11-01"), encoding="utf-8")
    result = invoke("validate", path)
    assert result.exit_code == 1
    assert (f"{path}:6:26: game 1: [%leave 2026-11-01 2026-11-12]: leave is taken ahead, but "
            f"its first day begins before the timestamp it follows, 2026-11-01T10:00Z") in result.stdout + result.stderr


def test_move_counts_leave_before_calling_an_action_late(tmp_path):
    path = tmp_path / "g.tgn"
    before = ('[TimeControl "1/1d"]\n\n{[%ts 2026-11-01T09:00Z] [%leave 2026-11-02 2026-11-02]} '
              '1. B@e1 {[%ts 2026-11-01T09:00Z]} *\n')
    path.write_text(before, encoding="utf-8")
    # Black's two days for one action, one of them on leave: on time, no note.
    result = invoke("move", path, "B@d8", "--as", "black", "--time", "2026-11-03T09:00Z")
    assert result.exit_code == 0, result.stderr
    assert not any("note:" in line for line in result.stdout.splitlines())
    # A minute more is late, and the note names the deadline the leave moved.
    path.write_text(before, encoding="utf-8")
    result = invoke("move", path, "B@d8", "--as", "black", "--time", "2026-11-03T09:01Z")
    assert result.exit_code == 0, result.stderr
    assert ("note: action 2 (Black) was played after Black's time ran out at 2026-11-03T09:00Z; "
            "White may claim the game (tomis claim)") in result.stdout.splitlines()


def test_new_with_an_iccf_control_and_leave_days(tmp_path):
    from tomis.notation import record

    path = tmp_path / "g.tgn"
    result = invoke("new", path, "--time-control", "10/30d", "--leave-days", "30",
                    "--time", "2026-11-01T10:00Z")
    assert result.exit_code == 0, result.stderr
    game = record.read_game(path.read_text(encoding="utf-8"))
    assert (game.tags["TimeControl"], game.tags["LeaveDays"]) == ("10/30d", "30")
    assert clock_at(path, "2026-11-02T10:00Z")[3] == (
        "Leave in 2026 (30 days a side per calendar year): White 0 taken, 30 left; Black 0 "
        "taken, 30 left")


@pytest.mark.parametrize("args, message", [
    (["--leave-days", "30"], "Invalid value for --leave-days: --leave-days is for a game with a "
                             "clock: give --time-control too"),
    (["--time-control", "10/30d", "--leave-days", "400"], "Invalid value for '--leave-days'"),
    (["--time-control", "10/30d+1d"], "Invalid value for --time-control: an N/Md time control "
                                      "stands alone"),
])
def test_new_refuses_bad_leave_options_and_writes_nothing(tmp_path, args, message):
    path = tmp_path / "g.tgn"
    result = invoke("new", path, *args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert not path.exists()
