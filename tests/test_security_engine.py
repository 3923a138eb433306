"""Issue 23, finding 8: numbers of ``go`` and the end of the input cannot break
``tomis engine``.

Every test runs a real ``python -m tomis engine`` process (one drives the session in
process to try a short grace); each waits with a timeout, so a regression fails the test
instead of hanging the suite.
"""

from __future__ import annotations

import io
import subprocess
import sys
import threading

import pytest

from tomis.engine import ugi
from tomis.engine.ugi import Session
from tomis.notation import parse_action
from tomis.rules import legal_actions, new_game

WAIT = 120.0        # seconds before a missing answer fails the test (never a timing assertion)
HUGE = "9" * 400
HUGER = "9" * 5000  # past int()'s 4,300-digit limit
# The documented ranges (docs/ENGINE.md, "UGI, exactly"), spelled out: they are the contract.
MAX_SEARCH_MS = 3_600_000
MAX_CLOCK_MS = 1_000_000_000
MAX_NODES = 1_000_000_000


def engine(commands: list[str]) -> subprocess.CompletedProcess:
    """``tomis engine`` fed ``commands`` then the end of its input."""
    return subprocess.run(
        [sys.executable, "-m", "tomis", "engine"], input="".join(c + "\n" for c in commands),
        capture_output=True, text=True, timeout=WAIT)


def answers(stdout: str) -> list[str]:
    """The lines that are not a finished depth's progress."""
    return [line for line in stdout.splitlines() if not line.startswith("info depth ")]


def assert_legal_bestmove(line: str) -> None:
    word, action = line.split()
    assert word == "bestmove"
    assert parse_action(action) in legal_actions(new_game())


def test_finding8_hundreds_of_digits_are_clamped_not_an_internal_error():
    done = engine([
        "position startpos",
        f"go movetime {HUGE}", "stop",
        f"go p1time {HUGER} p2time -{HUGE} p1inc {HUGE} p2inc -1", "stop",
        "go nodes -3", "stop",
        f"go depth {HUGE}", "stop",
        "quit",
    ])
    assert done.returncode == 0
    assert done.stderr == ""
    lines = answers(done.stdout)
    assert lines[0] == (f"info string note: go movetime {HUGE[:24]}... (400 characters) is "
                        f"outside 0-{MAX_SEARCH_MS}; using {MAX_SEARCH_MS}")
    assert_legal_bestmove(lines[1])
    assert lines[2:6] == [
        f"info string note: go p1time {HUGER[:24]}... (5000 characters) is outside "
        f"0-{MAX_CLOCK_MS}; using {MAX_CLOCK_MS}",
        f"info string note: go p2time -{HUGE[:23]}... (401 characters) is outside "
        f"0-{MAX_CLOCK_MS}; using 0",
        f"info string note: go p1inc {HUGE[:24]}... (400 characters) is outside "
        f"0-{MAX_CLOCK_MS}; using {MAX_CLOCK_MS}",
        f"info string note: go p2inc -1 is outside 0-{MAX_CLOCK_MS}; using 0",
    ]
    assert_legal_bestmove(lines[6])
    assert lines[7] == f"info string note: go nodes -3 is outside 1-{MAX_NODES}; using 1"
    assert_legal_bestmove(lines[8])
    assert lines[9] == f"info string note: go depth {HUGE[:24]}... (400 characters) is outside 1-64; using 64"
    assert_legal_bestmove(lines[10])
    assert len(lines) == 11


def test_finding8_a_word_that_is_no_number_is_still_refused():
    done = engine(["position startpos", "go movetime ١٢", "go depth 1_0", "go nodes", "quit"])
    assert done.returncode == 0
    assert answers(done.stdout) == [
        "info string error: movetime must be a whole number, not '١٢'",
        "info string error: depth must be a whole number, not '1_0'",
        "info string error: go: nodes needs a number",
    ]


def test_finding8_infinite_search_then_end_of_input_answers_and_exits():
    done = engine(["position startpos", "go infinite"])
    assert done.returncode == 0
    assert_legal_bestmove(answers(done.stdout)[-1])


def test_finding8_a_bounded_search_piped_in_still_answers_in_full():
    done = engine(["position startpos", "go depth 2"])
    assert done.returncode == 0
    assert [line.split()[:3] for line in done.stdout.splitlines()[:-1]] == [
        ["info", "depth", "1"], ["info", "depth", "2"]]
    assert_legal_bestmove(done.stdout.splitlines()[-1])


@pytest.mark.slow      # waits out the five seconds' grace at the end of the input
def test_finding8_deep_search_then_end_of_input_answers_and_exits():
    done = engine(["position startpos", "go depth 200"])
    assert done.returncode == 0
    lines = answers(done.stdout)
    assert lines[0] == "info string note: go depth 200 is outside 1-64; using 64"
    assert_legal_bestmove(lines[1])
    assert len(lines) == 2


def test_finding8_end_of_input_stops_a_deep_search_after_the_grace(monkeypatch):
    # In process, with the grace cut short, so the default run need not wait it out.
    monkeypatch.setattr(ugi, "END_OF_INPUT_SECONDS", 0.1)
    out = io.StringIO()
    session = Session(out)
    session.handle("position startpos")
    session.handle("go depth 200")
    closing = threading.Thread(target=session.close, daemon=True)
    closing.start()
    closing.join(WAIT)
    assert not closing.is_alive(), "the search went on after the end of the input"
    assert_legal_bestmove(answers(out.getvalue())[-1])
