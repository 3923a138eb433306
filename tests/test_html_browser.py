"""The replay page (tomis.pictures.html) in a real browser: headless Chromium driven by selenium.

Uses Debian's ``chromium`` and ``chromium-driver`` (CI installs them, see .ci/run); where
either or selenium is missing the module skips with one line saying what to install.
One browser serves the whole module. After every test the browser's console must hold
no error and it must have asked for nothing but the page's own file: the page works
offline and sends no request.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import urllib.parse

import pytest

from svg_cases import SAMPLES, sample_game
from tomis.notation import record
from tomis.pictures import html
from tomis.rules.position import to_json, to_string
from tomis.pictures.words import report_words

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[test]')")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
if not (CHROMIUM and CHROMEDRIVER):
    pytest.skip("no chromium/chromedriver: apt-get install chromium chromium-driver", allow_module_level=True)

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1200,900")

# What the page's #board states, read in the page: the same shape as to_json's lists.
READ = """
function read() {
var board = document.getElementById("board");
var svg = board.querySelector("svg");
function all(selector) { return Array.prototype.slice.call(board.querySelectorAll(selector)); }
return {
  action: Number(board.getAttribute("data-action")),
  position: svg.getAttribute("data-position"),
  to_move: svg.getAttribute("data-to-move") || null,
  result: svg.getAttribute("data-result"),
  units: all("g.unit").map(function (g) {
    return {square: g.dataset.square, side: g.dataset.side, piece: g.dataset.piece}; }),
  gates: all("g.gate").map(function (g) {
    return {square: g.dataset.square, side: g.dataset.side, state: g.dataset.state,
            markers: Number(g.dataset.markers), direction: g.dataset.direction || null}; }),
  squares: all("rect.square").length
};
}
"""
READ_BOARD = READ + "return read();"

# Step through every position with the page's own key handler, reading the board each time.
WALK = READ + """
var seen = [];
document.dispatchEvent(new KeyboardEvent("keydown", {key: "Home", bubbles: true}));
for (var n = 0; n <= arguments[0]; n++) {
  seen.push(read());
  document.dispatchEvent(new KeyboardEvent("keydown", {key: "ArrowRight", bubbles: true}));
}
return seen;
"""


@pytest.fixture(scope="module")
def browser():
    os.environ.setdefault("SE_AVOID_STATS", "true")       # selenium's own telemetry: never
    profile = tempfile.mkdtemp(prefix="tomis-chromium-")
    options = webdriver.ChromeOptions()
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.binary_location = CHROMIUM
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """Every sample's replay page, written once: name -> (path, game)."""
    folder = tmp_path_factory.mktemp("pages")
    out = {}
    for path in SAMPLES:
        game = sample_game(path.name)
        page = folder / f"{path.stem}.html"
        page.write_text(html.page(game, delay=0.25, name=path.name), encoding="utf-8")
        out[path.stem] = (page, game)
    return out


def drain_logs(browser) -> tuple[list[str], list[dict]]:
    """The URLs the browser asked for and its console errors since the last call."""
    asked = []
    for entry in browser.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            asked.append(message["params"]["request"]["url"])
    errors = [entry for entry in browser.get_log("browser") if entry["level"] in ("SEVERE", "WARNING")]
    return asked, errors


def is_own_page(url: str) -> bool:
    return url.startswith("file://") and url.split("#")[0].endswith(".html")


@pytest.fixture(autouse=True)
def clean_browser(browser):
    """Before: forget old logs. After: no console error, and no request but our own files."""
    drain_logs(browser)
    yield
    asked, errors = drain_logs(browser)
    assert errors == [], errors
    assert all(is_own_page(url) for url in asked), asked
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0


def test_the_log_checks_would_see_a_request_and_an_error(browser, tmp_path):
    """Control for clean_browser: a page that loads an image from loopback is caught by
    both the request log and the console log (port 9 refuses, so the load fails)."""
    page = tmp_path / "control.html"
    page.write_text('<!DOCTYPE html><title>x</title><img src="http://127.0.0.1:9/x.png" alt="">', encoding="utf-8")
    open_page(browser, page)
    WebDriverWait(browser, 10).until(
        lambda d: d.execute_script("return performance.getEntriesByType('resource').length") > 0)
    asked, errors = drain_logs(browser)
    assert page.as_uri() in asked and "http://127.0.0.1:9/x.png" in asked
    assert errors
    browser.get("about:blank")                 # leave no resource entries for the teardown check
    drain_logs(browser)


def open_page(browser, page, hash_part=""):
    browser.get(page.as_uri() + hash_part)
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return document.readyState") == "complete")


def expected(state) -> dict:
    data = to_json(state)
    return {"units": data["units"], "gates": data["gates"], "to_move": data["to_move"],
            "result": data["result"], "position": to_string(state)}


def by_square(items):
    return sorted(items, key=lambda item: item["square"])


@pytest.mark.slow          # every action of every sample, about 7 s in Chromium
def test_every_action_of_every_sample_shows_the_json_facts(browser, pages):
    """For each action N of each sample, #board (data-action=N) states show --json --at N."""
    checked = 0
    for name, (page, game) in sorted(pages.items()):
        open_page(browser, page)
        seen = browser.execute_script(WALK, len(game.nodes))
        assert len(seen) == len(game.nodes) + 1
        for number, board in enumerate(seen):
            want = expected(game.states[number])
            assert board["action"] == number, name
            assert board["squares"] == 64
            got = {"units": by_square(board["units"]), "gates": by_square(board["gates"]),
                   "to_move": board["to_move"], "result": board["result"], "position": board["position"]}
            assert got == dict(want, units=by_square(want["units"]), gates=by_square(want["gates"])), (name, number)
            checked += 1
    assert checked > 200


def test_keyboard_steps_and_the_address_follows(browser, pages):
    page, game = pages["every-action"]
    open_page(browser, page)
    body = browser.find_element(By.TAG_NAME, "body")
    read = lambda: browser.execute_script(READ_BOARD)["action"]   # noqa: E731
    assert read() == len(game.nodes)                   # opens at the end
    body.send_keys(Keys.HOME)
    assert read() == 0
    for _ in range(3):
        body.send_keys(Keys.ARROW_RIGHT)
    body.send_keys(Keys.ARROW_LEFT)
    assert read() == 2
    assert browser.execute_script("return location.hash") == "#action=2"
    announce = browser.find_element(By.ID, "announce")
    assert announce.get_attribute("aria-live") == "polite"
    assert announce.text == report_words(game.nodes[1].report, 2)
    body.send_keys(Keys.END)
    assert read() == len(game.nodes)
    body.send_keys(Keys.ARROW_RIGHT)                   # past the end: stays
    assert read() == len(game.nodes)


def test_keyboard_only_reaches_and_uses_the_buttons_with_visible_focus(browser, pages):
    page, game = pages["every-action"]
    open_page(browser, page, "#action=10")
    body = browser.find_element(By.TAG_NAME, "body")
    reached = []
    for _ in range(12):
        body = browser.switch_to.active_element
        body.send_keys(Keys.TAB)
        focused = browser.switch_to.active_element
        reached.append(focused.get_attribute("id"))
        if focused.get_attribute("id") == "next":
            outline = browser.execute_script(
                "var s = getComputedStyle(arguments[0]); return [s.outlineStyle, s.outlineWidth];", focused)
            assert outline[0] != "none" and outline[1] != "0px"
            focused.send_keys(Keys.ENTER)
            break
    assert "next" in reached, reached
    assert browser.execute_script(READ_BOARD)["action"] == 11


def test_deep_link_opens_there_and_links_navigate(browser, pages):
    page, game = pages["manual-win"]
    open_page(browser, page, "#action=14")
    board = browser.execute_script(READ_BOARD)
    assert board["action"] == 14 and board["position"] == to_string(game.states[14])
    assert browser.find_element(By.ID, "announce").text.startswith("Action 14, Black: ")
    browser.find_element(By.CSS_SELECTOR, 'a.action[data-action="20"]').click()
    WebDriverWait(browser, 5).until(lambda d: d.execute_script(READ_BOARD)["action"] == 20)
    current = browser.find_element(By.CSS_SELECTOR, "a.action.current")
    assert current.get_attribute("data-action") == "20" and current.get_attribute("aria-current") == "step"
    browser.execute_script("location.hash = '#action=3'")
    WebDriverWait(browser, 5).until(lambda d: d.execute_script(READ_BOARD)["action"] == 3)
    open_page(browser, page, "#action=9999")           # out of range: the nearest end
    assert browser.execute_script(READ_BOARD)["action"] == len(game.nodes)


def test_last_action_and_destroyed_squares_are_highlighted(browser, pages):
    """Action 50 of every-action, Ff6-f5, destroyed White's frigate on f4 (R15)."""
    page, _game = pages["every-action"]
    open_page(browser, page, "#action=50")
    marked = browser.execute_script("""
        var b = document.getElementById('board');
        return [Array.prototype.map.call(b.querySelectorAll('rect.last'), function (r) { return r.dataset.square; }),
                Array.prototype.map.call(b.querySelectorAll('g.destroyed'), function (g) { return g.dataset.square; })];
    """)
    assert marked == [["f6", "f5"], ["f4"]]
    assert "combat destroyed White's frigate on f4" in browser.find_element(By.ID, "announce").text


def test_flip_turns_the_board_and_keeps_the_facts(browser, pages):
    page, game = pages["readme-win"]
    open_page(browser, page, "#action=30")
    corner = "return document.querySelector('#board rect.square[x=\"16\"][y=\"16\"]').dataset.square"
    assert browser.execute_script(corner) == "a8"
    before = browser.execute_script(READ_BOARD)
    browser.find_element(By.ID, "flip").click()
    assert browser.execute_script(corner) == "h1"
    after = browser.execute_script(READ_BOARD)
    assert by_square(after["units"]) == by_square(before["units"]) and after["action"] == 30
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    assert browser.execute_script(corner) == "h1"      # stays flipped while stepping


def test_autoplay_runs_and_pauses(browser, pages):
    page, _game = pages["resignation"]
    open_page(browser, page, "#action=0")
    play = browser.find_element(By.ID, "play")
    assert browser.find_element(By.ID, "speed").get_attribute("value") == "0.25"
    play.click()
    assert play.get_attribute("aria-pressed") == "true"
    WebDriverWait(browser, 10).until(lambda d: d.execute_script(READ_BOARD)["action"] >= 3)
    play.click()
    stopped = browser.execute_script(READ_BOARD)["action"]
    assert play.get_attribute("aria-pressed") == "false"
    assert browser.execute_script(
        "return new Promise(function (done) { setTimeout(function () {"
        " done(Number(document.getElementById('board').dataset.action)); }, 700); });") == stopped


def test_copy_and_download(browser, pages):
    page, game = pages["pbem-in-progress"]
    open_page(browser, page, "#action=7")
    assert browser.find_element(By.ID, "position").text == to_string(game.states[7])
    browser.find_element(By.ID, "copy").click()
    WebDriverWait(browser, 5).until(lambda d: d.find_element(By.ID, "status").text != "")
    assert "Position string" in browser.find_element(By.ID, "status").text
    link = browser.find_element(By.ID, "download")
    assert link.get_attribute("download") == "pbem-in-progress.tgn"
    href = link.get_attribute("href")
    assert urllib.parse.unquote(href.split(",", 1)[1]) == record.write(game)


def test_print_stylesheet_hides_the_controls(browser, pages):
    page, _game = pages["every-action"]
    open_page(browser, page)
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        shown = browser.execute_script(
            "return ['.controls', '#announce', '#board', '.moves'].map(function (s) {"
            " return getComputedStyle(document.querySelector(s)).display; });")
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    assert shown[:2] == ["none", "none"] and "none" not in shown[2:]


def test_the_page_carries_no_reference_outside_itself(pages):
    """No src=, no href to anything but the page's own anchors and the data: record."""
    for page, _game in pages.values():
        # the SVG namespace is a name, not an address: drop it, as written and inside the JSON
        text = re.sub(r'xmlns=\\?"http://www\.w3\.org/2000/svg\\?"', "", page.read_text(encoding="utf-8"))
        assert " src=" not in text
        assert "http://" not in text
        assert "https://" not in text and "@import" not in text and "url(" not in text


def test_a_hostile_record_stays_text_in_the_browser(browser, tmp_path):
    """A comment holding a script is shown as text; nothing runs (no alert, no error)."""
    from selenium.common.exceptions import NoAlertPresentException

    text = '[Event "<img src=x onerror=alert(1)>"]\n\n1. B@e1 {</script><script>alert(2)</script>} *\n'
    page = tmp_path / "hostile.html"
    page.write_text(html.page(record.read_game(text)), encoding="utf-8")
    open_page(browser, page)
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert.text
    comment = browser.find_element(By.CSS_SELECTOR, "p.comment").text
    assert comment == "</script><script>alert(2)</script>"
    assert browser.find_element(By.CSS_SELECTOR, "h1").text == "<img src=x onerror=alert(1)>"
    assert browser.execute_script(READ_BOARD)["action"] == 1
