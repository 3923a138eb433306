"""The UGI protocol of ``python -m tomis.engine`` / ``tomis engine``, line by line (issue 12).

One test talks to the engine as a real subprocess through every command of the
protocol, bad input included; the others drive :class:`tomis.engine.ugi.Session` in
process. Every line the engine writes must be a protocol line.
"""

from __future__ import annotations

import io
import queue
import re
import subprocess
import sys
import threading

import pytest

from tomis import __version__
from tomis.engine.ugi import Session, run
from tomis.notation import parse_action
from tomis.rules.position import from_string, to_string
from tomis.rules import apply, legal_actions, new_game

WAIT = 60.0       # seconds before a missing answer fails the test (never a timing assertion)
OPENING = "B@e1 B@d8 G@b1 G@g8 G@f2 G@a7 G@c3 G@e6 G@h4 G@d5"
# Every line the engine may write (stdout carries protocol lines only).
PROTOCOL_LINE = re.compile(
    r"^(id name tomis \S+|id author .+|option name \w+ type (spin|combo) .+|ugiok|readyok"
    r"|info depth \d+( multipv \d+)? score -?\d+ nodes \d+ nps \d+ time \d+ pv( \S+)+"
    r"|info string (error|note): .+|bestmove \S+|response (true|false|p1win|p2win|draw|none))$")


class Engine:
    """The engine as a subprocess: send lines, read its answers with a time limit."""

    def __init__(self):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tomis.engine"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, bufsize=1)
        self.lines: queue.Queue = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, line: str) -> None:
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def until(self, prefix: str) -> list[str]:
        """Every line up to and including the first that starts with ``prefix``."""
        got = []
        while True:
            line = self.lines.get(timeout=WAIT)
            assert line is not None, f"the engine exited before {prefix!r}; saw {got}"
            self.seen.append(line)
            got.append(line)
            if line.startswith(prefix):
                return got

    def ask(self, line: str, prefix: str) -> list[str]:
        self.send(line)
        return self.until(prefix)

    def one(self, line: str) -> str:
        """Send a command answered by exactly one line; return it."""
        return self.ask(line + "\nisready", "readyok")[:-1][0]


def test_a_whole_session_over_pipes():
    engine = Engine()
    try:
        hello = engine.ask("ugi", "ugiok")
        assert hello[0] == f"id name tomis {__version__}"
        assert hello[1].startswith("id author ")
        assert "option name Level type spin default 6 min 1 max 8" in hello
        assert "option name Rules type combo default manual var manual var readme" in hello
        assert any(line.startswith("option name Seed type spin default 0 min 0 max ") for line in hello)
        assert engine.ask("isready", "readyok") == ["readyok"]
        engine.send("this is not a command")                         # ignored, no answer
        engine.send("")
        assert engine.ask("isready", "readyok") == ["readyok"]

        # setoption: good values answer nothing; bad ones one error line each.
        engine.send("setoption name Level value 2")
        engine.send("setoption name Seed value 7")
        engine.send("setoption name Rules value manual")
        assert engine.ask("isready", "readyok") == ["readyok"]
        assert engine.one("setoption name Level value 9") == "info string error: Level must be 1 to 8, not 9"
        assert engine.one("setoption name Level value x").startswith("info string error: Level must be a whole number")
        assert engine.one("setoption name Rules value house").startswith("info string error: Rules must be manual or readme")
        assert engine.one("setoption name Colour value red").startswith("info string error: no option named 'Colour'")
        assert engine.one("setoption Level 3").startswith("info string error: expected setoption name")

        # position + query
        engine.send("uginewgame")
        engine.send("position startpos")
        assert engine.one("query gameover") == "response false"
        assert engine.one("query p1turn") == "response true"
        assert engine.one("query result") == "response none"
        engine.send(f"position startpos moves {OPENING} F@a1")
        assert engine.one("query p1turn") == "response false"
        # An illegal action (R6: a gate next to the base) leaves the position as it was.
        error = engine.one("position startpos moves B@e1 B@d8 G@d1")
        assert error.startswith("info string error: moves item 3 'G@d1'") and "(R6)" in error
        assert engine.one("query p1turn") == "response false"       # still after F@a1
        error = engine.one("position startpos moves B@e1 Zz9")
        assert error.startswith("info string error: moves item 2 'Zz9'")
        assert engine.one("position fen 8/8/8 w").startswith("info string error: a position string has 8 fields")
        error = engine.one("position fen 9/8/8/8/8/8/8/8 - w 1448221/1448221 - manual 1 0")
        assert error.startswith("info string error: position:")
        assert engine.one("position sideways").startswith("info string error: expected startpos or fen")
        assert engine.one("query colour").startswith("info string error: expected query gameover|p1turn|result")

        # go depth / nodes / movetime / clocks: info lines, then a legal bestmove.
        state = _state_after(OPENING + " F@a1")
        for go in ("go depth 2", "go nodes 300", "go movetime 200", "go p1time 5000 p2time 4000",
                   "go p1time 5000 p2time 4000 p1inc 100 p2inc 100"):
            lines = engine.ask(go, "bestmove")
            infos = [line for line in lines if line.startswith("info depth ")]
            assert infos, f"{go} gave no info line: {lines}"
            assert parse_action(lines[-1].split()[1]) in legal_actions(state), go
        # Out of range is clamped, said in a note, and searched (finding 8 of issue 23).
        lines = engine.ask("go depth 0", "bestmove")
        assert lines[0] == "info string note: go depth 0 is outside 1-64; using 1"
        assert engine.one("go nodes many").startswith("info string error: nodes must be a whole number")
        assert engine.one("go sideways 3").startswith("info string error: go: unknown limit 'sideways'")

        # go infinite runs until stop; isready is answered meanwhile; stop answers at once.
        engine.send("go infinite")
        assert engine.ask("isready", "readyok")[-1] == "readyok"
        # The search keeps writing its info lines meanwhile: look past them.
        answers = [line for line in engine.ask("position startpos\nisready", "readyok")[:-1]
                   if not line.startswith("info depth ")]
        assert answers == ["info string error: still searching; send stop first"]
        lines = engine.ask("stop", "bestmove")
        assert parse_action(lines[-1].split()[1]) in legal_actions(state)

        # A decided game: query says so, go refuses.
        fen = "4b3/8/8/8/8/8/8/4B3 - 1-0 0048221/0048221 - manual 40 0"
        engine.send(f"position fen {fen}")
        assert engine.one("query gameover") == "response true"
        assert engine.one("query p1turn") == "response false"
        assert engine.one("query result") == "response p1win"
        assert engine.one("go depth 1").startswith("info string error: the game is over (1-0")

        engine.send("quit")
        assert engine.process.wait(timeout=WAIT) == 0
    finally:
        if engine.process.poll() is None:
            engine.process.kill()
        engine.process.wait()
    assert engine.process.stderr.read() == ""
    for line in engine.seen:
        assert PROTOCOL_LINE.match(line), f"not a protocol line: {line!r}"


def _state_after(moves: str):
    state = new_game()
    for text in moves.split():
        state, _report = apply(state, parse_action(text))
    return state


def _session_output(commands: list[str]) -> list[str]:
    """Run ``commands`` through :func:`run` (end of input waits for a bounded search)."""
    out = io.StringIO()
    run(io.StringIO("".join(line + "\n" for line in commands)), out)
    return out.getvalue().splitlines()


def test_readme_rules_and_fen_position_are_searched():
    fen = "4b3/8/8/8/8/8/FFF5/4B3 - b 0045221/0048221 - readme 12 0"
    lines = _session_output(["setoption name Rules value readme", f"position fen {fen}", "go depth 2"])
    best = parse_action(lines[-1].split()[1])
    assert best in legal_actions(from_string(fen))


def test_startpos_follows_the_rules_option():
    out = io.StringIO()
    session = Session(out)
    session.handle("setoption name Rules value readme")
    session.handle("position startpos")
    assert session.state.edition_name == "readme"
    session.handle("setoption name Rules value manual")
    session.handle("uginewgame")
    assert session.state.edition_name == "manual"
    assert to_string(session.state) == to_string(new_game("manual"))


def test_same_seed_same_bestmove():
    commands = ["setoption name Seed value 11", "setoption name Level value 3",
                f"position startpos moves {OPENING}", "go"]
    assert _session_output(commands)[-1] == _session_output(commands)[-1]


def test_quit_while_searching_exits_without_a_bestmove():
    out = io.StringIO()
    session = Session(out)
    session.handle("position startpos moves " + OPENING)
    session.handle("go infinite")
    assert session.handle("quit") is False
    assert not any(line.startswith("bestmove") for line in out.getvalue().splitlines())


@pytest.mark.parametrize("line", ["go depth", "go movetime x", "setoption name Seed value -1"])
def test_bad_numbers_are_one_error_line(line):
    out = io.StringIO()
    before = to_string(Session(io.StringIO()).state)
    session = Session(out)
    session.handle(line)
    assert out.getvalue().count("\n") == 1 and out.getvalue().startswith("info string error: ")
    assert to_string(session.state) == before
