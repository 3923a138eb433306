"""tomis.pictures.html without a browser: what the page holds, and that a record cannot break out of it."""

from __future__ import annotations

import json
import re

from svg_cases import sample_game
from tomis.notation import record
from tomis.pictures import html, svg


def data_of(page: str) -> dict:
    blob = re.search(r'<script type="application/json" id="tomis-data">(.*?)</script>', page, re.S).group(1)
    return json.loads(blob)


def test_boards_in_the_page_are_the_svg_bytes():
    """Each stored board, joined from the line table, is exactly what tomis.pictures.svg draws."""
    game = sample_game("resignation.tgn")
    data = data_of(html.page(game))
    for orientation in ("white", "black"):
        assert len(data["boards"][orientation]) == len(game.states)
        for number, rows in enumerate(data["boards"][orientation]):
            last = game.nodes[number - 1].report if number else None
            drawn = svg.board(game.states[number], orientation=orientation, last=last, legend=True)
            assert "\n".join(data["lines"][i] for i in rows) + "\n" == drawn


def test_lines_are_shared_between_boards():
    game = sample_game("every-action.tgn")
    data = data_of(html.page(game))
    total = sum(len(rows) for boards in data["boards"].values() for rows in boards)
    assert len(data["lines"]) < total / 5       # most lines repeat from board to board


def test_page_holds_tags_comments_glyphs_and_the_ending():
    game = sample_game("every-action.tgn")
    page = html.page(game)
    assert "<dt>Event</dt><dd>Teaching game</dd>" in page
    assert "Game over: 1-0, by resignation (R23)" in page
    assert ">Fc3&gt;f4!</a>" in page                 # 18. Fc3>f4! with its glyph
    assert '<span class="num">18.</span>' in page
    assert "A marker turns c3 into a jump gate." in page
    assert page.count('class="action"') == len(game.nodes) + 1     # every action, and the start
    assert '<span class="result">1-0</span>' in page


def test_a_hostile_record_cannot_break_out_of_the_page():
    """Comments and tags are text: no closing script tag or markup of theirs survives."""
    text = ('[Event "<script>alert(1)</script>"]\n[White "a&b"]\n\n'
            '1. B@e1 {</script><script>alert(2)</script> <b>bold</b>} B@d8 *\n')
    game = record.read_game(text)
    page = html.page(game, name='x".tgn')
    assert "<script>alert" not in page and "<b>bold</b>" not in page
    assert page.count("</script>") == 2               # the data block's and the script's own
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert 'download="x&quot;.tgn"' in page
    assert "&lt;/script&gt;&lt;script&gt;alert(2)&lt;/script&gt; &lt;b&gt;bold&lt;/b&gt;" in page
    assert data_of(page)["positions"][-1] == "3b4/8/8/8/8/8/8/4B3 - w 0448221/0448221 - manual 3 0"


def test_the_page_has_the_legend_unless_asked_not_to(tmp_path):
    from conftest import SAMPLES_DIR, invoke

    with_key, without = tmp_path / "a.html", tmp_path / "b.html"
    assert invoke("export", SAMPLES_DIR / "readme-win.tgn", "--html", "-o", with_key).exit_code == 0
    assert invoke("export", SAMPLES_DIR / "readme-win.tgn", "--html", "--no-legend", "-o", without).exit_code == 0
    assert 'class="legend"' in with_key.read_text(encoding="utf-8")
    assert 'class="legend"' not in without.read_text(encoding="utf-8")
