"""Events (issue 43): ``tomis referee event new|list|show`` through the command line, a
round robin started whole, a Swiss paired round by round as its games end through
``deliver``, the one message per player with each game's own reply address, the errors
that write nothing, and the event page beside ``tomis stats``."""

from __future__ import annotations

import json
import re
import sqlite3
from email.message import EmailMessage
from email.utils import make_msgid
from itertools import combinations
from pathlib import Path

import pytest

from referee_support import REFEREE, Outbox, run
from tomis.referee import events, tokens
from tomis.season.pairing import PairingError

START = "2026-11-23T10:00Z"
NAMES = ("Ana Lungu", "Bo Marin", "Cy Dumitru", "Di Popa", "Ed Stan", "Flo Ionescu",
         "Gil Radu", "Hana Voicu")


def address_of(name: str) -> str:
    return f"{name.split()[0].lower()}@p{NAMES.index(name)}.test"


class Club(Outbox):
    """A referee store with registered players, sending to an outbox folder."""

    def __init__(self, tmp_path: Path, players: int):
        self.db = tmp_path / "club.db"
        self.out = tmp_path / "out"
        self.out.mkdir()
        ok("referee", "init", self.db, "--address", REFEREE, "--name", "Club Referee",
           "--send-by", f"outbox:{self.out}", "--outage-after", "off")
        self.names = NAMES[:players]
        for name in self.names:
            ok("referee", "player", "add", self.db, f"{name} <{address_of(name)}>")
        self.seen = 0

    def secret(self) -> str:
        return self.query("SELECT value FROM settings WHERE key = 'secret'")[0][0]

    def games(self) -> list[tuple]:
        """(game, round, white name, black name, over) of every game, by number."""
        return self.query("SELECT id, round, white_name, black_name, over FROM games "
                          "ORDER BY id")

    def record(self, game: int) -> str:
        return self.query("SELECT record FROM games WHERE id = ?", game)[0][0]

    def send(self, name: str, to: str, text: str, now: str):
        """``name`` writes ``text`` to the referee's address ``to``."""
        message = EmailMessage()
        message["From"] = f"{name} <{address_of(name)}>"
        message["To"] = to
        message["Subject"] = "my game"
        message["Message-ID"] = make_msgid(domain="player.test")
        message.set_content(text + "\n")
        result = run("referee", "deliver", self.db, "--now", now, input=message.as_bytes())
        assert result.exit_code == 0, result.output


def ok(*args):
    result = run(*args)
    assert result.exit_code == 0, result.output
    return result


def body(message: EmailMessage) -> str:
    return message.get_body(("plain",)).get_content().replace("\r\n", "\n")


def listed_games(message: EmailMessage) -> list[tuple[int, int, str, str, str]]:
    """(round, game, colour, opponent, reply address) of each game a player's event
    message lists."""
    return [(int(round), int(game), colour, opponent, address) for round, game, colour,
            opponent, address in re.findall(
                r"^Round (\d+), game #(\d+): (White|Black) against ([^;]+);.*\n  (\S+)$",
                body(message), re.MULTILINE)]


def seat_of(club: Club, address: str) -> tokens.Seat | None:
    token = address.split("@")[0].split("+")[1]
    return tokens.read(club.secret(), token)


def event_new(club: Club, *args):
    return run("referee", "event", "new", club.db, *args, "--time-control", "30d+3d",
               "--now", START)


# --------------------------------------------------------------------------- round robins

@pytest.mark.parametrize("count", [4, 5])
def test_a_round_robin_starts_every_game_at_once_and_mails_each_player_once(tmp_path, count):
    club = Club(tmp_path, count)
    result = event_new(club, "Autumn cup", "--format", "round-robin",
                       "--players", ", ".join(club.names))
    assert result.exit_code == 0, result.output
    games = club.games()
    rounds = count - 1 + count % 2
    # every pair meets once, each player at most once a round, the odd one out sits out
    assert sorted(tuple(sorted((white, black))) for _n, _r, white, black, _o in games) == \
        sorted(tuple(sorted(pair)) for pair in combinations(club.names, 2))
    for round in range(1, rounds + 1):
        playing = [name for _n, r, white, black, _o in games if r == round
                   for name in (white, black)]
        assert len(playing) == len(set(playing)) == count - count % 2
    byes = club.query("SELECT round, number FROM event_byes ORDER BY round")
    assert len(byes) == (rounds if count % 2 else 0)
    assert len({number for _r, number in byes}) == len(byes)        # one bye each
    for number, round, *_rest in games:
        record = club.record(number)
        assert '[Event "Autumn cup"]' in record and f'[Round "{round}"]' in record
    # one message per player, no game's usual first message
    messages = club.messages()
    assert sorted(str(m["To"]) for m in messages) == \
        sorted(f"{name} <{address_of(name)}>" for name in club.names)
    for message in messages:
        name = str(message["To"]).split(" <")[0]
        mine = listed_games(message)
        assert len(mine) == count - 1
        assert len({address for *_x, address in mine}) == count - 1     # one address each
        for round, game, colour, opponent, address in mine:
            seat = seat_of(club, address)
            assert seat == tokens.Seat(game, 0 if colour == "White" else 1)
            row = [g for g in games if g[0] == game][0]
            assert row[1] == round and row[2 + seat.side] == name and row[3 - seat.side] == opponent
        assert message["From"].addresses[0].addr_spec == REFEREE     # the club's, no game's
        assert message["Subject"] == "[tomis] Autumn cup: your games"
        assert ("a bye, no game (no point)" in body(message)) == bool(count % 2)


def test_a_reply_to_one_listed_address_plays_in_that_game_alone(tmp_path):
    club = Club(tmp_path, 4)
    ok("referee", "event", "new", club.db, "Autumn cup", "--format", "round-robin",
       "--players", "Ana Lungu, Bo Marin", "--players", "Cy Dumitru, Di Popa",
       "--time-control", "30d+3d", "--now", START)
    ana = [m for m in club.new_messages() if "ana@" in str(m["To"])][0]
    white = [(game, address) for _r, game, colour, _o, address in listed_games(ana)
             if colour == "White"]
    assert white
    game, address = white[0]
    club.send("Ana Lungu", address, "B@e1", "2026-11-23T11:00Z")
    played = {number: record.count("B@e1") for number, record in
              club.query("SELECT id, record FROM games")}
    assert played[game] == 1 and sum(played.values()) == 1
    told = club.new_messages()
    assert {str(m["Subject"]) for m in told} == {f"[tomis #{game}] " + " vs ".join(
        club.query("SELECT white_name, black_name FROM games WHERE id = ?", game)[0])}


def test_a_double_round_robin_plays_each_pair_once_with_each_colour(tmp_path):
    club = Club(tmp_path, 4)
    ok("referee", "event", "new", club.db, "Winter", "--format", "round-robin", "--double",
       "--players", ", ".join(club.names), "--time-control", "30d+3d", "--now", START)
    seated = sorted((white, black) for _n, _r, white, black, _o in club.games())
    assert seated == sorted([(a, b) for a in club.names for b in club.names if a != b])
    assert len(club.messages()) == 4


# --------------------------------------------------------------------------- a Swiss

def swiss_round_games(club: Club, round: int) -> list[tuple]:
    return [game for game in club.games() if game[1] == round]


def resign_round(club: Club, round: int, letters: dict[str, EmailMessage], now: str,
                 keep_last: bool = False) -> None:
    """Black resigns every game of ``round`` (but the last, with ``keep_last``), each by a
    message to the seat address the round's letter gave."""
    games = swiss_round_games(club, round)
    for number, _r, _white, black, _over in games[:-1] if keep_last else games:
        address = [a for _r2, game, colour, _o, a in listed_games(letters[black])
                   if game == number and colour == "Black"][0]
        club.send(black, address, "resign", now)


def letters_by_name(messages: list[EmailMessage]) -> dict[str, EmailMessage]:
    found = {}
    for message in messages:
        if message["Subject"].startswith("[tomis] "):
            found[str(message["To"]).split(" <")[0]] = message
    return found


def test_a_swiss_pairs_each_round_when_the_last_game_of_the_one_before_ends(tmp_path):
    club = Club(tmp_path, 6)
    ok("referee", "event", "new", club.db, "Spring Swiss", "--format", "swiss", "--rounds", "3",
       "--players", ", ".join(club.names), "--time-control", "30d+3d", "--now", START)
    assert [game[1] for game in club.games()] == [1, 1, 1]
    letters = letters_by_name(club.new_messages())
    assert sorted(letters) == sorted(club.names)
    assert all(m["Subject"] == "[tomis] Spring Swiss, round 1: your game"
               for m in letters.values())
    met = {frozenset((white, black)) for _n, _r, white, black, _o in club.games()}
    for round in (1, 2, 3):
        resign_round(club, round, letters, f"2026-11-2{3 + round}T12:00Z", keep_last=True)
        assert len(club.games()) == 3 * round        # one game still played: no next round
        resign_round_last(club, round, letters, f"2026-11-2{3 + round}T13:00Z")
        fresh = club.new_messages()
        if round == 3:
            break
        assert len(club.games()) == 3 * (round + 1)
        letters = letters_by_name(fresh)
        assert sorted(letters) == sorted(club.names)     # one message each for the round
        pairs = {frozenset((white, black))
                 for _n, _r, white, black, _o in swiss_round_games(club, round + 1)}
        assert not pairs & met                            # never a pair twice
        met |= pairs
    assert len(club.games()) == 9                         # three rounds, no fourth
    (finished,) = club.query("SELECT finished FROM events")[0]
    assert finished is not None
    shown = json.loads(ok("referee", "event", "show", club.db, "spring swiss", "--json").stdout)
    assert shown["state"] == "finished"
    assert sum(line["score"] for line in shown["standings"]) == 9      # 9 decided games
    assert [line["score"] for line in shown["standings"]] == \
        sorted((line["score"] for line in shown["standings"]), reverse=True)


def resign_round_last(club: Club, round: int, letters: dict[str, EmailMessage], now: str) -> None:
    number, _r, _white, black, _over = swiss_round_games(club, round)[-1]
    address = [a for _r2, game, colour, _o, a in listed_games(letters[black])
               if game == number and colour == "Black"][0]
    club.send(black, address, "resign", now)


def test_a_swiss_of_five_gives_one_bye_a_round_worth_a_point(tmp_path):
    club = Club(tmp_path, 5)
    ok("referee", "event", "new", club.db, "Five", "--format", "swiss", "--rounds", "2",
       "--players", ", ".join(club.names), "--time-control", "30d+3d", "--now", START)
    assert len(club.games()) == 2
    (bye,) = club.query("SELECT number FROM event_byes WHERE round = 1")[0]
    shown = json.loads(ok("referee", "event", "show", club.db, "Five", "--json").stdout)
    assert [line["score"] for line in shown["standings"] if line["number"] == bye] == [1.0]
    byed = [m for m in club.messages() if "a bye, no game (one point)" in body(m)]
    assert [str(m["To"]).split(" <")[0] for m in byed] == [club.names[bye - 1]]


# --------------------------------------------------------------------------- list and show

def test_event_list_and_show(tmp_path):
    club = Club(tmp_path, 4)
    ok("referee", "event", "new", club.db, "Autumn cup", "--format", "round-robin",
       "--players", ", ".join(club.names), "--time-control", "30d+3d", "--now", START)
    listed = ok("referee", "event", "list", club.db).stdout
    assert listed.strip() == "Autumn cup  round-robin  4 players  rounds 0/3  0 of 3 rounds ended"
    (line,) = ok("referee", "event", "list", club.db, "--json").stdout.splitlines()
    assert json.loads(line)["players"] == 4 and json.loads(line)["rounds"] == 3
    shown = ok("referee", "event", "show", club.db, "AUTUMN CUP").stdout
    assert "Sonneborn" not in shown and "SB" in shown and "Buchholz" in shown
    assert shown.count("Round ") == 3 and shown.count(" - ") == 6


# --------------------------------------------------------------------------- errors

@pytest.mark.parametrize("args, words", [
    (["--format", "round-robin", "--players", "Ana Lungu, Nobody"], "no player is registered as 'Nobody'"),
    (["--format", "round-robin", "--players", "Ana Lungu, Bo Marin, ana lungu"], "'Ana Lungu' twice"),
    (["--format", "round-robin", "--players", "Ana Lungu"], "at least 2 players"),
    (["--format", "swiss", "--rounds", "1", "--players", "Ana Lungu, Bo Marin"], "at least 3 players"),
    (["--format", "swiss", "--players", "Ana Lungu, Bo Marin, Cy Dumitru"], "needs --rounds N"),
    (["--format", "round-robin", "--rounds", "2", "--players", "Ana Lungu, Bo Marin"], "--rounds is for a Swiss"),
    (["--format", "swiss", "--double", "--rounds", "2", "--players", "Ana Lungu, Bo Marin, Cy Dumitru"], "--double is for a round robin"),
    (["--format", "swiss", "--rounds", "4", "--players", "Ana Lungu, Bo Marin, Cy Dumitru, Di Popa"], "plays 1 to 3 rounds"),
    (["--format", "round-robin", "--players", "Ana Lungu,, Bo Marin"], "an empty name"),
])
def test_a_bad_event_is_one_line_and_writes_nothing(tmp_path, args, words):
    club = Club(tmp_path, 4)
    result = run("referee", "event", "new", club.db, "Cup", *args, "--time-control", "30d+3d")
    assert result.exit_code == 1
    assert result.output.count("\n") == 1 and words in result.output, result.output
    assert "Traceback" not in result.output and str(club.db) in result.output
    assert club.query("SELECT COUNT(*) FROM events")[0][0] == 0
    assert club.query("SELECT COUNT(*) FROM games")[0][0] == 0 and not club.messages()


def test_an_unapproved_player_a_bad_time_control_and_a_taken_name_are_refused(tmp_path):
    club = Club(tmp_path, 3)
    ok("referee", "player", "add", club.db, "Zed Zorn <zed@z.test>")
    with sqlite3.connect(club.db) as connection:
        connection.execute("UPDATE players SET approved = 0 WHERE name = 'Zed Zorn'")
    refused = run("referee", "event", "new", club.db, "Cup", "--format", "round-robin",
                  "--players", "Ana Lungu, Zed Zorn", "--time-control", "30d+3d")
    assert refused.exit_code == 1 and "'Zed Zorn' is not approved" in refused.output
    bad_clock = run("referee", "event", "new", club.db, "Cup", "--format", "round-robin",
                    "--players", "Ana Lungu, Bo Marin", "--time-control", "soon")
    assert bad_clock.exit_code == 1 and bad_clock.output.count("\n") == 1
    assert club.query("SELECT COUNT(*) FROM games")[0][0] == 0
    ok("referee", "event", "new", club.db, "Cup", "--format", "round-robin",
       "--players", "Ana Lungu, Bo Marin", "--time-control", "30d+3d")
    again = run("referee", "event", "new", club.db, "cup", "--format", "round-robin",
                "--players", "Ana Lungu, Cy Dumitru", "--time-control", "30d+3d")
    assert again.exit_code == 1 and "already an event named 'cup'" in again.output
    assert club.query("SELECT COUNT(*) FROM games")[0][0] == 1


# --------------------------------------------------------------------------- the event page

RESULTS = ("1-0", "0-1", "1/2-1/2", "1-0", "0-1", "1-0", "1/2-1/2")     # for games 1..7 of 10


@pytest.fixture
def played_event(tmp_path):
    """A round robin of 5 (10 games, a bye a round): one game resigned through deliver,
    seven adjudicated, two still played; its pages written."""
    club = Club(tmp_path, 5)
    ok("referee", "event", "new", club.db, "Autumn <cup> & co".replace("<", "(").replace(">", ")"),
       "--format", "round-robin", "--players", ", ".join(club.names),
       "--time-control", "30d+3d", "--now", START)
    letters = {str(m["To"]).split(" <")[0]: m for m in club.messages()}
    number, _r, _white, black, _o = club.games()[7]
    address = [a for _r2, game, colour, _o2, a in listed_games(letters[black])
               if game == number and colour == "Black"][0]
    club.send(black, address, "resign", "2026-11-24T10:00Z")
    for game, result in enumerate(RESULTS, 1):
        ok("referee", "adjudicate", club.db, game, result, "--reason", "decided by the club",
           "--now", "2026-11-25T10:00Z")
    club.pages = tmp_path / "pages"
    ok("referee", "page", club.db, "-o", club.pages, "--now", "2026-11-26T10:00Z")
    club.records = tmp_path / "event.tgn"
    club.records.write_text("\n".join(ok("referee", "export", club.db, n).stdout
                                      for n in range(1, 11)), encoding="utf-8")
    return club


def test_the_event_page_is_linked_and_holds_no_address_or_token(played_event):
    club = played_event
    index = (club.pages / "index.html").read_text(encoding="utf-8")
    assert '<a href="event-1.html">Autumn (cup) &amp; co</a>' in index
    page = (club.pages / "event-1.html").read_text(encoding="utf-8")
    tokens_sent = {a.split("+")[1].split("@")[0] for m in club.messages()
                   for a in re.findall(r"ref\+\w+@club\.test", body(m))}
    assert tokens_sent and not any(token in page for token in tokens_sent)
    assert "@p" not in page and "ref@" not in page and club.secret() not in page
    assert page.count("<h3>Round ") == 5 and page.count("<td>bye</td>") == 5
    assert "8 of 10" not in page and "0 of 5 rounds ended" not in page
    # Each name in the standings and the crosstable links that player's own page, which
    # page wrote beside it.
    linked = re.findall(r'<a href="(player-\d+\.html)">', page)
    assert len(set(linked)) == 5 and len(linked) == 10
    assert all((club.pages / name).is_file() for name in linked)


def test_a_page_run_after_a_game_of_the_event_ends_draws_its_page_again(played_event):
    club = played_event
    before = (club.pages / "event-1.html").read_text(encoding="utf-8")
    ok("referee", "adjudicate", club.db, 9, "1-0", "--reason", "decided by the club",
       "--now", "2026-11-27T10:00Z")
    written = ok("referee", "page", club.db, "-o", club.pages, "--now", "2026-11-27T11:00Z")
    after = (club.pages / "event-1.html").read_text(encoding="utf-8")
    assert after != before and "wrote" in written.output


def test_a_round_that_cannot_be_paired_ends_the_event_and_the_game_end_stands(tmp_path,
                                                                              monkeypatch):
    club = Club(tmp_path, 4)
    ok("referee", "event", "new", club.db, "Small", "--format", "swiss", "--rounds", "3",
       "--players", ", ".join(club.names), "--time-control", "30d+3d", "--now", START)
    letters = letters_by_name(club.new_messages())

    def unpairable(entrants):
        raise PairingError("players 1 and 2 are left over: they have met")

    monkeypatch.setattr(events, "swiss_round", unpairable)
    resign_round(club, 1, letters, "2026-11-24T12:00Z")
    assert [over for *_rest, over in club.games()] == [1, 1]      # both resignations stand
    assert club.query("SELECT COUNT(*) FROM games WHERE round = 2")[0][0] == 0
    listed = ok("referee", "event", "list", club.db).stdout
    assert ("ended after round 1 of 3: round 2 could not be paired: players 1 and 2 are "
            "left over: they have met") in listed


def test_an_event_starts_in_one_transaction_a_failure_midway_writes_nothing(tmp_path,
                                                                             monkeypatch):
    club = Club(tmp_path, 5)
    started = []
    real = events.start_game

    def fails_at_the_fourth(*args, **options):
        if len(started) == 3:
            raise OSError("the disk is full")
        started.append(args)
        return real(*args, **options)

    monkeypatch.setattr(events, "start_game", fails_at_the_fourth)
    result = run("referee", "event", "new", club.db, "Cup", "--format", "round-robin",
                 "--players", ", ".join(club.names), "--time-control", "30d+3d")
    assert result.exit_code != 0 and len(started) == 3
    assert club.query("SELECT COUNT(*) FROM games")[0][0] == 0
    assert club.query("SELECT COUNT(*) FROM events")[0][0] == 0
    assert club.query("SELECT COUNT(*) FROM event_byes")[0][0] == 0
    assert club.query("SELECT COUNT(*) FROM outbox")[0][0] == 0 and not club.messages()
