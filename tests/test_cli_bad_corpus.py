"""The bad-input corpus (tests/data/bad/): each file gives exactly its expected message.

``expected.txt`` pairs every file with the exact stderr of ``tomis validate NAME`` (run
in the corpus folder) and its exit code; a file may have several lines (mail notes
before the error). The files are made by ``make_corpus.py``; the expectations are not.
Every other command must refuse the same files the same way: exit 1 or 2, one located
line, no traceback, the file untouched.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import corpus_expectations, validate_as_expected
from conftest import invoke as run

BAD = Path(__file__).resolve().parent / "data" / "bad"
FILES = sorted(path.name for path in BAD.glob("*.tgn"))
LOCATED = re.compile(r"^(?P<path>[^\n]+?)(?::(?P<line>\d+):(?P<column>\d+))?: \S")


EXPECTED = corpus_expectations(BAD)      # name -> (exit code, stderr lines)


def test_the_corpus_is_big_and_every_file_has_an_expectation():
    assert len(FILES) >= 40
    assert sorted(EXPECTED) == FILES


@pytest.mark.parametrize("name", FILES)
def test_validate_gives_the_exact_message_and_exit_code(name, monkeypatch):
    result = validate_as_expected(BAD, name, EXPECTED[name], monkeypatch)
    assert result.stdout == ""


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
