"""The replay page: one self-contained HTML file that replays a game, offline.

Everything the page needs is inside it: the boards are the bytes :func:`tomis.svg.board`
draws (every position, both orientations), the record for the download button, the
script and the styles. It loads nothing: no script, font, image or style from anywhere,
so it works from ``file://`` and sends no request.

The boards are stored compactly: each SVG is one element per line, and most lines (the
64 squares, every unit that did not move) repeat from board to board, so the page keeps
each distinct line once and every board as a list of line numbers.

For tests and tools the board element is ``#board`` with ``data-action="N"``, holding
the SVG with its ``data-*`` facts (see :mod:`tomis.svg`). ``N``, like the page's
``#action=N`` links, is the number every command uses: counted over the whole game, so
the start of a game from a position (its Position tag) is the position's action number
less one, not 0.
"""

from __future__ import annotations

import json
from html import escape
from urllib.parse import quote

from . import svg
from ..notation.record import write
from ..rules.board import SIDE_TITLES
from ..rules.position import to_string
from ..notation.tags import TERMINATION_TAG
from .render import turn_words
from .words import position_words, report_words

ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result", "Rules")
SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0)        # seconds per action offered by the speed control


class _Lines:
    """Distinct lines, each numbered once, so repeated lines cost one index."""

    def __init__(self):
        self.table: list[str] = []
        self._index: dict[str, int] = {}

    def indexes(self, text: str) -> list[int]:
        out = []
        for line in text.rstrip("\n").split("\n"):
            number = self._index.get(line)
            if number is None:
                number = self._index[line] = len(self.table)
                self.table.append(line)
            out.append(number)
        return out


def _boards(game, legend: bool = True) -> tuple[list[str], dict[str, list[list[int]]], str]:
    """The line table, each position's board as line numbers per orientation, and the
    SVG shown before the script runs (the final position, White at the bottom)."""
    lines = _Lines()
    boards: dict[str, list[list[int]]] = {"white": [], "black": []}
    final_svg = ""
    count = len(game.nodes)
    for number, state in enumerate(game.states):
        last = game.nodes[number - 1].report if number else None
        for orientation in ("white", "black"):
            text = svg.board(state, orientation=orientation, last=last, legend=legend)
            boards[orientation].append(lines.indexes(text))
            if number == count and orientation == "white":
                final_svg = text
    return lines.table, boards, final_svg


def _action_label(game, index: int) -> str:
    """``Fc3>d4!``: the action as recorded, with its glyph."""
    node = game.nodes[index]
    return f"{node.action}{node.glyphs}"


def _announcements(game) -> list[str]:
    """What the live region says at each position: the action in words, or the start."""
    start = game.states[0]
    said = [f"Start, before action {start.ply + 1}. " + position_words(start)]
    for index, node in enumerate(game.nodes, 1):
        said.append(report_words(node.report, game.states[index].ply))
    return said


def _movetext(game) -> str:
    """The action list: move numbers, actions as links to ``#action=N``, glyphs, comments."""
    first = game.start.ply          # the number of the start (0 but for a Position tag)
    parts = [f'<a class="action" href="#action={first}" data-action="{first}">Start</a>']
    parts += [f'<p class="comment">{escape(text)}</p>' for text in game.comments]
    numbered = True
    for index, node in enumerate(game.nodes, 1):
        number = game.states[index].ply                 # the action's number in the whole game
        move = (number + 1) // 2
        side = SIDE_TITLES[node.report.side]
        if number % 2:
            label = f'<span class="num">{move}.</span> '
        elif numbered:
            label = f'<span class="num">{move}...</span> '
        else:
            label = ""
        nags = "".join(f' <span class="nag">${nag}</span>' for nag in node.nags)
        # one unbreakable unit, so a line never ends between a move number and its action
        parts.append(
            f'<span class="ply">{label}<a class="action" href="#action={number}" data-action="{number}" '
            f'aria-label="action {number}, {side}: {escape(str(node.action))}{escape(node.glyphs)}">'
            f'{escape(_action_label(game, index - 1))}</a>{nags}</span>')
        parts += [f'<p class="comment">{escape(text)}</p>' for text in node.comments]
        parts += [_variation_html(side_line) for side_line in node.variations]
        numbered = bool(node.comments or node.variations)
    parts.append(f'<span class="result">{escape(game.result)}</span>')
    return "\n".join(parts)


def _variation_html(side_line) -> str:
    """A side line as text in brackets, its comments and nested lines inline: the board
    steps through the main line only, so a variation is read, not clicked."""
    words = [escape(text) for text in side_line.comments]
    number = side_line.start.ply
    numbered = True
    for node in side_line.nodes:
        number += 1
        move = (number + 1) // 2
        label = f"{move}. " if number % 2 else (f"{move}... " if numbered else "")
        nags = "".join(f" ${nag}" for nag in node.nags)
        words.append(f'<span class="num">{escape(label)}</span>{escape(str(node.action))}'
                     f'{escape(node.glyphs)}{nags}')
        words += [f'<span class="vcomment">{{{escape(text)}}}</span>' for text in node.comments]
        words += [_variation_html(deeper) for deeper in node.variations]
        numbered = bool(node.comments or node.variations)
    return f'<span class="variation">({" ".join(words)})</span>'


def _tags(game) -> str:
    names = [n for n in ROSTER if n in game.tags] + sorted(n for n in game.tags if n not in ROSTER)
    rows = [f"<div><dt>{escape(n)}</dt><dd>{escape(game.tags[n])}</dd></div>" for n in names]
    return '<dl class="tags">' + "".join(rows) + "</dl>"


def _heading(game) -> str:
    tags = game.tags
    known = [tags[t] for t in ("White", "Black") if tags.get(t) not in (None, "", "?")]
    parts = [" vs ".join(known)] if known else []
    if tags.get("Event") not in (None, "", "?"):
        parts.append(tags["Event"])
    return ", ".join(parts) or "A game of Tomis"


def _ending(game) -> str:
    final = game.final
    if final.to_move is None or game.result != "*":
        return turn_words(final, game.result, game.tags.get(TERMINATION_TAG, ""))
    return f"Not finished: {turn_words(final, game.result)}"


def page(game, *, delay: float = 1.0, name: str = "game.tgn", legend: bool = True) -> str:
    """The replay page of ``game``; ``delay`` seconds per action when playing; ``name`` is
    the file name the download button offers; ``legend``: a key to the pieces' shapes
    under the board (:func:`tomis.svg.board`)."""
    table, boards, final_svg = _boards(game, legend)
    data = {
        "lines": table,
        "boards": boards,
        "positions": [to_string(state) for state in game.states],
        "said": _announcements(game),
        "delay": delay,
        "first": game.start.ply,
    }
    # "<" escaped inside the script element, so no text of the record can close it
    blob = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    record_href = "data:text/plain;charset=utf-8," + quote(write(game))
    speeds = sorted(set(SPEEDS) | {delay})
    options = "".join(
        f'<option value="{s:g}"{" selected" if s == delay else ""}>{s:g} s</option>' for s in speeds)
    final = game.final.ply
    return _TEMPLATE.format(
        title=escape(_heading(game)), heading=escape(_heading(game)), tags=_tags(game),
        ending=escape(_ending(game)), board=final_svg, final=final, movetext=_movetext(game),
        position=escape(data["positions"][-1]), said=escape(data["said"][-1]),
        speeds=options, download=escape(record_href, quote=True), name=escape(name, quote=True),
        style=_STYLE, script=_SCRIPT, data=blob,
    )


_STYLE = """
:root { color-scheme: light; --ink: #1b1b1b; --paper: #fbfaf7; --accent: #0b5cad; }
* { box-sizing: border-box; }
body { margin: 0; padding: 1rem; font: 16px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
       color: var(--ink); background: var(--paper); }
h1 { font-size: 1.35rem; margin: 0 0 .4rem; }
.tags { display: flex; flex-wrap: wrap; gap: .2rem 1.2rem; margin: 0 0 .4rem; font-size: .9rem; }
.tags div { display: flex; gap: .35rem; } .tags dt { font-weight: 600; } .tags dd { margin: 0; }
.ending { font-weight: 600; margin: 0 0 .8rem; }
main { display: flex; flex-wrap: wrap; gap: 1.2rem; align-items: flex-start; }
.viewer { flex: 0 1 30rem; min-width: 16rem; }
#board svg { display: block; width: 100%; height: auto; }
.controls { display: flex; flex-wrap: wrap; gap: .4rem; margin: .6rem 0; align-items: center; }
button, .button, select { font: inherit; padding: .35rem .7rem; border: 2px solid #555; border-radius: .35rem;
       background: #fff; color: var(--ink); text-decoration: none; cursor: pointer; }
button:hover, .button:hover { background: #eef3fa; }
button[aria-pressed="true"] { background: #dbe8f7; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
a.action:focus-visible { outline-offset: 1px; }
#announce { min-height: 3em; margin: .4rem 0; padding: .4rem .6rem; background: #eef1f5; border-radius: .35rem; }
.position { font: .85rem/1.3 ui-monospace, "DejaVu Sans Mono", monospace; word-break: break-all; }
.moves { flex: 1 1 18rem; max-height: 80vh; overflow-y: auto; padding: .2rem .4rem; line-height: 1.9; }
.ply { white-space: nowrap; margin-right: .25rem; }
.num { color: #555; }
a.action { color: var(--ink); text-decoration: none; padding: .05rem .25rem; border-radius: .25rem; }
a.action:hover { background: #eef3fa; }
a.action.current { background: var(--accent); color: #fff; }
.nag { color: #555; font-size: .85em; }
.result { font-weight: 700; margin-left: .3rem; }
.variation { display: block; margin: .1rem 0 .3rem 1rem; color: #4a4a4a; }
.variation .variation { display: inline; margin: 0; }
.vcomment { color: #35506b; font-style: italic; }
.comment { margin: .15rem 0 .3rem; color: #35506b; font-style: italic; line-height: 1.4; }
#status { margin-left: .3rem; font-size: .9rem; }
@media print {
  body { background: #fff; color: #000; padding: 0; }
  .controls, #announce, #status, .noprint { display: none !important; }
  main { display: block; }
  .viewer { width: 12cm; break-inside: avoid; }
  .moves { max-height: none; overflow: visible; }
  a.action { color: #000; } a.action.current { background: none; color: #000; font-weight: 700;
    text-decoration: underline; }
}
"""

_SCRIPT = r"""
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("tomis-data").textContent);
  var last = data.positions.length - 1;
  var board = document.getElementById("board");
  var announce = document.getElementById("announce");
  var positionText = document.getElementById("position");
  var status = document.getElementById("status");
  var playButton = document.getElementById("play");
  var speed = document.getElementById("speed");
  var flipButton = document.getElementById("flip");
  var moves = document.querySelector("nav.moves");
  var links = Array.prototype.slice.call(document.querySelectorAll("a.action"));
  var current = -1, flipped = false, timer = null;

  function draw() {
    var rows = data.boards[flipped ? "black" : "white"][current];
    board.innerHTML = rows.map(function (i) { return data.lines[i]; }).join("\n");
  }

  function go(n, speak) {
    n = Math.max(0, Math.min(last, n));
    var changed = n !== current;
    current = n;
    draw();
    board.setAttribute("data-action", String(data.first + n));
    positionText.textContent = data.positions[n];
    links.forEach(function (link) {
      var here = Number(link.getAttribute("data-action")) === data.first + n;
      link.classList.toggle("current", here);
      if (here) { link.setAttribute("aria-current", "step"); } else { link.removeAttribute("aria-current"); }
      if (here && changed) { reveal(link); }
    });
    if (speak !== false) { announce.textContent = data.said[n]; }
    var hash = "#action=" + (data.first + n);
    if (location.hash !== hash) { history.replaceState(null, "", hash); }
    if (n === last) { stop(); }
  }

  // Scroll only the action list, never the page: the board must stay where the reader put it.
  function reveal(link) {
    var box = moves.getBoundingClientRect(), spot = link.getBoundingClientRect();
    if (spot.top < box.top) { moves.scrollTop -= box.top - spot.top + 8; }
    else if (spot.bottom > box.bottom) { moves.scrollTop += spot.bottom - box.bottom + 8; }
  }

  function fromHash() {
    var match = /^#action=(\d+)$/.exec(location.hash);
    return match ? Number(match[1]) - data.first : null;
  }

  function stop() {
    if (timer !== null) { clearInterval(timer); timer = null; }
    playButton.setAttribute("aria-pressed", "false");
    playButton.textContent = "Play";
  }

  function play() {
    if (current === last) { go(0); }
    playButton.setAttribute("aria-pressed", "true");
    playButton.textContent = "Pause";
    timer = setInterval(function () { go(current + 1); }, Number(speed.value) * 1000);
  }

  function say(text) { status.textContent = text; }

  function copyPosition() {
    var text = data.positions[current];
    function fallback() {
      var range = document.createRange();
      range.selectNodeContents(positionText);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      say(ok ? "Position string copied." : "Position string selected: press Ctrl+C to copy.");
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { say("Position string copied."); }, fallback);
    } else {
      fallback();
    }
  }

  var keys = {
    ArrowLeft: function () { go(current - 1); }, ArrowRight: function () { go(current + 1); },
    Home: function () { go(0); }, End: function () { go(last); }
  };
  document.addEventListener("keydown", function (event) {
    var tag = event.target && event.target.tagName;
    if (tag === "SELECT" || tag === "INPUT" || tag === "TEXTAREA") { return; }
    if (event.altKey || event.ctrlKey || event.metaKey) { return; }
    var act = keys[event.key];
    if (act) { event.preventDefault(); stop(); act(); }
  });
  window.addEventListener("hashchange", function () {
    var n = fromHash();
    if (n !== null) { go(n); }
  });
  document.getElementById("first").addEventListener("click", function () { stop(); go(0); });
  document.getElementById("prev").addEventListener("click", function () { stop(); go(current - 1); });
  document.getElementById("next").addEventListener("click", function () { stop(); go(current + 1); });
  document.getElementById("end").addEventListener("click", function () { stop(); go(last); });
  flipButton.addEventListener("click", function () {
    flipped = !flipped;
    flipButton.setAttribute("aria-pressed", String(flipped));
    draw();
    say(flipped ? "Black at the bottom." : "White at the bottom.");
  });
  playButton.addEventListener("click", function () { if (timer === null) { play(); } else { stop(); } });
  speed.addEventListener("change", function () { if (timer !== null) { stop(); play(); } });
  document.getElementById("copy").addEventListener("click", copyPosition);

  var start = fromHash();
  go(start === null ? last : start, start !== null);
})();
"""

_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>{title} (Tomis replay)</title>
<style>{style}</style>
</head>
<body>
<header>
<h1>{heading}</h1>
{tags}
<p class="ending">{ending}</p>
</header>
<main>
<section class="viewer" aria-label="Board">
<div id="board" data-action="{final}">{board}</div>
<div class="controls" role="group" aria-label="Replay controls">
<button type="button" id="first" aria-label="First position (Home)" title="First position (Home)">|&#x25C0;</button>
<button type="button" id="prev" aria-label="Previous action (Left arrow)" title="Previous action (Left arrow)">&#x25C0;</button>
<button type="button" id="next" aria-label="Next action (Right arrow)" title="Next action (Right arrow)">&#x25B6;</button>
<button type="button" id="end" aria-label="Last action (End)" title="Last action (End)">&#x25B6;|</button>
<button type="button" id="play" aria-pressed="false">Play</button>
<label>Speed <select id="speed" aria-label="Seconds per action">{speeds}</select></label>
<button type="button" id="flip" aria-pressed="false">Flip board</button>
</div>
<p id="announce" aria-live="polite">{said}</p>
<div class="controls">
<button type="button" id="copy">Copy position string</button>
<a class="button" id="download" href="{download}" download="{name}">Download record</a>
<span id="status" role="status"></span>
</div>
<p class="position">Position: <output id="position">{position}</output></p>
</section>
<nav class="moves" aria-label="Actions">
{movetext}
</nav>
</main>
<script type="application/json" id="tomis-data">{data}</script>
<script>{script}</script>
</body>
</html>
"""
