"""Every kind of referee message's HTML part in headless Chromium whose default fonts are
proportional (DejaVu Serif), as Gmail's and Outlook's web readers show mail: the board is
an image that loaded, or a monospace block whose columns line up, and the page asks for
nothing outside the message (issue 41, finding 3).

The ``cid:`` image is resolved the way a mail reader does, from the message itself: here
rewritten to a ``data:`` URI of the image part. The control test shows that the same
measure sees the text/plain board fall apart in that browser.
"""

from __future__ import annotations

import base64
import html
import json
import os
import shutil
import tempfile

import pytest

from test_html_browser import CHROMEDRIVER, CHROMIUM, FLAGS, webdriver  # skips without them
from test_referee_shape import played
from referee_support import Lab, body_of

from tomis.referee import composing

from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

PROPORTIONAL = "DejaVu Serif"
# Each line of each <pre> that draws the board: [characters, width in pixels], measured
# on the text itself with a Range, and the block's computed font; every <img>'s state.
MEASURE = """
function lines(element) {
  var node = element.firstChild, out = [], start = 0;
  if (!node || node.nodeType !== 3) { return out; }
  node.textContent.split("\\n").forEach(function (line) {
    if (line.length) {
      var range = document.createRange();
      range.setStart(node, start);
      range.setEnd(node, start + line.length);
      out.push([line.length, range.getBoundingClientRect().width]);
    }
    start += line.length + 1;
  });
  return out;
}
var boards = Array.prototype.filter.call(document.querySelectorAll(arguments[0]),
  function (element) { return element.textContent.indexOf("+-----") >= 0; });
return {
  boards: boards.map(function (element) {
    return {font: getComputedStyle(element).fontFamily, lines: lines(element)}; }),
  images: Array.prototype.map.call(document.images, function (image) {
    return {complete: image.complete, width: image.naturalWidth, src: image.src.slice(0, 22)}; }),
  body_font: getComputedStyle(document.body).fontFamily
};
"""


@pytest.fixture(scope="module")
def browser():
    os.environ.setdefault("SE_AVOID_STATS", "true")
    profile = tempfile.mkdtemp(prefix="tomis-chromium-")
    options = webdriver.ChromeOptions()
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.binary_location = CHROMIUM
    fonts = {"standard": {"Zyyy": PROPORTIONAL}, "serif": {"Zyyy": PROPORTIONAL},
             "sansserif": {"Zyyy": PROPORTIONAL}}
    options.add_experimental_option("prefs", {"webkit": {"webprefs": {"fonts": fonts}}})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=CHROMEDRIVER),
                              options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def messages(tmp_path_factory):
    """Every message of a short game, with the board drawn as PNG and without."""
    drawn = played(Lab(tmp_path_factory.mktemp("drawn")))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(composing, "board_png", lambda state, report=None: None)
        text = played(Lab(tmp_path_factory.mktemp("text")))
    return drawn + text


def as_page(message) -> str:
    """The message's HTML part with each ``cid:`` resolved from the message's own parts."""
    page = message.get_body(("html",)).get_content()
    for part in message.walk():
        if part.get("Content-ID"):
            data = base64.b64encode(part.get_content()).decode("ascii")
            page = page.replace(f'cid:{html.escape(part["Content-ID"].strip("<>"))}',
                                f"data:{part.get_content_type()};base64,{data}")
    return page


def requests(browser) -> list[str]:
    asked = []
    for entry in browser.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            asked.append(message["params"]["request"]["url"])
    return asked


def show(browser, page_text: str, folder, name: str) -> dict:
    page = folder / name
    page.write_text(page_text, encoding="utf-8")
    browser.get("about:blank")
    browser.get_log("performance")
    browser.get(page.as_uri())
    WebDriverWait(browser, 10).until(
        lambda d: d.execute_script("return document.readyState") == "complete")
    return browser.execute_script(MEASURE, "pre")


def lined_up(lines: list[list[float]]) -> bool:
    """Every line exactly its characters times one character's width (to half a pixel):
    the columns of the board fall under each other."""
    width = max(pixels / count for count, pixels in lines)
    return all(abs(pixels - count * width) < 0.5 for count, pixels in lines)


def test_each_message_shows_its_board_as_an_image_or_lined_up_monospace(browser, messages,
                                                                        tmp_path):
    kinds = {"image": 0, "text": 0}
    for number, message in enumerate(messages):
        shown = show(browser, as_page(message), tmp_path, f"m{number}.html")
        assert PROPORTIONAL in shown["body_font"]           # the reader's default font
        assert shown["images"] or shown["boards"], f"no board in message {number}"
        for image in shown["images"]:
            assert image["complete"] and image["width"] > 0, image
            kinds["image"] += 1
        for board in shown["boards"]:
            assert "monospace" in board["font"], board["font"]
            assert len(board["lines"]) >= 12 and lined_up(board["lines"]), board
            kinds["text"] += 1
        asked = requests(browser)
        assert asked and all(url.startswith(("file://", "data:")) for url in asked), asked
        errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
        assert errors == [], errors
    assert kinds["image"] >= 8 and kinds["text"] >= 8        # both shapes were looked at


def test_control_the_text_part_in_that_browser_does_not_line_up(browser, messages, tmp_path):
    """What Gmail does with text/plain: the same text in the default font. The measure
    sees the ranks drift, so the test above would see it too."""
    text = body_of(messages[0]).replace("\r\n", "\n")
    page = (f'<!DOCTYPE html><html><body><div class="plain" style="white-space: pre">'
            f"{html.escape(text)}</div></body></html>")
    shown = show(browser, page, tmp_path, "plain.html")
    assert shown["boards"] == []
    (board,) = browser.execute_script(MEASURE, "div.plain")["boards"]
    assert "monospace" not in board["font"] and not lined_up(board["lines"])
