"""The Universal Game Interface (UGI) on two text streams: ``tomis engine`` speaks this.

UGI is UCI's dialect for any two-player game. Lines end with ``\\n``; unknown commands
are ignored; stdout carries protocol lines only. The exact dialogue is documented in
docs/ENGINE.md; in short::

    ugi                              -> id name tomis <version> / id author ... /
                                        option name ... (one line per option) / ugiok
    isready                          -> readyok
    setoption name <N> value <V>        Level (spin 1-8), Rules (combo manual/readme), Seed (spin),
                                        MultiPV (spin 1-20: lines shown per depth)
    uginewgame                          the empty board under the Rules option
    position startpos [moves A1 A2 ...]
    position fen <position string> [moves ...]
    go movetime MS | depth N | nodes N | p1time MS p2time MS [p1inc MS p2inc MS] | infinite
                                     -> info depth D score S nodes N nps R time MS pv ...
                                        (MultiPV K > 1: info depth D multipv N score S ... pv ...,
                                        N = 1..K, best first)
                                        then bestmove <action>
    stop                                answer at once;  quit  exit
    (end of input)                      a running search has END_OF_INPUT_SECONDS more, then
                                        answers as after stop; then the session ends
    query gameover | p1turn | result -> response true|false / p1win|p2win|draw|none

A bad command (an illegal or unreadable action or position, an unknown option value)
is answered with ``info string error: <message>`` and changes nothing. A number of
``go`` outside its range (:data:`GO_RANGES`), however many digits it has, is clamped
into it and said in an ``info string note: ...`` line.
The search runs in a thread so that ``stop``, ``isready`` and ``quit`` are read while
it thinks.
"""

from __future__ import annotations

import sys
import threading

from .. import __version__
from ..errors import TomisError
from ..notation.syntax import parse_action
from ..rules.position import from_string
from ..rules.core import EDITIONS, apply, new_game
from .levels import DEFAULT_LEVEL, MAX_LEVEL, MIN_LEVEL, level_limits
from .search import MAX_DEPTH, Limits, Search

AUTHOR = "the tomis authors"
MAX_SEED = 2_147_483_647
MAX_MULTI_PV = 20            # as hint --lines
# With a clock (go p1time ...): spend about 1/MOVES_TO_GO of what is left, plus most of
# the increment, never more than half of what is left.
MOVES_TO_GO = 30
INCREMENT_SHARE = 0.8
POSITION_FIELDS = 8          # a position string has eight space-separated fields
# The longest search one go may ask for: an hour, the most hint --time takes.
MAX_SEARCH_MS = 3_600_000
# A clock or an increment: about 11.6 days in milliseconds, more than any game needs.
MAX_CLOCK_MS = 1_000_000_000
MAX_NODES = 1_000_000_000
# Every number of go is clamped into its range, so no value -- negative, huge, or
# hundreds of digits long -- can fail a float conversion or ask for a search that never
# ends (docs/ENGINE.md, "UGI, exactly").
GO_RANGES = {
    "depth": (1, MAX_DEPTH),            # as hint --depth
    "nodes": (1, MAX_NODES),
    "movetime": (0, MAX_SEARCH_MS),
    "p1time": (0, MAX_CLOCK_MS), "p2time": (0, MAX_CLOCK_MS),
    "p1inc": (0, MAX_CLOCK_MS), "p2inc": (0, MAX_CLOCK_MS),
}
# Digits beyond these say nothing more: such a number is clamped without int(), whose
# cost grows with the digits (and which refuses more than 4,300 of them).
MAX_DIGITS = 18
# At the end of the input nobody can send stop any more: a running search gets this
# many seconds to reach its own limit, then answers as stop makes it (an infinite search
# answers at once). A piped bounded search of the usual size still answers in full.
END_OF_INPUT_SECONDS = 5.0


class UgiError(Exception):
    """A command we cannot follow; reported as ``info string error: ...``."""


class Session:
    """One engine conversation: the options, the current position, a running search."""

    def __init__(self, output):
        self._output = output
        self._lock = threading.Lock()
        self.level = DEFAULT_LEVEL
        self.rules = EDITIONS[0]
        self.seed = 0
        self.multi_pv = 1
        self.previous: list = []        # the last actions of the position's moves
        self.state = new_game(self.rules)
        self._search: Search | None = None
        self._thread: threading.Thread | None = None
        self._infinite = False
        self._busy = False           # a search runs and has not answered yet
        self._silenced = False
        # Set by stop, quit and the end of input; heard after each depth too, since a
        # stop that comes before the search thread has begun would otherwise be lost.
        self._stopping = threading.Event()

    # -- output --------------------------------------------------------------------
    def send(self, line: str) -> None:
        with self._lock:
            if self._silenced:
                return
            self._output.write(line + "\n")
            self._output.flush()

    def error(self, message: str) -> None:
        self.send("info string error: " + " ".join(str(message).split()))

    # -- the loop ------------------------------------------------------------------
    def handle(self, line: str) -> bool:
        """Follow one command; False after ``quit``."""
        words = line.split()
        if not words:
            return True
        command, args = words[0], words[1:]
        if command == "quit":
            self._finish_search(silent=True)
            return False
        handler = _COMMANDS.get(command)
        if handler is None:
            return True                   # unknown commands are ignored (UGI)
        try:
            handler(self, args)
        except UgiError as problem:
            self.error(str(problem))
        return True

    # -- commands ------------------------------------------------------------------
    def cmd_ugi(self, _args) -> None:
        self.send(f"id name tomis {__version__}")
        self.send(f"id author {AUTHOR}")
        self.send(f"option name Level type spin default {DEFAULT_LEVEL} min {MIN_LEVEL} max {MAX_LEVEL}")
        self.send(f"option name Rules type combo default {EDITIONS[0]} " + " ".join(f"var {e}" for e in EDITIONS))
        self.send(f"option name Seed type spin default 0 min 0 max {MAX_SEED}")
        self.send(f"option name MultiPV type spin default 1 min 1 max {MAX_MULTI_PV}")
        self.send("ugiok")

    def cmd_isready(self, _args) -> None:
        self.send("readyok")

    def cmd_setoption(self, args) -> None:
        self._refuse_while_searching()
        if not args or args[0] != "name" or "value" not in args:
            raise UgiError("expected setoption name <name> value <value>")
        split = args.index("value")
        name = " ".join(args[1:split]).lower()
        value = " ".join(args[split + 1:])
        if name == "level":
            number = _integer(value, "Level")
            if not MIN_LEVEL <= number <= MAX_LEVEL:
                raise UgiError(f"Level must be {MIN_LEVEL} to {MAX_LEVEL}, not {_clipped(value)}")
            self.level = number
        elif name == "rules":
            if value not in EDITIONS:
                raise UgiError(f"Rules must be manual or readme, not {value!r} (E1-E4)")
            self.rules = value
        elif name == "seed":
            number = _integer(value, "Seed")
            if not 0 <= number <= MAX_SEED:
                raise UgiError(f"Seed must be 0 to {MAX_SEED}, not {_clipped(value)}")
            self.seed = number
        elif name == "multipv":
            number = _integer(value, "MultiPV")
            if not 1 <= number <= MAX_MULTI_PV:
                raise UgiError(f"MultiPV must be 1 to {MAX_MULTI_PV}, not {_clipped(value)}")
            self.multi_pv = number
        else:
            raise UgiError(f"no option named {' '.join(args[1:split])!r} (Level, Rules, Seed, MultiPV)")

    def cmd_uginewgame(self, _args) -> None:
        self._refuse_while_searching()
        self.state = new_game(self.rules)
        self.previous = []

    def cmd_position(self, args) -> None:
        self._refuse_while_searching()
        if not args:
            raise UgiError("expected position startpos|fen <position string> [moves ...]")
        moves_at = args.index("moves") if "moves" in args else len(args)
        head, moves = args[:moves_at], args[moves_at + 1:]
        if head == ["startpos"]:
            state = new_game(self.rules)
        elif head[0] == "fen":
            if len(head) - 1 != POSITION_FIELDS:
                raise UgiError(f"a position string has {POSITION_FIELDS} fields, found {len(head) - 1}: {' '.join(head[1:])!r}")
            try:
                state = from_string(" ".join(head[1:]))
            except TomisError as problem:
                raise UgiError(f"position: {problem}") from None
        else:
            raise UgiError(f"expected startpos or fen after position, found {head[0]!r}")
        played = []
        for number, text in enumerate(moves, 1):
            try:
                action = parse_action(text)
                state, _report = apply(state, action)
            except TomisError as problem:
                raise UgiError(f"moves item {number} {text!r}: {problem}") from None
            played.append(action)
        self.state = state
        self.previous = played[-2:]         # the search does not undo a slide for nothing

    def cmd_go(self, args) -> None:
        self._refuse_while_searching()
        if self.state.to_move is None:
            raise UgiError(f"the game is over ({self.state.result}, {self.state.reason}); no action to search")
        limits = self._limits(args)
        self._infinite = limits.depth is None and limits.nodes is None and limits.time is None
        search = Search(self.seed)
        self._search = search
        self._stopping.clear()
        self._busy = True
        self._thread = threading.Thread(target=self._think, daemon=True,
                                        args=(search, self.state, limits, self.multi_pv, self.previous))
        self._thread.start()

    def cmd_stop(self, _args) -> None:
        self._finish_search(silent=False)

    def cmd_query(self, args) -> None:
        state = self.state
        what = args[0] if args else ""
        if what == "gameover":
            self.send(f"response {_bool(state.to_move is None)}")
        elif what == "p1turn":
            self.send(f"response {_bool(state.to_move == 0)}")
        elif what == "result":
            names = {"1-0": "p1win", "0-1": "p2win", "1/2-1/2": "draw"}
            self.send(f"response {names.get(state.result, 'none')}")
        else:
            raise UgiError(f"expected query gameover|p1turn|result, found {what!r}")

    # -- searching -----------------------------------------------------------------
    def _limits(self, args) -> Limits:
        """The limits a ``go`` asks for; the Level's when it names none."""
        values = {}
        infinite = False
        index = 0
        while index < len(args):
            word = args[index]
            if word == "infinite":
                infinite = True
                index += 1
                continue
            if word not in ("movetime", "depth", "nodes", "p1time", "p2time", "p1inc", "p2inc"):
                raise UgiError(f"go: unknown limit {word!r} (movetime, depth, nodes, p1time, p2time, p1inc, p2inc, infinite)")
            if index + 1 >= len(args):
                raise UgiError(f"go: {word} needs a number")
            values[word] = self._clamped(word, args[index + 1])
            index += 2
        noise = level_limits(self.level).noise
        if infinite:
            return Limits(noise=noise)
        seconds = None
        if "movetime" in values:
            seconds = values["movetime"] / 1000
        clock = "p1time" if self.state.to_move == 0 else "p2time"
        if clock in values:
            left = values[clock]
            increment = values.get("p1inc" if clock == "p1time" else "p2inc", 0)
            budget = min(left / MOVES_TO_GO + increment * INCREMENT_SHARE, left / 2, MAX_SEARCH_MS)
            seconds = max(budget, 1) / 1000 if seconds is None else min(seconds, budget / 1000)
        if seconds is None and "depth" not in values and "nodes" not in values:
            return level_limits(self.level)
        return Limits(depth=values.get("depth"), nodes=values.get("nodes"), time=seconds, noise=noise)

    def _clamped(self, word: str, text: str) -> int:
        """The number ``text`` of the ``go`` limit ``word``, clamped into its range; a
        note says when it was out of range."""
        low, high = GO_RANGES[word]
        number = _integer(text, word)
        if low <= number <= high:
            return number
        clamped = min(max(number, low), high)
        self.send(f"info string note: go {word} {_clipped(text)} is outside {low}-{high}; "
                  f"using {clamped}")
        return clamped

    def _think(self, search: Search, state, limits: Limits, lines: int, previous: list) -> None:
        try:
            result = search.run(state, limits, lambda depth: self._info(depth, search, lines), lines,
                                previous=previous)
            answer = f"bestmove {result.action}"
        except Exception as problem:     # never a traceback on stdout: one protocol line
            answer = f"info string error: search failed: {problem}"
        # Idle before the answer goes out: a GUI may send the next position the moment
        # it reads bestmove, while this thread has not yet returned.
        self._busy = False
        self.send(answer)

    def _info(self, result, search: Search, lines: int) -> None:
        if self._stopping.is_set():
            search.stop()
        figures = f"nodes {result.nodes} nps {result.nps} time {int(result.time * 1000)}"
        if lines == 1:
            self.send(f"info depth {result.depth} score {result.score} {figures} pv " + _words(result.pv))
            return
        for rank, line in enumerate(result.lines[:lines], 1):
            self.send(f"info depth {result.depth} multipv {rank} score {line.score} {figures} pv "
                      + _words(line.pv))

    def _refuse_while_searching(self) -> None:
        if self._busy:
            raise UgiError("still searching; send stop first")

    def _finish_search(self, silent: bool) -> None:
        thread = self._thread
        if thread is None:
            return
        if silent:
            with self._lock:
                self._silenced = True
        self._stopping.set()
        if self._search is not None:
            self._search.stop()
        thread.join()
        self._thread = None
        self._search = None

    def close(self) -> None:
        """The input ended: a running search has END_OF_INPUT_SECONDS to reach its own
        limit (an infinite one none), then answers as after ``stop``."""
        thread = self._thread
        if thread is None:
            return
        thread.join(0 if self._infinite else END_OF_INPUT_SECONDS)
        self._finish_search(silent=False)


_COMMANDS = {
    "ugi": Session.cmd_ugi,
    "isready": Session.cmd_isready,
    "setoption": Session.cmd_setoption,
    "uginewgame": Session.cmd_uginewgame,
    "position": Session.cmd_position,
    "go": Session.cmd_go,
    "stop": Session.cmd_stop,
    "query": Session.cmd_query,
}


def _integer(text: str, what: str) -> int:
    """``text`` as a whole number in ASCII digits with an optional sign. One of more than
    MAX_DIGITS digits stands as +-10**MAX_DIGITS, beyond every range here."""
    digits = text[1:] if text[:1] in "+-" else text
    if not (digits.isascii() and digits.isdigit()):
        raise UgiError(f"{what} must be a whole number, not {_clipped(text)!r}")
    sign = -1 if text.startswith("-") else 1
    digits = digits.lstrip("0")
    if len(digits) > MAX_DIGITS:
        return sign * 10 ** MAX_DIGITS
    return sign * int(digits or "0")


def _words(actions) -> str:
    return " ".join(str(a) for a in actions)


def _clipped(text: str, keep: int = 24) -> str:
    """``text`` short enough to quote in one protocol line."""
    return text if len(text) <= keep else f"{text[:keep]}... ({len(text)} characters)"


def _bool(value: bool) -> str:
    return "true" if value else "false"


def run(input_stream=None, output_stream=None) -> int:
    """Speak UGI until ``quit`` or the end of the input; the exit status (0)."""
    input_stream = input_stream if input_stream is not None else sys.stdin
    output_stream = output_stream if output_stream is not None else sys.stdout
    session = Session(output_stream)
    try:
        for line in input_stream:
            if not session.handle(line):
                break
        else:
            session.close()
    except KeyboardInterrupt:
        session._finish_search(silent=True)
    return 0
