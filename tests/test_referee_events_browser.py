"""An event's page in headless Chromium (issue 43): the standings and the crosstable a
reader sees agree with ``tomis stats`` over the event's records, exported one by one.

A round robin's bye scores nothing, so the event's scores are the records' scores."""

from __future__ import annotations

import json

from test_html_browser import browser, clean_browser, drain_logs, open_page  # noqa: F401
from test_referee_events import ok, played_event  # noqa: F401 (a fixture)

from selenium.webdriver.common.by import By  # noqa: E402

def score_of(text: str) -> float:
    """A score as the page writes it: ``2``, ``1½``, ``½``, ``0``."""
    whole = text.rstrip("½")
    return (float(whole) if whole else 0.0) + (0.5 if text.endswith("½") else 0.0)


def table_rows(browser, css: str) -> list[list[str]]:
    rows = browser.find_elements(By.CSS_SELECTOR, f"{css} tbody tr")
    return [[cell.text for cell in row.find_elements(By.TAG_NAME, "td")] for row in rows]


def test_the_event_page_agrees_with_tomis_stats_over_the_records(browser, played_event):
    club = played_event
    stats = json.loads(ok("stats", club.records, "--json", "-q", "-j", "1").stdout)
    # A fresh browser opens on its own new-tab page, whose chrome:// requests are not ours.
    browser.get("about:blank")
    drain_logs(browser)
    open_page(browser, club.pages / "event-1.html")
    standings = table_rows(browser, "table.standings")
    assert len(standings) == 5
    shown = {name: (int(games), score_of(score)) for _rank, name, games, score, _sb, _bh
             in standings}
    counted = {player["name"]: (player["games"], player["score"]) for player in stats["players"]}
    assert counted and {name: shown[name] for name in counted} == counted
    assert all(shown[name] == (0, 0.0) for name in set(shown) - set(counted))
    # the crosstable by rank: a cell per opponent, · where no game between them is decided
    order = [name for _rank, name, *_rest in standings]
    cross = table_rows(browser, "table.crosstable")
    assert [row[1] for row in cross] == order
    for row in cross:
        me = row[1]
        for other, cell in zip(order, row[2:]):
            met = stats["crosstable"].get(me, {}).get(other)
            assert (cell == "·") == (met is None), (me, other, cell)
            if met is not None:
                assert score_of(cell) == met["score"], (me, other, cell)
    # the ranking is by score first, as the event ranks it
    scores = [score_of(score) for _rank, _name, _games, score, _sb, _bh in standings]
    assert scores == sorted(scores, reverse=True)
