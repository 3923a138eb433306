"""Standings of an event: points, then Sonneborn-Berger, then Buchholz.

Players are numbers (the event's seeding order), as in :mod:`tomis.season.pairing`.
A game not played yet (``white_score`` None) counts for nothing, in any column.
"""

from __future__ import annotations

from dataclasses import dataclass

from tomis.errors import TomisError

# The scores a finished game may give White; Black has the rest of the point.
SCORES = (0.0, 0.5, 1.0)


class TiebreakError(TomisError):
    """Results that do not fit the players given (a number not among them, a player
    against themselves, a score that is not 0, 1/2 or 1)."""


@dataclass(frozen=True)
class GameResult:
    """One game of an event: ``black`` None is a bye for ``white``; ``white_score`` is 1,
    0.5 or 0, or None while the game is not over."""

    white: int
    black: int | None
    white_score: float | None


@dataclass(frozen=True)
class Standing:
    """One player's line: ``games`` counts finished games against an opponent (not byes)."""

    number: int
    score: float
    sonneborn_berger: float
    buchholz: float
    games: int


def standings(numbers: list[int], results: list[GameResult], *,
              bye_points: float) -> list[Standing]:
    """Every player of ``numbers`` ranked: by score, then Sonneborn-Berger, then Buchholz,
    then the lower number.

    - score: the points of finished games, and ``bye_points`` for each bye (a bye's
      ``white_score`` is not read: an event gives every bye the same);
    - Sonneborn-Berger: the final scores of the opponents beaten, plus half the scores
      of those drawn;
    - Buchholz: the final scores of all the opponents met.

    A bye counts as an opponent with no points: it adds nothing to either tie-break.

    >>> table = standings([1, 2, 3], [GameResult(1, 2, 1.0), GameResult(3, None, None)],
    ...                   bye_points=1.0)
    >>> [(s.number, s.score, s.sonneborn_berger, s.buchholz) for s in table]
    [(1, 1.0, 0.0, 0.0), (3, 1.0, 0.0, 0.0), (2, 0.0, 0.0, 1.0)]

    Raises :class:`TiebreakError` for a number given twice or results that do not fit.
    """
    check_results(numbers, results)
    score = {number: 0.0 for number in numbers}
    for result in results:
        if result.black is None:
            score[result.white] += bye_points
        elif result.white_score is not None:
            score[result.white] += result.white_score
            score[result.black] += 1 - result.white_score
    sonneborn_berger = {number: 0.0 for number in numbers}
    buchholz = {number: 0.0 for number in numbers}
    games = {number: 0 for number in numbers}
    for result in results:
        if result.black is None or result.white_score is None:
            continue
        for player, opponent, points in ((result.white, result.black, result.white_score),
                                         (result.black, result.white, 1 - result.white_score)):
            sonneborn_berger[player] += points * score[opponent]
            buchholz[player] += score[opponent]
            games[player] += 1
    table = [Standing(number, score[number], sonneborn_berger[number], buchholz[number],
                      games[number]) for number in numbers]
    return sorted(table, key=lambda line: (-line.score, -line.sonneborn_berger,
                                           -line.buchholz, line.number))


def check_results(numbers: list[int], results: list[GameResult]) -> None:
    known = set(numbers)
    if len(known) != len(numbers):
        raise TiebreakError("a player number is given twice")
    for result in results:
        for number in (result.white, result.black):
            if number is not None and number not in known:
                raise TiebreakError(f"a result names player {number}, who is not in the event")
        if result.white == result.black:
            raise TiebreakError(f"a result has player {result.white} against themselves")
        if result.black is not None and result.white_score not in (None, *SCORES):
            raise TiebreakError(f"a result of {result.white} against {result.black} scores "
                                f"{result.white_score!r}, not 0, 0.5 or 1")
