"""The referee's own outages credited, and the organiser's credit (issue 42): a gap
between takes longer than ``init --outage-after`` is written ``[%outage]`` into the games
whose clocks ran in it, before tick looks at any time-out; ``tomis referee credit``
writes ``[%credit]``. Through the CLI in process on a real store, with ``--now``."""

from __future__ import annotations

import re
import sqlite3

import pytest

import tomis
from referee_support import ANA, BO, Lab, REFEREE, body_of, run
from tomis.notation import clock
from tomis.notation.clock import DAY, HOUR
from tomis.referee.durations import DurationError, parse_setting_duration

TOLD = ("The referee could not take mail from 2026-11-23T11:00Z to 2026-11-23T14:00Z; "
        "that time was given back to your clocks.")


def _ok(*args):
    result = run(*args)
    assert result.exit_code == 0, result.output
    return result


def _fails(*args, code=1):
    result = run(*args)
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    return result


def _new(lab, *args) -> int:
    return int(_ok("referee", "new", lab.db, "--white", "Cy <cy@c.test>", "--black",
                   "Di <di@d.test>", "--now", "2026-11-23T10:00Z", *args).stdout)


def _record(lab, number) -> str:
    return _ok("referee", "export", lab.db, number).stdout


def _tick(lab, now):
    return _ok("referee", "tick", lab.db, "--now", now)


def _clocks(text, now):
    """Each side's time left at ``now`` as the library reads the record ``text``."""
    game = next(iter(tomis.read_games(text)))
    _facts, ran = game.clock()
    to_move = game.record.final.to_move
    return tuple(ran.time_left(side, to_move, clock.parse_stamp(now)) for side in (0, 1))


# --------------------------------------------------------------------------- outages

def test_a_three_hour_gap_between_ticks_is_credited_to_the_running_clocks_only(tmp_path):
    lab = Lab(tmp_path, time_control="30d+3d", outage_after="1h")
    untimed = _new(lab)
    ended = _new(lab, "--time-control", "30d")
    _ok("referee", "adjudicate", lab.db, ended, "1-0", "--reason", "a mistake",
        "--now", "2026-11-23T10:30Z")
    _tick(lab, "2026-11-23T11:00Z")
    lab.new_messages()
    _tick(lab, "2026-11-23T14:00Z")
    text = _record(lab, lab.game)
    assert "{[%outage 2026-11-23T11:00Z 2026-11-23T14:00Z]}" in text
    assert "[%outage" not in _record(lab, untimed) and "[%outage" not in _record(lab, ended)
    # White, to act since 10:00, used 10:00-11:00 and 14:00-15:00; the 3 hours between
    # are given back. Black's clock did not run.
    assert _clocks(text, "2026-11-23T15:00Z") == (30 * DAY - 2 * HOUR, 30 * DAY)
    # Both players are told in the next message each gets, and once.
    assert lab.new_messages() == []
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-23T14:10Z")
    told = lab.new_messages()
    assert sorted(str(m["To"]) for m in told) == sorted([ANA, BO])
    assert all(TOLD in body_of(m) for m in told)
    lab.deliver(lab.reply(1, "B@d8"), "2026-11-23T14:20Z")
    assert not any(TOLD in body_of(m) for m in lab.new_messages())
    assert lab.query("SELECT begins, ends, games FROM outages") == [
        (clock.parse_stamp("2026-11-23T11:00Z"), clock.parse_stamp("2026-11-23T14:00Z"), 1)]
    # The game's page shows it, as its record does.
    _ok("referee", "page", lab.db, "-o", tmp_path / "pages", "--now", "2026-11-23T14:00Z")
    page = (tmp_path / "pages" / f"game-{lab.game}.html").read_text(encoding="utf-8")
    assert "[%outage 2026-11-23T11:00Z 2026-11-23T14:00Z]" in page
    # The next tick is no outage, and the record is not credited twice.
    text = _record(lab, lab.game)
    _tick(lab, "2026-11-23T14:30Z")
    assert _record(lab, lab.game) == text and text.count("[%outage") == 1


def test_a_short_gap_and_a_referee_that_never_ticked_credit_nothing(tmp_path):
    lab = Lab(tmp_path, outage_after="1h")
    # Before the first tick nothing is known of the referee's rounds: no outage.
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-23T15:00Z")
    _tick(lab, "2026-11-23T16:00Z")
    _tick(lab, "2026-11-23T17:00Z")          # exactly outage_after (1h): no outage
    assert "[%outage" not in lab.record()


def test_outage_after_off_credits_nothing_and_a_bad_value_creates_no_store(tmp_path):
    lab = Lab(tmp_path, outage_after="1h")
    lab.query("UPDATE settings SET value = 'off' WHERE key = 'outage_after'")
    _tick(lab, "2026-11-23T11:00Z")
    _tick(lab, "2026-11-23T20:00Z")
    assert "[%outage" not in lab.record()
    bad = tmp_path / "bad.db"
    said = _fails("referee", "init", bad, "--address", REFEREE, "--send-by", "outbox:x",
                  "--outage-after", "3 hours")
    assert "--outage-after '3 hours': a duration is written like 90m, 6h, 2d or 1d12h, or off" \
        in said.output
    assert not bad.exists()
    for name, given, kept in [("off.db", ["--outage-after", "off"], "off"),
                              ("90m.db", ["--outage-after", "90m"], "1h30m"),
                              ("default.db", [], "1h")]:
        _ok("referee", "init", tmp_path / name, "--address", REFEREE, "--send-by", "outbox:x",
            *given)
        with sqlite3.connect(tmp_path / name) as connection:
            assert connection.execute("SELECT value FROM settings WHERE key = 'outage_after'"
                                      ).fetchall() == [(kept,)]


def test_fetch_is_a_take_that_credits_the_outage_it_ends(tmp_path):
    lab = Lab(tmp_path, outage_after="1h")
    maildir = tmp_path / "Maildir"
    for part in ("new", "cur", "tmp"):
        (maildir / part).mkdir(parents=True)
    _tick(lab, "2026-11-23T11:00Z")
    _ok("referee", "fetch", lab.db, "--maildir", maildir, "--now", "2026-11-23T14:00Z")
    assert "{[%outage 2026-11-23T11:00Z 2026-11-23T14:00Z]}" in lab.record()


def test_an_outage_is_credited_before_tick_looks_at_time_outs(tmp_path):
    # 1d each: White is to act from 10:00, so its time runs out at 10:00 the next day,
    # while the referee heard nothing from 11:00 to 12:00 the next day.
    (tmp_path / "on").mkdir()
    credited = Lab(tmp_path / "on", time_control="1d", outage_after="1h")
    _tick(credited, "2026-11-23T11:00Z")
    _tick(credited, "2026-11-24T12:00Z")
    assert "[%outage 2026-11-23T11:00Z 2026-11-24T12:00Z]" in credited.record()
    assert "time forfeit" not in credited.record()
    credited.deliver(credited.reply(0, "B@e1"), "2026-11-24T12:30Z")
    assert "B@e1 {[%ts 2026-11-24T12:30Z]}" in credited.record()
    # The same gap with outages off: White loses on time at that tick.
    (tmp_path / "off").mkdir()
    lost = Lab(tmp_path / "off", time_control="1d", outage_after="1h")
    lost.query("UPDATE settings SET value = 'off' WHERE key = 'outage_after'")
    _tick(lost, "2026-11-23T11:00Z")
    _tick(lost, "2026-11-24T12:00Z")
    assert '[Termination "time forfeit"]' in lost.record()


def test_deliver_credits_the_outage_it_ends_before_the_action_it_brings(tmp_path):
    lab = Lab(tmp_path, time_control="1d", outage_after="1h")
    _tick(lab, "2026-11-23T11:00Z")
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-23T15:00Z")
    text = lab.record()
    assert re.search(r"\{\[%outage 2026-11-23T11:00Z 2026-11-23T15:00Z\]\}\s+1\. B@e1 "
                     r"\{\[%ts 2026-11-23T15:00Z\]\}", text), text
    # White used only 10:00-11:00 of its day.
    assert _clocks(text, "2026-11-23T15:00Z") == (DAY - HOUR, DAY)


def test_the_credited_record_reads_in_tomis_clock_as_the_referee_mailed_it(tmp_path):
    lab = Lab(tmp_path, outage_after="1h")
    _tick(lab, "2026-11-23T11:00Z")
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-23T14:00Z")     # ends the outage
    mailed = body_of(lab.last_to(0))
    assert TOLD in mailed
    path = tmp_path / "game.tgn"
    path.write_text(_record(lab, lab.game), encoding="utf-8")
    shown = _ok("clock", path, "--now", "2026-11-23T14:00Z").stdout.splitlines()
    sides = [line for line in shown if line.startswith(("White", "Black"))]
    assert len(sides) == 2
    for line in sides:
        name = "White (Ana Lungu)" if line.startswith("White") else "Black (Bo Marin)"
        assert name + line[5:] in mailed, (line, mailed)
    assert "32d 23h left" in sides[0]               # 1h used, 10:00-11:00, and 3d more
    assert _clocks(path.read_text(), "2026-11-23T14:00Z") == (33 * DAY - HOUR, 30 * DAY)


# --------------------------------------------------------------------------- credit

def test_the_organiser_credits_a_side_and_both_players_are_told(tmp_path):
    lab = Lab(tmp_path, time_control="1d", outage_after="1h")
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-23T11:00Z")
    lab.new_messages()
    _ok("referee", "credit", lab.db, lab.game, "black", "1d12h", "--reason",
        "the club's server moved", "--now", "2026-11-23T12:00Z")
    text = lab.record()
    assert "{[%credit black 1d12h] organiser: the club's server moved}" in text
    assert _clocks(text, "2026-11-23T12:00Z") == (DAY - HOUR, DAY + 36 * HOUR - HOUR)
    told = lab.new_messages()
    assert len(told) == 2
    assert all("The organiser gave Black 1d 12h more time. Reason: the club's server moved"
               in body_of(m) for m in told)


@pytest.mark.parametrize("args, words", [
    (["black", "2 days"], "DURATION '2 days': a duration is written like 90m, 6h, 2d or 1d12h"),
    (["black", "0m"], "DURATION '0m': a duration of at least 1m"),
    (["black", "off"], "DURATION 'off': a duration is written like 90m, 6h, 2d or 1d12h"),
])
def test_credit_refuses_a_bad_duration_in_one_line_and_changes_nothing(tmp_path, args, words):
    lab = Lab(tmp_path)
    before = lab.record()
    assert words in _fails("referee", "credit", lab.db, lab.game, *args, "--reason", "x").output
    assert lab.record() == before


def test_credit_refuses_what_it_cannot_give(tmp_path):
    lab = Lab(tmp_path, time_control="1d", outage_after="1h")
    before = lab.record()
    late = _fails("referee", "credit", lab.db, lab.game, "white", "1h", "--reason", "x",
                  "--now", "2026-11-24T10:01Z")
    assert "White's time ran out at 2026-11-24T10:00Z; a credit does not give a lost game back" \
        in late.output
    assert "--reason" in _fails("referee", "credit", lab.db, lab.game, "white", "1h",
                                "--reason", "a } b").output
    assert lab.record() == before
    assert "no game 9" in _fails("referee", "credit", lab.db, 9, "white", "1h",
                                 "--reason", "x").output
    untimed = _new(lab)
    assert "has no clocks" in _fails("referee", "credit", lab.db, untimed, "white", "1h",
                                     "--reason", "x").output
    _ok("referee", "abort", lab.db, lab.game, "--reason", "x")
    assert "has ended" in _fails("referee", "credit", lab.db, lab.game, "white", "1h",
                                 "--reason", "x").output
    run_result = run("referee", "credit", lab.db, untimed, "grey", "1h", "--reason", "x")
    assert run_result.exit_code == 2


# --------------------------------------------------------------------------- one form

@pytest.mark.parametrize("text, can_be_off, seconds", [
    ("90m", False, 90 * 60), ("6h", False, 6 * HOUR), ("2d", True, 2 * DAY),
    ("1d12h", True, 36 * HOUR), ("off", True, None)])
def test_settings_durations_take_one_form(text, can_be_off, seconds):
    assert parse_setting_duration(text, can_be_off) == seconds


@pytest.mark.parametrize("text, can_be_off", [
    ("off", False), ("90", True), ("1h30m2s", True), ("12h1d", True), ("0m", True), ("", True),
    ("1.5h", True), ("9999d", True)])
def test_settings_durations_refuse_every_other_form(text, can_be_off):
    with pytest.raises(DurationError):
        parse_setting_duration(text, can_be_off)


def test_the_setting_a_settings_command_changes_is_read_at_the_next_take(tmp_path):
    lab = Lab(tmp_path, outage_after="off")
    said = _fails("referee", "settings", lab.db, "--outage-after", "2 h")
    assert "--outage-after '2 h': a duration is written like 90m, 6h, 2d or 1d12h, or off" \
        in said.output
    shown = _ok("referee", "settings", lab.db, "--outage-after", "90m").stdout
    assert "outage-after" in shown and "1h30m" in shown
    _tick(lab, "2026-11-23T11:00Z")
    _tick(lab, "2026-11-23T12:30Z")              # 90m: no outage yet
    _tick(lab, "2026-11-23T14:01Z")
    assert "{[%outage 2026-11-23T12:30Z 2026-11-23T14:01Z]}" in lab.record()
