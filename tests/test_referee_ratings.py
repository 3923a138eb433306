"""Ratings in the referee (tomis/referee/ratings.py): each game rated when it ends, as its
own Glicko-2 period, through the same commands and mail as a club uses; what is not
rated; the history kept for the player's page."""

from __future__ import annotations

import pytest

from referee_support import BO, Lab, reply_to, run
from tomis.season.glicko2 import PeriodGame, Rating, rate_period


def _ok(*args):
    result = run(*args)
    assert result.exit_code == 0, result.output
    return result


def players(lab: Lab) -> dict[str, tuple[float, float, float]]:
    """Each player's rating now, by name."""
    return {name: (rating, deviation, volatility) for name, rating, deviation, volatility
            in lab.query("SELECT name, rating, deviation, volatility FROM players")}


def history(lab: Lab, name: str) -> list[tuple]:
    return lab.query("SELECT game, at, rating, deviation, volatility FROM ratings WHERE "
                     "player = (SELECT id FROM players WHERE name = ?) ORDER BY id", name)


def expected(before: Rating, opponent: Rating, score: float) -> tuple[float, float, float]:
    after = rate_period(before, [PeriodGame(opponent, score)])
    return after.rating, after.deviation, after.volatility


def test_a_resignation_through_deliver_rates_both_players(tmp_path):
    lab = Lab(tmp_path)
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-23T11:00Z")
    assert history(lab, "Ana Lungu") == [] and history(lab, "Bo Marin") == []
    lab.deliver(lab.reply(1, "resign"), "2026-11-23T12:00Z")
    new = Rating()
    now = players(lab)
    assert now["Ana Lungu"] == pytest.approx(expected(new, new, 1))
    assert now["Bo Marin"] == pytest.approx(expected(new, new, 0))
    assert now["Ana Lungu"][0] > 1600 > 1400 > now["Bo Marin"][0]
    assert now["Ana Lungu"][1] < 350 and now["Bo Marin"][1] < 350
    # the history: one row each, of game 1, at the time of the message that ended it
    (ana,) = history(lab, "Ana Lungu")
    (bo,) = history(lab, "Bo Marin")
    ended = lab.query("SELECT MAX(stored_at) FROM inbox")[0][0]
    assert ana == (lab.game, ended, *now["Ana Lungu"]) and bo == (lab.game, ended, *now["Bo Marin"])


def test_a_draw_rates_both_from_their_ratings_before_the_game(tmp_path):
    lab = Lab(tmp_path)
    # A first game (resigned by Bo) sets their ratings apart; the second is a draw.
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-23T11:00Z")
    lab.deliver(lab.reply(1, "resign"), "2026-11-23T12:00Z")
    before = {name: Rating(*numbers) for name, numbers in players(lab).items()}
    second = int(_ok("referee", "new", lab.db, "--white", "Bo Marin", "--black", "Ana Lungu",
                     "--now", "2026-11-24T10:00Z").stdout)
    to_bo = [m for m in lab.messages() if f"[tomis #{second}]" in m["Subject"]
             and "bo@b.test" in str(m["To"])][-1]
    lab.deliver(reply_to(to_bo, BO, "B@e1 draw"), "2026-11-24T11:00Z")
    to_ana = [m for m in lab.messages() if f"[tomis #{second}]" in m["Subject"]
              and "ana@a.test" in str(m["To"])][-1]
    lab.deliver(reply_to(to_ana, "Ana Lungu <ana@a.test>", "accept"), "2026-11-24T12:00Z")
    assert '[Result "1/2-1/2"]' in lab.query("SELECT record FROM games WHERE id = ?",
                                            second)[0][0]
    now = players(lab)
    assert now["Bo Marin"] == pytest.approx(expected(before["Bo Marin"], before["Ana Lungu"], 0.5))
    assert now["Ana Lungu"] == pytest.approx(expected(before["Ana Lungu"], before["Bo Marin"], 0.5))
    # the weaker player gains from a draw, the stronger loses
    assert now["Bo Marin"][0] > before["Bo Marin"].rating
    assert now["Ana Lungu"][0] < before["Ana Lungu"].rating
    assert [row[0] for row in history(lab, "Ana Lungu")] == [lab.game, second]
    assert [row[0] for row in history(lab, "Bo Marin")] == [lab.game, second]


def test_an_aborted_game_and_one_ended_before_any_action_are_not_rated(tmp_path):
    lab = Lab(tmp_path)
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-23T11:00Z")
    _ok("referee", "abort", lab.db, lab.game, "--reason", "the club closed it",
        "--now", "2026-11-23T12:00Z")
    second = int(_ok("referee", "new", lab.db, "--white", "Ana Lungu", "--black", "Bo Marin",
                     "--now", "2026-11-24T10:00Z").stdout)
    _ok("referee", "adjudicate", lab.db, second, "1-0", "--reason", "Bo never began",
        "--now", "2026-11-25T10:00Z")
    assert lab.query("SELECT COUNT(*) FROM ratings") == [(0,)]
    assert set(players(lab).values()) == {(1500.0, 350.0, 0.06)}
    # both games were taken by the season all the same: nothing waits to be rated
    assert lab.query("SELECT COUNT(*) FROM games WHERE over = 1 AND settled = 1") == [(2,)]


def test_a_time_out_by_tick_is_rated_as_a_loss(tmp_path):
    lab = Lab(tmp_path)
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-23T11:00Z")
    _ok("referee", "tick", lab.db, "--now", "2027-01-10T00:00Z")     # Bo's 30d+3d ran out
    assert "time forfeit" in lab.record()
    new = Rating()
    now = players(lab)
    assert now["Ana Lungu"] == pytest.approx(expected(new, new, 1))
    assert now["Bo Marin"] == pytest.approx(expected(new, new, 0))
    assert [row[0] for row in history(lab, "Bo Marin")] == [lab.game]
