"""Leave across a player's games (issue 43, tomis.referee.clubleave): one period written
into each game's record, counted once against the club's yearly allowance (the setting
leave_days), refused whole, cancelled before it begins."""

from __future__ import annotations

import email
import email.policy
import json
import re
import shutil
import sqlite3
from datetime import date

import pytest

from referee_support import REFEREE, body_of, reply_to, run

from tomis.notation import correspondence, record
from tomis.notation.clock import format_stamp, parse_stamp
from tomis.referee import clubleave, service
from tomis.referee.games import RefereedGame, Refusal
from tomis.referee.sending import send_queued


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


# --------------------------------------------------------------------------- leave across games

T0 = "2026-11-23T10:00Z"
TAKEN = "2026-11-24T10:00Z"
DEC_1, DEC_10 = "2026-12-01", "2026-12-10"
PEOPLE = {"Ana": "ana@a.test", "Bo": "bo@b.test", "Cy": "cy@c.test", "Di": "di@d.test"}


class Club:
    """A store with Ana in three games under 30d+3d, one record form each: game 1 Ana
    (White) played, so Bo is to act (leave by its place, after Ana's action); game 2 Ana
    is Black before White's first action (by its place, at the start); game 3 Ana is
    Black and Di played, so it is Ana's own turn (the leave names her side)."""

    def __init__(self, tmp_path):
        self.db, self.out = tmp_path / "club.db", tmp_path / "out"
        self.out.mkdir()
        _ok("referee", "init", self.db, "--address", REFEREE, "--name", "Club Referee",
            "--send-by", f"outbox:{self.out}", "--outage-after", "off")
        for name, address in PEOPLE.items():
            _ok("referee", "player", "add", self.db, f"{name} <{address}>")
        self.games = [self.new("Ana", "Bo"), self.new("Cy", "Ana"), self.new("Di", "Ana")]
        self.act(1, "Ana", "B@e1", "2026-11-23T11:00Z")
        self.act(3, "Di", "B@e1", "2026-11-23T12:00Z")
        self.seen = len(self.messages())

    def copy(self, tmp_path) -> Club:
        """The same club in ``tmp_path``, sending to its own folder there: each test starts
        from one store made once (a dozen commands) instead of making its own."""
        assert not self.db.with_name(self.db.name + "-wal").exists()     # all in the file
        other = object.__new__(Club)
        other.db, other.out = tmp_path / "club.db", tmp_path / "out"
        shutil.copy(self.db, other.db)
        shutil.copytree(self.out, other.out)
        with sqlite3.connect(other.db) as connection:
            connection.execute("UPDATE settings SET value = ? WHERE key = 'send_by'",
                               (f"outbox:{other.out}",))
        other.games, other.seen = list(self.games), self.seen
        return other

    def new(self, white: str, black: str, *more, now: str = T0) -> int:
        return int(_ok("referee", "new", self.db, "--white", white, "--black", black,
                       "--time-control", "30d+3d", "--now", now, *more).stdout)

    def messages(self) -> list:
        return [email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
                for path in sorted(self.out.glob("*.eml"))]

    def new_messages(self) -> list:
        every = self.messages()
        fresh, self.seen = every[self.seen:], len(every)
        return fresh

    def act(self, number: int, name: str, text: str, now: str) -> None:
        last = [m for m in self.messages() if PEOPLE[name] in str(m["To"])
                and f"[tomis #{number}]" in str(m["Subject"])][-1]
        raw = reply_to(last, f"{name} <{PEOPLE[name]}>", text)
        result = run("referee", "deliver", self.db, "--now", now, input=raw)
        assert result.exit_code == 0, result.output

    def records(self) -> dict[int, str]:
        with sqlite3.connect(self.db) as connection:
            return dict(connection.execute("SELECT id, record FROM games"))

    def outbox(self) -> int:
        with sqlite3.connect(self.db) as connection:
            return connection.execute("SELECT COUNT(*) FROM outbox").fetchone()[0]

    def call(self, what, name: str, now: str, *days: str):
        """clubleave.take or cancel for ``name`` at ``now``, in one transaction, then send."""
        store, config = service.connect(str(self.db))
        with store:
            with store.transaction():
                player = store.players.by_name(name)
                words = what(store, config, player, *map(date.fromisoformat, days),
                             parse_stamp(now))
            send_queued(store, config.settings, now=parse_stamp(now), retry=False)
        return words

    def used(self, name: str, year: int = 2026) -> int:
        store, _config = service.connect(str(self.db))
        with store:
            return clubleave.account(store, store.players.by_name(name).id, year).used

    def leaves(self, number: int) -> list[tuple[int, str]]:
        facts = correspondence.read_facts(record.read_game(self.records()[number]))
        return [(leave.side, str(leave)) for leave in facts.leaves]


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    return Club(tmp_path_factory.mktemp("club"))


@pytest.fixture
def club(made, tmp_path):
    return made.copy(tmp_path)


def _take(club: Club, now: str = TAKEN, first: str = DEC_1, last: str = DEC_10,
          name: str = "Ana"):
    return club.call(clubleave.take, name, now, first, last)


def _refused(club: Club, words: str, *args) -> None:
    records, outbox = club.records(), club.outbox()
    with pytest.raises(Refusal) as caught:
        _take(club, *args)
    assert words in caught.value.message, caught.value.message
    assert "\n" not in caught.value.message
    assert club.records() == records and club.outbox() == outbox     # nothing anywhere


def _clock(tmp_path, text: str, now: str) -> list[str]:
    path = tmp_path / "game.tgn"
    path.write_text(text, encoding="utf-8")
    result = run("clock", path, "--now", now)
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def test_leave_across_three_games_is_in_each_record_and_counted_once(club, tmp_path):
    words = _take(club)
    assert words[0].startswith("Leave from 2026-12-01 to 2026-12-10 (UTC, inclusive, 10 day(s)) "
                               "is taken in your 3 game(s) in play with clocks: #1, #2, #3.")
    assert words[1] == "Your leave in 2026: 10 of the club's 45 days taken, 35 left."
    assert club.used("Ana") == 10 and club.used("Bo") == 0
    # Each record holds it, for Ana's side, in the form its place allows.
    assert [club.leaves(n) for n in club.games] == [[(0, "2026-12-01 2026-12-10")],
                                                    [(1, "2026-12-01 2026-12-10")],
                                                    [(1, "2026-12-01 2026-12-10")]]
    records = club.records()
    assert "B@e1 {[%ts 2026-11-23T11:00Z]}\n{[%leave 2026-12-01 2026-12-10]}" in records[1]
    assert "{[%ts 2026-11-23T10:00Z]} {[%leave 2026-12-01 2026-12-10]}" in records[2]
    assert "{[%leave black 2026-12-01 2026-12-10]}" in records[3]       # Ana's own turn
    # Each opponent is told once, in that game; Ana has the words above.
    told = club.new_messages()
    assert sorted(str(m["To"]).split("<")[1] for m in told) == ["bo@b.test>", "cy@c.test>",
                                                               "di@d.test>"]
    for message in told:
        assert "takes leave from 2026-12-01 to 2026-12-10 (UTC, inclusive), in all their games" \
            in body_of(message)
    # tomis clock over each record agrees: Ana on leave, 10 days taken; in game 3, where
    # she is to act, her deadline moved on by the ten days, as the referee reads it.
    store, _config = service.connect(str(club.db))
    with store:
        game3 = RefereedGame.load(store, 3)
    deadline = format_stamp(game3.readings(parse_stamp("2026-12-05T00:00Z"))[1].deadline)
    assert deadline == "2027-01-02T12:00Z"           # 30 days from Di's action, plus 10
    for number, side in ((1, "White"), (2, "Black"), (3, "Black")):
        lines = _clock(tmp_path, records[number], "2026-12-05T00:00Z")
        assert f"{side} is on leave from 2026-12-01 to 2026-12-10: its clock stands still" in lines
        assert any(f"{side} 10 taken" in line for line in lines if line.startswith("Leave in 2026"))
    assert f"time runs out at {deadline}" in _clock(tmp_path, records[3], "2026-12-05T00:00Z")[2]


def test_leave_past_the_clubs_allowance_is_refused_and_nothing_changes(club):
    _ok("referee", "settings", club.db, "--leave-days", "12")
    _take(club)
    _refused(club, "leave 2026-12-20 2026-12-22 brings your leave in 2026 to 13 days, more than "
             "the 12 the club gives a player per calendar year (2 left)",
             TAKEN, "2026-12-20", "2026-12-22")
    _refused(club, "it overlaps your leave from 2026-12-01 to 2026-12-10", TAKEN,
             "2026-12-10", "2026-12-11")
    _refused(club, "leave is taken for future days only (today is 2026-11-24, UTC)", TAKEN,
             "2026-11-24", "2026-11-25")
    _refused(club, "the last day comes before the first", TAKEN, "2026-12-22", "2026-12-21")
    assert club.used("Ana") == 10
    # Across New Year, each year's days count in that year: 2 in 2026, 9 in 2027.
    _take(club, TAKEN, "2026-12-30", "2027-01-09")
    assert (club.used("Ana", 2026), club.used("Ana", 2027)) == (12, 9)


def test_a_game_whose_own_allowance_is_smaller_refuses_the_whole_leave(club):
    small = club.new("Ana", "Cy", "--leave-days", "5")
    _refused(club, f"game #{small}: leave 2026-12-01 2026-12-10: [%leave white 2026-12-01 "
             f"2026-12-10] brings White's leave in 2026 to 10 days, more than the 5 a side may "
             f"take per calendar year")
    assert club.used("Ana") == 0
    _take(club, TAKEN, DEC_1, "2026-12-05")
    assert club.leaves(small) == [(0, "2026-12-01 2026-12-05")]


def test_cancel_before_it_begins_gives_the_records_and_the_days_back(club):
    before = club.records()
    _take(club)
    club.new_messages()
    words = club.call(clubleave.cancel, "Ana", "2026-11-30T23:59Z")
    assert words == ["Your leave from 2026-12-01 to 2026-12-10 is cancelled in every game in "
                     "play that held it, and its days are given back.",
                     "Your leave in 2026: 0 of the club's 45 days taken, 45 left."]
    assert club.records() == before              # as if never taken, Digest included
    assert club.used("Ana") == 0
    told = club.new_messages()
    assert len(told) == 3 and all("cancels the leave from 2026-12-01 to 2026-12-10" in body_of(m)
                                  for m in told)
    # Taken again, the days count again.
    _take(club, "2026-11-30T23:59Z")
    assert club.used("Ana") == 10


def test_cancel_after_it_began_leaves_it_whole(club):
    _take(club)
    records = club.records()
    words = club.call(clubleave.cancel, "Ana", "2026-12-01T00:00Z")
    assert words[0].startswith("You have no leave across your games that has not begun")
    assert club.records() == records and club.used("Ana") == 10


def test_a_game_started_during_the_leave_gets_the_rest_of_it(club):
    _take(club)
    club.new_messages()
    later = club.new("Bo", "Ana", now="2026-12-03T10:00Z")
    assert club.leaves(later) == [(1, "2026-12-04 2026-12-10")]
    first = [m for m in club.new_messages() if f"[tomis #{later}]" in str(m["Subject"])]
    assert len(first) == 2 and all("Black (Ana) is on leave across games from 2026-12-04 to "
                                   "2026-12-10" in body_of(m) for m in first)
    # Counted once: the club's account does not change with a new game.
    assert club.used("Ana") == 10


def test_the_organisers_listing_shows_the_leave_each_player_took_this_year(club):
    _take(club)
    _take(club, TAKEN, "2027-01-05", "2027-01-07")

    def listed(now: str) -> dict[str, int]:
        result = _ok("referee", "players", club.db, "--json", "--now", now)
        return {entry["name"]: entry["leave_days_used"]
                for entry in map(json.loads, result.stdout.splitlines())}

    assert listed("2026-12-20T00:00Z") == {"Ana": 10, "Bo": 0, "Cy": 0, "Di": 0}
    assert listed("2027-02-01T00:00Z") == {"Ana": 3, "Bo": 0, "Cy": 0, "Di": 0}
    text = _ok("referee", "players", club.db, "--now", "2026-12-20T00:00Z").stdout.splitlines()
    assert [line.endswith(", leave 10d this year") for line in text] == [True, False, False, False]


def test_a_game_without_clocks_needs_no_leave_and_is_left_out(club):
    unclocked = int(_ok("referee", "new", club.db, "--white", "Ana", "--black", "Cy",
                        "--now", T0).stdout)
    before = club.records()[unclocked]
    words = _take(club)
    assert "in your 3 game(s) in play with clocks: #1, #2, #3." in words[0]
    assert club.records()[unclocked] == before
