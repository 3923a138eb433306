"""A plain alpha-beta opponent, independent of tomis.engine: a second yardstick (issue 45).

    python bench/plain_ab.py [--nodes N]        # speaks UGI on stdin/stdout

Gains measured only against an earlier version of the same engine can shrink against
other opponents, so the engine's level 6 is also measured against this program
(bench/vs_plain.py). It shares nothing with ``tomis.engine``: it uses the rules
(``tomis.rules``: positions, legal actions, apply, action words) and nothing else, and
its search and evaluation are its own and deliberately plain:

- negamax with alpha-beta, iterative deepening from depth 1, and a node limit (a node
  is a position searched; default 10,000); when the limit cuts a depth short, the answer
  is the last finished depth's (depth 1 always finishes);
- ordering: at the root the previous depth's best first; inside the tree, children whose
  action destroyed or captured something first (the rules' report says so), otherwise
  in the rules' order; no transposition table, no quiescence, no killers;
- the evaluation, from the side to act's view: material on the board and in reserve,
  squares attacked (mobility, read from the attack counts the rules keep), and attack
  points on the enemy base (R19: three destroy it).

Deterministic: the same position and node limit give the same action.
"""

from __future__ import annotations

import argparse
import sys
import time

from tomis.errors import TomisError
from tomis.rules.actions import Action
from tomis.rules.board import BASE, FLAGSHIP, FRIGATE, SENTRY, TOWER
from tomis.rules.combat import new_tables
from tomis.rules.core import apply, apply_unchecked, legal_actions, new_game

WIN = 1_000_000
DEFAULT_NODES = 10_000
# Centi-frigates per ship by kind; a ship in reserve is worth 80 % of one on the board.
SHIP_VALUES = {FRIGATE: 100, SENTRY: 170, TOWER: 220, FLAGSHIP: 300}
RESERVE_SHARE = 0.8
MOBILITY = 4             # per square the side attacks
BASE_PRESSURE = 40       # per attack point on the enemy base


class OutOfNodes(Exception):
    """The node limit was reached in the middle of a depth."""


def material(state, side: int) -> float:
    total = 0.0
    for code in state.units.values():
        if code >> 3 == side:
            total += SHIP_VALUES.get(code & 7, 0)
    reserve = state.reserve[side]
    for kind, value in SHIP_VALUES.items():
        total += RESERVE_SHARE * value * reserve[kind]
    return total


def pressure(state, counts, side: int) -> int:
    """Mobility and base attack of ``side``: squares attacked, AP on the enemy base."""
    start = 64 * side
    attacked = sum(1 for square in range(start, start + 64) if counts[square])
    enemy_base = (1 - side) << 3 | BASE
    on_base = 0
    for square, code in state.units.items():
        if code == enemy_base:
            on_base = counts[start + square]
    return MOBILITY * attacked + BASE_PRESSURE * on_base


def evaluate(state) -> int:
    """The position for the side to act, in centi-frigates."""
    counts = state.attacks if state.attacks is not None else new_tables(state.units, state.edition)
    side = state.to_move
    mine = material(state, side) + pressure(state, counts, side)
    theirs = material(state, 1 - side) + pressure(state, counts, 1 - side)
    return int(mine - theirs)


def decided(state, mover: int, ply: int) -> int:
    """A finished game's score for ``mover``, who acted into it; quicker wins score more."""
    if state.result == "1/2-1/2":
        return 0
    winner = 0 if state.result == "1-0" else 1
    return WIN - ply if winner == mover else -(WIN - ply)


class PlainSearch:
    def __init__(self, nodes: int = DEFAULT_NODES, seconds: float | None = None):
        self.limit = nodes
        self.deadline = None if seconds is None else time.monotonic() + seconds
        self.nodes = 0
        self.armed = False           # depth 1 always finishes

    def count(self) -> None:
        self.nodes += 1
        if self.armed and (self.nodes >= self.limit
                           or (self.deadline is not None and time.monotonic() >= self.deadline)):
            raise OutOfNodes

    def children(self, state) -> list:
        """(action, position after it, whether it destroyed anything), destroying ones first."""
        found = []
        for action in legal_actions(state):
            child, report = apply_unchecked(state, action)
            found.append((action, child, bool(report.destroyed or report.captured)))
        found.sort(key=lambda item: not item[2])          # stable: the rules' order otherwise
        return found

    def negamax(self, state, depth: int, alpha: int, beta: int, ply: int) -> int:
        self.count()
        if depth == 0:
            return evaluate(state)
        best = -WIN - 1
        for _action, child, _hit in self.children(state):
            if child.to_move is None:
                score = decided(child, state.to_move, ply + 1)
            else:
                score = -self.negamax(child, depth - 1, -beta, -alpha, ply + 1)
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best

    def best_action(self, state):
        """The action of the last finished depth (iterative deepening)."""
        order = sorted(legal_actions(state), key=str)
        best = order[0]
        depth = 0
        while True:
            depth += 1
            try:
                scored = self.root(state, order, depth)
            except OutOfNodes:
                return best
            self.armed = True
            best = max(order, key=lambda action: scored[action])
            order.sort(key=lambda action: -scored[action])
            if abs(scored[best]) > WIN - 1000 or len(order) == 1 or depth >= 64:
                return best

    def root(self, state, order: list, depth: int) -> dict:
        scored = {}
        alpha = -WIN - 1
        for action in order:
            child, _report = apply_unchecked(state, action)
            if child.to_move is None:
                score = decided(child, state.to_move, 1)
            else:
                score = -self.negamax(child, depth - 1, -WIN - 1, -alpha, 1)
            scored[action] = score
            alpha = max(alpha, score)
        return scored


def position(words: list[str], rules: str):
    """``position startpos [moves A1 A2 ...]`` -> the position, every action checked."""
    state = new_game(rules)
    if "moves" in words:
        for word in words[words.index("moves") + 1:]:
            state, _report = apply(state, Action.parse(word))
    return state


def go_limits(words: list[str], nodes: int) -> tuple[int, float | None]:
    """The node limit and seconds of a ``go`` line (``nodes N``, ``movetime MS``)."""
    seconds = None
    if "nodes" in words:
        nodes = max(1, int(words[words.index("nodes") + 1]))
    if "movetime" in words:
        seconds = max(0, int(words[words.index("movetime") + 1])) / 1000
        nodes = 10 ** 12
    return nodes, seconds


def serve(nodes: int, lines, out) -> None:
    rules = "manual"
    state = new_game(rules)

    def say(text: str) -> None:
        out.write(text + "\n")
        out.flush()

    for line in lines:
        words = line.split()
        if not words:
            continue
        command = words[0]
        if command == "ugi":
            say("id name plain-ab")
            say("id author the tomis authors")
            say("ugiok")
        elif command == "isready":
            say("readyok")
        elif command == "setoption" and len(words) >= 5 and words[2].lower() == "rules":
            rules = words[4]
            state = new_game(rules)
        elif command == "uginewgame":
            state = new_game(rules)
        elif command == "position":
            try:
                state = position(words, rules)
            except (TomisError, ValueError) as problem:
                say(f"info string error: {problem}")
        elif command == "go":
            limit, seconds = go_limits(words, nodes)
            search = PlainSearch(limit, seconds)
            action = search.best_action(state)
            say(f"info nodes {search.nodes}")
            say(f"bestmove {action}")
        elif command == "quit":
            return


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, default=DEFAULT_NODES, help="positions searched per action")
    args = parser.parse_args(argv)
    serve(max(1, args.nodes), sys.stdin, sys.stdout)


if __name__ == "__main__":
    main()
