"""Shared test helpers: positions drawn as diagrams, actions from text, the CLI in and out of process.

``board()`` turns an eight-line diagram (rank 8 first, ``.`` for an empty square,
letters as in position strings) into a :class:`tomis.rules.State` through
:func:`tomis.rules.position.from_string`, so a test shows the position it is about.
Unless told otherwise every piece that is not on the board is taken to be in its
side's reserve, which is what a real game would have.

``act()`` reads one action in the notation of notation.md with a small regular
expression; the engine tests must not depend on the notation layer being ready.

For the command-line tests: ``invoke()`` runs ``tomis`` in process (click's CliRunner,
stderr kept apart), ``tomis()`` as a real ``python -m tomis`` process, and
``written()`` saves a small record as ``tomis`` writes it. ``SAMPLES`` lists samples/.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import settings
from click.testing import CliRunner

from tomis.rules import actions as A
from tomis.rules.board import (
    BASE, DIRECTION_INDEX, GATE, INITIAL_RESERVE, LETTER_TO_PIECE, MARKER, parse_square,
)
from tomis.rules.position import from_string

pytest_plugins = ["mail_lab"]       # the mail_lab fixture (tests/mail_lab.py)

ROOT = Path(__file__).resolve().parent.parent
SAMPLES_DIR = ROOT / "samples"
SAMPLES = sorted(SAMPLES_DIR.glob("*.tgn"))
TAGS = '[White "Ana"]\n[Black "Bo"]\n[Result "*"]\n[Rules "manual"]\n'
EMPTY_BOARD = "8/8/8/8/8/8/8/8 - w 1448221/1448221 - manual 1 0"


def units_field(diagram: str) -> str:
    """The units field of a position string from rows like ``..F.b...``."""
    rows = [row.replace(" ", "") for row in diagram.strip().splitlines()]
    assert len(rows) == 8 and all(len(r) == 8 for r in rows), "a diagram has 8 rows of 8 squares"
    return "/".join(re.sub(r"\.+", lambda m: str(len(m.group())), row) for row in rows)


def _derived_reserves(units: str, gates: str, main_phase: bool) -> str:
    """Everything a side owns (R2) that the diagram does not show on the board.

    In the main phase a missing base or gate was destroyed, not held back (R5-R7).
    """
    counts = [list(INITIAL_RESERVE), list(INITIAL_RESERVE)]
    for char in units:
        if char.isalpha():
            counts[0 if char.isupper() else 1][LETTER_TO_PIECE[char.upper()]] -= 1
    for gate in filter(None, gates.split(",") if gates != "-" else []):
        owner = "wb".index(gate[2])
        counts[owner][GATE] -= 1
        if gate[3] == "J":
            counts[owner][MARKER] -= int(gate[4])
    if main_phase:
        for row in counts:
            row[BASE] = row[GATE] = 0
    return "/".join("".join(str(n) for n in row) for row in counts)


def position_string(diagram: str, gates: str = "-", to_act: str = "w", *,
                    reserves: str | None = None, unlocks: str = "-",
                    edition: str = "manual", action: int | None = None, quiet: int = 0) -> str:
    units = units_field(diagram)
    if action is None:   # the first main-phase action of the side to act (R4, R7)
        action = 11 if to_act == "w" else 12
    reserves = reserves or _derived_reserves(units, gates, action > 10)
    return f"{units} {gates} {to_act} {reserves} {unlocks} {edition} {action} {quiet}"


def board(diagram: str, gates: str = "-", to_act: str = "w", **fields):
    """A state from a diagram; keyword fields as in :func:`position_string`."""
    return from_string(position_string(diagram, gates, to_act, **fields))


_ACTION = re.compile(
    r"(?P<piece>[BGFSTQM])(?:@(?P<at>[a-h][1-8])(?::(?P<adir>[NESW]{1,2}))?"
    r"|(?P<from>[a-h][1-8])(?:(?P<op>[-x>^])(?P<to>[a-h][1-8])|=(?P<ai>[AI])|:(?P<rdir>[NESW]{1,2}))"
    r")"
)


def act(text: str) -> A.Action:
    """One action from its notation, e.g. ``act("Fc3>d4")``."""
    m = _ACTION.fullmatch(text)
    if m is None:
        raise ValueError(f"test helper cannot read action {text!r}")
    piece = LETTER_TO_PIECE[m["piece"]]
    if m["at"]:
        square = parse_square(m["at"])
        return A.PlaceMarker(square, DIRECTION_INDEX[m["adir"]]) if m["adir"] else A.Place(piece, square)
    origin = parse_square(m["from"])
    if m["ai"]:
        return A.Toggle(origin, m["ai"] == "A")
    if m["rdir"]:
        return A.RotateMarker(origin, DIRECTION_INDEX[m["rdir"]])
    target = parse_square(m["to"])
    kind = {"-": None, "x": A.GateStrike, ">": A.GateJump, "^": A.Jump}[m["op"]]
    return A.Move(piece, origin, target) if kind is None else kind(origin, target)


def positions_played(edition: str, picks: list[int]):
    """Each position after playing the drawn picks from the empty board (the k-th pick
    chooses among the legal actions by its remainder), until the game ends."""
    from tomis.rules import apply_unchecked, legal_actions, new_game

    state = new_game(edition)
    for pick in picks:
        if state.to_move is None:
            return
        actions = legal_actions(state)
        state, _report = apply_unchecked(state, actions[pick % len(actions)])
        yield state


def legal_texts(state) -> set[str]:
    """The legal actions of ``state`` in notation, for readable set comparisons."""
    return {str(a) for a in state.legal_actions()}


# Tests never assert on time, and hypothesis's per-example deadline (200 ms by default) is
# one: on a loaded two-core machine a first example has taken 329 ms. No deadlines here.
settings.register_profile("tomis", deadline=None)
settings.load_profile("tomis")


def pytest_collection_modifyitems(config, items):
    """Keep the default run fast: ``slow`` tests run only when ``-m`` names them (CI)."""
    if "slow" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="slow: run with  pytest -m slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def candidate_actions(state):
    """Every syntactically possible action worth asking :func:`tomis.rules.check` about.

    Placements, toggles and markers on every square; moves, gate jumps, gate strikes
    and jumps from every square that holds a unit (either side's), to every other
    square, with every piece letter. Built without any rule knowledge, so comparing
    what ``check`` accepts with ``legal_actions`` cross-checks the two code paths.
    """
    out = [A.Place(p, sq) for p in range(7) for sq in range(64)]
    for sq in range(64):
        out += [A.Toggle(sq, True), A.Toggle(sq, False)]
        out += [kind(sq, d) for kind in (A.PlaceMarker, A.RotateMarker) for d in range(8)]
    for a in state.units:
        for b in range(64):
            if a != b:
                out += [A.Move(p, a, b) for p in range(7)]
                out += [A.GateJump(a, b), A.GateStrike(a, b), A.Jump(a, b)]
    return out


def brute_force_actions(state) -> set:
    """The candidate actions :func:`tomis.rules.check` accepts."""
    from tomis.errors import IllegalActionError
    from tomis.rules import check
    legal = set()
    for action in candidate_actions(state):
        try:
            check(state, action)
        except IllegalActionError:
            continue
        legal.add(action)
    return legal


# --------------------------------------------------------------------------- the CLI

def cli_runner() -> CliRunner:
    """A CliRunner whose result keeps stdout and stderr apart."""
    try:
        return CliRunner(mix_stderr=False)
    except TypeError:            # click 8.2 keeps stderr apart by itself
        return CliRunner()


def invoke(*args, input=None, catch_exceptions=False):
    """``tomis ARGS`` in process; arguments may be paths or numbers."""
    from tomis.cli import cli

    return cli_runner().invoke(cli, [str(a) for a in args], input=input,
                               catch_exceptions=catch_exceptions)


def tomis_env(extra: dict | None = None) -> dict:
    """The environment of a real tomis process: this checkout first on the path, no debug
    tracebacks, and ``extra`` added."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), **(extra or {}))
    env.pop("TOMIS_DEBUG", None)
    return env


def tomis(*args, cwd=None, input=None, env=None, timeout=120) -> subprocess.CompletedProcess:
    """A real ``python -m tomis ARGS`` process, ``env`` added to its environment; stdin is
    ``input``, else empty (the timeout only guards a hang)."""
    return subprocess.run([sys.executable, "-m", "tomis", *map(str, args)], cwd=cwd, input=input,
                          env=tomis_env(env), capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL if input is None else None)


def bench_output(script: str, *args: str) -> str:
    """What ``python bench/SCRIPT ARGS`` prints; the script must succeed."""
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / script), *args],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{script} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def corpus_expectations(folder: Path) -> dict[str, tuple[int, list[str]]]:
    """name -> (exit code, stderr lines of ``tomis validate NAME``) from FOLDER/expected.txt,
    whose rows read ``name | code | one stderr line`` (several rows for several lines)."""
    codes: dict[str, int] = {}
    lines: dict[str, list[str]] = defaultdict(list)
    for row in (folder / "expected.txt").read_text(encoding="utf-8").splitlines():
        if not row.strip() or row.startswith("#"):
            continue
        name, code, message = row.split(" | ", 2)
        name = name.strip()
        assert codes.setdefault(name, int(code)) == int(code), f"{name}: two exit codes"
        if message:
            lines[name].append(message)
    return {name: (codes[name], lines[name]) for name in codes}


def validate_as_expected(folder: Path, name: str, expected: tuple[int, list[str]], monkeypatch):
    """``tomis validate NAME`` run in FOLDER gives exactly ``expected`` (exit code, stderr
    lines) and leaves the file as it was; the result, for what else a test checks."""
    monkeypatch.chdir(folder)
    before = (folder / name).read_bytes()
    result = invoke("validate", name)
    assert (result.exit_code, result.stderr.splitlines()) == expected
    assert (folder / name).read_bytes() == before
    return result


def written(path: Path, moves: str) -> Path:
    """A record of ``moves`` as `tomis` writes it (with its Digest), saved at ``path``."""
    from tomis.notation import record

    game = record.read_game(TAGS + "\n" + moves + " *\n")
    path.write_text(record.write(game, digest=True), encoding="utf-8")
    return path
