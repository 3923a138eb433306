"""Files as tomis meets them: the documented limits, folders, missing and unreadable
files, and real ``tomis`` processes racing for one file or failing half way through a write.

(Once tests/test_trust.py; the Digest tests are in test_record_digest.py, ``move --as``
and ``--since`` in test_cli_email.py.)
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import invoke as run
from conftest import tomis, written
from tomis.notation import record
from tomis.util import safefile, textio
from tomis.errors import RecordError


# --------------------------------------------------------------------------- limits

def test_a_comment_of_max_comment_characters_is_kept_and_one_more_is_refused():
    body = ("x" * 99 + "\n") * (textio.MAX_COMMENT // 100)
    assert len(body) == textio.MAX_COMMENT
    assert record.read_game("1. B@e1 {" + body + "} *").nodes[0].comments
    with pytest.raises(RecordError) as caught:
        record.read_game("1. B@e1 {" + body + "y} *", "c.tgn")
    assert caught.value.located() == (
        "c.tgn:1:9: game 1: this comment holds 10,001 characters; a comment may hold at most "
        "10,000 (MAX_COMMENT)")


def _action_lines(count: int) -> str:
    words = ["B@e1"] * count
    return "\n".join(" ".join(words[i:i + 1000]) for i in range(0, count, 1000))


def test_more_than_max_actions_is_refused_at_the_first_extra_action(monkeypatch):
    # No legal game gets near 20,000 actions (R22 draws after 100 quiet ones), so the
    # limit is shown with a small stand-in value.
    monkeypatch.setattr(record, "MAX_ACTIONS_PER_GAME", 3)
    with pytest.raises(RecordError) as caught:
        record.read_game("1. B@e1 B@d8 2. G@b1 G@g8 *", "big.tgn")
    assert caught.value.located() == (
        "big.tgn:1:22: game 1, action 4: a game may hold at most 3 actions "
        "(MAX_ACTIONS_PER_GAME); no real game comes near that")


def test_more_than_max_tokens_is_refused_while_lexing_at_the_first_extra_token():
    # Millions of empty comments once cost a minute and 1.6 GB; lexing now stops here.
    limit = textio.MAX_TOKENS_PER_GAME
    checked = record.read("1. B@e1 {}\n" + "{}\n" * limit + "*\n", "big.tgn")
    # Tokens 1-2 are "1." and "B@e1"; comment k stands on line k, so token limit + 1
    # is the comment on line limit - 1.
    assert checked[0].game is None
    assert checked[0].error.located() == (
        f"big.tgn:{limit - 1}:1: game 1: a game may hold at most {limit:,} tokens (actions, move "
        "numbers, comments, annotations; MAX_TOKENS_PER_GAME); this one has more")


def test_actions_inside_comments_do_not_count_towards_the_limit():
    limit = textio.MAX_ACTIONS_PER_GAME
    text = "1. B@e1 {" + _action_lines(limit + 1).replace("\n", "}\n{") + "} *\n"
    checked = record.read(text)
    assert checked[0].error is None and len(checked[0].game.nodes) == 1


def test_a_million_actions_on_one_line_is_refused_by_the_line_limit(tmp_path):
    path = tmp_path / "line.tgn"
    path.write_text("B@e1 " * 1_000_000 + "*\n")
    result = run("validate", path)
    assert (result.exit_code, result.stderr) == (2, (
        f"{path}:1:10001: line 1 is longer than 10,000 characters; a game record never needs "
        "lines that long\n"))


def test_a_file_over_max_file_bytes_is_refused_without_reading_it_whole(tmp_path):
    path = tmp_path / "huge.tgn"
    with open(path, "wb") as stream:
        stream.truncate(textio.MAX_FILE_BYTES + 1)       # sparse: costs no disk
    result = run("validate", path)
    assert (result.exit_code, result.stderr) == (
        2, f"{path}: the file is larger than 16 MiB; a game record is never that big\n")


@pytest.mark.parametrize("command", [["validate"], ["show"], ["fmt"], ["move", "_", "B@e1"]])
def test_a_folder_or_a_missing_file_is_a_clear_error_not_a_traceback(tmp_path, command):
    for target in (tmp_path, tmp_path / "missing.tgn"):
        args = [str(target) if word == "_" else word for word in command]
        if "_" not in command:
            args.append(str(target))
        result = run(*args)
        assert result.exit_code == 2
        last = result.stderr.strip().splitlines()[-1]
        # One style for both (issue 17): tomis's own line, not click's usage message.
        assert last == (f"{target}: is a folder, not a game file" if target == tmp_path
                        else f"{target}: no such file")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_file_is_a_clear_error(tmp_path):
    path = written(tmp_path / "g.tgn", "1. B@e1")
    path.chmod(0)
    result = run("validate", path)
    assert (result.exit_code, result.stderr) == (
        2, f"{path}: permission denied: cannot read this file\n")



# --------------------------------------------------------------------------- writers

LOCK_HOLDER = textwrap.dedent("""
    import sys
    from tomis.util import safefile
    with safefile.locked(sys.argv[1]):
        print("locked", flush=True)
        sys.stdin.read()            # hold until the test closes our stdin
""")


@pytest.fixture
def held(tmp_path):
    """A helper process holding the tomis lock on g.tgn until the test ends."""
    path = written(tmp_path / "g.tgn", "1. B@e1")
    holder = subprocess.Popen([sys.executable, "-c", LOCK_HOLDER, str(path)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline() == "locked\n"
    yield path
    holder.stdin.close()
    holder.wait(timeout=60)


@pytest.mark.parametrize("command", [["move", "_", "B@d8"], ["fmt", "_"], ["play", "_"]])
def test_a_real_second_writer_fails_clearly_and_changes_nothing(held, command):
    held.write_text("1.B@e1   *\n")          # not canonical, so fmt too has to write
    before = held.read_bytes()
    args = [str(held) if word == "_" else word for word in command]
    done = tomis(*args, input="B@d8\nquit\n")
    assert (done.returncode, done.stderr) == (
        1, f"{held}: this file is being changed by another tomis process; try again\n")
    assert held.read_bytes() == before


def test_two_real_move_processes_racing_never_both_win(tmp_path):
    # Both play White's first action, each a different one. If either read the record
    # outside the lock, both could succeed and one action would silently vanish.
    for round_ in range(6):
        path = written(tmp_path / f"race{round_}.tgn", "")
        command = [sys.executable, "-m", "tomis", "move", str(path)]
        racers = [subprocess.Popen(command + [action], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
                  for action in ("B@e1", "B@f1")]
        outcomes = [(racer.wait(timeout=120), racer.stderr.read()) for racer in racers]
        for racer in racers:
            racer.stdout.close()
            racer.stderr.close()
        codes = sorted(code for code, _ in outcomes)
        assert codes == [0, 1], outcomes
        loser = next(err for code, err in outcomes if code == 1)
        assert ("being changed by another tomis process" in loser
                or "action 2 (Black)" in loser), loser
        game = record.read_game(path.read_text())
        assert len(game.nodes) == 1


def test_a_move_whose_write_fails_leaves_the_file_as_it_was(tmp_path, monkeypatch):
    path = written(tmp_path / "g.tgn", "1. B@e1")
    before = path.read_bytes()

    def disk_full(*_args):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(safefile.os, "replace", disk_full)
    result = run("move", path, "B@d8")
    assert (result.exit_code, result.stderr) == (
        1, f"{path}: cannot save: the disk is full; the file is unchanged\n")
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.tgn"]


def test_a_save_by_another_tomis_between_open_and_lock_is_read_not_refused(tmp_path, monkeypatch):
    """The loser of a race opens the file, the winner saves (a new file) and unlocks, the
    loser locks: it must read the winner's record, not refuse a file 'replaced' by tomis."""
    from tomis.cli import files

    path = written(tmp_path / "g.tgn", "")
    real_pin = safefile.pin
    calls = []

    def pin_then_another_tomis_saves(name):
        pinned = real_pin(name)
        if not calls:
            fresh = tmp_path / "fresh.tmp"
            fresh.write_text("1. B@e1 *\n", encoding="utf-8")
            os.replace(fresh, path)             # what atomic_write does
        calls.append(name)
        return pinned

    monkeypatch.setattr(safefile, "pin", pin_then_another_tomis_saves)
    with files.pinned_and_locked(str(path)) as pinned:
        assert pinned.stream.read().decode() == "1. B@e1 *\n"
    assert len(calls) == 2


def test_a_link_swapped_in_between_open_and_lock_is_still_refused(tmp_path, monkeypatch):
    from tomis.cli import files
    from tomis.errors import FileError

    path = written(tmp_path / "g.tgn", "")
    elsewhere = tmp_path / "victim.txt"
    elsewhere.write_text("keep me\n", encoding="utf-8")
    real_pin = safefile.pin

    def pin_then_swap_in_a_link(name):
        pinned = real_pin(name)
        if not elsewhere.with_suffix(".done").exists():
            elsewhere.with_suffix(".done").write_text("")
            os.remove(path)
            os.symlink(elsewhere, path)
        return pinned

    monkeypatch.setattr(safefile, "pin", pin_then_swap_in_a_link)
    with pytest.raises(FileError, match="replaced by another file or a link"):
        with files.pinned_and_locked(str(path)):
            pass
    assert elsewhere.read_text(encoding="utf-8") == "keep me\n"
