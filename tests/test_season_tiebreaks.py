"""tomis/season/tiebreaks.py against small crosstables worked out by hand."""

from __future__ import annotations

import pytest

from tomis.season.tiebreaks import GameResult, Standing, TiebreakError, standings

# Five players, three rounds, a bye each round:
#   round 1: 1-3 1-0, 2-4 0-1, 5 bye
#   round 2: 4-1 1/2, 5-3 1-0, 2 bye
#   round 3: 1-5 0-1, 3-2 1-0, 4 bye
FIVE = [GameResult(1, 3, 1.0), GameResult(2, 4, 0.0), GameResult(5, None, None),
        GameResult(4, 1, 0.5), GameResult(5, 3, 1.0), GameResult(2, None, None),
        GameResult(1, 5, 0.0), GameResult(3, 2, 1.0), GameResult(4, None, 1.0)]


def test_byes_worth_a_point_and_sonneborn_berger_before_the_number():
    # Scores 1: 1.5, 2: 1 (a bye), 3: 1, 4: 2.5 (a bye), 5: 3 (a bye).
    # Sonneborn-Berger of 1: beat 3 (1) + half of 4 (2.5) = 2.25; of 3: beat 2 (1) = 1;
    # of 2: nothing beaten; the byes add nothing. Buchholz of 1: 1 + 2.5 + 3 = 6.5;
    # of 2: 4 (2.5) + 3 (1) + the bye (0) = 3.5. 3 and 2 tie on points: 3 is ahead on
    # Sonneborn-Berger though 2 has the lower number.
    assert standings([1, 2, 3, 4, 5], FIVE, bye_points=1.0) == [
        Standing(5, 3.0, 2.5, 2.5, 2),
        Standing(4, 2.5, 1.75, 2.5, 2),
        Standing(1, 1.5, 2.25, 6.5, 3),
        Standing(3, 1.0, 1.0, 5.5, 3),
        Standing(2, 1.0, 0.0, 3.5, 2),
    ]


def test_byes_worth_nothing_as_in_a_round_robin():
    # Scores 1: 1.5, 2: 0, 3: 1, 4: 1.5, 5: 2; 1 and 4 tie, and 1 is ahead on
    # Sonneborn-Berger: beat 3 (1) + half of 4 (1.5) = 1.75, against 4's half of 1 = 0.75.
    assert standings([1, 2, 3, 4, 5], FIVE, bye_points=0.0) == [
        Standing(5, 2.0, 2.5, 2.5, 2),
        Standing(1, 1.5, 1.75, 4.5, 3),
        Standing(4, 1.5, 0.75, 1.5, 2),
        Standing(3, 1.0, 0.0, 3.5, 3),
        Standing(2, 0.0, 0.0, 2.5, 2),
    ]


def test_buchholz_then_the_number_and_unplayed_games_count_nothing():
    # round 1: 1-3 1-0, 2-5 1-0, 4-6 1/2; round 2: 6-1 1-0, 4-2 1-0, 3-5 1/2;
    # round 3: 4-7 1-0, 1-2 not over. 1 and 2 have 1 point and beat a player of 0.5;
    # 1 lost to 6 (1.5), 2 to 4 (2.5): 2 is ahead on Buchholz (3 against 2). 3 and 5
    # tie in every column: the lower number first. 8 has played nothing yet.
    results = [GameResult(1, 3, 1.0), GameResult(2, 5, 1.0), GameResult(4, 6, 0.5),
               GameResult(6, 1, 1.0), GameResult(4, 2, 1.0), GameResult(3, 5, 0.5),
               GameResult(4, 7, 1.0), GameResult(1, 2, None)]
    assert standings(list(range(1, 9)), results, bye_points=1.0) == [
        Standing(4, 2.5, 1.75, 2.5, 3),
        Standing(6, 1.5, 2.25, 3.5, 2),
        Standing(2, 1.0, 0.5, 3.0, 2),
        Standing(1, 1.0, 0.5, 2.0, 2),
        Standing(3, 0.5, 0.25, 1.5, 2),
        Standing(5, 0.5, 0.25, 1.5, 2),
        Standing(7, 0.0, 0.0, 2.5, 1),
        Standing(8, 0.0, 0.0, 0.0, 0),
    ]


@pytest.mark.parametrize("numbers, results, message", [
    ([1, 1], [], "a player number is given twice"),
    ([1, 2], [GameResult(1, 3, 1.0)], "a result names player 3, who is not in the event"),
    ([1, 2], [GameResult(4, None, None)], "a result names player 4, who is not in the event"),
    ([1, 2], [GameResult(2, 2, 0.5)], "a result has player 2 against themselves"),
    ([1, 2], [GameResult(1, 2, 2.0)], "a result of 1 against 2 scores 2.0, not 0, 0.5 or 1"),
])
def test_results_that_do_not_fit_are_refused(numbers, results, message):
    with pytest.raises(TiebreakError, match=f"^{message}$"):
        standings(numbers, results, bye_points=1.0)
