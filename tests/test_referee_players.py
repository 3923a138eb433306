"""The club's players (issue 43): registered by the organiser or seated by ``new``, with
one name whatever its case and any number of addresses, each of which acts for them; an
older store's games become players' games."""

from __future__ import annotations

import json
import shutil
import sqlite3

from referee_support import START, Lab, run
from conftest import ROOT

V3 = ROOT / "tests" / "data" / "referee" / "store-v3.sqlite"
LATER = "2026-11-24T10:00Z"


def _players(db) -> dict[str, dict]:
    result = run("referee", "players", db, "--json")
    assert result.exit_code == 0, result.output
    return {entry["name"]: entry for entry in map(json.loads, result.stdout.splitlines())}


def _fails(result, words: str) -> None:
    assert result.exit_code != 0
    assert words in result.output, result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output


def test_a_version_3_store_gives_its_games_players(tmp_path):
    """store-v3.sqlite: three games among Ana, Bo and Cy (the third aborted)."""
    db = tmp_path / "referee.db"
    shutil.copy(V3, db)
    found = _players(db)
    assert sorted(found) == ["Ana Lungu", "Bo Marin", "Cy Dobre"]
    assert found["Ana Lungu"]["games_in_play"] == 2 and found["Bo Marin"]["games"] == 2
    assert found["Cy Dobre"]["addresses"] == ["cy@c.test"]
    assert found["Ana Lungu"]["rating"] == 1500 and found["Ana Lungu"]["deviation"] == 350
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT id, settled, white_player IS NOT NULL, "
                                  "black_player IS NOT NULL FROM games ORDER BY id").fetchall()
    # The aborted game is history: settled, never rated; both seats refer to players.
    assert rows == [(1, 0, 1, 1), (2, 0, 1, 1), (3, 1, 1, 1)]


def test_new_registers_both_players_and_takes_a_registered_name(tmp_path):
    lab = Lab(tmp_path)
    found = _players(lab.db)
    assert {name: entry["address"] for name, entry in found.items()} == {
        "Ana Lungu": "ana@a.test", "Bo Marin": "bo@b.test"}
    # Whatever its case, a registered name seats that player at their mailed address.
    result = run("referee", "new", lab.db, "--white", "bo marin", "--black", "ANA LUNGU",
                 "--now", START)
    assert result.exit_code == 0, result.output
    row = lab.query("SELECT white_address, black_address, white_player, black_player FROM "
                    "games WHERE id = ?", int(result.stdout))
    assert row == [("bo@b.test", "ana@a.test", 2, 1)]
    _fails(run("referee", "new", lab.db, "--white", "Cy Dobre", "--black", "Ana Lungu"),
           "there is no player named 'Cy Dobre'")
    _fails(run("referee", "new", lab.db, "--white", "Ana Lungu", "--black", "ana lungu"),
           "one player")


def test_player_add_refuses_what_is_taken_or_malformed_and_changes_nothing(tmp_path):
    lab = Lab(tmp_path)
    before = lab.db.read_bytes()
    _fails(run("referee", "player", "add", lab.db, "ANA LUNGU <other@a.test>"),
           "there is a player named Ana Lungu already")
    _fails(run("referee", "player", "add", lab.db, "Ana Other <ANA@a.test>"),
           "ana@a.test is Ana Lungu's address already")
    _fails(run("referee", "player", "add", lab.db, '"Lungu, Ana" <al@a.test>'), "no comma")
    _fails(run("referee", "player", "add", lab.db, "no address"), "must be like")
    _fails(run("referee", "player", "add", lab.db, "Cy <cy@c.test>", "--deviation", "500"),
           "--deviation 500: from 1 to 350")
    assert lab.db.read_bytes() == before
    added = run("referee", "player", "add", lab.db, "Cy Dobre <Cy@C.test>", "--rating", "1720",
                "--deviation", "80", "--volatility", "0.05", "--now", START)
    assert added.exit_code == 0, added.output
    cy = _players(lab.db)["Cy Dobre"]
    assert (cy["address"], cy["rating"], cy["deviation"], cy["volatility"]) == (
        "cy@c.test", 1720, 80, 0.05)


def test_a_new_address_is_mailed_and_every_address_acts(tmp_path):
    lab = Lab(tmp_path)
    lab.new_messages()
    changed = run("referee", "player", "address", lab.db, "Ana Lungu", "ana@new.test")
    assert changed.exit_code == 0, changed.output
    assert "games 1 too" in changed.output
    assert _players(lab.db)["Ana Lungu"]["addresses"] == ["ana@a.test", "ana@new.test"]
    # Her old address still acts for her: it is still one of hers.
    lab.deliver(lab.reply(0, "B@e1"), LATER)
    assert lab.inbox()[-1][0] == "done", lab.inbox()
    # The news of her action goes to the address she is mailed at now.
    to_her = [m for m in lab.new_messages() if "ana@" in str(m["To"])]
    assert to_her and all("ana@new.test" in str(m["To"]) for m in to_her)
    # An address that is someone else's is refused.
    _fails(run("referee", "player", "address", lab.db, "Ana Lungu", "bo@b.test"),
           "bo@b.test is Bo Marin's address already")


def test_mail_from_a_stranger_still_acts_for_nobody(tmp_path):
    lab = Lab(tmp_path)
    lab.deliver(lab.reply(0, "B@e1", sender="Eve <eve@e.test>"), LATER)
    assert lab.inbox()[-1][0] == "rejected"
    assert "B@e1" not in lab.record()


def test_rename_shows_in_the_games_in_play_and_approve(tmp_path):
    lab = Lab(tmp_path)
    assert run("referee", "player", "rename", lab.db, "bo marin", "Bogdan Marin").exit_code == 0
    assert "Bo Marin" not in _players(lab.db)
    listed = run("referee", "games", lab.db, "--now", LATER).stdout
    assert "Ana Lungu - Bogdan Marin" in listed
    _fails(run("referee", "player", "rename", lab.db, "Bogdan Marin", "ana lungu"),
           "there is a player named Ana Lungu already")
    _fails(run("referee", "player", "approve", lab.db, "Nobody"), "there is no player named")
    assert run("referee", "player", "approve", lab.db, "Ana Lungu").exit_code == 0
    assert _players(lab.db)["Ana Lungu"]["approved"] is True


def test_players_lists_each_with_rating_and_games(tmp_path):
    lab = Lab(tmp_path)
    shown = run("referee", "players", lab.db).stdout.splitlines()
    assert shown == ["Ana Lungu <ana@a.test>  1500 ± 700  games 1 in play, 1 in all",
                     "Bo Marin <bo@b.test>  1500 ± 700  games 1 in play, 1 in all"]


def test_a_registered_name_at_another_address_is_refused_not_guessed(tmp_path):
    lab = Lab(tmp_path)
    before = lab.db.read_bytes()
    _fails(run("referee", "new", lab.db, "--white", "Ana Lungu <ana@other.test>", "--black",
               "Bo Marin"), "Ana Lungu is registered at ana@a.test, not ana@other.test")
    assert lab.db.read_bytes() == before
