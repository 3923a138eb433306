"""Every command the docs show is run, and what the docs say it prints is what it prints.

A doc is read as a script: in its fenced blocks, a line ``$ COMMAND`` is a command and the
lines after it, up to the next ``$`` line or the block's end, are what it prints (stdout
and stderr, as a terminal shows them); a ```` ```sh ```` block holds commands alone. The
commands of one doc run in order, in one temporary folder that holds ``samples/`` and
what the doc's own set-up says it holds, through a ``tomis`` on ``PATH`` that runs this
checkout. Shown output is compared line for line after one small normalisation (trailing
blanks; ``…`` in the docs stands for lines left out); a command shown without output must
succeed.

A story told by two people (README's play by email: Ana's folder, Bo's folder, a message
saved from one to the other) says so in HTML comments the reader of the doc never sees:
``<!-- docs-test: folder NAME -->`` (the commands after it run in folder NAME),
``<!-- docs-test: run COMMAND -->`` (a step the story tells in words, run unchecked) and
``<!-- docs-test: skip "TEXT" WHY: WHERE -->`` (the next command holding TEXT is not run,
for the reason WHY, and WHERE tests what it does).

A few commands cannot run here, each for the reason given in ``NOT_RUN``; the tests named
there run what they do in their own way.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# A command (by the start of its text) -> why it is not run here, and where it is tested.
NOT_RUN = {
    "python3 -m pip install": "installs packages: .ci/run and tests/test_packaging.py do it",
    "python3 -m pytest": "the test suite itself: .ci/run runs it",
    "python3 -m venv": "makes a virtual environment: tests/test_packaging.py does",
    "TOMIS_COMPILE=1 python3 -m pip install": "compiles the rules: tests/test_compiled.py does (slow)",
    "python bench/": "a benchmark takes minutes: tests/test_bench_*.py run each briefly",
    "tomis play": "needs a terminal: tests/test_play_tty.py and test_play_computer.py",
    "tomis send": "needs an SMTP server: tests/test_mail_send.py, test_security_headers.py",
    "tomis match": "plays whole games for minutes: tests/test_match.py",
    "tomis engine": "reads a protocol on stdin: tests/test_ugi.py",
    "man ": "needs man-db: tests/test_cli_manual.py checks the page",
    "tomis move ladder.tgn B@e1 --as white --mail sent.eml --send": "sends mail: tests/test_mail_send.py",
}


@dataclass
class Step:
    doc: str
    line: int
    command: str
    shown: list[str] | None = None          # None: the doc shows no output
    folder: str = "."                       # where it runs, below the doc's temporary folder
    hidden: bool = False                    # a docs-test "run" step: output not checked
    skip: str | None = None                 # why it is not run


_DIRECTIVE = re.compile(r"<!-- docs-test: (folder|run|skip) (.+?) -->")


def steps_of(path: Path) -> list[Step]:
    """The commands of one doc, in order, each with the output the doc shows after it."""
    steps: list[Step] = []
    fence: str | None = None
    current: Step | None = None
    folder = "."
    skips: list[tuple[str, str]] = []          # (text the command holds, why)

    def add(step: Step) -> Step:
        step.folder, step.skip = folder, reason_not_run(step.command)
        for index, (text, why) in enumerate(skips):
            if text in step.command:
                step.skip = why
                del skips[index]
                break
        steps.append(step)
        return step

    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.startswith("```"):
            fence = None if fence is not None else line[3:].strip()
            current = None
            continue
        if fence is None:
            for kind, value in _DIRECTIVE.findall(line):
                if kind == "folder":
                    folder = value
                elif kind == "skip":
                    text, why = re.fullmatch(r'"([^"]+)" (.+)', value).groups()
                    skips.append((text, why))
                else:
                    add(Step(path.name, number, value, hidden=True))
            continue
        if fence == "sh":
            if line.strip() and not line.lstrip().startswith("#"):
                add(Step(path.name, number, line.strip()))
        elif fence == "" and line.startswith("$ "):
            current = add(Step(path.name, number, line[2:].strip(), []))
        elif current is not None:
            current.shown.append(line)
    return steps


def reason_not_run(command: str) -> str | None:
    return next((why for start, why in NOT_RUN.items() if command.startswith(start)), None)


def matches(shown: list[str], printed: list[str]) -> bool:
    """Line for line; a shown line ``…`` stands for any number of printed lines."""
    pattern = "\n".join(".*?" if line.strip() == "…" else re.escape(line.rstrip()) for line in shown)
    return re.fullmatch(pattern, "\n".join(line.rstrip() for line in printed), re.DOTALL) is not None


def streams(proc) -> list[list[str]]:
    """What a doc may show of a command: both streams as a terminal shows them (stdout
    first: the commands print their notes before or after, never between, their output),
    or one of them, when the doc shows the other in a block of its own."""
    return [(proc.stdout + proc.stderr).splitlines(), proc.stdout.splitlines(),
            proc.stderr.splitlines()]


def club_folder(folder: Path) -> None:
    """docs/ARCHIVES.md's ``club/``: the samples, the manual-win game typed twice, a mistake."""
    club = folder / "club"
    club.mkdir()
    for sample in (ROOT / "samples").glob("*.tgn"):
        shutil.copy(sample, club / sample.name)
    twice = (ROOT / "samples" / "manual-win.tgn").read_text(encoding="utf-8")
    (club / "typed-twice.tgn").write_text(re.sub(r'\[Round "[^"]*"\]', '[Round "2"]', twice),
                                          encoding="utf-8")
    (club / "autumn.tgn").write_text('[Event "Autumn cup"]\n[White "Eve Lungu"]\n'
                                     '[Black "Bogdan Ionescu"]\n\n1. B@e1 B@e1 *\n', encoding="utf-8")


SET_UP = {"ARCHIVES.md": club_folder}


def environment(folder: Path) -> dict:
    """PATH starts with a ``tomis`` that runs this checkout; no colour, a fixed sender."""
    bin_dir = folder / ".bin"
    bin_dir.mkdir()
    script = bin_dir / "tomis"
    script.write_text(f"#!/bin/sh\nexec {sys.executable} -m tomis \"$@\"\n", encoding="utf-8")
    script.chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
               PYTHONPATH=str(ROOT), NO_COLOR="1", COLUMNS="100",
               TOMIS_SMTP_FROM="ana@example.org", HOME=str(folder))
    env.pop("FORCE_COLOR", None)
    return env


# The referee's guide runs a club's whole first week, command by command: about 26 s,
# the longest test of the default suite, which must stay under five minutes on two
# busy cores. CI's slow stage runs it.
SLOW_DOCS = {"REFEREE.md"}


def doc_ids():
    return [pytest.param(path.name, marks=pytest.mark.slow) if path.name in SLOW_DOCS else path.name
            for path in DOCS if any(step.skip is None for step in steps_of(path))]


def prepared(root: Path, folder: str) -> Path:
    """A folder of the doc's story, made on first use with ``samples/`` in it."""
    where = (root / folder).resolve()
    if not (where / "samples").exists():
        where.mkdir(parents=True, exist_ok=True)
        shutil.copytree(ROOT / "samples", where / "samples")
    return where


@pytest.mark.parametrize("doc", doc_ids())
def test_every_command_of_the_doc_runs_as_shown(doc, tmp_path):
    path = next(p for p in DOCS if p.name == doc)
    SET_UP.get(doc, lambda folder: None)(prepared(tmp_path, "."))
    env = environment(tmp_path)
    failures = []
    for step in steps_of(path):
        if step.skip:
            continue
        proc = subprocess.run(["bash", "-c", step.command], cwd=prepared(tmp_path, step.folder),
                              env=env, capture_output=True, text=True, timeout=120)
        printed = (proc.stdout + proc.stderr).splitlines()
        where = f"{doc}:{step.line}: {step.command}"
        if "internal error" in proc.stderr or "Traceback" in proc.stderr:
            failures.append(f"{where}: crashed: {proc.stderr.strip()[-300:]}")
        elif (step.hidden or step.shown is None) and proc.returncode != 0:
            failures.append(f"{where}: exit {proc.returncode}: {printed[-3:]}")
        elif step.shown and not any(matches(step.shown, lines) for lines in streams(proc)):
            failures.append(f"{where}\n  shown:   {step.shown}\n  printed: {printed}")
    assert not failures, "\n".join(failures)


def test_the_extractor_reads_commands_and_their_output(tmp_path):
    doc = tmp_path / "x.md"
    doc.write_text("text\n```sh\ntomis new a.tgn\n# a comment\n```\n```\n$ tomis show a.tgn\nline 1\n"
                   "$ tomis moves a.tgn\n```\n```python\n$ not a command\n```\n", encoding="utf-8")
    steps = steps_of(doc)
    assert [(s.command, s.shown) for s in steps] == [
        ("tomis new a.tgn", None), ("tomis show a.tgn", ["line 1"]), ("tomis moves a.tgn", [])]


def test_directives_set_the_folder_add_steps_and_skip(tmp_path):
    doc = tmp_path / "x.md"
    doc.write_text("<!-- docs-test: folder ana -->\n```sh\ntomis new a.tgn\n```\n"
                   "<!-- docs-test: run cp a.tgn ../bo/ -->\n<!-- docs-test: folder bo -->\n"
                   "<!-- docs-test: skip \"clock\" needs a clock: test_x.py -->\n```sh\n"
                   "tomis show a.tgn\ntomis clock a.tgn\n```\n", encoding="utf-8")
    assert [(s.command, s.folder, s.hidden, s.skip) for s in steps_of(doc)] == [
        ("tomis new a.tgn", "ana", False, None), ("cp a.tgn ../bo/", "ana", True, None),
        ("tomis show a.tgn", "bo", False, None),
        ("tomis clock a.tgn", "bo", False, "needs a clock: test_x.py")]


def test_an_ellipsis_stands_for_lines_left_out():
    assert matches(["a", "…", "d"], ["a", "b", "c", "d"])
    assert not matches(["a", "d"], ["a", "b", "d"])
    assert not matches(["a", "…"], ["b"])


def test_every_skipped_command_names_where_it_is_tested():
    for why in NOT_RUN.values():
        assert ":" in why and why.split(":", 1)[1].strip()
