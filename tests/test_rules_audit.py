"""An independent audit of the engine against rules.md: edge cases test_rules.py leaves open.

Each test names the ruling it checks. Positions are drawn as in test_rules.py (rank 8
at the top, uppercase White, lowercase Black); gates are given in the position
string's gate field. The combat tests here play actions that are not deployments, so
they also check that the engine's shortcut (no combat after a rotation, a toggle or a
second marker when the previous resolution destroyed nothing) never skips a
resolution that would destroy something.

At the end, ``Ref`` reads the rulings a second time, independently of the engine, and
random games and random positions from strings are played on both (more under
``pytest -m slow``). No discrepancy was found when this file was written.
"""

from __future__ import annotations

import random
import re

import pytest

from conftest import act, board, legal_texts
from tomis.rules import actions as A
from tomis.rules.board import MARKER, parse_square
from tomis.rules.position import from_string, to_string
from tomis.rules import apply, legal_actions, new_game


def play(state, *texts):
    report = None
    for text in texts:
        state, report = apply(state, act(text))
    return state, report


def lost(report):
    return {str(d) for d in report.destroyed}


def jumps(state):
    return {t for t in legal_texts(state) if "^" in t}


# ---------------------------------------------------------------------------
# Combat after actions that move nothing (R15-R18 with R10, R11)

SHIELDED = """
....b...
........
........
...f....
..F.F...
........
........
....B...
"""


def test_R16_R18_a_gate_unshielded_by_a_destruction_falls_at_the_next_resolution_even_after_a_rotation():
    # c4 and e4 put 2 AP on d5. The Black frigate standing on its own jump gate is the
    # target (R16), so the first resolution takes the frigate and leaves the gate.
    state = board(SHIELDED, "d5bJ1S")
    after, report = play(state, "F@a1")
    assert lost(report) == {"frigate on d5"} and after.gate_at(parse_square("d5")) is not None
    # Black's rotation moves no unit, but the gate now stands empty under 2 AP: the
    # resolution after it must destroy the gate (R18), markers and all (R2).
    after, report = play(after, "Md5:N")
    assert lost(report) == {"jump gate on d5"}
    assert after.gates[4] is None and after.reserve[BLACK][MARKER] == 3


def test_R18_a_position_string_with_a_pending_destruction_resolves_after_a_rotation():
    # Read from a string, nothing says the position's last combat was empty: the
    # frigate on d5 stands under 2 AP, and White's rotation on a2 is followed by a
    # resolution that destroys it.
    state = from_string(to_string(board(SHIELDED, "a2wJ1N")))
    after, report = play(state, "Ma2:E")
    assert lost(report) == {"frigate on d5"} and after.quiet == 0


def test_R11_R16_a_first_marker_makes_a_target_that_the_same_resolution_destroys():
    # d5 is White's active gate under 2 Black AP (c6 and e6): no target while it is
    # merely active. Black's deployment settles the position; White's first marker
    # turns d5 into a jump gate, which the resolution after that action destroys.
    state = board("""
....b...
........
..f.f...
........
........
........
........
....B...
""", "d5wA", to_act="b")
    settled, report = play(state, "F@a8")
    assert lost(report) == set()
    after, report = play(settled, "M@d5:N")
    assert lost(report) == {"jump gate on d5"}
    assert after.gates[4] is None and after.reserve[WHITE][MARKER] == 3   # the marker is lost


def test_R10_R16_activating_a_gate_under_enemy_attack_makes_no_target():
    # An active gate is not a target (R16: only jump gates are); the frigate on it
    # shields it anyway. Nothing falls, and the frigate (1 AP from c6) survives.
    state = board("""
....b...
........
..f.....
...F....
........
........
........
....B...
""", "d5wI", to_act="b")
    settled, _ = play(state, "F@a8")
    after, report = play(settled, "Fd5=A")
    assert lost(report) == set() and after.gate_at(parse_square("d5"))[2] == 1


# ---------------------------------------------------------------------------
# R12 capture support by edition (E1)

def test_R12_E1_readme_flagship_support_counts_two_ap():
    # Readme: Black's flagship on f3 has defence 2. The jumper's 1 plus the White
    # flagship's 2 AP (h1 NW ray: g2, f3) make 3 > 2: the capture is legal.
    diagram = """
....b...
........
........
........
........
.....q..
..F.....
....B..X
"""
    state = board(diagram.replace("X", "Q"), "c2wA,f3bA", edition="readme", unlocks="wb")
    assert "Fc2>f3" in legal_texts(state)
    after, report = play(state, "Fc2>f3")
    assert [str(d) for d in report.captured] == ["flagship on f3"]
    # A tower in its place gives 1 AP: 1 + 1 is not above 2.
    state = board(diagram.replace("X", "T"), "c2wA,f3bA", edition="readme", unlocks="b")
    assert "Fc2>f3" not in legal_texts(state)


# ---------------------------------------------------------------------------
# R14 and its edition difference E3

def test_R14_E3_readme_three_step_jump_off_the_board_is_not_shortened_to_two():
    # d6 points N and d7 is a jump gate: in the readme edition n = 3, so the landing
    # d9 is off the board and there is no jump (not a 2-step one to d8). In the
    # manual edition (one marker) n = 2 and the frigate lands on d8.
    for edition, expected in (("manual", {"Fc5^d8"}), ("readme", set())):
        state = board("""
....b...
........
........
..F.....
........
........
........
....B...
""", "d6wJ1N,d7bJ1S,a8bI", edition=edition)
        assert jumps(state) == expected, edition


def test_R14_E3_readme_next_square_jump_gate_counts_with_a_unit_on_it():
    # J + d = d5 is a jump gate with a Black tower on it: still a jump gate, n = 3.
    state = board("""
....b...
........
........
...t....
........
..F.....
........
....B...
""", "d4wJ1N,d5bJ1N,h6bI,h7bI", edition="readme")
    assert jumps(state) == {"Fc3^d7"}


# ---------------------------------------------------------------------------
# R20: the landing square of a capture or a jump, after combat

def test_R20_a_gate_jump_capture_onto_the_enemy_home_row_unlocks():
    state = board("""
..f.b...
.F....F.
........
........
........
........
........
....B...
""", "g7wA,c8bA")
    # b7 attacks c8: 1 + 1 > 1, so the gate jump captures the frigate on Black's row.
    after, report = play(state, "Fg7>c8")
    assert [str(d) for d in report.captured] == ["frigate on c8"]
    assert report.unlocked == (WHITE,) and after.unlocked == (True, False)
    assert "Q@a1" in legal_texts(play(after, "F@a8")[0])


@pytest.mark.parametrize("sentries, unlocked", [("........", True), (".s...s..", False)],
                         ids=["R20-jump-lands-and-unlocks", "R20-jump-destroyed-on-arrival"])
def test_R20_a_jump_onto_the_enemy_home_row(sentries, unlocked):
    # c5 jumps over d6 (N, two steps) to d8. The sentries on b6 and f6 would put
    # 2 AP on d8 (NE and NW rays): destroyed on arrival, which does not count.
    state = board(f"""
....b...
........
{sentries}
..F.....
........
........
........
....B...
""", "d6wJ1N,h7bI,a8bI")
    after, report = play(state, "Fc5^d8")
    assert ("frigate on d8" in lost(report)) is not unlocked
    assert after.unlocked[WHITE] is unlocked and (report.unlocked == (WHITE,)) is unlocked


# ---------------------------------------------------------------------------
# R22: what counts as destruction, deployment and the same position

QUIET = """
....b...
........
........
...f....
..F.F...
........
........
....B...
"""


def test_R22_a_jump_gate_destroyed_by_combat_resets_the_quiet_count():
    state = board(QUIET.replace("...f....", "........"), "d5bJ1S,a2wJ1N", quiet=50)
    after, report = play(state, "Ma2:E")
    assert lost(report) == {"jump gate on d5"} and after.quiet == 0


def test_R22_a_gate_strike_resets_the_quiet_count():
    state = board("""
....b...
........
........
........
........
.....f..
..F.....
....B...
""", "c2wA,f3bA", quiet=98)
    after, report = play(state, "Fc2xf3")
    assert len(report.captured) == 2 and after.quiet == 0 and after.result == "*"


def test_R22_placing_a_marker_is_not_a_deployment():
    # R8 defines deployment (a ship from reserve); a marker (R11) does not reset the count.
    state = board("""
....b...
........
........
........
........
........
........
T...B...
""", "c3wA", quiet=99)
    after, _ = play(state, "M@c3:N")
    assert after.result == "1/2-1/2" and "100" in after.reason


def test_R22_repetition_through_markers_going_home_and_back():
    # White takes its marker back with a toggle (R10) and puts it out again (R11);
    # Black turns its own marker round. Every 6 actions the position (board, gates,
    # markers, reserves, side to act) is the same again: the third time is a draw.
    state = board("""
....b...
........
........
........
........
..F.....
........
....B...
""", "c3wJ1N,f6bJ1S")
    cycle = ("Fc3=I", "Mf6:E", "Fc3=A", "Mf6:W", "M@c3:N", "Mf6:S")
    after, _ = play(state, *cycle)
    assert after.result == "*" and after.reserve == state.reserve
    after, _ = play(after, *cycle[:-1])
    assert after.result == "*"
    after, report = play(after, cycle[-1])
    assert report.result == "1/2-1/2" and "third" in after.reason


# ---------------------------------------------------------------------------
# The independent reading

WHITE, BLACK = 0, 1
B, G, M, F, S, T, Q = range(7)
INACT, ACT, JMP = 0, 1, 2
DIRS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))
DIAG = (1, 3, 5, 7); ORTH = (0, 2, 4, 6)
SLIDE = {S: DIAG, T: ORTH, Q: tuple(range(8))}


def sq(f, r):
    return r * 8 + f if 0 <= f < 8 and 0 <= r < 8 else None


def step(s, d, n=1):
    return sq(s % 8 + DIRS[d][0] * n, s // 8 + DIRS[d][1] * n)


def home(side):
    return 0 if side == WHITE else 7


class Ref:
    """The independent reading. units: sq -> (side, kind); gates: sq -> [owner, state, markers, dir]."""

    def __init__(self, st):
        self.edition = st.edition
        self.units = {s: (c >> 3, c & 7) for s, c in st.units.items()}
        self.gates = {g[0]: [g[1], g[2], g[3], g[4]] for g in st.gates if g is not None}
        self.reserve = [list(st.reserve[0]), list(st.reserve[1])]
        self.unlocked = list(st.unlocked)
        self.to_move = st.to_move
        self.ply = st.ply
        self.quiet = st.quiet
        self.result = st.result
        self.history = [self.key()]

    def key(self):
        return (tuple(sorted(self.units.items())),
                tuple(sorted((s, tuple(g) if g[1] == JMP else (g[0], g[1])) for s, g in self.gates.items())),
                tuple(map(tuple, self.reserve)), tuple(self.unlocked), self.to_move)

    def gate_on_rank(self, r):
        return [s for s in self.gates if s // 8 == r]

    # R15
    def attacks(self, s):
        side, kind = self.units[s]
        if kind == B:
            return []
        if kind == F:
            fwd = 1 if side == WHITE else -1
            return [t for df in (-1, 0, 1) if (t := sq(s % 8 + df, s // 8 + fwd)) is not None]
        out = []
        for d in SLIDE[kind]:
            n = 1
            while (t := step(s, d, n)) is not None:
                out.append(t)
                if t in self.units:
                    break
                n += 1
        return out

    def ap(self, kind):
        if kind == Q:
            return 2 if self.edition == 1 else 1
        return 0 if kind == B else 1

    def defence(self, kind):
        return 2 if (kind == Q and self.edition == 1) else 1

    def combat(self):
        apsum = {}
        cnt = {}
        for s, (side, kind) in self.units.items():
            for t in self.attacks(s):
                apsum[(side, t)] = apsum.get((side, t), 0) + self.ap(kind)
                cnt[(side, t)] = cnt.get((side, t), 0) + 1
        lost_u, lost_g = [], []
        for s, (side, kind) in self.units.items():
            enemy_ap = apsum.get((1 - side, s), 0)
            if kind == B:
                n = enemy_ap if self.edition == 0 else cnt.get((1 - side, s), 0)
                if n >= 3:
                    lost_u.append(s)
            elif enemy_ap > self.defence(kind):
                lost_u.append(s)
        for s, g in self.gates.items():
            if g[1] == JMP and s not in self.units and apsum.get((1 - g[0], s), 0) > 1:
                lost_g.append(s)
        destroyed = []
        for s in lost_u:
            destroyed.append((s, self.units[s][0], self.units[s][1]))
            del self.units[s]
        for s in lost_g:
            destroyed.append((s, self.gates[s][0], G))
            del self.gates[s]
        return sorted(destroyed)

    def landing(self, j):
        owner, state, markers, d = self.gates[j]
        first = step(j, d)
        if self.edition == 0:
            n = 3 if markers == 2 else 2
        else:
            n = 3 if first is not None and first in self.gates and self.gates[first][1] == JMP else 2
        land = step(j, d, n)
        if land is None or land in self.units:
            return None
        for i in range(1, n + 1):
            if not self.gate_on_rank(step(j, d, i) // 8):
                return None
        return land

    def legal(self):
        side = self.to_move
        out = set()
        if side is None:
            return out
        if self.ply < 10:
            if self.ply < 2:
                return {A.Place(B, sq(f, home(self.ply))) for f in range(8)}
            rank = (0, 7, 1, 6, 2, 5, 3, 4)[self.ply - 2]
            base = [s for s, u in self.units.items() if u == (side, B)][0]
            for f in range(8):
                if rank == home(side) and abs(f - base % 8) < 2:
                    continue
                out.add(A.Place(G, sq(f, rank)))
            return out
        kinds = [k for k in (F, S, T) if self.reserve[side][k]]
        if self.reserve[side][Q] and self.unlocked[side]:
            kinds.append(Q)
        for f in range(8):
            s = sq(f, home(side))
            if s not in self.units and s not in self.gates:
                out |= {A.Place(k, s) for k in kinds}
        for s, (us, kind) in list(self.units.items()):
            if us != side or kind == B:
                continue
            if kind == F:
                for d in ((0 if side == WHITE else 4), 2, 6):
                    t = step(s, d)
                    if t is not None and t not in self.units:
                        out.add(A.Move(F, s, t))
                if s in self.gates:
                    g = self.gates[s]
                    out.add(A.Toggle(s, g[1] == INACT))
                    if g[1] != INACT:
                        for r in (s // 8 + 1, s // 8 - 1):
                            for t in self.gate_on_rank(r):
                                if self.gates[t][1] == INACT:
                                    continue
                                if t not in self.units:
                                    out.add(A.GateJump(s, t))
                                    continue
                                os, ok = self.units[t]
                                if os == side:
                                    continue
                                if ok == F:
                                    out.add(A.GateStrike(s, t))
                                support = sum(self.ap(k2) for s2, (side2, k2) in self.units.items()
                                              if side2 == side and s2 != s and t in self.attacks(s2))
                                if ok != B and 1 + support > self.defence(ok):
                                    out.add(A.GateJump(s, t))
            else:
                for d in SLIDE[kind]:
                    n = 1
                    while (t := step(s, d, n)) is not None and t not in self.units:
                        out.add(A.Move(kind, s, t))
                        n += 1
        for j, g in self.gates.items():
            if g[1] != JMP:
                continue
            land = self.landing(j)
            if land is None:
                continue
            for d in range(8):
                o = step(j, d)
                if o is not None and self.units.get(o) == (side, F):
                    out.add(A.Jump(o, land))
        for s, g in self.gates.items():
            if g[0] != side:
                continue
            if g[1] == ACT and self.reserve[side][M]:
                out |= {A.PlaceMarker(s, d) for d in range(8)}
            if g[1] == JMP:
                if self.edition == 0 and g[2] == 1 and self.reserve[side][M]:
                    out.add(A.PlaceMarker(s, g[3]))
                out |= {A.RotateMarker(s, d) for d in range(8) if d != g[3]}
        return out

    def play(self, a):
        side = self.to_move
        captured = []
        t = type(a)
        if t is A.Place:
            self.reserve[side][a.piece] -= 1
            if a.piece == G:
                self.gates[a.square] = [side, INACT, 0, -1]
            else:
                self.units[a.square] = (side, a.piece)
        elif t is A.Move or t is A.Jump:
            self.units[a.target] = self.units.pop(a.origin)
        elif t is A.Toggle:
            g = self.gates[a.square]
            self.reserve[g[0]][M] += g[2]
            self.gates[a.square] = [g[0], ACT if a.activate else INACT, 0, -1]
        elif t is A.PlaceMarker:
            g = self.gates[a.square]
            self.reserve[side][M] -= 1
            self.gates[a.square] = [g[0], JMP, g[2] + 1, a.direction]
        elif t is A.RotateMarker:
            self.gates[a.square][3] = a.direction
        elif t is A.GateStrike:
            captured = [(a.origin, side, F), (a.target, 1 - side, F)]
            del self.units[a.origin], self.units[a.target]
        elif t is A.GateJump:
            if a.target in self.units:
                u = self.units[a.target]
                captured = [(a.target, u[0], u[1])]
            self.units[a.target] = self.units.pop(a.origin)
        destroyed = self.combat()
        # R20, the whole rule: every unlocker on the enemy home row after combat
        for s, (us, kind) in self.units.items():
            if s // 8 == home(1 - us) and (kind == F or (self.edition == 1 and kind in (S, T))):
                self.unlocked[us] = True
        self.ply += 1
        self.to_move = 1 - side
        if captured or destroyed or t is A.Place:
            self.quiet = 0
        else:
            self.quiet += 1
        self.history.append(self.key())
        bases = [d for d in destroyed if d[2] == B]
        if bases:
            self.result = "1/2-1/2" if len(bases) == 2 else ("0-1" if bases[0][1] == WHITE else "1-0")
        elif not self.legal():
            self.result = "0-1" if self.to_move == WHITE else "1-0"
        elif self.history.count(self.key()) >= 3:
            self.result = "1/2-1/2"
        elif self.quiet >= 100:
            self.result = "1/2-1/2"
        if self.result != "*":
            self.to_move = None
        return sorted(captured), destroyed


# ---------------------------------------------------------------------------
# A second, independent reading of the rulings, played against the engine
#
# _Ref below is written from rules.md alone (it imports nothing from the engine but
# the action types): it always resolves combat, grants unlocks by scanning both home
# rows, and keeps the whole history of positions as plain values. Random games and
# random positions read from strings must give the same legal actions, the same
# losses and the same endings as the engine, action after action.

def _engine_view(st):
    return ({s: (c >> 3, c & 7) for s, c in st.units.items()},
            {g[0]: [g[1], g[2], g[3], g[4]] for g in st.gates if g is not None},
            [list(r) for r in st.reserve], list(st.unlocked), st.to_move, st.result, st.quiet)


def _ref_view(r):
    return (r.units, r.gates, r.reserve, r.unlocked, r.to_move, r.result, r.quiet)


_RARE = (A.Jump, A.GateJump, A.GateStrike, A.PlaceMarker, A.Toggle, A.RotateMarker)


def _compare(state, rng, actions):
    ref = Ref(state)
    for _ in range(actions):
        if state.to_move is None:
            return
        listed, mine = set(legal_actions(state)), ref.legal()
        assert listed == mine, (to_string(state), sorted(map(str, listed - mine)), sorted(map(str, mine - listed)))
        if not listed:
            return
        ordered = sorted(listed, key=str)
        rare = [a for a in ordered if type(a) in _RARE]
        action = rng.choice(rare if rare and rng.random() < 0.5 else ordered)
        new, report = apply(state, action)
        captured, destroyed = ref.play(action)
        assert (_engine_view(new), sorted((d.square, d.side, d.piece) for d in report.captured),
                sorted((d.square, d.side, d.piece) for d in report.destroyed)) == \
            (_ref_view(ref), captured, destroyed), (to_string(state), str(action))
        state = new


def _random_position(rng, edition):
    grid = [["."] * 8 for _ in range(8)]
    grid[0][rng.randrange(8)], grid[7][rng.randrange(8)] = "B", "b"
    limit = {"F": 8, "S": 2, "T": 2, "Q": 1}
    counts = dict.fromkeys("FSTQfstq", 0)
    for _ in range(rng.randrange(4, 22)):
        c, r, f = rng.choice("FFFFSTQffffstq"), rng.randrange(8), rng.randrange(8)
        if counts[c] < limit[c.upper()] and grid[r][f] == ".":
            grid[r][f] = c
            counts[c] += 1
    gates, owned, markers = [], [0, 0], [0, 0]
    for r in range(8):
        f, owner = rng.randrange(8), rng.randrange(2)
        if owned[owner] == 4:
            owner = 1 - owner
        if grid[r][f] in "Bb" or rng.random() < 0.12:
            continue
        owned[owner] += 1
        roll, m = rng.random(), 2 if edition == "manual" and rng.random() < 0.4 else 1
        if roll < 0.2:
            tail = "I"
        elif roll < 0.45 or markers[owner] + m > 4:
            tail = "A"
        else:
            markers[owner] += m
            tail = f"J{m}{rng.choice(('N', 'NE', 'E', 'SE', 'S', 'SW', 'W', 'NW'))}"
        gates.append(f"{'abcdefgh'[f]}{r + 1}{'wb'[owner]}{tail}")
    units = "/".join("".join(grid[r]) for r in range(7, -1, -1))
    units = re.sub(r"\.+", lambda m: str(len(m.group())), units)
    reserves = []
    for side, letters in ((0, "FSTQ"), (1, "fstq")):
        row = [0, 0, rng.randrange(0, 5 - markers[side])]
        row += [rng.randrange(0, limit[c.upper()] - counts[c] + 1) for c in letters]
        reserves.append("".join(map(str, row)))
    unlockers = "FST" if edition == "readme" else "F"
    unlocks = {s for s in "wb" if rng.random() < 0.3}
    unlocks |= {"w" for c in grid[7] if c in unlockers} | {"b" for c in grid[0] if c in unlockers.lower()}
    to_act = rng.choice("wb")
    action = 11 + 2 * rng.randrange(80) + (to_act == "b")
    return (f"{units} {','.join(gates) or '-'} {to_act} {'/'.join(reserves)} "
            f"{''.join(s for s in 'wb' if s in unlocks) or '-'} {edition} {action} {rng.randrange(99)}")


@pytest.mark.parametrize("edition", ["manual", "readme"], ids=["R1-R22-manual", "R1-R22-readme-E1-E4"])
@pytest.mark.parametrize("seed", range(3))
def test_R1_to_R22_random_games_agree_with_an_independent_reading(edition, seed):
    _compare(new_game(edition), random.Random(seed), 600)


@pytest.mark.parametrize("seed", range(40))
def test_R1_to_R22_random_positions_from_strings_agree_with_an_independent_reading(seed):
    rng = random.Random(seed)
    _compare(from_string(_random_position(rng, rng.choice(("manual", "readme")))), rng, 30)


@pytest.mark.slow
@pytest.mark.parametrize("batch", range(4))
def test_R1_to_R22_many_random_games_and_positions_agree(batch):
    for seed in range(3 + 20 * batch, 23 + 20 * batch):
        for edition in ("manual", "readme"):
            _compare(new_game(edition), random.Random(seed), 600)
        for offset in range(10):
            rng = random.Random(1000 * seed + offset)
            _compare(from_string(_random_position(rng, rng.choice(("manual", "readme")))), rng, 40)
