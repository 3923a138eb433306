"""The referee's status pages in headless Chromium: reached and used with the keyboard
alone, and asking for nothing but their own files (the browser helpers and the check
after each test are test_html_browser's)."""

from __future__ import annotations

import pytest

from test_html_browser import (  # noqa: F401 (browser and clean_browser are fixtures)
    READ_BOARD, browser, clean_browser, drain_logs, open_page,
)
from test_referee_pages import club  # noqa: F401 (a fixture)

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402


def tab_to(browser, text: str, limit: int = 40):
    """Press Tab until the focused element's text is ``text``; the element."""
    for _ in range(limit):
        browser.switch_to.active_element.send_keys(Keys.TAB)
        focused = browser.switch_to.active_element
        if focused.text == text:
            return focused
    raise AssertionError(f"Tab never reached {text!r}")


def test_the_index_leads_to_each_game_by_keyboard_alone(browser, club):
    # A fresh browser opens on its own new-tab page, whose chrome:// requests are not ours.
    browser.get("about:blank")
    drain_logs(browser)
    index = club.pages / "index.html"
    open_page(browser, index)
    assert browser.find_element(By.TAG_NAME, "h1").text == "Games of the referee"
    link = tab_to(browser, "#1")
    outline = browser.execute_script(
        "var s = getComputedStyle(arguments[0]); return [s.outlineStyle, s.outlineWidth];", link)
    assert outline[0] != "none" and outline[1] != "0px"
    link.send_keys(Keys.ENTER)
    assert browser.current_url.split("#")[0].endswith("/game-1.html")
    body = browser.find_element(By.TAG_NAME, "body")
    assert browser.execute_script(READ_BOARD)["action"] == 3      # opens at the last action
    body.send_keys(Keys.HOME)
    body.send_keys(Keys.ARROW_RIGHT)
    assert browser.execute_script(READ_BOARD)["action"] == 1
    open_page(browser, index)               # finished games are a page of their own
    tab_to(browser, "the finished games").send_keys(Keys.ENTER)
    assert browser.current_url.split("#")[0].endswith("/finished.html")
    tab_to(browser, "#3").send_keys(Keys.ENTER)
    assert browser.current_url.split("#")[0].endswith("/game-3.html")
    assert "1/2-1/2" in browser.find_element(By.CSS_SELECTOR, "p.ending").text
    # nothing in any page names an address: the whole text the browser shows, too
    for name in ("index.html", "finished.html", "standings.html", "game-1.html", "game-2.html",
                 "game-3.html"):
        open_page(browser, club.pages / name)
        shown = browser.find_element(By.TAG_NAME, "body").text
        assert "@a.test" not in shown and "@b.test" not in shown and "@e.test" not in shown
    browser.get("about:blank")


@pytest.mark.parametrize("name", ["index.html", "finished.html", "standings.html"])
def test_the_lists_run_no_script(browser, club, name):
    open_page(browser, club.pages / name)
    assert browser.execute_script("return document.scripts.length") == 0
    with pytest.raises(Exception):
        browser.switch_to.alert.text
