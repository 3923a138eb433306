"""A player's status page, ``player-N.html``: the rating, the games, the rating history.

Drawn from what the store keeps (the player's row, the saved summaries of their games,
their rating history); :mod:`tomis.referee.pages` puts it in the page and writes it. A
rating is shown with the two deviations either side that hold the player's strength with
95 % confidence (``1620 ± 140``), so a new player's ``1500 ± 700`` says how little one
knows. The history is a small inline SVG chart: no script, no request, every text
escaped; one point or none still reads (none is said in words, not drawn).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from html import escape

from ..notation.clock import format_date
from ..notation.ending import ending_words
from ..rules.board import SIDE_NAMES
from .store import PlayerRow, RatingRow

# The chart's frame in SVG units (shown at that many CSS pixels, shrunk on a narrow screen).
WIDTH, HEIGHT = 480, 180
LEFT, RIGHT, TOP, BOTTOM = 48, 12, 12, 28
STEP = 100                      # the vertical scale runs between multiples of this
LABELLED_GAMES = 12             # up to this many games each get their number under the chart


def player_file(player: int) -> str:
    return f"player-{player}.html"


def player_link(player: int | None, name: str) -> str:
    """A player's name (escaped) linked to their page; bare when the game names no
    registered player."""
    if player is None:
        return escape(name)
    return f'<a href="{player_file(player)}">{escape(name)}</a>'


def shown_rating(rating: float, deviation: float) -> str:
    """``1620 ± 140``: the rating and twice the deviation, whole numbers."""
    return f"{round(rating)} ± {round(2 * deviation)}"


def player_body(player: PlayerRow, games: dict[int, dict], history: list[RatingRow],
                game_link: Callable[[int], str]) -> str:
    """The page's body under its heading (the name): ``games`` are the player's games'
    saved summaries by number (:meth:`RefereedGame.saved_summary`), ``history`` their
    rating after each rated game, oldest first; ``game_link(number)`` links a game's
    replay page."""
    rated = {row.game: row for row in history}
    in_play = {number: saved for number, saved in games.items() if not saved["over"]}
    finished = {number: saved for number, saved in games.items() if saved["over"]}
    count = len(history)
    after = f"after {count} rated game{'s' if count != 1 else ''}" if count else \
        "no rated game yet"
    return "\n".join([
        f'<p>Rating <strong class="rating">{shown_rating(player.rating, player.deviation)}'
        f"</strong> ({after}; Glicko-2: the true strength lies within the range shown "
        "with 95 % confidence).</p>",
        "<h2>Games in play</h2>",
        _games_table(player, in_play, rated, game_link),
        "<h2>Finished games</h2>",
        _games_table(player, finished, rated, game_link),
        "<h2>Rating history</h2>",
        rating_chart(history),
        *([_history_table(history, game_link)] if history else []),
    ])


def _side_of(player: PlayerRow, saved: dict) -> int:
    """The player's side in a game (a summary saved before players were kept names no
    numbers: then by the name)."""
    if "white_player" in saved:
        return 0 if saved["white_player"] == player.id else 1
    return 0 if saved["white"] == player.name else 1


def _games_table(player: PlayerRow, games: dict[int, dict], rated: dict[int, RatingRow],
                 game_link: Callable[[int], str]) -> str:
    """The player's games in play (who acts) or finished (the outcome from their side,
    and their rating after it, or that it was not rated)."""
    if not games:
        return "<p>None.</p>"
    finished = next(iter(games.values()))["over"]
    rows = []
    for number, saved in games.items():
        side = _side_of(player, saved)
        opponent = player_link(saved.get(("white_player", "black_player")[1 - side]),
                               saved[("white", "black")[1 - side]])
        cells = [game_link(number), SIDE_NAMES[side], opponent, str(saved["actions"])]
        if finished:
            after = rated.get(number)
            cells += [_outcome(side, saved),
                      shown_rating(after.rating, after.deviation) if after else "not rated"]
        else:
            cells.append("to act" if saved["to_move"] == side else "waiting")
        rows.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>")
    names = ["Game", "Side", "Opponent", "Actions"] + (
        ["Outcome", "Rating after"] if finished else ["Now"])
    head = "".join(f"<th>{name}</th>" for name in names)
    body = "\n".join(rows)
    return f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>"


def _outcome(side: int, saved: dict) -> str:
    """A finished game from the player's side: ``won 1-0, Black resigned``."""
    result = saved["result"]
    word = {"1-0": ("won", "lost"), "0-1": ("lost", "won"),
            "1/2-1/2": ("drew", "drew")}.get(result, ("no result", "no result"))[side]
    ended = ending_words(saved["termination"], result) if saved["termination"] else None
    return escape(f"{word} {result}" + (f", {ended}" if ended else ""))


def _history_table(history: list[RatingRow], game_link: Callable[[int], str]) -> str:
    """The chart's points as a table, for a reader who cannot see the chart."""
    rows = "\n".join(f"<tr><td>{escape(format_date(row.at))}</td><td>{game_link(row.game)}"
                     f"</td><td>{shown_rating(row.rating, row.deviation)}</td></tr>"
                     for row in history)
    return ("<table>\n<thead><tr><th>Rated on</th><th>Game</th><th>Rating after</th></tr>"
            f"</thead>\n<tbody>\n{rows}\n</tbody>\n</table>")


def rating_chart(history: list[RatingRow]) -> str:
    """The rating after each rated game as an inline SVG: a point per game (its title
    says the game and the rating), the line through them, and the band of two
    deviations either side, shaded. No game: a sentence instead."""
    if not history:
        return "<p>No rated game yet: the chart begins with the first.</p>"
    low = math.floor(min(row.rating - 2 * row.deviation for row in history) / STEP) * STEP
    high = math.ceil(max(row.rating + 2 * row.deviation for row in history) / STEP) * STEP
    high = max(high, low + STEP)
    width, height = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    slot = width / len(history)

    def x(index: int) -> float:
        return LEFT + (index + 0.5) * slot          # one point alone stands in the middle

    def y(value: float) -> float:
        return TOP + (high - value) / (high - low) * height

    band = [(x(i), y(row.rating + 2 * row.deviation)) for i, row in enumerate(history)]
    band += [(x(i), y(row.rating - 2 * row.deviation))
             for i, row in reversed(list(enumerate(history)))]
    if len(history) == 1:               # a band one point wide: a bar as wide as a point
        (cx, top_y), (_, bottom_y) = band
        band = [(cx - 4, top_y), (cx + 4, top_y), (cx + 4, bottom_y), (cx - 4, bottom_y)]
    first, last = history[0], history[-1]
    title = (f"Rating after each of {len(history)} rated game{'s' if len(history) > 1 else ''}"
             f": {shown_rating(first.rating, first.deviation)} after game {first.game}"
             + (f", {shown_rating(last.rating, last.deviation)} after game {last.game}"
                if len(history) > 1 else ""))
    parts = [
        f'<svg class="rating-chart" role="img" aria-labelledby="chart-title" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" '
        'style="max-width: 100%; height: auto">',
        f'<title id="chart-title">{escape(title)}</title>',
        f'<rect x="{LEFT}" y="{TOP}" width="{width}" height="{height}" fill="#fff" '
        'stroke="#999"/>',
        f'<text x="{LEFT - 6}" y="{TOP + 4}" text-anchor="end" font-size="11">{high}</text>',
        f'<text x="{LEFT - 6}" y="{TOP + height}" text-anchor="end" font-size="11">'
        f"{low}</text>",
        '<polygon class="band" fill="#0b5cad" fill-opacity="0.15" points="'
        + " ".join(f"{px:.1f},{py:.1f}" for px, py in band) + '"/>',
    ]
    if len(history) > 1:
        parts.append('<polyline fill="none" stroke="#0b5cad" stroke-width="2" points="'
                     + " ".join(f"{x(i):.1f},{y(row.rating):.1f}"
                                for i, row in enumerate(history)) + '"/>')
    for i, row in enumerate(history):
        parts.append(
            f'<circle class="point" data-game="{row.game}" data-rating="{round(row.rating)}" '
            f'cx="{x(i):.1f}" cy="{y(row.rating):.1f}" r="4" fill="#0b5cad">'
            f"<title>{escape(f'game {row.game}, {format_date(row.at)}: ')}"
            f"{shown_rating(row.rating, row.deviation)}</title></circle>")
        if len(history) <= LABELLED_GAMES or i in (0, len(history) - 1):
            parts.append(f'<text x="{x(i):.1f}" y="{HEIGHT - 8}" text-anchor="middle" '
                         f'font-size="11">#{row.game}</text>')
    parts.append("</svg>")
    return "\n".join(parts)
