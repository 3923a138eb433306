"""A player's page in headless Chromium: reached from the index by the keyboard, its
rating chart drawn with one point per rated game, and no address in what it shows (the
browser helpers and the check after each test are test_html_browser's)."""

from __future__ import annotations

from test_html_browser import (  # noqa: F401 (browser and clean_browser are fixtures)
    browser, clean_browser, drain_logs, open_page,
)
from test_referee_pages_browser import tab_to
from test_referee_player_pages import season  # noqa: F401 (a fixture)

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402


def test_the_player_page_draws_one_point_per_rated_game(browser, season):
    browser.get("about:blank")
    drain_logs(browser)
    open_page(browser, season.pages / "index.html")
    tab_to(browser, "Bo Marin").send_keys(Keys.ENTER)
    bo = season.ids["Bo Marin"]
    assert browser.current_url.split("#")[0].endswith(f"/player-{bo}.html")
    assert browser.find_element(By.TAG_NAME, "h1").text == "Bo Marin"
    rated = season.query("SELECT game FROM ratings WHERE player = ? ORDER BY id", bo)
    chart = browser.find_element(By.CSS_SELECTOR, "svg.rating-chart")
    assert chart.size["width"] > 100 and chart.size["height"] > 50
    points = chart.find_elements(By.CSS_SELECTOR, "circle.point")
    assert [int(point.get_attribute("data-game")) for point in points] == \
        [game for (game,) in rated] and len(rated) == 2
    assert all(point.is_displayed() for point in points)
    # the points run left to right in the order the games were rated
    xs = [point.location["x"] for point in points]
    assert xs == sorted(xs) and xs[0] < xs[1]
    assert browser.execute_script("return document.scripts.length") == 0
    for name in season.ids:
        open_page(browser, season.pages / f"player-{season.ids[name]}.html")
        shown = browser.find_element(By.TAG_NAME, "body").text
        assert "@" not in shown and name in shown
    browser.get("about:blank")
