"""How big and how fast the pictures are: SVG bytes and ms per board, ms per PNG, GIF size.

    python bench/bench_pictures.py --boards 200 --gif-actions 100

Boards are the positions of seeded random legal games (``_common.random_play``), drawn
with their last action and its combat (``tomis.pictures.svg.board(state, last=report)``). Beside
them, in the same run, python-chess's ``chess.svg.board`` (the anchor) draws the
positions of random chess games of the same length, with their last move; both SVGs go
through the same resvg for the PNG figures. The GIF is one random game of exactly
``--gif-actions`` actions (a seed that reaches that length), 400 px, 1 s per frame,
and the replay page is that same game (``tomis.pictures.html.page``).

Times are the fastest of ``--repeat`` passes over all boards (per board); sizes are
means. Needs the ``images`` extra for PNG/GIF (``pip install -e '.[images,bench]'``).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

import _common
from tomis import rules
from tomis.notation import record
from tomis.pictures import html, svg


def tomis_boards(count: int, seed: int) -> list[tuple]:
    """(state, report) pairs from random games, ``count`` of them, spread over whole games."""
    boards = []
    index = 0
    while len(boards) < count:
        for state, action in _common.random_play(index, seed, 300):
            after, report = rules.apply_unchecked(state, action)
            boards.append((after, report))
        index += 1
    rng = random.Random(seed)
    return rng.sample(boards, count)


def chess_boards(count: int, seed: int) -> list[tuple]:
    import chess

    rng = random.Random(seed)
    boards = []
    while len(boards) < count:
        board = chess.Board()
        while not board.is_game_over() and board.ply() < 200:
            move = rng.choice(list(board.legal_moves))
            board.push(move)
            boards.append((board.copy(), move))
    return rng.sample(boards, count)


def best_per_item(draw, items, repeat: int) -> float:
    """Fastest pass over ``items`` divided by their number, in milliseconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for item in items:
            draw(item)
        best = min(best, time.perf_counter() - start)
    return best * 1000 / len(items)


def game_of_length(actions: int, seed: int):
    """A record of a random legal game that lasts at least ``actions`` actions, cut there."""
    for index in range(1000):
        plays = list(_common.random_play(index, seed, actions))
        if len(plays) == actions:
            game = record.new_record(rules=rules.EDITIONS[index % 2])
            for _state, action in plays:
                record.append(game, str(action))
            return game
    sys.exit(f"no random game reached {actions} actions")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--gif-actions", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)

    print(_common.machine())
    ours = tomis_boards(args.boards, args.seed)
    texts = [svg.board(state, last=report) for state, report in ours]
    ms_svg = best_per_item(lambda item: svg.board(item[0], last=item[1]), ours, args.repeat)
    print(f"tomis SVG: {statistics.mean(len(t.encode()) for t in texts):,.0f} bytes per board "
          f"(min {min(len(t) for t in texts):,}, max {max(len(t) for t in texts):,}), {ms_svg:.2f} ms per board")
    anchor = None
    try:
        import chess.svg

        theirs = chess_boards(args.boards, args.seed)
        anchor = [chess.svg.board(board, lastmove=move, size=400) for board, move in theirs]
        ms_chess = best_per_item(lambda item: chess.svg.board(item[0], lastmove=item[1], size=400), theirs,
                                 args.repeat)
        print(f"python-chess SVG: {statistics.mean(len(t.encode()) for t in anchor):,.0f} bytes per board, "
              f"{ms_chess:.2f} ms per board")
    except ImportError:
        print("python-chess SVG: not installed (pip install -e '.[bench]')")
    try:
        from tomis.pictures import images

        sample = texts[: max(1, args.boards // 4)]
        ms_png = best_per_item(images.svg_to_png, sample, args.repeat)
        png_bytes = statistics.mean(len(images.svg_to_png(t)) for t in sample)
        print(f"tomis PNG (400 px, resvg): {ms_png:.1f} ms per board, {png_bytes:,.0f} bytes")
        if anchor is not None:
            ms_png_chess = best_per_item(images.svg_to_png, anchor[: len(sample)], args.repeat)
            print(f"python-chess SVG through the same resvg: {ms_png_chess:.1f} ms per board")
        game = game_of_length(args.gif_actions, args.seed)
        start = time.perf_counter()
        data = images.gif(game, delay=1.0, size=400)
        seconds = time.perf_counter() - start
        print(f"GIF of a {len(game.nodes)}-action game (400 px, {len(game.nodes) + 2} frames with captions): "
              f"{len(data):,} bytes, {seconds:.1f} s to make")
    except images.MissingExtra as error:
        print(f"PNG/GIF: {error}")
        game = game_of_length(args.gif_actions, args.seed)
    start = time.perf_counter()
    page = html.page(game)
    seconds = time.perf_counter() - start
    print(f"replay page of the same game: {len(page.encode()):,} bytes, {seconds:.2f} s to make "
          f"(all {2 * (len(game.nodes) + 1)} boards inside)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
