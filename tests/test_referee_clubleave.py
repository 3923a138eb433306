"""Leave across a player's games (issue 43, tomis.referee.clubleave): one period written
into each game's record, counted once against the club's yearly allowance (the setting
leave_days), refused whole, cancelled before it begins."""

from __future__ import annotations

import re

import pytest

from referee_support import REFEREE, run


def _ok(*args):
    result = run(*args)
    assert result.exit_code == 0, result.output
    return result


# --------------------------------------------------------------------------- the club's allowance

def test_the_clubs_leave_days_default_to_45_and_init_and_settings_change_them(tmp_path):
    plain, other = tmp_path / "plain.db", tmp_path / "other.db"
    _ok("referee", "init", plain, "--address", REFEREE, "--send-by", f"outbox:{tmp_path}")
    assert re.search(r"^leave-days: 45$", _ok("referee", "settings", plain).stdout, re.M)
    _ok("referee", "settings", plain, "--leave-days", "30")
    assert re.search(r"^leave-days: 30$", _ok("referee", "settings", plain).stdout, re.M)
    _ok("referee", "init", other, "--address", REFEREE, "--send-by", f"outbox:{tmp_path}",
        "--leave-days", "0")
    assert re.search(r"^leave-days: 0$", _ok("referee", "settings", other).stdout, re.M)


@pytest.mark.parametrize("value", ["367", "-1", "45d", "", "forty", "1e2", "٤٥", "30\nx"])
def test_bad_leave_days_are_refused_in_one_line_and_nothing_changes(tmp_path, value):
    db = tmp_path / "club.db"
    _ok("referee", "init", db, "--address", REFEREE, "--send-by", f"outbox:{tmp_path}")
    result = run("referee", "settings", db, "--leave-days", value)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert "a number of days from 0 to 366" in result.output
    assert re.search(r"^leave-days: 45$", _ok("referee", "settings", db).stdout, re.M)
    refused = run("referee", "init", tmp_path / "new.db", "--address", REFEREE,
                  "--send-by", f"outbox:{tmp_path}", "--leave-days", value)
    assert refused.exit_code == 1 and not (tmp_path / "new.db").exists()
