"""The seven findings of the outside audit (issue 10, docs/SECURITY.md), each reproduced.

Every test works the way the attack or fault did: real files, real symbolic links, real
``tomis`` processes (``python -m tomis``), a real SIGKILL, a really closed stdin. Where the
audit needed luck to hit a window (a swap between read and write), the child process is
made to act inside that window, so the test is deterministic. The last part adds the
finding's shapes to the fuzzing of tests/test_fuzz.py: huge numbers, closed stdin and many
empty games.
"""

from __future__ import annotations

import json
import os
import pickle
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tomis import notation, rules
from tomis.notation import record
from tomis.rules import position
from tomis.util import textio
import tomis.notation.syntax  # noqa: F401  (patched below)
from tomis.errors import PositionError

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "resignation.tgn"
POSIX = os.name == "posix"
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
# path:line:column: message, or path: message for the file as a whole (not a usage line)
LOCATED = re.compile(r"^(?!Error: |Usage: |Try ').+?(?::\d+:\d+)?: \S.*$")
HUGE = "9" * 4_400               # over Python's 4,300-digit int() limit
NEW_GAME = "[Rules \"manual\"]\n\n*\n"
GAMES_LIMIT = 100_000            # MAX_GAMES_PER_FILE as documented in docs/SECURITY.md

posix_only = pytest.mark.skipif(not POSIX, reason="symlinks, signals and fd 0 as on POSIX")


def run(*args, cwd=None, env=None, close_stdin=False, code=None, timeout=120):
    """``python -m tomis ARGS`` (or ``python -c CODE ARGS``) as a real process."""
    head = [sys.executable, "-c", code] if code else [sys.executable, "-m", "tomis"]
    full_env = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    full_env.pop("TOMIS_DEBUG", None)
    return subprocess.run(
        head + [str(a) for a in args], cwd=cwd, env=full_env, capture_output=True, text=True,
        timeout=timeout, stdin=None if close_stdin else subprocess.DEVNULL,
        preexec_fn=(lambda: os.close(0)) if close_stdin else None)


def assert_one_clean_line(done, code: int) -> str:
    """Exit ``code`` and a stderr of located lines only: no traceback, no internal error."""
    assert done.returncode == code, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
    lines = done.stderr.splitlines()
    assert lines and all(LOCATED.match(line) for line in lines), done.stderr
    return done.stderr


@pytest.fixture
def game(tmp_path):
    path = tmp_path / "game.tgn"
    path.write_text(NEW_GAME, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- finding 1

MAKE_LARK_CACHE = textwrap.dedent("""
    # Let Lark itself write its cache for our grammar, with the options tomis once used,
    # so the test learns the exact predictable file name without copying Lark's formula.
    from lark import Lark
    from tomis.notation import grammar_text
    Lark(grammar_text(), parser="lalr", lexer="basic", cache=True)
""")


class _Planted:
    """Unpickling this creates the file named: proof that a planted pickle ran."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _lark_cache_names(temp: Path) -> list[Path]:
    assert run(code=MAKE_LARK_CACHE, env={"TMPDIR": str(temp)}).returncode == 0
    names = sorted(temp.glob(".lark_cache_*.tmp"))
    assert names, "Lark wrote no cache to learn its name from"
    return names


def _validate_a_syntax_error(tmp_path: Path, temp: Path) -> str:
    """``tomis validate`` of a record only the Lark fallback explains, with TMPDIR=temp."""
    bad = tmp_path / "bad.tgn"
    bad.write_text("1. B@c1 ]]] *\n", encoding="utf-8")
    return assert_one_clean_line(run("validate", bad, env={"TMPDIR": str(temp)}), 1)


@pytest.fixture
def shared_tmp(tmp_path) -> Path:
    """A stand-in for /tmp, where another user could plant files."""
    temp = tmp_path / "shared-tmp"
    temp.mkdir()
    return temp


@posix_only
def test_finding1_lark_cache_never_loads_planted_pickle(tmp_path, shared_tmp):
    marker = tmp_path / "the-planted-pickle-ran"
    for name in _lark_cache_names(shared_tmp):
        name.write_bytes(b"0" * 64 + b"\n" + pickle.dumps(_Planted(str(marker)), protocol=2))
    stderr = _validate_a_syntax_error(tmp_path, shared_tmp)
    assert not marker.exists()
    assert "bad.tgn:1:" in stderr


@posix_only
def test_finding1_lark_cache_never_writes_through_planted_symlink(tmp_path, shared_tmp):
    victim = tmp_path / "victims-file"
    for name in _lark_cache_names(shared_tmp):
        name.unlink()
        name.symlink_to(victim)                           # dangling: the write would create it
    _validate_a_syntax_error(tmp_path, shared_tmp)
    assert not victim.exists()


# --------------------------------------------------------------------------- finding 2

SWAP_DURING_MOVE = textwrap.dedent("""
    # tomis move, with the game file swapped for a symlink after it was read and before
    # the new record is written: the window the audit hit by racing a 3.5 MB record.
    import os, sys
    from tomis import cli
    from tomis.notation import record
    game, victim = sys.argv[1], sys.argv[2]
    real_write = record.write
    def write_then_swap(*args, **kwargs):
        text = real_write(*args, **kwargs)
        os.unlink(game)
        os.symlink(victim, game)
        return text
    record.write = write_then_swap
    cli.main(["move", game, "B@c1"])
""")


@posix_only
def test_finding2_symlink_swapped_in_during_move_is_never_written_through(game, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("the victim's own file\n", encoding="utf-8")
    done = run(game, victim, code=SWAP_DURING_MOVE)
    assert victim.read_text(encoding="utf-8") == "the victim's own file\n"
    assert "replaced" in assert_one_clean_line(done, 1)
    assert game.is_symlink()                  # the swapped-in link is left for the user to see
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


@posix_only
def test_finding2_a_link_the_user_names_is_still_followed(game, tmp_path):
    link = tmp_path / "link.tgn"
    link.symlink_to(game)
    done = run("move", link, "B@c1")
    assert done.returncode == 0, done.stderr
    assert link.is_symlink()
    assert "1. B@c1" in game.read_text(encoding="utf-8")


# --------------------------------------------------------------------------- finding 3

@posix_only
def test_finding3_lock_symlink_to_missing_file_is_refused_not_created(game, tmp_path):
    planted = tmp_path / "created-through-the-lock"
    lock = tmp_path / ".game.tgn.lock"
    lock.symlink_to(planted)
    done = run("move", game, "B@c1")
    assert "symbolic link" in assert_one_clean_line(done, 1)
    assert not planted.exists()
    assert game.read_text(encoding="utf-8") == NEW_GAME
    assert lock.is_symlink()


@posix_only
def test_finding3_lock_symlink_to_existing_file_leaves_it_alone(game, tmp_path):
    target = tmp_path / "someone-elses.txt"
    target.write_text("keep me\n", encoding="utf-8")
    (tmp_path / ".game.tgn.lock").symlink_to(target)
    assert_one_clean_line(run("move", game, "B@c1"), 1)
    assert target.read_text(encoding="utf-8") == "keep me\n"
    assert game.read_text(encoding="utf-8") == NEW_GAME


@pytest.mark.skipif(not IS_ROOT, reason="giving a file to another user needs root")
def test_finding3_lock_owned_by_another_user_is_refused(game, tmp_path):
    lock = tmp_path / ".game.tgn.lock"
    lock.write_bytes(b"")
    os.chown(lock, 4242, 4242)
    done = run("move", game, "B@c1")
    assert "another user" in assert_one_clean_line(done, 1)
    assert game.read_text(encoding="utf-8") == NEW_GAME


@posix_only
def test_finding3_lock_that_is_not_a_regular_file_is_refused(game, tmp_path):
    os.mkfifo(tmp_path / ".game.tgn.lock")
    done = run("move", game, "B@c1")
    assert "not a regular file" in assert_one_clean_line(done, 1)
    assert game.read_text(encoding="utf-8") == NEW_GAME


# --------------------------------------------------------------------------- finding 4

def _with_huge(kind: str, digits: str) -> str:
    if kind == "nag":
        return f"1. B@c1 ${digits} *\n"
    return f"{digits}. B@c1 *\n"


@pytest.mark.parametrize("kind", ["nag", "move-number"])
def test_finding4_huge_number_is_a_located_error_and_later_files_are_checked(tmp_path, kind):
    huge = tmp_path / "huge.tgn"
    huge.write_text(_with_huge(kind, HUGE), encoding="utf-8")
    done = run("validate", huge, SAMPLE)
    stderr = assert_one_clean_line(done, 1)
    assert re.match(r"^.*huge\.tgn:1:\d+: .*(numeric annotation|move number).*4,401 characters",
                    stderr), stderr
    assert "resignation.tgn: ok, 1 game(s)" in done.stdout


@pytest.mark.parametrize("kind", ["nag", "move-number"])
def test_finding4_validate_json_is_one_complete_document(tmp_path, kind):
    huge = tmp_path / "huge.tgn"
    huge.write_text(_with_huge(kind, HUGE), encoding="utf-8")
    done = run("validate", "--json", huge, SAMPLE)
    assert done.returncode == 1 and done.stderr == "", done.stderr
    report = json.loads(done.stdout)
    assert [entry["ok"] for entry in report["files"]] == [False, True]
    assert report["files"][0]["games"][0]["error"]["line"] == 1


def test_finding4_huge_counts_in_a_position_string_are_refused(tmp_path):
    fields = position.to_string(rules.new_game("manual")).split()
    for index, value in ((6, HUGE), (7, HUGE), (6, "\u00b2")):
        changed = list(fields)
        changed[index] = value
        with pytest.raises(PositionError, match="whole number"):
            position.from_string(" ".join(changed))
    changed = list(fields)
    changed[3] = "\u00b2448221/1448221"
    with pytest.raises(PositionError, match="reserves"):
        position.from_string(" ".join(changed))
    done = run("new", tmp_path / "n.tgn", "--position", " ".join(fields[:6] + [HUGE, "0"]))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "Invalid value for --position: action number" in done.stderr
    assert "at most 9 digits" in done.stderr
    assert not (tmp_path / "n.tgn").exists()


def test_finding4_a_bug_in_one_file_still_gives_complete_json(tmp_path):
    # A stand-in for the next unknown crash: the reader itself raises something odd.
    code = textwrap.dedent("""
        import sys
        from tomis import cli
        from tomis.notation import syntax as notation     # the module that holds parse_span
        def broken(text, path=None):
            raise ValueError("an unforeseen bug")
        # validate reads through the archive walk, which parses game by game (parse_span)
        real = notation.parse_span
        notation.parse_span = lambda text, start, end, line=1, column=1: (
            broken(text) if "bug" in text[start:end] else real(text, start, end, line, column))
        cli.main(["validate", "--json"] + sys.argv[1:])
    """)
    odd = tmp_path / "odd.tgn"
    odd.write_text("{bug} 1. B@c1 *\n", encoding="utf-8")
    done = run(odd, SAMPLE, code=code)
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert [entry["ok"] for entry in report["files"]] == [False, True]
    assert "internal error: ValueError" in report["files"][0]["error"]["message"]


# --------------------------------------------------------------------------- finding 5

CLOSED_STDIN_COMMANDS = [
    ["validate", "-"], ["validate", "--json", "-"], ["show", "-"], ["moves", "-"], ["fmt", "-"],
    ["fmt", "--check", "-"], ["move", "-", "B@c1"], ["move", "--dry-run", "-", "B@c1"],
    ["replay", "-"], ["play"], ["play", "{new}"], ["replay", "--step", str(SAMPLE)],
]


@posix_only
@pytest.mark.parametrize("args", CLOSED_STDIN_COMMANDS, ids=" ".join)
def test_finding5_closed_stdin_is_one_line_and_exit_2(tmp_path, args):
    new = tmp_path / "new.tgn"
    done = run(*[arg.format(new=new) for arg in args], close_stdin=True)
    if "--json" in args:      # the error goes into the report, which must still be whole
        assert done.returncode == 2 and done.stderr == "", done.stderr
        assert "stdin is closed" in json.loads(done.stdout)["files"][0]["error"]["message"]
    else:
        assert "stdin is closed" in assert_one_clean_line(done, 2)
    assert not new.exists()                   # play refused before creating anything


# --------------------------------------------------------------------------- finding 6

@pytest.mark.slow
def test_finding6_games_past_the_limit_are_refused_with_a_located_error(tmp_path):
    limit = GAMES_LIMIT
    many = tmp_path / "many.tgn"
    many.write_text("*\n" * (limit + 1), encoding="utf-8")
    done = run("validate", "-q", many)
    stderr = assert_one_clean_line(done, 1)
    assert f"many.tgn:{limit + 1}:1: " in stderr and "MAX_GAMES_PER_FILE" in stderr
    fmt = run("fmt", many)
    assert_one_clean_line(fmt, 1)
    assert many.read_text(encoding="utf-8") == "*\n" * (limit + 1)
    assert textio.MAX_GAMES_PER_FILE == GAMES_LIMIT


def test_finding6_exactly_the_limit_is_still_read(tmp_path):
    at_limit = tmp_path / "at-limit.tgn"
    at_limit.write_text("*\n" * GAMES_LIMIT, encoding="utf-8")
    done = run("validate", at_limit)
    assert done.returncode == 0, done.stderr
    assert f"ok, {GAMES_LIMIT} game(s)" in done.stdout


@pytest.mark.slow
@posix_only
def test_finding6_16_mib_of_empty_games_fits_in_half_a_gibibyte(tmp_path):
    # The audit's file: before the limit this needed 6.8 GB, so under this cap the
    # process died of MemoryError (reported as an internal error) instead of a located line.
    import resource

    biggest = tmp_path / "16mib.tgn"
    biggest.write_text("*\n" * (textio.MAX_FILE_BYTES // 2), encoding="utf-8")
    cap = 512 * 1024 * 1024

    def limited():
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    full_env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "tomis", "validate", "-q", str(biggest)],
                          env=full_env, capture_output=True, text=True, timeout=600,
                          preexec_fn=limited)
    assert "MAX_GAMES_PER_FILE" in assert_one_clean_line(done, 1)


# --------------------------------------------------------------------------- finding 7

KILL_BEFORE_RENAME = textwrap.dedent("""
    # tomis move, SIGKILLed just before its rename: the temporary file and the lock file
    # stay behind, as in 77 and 140 of the audit's 200 kills.
    import os, signal, sys
    from tomis import cli
    os.replace = lambda *args, **kwargs: os.kill(os.getpid(), signal.SIGKILL)
    cli.main(["move", sys.argv[1], "B@c1"])
""")


@posix_only
def test_finding7_files_left_by_a_killed_move_are_removed_by_the_next_write(game, tmp_path):
    killed = run(game, code=KILL_BEFORE_RENAME)
    assert killed.returncode == -signal.SIGKILL
    left = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".game.tgn."))
    assert len(left) == 2 and ".game.tgn.lock" in left, left
    stale = next(name for name in left if name.endswith(".part"))
    # Look-alikes that are not ours to remove: another file's temporary, a wrong pattern,
    # and a link with the very pattern (pointing at a file that must survive).
    keep = tmp_path / "keep.txt"
    keep.write_text("keep\n", encoding="utf-8")
    (tmp_path / ".other.tgn.0123abcd.tmp").write_text("x", encoding="utf-8")
    (tmp_path / ".game.tgn.notours.tmp").write_text("x", encoding="utf-8")
    (tmp_path / ".game.tgn.feedbeef.tmp").symlink_to(keep)

    done = run("move", game, "B@c1")
    assert done.returncode == 0, done.stderr
    assert f"removed {stale}" in done.stderr and "note:" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([
        ".game.tgn.feedbeef.tmp", ".game.tgn.notours.tmp", ".other.tgn.0123abcd.tmp",
        "game.tgn", "keep.txt"])
    assert keep.read_text(encoding="utf-8") == "keep\n"
    assert "1. B@c1" in game.read_text(encoding="utf-8")


@pytest.mark.skipif(not IS_ROOT, reason="giving a file to another user needs root")
def test_finding7_another_users_temporary_file_is_left_alone(game, tmp_path):
    theirs = tmp_path / ".game.tgn.0badcafe.tmp"
    theirs.write_text("x", encoding="utf-8")
    os.chown(theirs, 4242, 4242)
    done = run("move", game, "B@c1")
    assert done.returncode == 0 and "removed" not in done.stderr, done.stderr
    assert theirs.exists()


# --------------------------------------------------------------------------- fuzz shapes

FEW = settings(max_examples=25, deadline=None,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                      HealthCheck.function_scoped_fixture])
SAMPLE_TEXT = SAMPLE.read_text(encoding="utf-8")
WORDS = list(re.finditer(r"\S+", SAMPLE_TEXT.split("\n\n", 1)[1]))


@FEW
@given(digits=st.integers(1, 6_000), zeros=st.integers(0, 30), where=st.integers(0, len(WORDS) - 1),
       kind=st.sampled_from(["${}", "{}.", "{}...", "{}. ", "$0{}"]))
def test_fuzz_huge_numbers_anywhere_never_escape_the_reader(digits, zeros, where, kind):
    number = "0" * zeros + "7" + "3" * (digits - 1)
    spot = WORDS[where].start() + len(SAMPLE_TEXT.split("\n\n", 1)[0]) + 2
    text = SAMPLE_TEXT[:spot] + kind.format(number) + " " + SAMPLE_TEXT[spot:]
    for item in record.read(text, "fuzz.tgn"):                  # reports, never raises
        if item.error is not None:
            # One line, no longer than a line of the file may be (some messages quote the
            # whole word; the move number and NAG checks clip theirs).
            assert len(item.error.located()) < textio.MAX_LINE + 500
            assert "\n" not in item.error.located()


@FEW
@given(count=st.integers(0, 12), limit=st.integers(1, 8),
       gap=st.sampled_from(["\n", " ", "\n\n", " {c} ", "\n; note\n", "\r\n"]))
def test_fuzz_many_empty_games_stop_at_the_limit(monkeypatch, count, limit, gap):
    # The limit is imported by name into the reader and the cutter: lower it in both.
    monkeypatch.setattr(record, "MAX_GAMES_PER_FILE", limit)
    monkeypatch.setattr(notation.syntax, "MAX_GAMES_PER_FILE", limit)   # the module, not the package
    checked = record.read(gap.join(["*"] * count) + "\n", "many.tgn")
    assert len(checked) == min(count, limit + 1)
    refused = [item for item in checked if item.error is not None]
    if count > limit:
        assert len(refused) == 1 and checked[-1] is refused[0]
        assert "MAX_GAMES_PER_FILE" in refused[0].error.message
    else:
        assert refused == []


@posix_only
@pytest.mark.parametrize("args", [["validate", "{f}", "-", "{f}"], ["validate", "--json", "-", "{f}"],
                                  ["move", "--since", "{f}", "-", "B@c1"], ["show", "--at", "1", "-"]],
                         ids=" ".join)
def test_fuzz_closed_stdin_among_other_arguments(tmp_path, args):
    good = tmp_path / "good.tgn"
    good.write_text(SAMPLE_TEXT, encoding="utf-8")
    done = run(*[arg.format(f=good) for arg in args], close_stdin=True)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    if "--json" in args:
        report = json.loads(done.stdout)
        assert [entry["ok"] for entry in report["files"]] == [False, True]
        assert "stdin is closed" in report["files"][0]["error"]["message"]
    else:
        assert any("stdin is closed" in line for line in done.stderr.splitlines())
    assert good.read_text(encoding="utf-8") == SAMPLE_TEXT
