"""How a game ended, read from any record (tomis.Game.ending, tomis.notation.ending) and
written by note_ending; the clocks of a game won on time; and `tomis move` in the minute
of a record's last stamp (issue 41, findings 5, 6 and 7)."""

from __future__ import annotations

import time
from datetime import datetime, timezone

import pytest

import tomis
from conftest import ROOT, invoke
from test_archive import BASE_SEED, NO_ACTION_SEED, QUIET_SEED, random_game

SAMPLES = ROOT / "samples"
TIMED = """\
[White "Ana"]
[Black "Bo"]
[Result "*"]
[TimeControl "30d+3d"]

{[%ts 2026-11-01T10:00Z]} 1. B@e1 {[%ts 2026-11-02T10:00Z]} B@d8 {[%ts 2026-11-05T10:00Z]}
2. G@b1 {[%ts 2026-11-05T12:00Z]} *
"""
# Black is to act from 2026-11-05T12:00Z with 30d: its time runs out at 2026-12-05T12:00Z.


def _ending(game):
    ending = game.ending
    return None if ending is None else (ending.word, ending.words)


@pytest.mark.parametrize("make, expected", [
    (lambda: random_game(BASE_SEED, "A", "B", 1), ("base destroyed", "Black's base destroyed")),
    (lambda: random_game(NO_ACTION_SEED, "A", "B", 1), ("no action", "no action for Black")),
    (lambda: random_game(QUIET_SEED, "A", "B", 1), ("quiet actions", "100 quiet actions")),
    (lambda: tomis.read_game(SAMPLES / "repetition-draw.tgn"), ("repetition", "repetition")),
    (lambda: tomis.read_game(SAMPLES / "resignation.tgn"), ("resignation", "Black resigned")),
])
def test_the_ending_of_a_record_written_before_is_read_from_the_rules_and_the_result(make, expected):
    game = make()
    assert "Termination" not in game.tags
    assert _ending(game) == expected


def test_every_ending_by_the_players_or_an_arbiter_has_its_word():
    def timed():
        game = tomis.read_game(TIMED)
        assert _ending(game) is None             # still played
        return game

    resigned, agreed, adjudicated, aborted, claimed = (timed() for _ in range(5))
    resigned.resign("white")
    agreed.offer_draw()
    agreed.accept_draw("black")
    adjudicated.adjudicate("1/2-1/2", "a long story")
    aborted.abort("nobody came")
    claimed.claim_time("white", "2026-12-06T09:00Z")
    assert [_ending(game) for game in (resigned, agreed, adjudicated, aborted, claimed)] == [
        ("resignation", "White resigned"), ("agreement", "draw agreed"),
        ("adjudication", "adjudication"), ("abandoned", "abandoned"),
        ("time forfeit", "time forfeit by Black")]


def test_note_ending_writes_termination_normal_and_a_comment_that_read_back_the_same():
    game = tomis.read_game(TIMED)
    game.offer_draw()
    game.accept_draw("black")
    game.note_ending()
    game.note_ending()                              # never twice
    text = str(game)
    assert '[Termination "normal"]' in text
    assert "{[%draw accept]} {draw agreed} 1/2-1/2" in " ".join(text.split())
    again = tomis.read_game(text)
    assert again.error is None and _ending(again) == ("agreement", "draw agreed")
    assert invoke("validate", "-", input=text).exit_code == 0


def test_note_ending_leaves_pgns_own_values_alone_and_refuses_a_game_in_play():
    claimed = tomis.read_game(TIMED)
    claimed.claim_time("white", "2026-12-06T09:00Z")
    before = str(claimed)
    claimed.note_ending()
    assert str(claimed) == before and claimed.tags["Termination"] == "time forfeit"
    playing = tomis.read_game(TIMED)
    with pytest.raises(tomis.TomisError, match="the game has not ended"):
        playing.note_ending()
    assert str(playing) == str(tomis.read_game(TIMED))


def test_a_noted_resignation_still_reads_by_resignation_on_the_board_and_the_page(tmp_path):
    game = tomis.read_game(SAMPLES / "resignation.tgn")
    game.note_ending()
    path = tmp_path / "noted.tgn"
    path.write_text(str(game), encoding="utf-8")
    shown = invoke("show", path).stdout
    assert "Game over: 1-0, by resignation (R23)" in shown and "normal" not in shown
    page = invoke("export", path, "--html", "-o", tmp_path / "noted.html")
    assert page.exit_code == 0, page.stderr
    html = (tmp_path / "noted.html").read_text(encoding="utf-8")
    assert "by resignation (R23)" in html and "normal (R23)" not in html


def test_undo_takes_the_note_back_with_the_ending():
    game = tomis.read_game(TIMED)
    before = str(game)
    game.resign("black")
    game.note_ending()
    assert game.undo() is None and str(game) == before
    ruled = random_game(BASE_SEED, "A", "B", 1)
    played = str(ruled)
    ruled.note_ending()
    assert ruled.nodes[-1].comments[-1] == "Black's base destroyed"
    ruled.undo()
    assert "Termination" not in ruled.tags and "destroyed" not in str(ruled)
    assert ruled.play(str(tomis.read_game(played).actions[-1])).is_over


# --------------------------------------------------------------------------- time forfeit

def test_after_a_claim_the_losers_clock_says_its_time_ran_out(tmp_path):
    path = tmp_path / "timed.tgn"
    path.write_text(TIMED, encoding="utf-8")
    assert invoke("claim", path, "--as", "white", "--now", "2026-12-06T09:00Z").exit_code == 0
    result = invoke("clock", path, "--now", "2027-02-01T10:00Z")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[2] == "Black: time ran out" and "30d left" not in result.stdout
    assert tomis.read_game(path).time_left("2027-02-01T10:00Z")["black"] == -21 * 3600


# --------------------------------------------------------------------------- tomis move's now

def _stamped_this_minute(tmp_path, offset: int = 0):
    """A record whose last stamp is this second plus ``offset`` seconds, in this minute
    (it waits for the next minute when too few seconds are left in this one)."""
    now = int(time.time())
    if now % 60 == 0 or now % 60 > 50:
        time.sleep(61 - now % 60)
        now = int(time.time())
    stamp = datetime.fromtimestamp(now + offset, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    path = tmp_path / "referee.tgn"
    path.write_text(f'[TimeControl "30d+3d"]\n\n{{[%ts 2026-11-01T09:00Z]}} 1. B@e1 '
                    f'{{[%ts {stamp}]}} *\n', encoding="utf-8")
    return path, stamp


def test_move_works_in_the_minute_of_a_referees_stamp(tmp_path):
    path, stamp = _stamped_this_minute(tmp_path)
    result = invoke("move", path, "B@d8")
    assert result.exit_code == 0, result.stderr
    game = tomis.read_game(path)
    assert str(game.actions[-1]) == "B@d8"
    assert game.nodes[-1].comments == (f"[%ts {stamp}]",)


def test_a_record_stamped_after_now_blames_the_clock_not_an_option_never_given(tmp_path):
    path, _stamp = _stamped_this_minute(tmp_path, offset=3600)
    before = path.read_text(encoding="utf-8")
    result = invoke("move", path, "B@d8")
    assert result.exit_code == 1
    assert "--time" not in result.stderr.split(":")[0] and "Invalid value" not in result.stderr
    assert "is later than this computer's clock" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert path.read_text(encoding="utf-8") == before


def test_an_explicit_time_before_the_last_stamp_names_time(tmp_path):
    path, stamp = _stamped_this_minute(tmp_path)
    result = invoke("move", path, "B@d8", "--time", "2026-11-02T10:00Z")
    assert result.exit_code == 2
    assert (f"Invalid value for --time: 2026-11-02T10:00Z is earlier than the record's last "
            f"timestamp, {stamp}") in result.stderr


def test_play_stamps_an_action_in_the_minute_of_a_referees_stamp(tmp_path):
    path, stamp = _stamped_this_minute(tmp_path)
    result = invoke("play", path, input="B@d8\nquit\n")
    assert result.exit_code == 0, result.stderr
    assert "--time" not in result.stderr
    assert tomis.read_game(path).nodes[-1].comments == (f"[%ts {stamp}]",)


def test_claim_works_in_the_minute_of_a_late_action_a_referee_stamped(tmp_path):
    path, stamp = _stamped_this_minute(tmp_path)          # Black's B@d8, days late for 1d
    path.write_text(path.read_text(encoding="utf-8").replace(
        '"30d+3d"', '"1d"').replace("1. B@e1 ", "1. B@e1 {[%ts 2026-11-01T10:00Z]} B@d8 "),
        encoding="utf-8")
    assert tomis.read_game(path).flag_falls[0].side == "black"
    result = invoke("claim", path, "--as", "white")
    assert result.exit_code == 0, result.stderr
    assert tomis.read_game(path).nodes[-1].comments[-1] == f"[%claim {stamp}]"
