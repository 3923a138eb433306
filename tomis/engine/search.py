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

from ..rules.actions import GateJump, GateStrike, Jump, Move, Place
from ..rules.board import BASE, FLAGSHIP, FRIGATE, FRIGATE_ATTACKS, RAYS, SENTRY, SLIDER_DIRECTIONS, TOWER
from ..rules.combat import INACTIVE, JUMP, UNIT_DEFENCE, attack_tables
from ..rules.core import OPENING_PLIES, State, apply_unchecked, iter_legal_actions
from .evaluate import evaluate

MATE = 100_000               # a won game; MATE - n: won n plies from the root
MATE_BOUND = MATE - 1_000    # scores beyond this are wins or losses, not evaluations
INFINITE = 1_000_000
MAX_DEPTH = 64
QUIESCENCE_DEPTH = 6         # plies of destroying actions after the horizon, at most
CHECK_EVERY = 255            # nodes between looks at the clock and the stop flag (mask)
TABLE_LIMIT = 1 << 20        # transposition entries before the table is emptied
UNDO_PENALTY = 20            # centi-frigates off a slide that undoes the mover's own last one

EXACT, LOWER, UPPER = 0, 1, 2
ALREADY = -1                 # the key of _hot_squares' map of ships attacking ripe targets now

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
class Line:
    """One root action with its exact score for the side to act and the line it starts."""

    action: object
    score: int
    pv: list = field(default_factory=list)


@dataclass
class SearchResult:
    """The answer of a search: best action, its score for the side to act, the line.

    ``lines`` are the best root actions of the last finished depth, best first (as many
    as the search was asked for), and then any action it was asked to score exactly
    that is not among them (``Search.run(exact=...)``).
    """

    action: object
    score: int
    pv: list = field(default_factory=list)
    depth: int = 0
    nodes: int = 0
    time: float = 0.0               # seconds
    lines: list = field(default_factory=list)

    def line_of(self, action) -> Line | None:
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


# Per direction 0-7, the slider kinds that move and attack along it (R9, R15).
_SLIDERS_ALONG = tuple(frozenset(k for k, ds in SLIDER_DIRECTIONS.items() if d in ds) for d in range(8))


def _rays_to_ripe(ripe: list[int], side: int, units, kinds, hot: dict, already: dict, screens: dict) -> None:
    """Walk the eight rays out of each ripe target, marking for each slider kind of
    ``kinds`` the empty squares from which it would attack the target (square -> bit
    mask, bit i: ``ripe[i]``). Where a ray ends at our own slider that attacks along
    it, that slider attacks the target already (``already``), and a ship landing on the
    ray's empty squares would only screen it (``screens``): neither gains a point."""
    # Only the directions some slider of ours (on the board or in reserve) moves along.
    walks = [(d, [hot[kind] for kind in kinds & _SLIDERS_ALONG[d]]) for d in range(8) if kinds & _SLIDERS_ALONG[d]]
    for index, target in enumerate(ripe):
        bit = 1 << index
        rays = RAYS[target]
        for d, marked in walks:
            ray = rays[d]
            for square in ray:
                if square in units:
                    code = units[square]
                    if code >> 3 == side and code & 7 in _SLIDERS_ALONG[d]:
                        already[square] = already.get(square, 0) | bit
                        for screen in ray[:ray.index(square)]:
                            screens[screen] = screens.get(screen, 0) | bit
                    break
                for marks in marked:
                    marks[square] = marks.get(square, 0) | bit


class Search:
    """One searcher; :meth:`run` may be called many times (each search starts afresh)."""

    def __init__(self, seed: int = 0):
        self.seed = seed
        self.play_out_ends = True       # a forced win's line goes to the game's end
        self._stop = threading.Event()
        self.nodes = 0
        self._table: dict = {}
        self._killers: list = []
        self._history: dict = {}
        self._evaluations: dict = {}
        self._node_limit = None
        self._deadline = None
        self._armed = False             # limits and stop apply (not during depth 1)
        self._partial = None            # (score, action): best of the unfinished pass
        self._previous = [None, None]   # the two actions before the root
        self._line = []

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
            self._partial = None
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
                                        time.perf_counter() - start, [Line(action, score, pv)])
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
            if self._deadline is not None and time.perf_counter() > self._deadline - limits.time * 0.55:
                break                   # the next depth would not finish in the time left
            actions.sort(key=lambda a: -scores[a])
        best.nodes = self.nodes
        best.time = time.perf_counter() - start
        return best

    def _answer(self, state, depth, exact_scores, offsets, wanted, start) -> SearchResult:
        """The result of a finished depth: the best lines, then the actions asked about."""
        # Ranked with the offsets, as the root chose; ties keep the search's own order.
        ranked = sorted(exact_scores, key=lambda a: -(exact_scores[a] + offsets[a]))
        chosen = ranked[:wanted.count] + [a for a in ranked[wanted.count:] if a in wanted.exact]
        found = [Line(a, exact_scores[a], self._pv(state, a, depth, exact_scores[a])) for a in chosen]
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
        original_alpha = alpha
        best = -INFINITE
        best_action = None
        for action in self._ordered(state, table_action, ply):
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
            return terminal_score(child, state.to_move, ply)
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
        cache = self._evaluations
        stand = cache.get(state.hash)
        if stand is None:
            stand = cache[state.hash] = evaluate(state)
        if stand >= beta or qdepth >= QUIESCENCE_DEPTH:
            return stand
        tables = side_tables(state)
        if stand > alpha:
            alpha = stand
        best = stand
        mover = state.to_move
        for action in self._destroying(state, tables):
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
    def _hot_squares(state: State, tables) -> dict | None:
        """Per ship kind, the squares from which it would bring one attack point too many.

        An enemy target already held at stalemate (our AP equal to its defence, R17), an
        enemy base two AP from falling (R19), or an unguarded enemy jump gate we attack
        once (its defence is 1) is *ripe*: one more attacker destroys it. None when
        nothing is ripe. Each kind maps square -> bit mask of the ripe targets attacked
        from there, and :data:`ALREADY` maps the squares of our ships that attack ripe
        targets now to theirs: a ship that moves gains only targets it did not attack
        before (a tower sliding along the file it already attacks down brings nothing).
        """
        side = state.to_move
        enemy = 1 - side
        ours = tables[side]
        units = state.units
        defence = UNIT_DEFENCE[state.edition]
        ripe = []
        for square, code in units.items():
            if code >> 3 != enemy:
                continue
            kind = code & 7
            if kind == BASE:
                if ours[square] >= 2:
                    ripe.append(square)
            elif ours[square] >= defence[kind]:
                ripe.append(square)
        for gate in state.gates:
            if gate is not None and gate[2] == JUMP and gate[1] == enemy and gate[0] not in units and ours[gate[0]]:
                ripe.append(gate[0])
        if not ripe:
            return None
        attacks = FRIGATE_ATTACKS[enemy]      # our frigate on s attacks r iff theirs on r attacks s
        own_frigate = side << 3 | FRIGATE
        frigate_hot: dict[int, int] = {}
        already: dict[int, int] = {}
        for index, target in enumerate(ripe):
            bit = 1 << index
            for square in attacks[target]:
                frigate_hot[square] = frigate_hot.get(square, 0) | bit
                if units.get(square) == own_frigate:
                    already[square] = already.get(square, 0) | bit
        screens: dict[int, int] = {}
        reserve = state.reserve[side]
        present = {code & 7 for code in units.values() if code >> 3 == side}
        kinds = frozenset(k for k in (SENTRY, TOWER, FLAGSHIP) if k in present or reserve[k])  # only kinds that could act
        hot = {kind: {} for kind in kinds}
        _rays_to_ripe(ripe, side, units, kinds, hot, already, screens)
        hot[FRIGATE] = frigate_hot
        if screens:                 # a ship landing on a screen square gains nothing there
            for kind, marks in hot.items():
                hot[kind] = {square: mask & ~screens.get(square, 0) for square, mask in marks.items()}
        hot[ALREADY] = already
        return hot

    def _destroying(self, state: State, tables) -> list:
        """The actions likely to destroy something, in generation order."""
        hot = self._hot_squares(state, tables)
        if hot is None and not _frigate_on_active_gate(state):
            return []           # nothing ripe, and no gate strike or capture possible
        actions = list(iter_legal_actions(state))
        return [actions[index] for index in _destroying_indexes(actions, hot, state.units)]

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
        hot = self._hot_squares(state, side_tables(state)) if state.ply >= OPENING_PLIES else None
        if hot is not None or _frigate_on_active_gate(state):
            for index in _destroying_indexes(actions, hot, state.units):
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
    return Search._hot_squares(state, side_tables(state)) is None and not _frigate_on_active_gate(state)


def _frigate_on_active_gate(state: State) -> bool:
    """Whether a frigate of the side to act stands on an active gate (R12, R13 need one)."""
    frigate = state.to_move << 3 | FRIGATE
    units = state.units
    for gate in state.gates:
        if gate is not None and gate[2] != INACTIVE and units.get(gate[0]) == frigate:
            return True
    return False


def _destroying_indexes(actions: list, hot: dict | None, units) -> list[int]:
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
    frigate_hot = hot[FRIGATE]
    already = hot[ALREADY].get
    hot_of = hot.get
    for index, action in enumerate(actions):
        kind = type(action)
        if kind is Move:
            squares = hot_of(action.piece)
            if squares is not None:
                gained = squares.get(action.target)
                if gained and gained & ~already(action.origin, 0):
                    found.append(index)
        elif kind is Place:
            squares = hot_of(action.piece)
            if squares is not None and squares.get(action.square):
                found.append(index)
        elif kind is Jump:
            if frigate_hot.get(action.target, 0) & ~already(action.origin, 0):
                found.append(index)
        elif kind is GateStrike:
            found.append(index)
        elif kind is GateJump:
            if action.target in units or frigate_hot.get(action.target, 0) & ~already(action.origin, 0):
                found.append(index)
    return found
