"""The rules engine against rules.md, ruling by ruling (R1-R23, editions E1-E4).

Each test draws its position (rank 8 at the top, ``.`` empty; uppercase White,
lowercase Black) and names the ruling it checks. Gates are given in the position
string's gate field (``c3wJ1NE``: gate on c3, White's, jump gate, 1 marker, NE).
Unless a test says otherwise every piece not drawn is in its side's reserve.
"""

from __future__ import annotations

import re

import pytest

from conftest import act, board, legal_texts
from tomis.rules.actions import at
from tomis.rules.board import BLACK, FRIGATE, INITIAL_RESERVE, MARKER, WHITE, parse_square
from tomis.errors import IllegalActionError, PositionError
from tomis.rules.position import from_string, to_string
from tomis.rules import apply, check, new_game


def play(state, *texts):
    """Apply actions given in notation; return the last state and report."""
    report = None
    for text in texts:
        state, report = apply(state, act(text))
    return state, report


def refused(state, text, ruling):
    """Assert the engine refuses ``text`` naming ``ruling``; return the message."""
    with pytest.raises(IllegalActionError) as info:
        apply(state, act(text))
    message = str(info.value)
    assert re.search(rf"\b{ruling}\b", message), message
    assert f" {text}: " in message, message
    return message


def gate(state, name):
    return state.gate_at(parse_square(name))


def unit(state, name):
    return state.units.get(parse_square(name))


W_FRIGATE, B_FRIGATE = WHITE << 3 | FRIGATE, BLACK << 3 | FRIGATE

# A quiet main-phase board: the two bases and nothing else.
EMPTY = """
....b...
........
........
........
........
........
........
....B...
"""


def opening(*texts, edition="manual"):
    state, _ = play(new_game(edition), *texts)
    return state


FULL_OPENING = ("B@e1", "B@d8", "G@b1", "G@g8", "G@f2", "G@a7", "G@c3", "G@e6", "G@h4", "G@d5")


# ---------------------------------------------------------------------------
# Board and sides (R1-R4)

def test_R1_forward_is_toward_rank_8_for_white_and_rank_1_for_black():
    state = board("""
....b...
........
........
...f....
...F....
........
........
....B...
""")
    # Face to face on d4/d5 neither frigate may step forward; each goes sideways only.
    assert {t for t in legal_texts(state) if t.startswith("Fd4")} == {"Fd4-c4", "Fd4-e4"}
    state = board(EMPTY.replace("........\n....B...", ".f......\n....B..."), to_act="b")
    assert {t for t in legal_texts(state) if t.startswith("Fb2")} == {"Fb2-b1", "Fb2-a2", "Fb2-c2"}


def test_R1_directions_are_absolute_a_north_jump_carries_a_black_frigate_backward():
    state = board("""
....b...
........
........
........
...f....
........
........
....B...
""", "h2wI,c3bJ1N,a4wI,h5bI", to_act="b")
    # c3 points N whoever uses it: d4 is beside c3 and lands on c5, toward Black's home row.
    assert "Fd4^c5" in legal_texts(state)


def test_R2_a_side_owns_exactly_its_initial_reserve():
    assert new_game().reserve == ((1, 4, 4, 8, 2, 2, 1), (1, 4, 4, 8, 2, 2, 1)) == (INITIAL_RESERVE,) * 2


def test_R2_no_deployment_once_the_kind_is_used_up():
    state = board(EMPTY, reserves="0040021/0048221")      # White: no frigate left in reserve
    assert not any(t.startswith("F@") for t in legal_texts(state))
    refused(state, "F@a1", "R2")


def test_R2_destroyed_pieces_never_return_to_reserve():
    state = board("""
....b...
........
........
....f...
...F.F..
........
........
....B...
""", to_act="w")
    after, report = play(state, "F@a1")
    assert [str(d) for d in report.destroyed] == ["frigate on e5"]
    assert after.reserve[BLACK] == state.reserve[BLACK]


def test_R3_a_unit_may_stand_on_a_gate_but_not_on_another_unit():
    state = board("""
....b...
........
........
........
...Ff...
........
........
....B...
""", "d5bI,c4wI")
    assert "Fd4-d5" in legal_texts(state)            # onto Black's gate
    after, _ = play(state, "Fd4-d5")
    assert unit(after, "d5") == W_FRIGATE and gate(after, "d5")[1] == BLACK
    refused(state, "Fd4-e4", "R9")                    # e4 holds a unit


def test_R3_gates_belong_to_the_side_that_placed_them_and_start_inactive():
    state = opening(*FULL_OPENING)
    owners = {gate[0]: gate[1] for gate in state.gates}
    assert owners == {parse_square(s): side for s, side in
                      [("b1", 0), ("g8", 1), ("f2", 0), ("a7", 1), ("c3", 0), ("e6", 1), ("h4", 0), ("d5", 1)]}
    assert all(g[2] == 0 and g[3] == 0 for g in state.gates)


def test_R4_sides_alternate_white_first_one_action_each():
    state = new_game()
    assert state.to_move == WHITE
    state, report = play(state, "B@e1")
    assert (report.side, state.to_move, state.ply) == (WHITE, BLACK, 1)
    state, report = play(state, "B@d8")
    assert (report.side, state.to_move, state.ply) == (BLACK, WHITE, 2)


# ---------------------------------------------------------------------------
# Opening (R5-R7)

def test_R5_bases_go_anywhere_on_the_own_home_row():
    assert legal_texts(new_game()) == {f"B@{f}1" for f in "abcdefgh"}
    assert legal_texts(opening("B@e1")) == {f"B@{f}8" for f in "abcdefgh"}
    refused(new_game(), "B@e2", "R5")
    refused(opening("B@e1"), "B@e1", "R5")
    refused(new_game(), "G@e1", "R5")


@pytest.mark.parametrize("done, rank", [(2, "1"), (3, "8"), (4, "2"), (5, "7"), (6, "3"), (7, "6"), (8, "4"), (9, "5")],
                         ids=[f"R6-action{n + 1}" for n in range(2, 10)])
def test_R6_gates_go_one_per_rank_in_the_forced_order(done, rank):
    state = opening(*FULL_OPENING[:done])
    legal = legal_texts(state)
    assert legal and all(t.startswith("G@") and t.endswith(rank) for t in legal)
    wrong_rank = "2" if rank != "2" else "3"
    refused(state, f"G@h{wrong_rank}", "R6")


def test_R6_home_row_gate_keeps_one_empty_square_from_the_base():
    state = opening("B@e1", "B@a8")
    # |file(gate) - file(base)| >= 2: c1 and g1 are the nearest allowed squares to e1.
    assert legal_texts(state) == {"G@a1", "G@b1", "G@c1", "G@g1", "G@h1"}
    refused(state, "G@d1", "R6")
    refused(state, "G@f1", "R6")
    state = opening("B@e1", "B@a8", "G@c1")
    assert legal_texts(state) == {f"G@{f}8" for f in "cdefgh"}
    refused(state, "G@b8", "R6")


def test_R6_gates_away_from_the_home_rows_ignore_the_base():
    state = opening("B@e1", "B@a8", "G@c1", "G@h8")
    assert legal_texts(state) == {f"G@{f}2" for f in "abcdefgh"}


@pytest.mark.parametrize("text", ["F@a1", "S@b1", "T@c1", "Q@d1", "M@b1:N", "Fe1-e2"], ids=lambda t: f"R7-{t}")
def test_R7_nothing_but_gates_before_all_eight_are_down(text):
    state = opening("B@e1", "B@d8")
    with pytest.raises(IllegalActionError, match=r"R[67]"):
        check(state, act(text))


def test_R7_main_phase_starts_at_action_11_with_white():
    state = opening(*FULL_OPENING)
    assert (state.ply, state.to_move) == (10, WHITE)
    assert "F@a1" in legal_texts(state) and not any(t.startswith("G@") for t in legal_texts(state))


# ---------------------------------------------------------------------------
# Main-phase actions (R8-R14)

def test_R8_deploy_on_empty_home_row_squares_without_a_gate():
    state = board("""
....b...
........
........
........
........
........
........
T...B...
""", "c1wI")
    deploys = {t for t in legal_texts(state) if "@" in t}
    squares = {"b1", "d1", "f1", "g1", "h1"}                 # not a1 (tower), c1 (gate), e1 (base)
    assert deploys == {f"{k}@{sq}" for k in "FST" for sq in squares}
    refused(state, "F@c1", "R8")
    refused(state, "F@a1", "R8")
    refused(state, "F@d2", "R8")


def test_R9_frigate_steps_forward_or_sideways_never_back_or_diagonal():
    state = board(EMPTY.replace("........\n........\n....B...", "...F....\n........\n....B..."))
    assert {t for t in legal_texts(state) if t.startswith("Fd3")} == {"Fd3-d4", "Fd3-c3", "Fd3-e3"}
    refused(state, "Fd3-d2", "R9")
    refused(state, "Fd3-e4", "R9")
    refused(state, "Fd3-d5", "R9")


def test_R9_slides_stop_before_the_first_unit_and_pass_over_gates():
    state = board("""
....b...
........
.f......
........
........
.T..F...
........
....B...
""", "b4bI,b5wA")
    tower = {t for t in legal_texts(state) if t.startswith("Tb3")}
    assert tower == {"Tb3-b4", "Tb3-b5", "Tb3-c3", "Tb3-d3", "Tb3-b2", "Tb3-b1", "Tb3-a3"}
    refused(state, "Tb3-b7", "R9")      # beyond the frigate on b6
    refused(state, "Tb3-b6", "R9")      # a move never captures


@pytest.mark.parametrize("text", ["Sd4-c5", "Qd4-d8", "Sd4-d5", "Td4-e5"], ids=["R9-sentry-diagonal", "R9-flagship-blocked", "R9-sentry-not-straight", "R9-tower-not-diagonal"])
def test_R9_slider_shapes(text):
    diagram = """
...fb...
........
........
........
...X....
........
........
....B...
"""
    piece = text[0]
    state = board(diagram.replace("X", piece), unlocks="w")
    if text == "Sd4-c5":
        assert text in legal_texts(state)
    else:
        refused(state, text, "R9")


def test_R9_the_base_never_moves():
    state = board(EMPTY)
    refused(state, "Be1-e2", "R9")
    assert not any(t.startswith("Be1") for t in legal_texts(state))


# R10 ------------------------------------------------------------------------

def test_R10_frigate_activates_an_inactive_gate_of_either_side():
    state = board(EMPTY.replace("........\n........\n........\n....B...", "..F.....\n........\n........\n....B..."), "c4bI")
    assert "Fc4=A" in legal_texts(state)
    after, _ = play(state, "Fc4=A")
    assert gate(after, "c4")[1:3] == (BLACK, 1)
    refused(after.copy() if False else board(EMPTY.replace("........\n........\n........\n....B...", "..F.....\n........\n........\n....B..."), "c4bA"), "Fc4=A", "R10")


def test_R10_deactivating_a_jump_gate_returns_markers_to_its_owner():
    state = board(EMPTY.replace("........\n........\n........\n....B...", "..F.....\n........\n........\n....B..."), "c4bJ2SW")
    assert legal_texts(state) >= {"Fc4=I"} and "Fc4=A" not in legal_texts(state)
    after, _ = play(state, "Fc4=I")
    assert gate(after, "c4")[2:4] == (0, 0)
    assert after.reserve[BLACK][MARKER] == state.reserve[BLACK][MARKER] + 2 == 4
    assert after.reserve[WHITE][MARKER] == state.reserve[WHITE][MARKER]


def test_R10_toggle_needs_an_own_frigate_on_the_gate():
    state = board(EMPTY.replace("........\n........\n........\n....B...", "..S.....\n........\n........\n....B..."), "c4wI")
    refused(state, "Fc4=A", "R10")


# R11 ------------------------------------------------------------------------

def test_R11_marker_goes_on_an_own_active_gate_in_any_direction_without_a_frigate():
    state = board(EMPTY, "c3wA,c4bA,c5wI")
    markers = {t for t in legal_texts(state) if t.startswith("M")}
    assert markers == {f"M@c3:{d}" for d in ("N", "NE", "E", "SE", "S", "SW", "W", "NW")}
    refused(state, "M@c4:N", "R11")       # Black's gate
    refused(state, "M@c5:N", "R11")       # inactive
    after, _ = play(state, "M@c3:SE")
    assert gate(after, "c3")[2:] == (2, 1, 3) and after.reserve[WHITE][MARKER] == 3


def test_R11_E3_manual_second_marker_repeats_the_direction():
    state = board(EMPTY, "c3wJ1NE")
    assert "M@c3:NE" in legal_texts(state)
    message = refused(state, "M@c3:N", "R11")
    assert "M@c3:NE" in message
    after, _ = play(state, "M@c3:NE")
    assert gate(after, "c3")[3] == 2
    refused(after, "M@c3:NE", "R11")             # never a third


def test_R11_E3_readme_forbids_a_second_marker():
    state = board(EMPTY, "c3wJ1NE", edition="readme")
    assert not any(t.startswith("M@") for t in legal_texts(state))
    refused(state, "M@c3:NE", "E3")


def test_R11_rotation_picks_a_new_direction_on_an_own_jump_gate():
    state = board(EMPTY, "c3wJ2NE,c4bJ1S,c5wA")
    rotations = {t for t in legal_texts(state) if re.fullmatch(r"M[a-h]\d:.*", t)}
    assert rotations == {f"Mc3:{d}" for d in ("N", "E", "SE", "S", "SW", "W", "NW")}
    refused(state, "Mc3:NE", "R11")
    refused(state, "Mc4:N", "R11")
    refused(state, "Mc5:N", "R11")
    after, _ = play(state, "Mc3:W")
    assert gate(after, "c3")[2:] == (2, 2, 6)


def test_R11_no_marker_left_in_reserve():
    state = board(EMPTY, "c3wA", reserves="0008221/0048221")
    refused(state, "M@c3:N", "R11")
    assert not any(t.startswith("M@") for t in legal_texts(state))


# R12 ------------------------------------------------------------------------

GATE_JUMP = """
....b...
........
........
........
........
.....x..
..F.y...
....B...
"""


def _gate_jump_board(target="f", support=".", gates="c2wA,f3bA", edition="manual"):
    return board(GATE_JUMP.replace("x", target).replace("y", support), gates, edition=edition)


def test_R12_gate_jump_to_the_active_gate_one_rank_up_or_down():
    state = board(EMPTY.replace("........\n........\n....B...", "........\n..F.....\n....B..."), "c1wA,c2bJ1N,f3wA,a4wA")
    jumps = {t for t in legal_texts(state) if ">" in t}
    assert jumps == {"Fc2>f3", "Fc2>c1"}                 # not a4: two ranks away
    refused(state, "Fc2>a4", "R12")
    state = board(EMPTY.replace("........\n........\n....B...", "........\n..F.....\n....B..."), "c1wI,c2wA,f3wI")
    assert not any(">" in t for t in legal_texts(state))
    refused(state, "Fc2>f3", "R12")


def test_R12_gate_jump_from_an_inactive_gate_is_illegal():
    state = board(EMPTY.replace("........\n........\n....B...", "........\n..F.....\n....B..."), "c2wI,f3wA")
    refused(state, "Fc2>f3", "R12")


def test_R12_destination_may_not_hold_a_friendly_unit():
    state = _gate_jump_board(target="F")
    refused(state, "Fc2>f3", "R12")


def test_R12_capture_needs_one_plus_support_above_defence():
    # Alone, 1 against the frigate's defence 1 is not enough; the gate strike is there instead.
    alone = _gate_jump_board()
    assert "Fc2>f3" not in legal_texts(alone) and "Fc2xf3" in legal_texts(alone)
    refused(alone, "Fc2>f3", "R12")
    # The frigate on e2 attacks d3, e3, f3: 1 + 1 > 1.
    supported = _gate_jump_board(support="F")
    assert "Fc2>f3" in legal_texts(supported)
    after, report = play(supported, "Fc2>f3")
    assert [str(d) for d in report.captured] == ["frigate on f3"]
    assert unit(after, "f3") == W_FRIGATE and unit(after, "c2") is None


def test_R12_support_is_counted_with_the_jumper_still_in_place():
    # The sentry on b1 looks NE through c2; the jumper on c2 stops that ray, so the
    # sentry does not support a capture on d3 (it would, were the jumper lifted first).
    state = board("""
....b...
........
........
........
........
...s....
..F.....
.S..B...
""", "c2wA,d3bA")
    assert "Fc2>d3" not in legal_texts(state)
    refused(state, "Fc2>d3", "R12")


@pytest.mark.parametrize("edition, legal", [("manual", True), ("readme", False)], ids=["R12-E1-manual", "R12-E1-readme"])
def test_R12_E1_capturing_a_flagship_depends_on_its_defence(edition, legal):
    state = _gate_jump_board(target="q", support="F", edition=edition)
    assert ("Fc2>f3" in legal_texts(state)) is legal


# R13 ------------------------------------------------------------------------

def test_R13_gate_strike_destroys_both_frigates():
    state = _gate_jump_board()
    after, report = play(state, "Fc2xf3")
    assert {str(d) for d in report.captured} == {"frigate on c2", "frigate on f3"}
    assert unit(after, "c2") is None and unit(after, "f3") is None
    assert gate(after, "c2") is not None and gate(after, "f3") is not None


@pytest.mark.parametrize("target", ["s", "t", "F"], ids=["R13-not-a-sentry", "R13-not-a-tower", "R13-not-own-frigate"])
def test_R13_gate_strike_only_against_an_enemy_frigate(target):
    state = _gate_jump_board(target=target)
    refused(state, "Fc2xf3", "R13")
    assert "Fc2xf3" not in legal_texts(state)


def test_R13_gate_strike_needs_both_gates_active():
    refused(_gate_jump_board(gates="c2wA,f3bI"), "Fc2xf3", "R13")
    refused(_gate_jump_board(gates="c2wI,f3bA"), "Fc2xf3", "R13")


# R14 ------------------------------------------------------------------------

JUMP = """
....b...
........
........
........
........
..F.....
........
....B...
"""


def jumps(state):
    return {t for t in legal_texts(state) if "^" in t}


def test_R14_jump_lands_two_steps_along_the_gate_direction():
    state = board(JUMP, "d4wJ1N,a5bI,h6bI")
    assert jumps(state) == {"Fc3^d6"}
    after, _ = play(state, "Fc3^d6")
    assert unit(after, "d6") == W_FRIGATE and unit(after, "c3") is None


def test_R14_jump_over_a_rank_without_a_gate_is_illegal():
    state = board(JUMP, "d4wJ1N,h6bI")          # rank 5 has no gate
    assert jumps(state) == set()
    refused(state, "Fc3^d6", "R14")


def test_R14_landing_may_hold_a_gate_but_not_a_unit():
    assert jumps(board(JUMP, "d4wJ1N,a5bI,d6bA")) == {"Fc3^d6"}
    blocked = board("""
....b...
........
...f....
........
........
..F.....
........
....B...
""", "d4wJ1N,a5bI,h6bI")
    assert jumps(blocked) == set()
    refused(blocked, "Fc3^d6", "R14")


def test_R14_jump_flies_over_units():
    state = board("""
....b...
........
........
...t....
...f....
..F.....
........
....B...
""", "d4wJ1N,a5bI,h6bI")
    assert jumps(state) == {"Fc3^d6"}


def test_R14_landing_off_the_board_is_illegal():
    state = board(JUMP, "d4wJ1W,a5bI,h6bI")     # d4 + 2 W = b4 is fine
    assert jumps(state) == {"Fc3^b4"}
    state = board(JUMP.replace("..F", "F.."), "b4wJ1W,a5bI,h6bI")   # b4 + 2 W is off the board
    assert jumps(state) == set()


def test_R14_a_frigate_on_the_jump_gate_itself_is_not_around_it():
    state = board(EMPTY.replace("........\n........\n........\n....B...", "...F....\n........\n........\n....B..."), "d4wJ1N,a5bI,h6bI")
    assert jumps(state) == set()
    refused(state, "Fd4^d6", "R14")


def test_R14_jump_gates_of_either_side_serve_and_directions_go_backward():
    state = board(JUMP, "d4bJ1S,a2wI,h3wI")     # Black's gate, pointing at White's home row
    assert jumps(state) == {"Fc3^d2"}


def test_R14_two_gates_landing_on_one_square_give_one_jump():
    state = board("""
....b...
........
........
...F....
........
........
........
....B...
""", "c4wJ1NE,h5bI,c6bJ1E")
    # c4 NE: d5, e6; c6 E: d6, e6. Both land the frigate from d5 on e6.
    assert [str(a) for a in state.legal_actions()].count("Fd5^e6") == 1
    assert jumps(state) == {"Fd5^e6"}


@pytest.mark.parametrize("edition, gates, landing", [
    ("manual", "d4wJ2N,a5bI,h6bI,h7bI", "d7"),
    ("manual", "d4wJ1N,d5bJ1N,h6bI,h7bI", "d6"),
    ("readme", "d4wJ1N,d5bJ1N,h6bI,h7bI", "d7"),
    ("readme", "d4wJ1N,d5bA,h6bI,h7bI", "d6"),
], ids=["R14-E3-manual-two-markers", "R14-E3-manual-ignores-next-gate",
        "R14-E3-readme-next-square-jump-gate", "R14-E3-readme-active-is-not-enough"])
def test_R14_E3_three_step_jump(edition, gates, landing):
    state = board(JUMP, gates, edition=edition)
    assert f"Fc3^{landing}" in jumps(state)


def test_R14_E3_three_step_jump_needs_every_rank_gated():
    state = board(JUMP, "d4wJ2N,a5bI,h6bI")          # rank 7 has no gate
    assert "Fc3^d7" not in jumps(state)
    refused(state, "Fc3^d7", "R14")


# ---------------------------------------------------------------------------
# Combat (R15-R19)

def _after_quiet_white_action(state):
    """Play a White deployment far from the action so combat runs once."""
    after, report = play(state, "F@a1")
    return after, {str(d) for d in report.destroyed}


@pytest.mark.parametrize("diagram, lost", [
    ("""
....b...
........
........
....f...
...FfF..
....f...
........
....B...
""", {"frigate on e5"}),
    ("""
....b...
........
........
....F...
...fFf..
....F...
........
....B...
""", {"frigate on e3"}),
], ids=["R15-white-attacks-north", "R15-black-attacks-south"])
def test_R15_frigates_attack_the_three_squares_ahead_only(diagram, lost):
    # The pair on d4/f4 reaches the square between them one rank ahead (2 AP), but
    # not the one beside them on e4 nor the one behind on the other side.
    state = board(diagram)
    _, destroyed = _after_quiet_white_action(state)
    assert destroyed == lost


SLIDERS = """
....b...
........
........
........
.....f..
....X...
........
..S..T..
"""


@pytest.mark.parametrize("blocker, gates, lost", [
    (".", "-", {"frigate on f4"}),
    ("f", "-", set()),
    ("T", "-", set()),
    (".", "e3bJ1N", {"frigate on f4"}),
], ids=["R15-two-rays-meet", "R15-ray-stops-at-enemy-unit", "R15-ray-stops-at-own-unit", "R15-gates-do-not-stop-rays"])
def test_R15_rays_stop_at_the_first_unit_but_not_at_gates(blocker, gates, lost):
    # Sentry c1 (NE: d2, e3, f4) and tower f1 (N: f2, f3, f4) meet on f4.
    diagram = SLIDERS.replace("X", blocker).replace("..S..T..", "..S.BT..")
    diagram = diagram.replace("....b...", "....b...", 1)
    state = board(diagram, gates)
    _, destroyed = _after_quiet_white_action(state)
    assert destroyed == lost


def test_R15_the_first_unit_on_a_ray_is_itself_attacked():
    state = board("""
....b...
........
........
........
.....f..
....f...
.....F..
..S.BT..
""")
    # e3 takes the sentry's ray (which stops there) and the f2 frigate: destroyed.
    _, destroyed = _after_quiet_white_action(state)
    assert destroyed == {"frigate on e3"}


def test_R15_bases_do_not_attack():
    # If the base on e1 attacked d2 in any way, d2 would have 2 AP on it with c1.
    state = board("""
....b...
........
........
........
........
........
...f....
..F.B...
""")
    _, destroyed = _after_quiet_white_action(state)
    assert destroyed == set()


def test_R16_empty_enemy_jump_gate_is_a_target():
    state = board(EMPTY.replace("........\n........\n........\n........\n....B...",
                                "........\n..F.F...\n........\n........\n....B..."), "d5bJ1S")
    after, destroyed = _after_quiet_white_action(state)
    assert destroyed == {"jump gate on d5"}


def test_R16_own_unit_on_an_enemy_jump_gate_shields_it():
    state = board(EMPTY.replace("........\n........\n........\n........\n....B...",
                                "...F....\n..F.F...\n........\n........\n....B..."), "d5bJ1S")
    after, destroyed = _after_quiet_white_action(state)
    assert destroyed == set() and gate(after, "d5") is not None


def test_R16_enemy_unit_on_its_jump_gate_is_the_target_not_the_gate():
    state = board(EMPTY.replace("........\n........\n........\n........\n....B...",
                                "...f....\n..F.F...\n........\n........\n....B..."), "d5bJ1S")
    after, destroyed = _after_quiet_white_action(state)
    assert destroyed == {"frigate on d5"} and gate(after, "d5")[2] == 2


def test_R16_own_jump_gate_is_never_harmed():
    state = board(EMPTY.replace("........\n........\n........\n........\n....B...",
                                "........\n..F.F...\n........\n........\n....B..."), "d5wJ1S")
    after, destroyed = _after_quiet_white_action(state)
    assert destroyed == set()


# In the readme edition the flagship's 2 AP also destroy both attackers (R18).
@pytest.mark.parametrize("edition, lost", [("manual", {"flagship on e5"}), ("readme", {"frigate on d4", "frigate on f4"})],
                         ids=["R17-E1-manual-defence-1", "R17-E1-readme-defence-2"])
def test_R17_E1_flagship_defence(edition, lost):
    state = board("""
....b...
........
........
....q...
...F.F..
........
........
....B...
""", edition=edition, unlocks="b")
    _, destroyed = _after_quiet_white_action(state)
    assert destroyed == lost


@pytest.mark.parametrize("edition, lost", [("manual", set()), ("readme", {"frigate on d6"})],
                         ids=["R17-E1-manual-1-AP", "R17-E1-readme-2-AP"])
def test_R17_E1_flagship_attack_points(edition, lost):
    state = board("""
....b...
........
...f....
........
........
........
........
...QB...
""", edition=edition, unlocks="w")
    _, destroyed = _after_quiet_white_action(state)
    assert destroyed == lost


def test_R17_equal_ap_is_a_stalemate_R18():
    state = board("""
....b...
........
........
....f...
...F....
........
........
....B...
""")
    _, destroyed = _after_quiet_white_action(state)
    assert destroyed == set()


def test_R18_destructions_are_simultaneous_from_the_position_before():
    # e5 is hit by d4 and f4, d4 by c5 and e5: both die together, although
    # removing e5 first would have saved d4.
    state = board("""
....b...
........
........
..f.f...
...F.F..
........
........
....B...
""")
    _, destroyed = _after_quiet_white_action(state)
    assert destroyed == {"frigate on e5", "frigate on d4"}


def test_R18_a_ray_does_not_reach_past_a_unit_destroyed_in_the_same_resolution():
    state = board("""
....b...
...f....
..F.....
...f....
..F.....
........
........
...TB...
""")
    # The tower's ray stops at d5 (tower + c4 = 2 AP: destroyed). d7 has only c6's 1 AP.
    _, destroyed = _after_quiet_white_action(state)
    assert destroyed == {"frigate on d5"}


def test_R18_destroyed_jump_gate_takes_its_markers_and_its_rank_loses_the_gate():
    state = board("""
....b...
........
........
........
..F.F...
........
..F.....
....B...
""", "b1wI,c2wI,d3wJ1N,a4wA,d5bJ2S,h6bI")
    assert "Fc2^d5" in legal_texts(state)
    after, destroyed = _after_quiet_white_action(state)
    assert destroyed == {"jump gate on d5"}
    assert after.gates[4] is None
    assert after.reserve[BLACK][MARKER] == state.reserve[BLACK][MARKER] == 2   # not returned
    after, _ = play(after, "F@a8")
    # R14: d3's jump now crosses rank 5, which has no gate.
    assert "Fc2^d5" not in legal_texts(after)
    refused(after, "Fc2^d5", "R14")


def test_R18_R12_no_gate_jump_to_a_rank_whose_gate_was_destroyed():
    state = board("""
....b...
........
........
........
F.F.F...
........
........
....B...
""", "a4wA,d5bJ1S,h6bI")
    assert "Fa4>d5" in legal_texts(state)
    after, destroyed = _after_quiet_white_action(state)
    assert destroyed == {"jump gate on d5"}
    after, _ = play(after, "F@a8")
    assert not any(t.startswith("Fa4>") for t in legal_texts(after))   # h6 is two ranks up


BASE_ATTACK = """
T..xb.y.
...F.F..
........
........
........
........
........
....B...
"""


@pytest.mark.parametrize("edition, diagram_fill, destroyed", [
    ("manual", (".", "."), True),                 # T a8 (E ray to e8), F d7, F f7: 3 AP
    ("manual", ("f", "."), False),                # the tower's ray stops at d8: 2 AP
    ("readme", (".", "."), True),                 # 3 units
], ids=["R19-E4-manual-3-AP", "R19-E4-manual-2-AP", "R19-E4-readme-3-units"])
def test_R19_E4_base_needs_three(edition, diagram_fill, destroyed):
    x, y = diagram_fill
    # In the readme edition the tower on a8 has already unlocked White's flagship (R20, E2).
    unlocks = "w" if edition == "readme" else "-"
    state = board(BASE_ATTACK.replace("x", x).replace("y", y), edition=edition, unlocks=unlocks)
    after, report = play(state, "F@a1")
    assert ("base on e8" in {str(d) for d in report.destroyed}) is destroyed


@pytest.mark.parametrize("edition, destroyed", [("manual", False), ("readme", False)],
                         ids=["R19-E4-manual-Q+F-is-2-AP", "R19-E4-readme-Q+F-is-2-units-though-3-AP"])
def test_R19_E4_flagship_and_frigate_on_the_base(edition, destroyed):
    state = board("""
Q...b...
.....F..
........
........
........
........
........
....B...
""", edition=edition, unlocks="w")
    _, report = play(state, "F@a1")
    assert ("base on e8" in {str(d) for d in report.destroyed}) is destroyed


def test_R19_E4_readme_flagship_and_two_frigates_destroy_the_base():
    state = board("""
Q...b...
...F.F..
........
........
........
........
........
....B...
""", edition="readme", unlocks="w")
    _, report = play(state, "F@a1")
    assert "base on e8" in {str(d) for d in report.destroyed}


# ---------------------------------------------------------------------------
# End of game (R20-R23)

def test_R20_frigate_on_the_enemy_home_row_unlocks_the_flagship():
    state = board("""
....b...
...F....
........
........
........
........
........
....B...
""")
    refused(state, "Q@a1", "R20")
    after, report = play(state, "Fd7-d8")
    assert report.unlocked == (WHITE,) and after.unlocked == (True, False)
    after, _ = play(after, "F@a8")
    assert "Q@a1" in legal_texts(after)


def test_R20_a_ship_destroyed_on_arrival_does_not_count():
    state = board("""
t...b...
...F....
........
........
...t....
........
........
....B...
""")
    # On d8 the frigate meets the a8 tower (E ray) and the d4 tower (N ray): 2 AP.
    after, report = play(state, "Fd7-d8")
    assert "frigate on d8" in {str(d) for d in report.destroyed}
    assert report.unlocked == () and after.unlocked == (False, False)


@pytest.mark.parametrize("edition, unlocked", [("manual", False), ("readme", True)],
                         ids=["R20-E2-manual-sentry-does-not-unlock", "R20-E2-readme-sentry-unlocks"])
def test_R20_E2_which_ships_unlock(edition, unlocked):
    state = board("""
....b...
........
..S.....
........
........
........
........
....B...
""", edition=edition)
    after, _ = play(state, "Sc6-a8")
    assert after.unlocked[WHITE] is unlocked


def test_R21_destroying_the_enemy_base_wins_at_once():
    state = board(BASE_ATTACK.replace("x", ".").replace("y", "."))
    after, report = play(state, "F@a1")
    assert (after.result, report.result, after.to_move) == ("1-0", "1-0", None)
    assert "R21" in after.reason
    refused(after, "f@a8".replace("f", "F"), "R22")


def test_R21_a_side_that_exposes_its_own_base_loses():
    state = board("""
....b...
........
........
....t...
........
....S...
...f.f..
....B...
""")
    after, report = play(state, "Se3-a7")
    assert "base on e1" in {str(d) for d in report.destroyed}
    assert after.result == "0-1" and "R21" in after.reason


def test_R21_both_bases_in_one_resolution_is_a_draw():
    state = board("""
T...b...
...F.F..
........
........
........
........
...f.f..
....B..t
""")
    after, _ = play(state, "F@a1")
    assert after.result == "1/2-1/2" and "R21" in after.reason


def test_R22_side_without_a_legal_action_loses():
    state = board("""
....b...
........
........
........
........
........
........
....B...
""", to_act="b", reserves="0000001/0048221")
    after, _ = play(state, "F@a8")
    assert after.result == "0-1" and "R22" in after.reason and after.to_move is None


def test_R22_order_base_destruction_comes_before_no_legal_action():
    # White's base falls and White, to act, has nothing left either: R21 gives the reason.
    state = board("""
....b...
........
........
........
........
........
...f.f..
t...B...
""", to_act="b", reserves="0000001/0046211")
    after, _ = play(state, "F@h8")
    assert after.result == "0-1" and "R21" in after.reason and "base" in after.reason


SHUFFLE = """
....b...
........
........
........
........
........
........
T...B..t
"""


def test_R22_threefold_repetition_is_a_draw():
    state = board(SHUFFLE, action=21)
    once = ("Ta1-a2", "Th1-h2", "Ta2-a1", "Th2-h1")
    twice, _ = play(state, *once)
    assert twice.result == "*"                      # the start position stands for the 2nd time
    thrice, report = play(twice, *once)
    assert thrice.result == "1/2-1/2" and "R22" in thrice.reason and "third" in thrice.reason


def test_R22_hundred_quiet_actions_is_a_draw():
    state = board(SHUFFLE, quiet=99, action=21)
    after, _ = play(state, "Ta1-a3")
    assert after.result == "1/2-1/2" and "100" in after.reason
    after, _ = play(state, "F@b1")                   # a deployment resets the count
    assert after.result == "*" and after.quiet == 0


def test_R22_order_repetition_comes_before_the_quiet_count():
    state = board(SHUFFLE, quiet=92, action=21)
    after, _ = play(state, *(("Ta1-a2", "Th1-h2", "Ta2-a1", "Th2-h1") * 2))
    assert after.quiet == 100 or after.is_over
    assert after.result == "1/2-1/2" and "third" in after.reason


def test_R22_a_destruction_resets_the_quiet_count():
    state = board("""
....b...
........
........
....f...
...F.F..
........
........
T...B...
""", quiet=50)
    after, _ = play(state, "Ta1-a2")
    assert after.quiet == 0


def test_R22_no_action_after_the_end():
    state = board(SHUFFLE, quiet=99, action=21)
    after, _ = play(state, "Ta1-a3")
    assert after.legal_actions() == []
    refused(after, "Th1-h2", "R22")


def test_R23_a_result_without_a_decided_position_is_kept_and_ends_play():
    # An agreed draw: nothing on the board decides it, yet the result stands (R23).
    state = from_string(to_string(board(EMPTY)).replace(" w ", " 1/2-1/2 "))
    assert state.result == "1/2-1/2" and state.is_over
    assert state.legal_actions() == []
    with pytest.raises(IllegalActionError):
        check(state, act("F@a1"))


# ---------------------------------------------------------------------------
# Error messages

def test_illegal_action_message_names_action_number_side_text_and_ruling():
    state = board(EMPTY.replace("........\n........\n....B...", "........\nF.......\n....B..."))
    with pytest.raises(IllegalActionError) as info:
        apply(state, act("Fa2-b3"))
    assert re.fullmatch(r"action 11 \(White\) Fa2-b3: .*\(R9\)", str(info.value))
    black = board(EMPTY, to_act="b")
    with pytest.raises(IllegalActionError) as info:
        apply(black, act("Fd5-d4"))
    assert str(info.value).startswith("action 12 (Black) Fd5-d4: ")


def test_illegal_action_error_carries_the_parsed_location():
    with pytest.raises(IllegalActionError) as info:
        apply(new_game(), at(act("B@e2"), 3, 17))
    assert (info.value.line, info.value.column) == (3, 17)


@pytest.mark.parametrize("units", ["4b3/8/8/8/8/8/8/4B3F", "4b3/8/8/8/8/8/8/FFFFBFFFF", "4b3F/8/8/8/8/8/8/4B3"],
                         ids=["R1-unit-past-file-h", "R1-ninth-unit-on-rank", "R1-long-rank-8"])
def test_R1_position_string_rank_longer_than_8_files_is_refused(units):
    from tomis.errors import PositionError
    with pytest.raises(PositionError, match=r"rank \d .*beyond file h"):
        from_string(f"{units} - w 0048221/0048221 - manual 11 0")


def test_R5_R6_a_base_off_its_home_row_or_on_a_gate_is_no_position():
    # Gate jumps (R12) and combat (R19) rely on a base standing on its home row and
    # never on a gate; a position string that says otherwise is refused, not played.
    with pytest.raises(PositionError, match=r"base on e3 is off its home row \(R5\)"):
        board("""
........
........
........
........
........
....b...
..F.F...
....B...
""", "c2wA,e3bA")
    with pytest.raises(PositionError, match=r"base on e1 stands on a gate \(R6\)"):
        board("""
....b...
........
........
........
........
........
........
....B...
""", "e1wA")


@pytest.mark.parametrize("edition, diagram, refused", [
    ("manual", "F...b...", True),      # a White frigate on Black's home row has unlocked (R20)
    ("manual", "T...b...", False),     # a tower does not unlock in the manual edition (E2)
    ("readme", "T...b...", True),      # ... but does in the readme edition (E2)
], ids=["R20-E2-manual-frigate", "R20-E2-manual-tower", "R20-E2-readme-tower"])
def test_R20_E2_position_with_an_unlocker_on_the_enemy_row_must_say_unlocked(edition, diagram, refused):
    rows = diagram + "\n" + "........\n" * 6 + "....B..."
    if refused:
        with pytest.raises(PositionError, match=r"add w to the unlocks field \(R20\)"):
            board(rows, edition=edition)
        assert board(rows, edition=edition, unlocks="w").unlocked == (True, False)
    else:
        assert board(rows, edition=edition).unlocked == (False, False)


def test_actions_are_values_equal_across_positions_and_kinds_differ():
    # A parsed action equals the generated one (line and column aside), different kinds
    # with the same squares never compare equal, and actions survive pickling.
    import pickle
    from tomis.rules.actions import GateJump, GateStrike, Jump, Move
    assert Move(3, 8, 16) == Move(3, 8, 16, line=4, column=2)
    assert hash(Move(3, 8, 16)) == hash(Move(3, 8, 16, line=4, column=2))
    assert len({GateJump(18, 27), GateStrike(18, 27), Jump(18, 27)}) == 3
    assert GateJump(18, 27) != Jump(18, 27)
    copy = pickle.loads(pickle.dumps(Move(3, 8, 16, line=4, column=2)))
    assert (copy, copy.line, copy.column) == (Move(3, 8, 16), 4, 2)
    assert repr(Move(3, 8, 16)) == "Action.parse('Fa2-a3')"      # reads back (issue 11)
    with pytest.raises(AttributeError, match="immutable"):
        Move(3, 8, 16).target = 24


@pytest.mark.parametrize("text, message", [
    ("4b3/8/8/8/8/8/8/4B3 - w 0048221/0048221 - manual 11 100",
     "100 actions without destruction or deployment draw the game, so an undecided position counts at most 99 (R22)"),
    ("4b3/8/8/8/8/8/8/4B3 - w 0040000/0048221 w manual 11 0",
     "white has no legal action here, so the game is already decided; write the result in the side-to-act field (R22)"),
    ("4b3/8/8/8/8/8/8/4B3 b1wA b 0348221/0448221 - manual 4 0",
     "in the opening every gate is inactive: nothing else is played yet (R6, R7)"),
    ("4b3/8/8/8/8/8/8/4B3 - w 0448221/0438221 - manual 3 0",
     "in the opening every piece black has not placed is in its reserve (R2, R7)"),
], ids=["R22-quiet-100", "R22-no-legal-action", "R6-R7-active-gate", "R2-R7-reserve"])
def test_R22_R6_R7_position_strings_cannot_hide_an_ending_or_a_broken_opening(text, message):
    with pytest.raises(PositionError) as caught:
        from_string(text)
    assert caught.value.message == message


def test_R22_a_decided_position_string_may_have_no_legal_action():
    # The same bare position is fine once it says how the game ended.
    state = from_string("4b3/8/8/8/8/8/8/4B3 - 0-1 0040000/0048221 w manual 11 0")
    assert state.is_over and state.result == "0-1"
