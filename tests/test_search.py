"""The computer opponent's search, evaluation, levels and player (issue 12).

Positions come from random legal play (hypothesis) so the engine meets what games
reach; a few hand-built positions check that it sees a one-action win (R19, R21) and
that its score is from the acting side's view.
"""

from __future__ import annotations

import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tomis.engine import evaluate
from tomis.engine.levels import DEFAULT_LEVEL, LEVELS, level_limits
from tomis.engine.player import ComputerPlayer, hint, score_text
from tomis.engine.search import MATE, MATE_BOUND, UNDO_PENALTY, Limits, Search
from tomis.notation import parse_action
from tomis.rules.position import from_string
from tomis.rules import apply, legal_actions, new_game
from conftest import positions_played

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PICKS = st.lists(st.integers(min_value=0, max_value=10**6), min_size=0, max_size=80)

# White to act; Black's base on e8 has two of White's attack points on it (the tower on
# a8 along rank 8, the sentry on c6 along the diagonal). Th1-h8 adds a third, which
# destroys it (R19, manual: 3 AP) and wins (R21).
NEAR_WIN = "T3b3/8/2S5/8/8/8/8/4B2T - w 0048100/0048221 - manual 11 0"


def reachable(edition: str, picks: list[int]):
    """The position after playing the drawn picks from the empty board (stops at an end)."""
    state = new_game(edition)
    for state in positions_played(edition, picks):
        pass
    return state


def _check_plays_legally(edition, picks, limits):
    state = reachable(edition, picks)
    if state.to_move is None:
        return
    result = Search(seed=picks[0] if picks else 0).run(state, limits)
    assert result.action in legal_actions(state)
    after, _report = apply(state, result.action)          # the checked apply agrees
    line = state
    for action in result.pv:                              # the whole line is playable
        assert line.to_move is not None
        line, _report = apply(line, action)
    assert result.pv[0] == result.action
    assert result.nodes >= 1 and result.depth >= 1


@FAST
@given(st.sampled_from(["manual", "readme"]), PICKS)
def test_search_plays_a_legal_action_in_reachable_positions(edition, picks):
    _check_plays_legally(edition, picks, Limits(nodes=300))


@pytest.mark.slow
@SLOW
@given(st.sampled_from(["manual", "readme"]), st.lists(st.integers(0, 10**6), max_size=200))
def test_search_plays_a_legal_action_in_reachable_positions_long(edition, picks):
    _check_plays_legally(edition, picks, Limits(nodes=2000))


@FAST
@given(st.sampled_from(["manual", "readme"]), PICKS, st.integers(0, 2**31 - 1), st.sampled_from([1, 2, 3, 4]))
def test_same_seed_and_limit_give_the_same_action(edition, picks, seed, level):
    state = reachable(edition, picks)
    if state.to_move is None:
        return
    first = ComputerPlayer(level, seed).choose(state)
    second = ComputerPlayer(level, seed).choose(state)
    assert first == second
    a = Search(seed).run(state, Limits(nodes=500))
    b = Search(seed).run(state, Limits(nodes=500))
    assert (a.action, a.score, a.pv, a.nodes) == (b.action, b.score, b.pv, b.nodes)


def test_computer_plays_whole_games_to_their_end():
    """Two levels play each other from the empty board; every action is legal (R22 ends it)."""
    for seed in range(3):
        players = (ComputerPlayer(2, seed), ComputerPlayer(3, seed + 100))
        state = new_game("readme" if seed % 2 else "manual")
        while state.to_move is not None and state.ply < 400:
            action = players[state.to_move].choose(state)
            state, _report = apply(state, action)
        assert state.ply > 10


def test_sees_a_win_in_one_action():
    """Two AP on the base: a third attacker destroys it (R19) and the game is won (R21)."""
    state = from_string(NEAR_WIN)
    result = Search().run(state, Limits(depth=2))
    after, report = apply(state, result.action)
    assert after.result == "1-0", f"{result.action} did not win: {after.reason}"
    assert result.score > MATE_BOUND
    assert score_text(result.score) == "wins in 1 action"


def test_score_is_from_the_acting_side_view():
    """The same material edge scores + for the side that has it and - for the other."""
    white_ahead = from_string("4b3/8/8/8/8/8/FFF5/4B3 - w 0045221/0045221 - manual 11 0")
    black_to_act = from_string("4b3/8/8/8/8/8/FFF5/4B3 - b 0045221/0045221 - manual 12 0")
    assert evaluate.evaluate(white_ahead) > 0
    assert evaluate.evaluate(black_to_act) < 0
    assert hint(white_ahead, Limits(depth=2)).score > 0


def test_stop_from_another_thread_answers_at_once():
    state = reachable("manual", [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3])
    search = Search()
    timer = threading.Timer(0.2, search.stop)
    timer.start()
    result = search.run(state, Limits())                  # no limit: only stop ends it
    timer.join()
    assert result.action in legal_actions(state)
    assert result.depth < 64


def test_node_limit_is_respected_after_depth_one():
    """Depth 1 always finishes (else the answer would be whichever action sorts first)."""
    state = reachable("manual", list(range(30)))
    first_pass = Search().run(state, Limits(depth=1)).nodes
    result = Search().run(state, Limits(nodes=5000))
    assert result.nodes <= max(5000, first_pass) + 1
    tiny = Search().run(state, Limits(nodes=3))
    assert tiny.depth == 1 and first_pass <= tiny.nodes <= first_pass + 2   # depth 2 stops at once
    assert tiny.action == Search().run(state, Limits(depth=1)).action


def test_a_decided_position_is_refused():
    state = from_string("4b3/8/8/8/8/8/8/4B3 - 1/2-1/2 0048221/0048221 - manual 40 0")
    with pytest.raises(ValueError, match="game is over"):
        Search().run(state, Limits(depth=1))


def test_levels_are_one_to_eight_with_a_default():
    assert sorted(LEVELS) == list(range(1, 9))
    assert DEFAULT_LEVEL in LEVELS
    assert ComputerPlayer(4).name == "tomis level 4"
    with pytest.raises(ValueError, match="levels run from 1 to 8"):
        level_limits(9)
    # Stronger levels never search less: noise falls and the node budget grows.
    noise = [LEVELS[n].limits.noise for n in range(1, 9)]
    assert noise == sorted(noise, reverse=True)
    nodes = [LEVELS[n].limits.nodes for n in range(4, 9)]
    assert nodes == sorted(nodes)


def test_weights_table_names_every_term():
    table = evaluate.weights_table().splitlines()
    assert [line.split()[0] for line in table] == list(evaluate.TERMS)
    assert len(evaluate.features(new_game())) == len(evaluate.TERMS)


def test_scores_read_in_frigates():
    assert evaluate.frigates_text(230) == "+2.3 frigates"
    assert evaluate.frigates_text(-50) == "-0.5 frigates"
    assert score_text(-(MATE - 4)) == "loses in 4 actions"


def test_term_positions_follow_the_weight_table():
    """features() fills its list by named positions; they must match TERMS' order."""
    for name in evaluate.TERMS:
        assert evaluate.TERMS[getattr(evaluate, "T_" + name.upper())] == name


def test_min_depth_finishes_before_the_node_limit():
    state = reachable("manual", list(range(40)))
    result = Search().run(state, Limits(nodes=10, min_depth=3))
    assert result.depth >= 3
    assert result.action in legal_actions(state)


def test_is_quiet_sees_a_ripe_target():
    """Two AP on the enemy base (R19: three destroy it) is not a quiet position."""
    from tomis.engine.search import is_quiet

    assert not is_quiet(from_string(NEAR_WIN))
    calm = from_string("4b3/8/8/8/8/8/F7/4B3 - w 0047221/0048221 - manual 11 0")
    assert is_quiet(calm)


def test_the_reported_score_leaves_out_the_random_offset():
    """Noise may change which action wins the root, but the score shown is the action's own."""
    state = from_string(NEAR_WIN)
    for seed in range(5):
        noisy = Search(seed=seed).run(state, Limits(depth=1, noise=50))
        assert str(noisy.action) == "Th1-h8"           # a win outweighs any offset of 50
        assert noisy.score == MATE - 1                  # exactly: wins in 1 action, no offset


# White's tower and Black's tower can each shuttle between two squares.
SHUTTLE = "4b2t/8/8/8/8/8/8/T3B3 - w 0040000/0040000 - manual 31 0"


def test_a_position_standing_a_second_time_scores_as_a_draw():
    start = from_string(SHUTTLE)
    state = start
    for text in ("Ta1-a2", "Th8-h7", "Ta2-a1", "Th7-h8"):
        state, _report = apply(state, parse_action(text))
    shuttle = parse_action("Ta1-a2")
    # From the start the slide is worth something else than a draw ...
    assert Search().run(start, Limits(depth=3), exact=[shuttle]).line_of(shuttle).score != 0
    # ... once its position has stood before, either side could repeat it into R22 (3)'s draw.
    assert Search().run(state, Limits(depth=3), exact=[shuttle]).line_of(shuttle).score == 0


def test_undoing_ones_own_last_slide_costs_the_penalty():
    state = from_string(SHUTTLE)
    for text in ("Ta1-a2", "Th8-h7"):
        state, _report = apply(state, parse_action(text))
    back = parse_action("Ta2-a1")
    plain = Search().run(state, Limits(depth=1), exact=[back]).line_of(back).score
    knowing = Search().run(state, Limits(depth=1), exact=[back],
                           previous=[parse_action("Ta1-a2"), parse_action("Th8-h7")]).line_of(back).score
    assert plain - knowing == UNDO_PENALTY
    # The computer player remembers its own last action and passes it on.
    player = ComputerPlayer(4, 0)
    start = from_string(SHUTTLE)
    first = player.choose(start)
    after, _report = apply(start, first)
    reply = parse_action("Th8-h7")
    after, _report = apply(after, reply)
    assert player._own_last(after) == (first, None)


def _searches_told(player) -> list:
    """The ``previous`` each search of ``player`` is given, as they come."""
    told = []
    run = player.search.run
    player.search.run = lambda *args, **kwargs: told.append(list(kwargs["previous"])) or run(*args, **kwargs)
    return told


def test_a_computer_player_takes_the_games_last_actions_when_given():
    """A game read from a file (or a level changed mid-game) has a last slide this player
    never chose: given the game's actions, the search still knows it."""
    state = from_string(SHUTTLE)
    played = [parse_action("Ta1-a2"), parse_action("Th8-h7")]
    for action in played:
        state, _report = apply(state, action)
    player = ComputerPlayer(4, 0)
    told = _searches_told(player)
    player.choose(state)                      # a fresh player remembers nothing
    player.choose(state, previous=played)
    assert told == [[], played]


def test_the_play_opponent_passes_the_games_last_actions():
    from tomis import Game
    from tomis.cli.engine import ComputerOpponent

    game = Game()
    for text in ("B@h1", "B@e8", "G@a1", "G@c8"):
        game.play(text)
    opponent = ComputerOpponent(3)
    told = _searches_told(opponent.computer)
    opponent.turn(game)
    assert [str(action) for action in told[0]] == ["G@a1", "G@c8"]
