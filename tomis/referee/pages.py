"""``tomis referee page``: the club's status pages, static HTML for any web server.

``index.html`` lists the games in play (players, who acts, clocks, last action, waiting
since) and those finished (result, how it ended), then the standings and the crosstable
as ``tomis stats`` computes them (:class:`tomis.archive.stats.Stats`). Each game has its
replay page, ``game-N.html`` (:func:`tomis.pictures.html.page`).

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
from ..notation.clock import describe_duration, format_stamp
from ..pictures import html
from ..rules.board import SIDE_NAMES
from ..util import safefile
from .games import RefereedGame, clocks_left
from .organiser import Summary
from .service import connect
from .store import PagePart, Store

INDEX = "index.html"
PAGE_MODE = 0o644           # pages are public: the web server reads them
CSP = "default-src 'none'; style-src 'unsafe-inline'"
FINISHED_PART = "index-finished"    # the kept part of the index (store.page_parts)
# Raised whenever the HTML of that part changes: a part kept by an older program (same
# finished games, older drawing) is then drawn again instead of shown.
PART_FORMAT = 1


def game_file(number: int) -> str:
    return f"game-{number}.html"


@dataclass(frozen=True)
class _Entry:
    """A game as the index needs it: its saved summary, and the facts stats counts."""

    summary: Summary
    facts: GameFacts | None


def write(path: str, folder: str, now: int | None = None) -> list[str]:
    """Write the index and the replay page of every game changed since this folder was
    last written (all of them the first time) into ``folder``; the files written (a page
    whose text is unchanged is left as it was). The index is built from the summaries
    saved with the games, no record replayed. A link or anything but a regular file at a
    page's name is a :class:`~tomis.errors.FileError`, and nothing is written there."""
    now = int(time.time()) if now is None else now
    place = os.path.abspath(folder)
    store, _config = connect(path)
    with store:
        mark = store.published.mark(place)
        if mark is not None and not os.path.isfile(os.path.join(folder, INDEX)):
            mark = None                     # the folder was emptied: write it whole again
        newest = store.games.last_change_number()
        changed = [RefereedGame.load(store, number) for number in
                   (store.games.numbers(in_play=False) if mark is None
                    else store.games.changed_since(mark))]
        playing = [entry.summary for entry in _entries(store, now, over=False)]
        finished = finished_part(store, now)
        os.makedirs(folder, exist_ok=True)
        written = []
        for game in changed:
            text = html.page(game.record, name=f"tomis-{game.id}.tgn")
            written += _publish(folder, game_file(game.id), text.encode("utf-8"))
        written += _publish(folder, INDEX,
                            _index_bytes(playing, zlib.decompress(finished.data), now))
        with store.transaction():
            store.published.remember(place, newest)
    return written


def finished_part(store: Store, now: int) -> PagePart:
    """The index's part drawn from the finished games alone (their list, the standings
    and the crosstable), as kept in the store when no game has ended or been saved again
    since it was drawn; else drawn anew from the finished games' summaries. At a
    thousand players it is megabytes of HTML: drawing it after every action made page's
    cost grow with the club."""
    count, newest = store.games.finished_mark()
    fingerprint = f"{PART_FORMAT}:{count}:{newest}"
    kept = store.page_parts.get(FINISHED_PART)
    if kept is not None and kept.fingerprint == fingerprint:
        return kept
    entries = _entries(store, now, over=True)
    drawn = _finished_html([entry.summary for entry in entries], _standings(entries))
    # Kept as compressed UTF-8: a twentieth of the size, and no text decoded or encoded
    # again on the runs that only add it to the index.
    part = PagePart(fingerprint, zlib.compress(drawn.encode("utf-8")))
    with store.transaction():           # written only when drawn: it is megabytes
        store.page_parts.keep(FINISHED_PART, part)
    return part


def _entries(store: Store, now: int, over: bool) -> list[_Entry]:
    """The finished games' (``over``) or those in play's index entries at ``now``, from
    their saved summaries (a game last saved by an older program has none: its record
    is read once, here)."""
    # When each game in play last had an action, in one query: one per game cost as much
    # as the rest of the index at a thousand games in play.
    taken = {} if over else store.games.acted_in_play()
    entries = []
    for listed in store.games.listed(over=over):
        saved = (json.loads(listed.summary) if listed.summary is not None
                 else RefereedGame.load(store, listed.id).saved_summary())
        entries.append(_entry(listed.id, saved, taken.get(listed.id), now))
    return entries


def _entry(number: int, saved: dict, taken: int | None, now: int) -> _Entry:
    """``taken``: when the game's last action was played (None: none yet)."""
    to_move = saved["to_move"]
    # Only a game in play shows when it last changed: asked of the store for those alone.
    last_change = saved["created"] if saved["over"] else max(
        taken or saved["created"], saved["created"])
    summary = Summary(number, saved["white"], saved["black"], saved["result"], saved["over"],
                      None if to_move is None else SIDE_NAMES[to_move],
                      clocks_left(saved["clock"], to_move, now), saved["actions"],
                      saved["last_action"], last_change, saved["termination"])
    facts = None if saved["facts"] is None else GameFacts(**saved["facts"])
    return _Entry(summary, facts)


def _publish(folder: str, name: str, data: bytes) -> list[str]:
    if safefile.read_own(folder, name) == data:
        return []
    safefile.write_own(folder, name, data, PAGE_MODE)
    return [os.path.join(folder, name)]


def _standings(entries: list[_Entry]) -> dict:
    stats = Stats()
    for entry in entries:
        if entry.facts is not None:
            stats.add(entry.facts)
    return stats.as_json()


# --------------------------------------------------------------------------- the index

def index(summaries: list[Summary], standings: dict, now: int) -> str:
    playing = [s for s in summaries if not s.over]
    finished = [s for s in summaries if s.over]
    parts = [_top(playing, now), _finished_html(finished, standings)]
    return _PAGE.format(csp=CSP, style=_STYLE, body="\n".join(parts))


def _top(playing: list[Summary], now: int) -> str:
    return "\n".join([f"<h1>Games of the referee</h1>\n<p>As of {escape(format_stamp(now))} "
                      f"(UTC).</p>", _section("In play", playing, _playing_head, _playing_row)])


def _index_bytes(playing: list[Summary], finished: bytes, now: int) -> bytes:
    """:func:`index`'s text, encoded, around the finished part already encoded."""
    head, tail = _PAGE.format(csp=CSP, style=_STYLE, body="\0").split("\0")
    return b"".join([(head + _top(playing, now) + "\n").encode("utf-8"), finished,
                     tail.encode("utf-8")])


def _finished_html(finished: list[Summary], standings: dict) -> str:
    """What of the index depends on the finished games alone (:func:`finished_part`)."""
    return "\n".join([_section("Finished", finished, _finished_head, _finished_row),
                      _standings_table(standings), _crosstable(standings)])


def _section(title: str, rows: list[Summary], head, row) -> str:
    if not rows:
        return f"<h2>{title}</h2>\n<p>None.</p>"
    body = "\n".join(row(summary) for summary in rows)
    return (f"<h2>{title}</h2>\n<table>\n<thead><tr>{head()}</tr></thead>\n"
            f"<tbody>\n{body}\n</tbody>\n</table>")


def _cells(*values: str, header: bool = False) -> str:
    tag = "th" if header else "td"
    return "".join(f"<{tag}>{value}</{tag}>" for value in values)


def _game_link(summary: Summary) -> str:
    return f'<a href="{game_file(summary.number)}">#{summary.number}</a>'


def _players(summary: Summary) -> tuple[str, str]:
    return escape(summary.white), escape(summary.black)


def _playing_head() -> str:
    return _cells("Game", "White", "Black", "To act", "White's clock", "Black's clock",
                  "Last action", "Waiting since", header=True)


def _clock(seconds: int | None) -> str:
    if seconds is None:
        return "none"
    return describe_duration(seconds) if seconds >= 0 else "none left"


def _playing_row(summary: Summary) -> str:
    clocks = summary.clocks or (None, None)
    last = (f"{summary.actions}. {escape(summary.last_action)}" if summary.last_action
            else "none yet")
    return "<tr>" + _cells(_game_link(summary), *_players(summary), escape(summary.to_act or ""),
                           _clock(clocks[0]), _clock(clocks[1]), last,
                           escape(format_stamp(summary.last_change))) + "</tr>"


def _finished_head() -> str:
    return _cells("Game", "White", "Black", "Result", "Ended", "Actions", header=True)


def _finished_row(summary: Summary) -> str:
    return "<tr>" + _cells(_game_link(summary), *_players(summary), escape(summary.result),
                           escape(summary.termination or "on the board"), str(summary.actions),
                           ) + "</tr>"


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
<title>Games of the referee (Tomis)</title>
<style>{style}</style>
</head>
<body>
<main>
{body}
</main>
</body>
</html>
"""
