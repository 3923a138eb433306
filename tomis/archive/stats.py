"""Archive statistics: results by rules edition, endings, lengths, first placements, and
per-player results with a crosstable and Elo-style ratings.

:class:`StatsProbe` runs where each game is read and returns a small :class:`GameFacts`;
:class:`Stats` adds them up in archive order. Memory grows with the number of players and
of distinct lengths and openings, never with the number of games.

Ratings (documented in docs/ARCHIVES.md): every player starts at ``START_RATING`` 1500;
games are taken in archive order (files as given, games as written); each decided game
(1-0, 0-1, 1/2-1/2) between two named players (not ``?`` or empty) moves both ratings by
``K_FACTOR`` 20 times (score - expected), expected = 1 / (1 + 10^((opponent - own) / 400)).
Unfinished games (``*``) count in nothing but the totals.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass

from .walker import Probe
from ..errors import visible
from .select import ENDINGS, ending_of, rules_of

START_RATING = 1500.0
K_FACTOR = 20.0
SCALE = 400.0
LENGTH_BUCKET = 20          # actions per bucket of the length distribution
UNNAMED = ("", "?")
SCORES = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}


@dataclass(frozen=True, slots=True)
class GameFacts:
    white: str
    black: str
    result: str
    rules: str
    ending: str
    actions: int
    first_white: str | None      # White's first action (the base placement, R5)
    first_black: str | None


class StatsProbe(Probe):
    def __call__(self, checked, source):
        game = checked.game
        if checked.error is not None or game is None:
            return None
        texts = [str(node.action) for node in game.nodes[:2]]
        first = game.start.ply          # a Position tag may start mid-game
        white = texts[0] if first == 0 and texts else None
        black = texts[1] if first == 0 and len(texts) > 1 else None
        return GameFacts(game.tags.get("White", "?"), game.tags.get("Black", "?"), game.result,
                         rules_of(game), ending_of(game), len(game.nodes), white, black)


@dataclass
class _Player:
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    rating: float = START_RATING

    @property
    def score(self) -> float:
        return self.wins + self.draws / 2


class Stats:
    """Everything ``tomis stats`` reports, added up game by game."""

    def __init__(self):
        self.games = self.invalid = 0
        self.files = 0
        self.results = {"manual": Counter(), "readme": Counter()}
        self.endings = Counter()
        self.lengths = Counter()
        self.first_white = Counter()
        self.first_black = Counter()
        self.players: dict[str, _Player] = {}
        self.pairs: dict[tuple[str, str], list[float]] = {}    # (a, b) -> [a's score, games]

    def add_invalid(self) -> None:
        self.games += 1
        self.invalid += 1

    def add(self, facts: GameFacts) -> None:
        self.games += 1
        self.results.setdefault(facts.rules, Counter())[facts.result] += 1
        self.endings[facts.ending] += 1
        self.lengths[facts.actions] += 1
        if facts.first_white:
            self.first_white[facts.first_white] += 1
        if facts.first_black:
            self.first_black[facts.first_black] += 1
        if facts.result in SCORES and facts.white not in UNNAMED and facts.black not in UNNAMED \
                and facts.white != facts.black:
            self._rate(facts.white, facts.black, *SCORES[facts.result])

    def _rate(self, white: str, black: str, white_score: float, black_score: float) -> None:
        a = self.players.setdefault(white, _Player())
        b = self.players.setdefault(black, _Player())
        expected = 1.0 / (1.0 + 10 ** ((b.rating - a.rating) / SCALE))
        change = K_FACTOR * (white_score - expected)
        a.rating += change
        b.rating -= change
        for player, score in ((a, white_score), (b, black_score)):
            player.games += 1
            player.wins += score == 1.0
            player.draws += score == 0.5
            player.losses += score == 0.0
        for me, them, score in ((white, black, white_score), (black, white, black_score)):
            pair = self.pairs.setdefault((me, them), [0.0, 0])
            pair[0] += score
            pair[1] += 1

    # -- views ----------------------------------------------------------------
    def ranking(self) -> list[str]:
        """Players by score, then rating, then name."""
        return sorted(self.players, key=lambda n: (-self.players[n].score, -self.players[n].rating, n))

    def length_summary(self) -> dict:
        count = sum(self.lengths.values())
        if not count:
            return {"games": 0, "min": None, "max": None, "mean": None, "median": None, "buckets": []}
        expanded = sorted(self.lengths.elements())
        buckets = Counter(length // LENGTH_BUCKET for length in expanded)
        return {
            "games": count, "min": expanded[0], "max": expanded[-1],
            "mean": round(sum(expanded) / count, 1), "median": statistics.median(expanded),
            "buckets": [{"from": b * LENGTH_BUCKET, "to": b * LENGTH_BUCKET + LENGTH_BUCKET - 1,
                         "games": buckets[b]} for b in sorted(buckets)],
        }

    def as_json(self) -> dict:
        ranking = self.ranking()
        return {
            "files": self.files,
            "games": self.games, "valid": self.games - self.invalid, "invalid": self.invalid,
            "results": {rules: {r: counts.get(r, 0) for r in ("1-0", "0-1", "1/2-1/2", "*")}
                        for rules, counts in self.results.items()},
            "endings": {name: self.endings.get(name, 0) for name in ENDINGS},
            "lengths": self.length_summary(),
            "first_placements": {"white": dict(self.first_white.most_common()),
                                 "black": dict(self.first_black.most_common())},
            "players": [{"name": n, "games": p.games, "wins": p.wins, "draws": p.draws,
                         "losses": p.losses, "score": p.score, "rating": round(p.rating)}
                        for n in ranking for p in (self.players[n],)],
            "crosstable": {a: {b: {"score": self.pairs[(a, b)][0], "games": self.pairs[(a, b)][1]}
                               for b in ranking if (a, b) in self.pairs} for a in ranking},
            "rating": {"start": START_RATING, "k": K_FACTOR, "scale": SCALE,
                       "order": "archive order: files as given, games as written"},
        }

    def text(self, top: int = 10, width: int = 20) -> str:
        data = self.as_json()
        lines = [f"{data['games']:,} games in {data['files']:,} file(s): {data['valid']:,} valid, "
                 f"{data['invalid']:,} invalid", "", "Results by rules edition:"]
        lines += [f"  {rules:<7} 1-0 {c['1-0']:>6,}  0-1 {c['0-1']:>6,}  1/2-1/2 {c['1/2-1/2']:>6,}"
                  f"  * {c['*']:>6,}" for rules, c in data["results"].items()]
        lines += ["", "How games ended:"]
        lines += [f"  {name:<16} {count:>7,}" for name, count in data["endings"].items()]
        lengths = data["lengths"]
        lines += ["", "Length in actions:"]
        if lengths["games"]:
            lines.append(f"  min {lengths['min']}, median {lengths['median']}, mean {lengths['mean']}, "
                         f"max {lengths['max']}")
            most = max(b["games"] for b in lengths["buckets"])
            for bucket in lengths["buckets"]:
                bar = "#" * max(1, round(40 * bucket["games"] / most))
                lines.append(f"  {bucket['from']:>4}-{bucket['to']:<4} {bucket['games']:>7,} {bar}")
        for side in ("white", "black"):
            placements = list(data["first_placements"][side].items())[:top]
            shown = ", ".join(f"{action} {count:,}" for action, count in placements) or "none"
            lines += ["", f"First placements, {side.title()}: {shown}"]
        lines += self._player_lines(data, width)
        return "\n".join(lines) + "\n"

    def _player_lines(self, data: dict, width: int) -> list[str]:
        players = data["players"]
        if not players:
            return ["", "Players: no decided game between named players"]
        lines = ["", "Players (score, then rating; Elo-style, start 1500, K 20, archive order):",
                 f"  {'#':>3} {'player':<16} {'games':>5} {'+':>4} {'=':>4} {'-':>4} {'score':>6} {'rating':>6}"]
        for rank, p in enumerate(players, 1):
            lines.append(f"  {rank:>3} {_cell(p['name']):<16} {p['games']:>5} {p['wins']:>4} {p['draws']:>4} "
                         f"{p['losses']:>4} {_score(p['score']):>6} {p['rating']:>6}")
        shown = [p["name"] for p in players[:width]]
        lines += ["", "Crosstable (row's score against column; . never met):",
                  "  " + " " * 20 + "".join(f"{i:>5}" for i in range(1, len(shown) + 1))]
        for i, name in enumerate(shown, 1):
            row = data["crosstable"][name]
            cells = "".join(f"{_score(row[o]['score']) if o in row else '.':>5}" for o in shown)
            lines.append(f"  {i:>3} {_cell(name):<16}{cells}")
        if len(players) > width:
            lines.append(f"  (first {width} of {len(players)} players; --json has them all)")
        return lines


def _cell(name: str) -> str:
    """A player's name in the 16 columns of a table: control characters escaped before
    it is cut, so the columns line up and no escape sequence reaches the terminal."""
    return visible(name)[:16]


def _score(value: float) -> str:
    whole = int(value)
    half = value - whole >= 0.5
    return (str(whole) if whole or not half else "") + ("½" if half else "") if value else "0"
