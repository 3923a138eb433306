"""Issue 23, findings 5-7: GIF memory, -o onto what is not a file, temporary files after a
kill; and the GIF's captions and result frame (issue 26). Real files, FIFOs, device
nodes and links; real tomis processes, really killed."""

from __future__ import annotations

import io
import os
import re
import signal
import stat
import subprocess
import sys
import textwrap
import weakref
from pathlib import Path

import pytest

from conftest import tomis, tomis_env
from svg_cases import sample_game
from tomis.pictures import images
from tomis.util import safefile
from tomis.errors import FileError

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "manual-win.tgn"            # 59 actions, White wins (R21)
SHORT = ROOT / "samples" / "pbem-in-progress.tgn"
POSIX = os.name == "posix"
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
PART = re.compile(r"\..*\.tomis-[0-9a-f]{16}\.part")
PAUSED = "paused before the rename"
NAMED_PARTS = {"TOMIS_TEST_NO_TMPFILE": "1"}

posix_only = pytest.mark.skipif(not POSIX, reason="FIFOs, device nodes and signals as on POSIX")
needs_images = pytest.mark.skipif(
    not all(__import__("importlib").util.find_spec(name) for name in ("PIL", "resvg_py")),
    reason="Pillow and resvg-py are not installed (pip install 'tomis[images]')")


def run(*args, env=None, timeout=120) -> subprocess.CompletedProcess:
    return tomis(*args, env=env, timeout=timeout)


def parts_in(folder: Path) -> list[str]:
    return sorted(name for name in os.listdir(folder) if PART.fullmatch(name))


# --------------------------------------------------------------------------- finding 5

@needs_images
def test_finding5_gif_frames_are_made_one_at_a_time(monkeypatch):
    """Before: every frame of the game was alive at once (about 1 MB per action). Now
    never more than the few frames the palette is sampled from, whatever the length."""
    drawn = []                    # a weak reference to every frame drawn
    most = {"frames": 0}
    draw = images._with_caption

    def counted(*args, **kwargs):
        picture = draw(*args, **kwargs)
        drawn.append(weakref.ref(picture))
        most["frames"] = max(most["frames"], sum(ref() is not None for ref in drawn))
        return picture

    monkeypatch.setattr(images, "_with_caption", counted)
    game = sample_game("manual-win.tgn")
    data = images.gif(game, size=120)
    assert data[:6] == b"GIF89a" and data[-1:] == b";"
    assert len(game.nodes) + 2 > 3 * images.GIF_PALETTE_FRAMES
    assert most["frames"] <= images.GIF_PALETTE_FRAMES + 1


@needs_images
def test_finding5_each_streamed_frame_shows_its_whole_picture():
    """Frames after the first hold only what changed, unchanged pixels transparent: read
    back, each frame is still the full picture (board and caption) it was drawn as."""
    from PIL import Image, ImageChops, ImageStat

    game = sample_game("manual-win.tgn")
    colours = dict(images.svg.COLORS)
    animation = Image.open(io.BytesIO(images.gif(game, size=160)))
    captions = images.frame_captions(game)
    for index in (0, 1, 2, 30, len(game.nodes), len(game.nodes) + 1):
        board = images.svg_to_png(images._board_svg(game, min(index, len(game.nodes)), {"size": 160}))
        drawn = images._with_caption(Image, board, captions[index], colours)
        animation.seek(index)
        shown = animation.convert("RGB")
        mean = ImageStat.Stat(ImageChops.difference(shown, drawn)).mean
        assert max(mean) < 4, (index, mean)     # 63 colours for anti-aliased edges: near, not equal


@needs_images
@pytest.mark.slow
def test_finding5_a_long_game_costs_no_more_memory_than_a_short_one(tmp_path):
    """Peak RSS of whole `export --gif` processes: 20 actions against 300 actions.
    Before, the long one cost about 280 MB more; now the difference is noise."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from bench_gif_memory import long_enough_game, peak_kib
    finally:
        sys.path.remove(str(ROOT / "bench"))
    peaks = []
    for actions in (20, 300):
        text, _seed = long_enough_game(actions, 1)
        record = tmp_path / f"g{actions}.tgn"
        record.write_text(text, encoding="utf-8")
        peaks.append(peak_kib(ROOT, record, tmp_path / f"g{actions}.gif"))
    assert peaks[1] - peaks[0] < 40 * 1024, peaks


# --------------------------------------------------------------------------- captions (issue 26)

def test_gif_captions_name_each_action_and_the_result():
    game = sample_game("manual-win.tgn")
    captions = images.frame_captions(game)
    assert len(captions) == len(game.nodes) + 2
    assert captions[0].headline == "start"
    # The move number and the action number, as every command writes them (R4).
    assert captions[1].headline == "1. B@c1 (action 1)"
    assert captions[12].headline == "6... F@d8 (action 12)"
    assert captions[-1] == images.Caption("1-0 White wins", "Black's base destroyed (R21)")


@pytest.mark.parametrize("sample, expected", [
    ("resignation.tgn", images.Caption("1-0 White wins", "by resignation (R23)")),
    ("repetition-draw.tgn", images.Caption("1/2-1/2 draw", "the same position stands for the third time (R22)")),
    ("pbem-in-progress.tgn", images.Caption("* unfinished", "White to act, action 25")),
])
def test_the_result_frame_says_how_the_game_ended(sample, expected):
    assert images.result_caption(sample_game(sample)) == expected


def test_an_arbiters_result_is_named_as_the_termination_tag_says():
    game = sample_game("pbem-in-progress.tgn")
    game.tags["Termination"] = "adjudication"
    game.result = "0-1"
    assert images.result_caption(game) == images.Caption("0-1 Black wins", "adjudication (R23)")


@needs_images
def test_gif_caption_pixels_differ_between_frames_and_the_result_frame_ends_it():
    from PIL import Image, ImageChops

    game = sample_game("repetition-draw.tgn")
    animation = Image.open(io.BytesIO(images.gif(game, size=200, delay=0.5)))
    assert animation.n_frames == len(game.nodes) + 2
    board = 200
    strips = []
    for index in (0, 1, 2, animation.n_frames - 1):
        animation.seek(index)
        picture = animation.convert("RGB")
        strips.append(picture.crop((0, board, 200, picture.height)))
    # every caption differs from the others: "start", "1. ...", "2. ...", the result
    for first in range(len(strips)):
        for second in range(first + 1, len(strips)):
            assert ImageChops.difference(strips[first], strips[second]).getbbox() is not None
    # the result frame shows the final board (the last action's) and is held longest
    animation.seek(animation.n_frames - 2)
    last_board = animation.convert("RGB").crop((0, 0, 200, board))
    durations = [animation.info["duration"]]
    animation.seek(animation.n_frames - 1)
    assert ImageChops.difference(animation.convert("RGB").crop((0, 0, 200, board)), last_board).getbbox() is None
    durations.append(animation.info["duration"])
    assert durations == [500, 500 * images.FINAL_HOLD]


# --------------------------------------------------------------------------- finding 6

# Every command that writes a file named on its command line; "OUT" is the target.
WRITERS = {
    "show --svg": ["show", SAMPLE, "--svg", "-o", "OUT"],
    "show --png": ["show", SAMPLE, "--png", "-o", "OUT"],
    "export --html": ["export", SAMPLE, "--html", "-o", "OUT"],
    "export --gif": ["export", SHORT, "--gif", "-o", "OUT"],
    "export --jsonl": ["export", SAMPLE, "--jsonl", "-o", "OUT"],
    "select -o": ["select", SAMPLE, "-q", "-o", "OUT"],
    "dedupe -o": ["dedupe", SAMPLE, "-q", "-o", "OUT"],
    "dedupe --duplicates": ["dedupe", SAMPLE, "-q", "--duplicates", "OUT"],
    "analyse -o": ["analyse", SHORT, "-o", "OUT"],
    "match -o": ["match", "1", "1", "--games", "2", "-o", "OUT"],
    "move --mail": ["move", "GAME", "B@e1", "--mail", "OUT", "--to", "bo@example.net"],
}


def writer_args(name: str, out: Path, game: Path) -> list:
    return [out if word == "OUT" else game if word == "GAME" else word for word in WRITERS[name]]


@pytest.fixture
def new_game(tmp_path):
    path = tmp_path / "game.tgn"
    path.write_text('[Rules "manual"]\n\n*\n', encoding="utf-8")
    return path


def make_target(kind: str, folder: Path) -> Path:
    out = folder / "out"
    if kind == "fifo":
        os.mkfifo(out)
    elif kind == "device":
        os.mknod(out, 0o666 | stat.S_IFCHR, os.makedev(1, 3))     # a /dev/null of our own
    elif kind == "link to /dev/null":
        out.symlink_to("/dev/null")
    return out


@posix_only
@pytest.mark.parametrize("kind", ["fifo", "device", "link to /dev/null"])
@pytest.mark.parametrize("writer", list(WRITERS))
def test_finding6_every_writer_refuses_what_is_not_a_regular_file(writer, kind, tmp_path, new_game):
    if kind == "device" and not IS_ROOT:
        pytest.skip("making a device node needs root")
    out = make_target(kind, tmp_path)
    before = os.lstat(out)
    game_before = new_game.read_bytes()
    done = run(*writer_args(writer, out, new_game), timeout=60)     # a FIFO opened would hang here
    assert done.returncode == 1, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    what = {"fifo": "it is a named pipe (FIFO)", "device": "it is a character device",
            "link to /dev/null": "it is a link to /dev/null, which is a character device"}[kind]
    assert lines[0] == f"{out}: cannot save: {what}; tomis writes only regular files, so nothing was written"
    after = os.lstat(out)
    assert (after.st_mode, after.st_ino, after.st_rdev) == (before.st_mode, before.st_ino, before.st_rdev)
    assert new_game.read_bytes() == game_before          # move --mail did not move either
    assert sorted(os.listdir(tmp_path)) == ["game.tgn", "out"]


@posix_only
@pytest.mark.parametrize("writer", ["show --svg", "export --html", "select -o", "dedupe -o", "export --jsonl"])
def test_finding6_a_link_to_a_file_is_written_through_and_stays_a_link(writer, tmp_path, new_game):
    real = tmp_path / "elsewhere" / "real.out"
    real.parent.mkdir()
    real.write_text("old\n", encoding="utf-8")
    real.chmod(0o640)
    out = tmp_path / "out"
    out.symlink_to(real)
    done = run(*writer_args(writer, out, new_game))
    assert done.returncode == 0, done.stderr
    assert out.is_symlink() and os.readlink(out) == str(real)
    assert real.read_text(encoding="utf-8") != "old\n" and real.stat().st_mode & 0o777 == 0o640
    assert parts_in(real.parent) == [] and parts_in(tmp_path) == []


@posix_only
def test_finding6_a_fifo_swapped_in_while_writing_is_refused_not_replaced(tmp_path, monkeypatch):
    out = tmp_path / "out.tgn"
    out.write_text("old\n", encoding="utf-8")
    real_fsync = os.fsync

    def swap_then_fsync(fd):
        if out.exists() and not stat.S_ISFIFO(os.lstat(out).st_mode):
            out.unlink()
            os.mkfifo(out)
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", swap_then_fsync)
    with pytest.raises(FileError, match=r"it is now a named pipe \(FIFO\)"):
        safefile.atomic_write(out, "new\n")
    monkeypatch.undo()
    assert stat.S_ISFIFO(os.lstat(out).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["out.tgn"]


@posix_only
def test_finding6_the_library_writers_refuse_a_fifo_before_opening_it(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(FileError, match=r"named pipe"):
        safefile.atomic_write(fifo, "x")
    with pytest.raises(FileError, match="already exists"):
        safefile.create_new(fifo, "x")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and os.listdir(tmp_path) == ["pipe"]


# --------------------------------------------------------------------------- finding 7

def start_paused(args, env) -> subprocess.Popen:
    """A real tomis writing, stopped by the documented test seam just before its rename."""
    process = subprocess.Popen([sys.executable, "-m", "tomis", *map(str, args)],
                               env=tomis_env(dict(env, TOMIS_TEST_PAUSE_BEFORE_RENAME="120")),
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    line = process.stderr.readline()
    if PAUSED not in line:
        process.kill()
        process.wait()
        pytest.fail(f"the writer did not pause: {line!r}")
    return process


def kill(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGKILL)
    assert process.wait() == -signal.SIGKILL
    process.stderr.close()


def open_unnamed_files(process: subprocess.Popen, folder: Path) -> list[str]:
    """The deleted-looking files of ``folder`` the process holds open: O_TMPFILE parts."""
    found = []
    for fd in os.listdir(f"/proc/{process.pid}/fd"):
        try:
            target = os.readlink(f"/proc/{process.pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith(f"{folder}/#") or target.startswith(f"{folder}/") and target.endswith("(deleted)"):
            found.append(target)
    return found


KILLED_WRITERS = {
    "show --png": ["show", SAMPLE, "--png", "-o", "OUT"],
    "export --gif": ["export", SHORT, "--gif", "-o", "OUT"],
    "select -o": ["select", SAMPLE, "-q", "-o", "OUT"],
}


def pause_a_writer(writer: str, folder: Path, env: dict):
    """``folder/out`` holding an old picture, and ``writer`` paused while replacing it."""
    out = folder / "out"
    out.write_bytes(b"the old picture\n")
    return out, start_paused([out if word == "OUT" else word for word in KILLED_WRITERS[writer]], env)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="O_TMPFILE and /proc are Linux's")
@needs_images
@pytest.mark.parametrize("writer", list(KILLED_WRITERS))
def test_finding7_a_writer_killed_mid_write_leaves_nothing(writer, tmp_path):
    out, process = pause_a_writer(writer, tmp_path, {})
    assert open_unnamed_files(process, tmp_path), "the part is written, unnamed"
    assert sorted(os.listdir(tmp_path)) == ["out"]
    kill(process)
    assert sorted(os.listdir(tmp_path)) == ["out"]
    assert out.read_bytes() == b"the old picture\n"


@posix_only
@needs_images
@pytest.mark.parametrize("writer", list(KILLED_WRITERS))
def test_finding7_without_o_tmpfile_a_killed_writers_part_goes_with_the_next_write(writer, tmp_path):
    out, process = pause_a_writer(writer, tmp_path, NAMED_PARTS)
    left = parts_in(tmp_path)
    assert len(left) == 1 and left[0].startswith(".out.tomis-"), left
    # a live writer's part survives another write in the folder: its lock says it is alive
    other = run("show", SAMPLE, "--svg", "-o", tmp_path / "other.svg", env=NAMED_PARTS)
    assert other.returncode == 0 and "removed" not in other.stderr, other.stderr
    assert parts_in(tmp_path) == left
    kill(process)
    assert out.read_bytes() == b"the old picture\n" and parts_in(tmp_path) == left
    done = run("show", SAMPLE, "--svg", "-o", tmp_path / "other.svg", env=NAMED_PARTS)
    assert done.returncode == 0, done.stderr
    assert done.stderr == (f"{tmp_path / 'other.svg'}: note: removed {left[0]}, a temporary file "
                           "an interrupted tomis left behind\n")
    assert sorted(os.listdir(tmp_path)) == ["other.svg", "out"]


@posix_only
def test_finding7_the_sweep_takes_only_unlocked_regular_parts_of_ours(tmp_path):
    import fcntl

    stale = tmp_path / ".a.tgn.tomis-0123456789abcdef.part"
    stale.write_text("x", encoding="utf-8")
    held = tmp_path / ".b.tgn.tomis-fedcba9876543210.part"
    held.write_text("x", encoding="utf-8")
    keep = tmp_path / "keep.txt"
    keep.write_text("keep", encoding="utf-8")
    (tmp_path / ".c.tgn.tomis-00000000aaaaaaaa.part").symlink_to(keep)   # a link: never ours
    (tmp_path / ".d.tgn.tomis-short.part").write_text("x", encoding="utf-8")   # not our pattern
    (tmp_path / ".e.tgn.1a2b3c4d.tmp").write_text("x", encoding="utf-8")       # another program's
    with open(held, "rb") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX)
        removed = safefile.sweep_stale_parts(str(tmp_path))
    assert removed == [stale.name]
    assert sorted(os.listdir(tmp_path)) == sorted([
        held.name, ".c.tgn.tomis-00000000aaaaaaaa.part", ".d.tgn.tomis-short.part",
        ".e.tgn.1a2b3c4d.tmp", "keep.txt"])


RACER = textwrap.dedent("""
    # One of eight writers: writes its own file and the shared one, again and again, in
    # the folder the others sweep.
    import sys
    from tomis.util import safefile
    folder, me, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    for round in range(rounds):
        text = f"writer {me} round {round}\\n" * (1 + 300 * (round % 3))
        safefile.atomic_write(f"{folder}/own-{me}.txt", text)
        safefile.atomic_write(f"{folder}/shared.txt", text)
""")


@posix_only
@pytest.mark.parametrize("env", [{}, NAMED_PARTS], ids=["O_TMPFILE", "named parts"])
def test_finding7_eight_racing_writers_lose_nothing_and_leave_no_part(env, tmp_path):
    rounds = 40
    racers = [subprocess.Popen([sys.executable, "-c", RACER, str(tmp_path), str(me), str(rounds)],
                               env=tomis_env(env), stderr=subprocess.PIPE, text=True)
              for me in range(8)]
    errors = [racer.communicate(timeout=300)[1] for racer in racers]
    assert [racer.returncode for racer in racers] == [0] * 8, errors
    last = rounds - 1
    for me in range(8):
        assert (tmp_path / f"own-{me}.txt").read_text() == f"writer {me} round {last}\n" * (1 + 300 * (last % 3))
    shared = (tmp_path / "shared.txt").read_text()
    first = re.match(r"writer (\d) round (\d+)\n", shared)
    assert first is not None
    round_ = int(first[2])
    assert shared == first[0] * (1 + 300 * (round_ % 3))        # one writer's whole text, untorn
    assert sorted(os.listdir(tmp_path)) == sorted([f"own-{me}.txt" for me in range(8)] + ["shared.txt"])
