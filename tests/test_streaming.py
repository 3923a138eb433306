"""Streaming: the plain-record fast path of extract_record decides exactly as the general
path does, lazy cutting gives the same spans, and (slow) a 16 MiB archive of small games
is validated in under 100 MiB of peak memory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tomis import notation
from tomis.mail import quotes

ROOT = Path(__file__).resolve().parent.parent

FRAGMENTS = st.sampled_from([
    '[Event "x"]', '[White "Ana"', 'Bo"]', '[Site', '"Constanta"]', "1. B@e1", "B@d8", "*", "1-0",
    "0-1", "1/2-1/2", "{a comment}", "{1-0 inside}", "; line 1-0", "> ", ">> ", "Hello Bo,",
    "see you", "", " ", "\t", "[1] link", "2. G@b1 G@g8",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(FRAGMENTS, max_size=5).map(" ".join), max_size=12).map("\n".join))
def test_the_fast_path_agrees_with_the_general_path(text):
    fast = quotes.extract_record(text)
    general = _general(text)
    assert fast.text == general.text and fast.notes == general.notes
    for line in range(1, text.count("\n") + 3):
        assert fast.locate(line, 3) == general.locate(line, 3)


def _general(text):
    original = quotes.is_plain_record
    quotes.is_plain_record = lambda _text: False
    try:
        return quotes.extract_record(text)
    finally:
        quotes.is_plain_record = original


@settings(max_examples=120, deadline=None)
@given(st.lists(st.lists(FRAGMENTS, max_size=5).map(" ".join), max_size=12).map("\n".join))
def test_a_record_file_read_without_the_mail_modules_is_what_the_general_path_gives(text):
    from tomis.errors import TomisError
    from tomis.mail.mime import Body
    from tomis.sources import reading

    try:
        general = reading._found(Body(text, "the text", 1), None, "f.tgn", None)
    except TomisError as error:          # records that diverge: refused the same way
        with pytest.raises(type(error)):
            reading._from_text(text, "f.tgn")
        return
    fast = reading._from_text(text, "f.tgn")
    assert (fast.text, fast.raw, fast.notes, fast.origin) == (
        general.text, general.raw, general.notes, general.origin)
    if fast.places is None:         # the fast path was taken: nothing to place back
        assert general.places is None


def test_a_plain_archive_takes_the_fast_path():
    text = '[White "Ana"]\n\n1. B@e1 B@d8 *\n\n[White "Bo"]\n\n1. B@a1 1-0\n'
    assert quotes.is_plain_record(text)
    assert not quotes.is_plain_record("Hi Bo,\n" + text)           # mail text before it
    assert not quotes.is_plain_record(text + "see you Friday\n")     # text after the last result
    assert not quotes.is_plain_record('[Event "a long\nvalue"]\n1. B@e1 *\n')   # a cut tag


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["1. B@e1 *", "1-0", "{*}", "1-01-0", " ", "\n", "*", "x1-0",
                                 '[A "1-0"]', "; 0-1\n"]), max_size=20).map("".join))
def test_lazy_spans_are_the_listed_spans(text):
    assert list(notation.iter_game_spans(text)) == notation.game_spans(text)


# The child reports its own high-water mark (VmHWM of /proc/self/status) as it exits.
# wait4's ru_maxrss would not do: Linux carries the forking process's resident size
# over the exec into the child's maximum, so a big pytest process (the whole slow run)
# made every child look 200 MB large.
_REPORT_PEAK = (
    "import atexit, sys\n"
    "def peak():\n"
    "    with open('/proc/self/status') as status:\n"
    "        line = next(l for l in status if l.startswith('VmHWM:'))\n"
    "    sys.stderr.write('PEAK ' + line.split()[1] + '\\n')\n"
    "atexit.register(peak)\n"
    "from tomis.cli import main\n"
    "main(sys.argv[1:])\n"
)


def peak_of(*args) -> tuple[int, int, bytes]:
    """Exit code, peak RSS in bytes and stderr (without the peak line) of ``tomis ARGS``."""
    done = subprocess.run([sys.executable, "-c", _REPORT_PEAK, *map(str, args)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err, _, peak = done.stderr.rpartition(b"PEAK ")
    return done.returncode, int(peak) * 1024, err


@pytest.fixture(scope="module")
def archive_16mib(tmp_path_factory):
    archive = tmp_path_factory.mktemp("big") / "16mib.tgn"
    subprocess.run([sys.executable, str(ROOT / "bench" / "gen_archive.py"), "--fill", "16",
                    "--out", str(archive)], check=True, capture_output=True)
    assert archive.stat().st_size > 15 * 1024 * 1024
    return archive


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="the peak is read from /proc")
def test_16_mib_of_small_games_validated_in_under_100_mib(archive_16mib):
    code, peak, err = peak_of("validate", "-q", "-j", "1", archive_16mib)
    assert code == 0, err
    assert peak < 100 * 1024 * 1024


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="the peak is read from /proc")
def test_fmt_reads_a_16_mib_archive_one_game_at_a_time(archive_16mib):
    # gen_archive writes White before Round: not the canonical tag order, so fmt has work.
    code, peak, err = peak_of("fmt", "--check", archive_16mib)
    assert code == 1 and b"would reformat" in err
    assert peak < 100 * 1024 * 1024
