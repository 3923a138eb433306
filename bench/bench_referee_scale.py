"""The referee's cost at club scale: a large store against a small one, in one run.

    python bench/bench_referee_scale.py                       # 10,000 games against 10
    python bench/bench_referee_scale.py --games 200 --small-games 10 --messages 4000

Each store is built through the library, not one process per game: two template games
(one finished, one in play with clocks) are played once through the referee's own
:class:`~tomis.referee.games.RefereedGame`, then copied under other players' names into the
store's parts (``store.games``, ``store.inbox``, ``store.outbox``) with their saved
summaries, as the referee saves them. The large store holds ``--games`` games (nine in
ten finished) between ``--players`` players and ``--messages`` stored messages (half in,
half out, spread over the last year, then pruned as tick prunes them); the small one
``--small-games`` games and the same messages per game. In each store one more game is
played for real, through ``deliver`` in process.

Measured in process, per operation (median of ``--repeat``): ``deliver`` of one action
(store, decide, send to an outbox folder), ``tick`` with nothing due, ``page`` after one
change (the folder written before, then one action delivered); the peak of Python's
allocations during ``tick`` and ``page`` (tracemalloc: SQLite's own cache is not in it);
and the store's growth per action in steady state: the bytes its pages hold after
``prune`` (all bodies past their window dropped), over ``--actions`` more actions.

Nothing here asserts; the figures go to docs/REFEREE.md.
"""

from __future__ import annotations

import argparse
import email
import email.policy
import json
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path

import _common

sys.path.insert(0, str(_common.REPO_DIR / "tests"))

from referee_support import reply_to  # noqa: E402

from tomis import record  # noqa: E402
from tomis.game import Game as LibraryGame  # noqa: E402
from tomis.referee import pages, service  # noqa: E402
from tomis.referee.games import RefereedGame  # noqa: E402
from tomis.referee.composing import Addressee  # noqa: E402
from tomis.referee.store import Decision, GameChange, Store  # noqa: E402

NOW = 1_798_761_600                 # 2027-01-01T00:00Z: the referee's clock at the start
DAY = 86_400
BODY = b"x" * 2_000                 # a kept body (the bench's are small: the rows count)
CONTROL = "30d+3d"


def actions() -> list[str]:
    sample = record.read_game((_common.REPO_DIR / "samples" / "manual-win.tgn").read_text())
    return [str(node.action) for node in sample.nodes]


# --------------------------------------------------------------------------- templates

@dataclass(frozen=True)
class Template:
    """A game played once, to be copied under other names."""

    text: str
    over: bool
    due: int | None
    summary: dict


WHITE, BLACK = "Template White", "Template Black"


def template(moves: list[str], start: int) -> Template:
    library = LibraryGame(white=WHITE, black=BLACK, rules="manual", site="club.test",
                          date="2026.12.01")
    library.start_clock(CONTROL, start, 45)
    game = RefereedGame(0, (Addressee(WHITE, "w@t.test"), Addressee(BLACK, "b@t.test")), library.record,
                False, 45, {}, -1, created=start)
    for number, move in enumerate(moves):
        if game.over:
            break
        game.play(number % 2, move, start + 600 * (number + 1))
    return Template(game.record_text(), game.over, game.next_due(), game.saved_summary())


def named(template: Template, white: str, black: str) -> tuple[str, str]:
    """The template's record text and summary under the names ``white`` and ``black``."""
    summary = json.loads(json.dumps(template.summary))
    summary["white"], summary["black"] = white, black
    if summary["facts"] is not None:
        summary["facts"]["white"], summary["facts"]["black"] = white, black
    text = template.text.replace(f'"{WHITE}"', f'"{white}"').replace(f'"{BLACK}"', f'"{black}"')
    return text, json.dumps(summary)


# --------------------------------------------------------------------------- building

def player(number: int) -> Addressee:
    return Addressee(f"Player {number:04d}", f"p{number}@club.test")


def build(folder: Path, games: int, players: int, per_game: int) -> str:
    """A store of ``games`` copied games (nine in ten finished) and ``per_game`` stored
    messages each (half in, half out), pruned as tick prunes; its path."""
    db = str(folder / "referee.db")
    outbox = folder / "out"
    outbox.mkdir()
    service.init(db, "ref@club.test", None, f"outbox:{outbox}", None)
    moves = actions()
    finished = template(moves, NOW - 60 * DAY)
    playing = template(moves[:12], NOW - DAY)
    with Store.open(db) as store:
        with store.transaction():
            for index in range(games):
                copy = playing if index % 10 == 9 else finished
                _add_game(store, index, copy, players, per_game)
        service.prune_store(store, NOW, service.KEEP_DAYS)
    return db


def _add_game(store: Store, index: int, copy: Template, players: int, per_game: int) -> None:
    first = index % players
    second = (index * 7 + 1 + index // players) % players
    if second == first:
        second = (first + 1) % players
    white, black = player(first), player(second)
    text, summary = named(copy, white.name, black.name)
    created = NOW - 365 * DAY + (index * 3_001) % (300 * DAY)
    number = store.games.insert(((white.name, white.address), (black.name, black.address)),
                                text, 45, created)
    store.games.save(number, GameChange(text, copy.over, "{}", -1, [], [], copy.due, summary))
    count = max(1, per_game // 2)
    for message in range(count):
        at = created + (NOW - created) * message // count
        recent = NOW - at < service.KEEP_DAYS * DAY
        side = message % 2
        seat = (white, black)[side]
        key = f"mid:<{index}.{message}@bench.test>"
        inbox = store.inbox.add(key, BODY if recent else b"-", at, None, None)
        store.inbox.decide(inbox, Decision("done", "played", number))
        last = message >= count - 2
        sent = store.outbox.add(number, side, at, "ref@club.test", seat.address,
                                BODY if recent or last else b"-")
        store.outbox.mark_sent(sent, at, at)


@dataclass
class Live:
    """A game played for real in a store: its number, its messages to reply to."""

    number: int
    first: tuple[email.message.EmailMessage, email.message.EmailMessage]
    players: tuple[Addressee, Addressee]
    played: int = 0


def live_game(db: str, index: int, now: int) -> Live:
    white, black = Addressee(f"Live White {index}", f"lw{index}@live.test"), \
        Addressee(f"Live Black {index}", f"lb{index}@live.test")
    number, _unsent = service.new_game(db, f"{white.name} <{white.address}>",
                                       f"{black.name} <{black.address}>",
                                       service.Terms(time_control=CONTROL, leave_days=45), now)
    with Store.open(db) as store:
        first = tuple(email.message_from_bytes(store.outbox.newest(number, side),
                                               policy=email.policy.default) for side in (0, 1))
    return Live(number, first, (white, black))


def play_one(db: str, live: Live, moves: list[str], now: int) -> float:
    """Deliver ``live``'s next action in process; the seconds it took."""
    side = live.played % 2
    raw = reply_to(live.first[side], f"{live.players[side].name} <{live.players[side].address}>",
                   moves[live.played])
    store, config = service.connect(db)
    with store:
        started = time.perf_counter()
        service.store_message(store, raw, False, None, now)
        service.after_storing(store, config, now)
        elapsed = time.perf_counter() - started
    live.played += 1
    return elapsed


# --------------------------------------------------------------------------- measuring

@dataclass
class Figures:
    deliver: float
    tick: float
    page: float
    tick_peak: int
    page_peak: int
    growth: float


def peak(call) -> int:
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def measure(folder: Path, games: int, players: int, per_game: int, repeat: int,
            actions_for_growth: int) -> Figures:
    moves = actions()[:40]
    started = time.perf_counter()
    db = build(folder, games, players, per_game)
    print(f"  built {games} games in {time.perf_counter() - started:.1f} s", flush=True)
    now = NOW
    lives = [live_game(db, 0, now)]
    service.tick(db, now)                       # today's prune done: tick has nothing due
    delivers = []
    for _ in range(repeat):
        now += 60
        delivers.append(play_one(db, lives[0], moves, now))
    ticks = []
    for _ in range(repeat):
        now += 60
        started = time.perf_counter()
        service.tick(db, now)
        ticks.append(time.perf_counter() - started)
    site = folder / "pages"
    _published(db, site)
    page_times = []
    for _ in range(repeat):
        now += 60
        play_one(db, lives[0], moves, now)
        started = time.perf_counter()
        pages.write(db, str(site), now)
        page_times.append(time.perf_counter() - started)
    now += 60
    tick_peak = peak(lambda: service.tick(db, now))
    play_one(db, lives[0], moves, now + 1)
    page_peak = peak(lambda: pages.write(db, str(site), now + 1))
    growth = steady_growth(db, lives, moves, now + 2, actions_for_growth)
    return Figures(statistics.median(delivers), statistics.median(ticks),
                   statistics.median(page_times), tick_peak, page_peak, growth)


def _published(db: str, site: Path) -> None:
    """The folder as an earlier ``page`` run left it: writing every game's page once is
    not what is measured (and would take long for 10,000 games)."""
    site.mkdir()
    for name in (pages.INDEX, pages.FINISHED, pages.STANDINGS):
        (site / name).write_text("", encoding="utf-8")
    with Store.open(db) as store:
        with store.transaction():
            store.published.remember(os.path.abspath(site), store.games.last_change_number())


def steady_growth(db: str, lives: list[Live], moves: list[str], now: int, count: int) -> float:
    """Bytes held per action after prune, over ``count`` actions (new games as needed)."""
    def size_after_prune(at: int) -> int:
        with Store.open(db) as store:
            service.prune_store(store, at, 0)
            return store.size()

    before = size_after_prune(now)
    for number in range(count):
        now += 60
        if lives[-1].played >= len(moves):
            lives.append(live_game(db, len(lives), now))
        play_one(db, lives[-1], moves, now)
    return (size_after_prune(now + 1) - before) / max(1, count)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--players", type=int, default=1_000)
    parser.add_argument("--messages", type=int, default=200_000,
                        help="stored messages in the large store (half in, half out)")
    parser.add_argument("--small-games", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5, help="timings per median")
    parser.add_argument("--actions", type=int, default=200,
                        help="actions over which steady growth is measured")
    args = parser.parse_args()
    per_game = max(2, args.messages // max(1, args.games))
    print(f"machine: {_common.machine()}")
    print(f"date: {time.strftime('%Y-%m-%d %H:%M %Z')}")
    results = {}
    for label, games in (("small", args.small_games), ("large", args.games)):
        print(f"{label} store: {games} games, {min(args.players, 2 * games)} players, "
              f"{per_game * games} messages", flush=True)
        with tempfile.TemporaryDirectory() as folder:
            results[label] = measure(Path(folder), games, max(2, min(args.players, 2 * games)),
                                     per_game, args.repeat, args.actions)
    small, large = results["small"], results["large"]
    for name, unit in (("deliver", "ms"), ("tick", "ms"), ("page", "ms")):
        a, b = getattr(small, name) * 1000, getattr(large, name) * 1000
        print(f"{name:8s} small {a:9.1f} {unit}   large {b:9.1f} {unit}   ratio {b / a:5.2f}x")
    for name in ("tick_peak", "page_peak"):
        print(f"{name:9s} small {getattr(small, name) / 2**20:8.1f} MiB  "
              f"large {getattr(large, name) / 2**20:8.1f} MiB")
    print(f"growth   small {small.growth:9.0f} B/action   large {large.growth:9.0f} B/action")


if __name__ == "__main__":
    main()
