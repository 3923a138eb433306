"""Random and mutated records against the reader and every command (issue #5).

Inputs are the sample games with bytes flipped, spans deleted, tokens duplicated or
swapped, junk inserted, or plain random bytes. Whatever comes in:

- the reader raises nothing but :class:`~tomis.errors.TomisError`, and a record it
  accepts writes back to a record that reads as the same game;
- every command exits 0, 1 or 2, prints only ``path:line:column: message`` lines (or
  notes, or click's usage text) on stderr, never a traceback or an internal error, and
  leaves the input file byte for byte as it was (``move --dry-run``, ``fmt --check``);
- a record whose history was edited but whose Digest was kept is never accepted.

The default run tries a few hundred inputs; ``pytest -m slow`` (CI) a few thousand.
"""

from __future__ import annotations

import atexit
import re
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import SAMPLES, invoke
from tomis.notation import record
from tomis.util import textio
from tomis.mail import quotes
from tomis.errors import TomisError

SAMPLE_BYTES = [path.read_bytes() for path in SAMPLES]
TOKENS = re.compile(rb"\s+|[^\s]+")
JUNK = [b"{", b"}", b"[", b"]", b'"', b"\\", b"(", b")", b"$", b"!", b"?", b";", b"\n", b"\r",
        b"\x00", b"\xff", b"\xef\xbb\xbf", b"1-0", b"*", b"12...", b"F@a1", b"Fa2-a3", b"M@c3:NE",
        b"\xc3", b"\xe2\x80\x93", b" " * 3, b"[Digest \"0123456789abcdef\"]"]

# path:line:column: message, or path: message for the file as a whole (not a usage line)
LOCATED = re.compile(r"^(?!Error: |Usage: |Try ').+?(?::\d+:\d+)?: \S.*$")
NOTE = re.compile(r"^.+: note: \S.*$")
REFORMAT = re.compile(r"^.+: would reformat$")
USAGE = re.compile(r"^(Usage: |Try '|Error: |$)")

FEW = settings(max_examples=60, deadline=None,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
MANY = settings(max_examples=600, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --------------------------------------------------------------------------- inputs

@st.composite
def mutated(draw) -> bytes:
    """A sample record after one to four random edits."""
    data = draw(st.sampled_from(SAMPLE_BYTES))
    for _ in range(draw(st.integers(1, 4))):
        data = draw(st.sampled_from(EDITS))(draw, data)
    return data


def _flip_byte(draw, data: bytes) -> bytes:
    if not data:
        return data
    at = draw(st.integers(0, len(data) - 1))
    return data[:at] + bytes([data[at] ^ draw(st.integers(1, 255))]) + data[at + 1:]


def _delete_span(draw, data: bytes) -> bytes:
    start = draw(st.integers(0, len(data)))
    return data[:start] + data[start + draw(st.integers(1, 40)):]


def _insert_junk(draw, data: bytes) -> bytes:
    at = draw(st.integers(0, len(data)))
    junk = draw(st.sampled_from(JUNK) | st.binary(min_size=1, max_size=8))
    return data[:at] + junk + data[at:]


def _tokens(data: bytes) -> list[bytes]:
    return TOKENS.findall(data)


def _duplicate_token(draw, data: bytes) -> bytes:
    tokens = _tokens(data)
    if not tokens:
        return data
    at = draw(st.integers(0, len(tokens) - 1))
    return b"".join(tokens[:at + 1] + [b" ", tokens[at]] + tokens[at + 1:])


def _swap_tokens(draw, data: bytes) -> bytes:
    tokens = _tokens(data)
    if len(tokens) < 2:
        return data
    a = draw(st.integers(0, len(tokens) - 1))
    b = draw(st.integers(0, len(tokens) - 1))
    tokens[a], tokens[b] = tokens[b], tokens[a]
    return b"".join(tokens)


def _delete_token(draw, data: bytes) -> bytes:
    tokens = _tokens(data)
    if not tokens:
        return data
    del tokens[draw(st.integers(0, len(tokens) - 1))]
    return b"".join(tokens)


def _truncate(draw, data: bytes) -> bytes:
    return data[:draw(st.integers(0, len(data)))]


EDITS = [_flip_byte, _delete_span, _insert_junk, _duplicate_token, _swap_tokens, _delete_token,
         _truncate]
INPUTS = mutated() | st.binary(max_size=300) | st.text(
    alphabet="BGMFSTQabcdefgh12345678@-=:>x^NESW .{}[]\"*/!?$()\n", max_size=200).map(str.encode)


# --------------------------------------------------------------------------- the reader

def _reader_survives(data: bytes) -> None:
    try:
        text = quotes.extract_record(textio.decode(data, "fuzz.tgn")).text
        checked = record.read(text, "fuzz.tgn")
    except TomisError:
        return
    for item in checked:
        assert (item.game is None) == (item.error is not None and item.game is None)
        if item.error is None:
            again = record.read_game(record.write(item.game, digest=True))
            assert [str(n.action) for n in again.nodes] == [str(n.action) for n in item.game.nodes]
            assert again.result == item.game.result
            assert record.write(again) == record.write(item.game)


@FEW
@given(INPUTS)
def test_reader_raises_only_tomis_errors_and_accepted_records_round_trip(data):
    _reader_survives(data)


@pytest.mark.slow
@MANY
@given(INPUTS)
def test_reader_many(data):
    _reader_survives(data)


# --------------------------------------------------------------------------- the CLI

WORK = Path(tempfile.mkdtemp(prefix="tomis-fuzz-"))     # hypothesis reuses one folder per run
atexit.register(shutil.rmtree, WORK, True)
COMMANDS = {
    "validate": ["validate", "{f}"],
    "validate-json": ["validate", "--json", "{f}"],
    "show": ["show", "{f}"],
    "moves": ["moves", "{f}"],
    "replay": ["replay", "{f}"],
    "fmt-check": ["fmt", "--check", "{f}"],
    "move-dry-run": ["move", "--dry-run", "{f}", "{a}"],
    "move-as-since": ["move", "--dry-run", "--as", "black", "--since", "{s}", "{f}", "{a}"],
    "play": ["play", "{f}"],
}
ACTIONS = st.sampled_from(["F@a1", "B@e1", "Fa2-a3", "M@c3:NE", "S@c8", "x", "", "Fa1\u2013a2"]) | st.text(
    alphabet="BFMS@abch1238-:NE=A>", max_size=8)


def _cli_survives(name: str, data: bytes, action: str, sent: bytes) -> None:
    path = WORK / f"{name}.tgn"
    since = WORK / f"{name}-sent.tgn"
    path.write_bytes(data)
    since.write_bytes(sent)
    args = [word.format(f=path, a=action, s=since) for word in COMMANDS[name]]
    result = invoke(*args, input="quit\n")
    assert result.exit_code in (0, 1, 2), (result.exit_code, result.stderr)
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
    lines = result.stderr.splitlines()
    usage = any(USAGE.match(line) and line for line in lines)
    for line in lines:
        assert (LOCATED.match(line) or NOTE.match(line) or REFORMAT.match(line)
                or (usage and USAGE.match(line)) or (usage and line.startswith("  "))), line
    if result.exit_code and not usage and name != "validate-json":
        assert any(LOCATED.match(line) or REFORMAT.match(line) for line in lines), result.stderr
    assert path.read_bytes() == data
    assert since.read_bytes() == sent


@pytest.mark.parametrize("name", sorted(COMMANDS))
@FEW
@given(data=INPUTS, action=ACTIONS, sent=st.sampled_from(SAMPLE_BYTES) | mutated())
def test_every_command_fails_cleanly_and_leaves_the_file_alone(name, data, action, sent):
    _cli_survives(name, data, action, sent)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(COMMANDS))
@MANY
@given(data=INPUTS, action=ACTIONS, sent=st.sampled_from(SAMPLE_BYTES) | mutated())
def test_every_command_many(name, data, action, sent):
    _cli_survives(name, data, action, sent)


# --------------------------------------------------------------------------- edited history

ACTION_WORD = re.compile(r"(?<![{\w])[BGMFSTQ](?:@[a-h][1-8](?::[NESW]{1,2})?|[a-h][1-8][-=>x^:][a-h1-8AINESW]{1,2})")


@st.composite
def edited_history(draw) -> str:
    """A sample, written with its Digest, then one action replaced by another action text."""
    game = record.read_game(draw(st.sampled_from(SAMPLE_BYTES)).decode("utf-8"))
    text = record.write(game, digest=True)
    head, blank, movetext = text.partition("\n\n")
    # Comments may quote actions (samples do); blank them out so only real actions change.
    masked = re.sub(r"\{[^}]*\}|;[^\n]*", lambda m: " " * len(m.group()), movetext)
    # Variations are analysis, not history (the Digest leaves them out): main line only.
    masked = _blank_variations(masked)
    words = list(ACTION_WORD.finditer(masked))
    target = draw(st.sampled_from(words))
    replacement = draw(st.sampled_from(sorted({m.group() for m in words} - {target.group()})))
    return head + blank + movetext[:target.start()] + replacement + movetext[target.end():]


def _blank_variations(movetext: str) -> str:
    """``movetext`` with every ``( ... )`` variation blanked, nested ones included
    (not the ``(e4,f5)`` suffixes or ``(=)``, which are no variations)."""
    out, depth = [], 0
    for index, char in enumerate(movetext):
        opens = char == "(" and not re.match(r"\(([a-h][1-8]|\)|=)", movetext[index:])
        depth += opens
        out.append(" " if depth else char)
        depth -= depth > 0 and char == ")" and not opens and _closes_variation(movetext, index)
    return "".join(out)


def _closes_variation(movetext: str, index: int) -> bool:
    """Whether the ')' at ``index`` ends a variation rather than a suffix or ``(=)``."""
    start = movetext.rfind("(", 0, index)
    return not re.fullmatch(r"\((?:[a-h][1-8](?:,[a-h][1-8])*)?\)|\(=\)", movetext[start:index + 1])


def _edit_is_caught(text: str) -> None:
    checked = record.read(text)
    assert checked[0].error is not None


@FEW
@given(edited_history())
def test_an_edited_history_under_the_old_digest_is_never_accepted(text):
    _edit_is_caught(text)


@pytest.mark.slow
@MANY
@given(edited_history())
def test_edited_history_many(text):
    _edit_is_caught(text)
