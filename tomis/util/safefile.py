"""Writing game files so that no crash, full disk or second process can lose or corrupt one.

- :func:`atomic_write` replaces a file's content all at once: readers and a crash at any
  moment see either the old bytes or the new bytes, never a mix or an empty file.
- :func:`create_new` writes a file that must not exist yet (``tomis new``), just as safely.
- :func:`locked` keeps two tomis processes from changing one file at the same time.
- :func:`write_own` and :func:`read_own` are for a name the program chose itself in a
  folder (the referee's status pages and outbox messages), not a path the user named.

Text is written as UTF-8 with the ``\\n`` line ends it has; nothing is translated.
One policy for every file tomis writes (:func:`writable_target`): only a regular file or
nothing is replaced; a folder, a FIFO, a device or a socket is refused before anything is
opened. A path that is a symbolic link is resolved once: the file it points to is
replaced, in that file's folder, and the link stays a link; the name resolved then is the
one renamed over, and only if it still holds a regular file or nothing. :func:`pin`
decides that once, when a command opens a file it reads and writes back: a path that was
not a link is never followed later (docs/SECURITY.md).

A name the program chose in a folder others may share (a web root, a hand-off folder)
follows another policy (:func:`write_own`): nothing there is followed or opened unless it
is a regular file, so a link planted at that name never leads the write elsewhere, and the
file gets the mode the program asks for, whatever the umask.

Temporary files are unnamed (``O_TMPFILE``) where the file system allows, so a killed
tomis leaves none; elsewhere they are named ``.NAME.tomis-<hex>.part``, locked by their
writer, and removed by the next write in that folder once their lock is free
(:func:`sweep_stale_parts`).

Every failure is a :class:`~tomis.errors.FileError` with ``.path`` set and a one-line
message that says the file is unchanged. ``KeyboardInterrupt`` and ``SystemExit`` are let
through, after the same clean-up.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from tomis.errors import FileError

try:  # POSIX
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]
try:
    import msvcrt  # type: ignore[import-not-found]
except ImportError:
    msvcrt = None  # type: ignore[assignment]

_REASONS = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EROFS: "the file system is read-only",
    errno.ENOENT: "the folder does not exist",
    errno.ENOTDIR: "part of the path is not a folder",
    errno.EISDIR: "it is a folder",
    errno.EIO: "input/output error from the disk",
}
_LOCK_RETRIES = 5
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)     # Windows has none (and no symlink attacks by users)


# --------------------------------------------------------------------------- writing

def atomic_write(path: str | os.PathLike[str], text: str | bytes | Iterable[str | bytes],
                 pinned: Pinned | None = None) -> list[str]:
    """Replace the content of *path* with *text*, all or nothing; the names of the stale
    temporary files it removed on the way (see :func:`sweep_stale_parts`).

    *text* is a string (written as UTF-8), bytes, or an iterable of either, written as it
    comes (an archive command's output or a GIF is never held whole); an exception raised
    while iterating leaves the original untouched, as any other failure before the rename
    does.

    *path* must be a regular file or nothing (:func:`writable_target`): a FIFO, a device,
    a socket or a folder is refused before anything is opened, and a link is resolved
    once, here, and never again. The new text goes to a temporary file in that folder
    (unnamed, ``O_TMPFILE``, where the file system has it, so a killed tomis leaves
    nothing), is flushed and fsynced, gets the original's permission bits (and, when
    allowed, its owner), and is renamed over the resolved name with ``os.replace``, only
    if that name still holds a regular file or nothing; then the folder is fsynced so the
    rename survives a power cut. A missing file is created with the usual mode (0666 less
    the umask). A file we may not write (read-only mode) is refused, although the folder
    would allow the rename. Other hard links to the original keep the old text.

    Guaranteed on any failure before the rename (including ``KeyboardInterrupt``): the
    original is byte-identical and no temporary file remains. Raises :class:`FileError`
    (disk full, permission denied, read-only file system, missing folder, *path* is a
    folder or not a regular file, ...). A failing fsync of the folder after the rename is
    ignored: the new content is already in place and some file systems cannot fsync a
    folder.

    With *pinned* (from :func:`pin`, taken when the file was read), the file replaced is
    the one pinned, named as it was then, and the write is refused unless that name still
    holds the very file that was read (same device and inode): a file swapped for a link
    or another file meanwhile is never written through (finding 2).
    """
    target = writable_target(path) if pinned is None else pinned.target
    original = _stat_or_none(target, path)
    if original is not None and not os.access(target, os.W_OK):
        # Replacing needs only the folder's permission; a read-only file says "keep this".
        raise _error(path, "the file is read-only")

    def publish(part: _Part) -> None:
        _name_part(part, target)
        if pinned is not None:
            pinned.check(path)
        else:
            _still_writable(target, path)
        os.replace(part.name, target)
        part.name = None

    removed = sweep_stale_parts(os.path.dirname(target))
    try:
        _write_via_part(target, _encoded(text), original, publish)
    except OSError as exc:
        raise _error(path, _reason(exc), unchanged=original is not None) from None
    return removed


def create_new(path: str | os.PathLike[str], text: str) -> list[str]:
    """Create *path* holding *text* (UTF-8); refuse if anything already has that name.
    Returns the names of the stale temporary files removed on the way.

    Like ``O_EXCL``, the existence check and the creation are one step, and like
    :func:`atomic_write` the file appears complete or not at all: the text is written and
    fsynced to a temporary file that is then hard-linked to *path* (``link`` fails if the
    name exists). On a file system without hard links it falls back to ``O_EXCL`` creation
    plus write, removing the half-written file on failure (a power cut during that fallback
    can leave a short file).

    Raises :class:`FileError` "already exists; ..." when *path* exists (also a dangling
    symbolic link, a FIFO or a device: nothing is ever replaced), and for every failure
    :func:`atomic_write` reports.
    """
    name = os.fspath(path)
    data = text.encode("utf-8")

    def publish(part: _Part) -> None:
        _link_new(part, name, data)       # a named part is then removed as unpublished

    removed = sweep_stale_parts(os.path.dirname(os.path.abspath(name)))
    try:
        _write_via_part(name, (data,), None, publish)
    except FileExistsError:
        # A folder is named as the readers name it, so every path problem reads alike.
        what = ("is a folder; name a file in it instead" if os.path.isdir(name)
                else "already exists; choose another name or remove it first")
        err = FileError(what)
        err.path = name
        raise err from None
    except OSError as exc:
        raise _error(path, _reason(exc), unchanged=False) from None
    return removed


# --------------------------------------------------------------------------- the program's own names

def write_own(folder: str | os.PathLike[str], name: str, data: str | bytes, mode: int) -> None:
    """Replace ``FOLDER/NAME``, a name the program chose itself, with *data*, all or
    nothing, as a regular file of exactly *mode* (0600 for what holds secrets).

    Unlike :func:`atomic_write`, meant for a path the user named, nothing at *name* is
    followed: a symbolic link, a FIFO, a device, a socket or a folder there is refused
    before anything is opened (someone who may write the folder put it there; the file it
    points to stays untouched), and checked again just before the rename, which replaces
    the name itself and never follows a link. The new file is written beside it, created
    readable by its owner only, fsynced, given *mode*, then renamed over the name.

    Raises :class:`FileError` (``.path`` set) with a one-line message saying nothing was
    written.
    """
    target = os.path.join(os.path.abspath(os.fspath(folder)), name)
    _own_target(target, "")

    def publish(part: _Part) -> None:
        _name_part(part, target)
        _own_target(target, " now (it changed while tomis was writing)")
        os.replace(part.name, target)
        part.name = None

    sweep_stale_parts(os.path.dirname(target))
    try:
        _write_via_part(target, _encoded(data), None, publish, mode)
    except OSError as exc:
        raise _error(target, _reason(exc), unchanged=False) from None


def read_own(folder: str | os.PathLike[str], name: str) -> bytes | None:
    """The bytes of ``FOLDER/NAME`` when it is a regular file, else None (missing, a
    link, a FIFO, anything else, or unreadable). Opened without following a link and
    without blocking, so a FIFO planted there never hangs the reader."""
    target = os.path.join(os.fspath(folder), name)
    try:
        fd = os.open(target, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC
                     | getattr(os, "O_BINARY", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as stream:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        try:
            return stream.read()
        except OSError:
            return None


def _own_target(target: str, when: str) -> None:
    """Refuse anything at *target* but a regular file (or nothing), links included."""
    try:
        found = os.lstat(target)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise _error(target, _reason(exc), unchanged=False) from None
    if stat.S_ISLNK(found.st_mode):
        problem = "a symbolic link"
    else:
        problem = _not_regular(found)
    if problem is not None:
        err = FileError(f"cannot save: it is{when} {problem}, which tomis never makes there; "
                        f"nothing was written and nothing it points to was touched: remove it")
        err.path = target
        raise err


# --------------------------------------------------------------------------- the target

_KINDS = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def writable_target(path: str | os.PathLike[str]) -> str:
    """The name a write to *path* replaces: *path* itself, or, when *path* is a symbolic
    link, the file it points to, resolved now and never again.

    Only a regular file or nothing may be there (finding 6): a folder, a FIFO, a device
    node or a socket -- named, or reached through a link -- raises :class:`FileError`
    saying what it is, and nothing is opened to find out, so a FIFO never blocks.
    """
    name = os.fspath(path)
    try:
        found = os.lstat(name)
    except FileNotFoundError:
        return os.path.abspath(name)
    except OSError as exc:
        raise _error(path, _reason(exc)) from None
    target, through = os.path.abspath(name), ""
    if stat.S_ISLNK(found.st_mode):
        target = _real_target(name)
        through = f"a link to {target}, which is "
        found = _stat_or_none(target, path)
        if found is None:
            return target             # a dangling link: the file is created where it points
    if stat.S_ISDIR(found.st_mode):
        err = FileError("is a folder; name a file in it instead")   # as the readers say it
        err.path = name
        raise err
    problem = _not_regular(found)
    if problem is not None:
        raise _refused(path, f"{through}{problem}")
    return target


def _not_regular(found: os.stat_result) -> str | None:
    if stat.S_ISREG(found.st_mode):
        return None
    if stat.S_ISDIR(found.st_mode):
        return "a folder"
    return next((what for test, what in _KINDS if test(found.st_mode)), "not a regular file")


def _refused(path, problem: str) -> FileError:
    err = FileError(f"cannot save: it is {problem}; tomis writes only regular files, "
                    f"so nothing was written")
    err.path = os.fspath(path)
    return err


def _still_writable(target: str, path) -> None:
    """Just before the rename: the resolved name holds a regular file or nothing. A link
    or a FIFO put there meanwhile is refused, not replaced (and never followed: a rename
    does not follow a link at its destination)."""
    try:
        found = os.lstat(target)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(found.st_mode):
        raise _refused(path, "now a symbolic link (it changed while tomis was writing)")
    problem = _not_regular(found)
    if problem is not None:
        raise _refused(path, f"now {problem} (it changed while tomis was writing)")


# --------------------------------------------------------------------------- temporary files

# Every temporary file is a "part": unnamed (O_TMPFILE) where the file system allows,
# otherwise (or for the instant between its link and its rename) named like this and
# held with an exclusive flock for as long as its writer lives.
_PART = re.compile(r"\..*\.tomis-[0-9a-f]{16}\.part", re.DOTALL)
_PART_STEM_BYTES = 100        # of the target's name: a part's name must fit in NAME_MAX
# Documented test seams (docs/SECURITY.md, finding 7): named parts even where O_TMPFILE
# works, and a pause with the part written, just before it is published.
_NO_TMPFILE_ENV = "TOMIS_TEST_NO_TMPFILE"
_PAUSE_ENV = "TOMIS_TEST_PAUSE_BEFORE_RENAME"


@dataclass
class _Part:
    """A temporary file being written: ``fd`` to write (closed before the part is
    published, so that a file system reporting write errors on close, like NFS, is heard),
    ``keep``, a duplicate that holds the part's lock until it is renamed or removed, and
    its ``name`` once it has one (None while unnamed, and after it was renamed into place)."""

    fd: int
    keep: int
    name: str | None


def _encoded(text) -> Iterable[bytes]:
    if isinstance(text, str):
        return (text.encode("utf-8"),)
    if isinstance(text, (bytes, bytearray, memoryview)):
        return (bytes(text),)
    return (part.encode("utf-8") if isinstance(part, str) else part for part in text)


def _write_via_part(target: str, chunks: Iterable[bytes], original: os.stat_result | None,
                    publish, mode: int | None = None) -> None:
    """Write *chunks* to a fresh part beside *target*, then ``publish(part)``.

    With *mode*, the part is created readable by its owner only and gets exactly *mode*
    once written: nobody else can open it while it fills, whatever the umask.

    The part's name (if it got one and was not published) is removed before its lock is
    let go, that is while the lock still says a live writer owns it.
    """
    part = _new_part(target, 0o666 if mode is None else 0o600)
    try:
        try:
            for chunk in chunks:
                _write_all(part.fd, chunk)
            if original is not None:
                _copy_mode_and_owner(part.fd, original)
            if mode is not None and hasattr(os, "fchmod"):
                os.fchmod(part.fd, mode)
            os.fsync(part.fd)
        finally:
            os.close(part.fd)
        _pause_for_tests()
        publish(part)
    finally:
        if part.name is not None:
            _remove_quietly(part.name)
        with contextlib.suppress(OSError):
            os.close(part.keep)           # only now may a sweep take the part
    _sync_folder(os.path.dirname(target) or ".")


def _new_part(target: str, mode: int = 0o666) -> _Part:
    folder = os.path.dirname(target) or "."
    if _tmpfile_usable():
        try:
            fd = os.open(folder, os.O_TMPFILE | os.O_WRONLY | _CLOEXEC, mode)
        except OSError as exc:
            if exc.errno not in _NO_TMPFILE_ERRNOS:
                raise
        else:
            return _Part(fd, _lock_part(fd), None)
    return _named_part(target, mode)


_NO_TMPFILE_ERRNOS = {errno.EOPNOTSUPP, errno.ENOTSUP, errno.EISDIR, errno.EINVAL, errno.ENOSYS}
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def _tmpfile_usable() -> bool:
    # Linking an unnamed file needs /proc/self/fd (linkat with AT_EMPTY_PATH needs a
    # privilege), so without /proc the parts are named.
    return (hasattr(os, "O_TMPFILE") and fcntl is not None and not os.environ.get(_NO_TMPFILE_ENV)
            and os.path.isdir("/proc/self/fd"))


def _link_unnamed(fd: int, name: str) -> None:
    """Give the unnamed file open as *fd* the name *name* (``linkat`` through
    ``/proc/self/fd``, following that magic link). ``os.link`` calls plain ``link``,
    which does not follow it, unless a folder descriptor is passed: hence ``src_dir_fd``."""
    folder = os.open("/proc/self/fd", os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
    try:
        os.link(str(fd), name, src_dir_fd=folder, follow_symlinks=True)
    finally:
        with contextlib.suppress(OSError):
            os.close(folder)


def _part_name(target: str) -> str:
    folder, base = os.path.split(target)
    stem = os.fsdecode(os.fsencode(base)[:_PART_STEM_BYTES])
    # Hidden, unguessable, and named tomis's own, so editors and other tools leave it alone
    # and a sweep never takes another program's temporary file.
    return os.path.join(folder, f".{stem}.tomis-{secrets.token_hex(8)}.part")


def _named_part(target: str, mode: int = 0o666) -> _Part:
    """A part created by name, locked, and checked to be still ours.

    A sweep may find the part in the instant between its creation and its lock, take the
    lock and remove it; so after locking, the name must still be this file, else start
    again with a new one.
    """
    while True:
        name = _part_name(target)
        try:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
                         | getattr(os, "O_BINARY", 0), mode)
        except FileExistsError:
            continue
        keep = _lock_part(fd)
        if _still_named(fd, name):
            return _Part(fd, keep, name)
        os.close(fd)
        os.close(keep)


def _name_part(part: _Part, target: str) -> None:
    """Give an unnamed part a name beside *target*, so that it can be renamed over it.
    The lock taken on the descriptor holds for the name too: it is the same file."""
    while part.name is None:
        name = _part_name(target)
        try:
            _link_unnamed(part.keep, name)
        except FileExistsError:
            continue
        part.name = name


def _lock_part(fd: int) -> int:
    """Lock the part open as *fd*; a duplicate descriptor that keeps the lock (a flock
    belongs to the open file, so it lasts until both are closed)."""
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX)    # a sweep holds a part's lock only to remove it
    return os.dup(fd)


def _pause_for_tests() -> None:
    pause = os.environ.get(_PAUSE_ENV)
    if not pause:
        return
    os.write(2, b"tomis: paused before the rename (" + _PAUSE_ENV.encode() + b")\n")
    time.sleep(float(pause))


def sweep_stale_parts(folder: str) -> list[str]:
    """Remove the temporary files a killed tomis left in *folder*; their names.

    A part is tomis's own by its name (``.NAME.tomis-<16 hex digits>.part``), and stale
    when nobody holds its lock: every live writer holds the lock of its part from
    creation to rename, and the lock dies with its process. Only regular files owned by
    us are taken; links and anything else are left alone. Without ``flock`` (Windows)
    staleness cannot be proved, and nothing is removed.
    """
    if fcntl is None:
        return []
    try:
        names = sorted(name for name in os.listdir(folder or ".") if _PART.fullmatch(name))
    except OSError:
        return []
    return [name for name in names if _remove_if_stale(os.path.join(folder, name))]


def _remove_if_stale(full: str) -> bool:
    try:
        fd = os.open(full, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC)
    except OSError:
        return False                      # a link, gone already, or not ours to read
    try:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode) or (hasattr(os, "getuid") and found.st_uid != os.getuid()):
            return False
        if not _try_lock(fd):
            return False                  # a live writer holds it
        if not _still_named(fd, full):
            return False                  # renamed into place meanwhile: not a part any more
        os.unlink(full)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    # os.write may write less than asked (signals, some file systems): keep going.
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _copy_mode_and_owner(fd: int, original: os.stat_result) -> None:
    if hasattr(os, "fchown"):
        with contextlib.suppress(OSError):  # only root (or the owner, for the group) may
            os.fchown(fd, original.st_uid, original.st_gid)
    if hasattr(os, "fchmod"):
        os.fchmod(fd, stat.S_IMODE(original.st_mode))


_NO_HARD_LINKS = {errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK,
                  errno.ENOSYS}


def _link_new(part: _Part, name: str, data: bytes) -> None:
    """Publish *part* as the new file *name*: a hard link, which fails if the name exists;
    where there are no hard links, an ``O_EXCL`` file written again."""
    try:
        if part.name is None:
            _link_unnamed(part.keep, name)
        else:
            os.link(part.name, name)
    except FileExistsError:
        raise
    except OSError as exc:
        if exc.errno not in _NO_HARD_LINKS:
            raise
        _create_exclusive(name, data)


def _create_exclusive(name: str, data: bytes) -> None:
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        try:
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        _remove_quietly(name)  # we created it a moment ago; never leave it half written
        raise


def _sync_folder(folder: str) -> None:
    if not hasattr(os, "O_DIRECTORY"):
        return  # Windows cannot open a folder; NTFS journals the rename itself
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems refuse fsync on folders; the rename has happened
    finally:
        os.close(fd)


def _remove_quietly(name: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(name)


def _real_target(path) -> str:
    """The file that will really be replaced: links followed, so a link stays a link."""
    return os.path.realpath(os.fspath(path))


def _stat_or_none(target: str, path) -> os.stat_result | None:
    try:
        return os.stat(target)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _error(path, _reason(exc)) from None


def _reason(exc: OSError) -> str:
    return _REASONS.get(exc.errno) or (exc.strerror or str(exc)).lower()


def _error(path, reason: str, unchanged: bool = True) -> FileError:
    tail = "; the file is unchanged" if unchanged else "; nothing was written"
    err = FileError(f"cannot save: {reason}{tail}")
    err.path = os.fspath(path)
    return err


# --------------------------------------------------------------------------- pinning

@dataclass
class Pinned:
    """A game file opened once: its ``stream`` to read, the ``target`` name to replace,
    and the identity (``st_dev``, ``st_ino``) it had when opened."""

    target: str
    device: int
    inode: int
    stream: object

    def check(self, path) -> None:
        """Raise :class:`FileError` unless ``target`` still names the pinned file."""
        try:
            now = os.lstat(self.target)
        except OSError:
            now = None
        if now is None or not stat.S_ISREG(now.st_mode) or (now.st_dev, now.st_ino) != (
                self.device, self.inode):
            raise _error(path, "the file was replaced by another file or a link while tomis "
                               "was working on it; run the command again")

    def close(self) -> None:
        self.stream.close()


def pin(path: str | os.PathLike[str]) -> Pinned | None:
    """Open *path* once for reading and remember which file it is.

    A link the user named is followed (once, now); a path that is not a link is opened
    with ``O_NOFOLLOW``, so a link swapped in at this moment is refused rather than
    followed. None when the path cannot be pinned because it is missing, not a regular
    file or not readable: the caller then reads by name and reports that the usual way.
    Raises :class:`FileError` when the file is swapped while being opened.
    """
    name = os.fspath(path)
    try:
        named = os.lstat(name)
    except OSError:
        return None
    is_link = stat.S_ISLNK(named.st_mode)
    target = _real_target(name) if is_link else os.path.abspath(name)
    try:
        fd = os.open(target, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0)
                     | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _error(path, "the file was replaced by a link while tomis opened it; "
                               "run the command again") from None
        return None
    opened = os.fstat(fd)
    if not stat.S_ISREG(opened.st_mode):
        os.close(fd)
        return None
    if not is_link and (opened.st_dev, opened.st_ino) != (named.st_dev, named.st_ino):
        os.close(fd)
        raise _error(path, "the file was replaced while tomis opened it; run the command again")
    return Pinned(target, opened.st_dev, opened.st_ino, os.fdopen(fd, "rb"))


# --------------------------------------------------------------------------- locking

def lock_path(path: str | os.PathLike[str]) -> str:
    """The sidecar lock file of *path*: ``.NAME.lock`` beside the real file."""
    folder, base = os.path.split(_real_target(path))
    return os.path.join(folder, f".{base}.lock")


@contextlib.contextmanager
def locked(path: str | os.PathLike[str]) -> Iterator[list[str]]:
    """Hold the tomis lock on *path* for the ``with`` block; never wait for it.

    The lock is an OS advisory lock (``flock``) on a sidecar file ``.NAME.lock`` beside
    *path*, not on *path* itself: :func:`atomic_write` renames a new file over *path*,
    and a lock on the old file's inode would no longer protect the name. The sidecar is
    removed on exit; a process that locked a sidecar just as it was removed notices that
    the name now points elsewhere and tries again, so two holders never coexist.
    The lock dies with its process: a sidecar left by a killed process holds no lock and
    is taken and removed by the next tomis that writes the file. It is advisory: only
    tomis processes respect it. It is not re-entrant: locking the same path again inside
    the block fails like another process would.

    Raises :class:`FileError` "this file is being changed by another tomis process; try
    again" (``.path`` set)
    when another process holds it, and "cannot lock: ..." when the sidecar cannot be
    created (read-only folder, permission denied).

    The sidecar is opened with ``O_NOFOLLOW`` and must be a regular file owned by us: a
    link or someone else's file there is refused, never followed or written (finding 3).

    Holding the lock proves no tomis is writing this file, so hidden temporary files a
    killed tomis left beside it (``.NAME.XXXXXXXX.tmp`` of earlier versions, ours,
    regular) are removed on entry, with the stale parts of the folder
    (:func:`sweep_stale_parts`); the block gets their names, to say so (finding 7).

    Windows: ``msvcrt.locking`` on the sidecar, and the sidecar is left in place (an open
    file cannot be removed there). Where neither ``fcntl`` nor ``msvcrt`` exists, no lock
    is taken and the block simply runs.
    """
    sidecar = lock_path(path)
    fd = _acquire(sidecar, path)
    try:
        target = _real_target(path)
        yield _sweep_stale_temps(target) + sweep_stale_parts(os.path.dirname(target))
    finally:
        _release(fd, sidecar)


def _acquire(sidecar: str, path) -> int | None:
    if fcntl is None and msvcrt is None:
        return None
    for _ in range(_LOCK_RETRIES):
        fd = _open_sidecar(sidecar, path)
        if not _try_lock(fd):
            os.close(fd)
            err = FileError("this file is being changed by another tomis process; try again")
            err.path = os.fspath(path)
            raise err
        if _still_named(fd, sidecar):
            return fd
        os.close(fd)  # we locked a sidecar its holder had just removed: take the new one
    err = FileError("cannot lock: the lock file keeps changing; try again")
    err.path = os.fspath(path)
    raise err


def _open_sidecar(sidecar: str, path) -> int:
    try:
        fd = os.open(sidecar, os.O_RDWR | os.O_CREAT | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0)
                     | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _lock_refused(sidecar, path, "is a symbolic link") from None
        err = FileError(f"cannot lock: {_reason(exc)} (the lock file {os.path.basename(sidecar)} "
                        f"goes in the file's folder)")
        err.path = os.fspath(path)
        raise err from None
    found = os.fstat(fd)
    problem = None
    if not stat.S_ISREG(found.st_mode):
        problem = "is not a regular file"
    elif hasattr(os, "getuid") and found.st_uid != os.getuid():
        problem = "belongs to another user"
    if problem is not None:
        os.close(fd)
        raise _lock_refused(sidecar, path, problem)
    return fd


def _lock_refused(sidecar: str, path, problem: str) -> FileError:
    err = FileError(f"cannot lock: the lock file {os.path.basename(sidecar)} {problem}; tomis "
                    f"never makes one like that, so check who did, then remove it")
    err.path = os.fspath(path)
    return err


def _sweep_stale_temps(target: str) -> list[str]:
    """Remove the temporary files of *target* a killed tomis left; their names.

    Called with the lock held. Only names earlier versions of tomis made for this file, only
    regular files (not links) and, where there are owners, only ours.
    """
    folder, base = os.path.split(target)
    pattern = re.compile(rf"\.{re.escape(base)}\.[0-9a-f]{{8}}\.tmp")
    removed = []
    try:
        names = os.listdir(folder or ".")
    except OSError:
        return removed
    for name in sorted(names):
        if not pattern.fullmatch(name):
            continue
        full = os.path.join(folder, name)
        try:
            found = os.lstat(full)
            if not stat.S_ISREG(found.st_mode) or (
                    hasattr(os, "getuid") and found.st_uid != os.getuid()):
                continue
            os.unlink(full)
        except OSError:
            continue
        removed.append(name)
    return removed


def _try_lock(fd: int) -> bool:
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        else:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    except OSError:  # BlockingIOError on POSIX, PermissionError from msvcrt
        return False
    return True


def _still_named(fd: int, sidecar: str) -> bool:
    if fcntl is None:
        return True  # Windows never removes the sidecar
    try:
        now = os.lstat(sidecar)   # a link put there is not our sidecar
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (now.st_dev, now.st_ino) == (mine.st_dev, mine.st_ino)


def _release(fd: int | None, sidecar: str) -> None:
    if fd is None:
        return
    if fcntl is not None:
        _remove_quietly(sidecar)  # while still locked, so nobody can have taken it
    os.close(fd)  # closing drops the flock / msvcrt lock
