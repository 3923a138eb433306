"""Issue 23, finding 4: text from a record or a message never reaches the terminal raw.

An opponent writes the tags, the comments and the attachment's name. Every command that
prints such text for a person must show its control characters escaped (``\\x1b``), so
no escape sequence can retitle the terminal, clear it, hide text or write a link; JSON
and records (``fmt -``, ``extract``, ``select``) keep the bytes exactly.

The commands run in process with ``color=True``, so click hands over whatever the command
wrote, as a terminal would get it; one test runs a real ``tomis`` process.
"""

from __future__ import annotations

import json
import shutil
from email.message import EmailMessage

import pytest

from conftest import cli_runner, tomis
from tomis.cli.output import caret_lines
from tomis.errors import visible

# OSC (retitle), BEL, CSI (clear the screen), C1 CSI, DEL, a bidi override.
HOSTILE = "\x1b]0;owned\x07\x1b[2J\x9b31m\x7f\u202e"
SHOWN = "\\x1b]0;owned\\x07\\x1b[2J\\x9b31m\\x7f\\u202e"
TAGS = ("Event", "Site", "Round", "White", "Black", "Annotator", "Termination")
WHITE, BLACK = "Ana" + HOSTILE, "Bo" + HOSTILE
NOW = "2026-11-24T10:00Z"


def hostile_record(result: str = "*") -> str:
    """A valid record whose every free tag and every comment holds escape sequences."""
    values = {"White": WHITE, "Black": BLACK}
    tags = "".join(f'[{name} "{values.get(name, name + HOSTILE)}"]\n' for name in TAGS)
    return (f'{tags}[Result "{result}"]\n[TimeControl "30d+3d"]\n\n'
            f"{{before{HOSTILE}}} {{[%ts 2026-11-23T10:15Z]}} 1. B@e1 {{[%ts 2026-11-23T11:00Z]}} "
            f"{{after{HOSTILE}\nand a second line}} B@d8 {{[%ts 2026-11-23T12:00Z]}} {result}\n")


@pytest.fixture
def game(tmp_path):
    path = tmp_path / "hostile.tgn"
    path.write_text(hostile_record(), encoding="utf-8")
    return path


def run(*args, input=None, color=True):
    """``tomis ARGS`` in process; ``color=True``: nothing stripped, as on a terminal."""
    from tomis.cli import cli

    return cli_runner().invoke(cli, [str(a) for a in args], input=input, color=color,
                               catch_exceptions=False)


def assert_visible(text: str) -> None:
    """No control character but the newline, no bidi override: all shows as written."""
    raw = sorted({char for char in text if not (char.isprintable() or char == "\n")})
    assert not raw, f"raw control characters reached the terminal: {raw!r}"


def assert_clean(result, code: int = 0) -> None:
    assert result.exit_code == code, result.stderr
    assert_visible(result.stdout)
    assert_visible(result.stderr)
    assert "internal error" not in result.stderr


def test_finding4_visible_escapes_every_control_and_keeps_lines_only_when_asked():
    assert visible("Ana" + HOSTILE) == "Ana" + SHOWN
    assert visible("a\tb\nc") == "a\\tb\\nc"
    assert visible("a\nb\r", lines=True) == "a\nb\\r"
    assert visible("José — 名人 ♞") == "José — 名人 ♞"
    for char in ("\x00", "\x1b", "\x07", "\x7f", "\x85", "\x9b", "\u2066", "\u2069", "\u202a"):
        assert visible(char).startswith("\\")


def test_finding4_show_escapes_the_heading(game):
    result = run("show", game)
    assert_clean(result)
    assert result.stdout.splitlines()[0] == f"Ana{SHOWN} (White) vs Bo{SHOWN} (Black), Event{SHOWN}"


def test_finding4_replay_escapes_comments(game):
    result = run("replay", game)
    assert_clean(result)
    assert f"{{before{SHOWN}}}" in result.stdout.splitlines()
    # The reader joins a comment's lines with a space.
    assert f"  {{after{SHOWN} and a second line}}" in result.stdout.splitlines()


@pytest.mark.parametrize("args", [
    ("moves",), ("clock", "--now", NOW), ("validate",), ("hint",), ("select",), ("dedupe",),
])
def test_finding4_other_text_commands_print_nothing_raw(game, args):
    result = run(args[0], game, *args[1:])
    assert result.exit_code == 0, result.stderr
    assert_visible(result.stderr)
    if args[0] not in ("select", "dedupe"):      # those write records: checked below
        assert_visible(result.stdout)


def test_finding4_move_and_resign_show_the_record_escaped_and_save_it_exactly(game):
    before = game.read_text(encoding="utf-8")
    result = run("move", game, "G@b1", "--time", "2026-11-23T13:00Z")
    assert_clean(result)
    assert f'[White "Ana{SHOWN}"]' in result.stdout.splitlines()
    saved = game.read_text(encoding="utf-8")
    assert f'[White "{WHITE}"]' in saved and f"{{after{HOSTILE} and a second line}}" in saved
    assert saved != before
    result = run("resign", game, "--as", "black")
    assert_clean(result)
    assert f'[Black "Bo{SHOWN}"]' in result.stdout.splitlines()
    assert f'[Black "{BLACK}"]' in game.read_text(encoding="utf-8")


def test_finding4_stats_escapes_names_and_its_json_keeps_them(tmp_path):
    path = tmp_path / "decided.tgn"
    path.write_text(hostile_record("1-0"), encoding="utf-8")
    result = run("stats", path)
    assert_clean(result)
    assert any(line.split()[1:2] == [visible(WHITE)[:16]] for line in result.stdout.splitlines())
    data = json.loads(run("stats", path, "--json").stdout)
    assert {player["name"] for player in data["players"]} == {WHITE, BLACK}


def test_finding4_inbox_escapes_the_opponent_and_the_event(tmp_path):
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "g.tgn").write_text(hostile_record(), encoding="utf-8")
    result = run("inbox", folder, "--me", WHITE, "--now", NOW)
    assert_clean(result)
    assert f"vs Bo{SHOWN} (Event{SHOWN})" in result.stdout


def test_finding4_play_prompts_with_the_name_escaped(game):
    result = run("play", game, input="quit\n")
    assert_clean(result)
    assert f"Ana{SHOWN} (White, action 3)> " in result.stdout


def test_finding4_attachment_name_in_the_note_is_escaped(tmp_path):
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "bo@example.net", "ana@example.net", "game"
    message.set_content("my move")
    message.add_attachment(hostile_record().encode("utf-8"), maintype="application",
                           subtype="octet-stream", filename=f"game{HOSTILE}.tgn")
    path = tmp_path / "reply.eml"
    path.write_bytes(message.as_bytes())
    for args in (("show", path), ("validate", path), ("extract", path)):
        result = run(*args)
        assert result.exit_code == 0, result.stderr
        assert_visible(result.stderr)
        assert f"took the record from the attachment game{SHOWN}.tgn" in result.stderr


def test_finding4_an_error_quoting_the_record_and_its_caret_line_are_escaped(tmp_path):
    path = tmp_path / "bad.tgn"
    line = f'[Digest "x{HOSTILE}y"]'
    path.write_text(f"{line}\n\n1. B@e1 *\n", encoding="utf-8")
    result = run("show", path)
    assert_clean(result, code=1)
    assert f"found 'x{SHOWN}y'" in result.stderr
    lines = caret_lines(path.read_text(encoding="utf-8"), 1, line.index("y") + 1)
    assert_visible("\n".join(lines))
    assert lines[0] == f'  [Digest "x{SHOWN}y"]'
    assert lines[1].index("^") == lines[0].index("y")       # under the escaped text


@pytest.mark.parametrize("color", [True, False])
def test_finding4_records_and_json_keep_every_byte(game, color):
    # color=False is a pipe: click would strip what looks like a colour code from
    # text, so a record must not go out as text for a person.
    canonical = run("fmt", "-", input=game.read_text(encoding="utf-8"), color=color)
    assert canonical.exit_code == 0
    for name in TAGS[:5]:
        assert f'[{name} "' in canonical.stdout
    assert f'[White "{WHITE}"]' in canonical.stdout
    assert f"{{after{HOSTILE} and a second line}}" in canonical.stdout
    assert run("extract", game, color=color).stdout == canonical.stdout
    assert run("select", game, color=color).stdout == canonical.stdout
    rows = [json.loads(line) for line in run("replay", game, "--format", "jsonl", color=color).stdout.splitlines()]
    assert rows[0]["comments"] == ["[%ts 2026-11-23T11:00Z]", f"after{HOSTILE} and a second line"]


def test_finding4_a_real_process_shows_no_escape_sequence(game, tmp_path):
    copy = tmp_path / "copy.tgn"
    shutil.copy(game, copy)
    for args in (("show", copy), ("replay", copy), ("clock", copy, "--now", NOW)):
        done = tomis(*args)
        assert done.returncode == 0, done.stderr
        assert_visible(done.stdout)
        assert_visible(done.stderr)
    done = tomis("extract", copy)
    assert f'[White "{WHITE}"]' in done.stdout
