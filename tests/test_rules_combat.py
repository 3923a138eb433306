"""Combat (R15-R19) checked against a naive oracle written straight from the rulings.

The engine's resolution is tuned for speed; the oracle below is not. It walks every
attacker square by square and sums AP per target exactly as R15-R19 read, so any
divergence on the random dense boards below is a bug in one reading or the other.
"""

from hypothesis import given, settings, strategies as st
import pytest

from tomis.rules import combat
from tomis.rules.board import BASE, FLAGSHIP, FRIGATE, SENTRY, TOWER, WHITE, BLACK

STEPS = {
    SENTRY: ((1, 1), (1, -1), (-1, 1), (-1, -1)),
    TOWER: ((1, 0), (-1, 0), (0, 1), (0, -1)),
}
STEPS[FLAGSHIP] = STEPS[SENTRY] + STEPS[TOWER]


def oracle_attacks(square, side, kind, units):
    """R15, read literally: the squares one unit attacks."""
    f, r = square % 8, square // 8
    if kind == FRIGATE:
        ahead = r + (1 if side == WHITE else -1)
        return [ahead * 8 + f + df for df in (-1, 0, 1) if 0 <= f + df < 8 and 0 <= ahead < 8]
    out = []
    for df, dr in STEPS.get(kind, ()):
        x, y = f + df, r + dr
        while 0 <= x < 8 and 0 <= y < 8:
            out.append(y * 8 + x)
            if (y * 8 + x) in units:      # a ray ends at the first unit, gates do not stop it
                break
            x, y = x + df, y + dr
    return out


def oracle_resolve(units, gates, readme):
    """R16-R19: what one simultaneous resolution destroys."""
    ap = {WHITE: {}, BLACK: {}}
    count = {WHITE: {}, BLACK: {}}
    for square, (side, kind) in units.items():
        points = 2 if (kind == FLAGSHIP and readme) else (0 if kind == BASE else 1)
        for t in oracle_attacks(square, side, kind, units):
            ap[side][t] = ap[side].get(t, 0) + points
            count[side][t] = count[side].get(t, 0) + 1
    lost_units, lost_gates = [], []
    for square, (side, kind) in units.items():
        enemy = 1 - side
        points = ap[enemy].get(square, 0)
        if kind == BASE:
            strength = count[enemy].get(square, 0) if readme else points
            if strength >= 3:
                lost_units.append(square)
        else:
            defence = 2 if (kind == FLAGSHIP and readme) else 1
            if points > defence:
                lost_units.append(square)
    for rank, gate in enumerate(gates):
        if gate and gate["jump"] and gate["square"] not in units:
            if ap[1 - gate["owner"]].get(gate["square"], 0) > 1:
                lost_gates.append(rank)
    return sorted(lost_units), sorted(lost_gates)


@st.composite
def boards(draw):
    squares = draw(st.lists(st.integers(0, 63), min_size=2, max_size=30, unique=True))
    units = {
        sq: (draw(st.sampled_from([WHITE, BLACK])),
             draw(st.sampled_from([BASE, FRIGATE, FRIGATE, SENTRY, TOWER, FLAGSHIP])))
        for sq in squares
    }
    gates = []
    for rank in range(8):
        if draw(st.booleans()):
            gates.append({"square": rank * 8 + draw(st.integers(0, 7)),
                          "owner": draw(st.sampled_from([WHITE, BLACK])),
                          "jump": draw(st.booleans())})
        else:
            gates.append(None)
    return units, gates, draw(st.booleans())


def engine_form(units, gates):
    codes = {sq: side << 3 | kind for sq, (side, kind) in units.items()}
    tuples = [
        None if g is None else
        (g["square"], g["owner"], combat.JUMP if g["jump"] else combat.ACTIVE,
         1 if g["jump"] else 0, 0 if g["jump"] else -1)
        for g in gates
    ]
    return codes, tuples


def assert_matches_oracle(board):
    units, gates, readme = board
    codes, tuples = engine_form(units, gates)
    lost_units, lost_gates = combat.resolve(codes, tuples, combat.README if readme else combat.MANUAL)
    assert (sorted(lost_units), sorted(lost_gates)) == oracle_resolve(units, gates, readme)


@settings(max_examples=400, deadline=None)
@given(boards())
def test_resolution_matches_oracle_R15_R16_R17_R18_R19(board):
    assert_matches_oracle(board)


@pytest.mark.slow
@settings(max_examples=2500, deadline=None)
@given(boards())
def test_resolution_matches_oracle_many_boards_R18(board):
    assert_matches_oracle(board)


def test_oracle_itself_sees_a_two_frigate_kill_R18():
    # White frigates on d4 and f4 both attack e5; the lone Black frigate there falls (2 > 1).
    units = {27: (WHITE, FRIGATE), 29: (WHITE, FRIGATE), 36: (BLACK, FRIGATE)}
    assert oracle_resolve(units, [None] * 8, False) == ([36], [])
    codes, gates = engine_form(units, [None] * 8)
    assert combat.resolve(codes, gates, combat.MANUAL) == ([36], [])


# ---------------------------------------------------------------------------
# The apply path keeps each position's attack tables up to date action by action
# (combat.lift_unit / land_unit) instead of rebuilding them. After every legal action of
# every position met, they must equal tables built from scratch, and the play must equal
# the play from the same position read back from its string (tables built afresh).

from conftest import act, board                      # noqa: E402
from tomis import rules                              # noqa: E402
from tomis.rules.board import parse_square                 # noqa: E402
from tomis.rules.position import from_string, to_string    # noqa: E402
from hypothesis import HealthCheck                   # noqa: E402


def assert_same_play(state, action):
    after, report = rules.apply_unchecked(state, action)
    assert after.attacks == combat.new_tables(after.units, after.edition), f"{action} at ply {state.ply}"
    full = combat.attack_tables(after.units, after.edition)
    assert [combat.side_ap(after.attacks, side) for side in (WHITE, BLACK)] == list(full)
    fresh = from_string(to_string(state))                   # no tables, not settled
    fresh.history = state.history
    again, again_report = rules.apply_unchecked(fresh, action)
    assert report == again_report, f"{action} at ply {state.ply}"
    assert after == again and after.hash == again.hash and after.history == again.history


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["manual", "readme"]), st.lists(st.integers(0, 10**6), min_size=20, max_size=160))
def test_R15_R18_kept_tables_agree_with_fresh_ones_on_every_legal_action(edition, picks):
    state = rules.new_game(edition)
    for pick in picks:
        actions = rules.legal_actions(state)
        if not actions:
            break
        if state.ply >= rules.OPENING_PLIES:
            for action in actions:
                assert_same_play(state, action)
        state, _ = rules.apply_unchecked(state, actions[pick % len(actions)])


def test_R15_R18_a_frigate_stepping_aside_opens_a_towers_ray_onto_an_enemy():
    # The White tower on a4 is blocked by its own frigate on c4; e4's Black frigate is
    # already attacked by White's frigate on d3. Moving c4 up opens the ray: 2 AP on e4.
    state = board("""
....b...
........
........
........
T.F.f...
...F....
........
....B...
""")
    assert state.attacks is None              # a position from a string: built on first use
    quiet, report = rules.apply(state, act("F@a1"))
    assert report.destroyed == () and quiet.attacks is not None
    black = rules.apply(quiet, act("F@a8"))[0]
    after, report = rules.apply(black, act("Fc4-c5"))
    assert [str(d) for d in report.destroyed] == ["frigate on e4"]
    assert after.attacks == combat.new_tables(after.units, after.edition)


def test_R15_a_rotation_shares_the_attack_tables_and_a_move_does_not():
    state = board("""
....b...
........
........
........
........
........
F.......
....B...
""", "d5wJ1N")
    before, _ = rules.apply(state, act("F@b1"))
    before, _ = rules.apply(before, act("F@a8"))
    rotated, _ = rules.apply(before, act("Md5:S"))
    assert rotated.attacks is before.attacks
    moved, _ = rules.apply(rotated, act("Fa8-a7"))
    assert moved.attacks is not rotated.attacks
    assert rotated.attacks == combat.new_tables(rotated.units, rotated.edition)     # untouched
    assert combat.side_ap(moved.attacks, BLACK)[parse_square("a6")] == 1


def test_R18_losses_after_a_rotation_leave_the_position_before_it_whole():
    # A position from a string is not known to be settled: the rotation (which changes no
    # unit, so its successor starts out sharing the units and gates) is followed by a full
    # resolution, and e4's Black frigate falls to d3's and f3's 2 AP. The parent keeps it.
    state = board("""
....b...
........
........
........
....f...
...F.F..
........
....B...
""", "d5wJ1N")
    text = to_string(state)
    rotated, report = rules.apply(state, act("Md5:S"))
    assert [str(d) for d in report.destroyed] == ["frigate on e4"]
    assert parse_square("e4") in state.units and parse_square("e4") not in rotated.units
    assert to_string(state) == text and state.hash == from_string(text).hash
    assert rotated.attacks == combat.new_tables(rotated.units, rotated.edition)


# ---------------------------------------------------------------------------
# combat.move_unit recounts only the lines a move leaves or enters and, on its own line,
# the squares it crosses. On random dense boards, every straight move onto an empty
# square over empty squares (R9) must leave the counts as a rebuild from scratch gives
# them, and name every unit whose enemy gained points (what the quiet test relies on).

from tomis.rules.board import FRIGATE_STEPS, RAYS, SLIDER_DIRECTIONS    # noqa: E402


def straight_moves(codes):
    for origin, code in codes.items():
        side, kind = code >> 3, code & 7
        if kind == FRIGATE:
            yield from ((origin, t) for t in FRIGATE_STEPS[side][origin] if t not in codes)
        elif kind in SLIDER_DIRECTIONS:
            for d in SLIDER_DIRECTIONS[kind]:
                for t in RAYS[origin][d]:
                    if t in codes:
                        break
                    yield origin, t


@settings(max_examples=150, deadline=None)
@given(boards())
def test_R9_R15_move_unit_counts_as_a_rebuild_and_names_every_raised_unit(board):
    units, _gates, readme = board
    codes, _ = engine_form(units, [])
    edition = combat.README if readme else combat.MANUAL
    before = combat.new_tables(codes, edition)
    for origin, target in straight_moves(codes):
        tables, moved, raised = bytearray(before), dict(codes), []
        code = combat.move_unit(tables, moved, origin, target, edition, raised)
        assert code == codes[origin] and moved[target] == code and origin not in moved
        assert tables == combat.new_tables(moved, edition), (origin, target)
        gained = {sq for sq, c in moved.items() if sq != target
                  and tables[combat._ENEMY_AT[c] + sq] > before[combat._ENEMY_AT[c] + sq]}
        assert gained <= set(raised), (origin, target)
