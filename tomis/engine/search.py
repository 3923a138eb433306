"""The search: negamax with alpha-beta pruning under iterative deepening. No I/O.

- Limits: a depth, a node count, a time, or none (until :meth:`Search.stop`), and a
  minimum depth that finishes whatever the node or time limit says. Node and depth
  limits make the search deterministic: the same position, seed and limit give the
  same action on any machine. Time limits depend on the machine's speed.
- A transposition table keyed by :attr:`State.hash` (the Zobrist hash of R22's
  comparison) remembers bounds and best actions; it lives for one search, so a search
  does not depend on what was searched before.
- Move ordering: the table's action, then actions that destroy or capture something
  (a gate strike, a capturing gate jump, or an action that brings attack points onto an
  enemy target already held at stalemate, R17), then two killer actions per ply, then
  the history heuristic. History is kept for moves and deployments, which the rules
  module interns (one object per action), so it is keyed by object identity: hashing
  an action object is slow Python.
- Pruning: a node from two plies left whose side to act stands at or above beta first
  lets the opponent act twice (a "null move", searched two plies shallower); if that
  still does not bring it below beta the node is cut off. One ply from the horizon, a
  side standing more than :data:`FUTILITY_MARGIN` below alpha searches only the actions
  that may destroy, capture or unlock (futility pruning).
- Quiescence: at the horizon the side to act may still play actions whose combat
  destroys something (R15-R19), so a position is not judged in the middle of an
  exchange; "standing pat" on the static evaluation is allowed, as no action is forced.
- Randomness (for the low levels): a seeded offset added to each root action's score.
- :meth:`Search.stop` may be called from another thread; the search checks it every
  few hundred nodes and answers with the best action found so far. Depth 1 always
  finishes first (milliseconds), so there is always a searched answer: stop applies
  from depth 2 on, node and time limits past the minimum depth. An action that beat the previous best in a pass cut short by
  a limit is taken, as it is better at the deeper depth.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field

from ..rules.actions import Action, GateJump, GateStrike, Jump, Move, Place
from ..rules.board import (BASE, FLAGSHIP, FRIGATE, FRIGATE_ATTACKS, HOME_RANK, RANK_OF, RAYS, SENTRY,
                           SLIDER_DIRECTIONS, TOWER)
from ..rules.combat import INACTIVE, JUMP, UNIT_DEFENCE, attack_tables
from ..rules.core import OPENING_PLIES, State, apply_unchecked, iter_legal_actions
from .evaluate import WEIGHTS, evaluate

MATE = 100_000               # a won game; MATE - n: won n plies from the root
MATE_BOUND = MATE - 1_000    # scores beyond this are wins or losses, not evaluations
INFINITE = 1_000_000
MAX_DEPTH = 64
QUIESCENCE_DEPTH = 6         # plies of destroying actions after the horizon, at most
CHECK_EVERY = 255            # nodes between looks at the clock and the stop flag (mask)
TABLE_LIMIT = 1 << 20        # transposition entries before the table is emptied
UNDO_PENALTY = 20            # centi-frigates off a slide that undoes the mover's own last one
NULL_MIN_DEPTH = 2           # plies left from which a node first tries passing (null move)
NULL_REDUCTION = 2           # how much shallower the position after a pass is searched
NULL_MIN_SHIPS = 3           # ships (on the board and in reserve) the side to act needs to try it
# One ply from the horizon, the most a quiet action is taken to gain over the static
# evaluation. Measured on the 16 bench positions' depth-1 nodes (42,954 quiet actions,
# each followed by the opponent's quiescence): 99.9 % gain at most 57, the largest 96.
FUTILITY_MARGIN = 100
# The hash of a position after a pass: a key of its own (64 bits, as the rules' Zobrist
# keys), so a passed position never shares a table entry or a cached evaluation with a
# position the rules reached.
_NULL_KEY = 0x9E3779B97F4A7C15

EXACT, LOWER, UPPER = 0, 1, 2

# Move-ordering bands: each band outranks everything in the bands below it.
_TABLE_BAND = 1 << 30
_CAPTURE_BAND = 1 << 28
_KILLER_BAND = 1 << 26
_HISTORY_CAP = (1 << 26) - 1


@dataclass(frozen=True)
class Limits:
    """When to stop: the first limit reached ends the search (None = no such limit)."""

    depth: int | None = None
    nodes: int | None = None
    time: float | None = None        # seconds
    noise: int = 0                   # root randomness, +- centi-frigates (levels)
    min_depth: int = 1               # depths that finish whatever the node and time limits


@dataclass
class ScoredLine:
    """One root action with its exact score for the side to act and the line it starts."""

    action: Action
    score: int
    pv: list = field(default_factory=list)


@dataclass
class SearchResult:
    """The answer of a search: best action, its score for the side to act, the line.

    ``lines`` are the best root actions of the last finished depth, best first (as many
    as the search was asked for), and then any action it was asked to score exactly
    that is not among them (``Search.run(exact=...)``).
    """

    action: Action
    score: int
    pv: list = field(default_factory=list)
    depth: int = 0
    nodes: int = 0
    time: float = 0.0               # seconds
    lines: list = field(default_factory=list)

    def line_of(self, action) -> ScoredLine | None:
        """The line that starts with ``action``, if it was scored exactly."""
        for line in self.lines:
            if line.action == action:
                return line
        return None

    @property
    def nps(self) -> int:
        return int(self.nodes / self.time) if self.time > 0 else 0


@dataclass(frozen=True)
class _RootWants:
    """What the root pass must score exactly: the ``count`` best, and ``exact``."""

    count: int
    exact: frozenset

    @property
    def several(self) -> bool:
        return self.count > 1 or bool(self.exact)


def _undoes(action, earlier) -> bool:
    """Whether the move ``action`` takes a ship straight back where ``earlier`` moved it from."""
    return (type(earlier) is Move and action.origin == earlier.target and action.target == earlier.origin)


class _Abort(Exception):
    """Raised inside the tree when a limit is reached or a stop was asked for."""


def terminal_score(state: State, mover: int, ply: int) -> int:
    """A decided position's score for ``mover`` (who acted into it), ``ply`` from the root."""
    result = state.result
    if result == "1/2-1/2":
        return 0
    winner = 0 if result == "1-0" else 1
    return MATE - ply if winner == mover else -(MATE - ply)


def _to_table(score: int, ply: int) -> int:
    """Mate scores are stored relative to the node, so they stay right at any ply."""
    if score > MATE_BOUND:
        return score + ply
    if score < -MATE_BOUND:
        return score - ply
    return score


def _from_table(score: int, ply: int) -> int:
    if score > MATE_BOUND:
        return score - ply
    if score < -MATE_BOUND:
        return score + ply
    return score


_BITS = tuple(1 << square for square in range(64))
# _FRIGATE_REACH[side][square]: the squares ``side``'s frigate on ``square`` attacks (R15), as a mask.
_FRIGATE_REACH = tuple(tuple(sum(_BITS[t] for t in attacked) for attacked in FRIGATE_ATTACKS[side]) for side in (0, 1))
_DIAGONALS = tuple(d for d in range(8) if d in SLIDER_DIRECTIONS[SENTRY])
_ORTHOGONALS = tuple(d for d in range(8) if d in SLIDER_DIRECTIONS[TOWER])
# Per direction, the slider kinds of each side (unit codes) that attack along it.
_ATTACKS_ALONG = tuple(
    tuple(frozenset(side << 3 | kind for kind, ds in SLIDER_DIRECTIONS.items() if d in ds) for side in (0, 1))
    for d in range(8)
)
# Per side, the unit codes of its sliders, and per edition and side, the enemy AP at
# which each unit code is ripe (R17, R19; 256: never, for one's own units).
_OWN_SLIDERS = tuple(frozenset(side << 3 | kind for kind in (SENTRY, TOWER, FLAGSHIP)) for side in (0, 1))
_RIPE_AT = tuple(
    tuple(tuple(2 if code == (1 - side) << 3 | BASE else defence[code & 7] or 256 if code >> 3 != side and code & 7 < 7
                else 256 for code in range(16)) for side in (0, 1))
    for defence in UNIT_DEFENCE
)


class Ripe:
    """What one more attacker would destroy, for the side to act (:meth:`Search._hot_squares`).

    Every mask is a set of ripe target squares (bit ``1 << square``). ``targets``: all
    of them. ``diagonal[s]`` / ``orthogonal[s]``: those a slider attacking along the
    diagonals / the ranks and files would attack from the empty square ``s``.
    ``already``: per square of our slider, the ripe targets it attacks now. ``screens``:
    per empty square between a ripe target and our slider attacking it, that target (a
    ship landing there would only screen it). Frigates are read from their attack masks.
    """

    __slots__ = ("targets", "diagonal", "orthogonal", "already", "screens")

    def __init__(self, targets: int):
        self.targets = targets
        self.diagonal = [0] * 64
        self.orthogonal = [0] * 64
        self.already: dict[int, int] = {}
        self.screens: dict[int, int] = {}

    def mark_rays(self, ripe: list[int], side: int, units, directions) -> None:
        """Walk the rays out of each ripe target once for this node, marking the empty
        squares a slider would attack it from; a ray that ends at our own slider that
        attacks along it marks that slider in ``already`` and its empty squares as
        screens instead (landing there gains nothing)."""
        already = self.already
        screens = self.screens
        for target in ripe:
            bit = _BITS[target]
            rays = RAYS[target]
            for d in directions:
                marks = self.diagonal if d & 1 else self.orthogonal
                ray = rays[d]
                for index, square in enumerate(ray):
                    code = units.get(square)
                    if code is None:
                        continue
                    if code in _ATTACKS_ALONG[d][side]:
                        already[square] = already.get(square, 0) | bit
                        for screen in ray[:index]:
                            screens[screen] = screens.get(screen, 0) | bit
                    else:
                        for mark in ray[:index]:
                            marks[mark] |= bit
                    break
                else:
                    for mark in ray:
                        marks[mark] |= bit

    def frigate_gain(self, side: int, landing: int, origin: int | None) -> int:
        """The ripe targets our frigate would attack from ``landing`` and not from
        ``origin`` (None: a deployment), less those it would only screen."""
        reach = _FRIGATE_REACH[side]
        gained = reach[landing] & self.targets
        if origin is not None:
            gained &= ~reach[origin]
        if gained and self.screens:
            gained &= ~self.screens.get(landing, 0)
        return gained

    def slider_gain(self, kind: int, landing: int) -> int:
        """The ripe targets a slider of ``kind`` would attack from the empty ``landing``."""
        if kind == SENTRY:
            return self.diagonal[landing]
        if kind == TOWER:
            return self.orthogonal[landing]
        return self.diagonal[landing] | self.orthogonal[landing]


class Search:
    """One searcher; :meth:`run` may be called many times (each search starts afresh)."""

    def __init__(self, seed: int = 0):
        self.seed = seed
        self.play_out_ends = True       # a forced win's line goes to the game's end
        # The evaluation's tempo term (the side to act's bonus) at the leaves. Play keeps
        # it; analysis leaves it out (tomis.engine.analysis): with it a score swings by
        # twice the term with the parity of the leaves, from one depth or ply to the next.
        self.tempo = True
        self._untempo = 0
        self._stop = threading.Event()
        self.nodes = 0
        self._table: dict = {}
        self._killers: list = []
        self._history: dict = {}
        self._evaluations: dict = {}
        self._node_limit: int | None = None
        self._deadline: float | None = None
        self._armed = False             # limits and stop apply (not during depth 1)
        self._partial: tuple[int, Action] | None = None     # (score, action): best of the unfinished pass
        self._previous: list = [None, None]   # the two actions before the root
        self._line: list = []

    # -- control -------------------------------------------------------------------
    def stop(self) -> None:
        """Ask a running search to answer now (safe from another thread)."""
        self._stop.set()

    def _check(self) -> None:
        if not self._armed:
            return
        if self._stop.is_set():
            raise _Abort
        if self._deadline is not None and time.perf_counter() >= self._deadline:
            raise _Abort

    # -- entry point ---------------------------------------------------------------
    def run(self, state: State, limits: Limits = Limits(), on_depth=None, lines: int = 1,
            exact=(), previous=()) -> SearchResult:
        """Search ``state`` under ``limits``; ``on_depth(result)`` after each finished depth.

        ``lines`` > 1 asks for that many best root actions, each with its exact score
        (multi-PV); ``exact`` names root actions scored exactly whatever their rank (a
        player's candidate). Either one makes the answer that of the last finished depth,
        so every line's score comes from the same depth. ``previous`` are the actions
        that led to ``state``, the last one last (two are used: the side to act's own
        last slide is not undone for nothing).
        """
        if state.to_move is None:
            raise ValueError("the game is over; there is no action to search")
        self._stop.clear()
        start = time.perf_counter()
        self.nodes = 0
        self._table = {}
        self._killers = [[None, None] for _ in range(MAX_DEPTH + QUIESCENCE_DEPTH + 2)]
        self._history = {}
        self._evaluations = {}          # hash -> static evaluation (it depends on nothing else)
        self._previous = ([None, None] + list(previous))[-2:]
        self._untempo = 0 if self.tempo else WEIGHTS["tempo"]
        self._line = list(self._previous)   # the actions played to reach the node searched
        # Depth 1 always finishes (it takes milliseconds): an answer from an unfinished
        # first pass would be whichever action sorts first. Stop is heard after it; the
        # node and time limits after ``min_depth``.
        self._node_limit = None
        self._deadline = None
        self._armed = False
        actions = sorted(iter_legal_actions(state), key=str)   # an order that is the same everywhere
        offsets = self._root_offsets(state, actions, limits.noise)
        wanted = _RootWants(max(1, lines), frozenset(exact))
        max_depth = min(limits.depth or MAX_DEPTH, MAX_DEPTH)
        best = SearchResult(actions[0], 0, [actions[0]], 0, 0, 0.0)
        scores = {action: 0 for action in actions}
        for depth in range(1, max_depth + 1):
            self._forget_partial()
            try:
                exact_scores = self._root(state, actions, offsets, scores, depth, wanted)
            except _Abort:
                if (not wanted.several and self._partial is not None
                        and self._partial[1] != best.action):
                    # The previous best was searched first at this depth; an action that
                    # beat it since is better at this depth, even though the pass is cut.
                    score, action = self._partial
                    pv = self._pv(state, action, depth, score)
                    best = SearchResult(action, score, pv, best.depth, self.nodes,
                                        time.perf_counter() - start, [ScoredLine(action, score, pv)])
                break
            best = self._answer(state, depth, exact_scores, offsets, wanted, start)
            self._armed = True              # stop is heard from depth 2 on
            if depth >= limits.min_depth:
                self._node_limit = limits.nodes
                self._deadline = start + limits.time if limits.time is not None else None
            if on_depth is not None:
                on_depth(best)
            if len(actions) == 1 or abs(best.score) > MATE_BOUND:
                break                   # nothing to choose, or the game's end is in sight
            if (self._deadline is not None and limits.time is not None
                    and time.perf_counter() > self._deadline - limits.time * 0.55):
                break                   # the next depth would not finish in the time left
            actions.sort(key=lambda a: -scores[a])
        best.nodes = self.nodes
        best.time = time.perf_counter() - start
        return best

    def _forget_partial(self) -> None:
        # A method, not an assignment in run(): after ``self._partial = None`` there, the
        # type checker (and so the compiled build, which enforces it) would take the
        # attribute for None until run() ends, though _root() sets it meanwhile.
        self._partial = None

    def _answer(self, state, depth, exact_scores, offsets, wanted, start) -> SearchResult:
        """The result of a finished depth: the best lines, then the actions asked about."""
        # Ranked with the offsets, as the root chose; ties keep the search's own order.
        ranked = sorted(exact_scores, key=lambda a: -(exact_scores[a] + offsets[a]))
        chosen = ranked[:wanted.count] + [a for a in ranked[wanted.count:] if a in wanted.exact]
        found = [ScoredLine(a, exact_scores[a], self._pv(state, a, depth, exact_scores[a])) for a in chosen]
        first = found[0]
        return SearchResult(first.action, first.score, first.pv, depth, self.nodes,
                            time.perf_counter() - start, found)

    def _root_offsets(self, state: State, actions: list, noise: int) -> dict:
        if not noise:
            return {action: 0 for action in actions}
        rng = random.Random(f"{self.seed}:{state.hash}:{state.ply}")
        return {action: rng.randint(-noise, noise) for action in actions}

    def _root(self, state, actions, offsets, scores, depth, wanted) -> dict:
        """One full-width pass at the root; the actions scored exactly, with their scores.

        Actions compete with their random offsets added; the scores handed back are the
        actions' own, without offsets. An action is searched against the lowest score
        that still ranks among the ``wanted.count`` best so far (for one line: the best):
        one that beats it gets its exact score, the others only a bound. The actions in
        ``wanted.exact`` are searched with a full window. The best so far is kept in
        ``_partial``.
        """
        previous = self._previous
        ranks: list[int] = []           # the best offset scores so far, highest first
        exact_scores = {}
        for action in actions:
            offset = offsets[action]
            alpha = ranks[-1] if len(ranks) >= wanted.count else -INFINITE
            if action in wanted.exact:
                alpha = -INFINITE
            self.nodes += 1
            self._line = list(previous)
            score = self._after(state, action, depth - 1, -INFINITE, offset - alpha, 1)
            scores[action] = score + offset
            if score + offset > alpha:
                exact_scores[action] = score
                if not ranks or score + offset > ranks[0]:
                    self._partial = (score, action)
                ranks.append(score + offset)
                ranks.sort(reverse=True)
                del ranks[wanted.count:]
        return exact_scores

    # -- the tree --------------------------------------------------------------------
    def _enter(self) -> None:
        """Count a node; end the search when a limit is reached."""
        self.nodes += 1
        if self._node_limit is not None and self.nodes >= self._node_limit:
            raise _Abort
        if not self.nodes & CHECK_EVERY:
            self._check()

    def _negamax(self, state: State, depth: int, alpha: int, beta: int, ply: int) -> int:
        if depth <= 0:
            return self._quiesce(state, alpha, beta, ply, 0)
        self._enter()
        table = self._table
        entry = table.get(state.hash)
        table_action = None
        if entry is not None:
            entry_depth, flag, stored, table_action = entry
            if entry_depth >= depth:
                score = _from_table(stored, ply)
                if flag == EXACT or (flag == LOWER and score >= beta) or (flag == UPPER and score <= alpha):
                    return score
        if depth >= NULL_MIN_DEPTH and self._may_pass(state, beta):
            score = self._after_pass(state, depth - 1 - NULL_REDUCTION, beta, ply)
            if score >= beta:
                return score
        original_alpha = alpha
        best = -INFINITE
        best_action = None
        actions = self._ordered(state, table_action, ply)
        if depth == 1 and len(actions) > 1 and self._futile(state, alpha):
            # One ply from the horizon and so far below alpha that no quiet action can
            # make it up: only the forcing actions are searched (futility pruning).
            best = self._static(state) + FUTILITY_MARGIN
            actions = self._forcing(state, actions)
        for action in actions:
            score = self._after(state, action, depth - 1, -beta, -alpha, ply + 1)
            if score > best:
                best = score
                best_action = action
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        self._reward(action, depth, ply)
                        break
        flag = UPPER if best <= original_alpha else LOWER if best >= beta else EXACT
        if len(table) >= TABLE_LIMIT:
            table.clear()
            self._evaluations.clear()
        table[state.hash] = (depth, flag, _to_table(best, ply), best_action)
        return best

    def _after(self, state: State, action, depth: int, alpha: int, beta: int, ply: int) -> int:
        """What ``action`` is worth to the side acting in ``state``: the position after it
        searched ``depth`` more plies in the window (``alpha``, ``beta``) of the side then
        to act, ``ply`` plies from the root.

        A position that stands for the second time scores as a draw: either side could
        repeat it into R22 (3)'s draw, so a search that sees a win elsewhere does not
        shuffle toward one. A slide that undoes the mover's own last slide and destroys
        nothing loses :data:`UNDO_PENALTY`: it spends two actions to stand still.
        """
        child, report = apply_unchecked(state, action)
        if child.to_move is None:
            return terminal_score(child, _acting(state), ply)
        line = self._line
        penalty = UNDO_PENALTY if type(action) is Move and _undoes(action, line[-2]) and not report.destroyed else 0
        if child.history.count(child.hash) > 1:
            return -penalty
        # The child's window moves with the penalty, so its bounds stay bounds.
        line.append(action)
        score = -self._negamax(child, depth, alpha - penalty, beta - penalty, ply)
        line.pop()
        if abs(score) > MATE_BOUND:
            return score                # a forced end is worth what it is, however reached
        return score - penalty

    def _may_pass(self, state: State, beta: int) -> bool:
        """Whether to try passing here (null-move pruning): not right after a pass, not in
        the opening, not near a decided score, only when the side to act stands at or
        above ``beta`` already, and with ships enough that having to act is no burden.

        No rule lets a side pass. The test asks "would the opponent, given two actions
        in a row, still not bring this position below beta?" A yes cuts the node off
        after a search ``NULL_REDUCTION`` plies shallower than the actions' own.
        Toggling a gate or turning a marker changes nothing that combat sees, and most
        positions have one, so a position where every action hurts (zugzwang) is rare;
        the guard on ships keeps thin endings out all the same.
        """
        if self._line[-1] is None or state.ply < OPENING_PLIES or abs(beta) > MATE_BOUND:
            return False
        side = _acting(state)
        own = side << 3
        ships = sum(state.reserve[side][kind] for kind in _SHIP_KINDS)
        if ships < NULL_MIN_SHIPS:
            ships += sum(1 for code in state.units.values() if code >> 3 == side and code != own | BASE)
            if ships < NULL_MIN_SHIPS:
                return False
        return self._static(state) >= beta

    def _futile(self, state: State, alpha: int) -> bool:
        """Whether the side to act, one ply from the horizon, stands so far below
        ``alpha`` that no quiet action can lift it there (:data:`FUTILITY_MARGIN`)."""
        return (state.ply >= OPENING_PLIES and abs(alpha) < MATE_BOUND
                and self._static(state) + FUTILITY_MARGIN <= alpha)

    def _forcing(self, state: State, actions: list) -> list:
        """The actions of ``actions`` that may change the score by more than a quiet one:
        those guessed to destroy or capture, and landings on the enemy's home row while
        the flagship is locked (R20: unlocking it puts a ship in reserve)."""
        side = _acting(state)
        hot = self._hot_squares(state)
        chosen = set(_destroying_indexes(actions, hot, state.units, side)) \
            if hot is not None or _frigate_on_active_gate(state) else set()
        if not state.unlocked[side]:
            home = HOME_RANK[1 - side]
            for index, action in enumerate(actions):
                target = getattr(action, "target", None)
                if target is not None and RANK_OF[target] == home:
                    chosen.add(index)
        return [actions[index] for index in sorted(chosen)]

    def _static(self, state: State) -> int:
        """The static evaluation for the side to act, cached by hash."""
        cache = self._evaluations
        stand = cache.get(state.hash)
        if stand is None:
            stand = cache[state.hash] = evaluate(state) - self._untempo
        return stand

    def _after_pass(self, state: State, depth: int, beta: int, ply: int) -> int:
        """The score for the side to act of letting the opponent act again, searched
        ``depth`` plies with a null window at ``beta``."""
        passed = state.copy()
        passed.to_move = 1 - _acting(state)
        passed.hash = state.hash ^ _NULL_KEY
        passed.history = (passed.hash,)
        line = self._line
        line.append(None)
        score = -self._negamax(passed, depth, -beta, -beta + 1, ply + 1)
        line.pop()
        return score

    def _reward(self, action, depth: int, ply: int) -> None:
        """A quiet action that cut the search off: remember it as a killer and in history."""
        killers = self._killers[ply]
        if killers[0] != action:
            killers[1] = killers[0]
            killers[0] = action
        kind = type(action)
        if kind is Move or kind is Place:
            history = self._history
            key = id(action)
            history[key] = min(history.get(key, 0) + depth * depth, _HISTORY_CAP)

    def _quiesce(self, state: State, alpha: int, beta: int, ply: int, qdepth: int) -> int:
        self._enter()
        stand = self._static(state)
        if stand >= beta or qdepth >= QUIESCENCE_DEPTH:
            return stand
        if stand > alpha:
            alpha = stand
        best = stand
        mover = _acting(state)
        for action in self._destroying(state):
            child, report = apply_unchecked(state, action)
            if not (report.destroyed or report.captured):
                continue                # the guess was wrong: nothing was destroyed
            if child.to_move is None:
                score = terminal_score(child, mover, ply + 1)
            else:
                score = -self._quiesce(child, -beta, -alpha, ply + 1, qdepth + 1)
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best

    # -- which actions destroy ---------------------------------------------------------
    @staticmethod
    def _hot_squares(state: State, tables=None) -> Ripe | None:
        """What one more attacker of the side to act would destroy, or None: nothing.

        An enemy target already held at stalemate (our AP equal to its defence, R17), an
        enemy base two AP from falling (R19), or an unguarded enemy jump gate we attack
        once (its defence is 1) is *ripe*. The :class:`Ripe` answer says, per square,
        which ripe targets a ship would attack from there, and which our ships attack
        now: a ship that moves gains only targets it did not attack before (a tower
        sliding along the file it already attacks down brings nothing). The attack
        points are read from ``State.attacks`` (``tables``: only for a position without
        them, as :func:`side_tables` gives them).
        """
        side = _acting(state)
        enemy = 1 - side
        counts: bytearray | list[int] | None = state.attacks
        if counts is None:
            white, black = tables or side_tables(state)
            counts = list(white) + list(black)
        at = 64 * side
        ripe_at = _RIPE_AT[state.edition][side]
        units = state.units
        ripe = [square for square, code in units.items() if counts[at + square] >= ripe_at[code]]
        for gate in state.gates:
            if gate is not None and gate[2] == JUMP and gate[1] == enemy and gate[0] not in units \
                    and counts[at + gate[0]]:
                ripe.append(gate[0])          # an unguarded enemy jump gate we attack (defence 1)
        if not ripe:
            return None
        found = Ripe(sum(map(_BITS.__getitem__, ripe)))
        reserve = state.reserve[side]
        kinds = {code & 7 for code in _OWN_SLIDERS[side].intersection(units.values())}   # could act
        kinds.update(kind for kind in _SLIDER_KINDS if reserve[kind])
        diagonal = SENTRY in kinds or FLAGSHIP in kinds
        orthogonal = TOWER in kinds or FLAGSHIP in kinds
        directions = (_DIAGONALS if diagonal else ()) + (_ORTHOGONALS if orthogonal else ())
        if directions:               # only the lines some slider of ours could use
            found.mark_rays(ripe, side, units, directions)
        return found

    def _destroying(self, state: State) -> list:
        """The actions likely to destroy something, in generation order."""
        hot = self._hot_squares(state)
        if hot is None and not _frigate_on_active_gate(state):
            return []           # nothing ripe, and no gate strike or capture possible
        actions = list(iter_legal_actions(state))
        return [actions[index] for index in _destroying_indexes(actions, hot, state.units, _acting(state))]

    def _ordered(self, state: State, table_action, ply: int) -> list:
        """The legal actions, best guesses first (see the module docstring).

        Each action gets one integer key, raised band by band (history, killers,
        destroying actions, the table's action), and a stable sort keeps generation order
        among equals. Moves and deployments are interned, so they are found by identity;
        history holds only their ids, so any other action's key starts at 0.
        """
        actions = list(iter_legal_actions(state))
        if len(actions) < 2:
            return actions
        history = self._history.get
        keys = [history(id(action), 0) for action in actions]
        killers = self._killers[ply]
        _raise_key(actions, keys, killers[1], _KILLER_BAND)
        _raise_key(actions, keys, killers[0], _KILLER_BAND + 1)
        hot = self._hot_squares(state) if state.ply >= OPENING_PLIES else None
        if hot is not None or _frigate_on_active_gate(state):
            for index in _destroying_indexes(actions, hot, state.units, _acting(state)):
                keys[index] = _CAPTURE_BAND
        _raise_key(actions, keys, table_action, _TABLE_BAND)
        order = sorted(range(len(actions)), key=keys.__getitem__, reverse=True)
        return [actions[index] for index in order]

    # -- the expected line -----------------------------------------------------------------
    def _pv(self, state: State, first, depth: int, score: int) -> list:
        """The best line: ``first``, then the table's best actions while they stay legal.

        A forced win or loss is played out to the game's end instead (see
        :func:`forced_line`): the table may have lost the line's last positions, or
        keep a bound that a slower win also meets.
        """
        if abs(score) > MATE_BOUND and self.play_out_ends:
            return forced_line(state, first, MATE - abs(score), self.seed)
        line = [first]
        state, _report = apply_unchecked(state, first)
        seen = {state.hash}
        while len(line) < depth and state.to_move is not None:
            entry = self._table.get(state.hash)
            if entry is None or entry[3] is None or entry[3] not in iter_legal_actions(state):
                break
            line.append(entry[3])
            state, _report = apply_unchecked(state, entry[3])
            if state.hash in seen:
                break
            seen.add(state.hash)
        return line


def _acting(state: State) -> int:
    """The side to act in a position the search is in (never a decided one)."""
    side = state.to_move
    if side is None:
        raise ValueError("the game is over; there is no side to act")
    return side


def forced_line(state: State, first, plies: int, seed: int = 0) -> list:
    """The line of a game decided in ``plies`` actions from ``state`` by ``first``, to its end.

    Each further action is the answer of a search exactly as deep as the actions left:
    the winner's keeps the shortest win, the loser's puts the end off longest. The line
    stops early only if a search no longer sees the end (it cannot, when ``plies`` is
    right; a guard, not a path).
    """
    line = [first]
    state, _report = apply_unchecked(state, first)
    while state.to_move is not None and len(line) < plies:
        left = plies - len(line)
        searcher = Search(seed)
        searcher.play_out_ends = False      # only its first action is used
        answer = searcher.run(state, Limits(depth=left))
        line.append(answer.action)
        state, _report = apply_unchecked(state, answer.action)
        if abs(answer.score) <= MATE_BOUND:
            break
    return line


def side_tables(state: State):
    """Each side's attack points per square (R15), as :func:`attack_tables` gives them:
    read from the counts the rules keep up to date on every action when the position
    has them, so the search never counts them again."""
    counts = state.attacks
    if counts is None:
        return attack_tables(state.units, state.edition)
    return counts[0:64], counts[64:128]


_INTERNED = (Move, Place)        # one object per action: equal means identical
_SLIDER_KINDS = (SENTRY, TOWER, FLAGSHIP)
_SHIP_KINDS = (FRIGATE,) + _SLIDER_KINDS


def _raise_key(actions: list, keys: list, wanted, key: int) -> None:
    """Give ``wanted`` (if among ``actions``) the ordering key ``key``."""
    if wanted is None:
        return
    kind = type(wanted)
    if kind in _INTERNED:
        for index, action in enumerate(actions):
            if action is wanted:
                keys[index] = key
                return
        return
    for index, action in enumerate(actions):
        if type(action) is kind and action == wanted:
            keys[index] = key
            return


def is_quiet(state: State) -> bool:
    """Whether the side to act has no action likely to destroy something (see _hot_squares).

    The tuner keeps only such positions: a position in the middle of an exchange says
    little about what its static terms are worth.
    """
    return Search._hot_squares(state) is None and not _frigate_on_active_gate(state)


def _frigate_on_active_gate(state: State) -> bool:
    """Whether a frigate of the side to act stands on an active gate (R12, R13 need one)."""
    frigate = _acting(state) << 3 | FRIGATE
    units = state.units
    for gate in state.gates:
        if gate is not None and gate[2] != INACTIVE and units.get(gate[0]) == frigate:
            return True
    return False


def _destroying_indexes(actions: list, hot: Ripe | None, units, side: int) -> list[int]:
    """Where in ``actions`` stand those that capture, or land where they bring a ripe
    target down (a guess; ``hot`` from :meth:`Search._hot_squares`, None: nothing ripe).

    One loop with the tests written out: it runs over every action of every interior
    node and quiescence node, where a call per action cost more than the tests.
    """
    found = []
    if hot is None:
        for index, action in enumerate(actions):
            kind = type(action)
            if kind is GateStrike or (kind is GateJump and action.target in units):
                found.append(index)
        return found
    reach = _FRIGATE_REACH[side]
    targets = hot.targets
    screens = hot.screens.get if hot.screens else None
    already = hot.already.get
    diagonal = hot.diagonal
    orthogonal = hot.orthogonal
    for index, action in enumerate(actions):
        kind = type(action)
        if kind is Move:
            piece = action.piece
            landing = action.target
            if piece == FRIGATE:
                gained = reach[landing] & targets & ~reach[action.origin]
                if gained and screens is not None:
                    gained &= ~screens(landing, 0)
            elif piece == SENTRY:
                gained = diagonal[landing] & ~already(action.origin, 0)
            elif piece == TOWER:
                gained = orthogonal[landing] & ~already(action.origin, 0)
            else:
                gained = (diagonal[landing] | orthogonal[landing]) & ~already(action.origin, 0)
            if gained:
                found.append(index)
        elif kind is Place:
            piece = action.piece
            if piece == FRIGATE:
                if hot.frigate_gain(side, action.square, None):
                    found.append(index)
            elif piece in _SLIDER_KINDS and hot.slider_gain(piece, action.square):
                found.append(index)
        elif kind is Jump:
            if hot.frigate_gain(side, action.target, action.origin):
                found.append(index)
        elif kind is GateStrike:
            found.append(index)
        elif kind is GateJump:
            if action.target in units or hot.frigate_gain(side, action.target, action.origin):
                found.append(index)
    return found
