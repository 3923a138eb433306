"""``tomis referee page``: the club's status pages, static HTML for any web server.

- ``index.html``: the games in play (players, who acts, each clock, last action, waiting
  since), with links to the other two;
- ``finished.html``: the games finished (result, how it ended, actions);
- ``standings.html``: the standings and the crosstable as ``tomis stats`` computes them
  (:class:`tomis.archive.stats.Stats`);
- ``game-N.html``: each game's replay page (:func:`tomis.pictures.html.page`);
- ``player-N.html``: each player's page, their rating, games and rating history
  (:mod:`tomis.referee.playerpages`), drawn again only when the player or one of their
  games changed.

The pages are split so that one action costs the same at ten games as at ten thousand:
after an action page writes that game's page and the index, whose rows are kept in the
store (``store.page_parts``, drawn again only for a game saved since); the finished games
and the standings are drawn and written only when a game has ended. A static page cannot
count down, so the index shows a running clock by when it runs out, and the other by the
time it has left (both stay true until the next action).

What a page may hold is the public record and the names: never an address, a reply
token or a private conditional line (those are in other columns and tables, and no code
here reads them). The index carries no script at all; its content security policy is the
replay page's without ``script-src``. Every file is written atomically, mode 0644, and
without following a link or opening anything but a regular file at its name
(:func:`tomis.util.safefile.write_own`): the folder is often a web root others may write.
"""

from __future__ import annotations

import json
import os
import time
import zlib
from dataclasses import dataclass
from html import escape

from ..archive.stats import GameFacts, Stats
from ..errors import visible
from ..notation import clock
from ..notation.clock import describe_duration, format_stamp
from ..notation.ending import ending_words
from ..pictures import html
from ..rules.board import SIDE_NAMES
from ..util import safefile
from .games import RefereedGame
from .playerpages import player_body, player_file, player_link
from .service import connect
from .store import KeptRow, PagePart, PlayerRow, Store

INDEX = "index.html"
FINISHED = "finished.html"
STANDINGS = "standings.html"
PAGE_MODE = 0o644           # pages are public: the web server reads them
CSP = "default-src 'none'; style-src 'unsafe-inline'"
FINISHED_PART = "finished"      # the kept parts (store.page_parts) drawn from finished games
STANDINGS_PART = "standings"
ROW_PART = "row-"               # + a game's number: its kept row of the index
# + a folder: what each player's page there was last drawn from (player number -> the
# fingerprint of their row), so a player whose row changed (a new name, a new player) is
# drawn again though none of their games changed.
PLAYERS_PART = "players "
# Raised whenever the HTML of a kept part or row changes: one kept by an older program
# (same games, older drawing) is then drawn again instead of shown.
PART_FORMAT = 3


def game_file(number: int) -> str:
    return f"game-{number}.html"


@dataclass(frozen=True)
class Finished:
    """The finished games' kept parts: their list and the standings with the crosstable."""

    games: PagePart
    standings: PagePart


def write(path: str, folder: str, now: int | None = None) -> list[str]:
    """Write into ``folder`` the replay page of every game changed since this folder was
    last written (all of them the first time), the index, and the finished games and
    standings when a game has ended since; the files written (a page whose text is
    unchanged is left as it was). Nothing is replayed but the changed games' records. A
    link or anything but a regular file at a page's name is a
    :class:`~tomis.errors.FileError`, and nothing is written there."""
    now = int(time.time()) if now is None else now
    place = os.path.abspath(folder)
    store, _config = connect(path)
    with store:
        mark = store.published.mark(place)
        if mark is not None and not all(os.path.isfile(os.path.join(folder, name))
                                        for name in (INDEX, FINISHED, STANDINGS)):
            mark = None                     # the folder was emptied: write it whole again
        newest = store.games.last_change_number()
        changed = [RefereedGame.load(store, number) for number in
                   (store.games.numbers(in_play=False) if mark is None
                    else store.games.changed_since(mark))]
        rows = rows_in_play(store)
        os.makedirs(folder, exist_ok=True)
        written = []
        for game in changed:
            text = html.page(game.record, name=f"tomis-{game.id}.tgn")
            written += _publish(folder, game_file(game.id), text.encode("utf-8"))
        if mark is None or any(game.over for game in changed):     # a game ended
            finished = finished_parts(store)
            written += _publish(folder, FINISHED, _page_bytes("Finished games",
                                                              finished.games.data))
            written += _publish(folder, STANDINGS, _page_bytes("Standings and crosstable",
                                                               finished.standings.data))
        count, _newest = store.games.finished_mark()
        written += _publish(folder, INDEX, _index_bytes(rows, count, now))
        drawn, players_now = player_pages(store, folder, place, changed, whole=mark is None)
        written += drawn
        with store.transaction():
            store.published.remember(place, newest)
            store.page_parts.keep(PLAYERS_PART + place, players_now)
    return written


def _player_fingerprint(player: PlayerRow) -> str:
    return json.dumps([PART_FORMAT, player.name, player.rating, player.deviation])


def player_pages(store: Store, folder: str, place: str, changed: list[RefereedGame], *,
                 whole: bool) -> tuple[list[str], PagePart]:
    """Write the page of each player who sits in a game of ``changed`` or whose row
    changed since this folder was last written (every player's when ``whole``); the
    files written, and what to keep of the players as drawn. A player the organiser has
    not approved and who has no game gets no page: a name asking to join is not public."""
    players = store.players.all()
    kept_part = store.page_parts.get(PLAYERS_PART + place)
    kept = {} if whole or kept_part is None else json.loads(kept_part.data)
    now = {str(player.id): _player_fingerprint(player) for player in players}
    touched = {number for game in changed for number in game.player_ids if number is not None}
    written = []
    for player in players:
        if whole or player.id in touched or kept.get(str(player.id)) != now[str(player.id)]:
            numbers = store.games.of_player(player.id, in_play=False)
            if numbers or player.approved:
                written += _publish(folder, player_file(player.id),
                                    _player_page(store, player, numbers))
    return written, PagePart(str(PART_FORMAT), json.dumps(now).encode("utf-8"))


def _player_page(store: Store, player: PlayerRow, numbers: list[int]) -> bytes:
    saved = {listed.id: (json.loads(listed.summary) if listed.summary is not None
                         else _read_summary(store, listed.id))
             for listed in store.games.listed_of(numbers)}
    body = player_body(player, saved, store.ratings.history(player.id), _game_link)
    return _page(escape(player.name), body).encode("utf-8")


def rows_in_play(store: Store) -> list[bytes]:
    """The index's row of each game in play, oldest first: as kept, or drawn from the
    game's saved summary (and kept) when it was saved since. A game last saved by an
    older program has no summary: its record is read, here."""
    kept = store.page_parts.rows_in_play(ROW_PART, PART_FORMAT)
    drawn = {row.game: _drawn_row(store, row) for row in kept if row.row is None}
    if drawn:
        with store.transaction():
            for row in kept:
                if row.game in drawn:
                    store.page_parts.keep(f"{ROW_PART}{row.game}",
                                          PagePart(row.fingerprint, drawn[row.game]))
    return [drawn.get(row.game, row.row) for row in kept]


def _drawn_row(store: Store, row: KeptRow) -> bytes:
    saved = (json.loads(row.summary) if row.summary is not None
             else _read_summary(store, row.game))
    return playing_row(row.game, saved).encode("utf-8")


def finished_parts(store: Store) -> Finished:
    """The finished games' list and the standings, as kept in the store when no game has
    ended or been saved again since they were drawn; else drawn anew from the finished
    games' summaries, and kept. At a thousand players they are megabytes of HTML."""
    count, newest = store.games.finished_mark()
    fingerprint = f"{PART_FORMAT}:{count}:{newest}"
    games, standings = (store.page_parts.get(FINISHED_PART),
                        store.page_parts.get(STANDINGS_PART))
    if (games is None or standings is None or games.fingerprint != fingerprint
            or standings.fingerprint != fingerprint):
        saved = _finished_summaries(store)
        # Kept as compressed UTF-8: a twentieth of the size.
        games = PagePart(fingerprint, zlib.compress(finished_html(saved).encode("utf-8")))
        standings = PagePart(fingerprint, zlib.compress(
            standings_html(_standings(saved)).encode("utf-8")))
        with store.transaction():           # written only when drawn: it is megabytes
            store.page_parts.keep(FINISHED_PART, games)
            store.page_parts.keep(STANDINGS_PART, standings)
            store.page_parts.forget_finished_rows(ROW_PART)
    return Finished(games, standings)


def _finished_summaries(store: Store) -> dict[int, dict]:
    """The finished games' saved summaries by number, oldest first (a game saved by an
    older program has none: its record is read, here, and the summary kept)."""
    saved = {}
    for listed in store.games.listed(over=True):
        saved[listed.id] = (json.loads(listed.summary) if listed.summary is not None
                            else _read_summary(store, listed.id))
    return saved


def _read_summary(store: Store, number: int) -> dict:
    """Game ``number``'s summary read afresh from its record, and kept with the game (its
    change number stays: the game did not change), so that it is read once, not at
    every run."""
    summary = RefereedGame.load(store, number).saved_summary()
    with store.transaction():
        store.games.keep_summaries({number: json.dumps(summary)})
    return summary


def _publish(folder: str, name: str, data: bytes) -> list[str]:
    if safefile.read_own(folder, name) == data:
        return []
    safefile.write_own(folder, name, data, PAGE_MODE)
    return [os.path.join(folder, name)]


def _standings(saved: dict[int, dict]) -> dict:
    stats = Stats()
    for summary in saved.values():
        if summary["facts"] is not None:
            stats.add(GameFacts(**summary["facts"]))
    return stats.as_json()


# --------------------------------------------------------------------------- the index

def site(saved: dict[int, dict], now: int) -> dict[str, str]:
    """The index, the finished games and the standings drawn whole from the games' saved
    summaries by number (:meth:`RefereedGame.saved_summary`): what :func:`write` puts
    together from its kept rows and parts."""
    finished = {number: summary for number, summary in saved.items() if summary["over"]}
    rows = [playing_row(number, summary).encode("utf-8")
            for number, summary in sorted(saved.items()) if not summary["over"]]
    return {INDEX: _index_bytes(rows, len(finished), now).decode("utf-8"),
            FINISHED: _page("Finished games", finished_html(finished)),
            STANDINGS: _page("Standings and crosstable", standings_html(_standings(finished)))}


def _index_bytes(rows: list[bytes], finished: int, now: int) -> bytes:
    """The index around its rows, already encoded."""
    top = (f"<h1>Games of the referee</h1>\n<p>As of {escape(format_stamp(now))} (UTC): "
           f"{len(rows)} in play, {finished} finished (<a href=\"{FINISHED}\">the finished "
           f"games</a>, <a href=\"{STANDINGS}\">the standings</a>).</p>\n<h2>In play</h2>\n")
    if not rows:
        body = (top + "<p>None.</p>").encode("utf-8")
    else:
        body = b"".join([(top + "<p>A running clock shows when it runs out; the other, the "
                          "time it has left.</p>\n<table>\n<thead><tr>" + _playing_head()
                          + "</tr></thead>\n<tbody>\n").encode("utf-8"), b"\n".join(rows),
                         b"\n</tbody>\n</table>"])
    head, tail = _PAGE.format(csp=CSP, style=_STYLE, title="Games of the referee",
                              body="\0").split("\0")
    return b"".join([head.encode("utf-8"), body, tail.encode("utf-8")])


def _page(title: str, body: str) -> str:
    back = f'<p><a href="{INDEX}">The games in play</a></p>\n<h1>{title}</h1>\n'
    return _PAGE.format(csp=CSP, style=_STYLE, title=title, body=back + body)


def _page_bytes(title: str, compressed: bytes) -> bytes:
    """:func:`_page` around a kept part (compressed UTF-8)."""
    head, tail = _page(title, "\0").split("\0")
    return b"".join([head.encode("utf-8"), zlib.decompress(compressed), tail.encode("utf-8")])


def _table(rows: list[str], head: str) -> str:
    if not rows:
        return "<p>None.</p>"
    body = "\n".join(rows)
    return f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>"


def _cells(*values: str, header: bool = False) -> str:
    tag = "th" if header else "td"
    return "".join(f"<{tag}>{value}</{tag}>" for value in values)


def _game_link(number: int) -> str:
    return f'<a href="{game_file(number)}">#{number}</a>'


def _players(saved: dict) -> tuple[str, str]:
    """Both names, each linked to the player's page (a summary saved before players
    were kept names none: the names stand alone)."""
    return (player_link(saved.get("white_player"), saved["white"]),
            player_link(saved.get("black_player"), saved["black"]))


def _playing_head() -> str:
    return _cells("Game", "White", "Black", "To act", "White's clock", "Black's clock",
                  "Last action", "Waiting since", header=True)


def _clock_cells(saved: dict) -> tuple[str, str]:
    """Each side's clock as a page can show it until the next action: the side to act's
    by when it runs out (its leave counted), the other's by the time it has left."""
    kept = saved["clock"]
    if kept is None:
        return "none", "none"
    ran = clock.Clock(None, tuple(kept["left"]), kept["since"], (), None,
                      tuple(clock.Leave(*leave) for leave in kept["leaves"]))
    cells = []
    for side in (0, 1):
        deadline = ran.deadline(side) if side == saved["to_move"] else None
        if deadline is not None:
            cells.append(f"until {escape(format_stamp(deadline))}")
        else:
            left = ran.left[side]
            cells.append(describe_duration(left) if left >= 0 else "none left")
    return cells[0], cells[1]


def playing_row(number: int, saved: dict) -> str:
    """A game in play's row of the index, from its saved summary alone: the same until
    the game is saved again, so it is kept."""
    last = (f"{saved['actions']}. {escape(saved['last_action'])}" if saved["last_action"]
            else "none yet")
    since = saved.get("since", saved["created"])    # saved before "since" was: when it began
    return "<tr>" + _cells(_game_link(number), *_players(saved),
                           escape(SIDE_NAMES[saved["to_move"]]), *_clock_cells(saved), last,
                           escape(format_stamp(since))) + "</tr>"


def finished_html(finished: dict[int, dict]) -> str:
    head = _cells("Game", "White", "Black", "Result", "Ended", "Actions", header=True)
    return _table([_finished_row(number, saved) for number, saved in finished.items()], head)


def _finished_row(number: int, saved: dict) -> str:
    ended = ending_words(saved["termination"], saved["result"]) if saved["termination"] else None
    return "<tr>" + _cells(_game_link(number), *_players(saved), escape(saved["result"]),
                           escape(visible(ended or "unknown")),
                           str(saved["actions"])) + "</tr>"


def standings_html(standings: dict) -> str:
    return "\n".join([_standings_table(standings), _crosstable(standings)])


def _score(value: float) -> str:
    whole, half = int(value), value - int(value) >= 0.5
    return (str(whole) if whole or not half else "") + ("½" if half else "") if value else "0"


def _standings_table(standings: dict) -> str:
    players = standings["players"]
    if not players:
        return "<h2>Standings</h2>\n<p>No game decided yet.</p>"
    rows = "\n".join("<tr>" + _cells(str(rank), escape(p["name"]), str(p["games"]),
                                     str(p["wins"]), str(p["draws"]), str(p["losses"]),
                                     _score(p["score"]), str(p["rating"])) + "</tr>"
                     for rank, p in enumerate(players, 1))
    head = _cells("#", "Player", "Games", "Won", "Drawn", "Lost", "Score", "Rating", header=True)
    return ("<h2>Standings</h2>\n<p>By score, then rating (Elo-style, from 1500, K 20, games "
            "in the order they began), as <code>tomis stats</code> counts them.</p>\n"
            f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{rows}\n</tbody>\n</table>")


def _crosstable(standings: dict) -> str:
    names = [p["name"] for p in standings["players"]]
    if not names:
        return ""
    head = _cells("#", "Player", *(str(n) for n in range(1, len(names) + 1)), header=True)
    rows = []
    for rank, name in enumerate(names, 1):
        row = standings["crosstable"][name]
        cells = [_score(row[other]["score"]) if other in row else "·" for other in names]
        rows.append("<tr>" + _cells(str(rank), escape(name), *cells) + "</tr>")
    body = "\n".join(rows)
    return ("<h2>Crosstable</h2>\n<p>The row's score against the column; · never met.</p>\n"
            f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>")


_STYLE = """
:root { color-scheme: light; --ink: #1b1b1b; --paper: #fbfaf7; --accent: #0b5cad; }
body { margin: 0; padding: 1rem; font: 16px/1.45 system-ui, sans-serif; color: var(--ink);
       background: var(--paper); }
h1 { font-size: 1.35rem; } h2 { font-size: 1.1rem; margin-top: 1.5rem; }
table { border-collapse: collapse; } th, td { padding: .25rem .6rem; text-align: left;
       border-bottom: 1px solid #ccc; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
"""

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<title>{title} (Tomis)</title>
<style>{style}</style>
</head>
<body>
<main>
{body}
</main>
</body>
</html>
"""
