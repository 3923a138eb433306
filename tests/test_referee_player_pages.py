"""The player pages of tomis referee page (player-N.html): the rating shown with its
range, the games in play and finished, the history as an inline SVG chart, linked from the
index; never an address or token; drawn again only for players who changed."""

from __future__ import annotations

import re
import shutil
import sqlite3
from html import escape

import pytest

from conftest import ROOT
from referee_support import BO, Lab, reply_to, run
from tomis.referee import pages, playerpages
from tomis.referee.store import RatingRow

ANA_MAIL = "Ana Lungu <ana@a.test>"


def _ok(*args):
    result = run(*args)
    assert result.exit_code == 0, result.output
    return result


def last_to(lab: Lab, game: int, address: str):
    return [m for m in lab.messages()
            if address in str(m["To"]) and f"[tomis #{game}]" in m["Subject"]][-1]


@pytest.fixture
def season(tmp_path):
    """Ana beats Bo (game 1, resigned), then draws with him (game 2); game 3, Bo against
    Cy, is in play; Dee is registered and has played nobody."""
    lab = Lab(tmp_path)
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-23T11:00Z")
    lab.deliver(lab.reply(1, "resign"), "2026-11-23T12:00Z")
    second = int(_ok("referee", "new", lab.db, "--white", "Bo Marin", "--black", "Ana Lungu",
                     "--now", "2026-11-24T10:00Z").stdout)
    lab.deliver(reply_to(last_to(lab, second, "bo@b.test"), BO, "B@e1 draw"),
                "2026-11-24T11:00Z")
    lab.deliver(reply_to(last_to(lab, second, "ana@a.test"), ANA_MAIL, "accept"),
                "2026-11-24T12:00Z")
    _ok("referee", "new", lab.db, "--white", "Bo Marin", "--black", "Cy <cy@c.test>",
        "--now", "2026-11-25T10:00Z")
    _ok("referee", "player", "add", lab.db, "Dee <dee@d.test>")
    lab.pages = tmp_path / "pages"
    _ok("referee", "page", lab.db, "-o", lab.pages, "--now", "2026-11-26T10:00Z")
    lab.ids = dict(lab.query("SELECT name, id FROM players"))
    return lab


def page_of(lab: Lab, name: str) -> str:
    return (lab.pages / f"player-{lab.ids[name]}.html").read_text(encoding="utf-8")


def test_a_players_page_shows_the_rating_range_games_and_history(season):
    ((rating, deviation),) = season.query(
        "SELECT rating, deviation FROM players WHERE name = 'Ana Lungu'")
    history = season.query("SELECT game, rating, deviation FROM ratings WHERE player = ? "
                           "ORDER BY id", season.ids["Ana Lungu"])
    assert [game for game, _r, _d in history] == [1, 2]
    page = page_of(season, "Ana Lungu")
    assert "<h1>Ana Lungu</h1>" in page
    # the rating now, with two deviations either side, as whole numbers
    assert f'<strong class="rating">{round(rating)} ± {round(2 * deviation)}</strong>' in page
    assert "after 2 rated games" in page
    finished = page.split("<h2>Finished games</h2>")[1].split("<h2>")[0]
    bo = f'<a href="player-{season.ids["Bo Marin"]}.html">Bo Marin</a>'
    assert (f'<td><a href="game-1.html">#1</a></td><td>white</td><td>{bo}</td><td>1</td>'
            f"<td>won 1-0, Black resigned</td><td>{history[0][1]:.0f} ± "
            f"{2 * history[0][2]:.0f}</td>") in finished
    assert '<td><a href="game-2.html">#2</a></td><td>black</td>' in finished
    assert "drew 1/2-1/2, draw agreed" in finished
    assert "<h2>Games in play</h2>\n<p>None.</p>" in page
    # the chart: one point per rated game, in order, each titled with its rating
    chart = page.split("<svg")[1].split("</svg>")[0]
    points = re.findall(r'<circle class="point" data-game="(\d+)" data-rating="(\d+)"', chart)
    assert points == [(str(game), str(round(r))) for game, r, _d in history]
    assert "<script" not in page and 'content="default-src \'none\'' in page


def test_a_player_in_play_and_one_without_games(season):
    bo = page_of(season, "Bo Marin")
    in_play = bo.split("<h2>Games in play</h2>")[1].split("<h2>")[0]
    cy = f'<a href="player-{season.ids["Cy"]}.html">Cy</a>'
    assert f'<td><a href="game-3.html">#3</a></td><td>white</td><td>{cy}</td><td>0</td>' \
        f"<td>to act</td>" in in_play
    dee = page_of(season, "Dee")
    # never rated: the new player's range, and words instead of an empty chart
    assert '<strong class="rating">1500 ± 700</strong> (no rated game yet' in dee
    assert "<svg" not in dee and "No rated game yet: the chart begins with the first." in dee
    assert dee.count("<p>None.</p>") == 2


def test_the_index_links_each_players_name(season):
    index = (season.pages / "index.html").read_text(encoding="utf-8")
    for name in ("Bo Marin", "Cy"):
        assert f'<a href="player-{season.ids[name]}.html">{escape(name)}</a>' in index


def test_player_pages_hold_no_address_token_or_secret(season):
    secret = season.query("SELECT value FROM settings WHERE key = 'secret'")[0][0]
    tokens = {m["From"].addresses[0].username.split("+")[1] for m in season.messages()}
    names = sorted(path.name for path in season.pages.glob("player-*.html"))
    assert names == sorted(f"player-{number}.html" for number in season.ids.values())
    for name in names:
        text = (season.pages / name).read_text(encoding="utf-8")
        assert "@" not in text.replace("B@e1", "") and "mailto" not in text
        assert secret not in text and not any(token in text for token in tokens)


def test_only_the_pages_of_players_who_changed_are_drawn(season, monkeypatch):
    drawn = []
    original = pages.player_body
    monkeypatch.setattr(pages, "player_body",
                        lambda player, *rest: drawn.append(player.name) or original(player, *rest))
    _ok("referee", "page", season.db, "-o", season.pages, "--now", "2026-11-26T10:00Z")
    assert drawn == []                                  # nothing changed
    season.deliver(reply_to(last_to(season, 3, "bo@b.test"), BO, "B@e1"), "2026-11-26T11:00Z")
    _ok("referee", "page", season.db, "-o", season.pages, "--now", "2026-11-26T12:00Z")
    assert sorted(drawn) == ["Bo Marin", "Cy"]          # game 3's players alone
    drawn.clear()
    _ok("referee", "player", "rename", season.db, "Dee", "Dee Nash")
    _ok("referee", "page", season.db, "-o", season.pages, "--now", "2026-11-26T12:00Z")
    assert drawn == ["Dee Nash"]                       # a player's row changed: theirs alone
    assert "<h1>Dee Nash</h1>" in page_of(season, "Dee")     # the same page, player 4
    drawn.clear()
    fresh = season.pages.parent / "fresh"              # another folder is written whole
    _ok("referee", "page", season.db, "-o", fresh, "--now", "2026-11-26T12:00Z")
    assert sorted(drawn) == ["Ana Lungu", "Bo Marin", "Cy", "Dee Nash"]
    for number in season.ids.values():
        name = f"player-{number}.html"
        assert (fresh / name).read_bytes() == (season.pages / name).read_bytes()


def test_the_chart_with_one_point_stands_in_the_middle():
    row = RatingRow(7, 0, 1662.3, 290.3, 0.06)
    chart = playerpages.rating_chart([row])
    (cx,) = re.findall(r'<circle class="point"[^>]* cx="([\d.]+)"', chart)
    middle = playerpages.LEFT + (playerpages.WIDTH - playerpages.LEFT - playerpages.RIGHT) / 2
    assert float(cx) == pytest.approx(middle)
    assert "<polyline" not in chart                    # no line through one point
    assert "1662 ± 581 after game 7" in chart


def test_an_upgraded_store_gets_player_pages_and_rates_only_what_ends_after(tmp_path):
    """store-v3.sqlite (today's main): its games' summaries name no players, so page
    reads each record once more and links every name; nothing is rated until a game in
    play ends."""
    db = tmp_path / "referee.db"
    shutil.copy(ROOT / "tests" / "data" / "referee" / "store-v3.sqlite", db)
    folder = tmp_path / "pages"
    _ok("referee", "page", db, "-o", folder, "--now", "2026-11-25T10:00Z")
    with sqlite3.connect(db) as connection:
        ids = dict(connection.execute("SELECT name, id FROM players"))
        assert connection.execute("SELECT COUNT(*) FROM ratings").fetchone() == (0,)
    assert sorted(path.name for path in folder.glob("player-*.html")) == sorted(
        f"player-{number}.html" for number in ids.values())
    index = (folder / "index.html").read_text(encoding="utf-8")
    for name in ("Ana Lungu", "Bo Marin", "Cy Dobre"):      # games 1 and 2 are in play
        assert f'<a href="player-{ids[name]}.html">{name}</a>' in index
    _ok("referee", "adjudicate", db, 1, "1-0", "--reason", "Bo left the club",
        "--now", "2026-11-25T11:00Z")
    _ok("referee", "page", db, "-o", folder, "--now", "2026-11-25T12:00Z")
    with sqlite3.connect(db) as connection:
        rated = connection.execute("SELECT player, game FROM ratings ORDER BY player").fetchall()
    assert rated == sorted([(ids["Ana Lungu"], 1), (ids["Bo Marin"], 1)])
    ana = (folder / f"player-{ids['Ana Lungu']}.html").read_text(encoding="utf-8")
    assert ana.count('<circle class="point"') == 1 and "won 1-0, adjudication" in ana
