"""tomis.util.safefile: atomic writes under injected faults, real kills, and a lock between two processes.

These tests run as root in CI too. Root ignores file and folder modes, so tests that need the
OS itself to refuse (read-only file, read-only folder) are skipped for root; the same error
paths are still covered for root by injecting ``OSError(EACCES)`` where the OS would raise it.
"""

from __future__ import annotations

import errno
import os
import re
import signal
import subprocess
import sys
import textwrap

import pytest

from tomis.util import safefile
from tomis.errors import FileError
from tomis.util.safefile import atomic_write, create_new, lock_path, locked

ORIGINAL = "[Event \"Club ladder\"]\n\n1. B@e1 B@d8 {é} *\n"
NEW = "[Event \"Club ladder\"]\n\n1. B@e1 B@d8 2. G@b1 *\n"
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
POSIX = os.name == "posix"


@pytest.fixture
def game(tmp_path):
    path = tmp_path / "g.tgn"
    path.write_bytes(ORIGINAL.encode())
    path.chmod(0o640)
    return path


def folder_entries(path):
    return sorted(os.listdir(path.parent))


def fail_on_call(monkeypatch, name, exc, nth=1):
    """Make os.<name> raise *exc* on its nth call (the earlier and later calls are real)."""
    real = getattr(os, name)
    calls = {"n": 0}

    def fake(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == nth:
            if name == "close":  # really close, as a kernel reporting a late error does
                real(*args, **kwargs)
            raise exc
        return real(*args, **kwargs)

    monkeypatch.setattr(safefile.os, name, fake)
    return calls


# --------------------------------------------------------------------------- atomic_write

def test_atomic_write_replaces_content_and_keeps_mode(game):
    atomic_write(game, NEW)
    assert game.read_bytes() == NEW.encode()
    assert game.stat().st_mode & 0o777 == 0o640
    assert folder_entries(game) == ["g.tgn"]


@pytest.mark.parametrize("mode", [0o600, 0o644, 0o755, 0o660])
def test_atomic_write_keeps_each_permission_set(game, mode):
    game.chmod(mode)
    atomic_write(game, NEW)
    assert game.stat().st_mode & 0o7777 == mode


@pytest.mark.skipif(not POSIX, reason="umask is POSIX")
def test_atomic_write_creates_a_missing_file_with_the_umask(tmp_path):
    old = os.umask(0o027)
    try:
        atomic_write(tmp_path / "fresh.tgn", NEW)
    finally:
        os.umask(old)
    assert (tmp_path / "fresh.tgn").read_text(encoding="utf-8") == NEW
    assert (tmp_path / "fresh.tgn").stat().st_mode & 0o777 == 0o640


def test_atomic_write_keeps_text_exactly(game):
    text = "a\r\nb\n{Ștefan}\n"  # no line-end translation, UTF-8 out
    atomic_write(game, text)
    assert game.read_bytes() == text.encode("utf-8")


@pytest.mark.skipif(not POSIX, reason="symbolic links need privileges on Windows")
def test_atomic_write_through_a_link_keeps_the_link(game):
    link = game.parent / "link.tgn"
    link.symlink_to(game.name)
    atomic_write(link, NEW)
    assert link.is_symlink()
    assert game.read_text(encoding="utf-8") == NEW


STEPS = [
    ("open", errno.EACCES, "permission denied"),    # creating the temporary file
    ("write", errno.ENOSPC, "the disk is full"),
    ("fchmod", errno.EPERM, "permission denied"),
    ("fsync", errno.EIO, "input/output error"),
    ("close", errno.EDQUOT, "quota"),                 # NFS reports write errors on close
    ("replace", errno.EACCES, "permission denied"),
]


@pytest.mark.parametrize("step, code, words", STEPS)
def test_a_failing_step_leaves_the_original_byte_identical(monkeypatch, game, step, code, words):
    calls = fail_on_call(monkeypatch, step, OSError(code, os.strerror(code)))
    with pytest.raises(FileError) as info:
        atomic_write(game, NEW)
    assert calls["n"] >= 1, f"os.{step} was never reached"
    monkeypatch.undo()
    assert game.read_bytes() == ORIGINAL.encode()
    assert game.stat().st_mode & 0o777 == 0o640
    assert folder_entries(game) == ["g.tgn"]
    message = str(info.value)
    assert words in message and message.endswith("the file is unchanged")
    assert message.startswith("cannot save: ") and "\n" not in message
    assert info.value.path == str(game)


@pytest.mark.parametrize("step", [name for name, _, _ in STEPS])
@pytest.mark.parametrize("interrupt", [KeyboardInterrupt, SystemExit])
def test_an_interrupt_at_any_step_leaves_the_original(monkeypatch, game, step, interrupt):
    assert interrupted_write(monkeypatch, game, step, interrupt()) == (ORIGINAL.encode(), ["g.tgn"])


def test_interrupt_after_the_rename_leaves_the_complete_new_file(monkeypatch, game):
    # The second fsync is the folder's, after the rename.
    assert interrupted_write(monkeypatch, game, "fsync", KeyboardInterrupt(), nth=2) == (
        NEW.encode(), ["g.tgn"])


def interrupted_write(monkeypatch, game, step, interrupt, nth=1):
    """``atomic_write(game, NEW)`` interrupted at call ``nth`` of ``step``: the file's
    bytes and the folder's entries afterwards."""
    fail_on_call(monkeypatch, step, interrupt, nth)
    with pytest.raises(type(interrupt)):
        atomic_write(game, NEW)
    monkeypatch.undo()
    return game.read_bytes(), folder_entries(game)


def test_a_folder_that_cannot_fsync_is_not_an_error(monkeypatch, game):
    fail_on_call(monkeypatch, "fsync", OSError(errno.EINVAL, "Invalid argument"), nth=2)
    atomic_write(game, NEW)
    assert game.read_bytes() == NEW.encode()


def test_short_writes_are_completed(monkeypatch, game):
    real = os.write
    monkeypatch.setattr(safefile.os, "write", lambda fd, data: real(fd, bytes(data[:3])))
    atomic_write(game, NEW)
    monkeypatch.undo()
    assert game.read_bytes() == NEW.encode()


@pytest.mark.parametrize("make, words", [
    (lambda p: p.parent, "is a folder; name a file in it instead"),
    (lambda p: p.parent / "no" / "g.tgn", "the folder does not exist"),
])
def test_atomic_write_refuses_impossible_targets(game, make, words):
    with pytest.raises(FileError, match=words):
        atomic_write(make(game), NEW)
    assert game.read_bytes() == ORIGINAL.encode()


@pytest.mark.skipif(IS_ROOT or not POSIX, reason="root writes whatever the modes say")
def test_read_only_file_and_folder_are_refused_by_the_os(game):
    game.chmod(0o444)
    with pytest.raises(FileError, match="read-only"):
        atomic_write(game, NEW)
    game.chmod(0o644)
    game.parent.chmod(0o555)
    try:
        with pytest.raises(FileError, match="permission denied"):
            atomic_write(game, NEW)
    finally:
        game.parent.chmod(0o755)
    assert game.read_bytes() == ORIGINAL.encode()
    assert folder_entries(game) == ["g.tgn"]


KILLER = textwrap.dedent("""
    import os, signal, sys
    from tomis.util import safefile
    step = sys.argv[2]
    def die(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGKILL)  # no finally, no clean-up: a real crash
    setattr(os, step, die)
    safefile.atomic_write(sys.argv[1], "half a game")
""")


@pytest.mark.skipif(not POSIX, reason="SIGKILL is POSIX")
@pytest.mark.parametrize("step", ["write", "fsync", "replace"])
def test_a_real_kill_before_the_rename_never_touches_the_original(game, step):
    done = subprocess.run([sys.executable, "-c", KILLER, str(game), step], timeout=60)
    assert done.returncode == -signal.SIGKILL
    assert game.read_bytes() == ORIGINAL.encode()
    # A killed process cannot clean up: at most its hidden temporary file remains.
    leftovers = [name for name in folder_entries(game) if name != "g.tgn"]
    assert all(re.fullmatch(r"\.g\.tgn\.tomis-[0-9a-f]{16}\.part", name) for name in leftovers)


# --------------------------------------------------------------------------- create_new

def test_create_new_writes_a_fresh_file(tmp_path):
    path = tmp_path / "new.tgn"
    create_new(path, NEW)
    assert path.read_bytes() == NEW.encode()
    assert folder_entries(path) == ["new.tgn"]


def test_create_new_refuses_an_existing_file(game):
    with pytest.raises(FileError) as info:
        create_new(game, NEW)
    assert str(info.value) == "already exists; choose another name or remove it first"
    assert game.read_bytes() == ORIGINAL.encode()
    assert folder_entries(game) == ["g.tgn"]


@pytest.mark.skipif(not POSIX, reason="symbolic links need privileges on Windows")
def test_create_new_refuses_a_dangling_link(tmp_path):
    link = tmp_path / "g.tgn"
    link.symlink_to("nowhere.tgn")
    with pytest.raises(FileError, match="already exists"):
        create_new(link, NEW)
    assert not (tmp_path / "nowhere.tgn").exists()


def test_create_new_without_hard_links_still_works(monkeypatch, tmp_path):
    fail_on_call(monkeypatch, "link", OSError(errno.EPERM, "Operation not permitted"))
    path = tmp_path / "new.tgn"
    create_new(path, NEW)
    monkeypatch.undo()
    assert path.read_bytes() == NEW.encode()
    assert folder_entries(path) == ["new.tgn"]


def test_create_new_fallback_removes_a_half_written_file(monkeypatch, tmp_path):
    fail_on_call(monkeypatch, "link", OSError(errno.EPERM, "Operation not permitted"))
    fail_on_call(monkeypatch, "write", OSError(errno.ENOSPC, "No space left"), nth=2)
    path = tmp_path / "new.tgn"
    with pytest.raises(FileError, match="the disk is full"):
        create_new(path, NEW)
    monkeypatch.undo()
    assert folder_entries(path) == []


@pytest.mark.parametrize("step", ["write", "fsync", "link"])
def test_create_new_failing_leaves_nothing(monkeypatch, tmp_path, step):
    fail_on_call(monkeypatch, step, OSError(errno.ENOSPC, "No space left"))
    with pytest.raises(FileError, match="cannot save: the disk is full; nothing was written$"):
        create_new(tmp_path / "new.tgn", NEW)
    monkeypatch.undo()
    assert os.listdir(tmp_path) == []


# --------------------------------------------------------------------------- locked

HOLDER = textwrap.dedent("""
    import sys
    from tomis.util.safefile import atomic_write, locked
    with locked(sys.argv[1]):
        atomic_write(sys.argv[1], sys.argv[2])  # the rename must not drop the lock
        print("holding", flush=True)
        sys.stdin.readline()                    # hold until the test says so
    print("released", flush=True)
""")


@pytest.mark.skipif(safefile.fcntl is None, reason="the POSIX lock; Windows uses msvcrt")
def test_a_second_process_is_refused_and_changes_nothing(game):
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(game), NEW],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "holding\n"
        with pytest.raises(FileError) as info:
            with locked(game):
                atomic_write(game, "intruder")
        assert str(info.value) == ("this file is being changed by another tomis process; "
                                   "try again")
        assert info.value.path == str(game)
        assert game.read_bytes() == NEW.encode()
        holder.stdin.write("\n")
        holder.stdin.flush()
        assert holder.stdout.readline() == "released\n"
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)
    assert holder.returncode == 0
    with locked(game):  # free again once the holder is gone
        atomic_write(game, ORIGINAL)
    assert game.read_bytes() == ORIGINAL.encode()
    assert folder_entries(game) == ["g.tgn"]  # the sidecar is removed


def test_lock_is_released_when_the_block_fails(game):
    with pytest.raises(ValueError):
        with locked(game):
            assert os.path.exists(lock_path(game))
            raise ValueError("boom")
    with locked(game):
        pass
    assert folder_entries(game) == ["g.tgn"]


@pytest.mark.skipif(safefile.fcntl is None, reason="flock is per open file only on POSIX")
def test_lock_is_not_reentrant(game):
    with locked(game):
        with pytest.raises(FileError, match="another tomis process"):
            with locked(game):
                pass


def test_lock_file_sits_beside_the_real_file(game):
    assert lock_path(game) == str(game.parent / ".g.tgn.lock")


def test_lock_that_cannot_create_its_file_says_why(monkeypatch, game):
    fail_on_call(monkeypatch, "open", OSError(errno.EACCES, "Permission denied"))
    with pytest.raises(FileError) as info:
        with locked(game):
            pass
    assert str(info.value).startswith("cannot lock: permission denied")


@pytest.mark.skipif(safefile.fcntl is None, reason="the sidecar is only removed on POSIX")
def test_lock_taken_on_a_just_removed_sidecar_is_retaken(monkeypatch, game):
    # Between our open and our flock, the previous holder removes the sidecar it held:
    # the flock succeeds on a file nobody can find any more, so it must not count.
    real = safefile._try_lock
    calls = {"n": 0}

    def racing(fd):
        calls["n"] += 1
        if calls["n"] == 1:
            os.unlink(lock_path(game))
        return real(fd)

    monkeypatch.setattr(safefile, "_try_lock", racing)
    with locked(game):
        assert calls["n"] == 2
        held = os.stat(lock_path(game))
        probe = os.open(lock_path(game), os.O_RDWR)
        try:
            with pytest.raises(BlockingIOError):
                safefile.fcntl.flock(probe, safefile.fcntl.LOCK_EX | safefile.fcntl.LOCK_NB)
        finally:
            os.close(probe)
        assert held.st_ino == os.stat(lock_path(game)).st_ino
