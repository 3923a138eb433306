"""How a refereed game ended, everywhere it is shown (issue 41, findings 5 and 6): the
record ([Termination "normal"] and a comment, or PGN's own Termination value), the
letters, `referee games --all` and its --json, the status pages, and an old store's
finished games; and a time forfeit's clocks, which say the loser's time ran out."""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
import zlib

import pytest

import tomis
from conftest import ROOT
from referee_support import Lab, attachment, body_of, run
from tomis.referee import pages
from tomis.rules import core

V2 = ROOT / "tests" / "data" / "referee" / "store-v2.sqlite"    # schema 2, one game in play
BASE_SEED = 432      # a seeded random game that ends in 23 actions: Black's base destroyed (R21)


@pytest.fixture
def lab(tmp_path):
    return Lab(tmp_path)


def _ok(*args, input=None):
    result = run(*args, input=input)
    assert result.exit_code == 0, result.output
    return result


def _listed(lab, now="2026-11-24T10:00Z") -> tuple[str, dict]:
    """The game's line of ``games --all`` and its object of ``games --all --json``."""
    line = _ok("referee", "games", lab.db, "--all", "--now", now).stdout.strip()
    listed = json.loads(_ok("referee", "games", lab.db, "--all", "--json", "--now", now).stdout)
    return line, listed


def _ended_letters(lab) -> list[str]:
    """The bodies of the messages the ending sent, after checking each attached record
    is one `tomis validate` accepts and says the same as the store's."""
    messages = lab.new_messages()
    assert len(messages) == 2
    for message in messages:
        attached = attachment(message, ".tgn")
        assert attached.replace("\r\n", "\n") == lab.record()
        assert run("validate", "-", input=attached).exit_code == 0
    return [body_of(message) for message in messages]


def test_a_resignation_is_kept_in_the_record_and_named_everywhere(lab):
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-23T11:00Z")
    lab.new_messages()
    lab.deliver(lab.reply(1, "resign"), "2026-11-23T12:00Z")
    bodies = _ended_letters(lab)
    game = tomis.read_game(lab.record())
    assert game.result == "1-0" and game.tags["Termination"] == "normal"
    assert game.nodes[-1].comments[-1] == "Black resigned"
    assert "{Black resigned} 1-0" in " ".join(lab.record().split())
    assert all("The game has ended: 1-0 (Black resigned)" in body for body in bodies)
    line, listed = _listed(lab)
    assert "ended 1-0 Black resigned" in line and "on the board" not in line
    assert listed["termination"] == "resignation"


def test_an_agreed_draw_says_draw_agreed_after_the_accepted_offer(lab):
    lab.deliver(lab.reply(0, "B@e1 draw"), "2026-11-23T11:00Z")
    lab.new_messages()
    lab.deliver(lab.reply(1, "accept"), "2026-11-23T12:00Z")
    bodies = _ended_letters(lab)
    assert "{[%draw accept]} {draw agreed} 1/2-1/2" in lab.record().replace("\n", " ")
    assert tomis.read_game(lab.record()).tags["Termination"] == "normal"
    assert all("The game has ended: 1/2-1/2 (draw agreed)" in body for body in bodies)
    line, listed = _listed(lab)
    assert "ended 1/2-1/2 draw agreed" in line and listed["termination"] == "agreement"


@pytest.mark.slow            # 9 s: a game played by the rules to its end
def test_an_end_by_the_rules_is_named_in_the_record_too(lab):
    rng = random.Random(BASE_SEED)       # the game test_archive's club plays to R21
    state = core.new_game("manual")
    actions = []
    while not state.is_over:
        action = rng.choice(sorted(core.legal_actions(state), key=str))
        state, _ = core.apply_unchecked(state, action)
        actions.append(str(action))
    for number, action in enumerate(actions):
        lab.deliver(lab.reply(number % 2, action), f"2026-11-23T{10 + number // 60:02d}:"
                                                   f"{number % 60:02d}Z")
    game = tomis.read_game(lab.record())
    assert game.position.reason == "Black's base destroyed (R21)"
    assert game.tags["Termination"] == "normal"
    assert game.nodes[-1].comments[-1] == "Black's base destroyed"
    line, listed = _listed(lab)
    assert "ended 1-0 Black's base destroyed" in line and listed["termination"] == "base destroyed"


def test_the_organisers_endings_keep_pgns_own_termination_values(lab, tmp_path):
    _ok("referee", "adjudicate", lab.db, lab.game, "1/2-1/2", "--reason", "agreed by phone",
        "--now", "2026-11-24T10:00Z")
    (tmp_path / "other").mkdir()
    other = Lab(tmp_path / "other")
    _ok("referee", "abort", other.db, other.game, "--reason", "nobody came",
        "--now", "2026-11-24T10:00Z")
    for each, word, shown in ((lab, "adjudication", "ended 1/2-1/2 adjudication"),
                              (other, "abandoned", "ended * abandoned")):
        line, listed = _listed(each)
        assert shown in line and listed["termination"] == word
        assert tomis.read_game(each.record()).tags["Termination"] == word


def test_after_a_time_forfeit_the_losers_clock_shows_its_time_ran_out(lab, tmp_path):
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-23T11:00Z")
    lab.new_messages()
    result = _ok("referee", "tick", lab.db, "--now", "2026-12-23T11:01Z")
    assert "time-outs 1" in result.stderr
    bodies = _ended_letters(lab)
    for body in bodies:
        black = next(line for line in body.splitlines() if line.startswith("  Black ("))
        assert black.endswith(": time ran out"), black
        assert "The game has ended: 1-0 (time forfeit by Black)" in body
    shown = _ok("referee", "show", lab.db, lab.game, "--now", "2027-01-05T10:00Z").stdout
    assert "Black (Bo Marin): time ran out" in shown and "30d left" not in shown
    line, listed = _listed(lab, now="2027-01-05T10:00Z")
    assert "ended 1-0 time forfeit by Black" in line
    assert line.split("clocks ")[1].split("  ")[0].endswith("/ none left")
    assert listed["termination"] == "time forfeit" and listed["time_left"]["black"] < 0
    exported = tmp_path / "exported.tgn"
    _ok("referee", "export", lab.db, lab.game, "-o", exported)
    clock = _ok("clock", exported, "--now", "2027-01-05T10:00Z").stdout
    assert "Black: time ran out" in clock and "30d left" not in clock
    assert tomis.read_game(exported.read_text()).time_left("2027-01-05T10:00Z")["black"] < 0


def test_the_pages_say_how_each_finished_game_ended(lab, tmp_path):
    lab.deliver(lab.reply(1, "resign"), "2026-11-23T12:00Z")
    folder = tmp_path / "pages"
    _ok("referee", "page", lab.db, "-o", folder, "--now", "2026-11-25T10:00Z")
    finished = (folder / pages.FINISHED).read_text(encoding="utf-8")
    assert "<td>1-0</td><td>Black resigned</td>" in finished
    assert "on the board" not in finished


def test_an_old_stores_finished_games_are_read_again_once_and_say_how_they_ended(tmp_path):
    """A schema 2 store whose game was resigned under the old program: its summary names no
    ending and the kept part of the index says "on the board". The upgrade makes page read
    the record again, which says how it ended."""
    db = tmp_path / "referee.db"
    shutil.copy(V2, db)
    with sqlite3.connect(db) as connection:
        (text,) = connection.execute("SELECT record FROM games WHERE id = 1").fetchone()
        game = tomis.read_game(text)
        game.resign("black")              # as the old program wrote it: the result alone
        resigned = str(game)
        assert "Termination" not in resigned and "resigned" not in resigned
        saved = {"white": "Ana Lungu", "black": "Bo Marin", "result": "1-0", "over": True,
                 "to_move": None, "actions": 3, "last_action": "G@b1", "termination": None,
                 "created": 0, "clock": None, "facts": None}
        connection.execute("UPDATE games SET record = ?, over = 1, summary = ? WHERE id = 1",
                           (resigned, json.dumps(saved)))
        count, newest = connection.execute(
            "SELECT COUNT(*), MAX(changed) FROM games WHERE over = 1").fetchone()
        connection.execute("INSERT INTO page_parts VALUES (?, ?, ?)",
                           (pages.FINISHED_PART, f"{pages.PART_FORMAT}:{count}:{newest}",
                            zlib.compress(b"<h2>Finished</h2><td>on the board</td>")))
    folder = tmp_path / "pages"
    _ok("referee", "page", db, "-o", folder, "--now", "2026-11-25T10:00Z")
    finished = (folder / pages.FINISHED).read_text(encoding="utf-8")
    assert "<td>Black resigned</td>" in finished and "on the board" not in finished
    with sqlite3.connect(db) as connection:      # read once: kept for the next runs
        (kept,) = connection.execute("SELECT summary FROM games WHERE id = 1").fetchone()
    assert json.loads(kept)["termination"] == "resignation"
    line = _ok("referee", "games", db, "--all", "--json").stdout
    assert json.loads(line)["termination"] == "resignation"
