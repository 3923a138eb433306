"""Matches (issue 12): records, the score table, the statistics, and players who break the rules.

Two tiny levels play short matches in process; a real ``python -m tomis.engine`` plays
as a UGI program; small scripts stand in for engines that crash, hang or answer an
illegal action, each of which must lose that game and be named.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

from tomis.notation import record
from tomis.notation import parse_action
from tomis.rules import apply_unchecked
from tomis.archive.select import ending_of
from tomis.engine import match as matches
from tomis.engine.match import MatchSettings, Score, elo, parse_player, run_match, sprt
from conftest import invoke

PY = sys.executable
ROOT = Path(__file__).resolve().parent.parent
# A UGI "engine" that answers the handshake, then the given bestmove line to every go.
FAKE = (
    "import sys\n"
    "for line in sys.stdin:\n"
    "    word = line.split()[0] if line.split() else ''\n"
    "    if word == 'ugi': print('id name fake'); print('ugiok', flush=True)\n"
    "    elif word == 'isready': print('readyok', flush=True)\n"
    "    elif word == 'go': {on_go}\n"
    "    elif word == 'quit': break\n"
)


def fake_engine(tmp_path, name: str, on_go: str) -> str:
    script = tmp_path / f"{name}.py"
    script.write_text(FAKE.format(on_go=on_go))
    return f"{PY} {script}"


def _points_for_a(games) -> float:
    """A's points, recomputed from the records themselves (A is White in odd games)."""
    points = 0.0
    for number, game in enumerate(games, 1):
        a_white = number % 2 == 1
        if game.result == "1/2-1/2":
            points += 0.5
        elif (game.result == "1-0") == a_white:
            points += 1
    return points


def test_match_of_two_tiny_levels_writes_valid_records_and_a_correct_table(tmp_path):
    out = tmp_path / "games.tgn"
    result = invoke(
        "match", "level:1", "level:2", "--games", "6", "--openings", "random:12", "--seed", "3",
        "--sprt", "0,50", "-o", str(out))
    assert result.exit_code == 0, result.output
    checked = record.read(out.read_text(), str(out))
    assert len(checked) == 6
    assert all(item.error is None for item in checked), [str(i.error) for i in checked]
    games = [item.game for item in checked]
    # Colour-swapped pairs from the same opening: games 1 and 2 share the first 12 actions.
    for first, second in zip(games[0::2], games[1::2]):
        assert [str(n.action) for n in first.nodes[:12]] == [str(n.action) for n in second.nodes[:12]]
        assert (first.tags["White"], first.tags["Black"]) == (second.tags["Black"], second.tags["White"])
    assert games[0].tags["White"] == "tomis level 1"
    for game in games:    # a game the rules decided has no Termination tag; a cut one has
        assert ("Termination" in game.tags) == (game.final.to_move is not None)
    wins = sum(1 for n, g in enumerate(games, 1) if g.result == ("1-0" if n % 2 else "0-1"))
    draws = sum(1 for g in games if g.result == "1/2-1/2")
    losses = 6 - wins - draws
    points = _points_for_a(games)
    lines = result.stdout.splitlines()
    assert lines[0] == "A: tomis level 1" and lines[1] == "B: tomis level 2"
    assert lines[2] == f"games 6: A wins {wins}, draws {draws}, losses {losses}"
    assert lines[3] == f"score {points:g}/6 = {100 * points / 6:.1f} %"
    assert lines[4].startswith("Elo difference ")
    assert lines[5].startswith("SPRT Elo0 0 Elo1 50: LLR ")


@pytest.mark.slow
def test_same_seed_same_match(tmp_path):
    settings = MatchSettings(parse_player("level:2"), parse_player("level:3"), games=2, seed=5)
    first = [o.record for o in run_match(settings)[1]]
    second = [o.record for o in run_match(settings)[1]]
    assert first == second


def test_concurrent_games_come_back_in_order():
    settings = MatchSettings(parse_player("level:1"), parse_player("level:1"), games=4, seed=2, concurrency=2)
    outcomes = run_match(settings)[1]
    assert [o.number for o in outcomes] == [1, 2, 3, 4]
    serial = run_match(MatchSettings(settings.a, settings.b, games=4, seed=2))[1]
    assert [o.record for o in outcomes] == [o.record for o in serial]


def test_a_real_ugi_program_plays_and_its_games_are_valid():
    engine = f"{PY} -m tomis.engine"
    settings = MatchSettings(parse_player("level:1"), parse_player(engine), games=2, seconds=0.05,
                             seed=1, max_actions=40)
    score, outcomes = run_match(settings)
    assert score.games == 2 and not score.forfeits, [o.reason for o in outcomes]
    for outcome in outcomes:
        assert record.read(outcome.record)[0].error is None
    assert outcomes[1].white == engine


@pytest.mark.parametrize("name, on_go, why, termination", [
    ("crasher", "sys.exit(3)", "crashed", "abandoned"),
    ("illegal", "print('bestmove B@a1', flush=True)", "answered an illegal action 'B@a1'", "rules infraction"),
    ("garbled", "print('bestmove Zz9', flush=True)", "answered an unreadable action 'Zz9'", "rules infraction"),
    ("sleeper", "import time; time.sleep(30)", "hung: no 'bestmove' within", "time forfeit"),
])
def test_a_program_that_breaks_the_rules_loses_and_is_named(tmp_path, monkeypatch, name, on_go, why,
                                                            termination):
    monkeypatch.setattr(matches, "GRACE", 0.5)
    program = fake_engine(tmp_path, name, on_go)
    settings = MatchSettings(parse_player("level:1"), parse_player(program), games=2, seconds=0.1, seed=4)
    score, outcomes = run_match(settings)
    assert score.wins == 2 and score.forfeits == {program: 2}
    for outcome in outcomes:
        assert outcome.forfeit == program
        assert why in outcome.reason and program in outcome.reason
        game = record.read(outcome.record)[0]
        assert game.error is None
        assert why in " ".join(game.game.nodes[-1].comments)   # the record says who and why
        assert game.game.tags["Termination"] == termination     # and archive tools can tell
        assert ending_of(game.game) == "forfeit"
    result = invoke("match", "level:1", program, "--games", "2", "--time", "0.1")
    assert f"forfeits: {program} lost 2 game(s)" in result.stdout


def test_a_program_that_does_not_exist_loses():
    settings = MatchSettings(parse_player("level:1"), parse_player("/nonexistent/engine --ugi"), games=1)
    score, outcomes = run_match(settings)
    assert score.wins == 1 and "could not start" in outcomes[0].reason
    assert record.read(outcomes[0].record)[0].game.tags["Termination"] == "abandoned"


def test_adjudicated_draws_say_so_in_a_tag_and_archive_tools_count_them(tmp_path):
    """Games cut at --max-actions carry [Termination "adjudication"]; stats and select count
    them apart from agreed draws (R23) and from a game the rules decided (a sample)."""
    out = tmp_path / "games.tgn"
    result = invoke("match", "level:1", "level:1", "--games", "2", "--seed", "2",
                    "--max-actions", "20", "-o", str(out))
    assert result.exit_code == 0, result.output
    games = [item.game for item in record.read(out.read_text(), str(out))]
    cut = [g for g in games if g.final.to_move is not None]
    assert cut, "20 actions from a 12-action opening should not finish a level-1 game"
    assert all(g.tags["Termination"] == "adjudication" and g.result == "1/2-1/2" for g in cut)
    decided = ROOT / "samples" / "manual-win.tgn"
    stats = json.loads(invoke("stats", str(out), str(decided), "--json", "-j", "1").stdout)
    assert stats["endings"]["adjudicated"] == len(cut) and stats["endings"]["agreement"] == 0
    assert stats["endings"]["base-destroyed"] == 1
    selected = invoke("select", str(out), str(decided), "--ended", "adjudicated").stdout
    assert selected.count('[Termination "adjudication"]') == selected.count("[Event ") == len(cut)


def test_elo_and_interval():
    even = Score(wins=10, draws=0, losses=10)
    diff, low, high = elo(even)
    assert diff == 0 and low < 0 < high and math.isclose(-low, high)
    ahead = Score(wins=75, draws=0, losses=25)
    assert math.isclose(elo(ahead)[0], -400 * math.log10(1 / 0.75 - 1))
    # All games one way: the exact binomial bound, p ** n = 2.5 % (p = 0.9638 for n = 100).
    diff, low, high = elo(Score(wins=100))
    assert diff == math.inf and high == math.inf
    assert math.isclose(low, -400 * math.log10(1 / 0.025 ** (1 / 100) - 1))
    assert 570 < low < 572
    assert elo(Score(losses=100)) == (-math.inf, -math.inf, -low)


def test_sprt_verdicts():
    assert sprt(Score(wins=300, draws=100, losses=100), 0, 10)[3].startswith("H1 accepted")
    assert sprt(Score(wins=100, draws=100, losses=300), 0, 10)[3].startswith("H0 accepted")
    llr, lower, upper, verdict = sprt(Score(wins=6, draws=2, losses=5), 0, 10)
    assert lower < llr < upper and verdict.startswith("inconclusive")
    assert math.isclose(upper, math.log(0.95 / 0.05)) and math.isclose(lower, math.log(0.05 / 0.95))


@pytest.mark.parametrize("args, message", [
    (["level:9", "level:1"], "levels run from 1 to 8"),
    (["level:x", "level:1"], "expected level:N"),
    (["level:1", "level:2", "--openings", "book:3"], "expected random:K"),
    (["level:1", "level:2", "--sprt", "10,0"], "ELO0 must be below ELO1"),
    (["level:1", "level:2", "--sprt", "a,b"], "expected ELO0,ELO1"),
    (["level:1", "level:2", "--time", "nan"], "not a number of seconds"),
])
def test_bad_match_arguments_are_usage_errors(args, message):
    result = invoke("match", *args)
    assert result.exit_code == 2
    assert message in result.output


def test_match_never_replaces_a_file(tmp_path):
    out = tmp_path / "games.tgn"
    out.write_text("keep me")
    result = invoke("match", "level:1", "level:1", "--games", "1", "-o", str(out))
    assert result.exit_code == 2 and "exists" in result.output
    assert out.read_text() == "keep me"


def test_match_output_holds_every_finished_game_as_it_goes(tmp_path, monkeypatch):
    """-o is rewritten after every game, so a match stopped early (here after its second
    game, as Ctrl-C would) leaves a valid file of the games it finished."""
    out = tmp_path / "games.tgn"
    seen = []
    real_run = matches.run_match

    def stopped_after_two(settings, on_game, stop=None):
        def watching(outcome, score):
            on_game(outcome, score)
            seen.append(len(record.read(out.read_text(), str(out))))
            if score.games == 2:
                raise KeyboardInterrupt
        return real_run(settings, watching, stop)

    monkeypatch.setattr(matches, "run_match", stopped_after_two)
    result = invoke("match", "level:1", "level:1", "--games", "6", "--seed", "4", "-o", str(out))
    assert result.exit_code != 0
    assert seen == [1, 2]
    checked = record.read(out.read_text(), str(out))
    assert len(checked) == 2 and all(item.error is None for item in checked)


@pytest.mark.parametrize("score, expected", [
    (Score(losses=100), "Elo difference \u2264 -570 (A lost all 100 game(s); 95 % interval at most -570.0)"),
    (Score(wins=100), "Elo difference \u2265 +570 (A won all 100 game(s); 95 % interval at least +570.0)"),
    (Score(losses=2), "Elo difference \u2264 +291 (A lost all 2 game(s); 95 % interval at most +290.5)"),
], ids=["all-lost", "all-won", "two-lost"])
def test_a_one_sided_match_prints_its_bound_never_inf(score, expected):
    from tomis.cli.engine import score_table

    lines = score_table("A", "B", score, None)
    assert expected in lines
    assert not any("inf" in line for line in lines)


def test_match_records_name_both_players_as_programs(tmp_path):
    out = tmp_path / "m.tgn"
    result = invoke("match", "level:1", "level:1", "--games", "2", "--max-actions", "20", "-o", out)
    assert result.exit_code == 0, result.output
    games = [item.game for item in record.read(out.read_text(), str(out))]
    assert all((g.tags["WhiteType"], g.tags["BlackType"]) == ("program", "program") for g in games)
    assert "inf" not in result.stdout


def _scripted_game(task) -> matches.GameOutcome:
    """Stands in for play_game: A (White in odd games) wins, except every fifth game is drawn
    and every seventh lost, so the games have variance and the test can decide."""
    a_white = task.number % 2 == 1
    if task.number % 5 == 0:
        result = "1/2-1/2"
    else:
        a_wins = task.number % 7 != 0
        result = "1-0" if a_wins == a_white else "0-1"
    return matches.GameOutcome(task.number, task.white.name, task.black.name, result, "scripted", "")


def _first_decided_pair(games: int) -> int:
    """Where an SPRT 0,50 watched after every pair of the scripted results first decides."""
    score = Score()
    for number in range(1, games + 1):
        outcome = _scripted_game(matches.tasks(_scripted_settings(games))[number - 1])
        matches.score_for_a(_scripted_settings(games), outcome, score)
        llr, lower, upper, _ = sprt(score, 0, 50)
        if number % 2 == 0 and not lower < llr < upper:
            return number
    return games


def _scripted_settings(games: int, concurrency: int = 1) -> MatchSettings:
    return MatchSettings(parse_player("level:1"), parse_player("level:2"), games=games,
                         concurrency=concurrency)


@pytest.mark.parametrize("concurrency", [1, 2])
def test_a_decided_sequential_test_ends_the_match_at_that_pair(monkeypatch, concurrency):
    if concurrency > 1 and __import__("multiprocessing").get_start_method() != "fork":
        pytest.skip("the scripted games reach worker processes only through fork")
    monkeypatch.setattr(matches, "play_game", _scripted_game)
    expected = _first_decided_pair(200)
    assert 2 < expected < 200 and expected % 2 == 0        # the script does decide, early
    score, outcomes = run_match(_scripted_settings(200, concurrency), stop=matches.sprt_stop(0, 50))
    assert score.games == len(outcomes) == expected
    assert [o.number for o in outcomes] == list(range(1, expected + 1))
    llr, lower, upper, verdict = sprt(score, 0, 50)
    assert llr >= upper and verdict.startswith("H1 accepted")


def test_without_a_stop_every_game_is_played(monkeypatch):
    monkeypatch.setattr(matches, "play_game", _scripted_game)
    score, _ = run_match(_scripted_settings(60))
    assert score.games == 60


def test_the_match_command_says_when_the_sequential_test_ended_it(monkeypatch):
    monkeypatch.setattr(matches, "play_game", _scripted_game)
    expected = _first_decided_pair(200)
    result = invoke("match", "level:1", "level:2", "--games", "200", "--sprt", "0,50")
    assert result.exit_code == 0, result.output
    assert f"games {expected}: " in result.stdout
    assert "H1 accepted" in result.stdout
    assert (f"the sequential test decided after {expected} games; the other {200 - expected} "
            "were not played") in result.stderr


def test_a_level_in_a_match_knows_its_own_last_slide():
    """A level in a match searches as the same level in ``tomis play`` does: told the
    actions before the position, so it does not undo its own last slide for nothing."""
    from tomis.engine.player import ComputerPlayer
    from tomis.rules.position import from_string

    state = from_string("4b2t/8/8/8/8/8/8/T3B3 - w 0040000/0040000 - manual 31 0")
    played = ["Ta1-a2", "Th8-h7"]
    for text in played:
        state, _report = apply_unchecked(state, parse_action(text))
    player = matches.LevelPlayer(parse_player("level:4"), 0, None)
    seen = []
    run = player.search.run
    player.search.run = lambda *args, **kwargs: seen.append(kwargs.get("previous")) or run(*args, **kwargs)
    chosen = player.choose(state, played)
    assert seen == [[parse_action(text) for text in played]]
    # The same choice as the computer player of tomis play, which remembers its own last action.
    computer = ComputerPlayer(4, 0)
    computer._played = (state.ply - 2, parse_action("Ta1-a2"))
    assert str(chosen) == str(computer.choose(state))
