"""Legal-action generation: Tomis legal_actions() beside python-chess legal_moves.

    python bench/bench_movegen.py --games 100 --perft-depth 3

1. Positions are sampled from random legal games (seeded, both editions, every
   ``--every``-th position, decided positions left out); the same for chess. Each side's
   generator runs over its positions ``--repeat`` times and the fastest pass counts:
   positions per second and generated actions (moves) per second.
2. A perft-style count from ``--perft-positions`` positions of those games (the first is
   the empty board / the chess start): depths 1..``--perft-depth``, each count timed
   ``--repeat`` times and the fastest kept, leaves counted in bulk
   at the last ply (the length of the generated list), as python-chess's own perft does.
   Tomis steps down with ``apply_unchecked`` (new immutable state per node); chess with
   ``push``/``pop`` on one board. With ``--full-apply`` every leaf is played too
   (``apply_unchecked`` / ``push`` + ``pop``), so the count measures applying as well.
3. Unchecked apply per action: every legal action of every sampled position played once
   with ``apply_unchecked``, beside ``push`` + ``pop`` of every legal chess move, passes
   alternating, fastest of ``--repeat``: microseconds per action and the ratio.

Target (issue #6): Tomis generated actions/s >= python-chess generated moves/s.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

import _common
from tomis import rules


def tomis_positions(games: int, seed: int, every: int, max_actions: int) -> list[list]:
    """Per game, the list of its undecided positions (each ``every``-th ply)."""
    return [
        [state for state, _action in _common.random_play(index, seed, max_actions) if state.ply % every == 0]
        for index in range(games)
    ]


def chess_positions(games: int, seed: int, every: int, max_plies: int) -> list[list]:
    import chess
    out = []
    for index in range(games):
        rng = random.Random(seed * 1_000_003 + index)
        board = chess.Board()
        kept = []
        while board.ply() < max_plies and not board.is_game_over():
            if board.ply() % every == 0:
                kept.append(board.copy(stack=False))
            board.push(rng.choice(list(board.legal_moves)))
        out.append(kept)
    return out


def time_generation(positions, generate, repeat: int) -> tuple[float, int]:
    """Fastest of ``repeat`` passes over ``positions``; and the number generated per pass."""
    best = float("inf")
    count = 0
    for _ in range(repeat):
        start = time.perf_counter()
        n = 0
        for position in positions:
            n += len(generate(position))
        best = min(best, time.perf_counter() - start)
        count = n
    return best, count


def tomis_perft(state, depth: int) -> int:
    actions = rules.legal_actions(state)
    if depth == 1:
        return len(actions)
    total = 0
    for action in actions:
        child, _ = rules.apply_unchecked(state, action)
        total += tomis_perft(child, depth - 1)
    return total


def tomis_perft_full(state, depth: int) -> int:
    """As tomis_perft, but every leaf action is applied too."""
    actions = rules.legal_actions(state)
    if depth == 1:
        for action in actions:
            rules.apply_unchecked(state, action)
        return len(actions)
    total = 0
    for action in actions:
        child, _ = rules.apply_unchecked(state, action)
        total += tomis_perft_full(child, depth - 1)
    return total


def chess_perft(board, depth: int) -> int:
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += chess_perft(board, depth - 1)
        board.pop()
    return total


def chess_perft_full(board, depth: int) -> int:
    """As chess_perft, but every leaf move is pushed and popped too."""
    total = 0
    for move in board.legal_moves:
        board.push(move)
        if depth > 1:
            total += chess_perft_full(board, depth - 1)
        else:
            total += 1
        board.pop()
    return total


def apply_work(positions, legal) -> list:
    """Each position with its legal actions (built untimed)."""
    return [(position, legal(position)) for position in positions]


def time_apply(pairs, play) -> float:
    start = time.process_time()
    for position, actions in pairs:
        for action in actions:
            play(position, action)
    return time.process_time() - start


def chess_push_pop(board, move) -> None:
    board.push(move)
    board.pop()


def perft_table(name: str, roots, perft, depth: int, describe, repeat: int) -> tuple[int, float, float]:
    """Nodes, wall seconds and CPU seconds over every root and depth, each count the
    fastest of ``repeat`` (a whole table takes a few tenths of a second: one pass moved
    by half from run to run on a shared machine)."""
    nodes_all = 0
    seconds_all = cpu_all = 0.0
    for root in roots:
        for d in range(1, depth + 1):
            elapsed = cpu = float("inf")
            for _ in range(repeat):
                start, cpu_start = time.perf_counter(), time.process_time()
                nodes = perft(root, d)
                elapsed = min(elapsed, time.perf_counter() - start)
                cpu = min(cpu, time.process_time() - cpu_start)
            cpu_all += cpu
            nodes_all += nodes
            seconds_all += elapsed
            print(f"  {name} perft {describe(root)} depth {d}: {nodes:>9,} nodes "
                  f"{elapsed:7.3f} s  {_common.fmt(_common.rate(nodes, elapsed)):>10} nodes/s")
    return nodes_all, seconds_all, cpu_all


def report_apply(tomis_flat, chess_flat, repeat: int) -> None:
    """Section 3: unchecked apply per action beside push + pop, passes alternating."""
    tomis_work = apply_work(tomis_flat, rules.legal_actions)
    chess_work = apply_work(chess_flat, lambda board: list(board.legal_moves))
    t_count = sum(len(actions) for _, actions in tomis_work)
    c_count = sum(len(moves) for _, moves in chess_work)
    t_best = c_best = float("inf")
    for _ in range(repeat):
        t_best = min(t_best, time_apply(tomis_work, rules.apply_unchecked))
        c_best = min(c_best, time_apply(chess_work, chess_push_pop))
    t_us = 1e6 * t_best / max(1, t_count)
    c_us = 1e6 * c_best / max(1, c_count)
    print(f"tomis apply_unchecked: {t_count} actions, {t_us:.2f} us/action (CPU)")
    print(f"python-chess push + pop: {c_count} moves, {c_us:.2f} us/move (CPU)")
    print(f"ratio apply speed tomis / chess (push + pop time / apply time): {c_us / t_us:.2f} "
          f"(target >= 1.0)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="random games to sample (each side)")
    parser.add_argument("--every", type=int, default=3, help="keep every N-th position")
    parser.add_argument("--max-actions", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--perft-depth", type=int, default=3)
    parser.add_argument("--perft-positions", type=int, default=3)
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--no-chess", action="store_true")
    parser.add_argument("--full-apply", action="store_true",
                        help="perft applies every leaf too (apply_unchecked / push + pop)")
    args = parser.parse_args(argv)

    print(f"machine: {_common.machine()}")
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    tomis_games = tomis_positions(args.games, args.seed, args.every, args.max_actions)
    tomis_flat = [s for game in tomis_games for s in game]
    seconds, generated = time_generation(tomis_flat, rules.legal_actions, args.repeat)
    t_pos = _common.rate(len(tomis_flat), seconds)
    t_act = _common.rate(generated, seconds)
    print(f"tomis legal_actions: {len(tomis_flat)} positions, {generated} actions, {seconds:.3f} s: "
          f"{_common.fmt(t_pos)} positions/s, {_common.fmt(t_act)} actions/s "
          f"(mean {generated / max(1, len(tomis_flat)):.1f} per position)")

    c_act = None
    if not args.no_chess:
        chess_games = chess_positions(args.games, args.seed, args.every, args.max_actions)
        chess_flat = [b for game in chess_games for b in game]
        seconds, generated = time_generation(chess_flat, lambda b: list(b.legal_moves), args.repeat)
        c_pos = _common.rate(len(chess_flat), seconds)
        c_act = _common.rate(generated, seconds)
        print(f"python-chess legal_moves: {len(chess_flat)} positions, {generated} moves, {seconds:.3f} s: "
              f"{_common.fmt(c_pos)} positions/s, {_common.fmt(c_act)} moves/s "
              f"(mean {generated / max(1, len(chess_flat)):.1f} per position)")
        print(f"ratio generated tomis actions/s / chess moves/s: {t_act / c_act:.2f} (target >= 1.0)")
        print(f"ratio positions/s tomis / chess: {t_pos / c_pos:.2f}")

    # Perft roots: the empty board, then positions deeper into the sampled games.
    def roots_from(games, start):
        roots = [start]
        for index, game in enumerate(games):
            if len(roots) >= args.perft_positions:
                break
            if game:
                roots.append(game[min(len(game) - 1, (index + 1) * 60 // args.every)])
        return roots

    if not args.no_chess:
        report_apply(tomis_flat, chess_flat, args.repeat)

    kind = "full-apply perft" if args.full_apply else "perft"
    t_nodes, t_secs, t_cpu = perft_table(
        "tomis", roots_from(tomis_games[1:], rules.new_game()),
        tomis_perft_full if args.full_apply else tomis_perft, args.perft_depth,
        lambda s: f"ply {s.ply:3d} {s.edition_name:6s}", args.repeat)
    t_nps = _common.rate(t_nodes, t_secs)
    print(f"tomis {kind} total: {t_nodes:,} nodes in {t_secs:.2f} s: {_common.fmt(t_nps)} nodes/s"
          f" ({t_cpu:.2f} s CPU: {_common.fmt(_common.rate(t_nodes, t_cpu))} nodes/s)")
    if not args.no_chess:
        import chess
        c_nodes, c_secs, c_cpu = perft_table(
            "chess", roots_from(chess_games[1:], chess.Board()),
            chess_perft_full if args.full_apply else chess_perft, args.perft_depth,
            lambda b: f"ply {b.ply():3d}       ", args.repeat)
        c_nps = _common.rate(c_nodes, c_secs)
        print(f"chess {kind} total: {c_nodes:,} nodes in {c_secs:.2f} s: {_common.fmt(c_nps)} nodes/s"
              f" ({c_cpu:.2f} s CPU: {_common.fmt(_common.rate(c_nodes, c_cpu))} nodes/s)")
        cpu_ratio = (t_nodes / t_cpu) / (c_nodes / c_cpu) if t_cpu and c_cpu else float("nan")
        print(f"ratio {kind} nodes/s tomis / chess: {t_nps / c_nps:.2f} wall, {cpu_ratio:.2f} CPU"
              + (" (target >= 1.0)" if args.full_apply else ""))
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
