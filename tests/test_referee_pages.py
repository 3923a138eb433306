"""tomis referee page: the status pages as files (what they hold and never hold, the
standings of tomis stats) and in Chromium (keyboard only, no request but their own files)."""

from __future__ import annotations

import json
import re

import pytest

from referee_support import ANA, BO, Lab, reply_to, run
from tomis.archive.stats import Stats
from tomis.referee import pages

AMPERSAND = "Eve O'Hara & Co"        # the referee refuses < > " in names


def _ok(*args):
    result = run(*args)
    assert result.exit_code == 0, result.output
    return result


def last_to_bo(lab: Lab, game: int):
    return [m for m in lab.messages()
            if "bo@b.test" in str(m["To"]) and f"[tomis #{game}]" in m["Subject"]][-1]


@pytest.fixture
def club(tmp_path):
    """Three games: one in play with a private conditional line, one decided on the board
    of play (resigned), one adjudicated; a player whose name holds markup."""
    lab = Lab(tmp_path)
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-23T11:00Z")
    lab.deliver(lab.reply(1, "B@d8"), "2026-11-23T12:00Z")
    lab.deliver(lab.reply(0, "G@b1\nif G@g8 G@c2"), "2026-11-23T13:00Z")
    second = int(_ok("referee", "new", lab.db, "--white", BO, "--black", ANA,
                     "--now", "2026-11-23T10:00Z").stdout)
    lab.deliver(reply_to(last_to_bo(lab, second), BO, "resign"), "2026-11-23T14:00Z")
    third = int(_ok("referee", "new", lab.db, "--white", f"{AMPERSAND} <eve@e.test>",
                    "--black", BO, "--now", "2026-11-23T10:00Z").stdout)
    _ok("referee", "adjudicate", lab.db, third, "1/2-1/2", "--reason", "both agreed by phone",
        "--now", "2026-11-24T10:00Z")
    lab.pages = tmp_path / "pages"
    _ok("referee", "page", lab.db, "-o", lab.pages, "--now", "2026-11-25T10:00Z")
    return lab


def test_pages_hold_the_games_and_never_an_address_token_or_line(club):
    names = sorted(path.name for path in club.pages.iterdir())
    assert names == ["finished.html", "game-1.html", "game-2.html", "game-3.html",
                     "index.html", "player-1.html", "player-2.html", "player-3.html",
                     "standings.html"]
    secret = club.query("SELECT value FROM settings WHERE key = 'secret'")[0][0]
    tokens = {m["From"].addresses[0].username.split("+")[1] for m in club.messages()}
    everything = "".join(path.read_text(encoding="utf-8") for path in club.pages.iterdir())
    assert "@a.test" not in everything and "@b.test" not in everything
    assert "@e.test" not in everything and "ref@" not in everything and "mailto" not in everything
    assert secret not in everything and not any(token in everything for token in tokens)
    assert club.query("SELECT COUNT(*) FROM lines")[0][0] == 1
    assert "G@c2" not in everything and "%if" not in everything
    assert AMPERSAND not in everything and "Eve O&#x27;Hara &amp; Co" in everything
    for name in ("index.html", "finished.html", "standings.html"):
        page = (club.pages / name).read_text(encoding="utf-8")
        assert "<script" not in page
        assert 'content="default-src \'none\'; style-src \'unsafe-inline\'"' in page
    top, playing = (club.pages / "index.html").read_text(encoding="utf-8").split(
        "<h2>In play</h2>")
    assert "1 in play, 2 finished" in top and '<a href="finished.html">' in top
    assert '<a href="game-1.html">#1</a>' in playing and "black" in playing
    # Black, to act: 30d, less the hour for B@d8, plus 3d, from 13:00 (G@b1): runs out
    # 32d 23h later. White, waiting: 30d less the hour for B@e1 and G@b1's, plus 3d twice.
    assert "3. G@b1" in playing and "<td>until 2026-12-26T12:00Z</td>" in playing
    assert "<td>35d 22h</td>" in playing and "<td>2026-11-23T13:00Z</td>" in playing
    finished = (club.pages / "finished.html").read_text(encoding="utf-8")
    assert ('<a href="game-2.html">#2</a></td><td><a href="player-2.html">Bo Marin</a></td>'
            '<td><a href="player-1.html">Ana Lungu</a></td><td>0-1</td>') in finished
    assert "<td>1/2-1/2</td><td>adjudication</td>" in finished


def test_standings_and_crosstable_are_those_of_tomis_stats(club, tmp_path):
    records = tmp_path / "club.tgn"
    records.write_text("\n".join(_ok("referee", "export", club.db, n).stdout for n in (1, 2, 3)),
                       encoding="utf-8")
    stats = json.loads(_ok("stats", records, "--json", "-q", "-j", "1").stdout)
    page = (club.pages / "standings.html").read_text(encoding="utf-8")
    standings = page.split("<h2>Standings</h2>")[1].split("<h2>Crosstable</h2>")[0]
    rows = re.findall(r"<tr><td>(\d+)</td><td>([^<]*)</td><td>(\d+)</td><td>(\d+)</td>"
                      r"<td>(\d+)</td><td>(\d+)</td><td>([^<]*)</td><td>(\d+)</td></tr>", standings)
    from html import unescape
    assert [(unescape(name), int(games), int(rating)) for _r, name, games, *_rest, rating in rows] == \
        [(p["name"], p["games"], p["rating"]) for p in stats["players"]]
    assert [p["name"] for p in stats["players"]][0] == "Ana Lungu"    # 1½ of 2


def test_pages_are_rewritten_only_when_they_change(club):
    again = _ok("referee", "page", club.db, "-o", club.pages, "--now", "2026-11-25T10:00Z")
    assert "wrote 0 page(s)" in again.stderr
    club.deliver(reply_to(last_to_bo(club, 1), BO, "G@g8"), "2026-11-25T11:00Z")
    later = _ok("referee", "page", club.db, "-o", club.pages, "--now", "2026-11-25T12:00Z")
    # game 1, the index and its two players' pages; Eve's (game 3 only) stays as it was
    assert "wrote 4 page(s)" in later.stderr
    assert "G@c2" in (club.pages / "game-1.html").read_text(encoding="utf-8")  # fired: now public


class CountedStats(Stats):
    """Stats that count how often the standings are computed."""

    made = 0

    def __init__(self):
        super().__init__()
        CountedStats.made += 1


def test_the_finished_games_part_is_drawn_again_only_when_a_game_ends(club, tmp_path,
                                                                        monkeypatch):
    monkeypatch.setattr(pages, "Stats", CountedStats)
    monkeypatch.setattr(CountedStats, "made", 0)     # counted from here, whatever ran before
    club.deliver(reply_to(last_to_bo(club, 1), BO, "G@g8"), "2026-11-25T11:00Z")
    _ok("referee", "page", club.db, "-o", club.pages, "--now", "2026-11-25T12:00Z")
    assert CountedStats.made == 0                   # an action: standings as kept
    fresh = tmp_path / "fresh"                      # the whole folder, written anew
    _ok("referee", "page", club.db, "-o", fresh, "--now", "2026-11-25T12:00Z")
    assert CountedStats.made == 0
    for name in ("index.html", "finished.html", "standings.html"):
        assert (fresh / name).read_bytes() == (club.pages / name).read_bytes()
    _ok("referee", "adjudicate", club.db, 1, "1-0", "--reason", "agreed",
        "--now", "2026-11-25T13:00Z")
    _ok("referee", "page", club.db, "-o", club.pages, "--now", "2026-11-25T14:00Z")
    assert CountedStats.made == 1                   # a game ended: drawn once, then kept
    finished = (club.pages / "finished.html").read_text(encoding="utf-8")
    assert '<a href="game-1.html">#1</a>' in finished
    assert "<p>None.</p>" in (club.pages / "index.html").read_text(encoding="utf-8")
    _ok("referee", "page", club.db, "-o", fresh, "--now", "2026-11-25T14:00Z")
    assert CountedStats.made == 1
    for name in ("index.html", "finished.html", "standings.html"):
        assert (fresh / name).read_bytes() == (club.pages / name).read_bytes()


def test_page_refuses_a_missing_store(tmp_path):
    result = run("referee", "page", tmp_path / "none.db", "-o", tmp_path / "out")
    assert result.exit_code == 1 and "no such store" in result.output
    assert not (tmp_path / "out").exists()


def test_a_new_name_for_a_seat_reaches_the_index_row_kept_for_its_game(club):
    _ok("referee", "address", club.db, 1, "white", "Ana Lungu-Pop <ana@a.test>",
        "--now", "2026-11-25T11:00Z")
    _ok("referee", "page", club.db, "-o", club.pages, "--now", "2026-11-25T12:00Z")
    index = (club.pages / "index.html").read_text(encoding="utf-8")
    assert '<td><a href="player-1.html">Ana Lungu-Pop</a></td>' in index
