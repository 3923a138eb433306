"""Back-and-forth slides: how often the engine undoes its own last move with its next action.

    python bench/count_shuffles.py --levels 4 6 --games 10 --before f2e819b

Each level plays ``--games`` games against itself from seeded random openings
(:func:`tomis.engine.match.random_opening`, 12 actions, manual rules), up to
``--max-actions`` actions. A *slide* is a ship's move (R9); it is *undone* when the same
side's next action moves that ship straight back (origin and target swapped). Printed
per level: slides, undone slides and their share, for all ships and for the sliders
(sentry, tower, flagship) alone, the undone slides whose combat destroyed nothing (the
search's undo penalty spares a slide that destroys something: a tower swinging back to
strike each new frigate is not standing still), and the longest run of undone slides by
one side.
With ``--before REV`` the engine of commit REV (unpacked as bench_search.py does) plays
the same games beside this one, in the same process.

With ``--records FILE...`` no game is played: the slides are counted in match records
already written (the level ladder's, ``bench/ladder.py``), each side's actions credited
to the level its ``White``/``Black`` tag names (``tomis level N``), after the first
``--opening`` actions (the seeded opening, which no engine chose). Each file is counted
on its own, so a level is counted per rung it played in. ``--others`` also counts a
side that is no level (the plain opponent of ``bench/vs_plain.py``) as "another
program"; ``--split-at N`` counts the games that ran to N actions apart from the rest.

    python bench/count_shuffles.py --records /tmp/tomis-ladder5/ladder-*.tgn
    python bench/count_shuffles.py --records after.tgn --others --split-at 200
"""

from __future__ import annotations

import argparse
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

import _common
from bench_search import current_engine, older_engine
from tomis.engine.match import random_opening
from tomis.errors import TomisError
from tomis.game import read_games
from tomis.notation import parse_action
from tomis.rules import apply_unchecked, new_game
from tomis.rules.actions import Move
from tomis.rules.board import FRIGATE


@dataclass
class Tally:
    slides: int = 0
    undone: int = 0
    slider_slides: int = 0
    slider_undone: int = 0
    idle_undone: int = 0            # undone slides after which combat destroyed nothing
    longest_run: int = 0
    games: int = 0
    actions: int = 0

    def line(self) -> str:
        return (f"{self.games} games, {self.actions} engine actions: slides {self.slides}, undone "
                f"{self.undone} ({_share(self.undone, self.slides)}); sliders {self.slider_slides}, undone "
                f"{self.slider_undone} ({_share(self.slider_undone, self.slider_slides)}); longest run "
                f"{self.longest_run}; undone destroying nothing {self.idle_undone} "
                f"({_share(self.idle_undone, self.slides)})")


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "no slides"


def is_undo(action, earlier) -> bool:
    return (type(action) is Move and type(earlier) is Move
            and action.origin == earlier.target and action.target == earlier.origin)


class Counter:
    """One side's slides as they come: undone slides and the run they make."""

    def __init__(self, tally: Tally):
        self.tally = tally
        self.last = None
        self.run = 0

    def count(self, action, report) -> None:
        """``report``: what ``action`` did (:func:`tomis.rules.apply_unchecked`)."""
        tally = self.tally
        tally.actions += 1
        if type(action) is Move:
            slider = action.piece != FRIGATE
            tally.slides += 1
            tally.slider_slides += slider
            if is_undo(action, self.last):
                tally.undone += 1
                tally.slider_undone += slider
                tally.idle_undone += not (report.captured or report.destroyed)
                self.run += 1
                tally.longest_run = max(tally.longest_run, self.run)
            else:
                self.run = 0
        self.last = action


def play_game(engine, level: int, seed: int, game: int, max_actions: int, tally: Tally) -> None:
    """One self-play game of ``engine`` at ``level``; its slides counted into ``tally``.

    The engine plays on a position of its own version's rules (its whole history, so
    its search sees repetitions); this version's rules keep the count and the game.
    """
    state = new_game("manual")
    own = engine.new_game("manual")
    for action in random_opening(seed, game, 12, "manual"):
        state, _report = apply_unchecked(state, action)
        # The engine may be an older commit's, with its own action types: it gets the text.
        own, _report = engine.apply(own, engine.parse(str(action)))
    players = (engine.player(level, seed + game), engine.player(level, seed + game + 1))
    counters = (Counter(tally), Counter(tally))
    while state.to_move is not None and state.ply < max_actions:
        side = state.to_move
        text = str(players[side].choose(own))
        action = parse_action(text)
        state, report = apply_unchecked(state, action)
        counters[side].count(action, report)
        own, _report = engine.apply(own, engine.parse(text))
    tally.games += 1


_LEVEL_TAG = re.compile(r"tomis level ([1-8])")
OTHER = 0                           # the key of a side that is no level of this engine


@dataclass(frozen=True, order=True)
class Part:
    """Whose slides a tally holds: a level (or another program) and, when the games are
    split by length, whether they ran to the split."""
    level: int
    long: bool | None = None        # None: games not split

    def label(self, split_at: int | None) -> str:
        who = f"level {self.level}" if self.level != OTHER else "another program"
        if self.long is None:
            return who
        return f"{who}, games of {split_at}+ actions" if self.long else f"{who}, games under {split_at} actions"


def count_records(path: Path, opening: int, split_at: int | None = None,
                  others: bool = False) -> dict[Part, Tally]:
    """Each level's slides in the games of one match file, keyed by level (and length).

    A side whose tag names no level of this engine (another program) is counted only with
    ``others``. With ``split_at``, games that ran to that many actions (most of them
    adjudicated draws: locked positions where both sides shuffle) are counted apart.
    """
    tallies: dict[Part, Tally] = {}
    for game in read_games(path):
        if game.error is not None:
            raise game.error                # print_records says which file
        long = None if split_at is None else len(game.actions) >= split_at
        levels = [_level(game.tags.get(tag, "")) for tag in ("White", "Black")]
        if others:
            levels = [OTHER if level is None else level for level in levels]
        parts = [None if level is None else Part(level, long) for level in levels]
        counters = [None if part is None else Counter(tallies.setdefault(part, Tally())) for part in parts]
        for part in set(parts) - {None}:    # a level playing itself counts the game once
            tallies[part].games += 1
        state = game.start.state
        for action in game.actions:
            side, ply = state.to_move, state.ply
            state, report = apply_unchecked(state, action)
            if ply >= opening and counters[side] is not None:
                counters[side].count(action, report)
    return tallies


def _level(tag: str) -> int | None:
    found = _LEVEL_TAG.fullmatch(tag)
    return int(found.group(1)) if found else None


def print_records(paths: list[Path], opening: int, split_at: int | None = None, others: bool = False) -> None:
    for path in paths:
        try:
            tallies = count_records(path, opening, split_at, others)
        except TomisError as error:
            raise SystemExit(f"count_shuffles.py: {path}: {error}") from None
        for part, tally in sorted(tallies.items(), reverse=True):
            print(f"{path.name} {part.label(split_at)}: {tally.line()}", flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", type=int, nargs="+", default=[4, 5, 6, 7, 8])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-actions", type=int, default=200)
    parser.add_argument("--before", metavar="REV", help="also count the engine of commit REV")
    parser.add_argument("--records", type=Path, nargs="+", metavar="FILE",
                        help="count the slides in these match records instead of playing games")
    parser.add_argument("--opening", type=int, default=12,
                        help="with --records: actions at the start of each game not counted")
    parser.add_argument("--split-at", type=int, metavar="ACTIONS",
                        help="with --records: count games that ran to ACTIONS actions apart from the rest")
    parser.add_argument("--others", action="store_true",
                        help="with --records: also count a side that is no level of this engine")
    args = parser.parse_args(argv)
    if args.records:
        print_records(args.records, args.opening, args.split_at, args.others)
        return 0
    print(f"machine: {_common.machine()}")
    with tempfile.TemporaryDirectory() as folder:
        engines = [current_engine()]
        if args.before:
            engines.append(older_engine(args.before, Path(folder)))
        for level in args.levels:
            for engine in engines:
                tally = Tally()
                for game in range(args.games):
                    play_game(engine, level, args.seed, game, args.max_actions, tally)
                print(f"level {level} {engine.name}: {tally.line()}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
