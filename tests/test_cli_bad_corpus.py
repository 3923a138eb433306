"""The bad-input corpus (tests/data/bad/): each file gives exactly its expected message.

``expected.txt`` pairs every file with the exact stderr of ``tomis validate NAME`` (run
in the corpus folder) and its exit code; a file may have several lines (mail notes
before the error). The files are made by ``make_corpus.py``; the expectations are not.
Every other command must refuse the same files the same way: exit 1 or 2, one located
line, no traceback, the file untouched.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest

from conftest import invoke as run

BAD = Path(__file__).resolve().parent / "data" / "bad"
FILES = sorted(path.name for path in BAD.glob("*.tgn"))
LOCATED = re.compile(r"^(?P<path>[^\n]+?):(?P<line>\d+):(?P<column>\d+): \S")


def expectations() -> dict[str, tuple[int, list[str]]]:
    """name -> (exit code, stderr lines) from expected.txt."""
    codes: dict[str, int] = {}
    lines: dict[str, list[str]] = defaultdict(list)
    for row in (BAD / "expected.txt").read_text(encoding="utf-8").splitlines():
        if not row.strip() or row.startswith("#"):
            continue
        name, code, message = row.split(" | ", 2)
        assert codes.setdefault(name, int(code)) == int(code), f"{name}: two exit codes"
        lines[name].append(message)
    return {name: (codes[name], lines[name]) for name in codes}


EXPECTED = expectations()


def test_the_corpus_is_big_and_every_file_has_an_expectation():
    assert len(FILES) >= 40
    assert sorted(EXPECTED) == FILES


@pytest.mark.parametrize("name", FILES)
def test_validate_gives_the_exact_message_and_exit_code(name, monkeypatch):
    monkeypatch.chdir(BAD)
    before = (BAD / name).read_bytes()
    result = run("validate", name)
    code, lines = EXPECTED[name]
    assert (result.exit_code, result.stderr.splitlines()) == (code, lines)
    assert result.stdout == ""
    assert (BAD / name).read_bytes() == before


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("command", [
    ["show"], ["moves"], ["replay"], ["fmt", "--check"], ["move", "--dry-run", "_", "F@a1"],
    ["validate", "--json"],
])
def test_every_command_refuses_the_file_in_one_located_line(name, command, monkeypatch):
    monkeypatch.chdir(BAD)
    before = (BAD / name).read_bytes()
    args = [name if word == "_" else word for word in command]
    if "_" not in command:
        args.append(name)
    result = run(*args)
    assert result.exit_code in (1, 2)
    problems = [line for line in result.stderr.splitlines() if ": note: " not in line]
    if command[0] == "validate":        # --json: the error is in the report, stderr is empty
        assert problems == [] and '"ok": false' in result.stdout
    else:
        assert len(problems) == 1, result.stderr
        match = LOCATED.match(problems[0])
        assert match is not None and match["path"] == name, problems[0]
    assert "Traceback" not in result.stderr + result.stdout
    assert (BAD / name).read_bytes() == before
