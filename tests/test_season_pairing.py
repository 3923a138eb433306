"""tomis/season/pairing.py: Berger round robins against the published tables, and Swiss
rounds that keep their rules over whole simulated events."""

from __future__ import annotations

import random
import subprocess
import sys
from collections import Counter

import pytest

from tomis.season.pairing import Entrant, Pairing, PairingError, round_robin, swiss_round

# The Berger tables of the FIDE Handbook (C.05, Annex 1), as published: one line a round,
# White first. Five players use the table of six, the player drawn against 6 resting.
BERGER_4 = """
1-4 2-3
4-3 1-2
2-4 3-1
"""
BERGER_6 = """
1-6 2-5 3-4
6-4 5-3 1-2
2-6 3-1 4-5
6-5 1-4 2-3
3-6 4-2 5-1
"""
BERGER_8 = """
1-8 2-7 3-6 4-5
8-5 6-4 7-3 1-2
2-8 3-1 4-7 5-6
8-6 7-5 1-4 2-3
3-8 4-2 5-1 6-7
8-7 1-6 2-5 3-4
4-8 5-3 6-2 7-1
"""


def table(text: str, count: int) -> list[list[Pairing]]:
    """A published table read into rounds; a game against ``count + 1`` is a bye, last."""
    rounds = []
    for line in text.split("\n"):
        if not line:
            continue
        games = [tuple(int(n) for n in game.split("-")) for game in line.split()]
        boards = [Pairing(white, black) for white, black in games
                  if count + 1 not in (white, black)]
        byes = [Pairing(white if black == count + 1 else black, None)
                for white, black in games if count + 1 in (white, black)]
        rounds.append(boards + byes)
    return rounds


def colours_of(rounds: list[list[Pairing]], count: int) -> dict[int, str]:
    """Each player's colours, round by round (a bye leaves no letter)."""
    colours = {number: "" for number in range(1, count + 1)}
    for rnd in rounds:
        for pairing in rnd:
            if pairing.black is not None:
                colours[pairing.white] += "w"
                colours[pairing.black] += "b"
    return colours


@pytest.mark.parametrize("count, published", [(4, BERGER_4), (5, BERGER_6), (6, BERGER_6),
                                              (7, BERGER_8), (8, BERGER_8)])
def test_round_robin_is_the_published_berger_table(count, published):
    assert round_robin(count) == table(published, count)


@pytest.mark.parametrize("count", range(2, 17))
def test_every_pair_meets_once_and_colours_run_as_the_tables_do(count):
    rounds = round_robin(count)
    assert len(rounds) == count - 1 + count % 2
    games = Counter(frozenset((p.white, p.black)) for rnd in rounds for p in rnd if p.black)
    assert set(games) == {frozenset((a, b)) for a in range(1, count + 1)
                          for b in range(a + 1, count + 1)}
    assert set(games.values()) == {1}
    for rnd in rounds:
        seated = [n for p in rnd for n in (p.white, p.black) if n is not None]
        assert sorted(seated) == list(range(1, count + 1))
    byes = [p.white for rnd in rounds for p in rnd if p.black is None]
    assert sorted(byes) == (list(range(1, count + 1)) if count % 2 else [])
    colours = colours_of(rounds, count)
    for number, run in colours.items():
        assert "www" not in run and "bbb" not in run, (number, run)
        assert abs(run.count("w") - run.count("b")) <= 1
    if count % 2 == 0:
        # The last player sits on board 1 and changes colour every round: Black first.
        assert colours[count] == "bw" * (count // 2 - 1) + "b"


@pytest.mark.parametrize("count", range(2, 17))
def test_double_round_robin_plays_each_pair_with_both_colours(count):
    single = round_robin(count)
    double = round_robin(count, double=True)
    assert len(double) == 2 * len(single)
    games = Counter((p.white, p.black) for rnd in double for p in rnd if p.black)
    assert set(games.values()) == {1}
    assert all((black, white) in games for white, black in games)
    # The second cycle is the table again, colours reversed; the first cycle's last two
    # rounds change places, so nobody has one colour three rounds running.
    assert [[(p.black, p.white) if p.black else (p.white, None) for p in rnd]
            for rnd in double[len(single):]] == [[(p.white, p.black) for p in rnd]
                                                for rnd in single]
    for number, run in colours_of(double, count).items():
        assert "www" not in run and "bbb" not in run, (number, run)


@pytest.mark.parametrize("count", [-1, 0, 1])
def test_round_robin_of_fewer_than_two_is_refused(count):
    with pytest.raises(PairingError, match="at least 2 players"):
        round_robin(count)


# ---------------------------------------------------------------------- Swiss


def fresh(count: int) -> list[Entrant]:
    return [Entrant(number, 0.0, (), "", False) for number in range(1, count + 1)]


def play_event(count: int, rounds: int, seed: int) -> tuple[dict, list[list[Pairing]]]:
    """A whole Swiss event with results drawn by a seeded generator; each player's score,
    opponents, colours and byes, and the rounds as paired."""
    chance = random.Random(seed)
    players = {n: {"score": 0.0, "opponents": [], "colours": "", "byes": 0}
               for n in range(1, count + 1)}
    paired = []
    for _ in range(rounds):
        entrants = [Entrant(n, p["score"], tuple(p["opponents"]), p["colours"], p["byes"] > 0)
                    for n, p in players.items()]
        pairings = swiss_round(entrants)
        paired.append(pairings)
        for pairing in pairings:
            white = players[pairing.white]
            if pairing.black is None:
                white["score"] += 1
                white["byes"] += 1
                continue
            black = players[pairing.black]
            result = chance.choice((1.0, 0.5, 0.0))
            white["score"] += result
            black["score"] += 1 - result
            white["opponents"].append(pairing.black)
            black["opponents"].append(pairing.white)
            white["colours"] += "w"
            black["colours"] += "b"
    return players, paired


@pytest.mark.parametrize("seed", [43, 2026])
def test_forty_player_swiss_keeps_its_rules_for_nine_rounds(seed):
    players, paired = play_event(40, 9, seed)
    for pairings in paired:
        seated = sorted(n for p in pairings for n in (p.white, p.black))
        assert seated == list(range(1, 41))
    for number, player in players.items():
        assert len(player["opponents"]) == len(set(player["opponents"])) == 9, number
        difference = player["colours"].count("w") - player["colours"].count("b")
        assert abs(difference) <= 2, (number, player["colours"])
        assert player["byes"] == 0


def test_odd_swiss_gives_one_bye_a_round_to_the_lowest_ranked_without_one():
    count = 39
    chance = random.Random(7)
    players = {n: {"score": 0.0, "opponents": (), "colours": "", "bye": False}
               for n in range(1, count + 1)}
    for _ in range(9):
        entrants = [Entrant(n, p["score"], p["opponents"], p["colours"], p["bye"])
                    for n, p in players.items()]
        pairings = swiss_round(entrants)
        byes = [p.white for p in pairings if p.black is None]
        assert len(byes) == 1
        assert pairings[-1].black is None
        ranked = sorted(entrants, key=lambda e: (-e.score, e.number))
        lowest = [e.number for e in ranked if not e.had_bye][-1]
        assert byes == [lowest]
        for pairing in pairings:
            if pairing.black is None:
                players[pairing.white]["score"] += 1
                players[pairing.white]["bye"] = True
                continue
            result = chance.choice((1.0, 0.5, 0.0))
            for number, other, score, colour in ((pairing.white, pairing.black, result, "w"),
                                                 (pairing.black, pairing.white, 1 - result, "b")):
                players[number]["score"] += score
                players[number]["opponents"] += (other,)
                players[number]["colours"] += colour
    assert sum(p["bye"] for p in players.values()) == 9


def test_a_small_swiss_leaves_every_next_round_pairable():
    # Six players over five rounds must meet everyone once. Paired each round at the
    # least cost alone, about two events in five of these seeds came to a round where
    # the players left had all met (two triangles); looking one round ahead, none does.
    for seed in range(40):
        players, paired = play_event(6, 5, seed)
        for number, player in players.items():
            assert sorted(player["opponents"]) == [n for n in range(1, 7) if n != number], seed


def test_first_round_is_top_half_against_bottom_half_colours_turning_by_board():
    assert swiss_round(fresh(8)) == [Pairing(1, 5), Pairing(6, 2), Pairing(3, 7), Pairing(8, 4)]


def test_second_round_pairs_within_score_groups_and_meets_colour_preferences_first():
    # Round 1 went to the seeds: 1-5 2-6 3-7 4-8 with 1, 3, 6 and 8 on White.
    winners = {1: (5, "w"), 2: (6, "b"), 3: (7, "w"), 4: (8, "b")}
    entrants = [Entrant(n, 1.0, (opponent,), colour, False)
                for n, (opponent, colour) in winners.items()]
    entrants += [Entrant(opponent, 0.0, (n,), "b" if colour == "w" else "w", False)
                 for n, (opponent, colour) in winners.items()]
    # Top half against bottom half would be 1-3 and 2-4, where both of each pair want
    # the same colour; as in the Dutch system, colour preferences come before that order,
    # so 4 and 3 change places and everyone has the colour they want. Likewise below.
    assert swiss_round(entrants) == [Pairing(4, 1), Pairing(2, 3), Pairing(5, 8), Pairing(7, 6)]


def test_the_higher_ranked_player_has_their_colour_when_preferences_clash():
    # Everyone had White last: 1-3 and 2-4 is the order, and 1 and 2 get Black.
    entrants = [Entrant(n, 1.0, (8 + n,), "w", False) for n in range(1, 5)]
    assert swiss_round(entrants) == [Pairing(3, 1), Pairing(4, 2)]


def test_a_third_colour_in_a_row_is_avoided_by_a_float():
    # 1 and 2 have had White twice running, 3 and 4 Black: paired by score, two of them
    # would have a third; across the groups nobody does.
    entrants = [Entrant(1, 2.0, (9,), "bww", False), Entrant(2, 2.0, (9,), "bww", False),
                Entrant(3, 1.0, (9,), "wbb", False), Entrant(4, 1.0, (9,), "wbb", False)]
    pairings = swiss_round(entrants)
    assert {frozenset((p.white, p.black)) for p in pairings} in (
        {frozenset((1, 3)), frozenset((2, 4))}, {frozenset((1, 4)), frozenset((2, 3))})
    assert {p.white for p in pairings} == {3, 4}


def test_no_pairing_after_everyone_has_met_is_a_clear_error():
    entrants = [Entrant(n, 1.5, tuple(m for m in range(1, 5) if m != n), "wbw" if n % 2 else "bwb",
                        False) for n in range(1, 5)]
    with pytest.raises(PairingError,
                       match=r"^no pairing of all 4 players exists: players 1, 2, 3, 4 "):
        swiss_round(entrants)


def test_a_colour_difference_beyond_two_is_never_given():
    # Both have had two Whites more than Blacks: neither may take White.
    entrants = [Entrant(1, 1.0, (), "wbww", False), Entrant(2, 1.0, (), "wwbw", False)]
    with pytest.raises(PairingError, match="no pairing of all 2 players"):
        swiss_round(entrants)
    entrants[1] = Entrant(2, 1.0, (), "wbbb", False)
    assert swiss_round(entrants) == [Pairing(2, 1)]


def test_a_second_bye_is_never_given():
    entrants = [Entrant(1, 1.0, (2,), "w", False), Entrant(2, 0.0, (1,), "b", False),
                Entrant(3, 1.0, (), "", True)]
    assert swiss_round(entrants)[-1] == Pairing(2, None)
    entrants[1] = Entrant(2, 0.0, (1,), "b", True)
    assert swiss_round(entrants)[-1] == Pairing(1, None)
    entrants[0] = Entrant(1, 1.0, (2,), "w", True)
    with pytest.raises(PairingError, match="or a bye they have not had"):
        swiss_round(entrants)


@pytest.mark.parametrize("entrants, message", [
    ([Entrant(1, 0.0, (), "", False), Entrant(1, 0.0, (), "", False)],
     "player 1 is entered twice"),
    ([Entrant(0, 0.0, (), "", False)], "player numbers start at 1, not 0"),
    ([Entrant(2, 0.0, (), "wx", False)], "player 2's colours are not all w and b: 'wx'"),
])
def test_entrants_that_make_no_sense_are_refused(entrants, message):
    with pytest.raises(PairingError, match=f"^{message}"):
        swiss_round(entrants)


def test_no_entrants_no_boards():
    assert swiss_round([]) == []


WITHOUT_NETWORKX = "import sys; sys.modules['networkx'] = None; "


def run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", WITHOUT_NETWORKX + code],
                          capture_output=True, text=True, timeout=120)


def test_without_networkx_round_robins_work_and_a_swiss_round_says_what_to_install():
    done = run_python(
        "from tomis.season.pairing import *\n"
        "print(len(round_robin(6)))\n"
        "try:\n"
        "    swiss_round([Entrant(1, 0.0, (), '', False), Entrant(2, 0.0, (), '', False)])\n"
        "except PairingError as error:\n"
        "    print(error)\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "5", "pairing a Swiss round needs networkx: pip install 'tomis[referee]'"]


@pytest.mark.parametrize("args", [["--help"], ["referee", "--help"]])
def test_help_works_without_networkx(args):
    done = run_python(f"from tomis.cli import main; sys.argv = ['tomis'] + {args!r}; main()")
    assert done.returncode == 0, done.stderr
    assert "Usage:" in done.stdout
