"""The ``tomis`` command line through click's CliRunner: every command, exit codes, JSON."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import ROOT, invoke
from tomis import rules
from tomis.rules import position
from tomis.cli import caret_lines

OPENING = """\
[Event "Club ladder"]
[Site "By email"]
[Date "2026.11.22"]
[Round "1"]
[White "Ana"]
[Black "Bo"]
[Result "*"]
[Rules "manual"]

1. B@e1 B@d8 2. G@b1 G@g8 3. G@f2 G@a7 4. G@c3 G@e6 5. G@h4 G@d5
6. F@a1 {first ship} F@h8 7. Fa1-a2 T@a8 *
"""
OPENING_ACTIONS = 14

# Action 4 puts Black's gate on rank 1, where White's gate belongs (R6).
BAD_GATE = "1. B@e1 B@d8 2. G@b1 G@b1 *\n"


@pytest.fixture
def game_file(tmp_path):
    path = tmp_path / "game.tgn"
    path.write_text(OPENING, encoding="utf-8")
    return path


@pytest.fixture
def bad_file(tmp_path):
    """A record whose action 4 breaks R6 (BAD_GATE)."""
    path = tmp_path / "bad.tgn"
    path.write_text(BAD_GATE, encoding="utf-8")
    return path


def canonical(path) -> str:
    """The record as ``tomis fmt`` writes it, so tests need not know the writer's layout."""
    result = invoke("fmt", path)
    assert result.exit_code == 0, result.stderr
    return path.read_text(encoding="utf-8")


# --------------------------------------------------------------------------- new

def test_new_writes_a_record_that_validates(tmp_path):
    path = tmp_path / "g.tgn"
    result = invoke("new", path, "--white", "Ana", "--black", "Bo", "--event", "Ladder",
                    "--site", "Mail", "--date", "2026.11.22", "--round", "3")
    assert result.exit_code == 0, result.stderr
    text = path.read_text(encoding="utf-8")
    for tag in ('[White "Ana"]', '[Black "Bo"]', '[Event "Ladder"]', '[Site "Mail"]',
                '[Date "2026.11.22"]', '[Round "3"]'):
        assert tag in text
    assert invoke("validate", path).exit_code == 0


def test_new_readme_rules_reach_the_game(tmp_path):
    path = tmp_path / "g.tgn"
    assert invoke("new", path, "--rules", "readme").exit_code == 0
    shown = json.loads(invoke("show", path, "--json").stdout)
    assert shown["to_move"] == "white"
    assert '[Rules "readme"]' in path.read_text(encoding="utf-8")


def test_new_refuses_to_overwrite(game_file):
    result = invoke("new", game_file, "--white", "Someone")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"{game_file}:")
    assert game_file.read_text(encoding="utf-8") == OPENING


def test_new_dash_prints_the_record():
    result = invoke("new", "-", "--white", "Ana")
    assert result.exit_code == 0
    assert '[White "Ana"]' in result.stdout


def test_new_rejects_unknown_rules(tmp_path):
    assert invoke("new", tmp_path / "g.tgn", "--rules", "house").exit_code == 2


@pytest.mark.parametrize("option", [["--position", "garbage"], ["--white", "Ana\nBo"]])
def test_new_with_a_bad_option_value_is_a_usage_error_naming_it(tmp_path, option):
    # Was "<input>:0:0: ..." and exit 1, as if some file called <input> were broken.
    path = tmp_path / "g.tgn"
    result = invoke("new", path, *option)
    assert result.exit_code == 2
    assert "<input>" not in result.stderr
    assert "Error: Invalid value for " + option[0] in result.stderr
    assert not path.exists()


# --------------------------------------------------------------------------- move

def test_move_appends_and_prints_a_reply(game_file):
    result = invoke("move", game_file, "Fa2-a3", "--as", "white")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "White played 8. Fa2-a3 (action 15)" in out
    assert "combat destroyed nothing" in out
    assert " 8 | t" in out                       # the board, rank 8 first
    assert "Action 16: Black to act" in out
    written = game_file.read_text(encoding="utf-8")
    assert "Fa2-a3" in written
    assert out.rstrip("\n").endswith(written.rstrip("\n"))   # the reply carries the record
    assert invoke("validate", game_file).exit_code == 0


def test_move_output_is_ascii_when_piped(game_file):
    result = invoke("move", game_file, "Fa2-a3")
    assert result.exit_code == 0
    assert result.stdout.isascii()
    assert "\x1b[" not in result.stdout


def test_illegal_move_leaves_the_file_byte_identical(game_file):
    before = game_file.read_bytes()
    result = invoke("move", game_file, "Fa2-a1")          # frigates never move backward (R9)
    assert result.exit_code == 1
    assert game_file.read_bytes() == before
    line = result.stderr.strip()
    assert line.startswith("<action>:1:") and "R9" in line
    assert len(result.stderr.strip().splitlines()) == 1


def test_unreadable_action_is_located_in_the_argument(game_file):
    before = game_file.read_bytes()
    result = invoke("move", game_file, "Fa2-z9")
    assert result.exit_code == 1
    assert result.stderr.startswith("<action>:1:")
    assert game_file.read_bytes() == before


def test_move_as_the_wrong_side_is_refused(game_file):
    before = game_file.read_bytes()
    result = invoke("move", game_file, "Fa2-a3", "--as", "black")
    assert result.exit_code == 1
    assert "it is White's turn (action 15), not Black's" in result.stderr
    assert game_file.read_bytes() == before


def test_move_since_dash_is_a_usage_error_not_a_read_of_stdin(game_file):
    # --since names the copy you kept; it used to read stdin for "-" all the same.
    result = invoke("move", game_file, "G@b1", "--since", "-", input=OPENING)
    assert result.exit_code == 2 and "--since" in result.stderr
    assert game_file.read_text(encoding="utf-8") == OPENING


def test_move_dry_run_writes_nothing(game_file):
    before = game_file.read_bytes()
    result = invoke("move", game_file, "Fa2-a3", "--dry-run")
    assert result.exit_code == 0
    assert "dry run" in result.stdout and "Fa2-a3" in result.stdout
    assert game_file.read_bytes() == before


def test_move_on_stdin_writes_the_record_to_stdout_and_the_summary_to_stderr():
    result = invoke("move", "-", "Fa2-a3", input=OPENING)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("[Event")
    assert "T@a8 8. Fa2-a3" in result.stdout
    assert "White played 8. Fa2-a3" in result.stderr
    assert "played" not in result.stdout


def test_a_pasted_reply_is_read_back_by_the_opponent(game_file, tmp_path):
    reply = invoke("move", game_file, "Fa2-a3", "--as", "white").stdout
    mail = tmp_path / "mail.txt"
    mail.write_text("On Sunday Ana wrote:\n" + "".join("> " + l + "\n" for l in reply.splitlines()),
                    encoding="utf-8")
    result = invoke("move", mail, "Fh8-g8", "--as", "black")
    assert result.exit_code == 0, result.stderr
    assert "Black played 8... Fh8-g8 (action 16)" in result.stdout


def test_move_reads_a_record_quoted_in_an_email(tmp_path):
    mail = "Hi Bo,\n\nyour move. On Sunday, Ana wrote:\n" + "".join(
        "> " + line + "\n" for line in OPENING.splitlines()) + "\nCheers\n"
    path = tmp_path / "mail.txt"
    path.write_text(mail, encoding="utf-8")
    result = invoke("move", path, "Fa2-a3", "--as", "white")
    assert result.exit_code == 0, result.stderr
    assert "note:" in result.stderr
    text = path.read_text(encoding="utf-8")
    assert text.startswith("[Event") and "Fa2-a3" in text and "Cheers" not in text


def test_move_error_in_a_quoted_record_points_at_the_mail_line(tmp_path):
    mail = "Hello\n\n" + "".join("> " + line + "\n" for line in BAD_GATE.splitlines())
    path = tmp_path / "mail.txt"
    path.write_text(mail, encoding="utf-8")
    result = invoke("move", path, "G@c2")
    assert result.exit_code == 1
    # Line 3, column 24 of the mail itself, quote marks included.
    assert result.stderr.splitlines()[-1].startswith(f"{path}:3:24: ")
    assert path.read_text(encoding="utf-8") == mail


def test_move_on_a_missing_file_is_a_usage_error(tmp_path):
    result = invoke("move", tmp_path / "nope.tgn", "F@a1")
    assert result.exit_code == 2
    assert "no such file" in result.stderr


def test_move_refuses_while_another_process_holds_the_lock(game_file):
    from tomis.util import safefile

    before = game_file.read_bytes()
    with safefile.locked(game_file):
        result = invoke("move", game_file, "Fa2-a3")
    assert result.exit_code == 1
    assert "another tomis process" in result.stderr
    assert game_file.read_bytes() == before


# --------------------------------------------------------------------------- show

def test_show_prints_board_reserves_unlocks_and_turn(game_file):
    result = invoke("show", game_file, "--ascii")
    assert result.exit_code == 0
    out = result.stdout
    assert "Ana (White) vs Bo (Black), Club ladder" in out
    assert "Black played 7... T@a8 (action 14)" in out
    assert "     a     b     c" in out
    assert "White reserve:" in out and "Black reserve:" in out
    assert "Flagships: White locked, Black locked (R20)" in out
    assert "Action 15: White to act" in out
    assert out.isascii()


def test_show_json_is_the_position_view_and_nothing_else(game_file):
    result = invoke("show", game_file, "--json")
    data = json.loads(result.stdout)
    assert data["to_move"] == "white"
    assert {"square": "a8", "side": "black", "piece": "tower"} in data["units"]
    # ... and its position string, which `new --position` takes (issue 17).
    assert set(data) == {"to_move", "result", "units", "gates", "reserve", "flagship_unlocked",
                         "position"}


def test_show_at_zero_is_the_empty_board(game_file):
    data = json.loads(invoke("show", game_file, "--json", "--at", "0").stdout)
    start = rules.new_game()
    assert data == {**position.to_json(start), "position": position.to_string(start)}


def test_show_at_an_action_in_the_middle(game_file):
    data = json.loads(invoke("show", game_file, "--json", "--at", "2").stdout)
    assert [u["square"] for u in data["units"]] == ["e1", "d8"]
    assert data["gates"] == []


def test_show_at_past_the_end_is_a_usage_error(game_file):
    result = invoke("show", game_file, "--at", "99")
    assert result.exit_code == 2
    assert "14 actions" in result.stderr


def test_show_picks_a_game_from_a_file_of_several(tmp_path):
    path = tmp_path / "two.tgn"
    path.write_text(OPENING + "\n1. B@a1 *\n", encoding="utf-8")
    data = json.loads(invoke("show", path, "--json", "--game", "2").stdout)
    assert data["units"] == [{"square": "a1", "side": "white", "piece": "base"}]
    assert invoke("show", path, "--game", "3").exit_code == 2


def test_show_invalid_game_exits_1_with_a_located_line(bad_file):
    result = invoke("show", bad_file)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"{bad_file}:1:")
    assert "Traceback" not in result.stderr


def test_show_and_moves_after_a_resignation(tmp_path):
    path = tmp_path / "resigned.tgn"
    path.write_text(OPENING.replace('[Result "*"]', '[Result "0-1"]').replace("T@a8 *", "T@a8 0-1"),
                    encoding="utf-8")
    assert "Game over: 0-1, by resignation (R23)" in invoke("show", path).stdout
    assert json.loads(invoke("moves", path, "--json").stdout) == {"moves": []}
    assert "Game over: 0-1" in invoke("moves", path).stdout


# --------------------------------------------------------------------------- moves

def test_moves_json_lists_every_legal_action_sorted(game_file):
    from tomis.notation import record

    data = json.loads(invoke("moves", game_file, "--json").stdout)
    final = record.read_game(OPENING).final
    assert data == {"moves": sorted(str(a) for a in rules.legal_actions(final))}
    assert "Fa2-a3" in data["moves"] and "F@b1" not in data["moves"]   # b1 holds a gate (R8)


def test_moves_square_filters_to_actions_from_that_square(game_file):
    data = json.loads(invoke("moves", game_file, "--json", "--square", "a2").stdout)
    assert data == {"moves": ["Fa2-a3", "Fa2-b2"]}


def test_moves_human_output_counts_the_actions(game_file):
    result = invoke("moves", game_file, "--square", "a2")
    assert result.exit_code == 0
    assert "2 legal action(s) from a2" in result.stdout
    assert "Fa2-a3" in result.stdout


def test_moves_rejects_a_bad_square(game_file):
    assert invoke("moves", game_file, "--square", "z9").exit_code == 2


# --------------------------------------------------------------------------- replay

def test_replay_shows_every_action_with_board_and_combat(game_file):
    result = invoke("replay", game_file)
    assert result.exit_code == 0
    assert result.stdout.count("combat destroyed") == OPENING_ACTIONS
    assert result.stdout.count(" 8 | ") == OPENING_ACTIONS


def test_replay_from_to(game_file):
    out = invoke("replay", game_file, "--from", "11", "--to", "12").stdout
    assert "White played 6. F@a1 (action 11)" in out
    assert "Black played 6... F@h8 (action 12)" in out
    assert "action 10)" not in out and "action 13)" not in out


@pytest.mark.parametrize("options, hint", [
    (["--from", "15"], "--from"),                       # past the end: nothing would be shown
    (["--from", "12", "--to", "11"], "--to"),           # an empty range
    (["--delay", "nan"], "--delay"),                    # was an internal error after action 1
    (["--delay", "inf"], "--delay"),
])
def test_replay_refuses_a_range_or_delay_it_cannot_show(game_file, options, hint):
    result = invoke("replay", game_file, *options)
    assert result.exit_code == 2
    assert result.stdout == "" and hint in result.stderr and "internal error" not in result.stderr


def test_replay_step_without_input_runs_to_the_end(game_file):
    result = invoke("replay", game_file, "--step", "--from", "12", input="")
    assert result.exit_code == 0
    assert "(action 14)" in result.stdout


def test_replay_step_stops_on_q(game_file):
    result = invoke("replay", game_file, "--step", "--from", "12", input="\nq\n")
    assert "(action 13)" in result.stdout
    assert "(action 14)" not in result.stdout


# --------------------------------------------------------------------------- validate

def test_validate_ok(game_file):
    result = invoke("validate", game_file)
    assert result.exit_code == 0
    assert result.stdout.strip() == f"{game_file}: ok, 1 game(s)"


def test_validate_quiet_prints_nothing_for_valid_files(game_file):
    result = invoke("validate", "--quiet", game_file)
    assert result.exit_code == 0 and result.stdout == "" and result.stderr == ""


def test_validate_invalid_game_reports_a_located_line(bad_file):
    result = invoke("validate", bad_file)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"{bad_file}:1:")
    assert len(result.stderr.strip().splitlines()) == 1


def test_validate_json_shape(game_file, bad_file):
    result = invoke("validate", "--json", game_file, bad_file)
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["files"][0] == {"path": str(game_file), "ok": True, "games": [
        {"ok": True, "actions": OPENING_ACTIONS, "result": "*", "error": None}]}
    failing = data["files"][1]
    assert failing["ok"] is False
    game = failing["games"][0]
    assert game["ok"] is False and game["actions"] == 3
    assert set(game["error"]) == {"line", "column", "action", "message"}
    assert game["error"]["action"] == 4 and game["error"]["line"] == 1


def test_validate_unreadable_file_exits_2_and_shows_in_json(tmp_path, game_file):
    missing = tmp_path / "missing.tgn"
    result = invoke("validate", "--json", game_file, missing)
    assert result.exit_code == 2
    entry = json.loads(result.stdout)["files"][1]
    assert entry["ok"] is False and entry["games"] == []
    assert entry["error"]["message"] == "no such file"
    assert entry["error"]["action"] is None


def test_validate_binary_file_is_unreadable(tmp_path):
    path = tmp_path / "image.tgn"
    path.write_bytes(b"\x89PNG\x00\x00")
    result = invoke("validate", path)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"{path}:")


def test_validate_stdin(game_file):
    result = invoke("validate", "-", input=OPENING)
    assert result.exit_code == 0
    assert result.stdout.startswith("<stdin>: ok")


def test_validate_needs_a_file():
    assert invoke("validate").exit_code == 2


# --------------------------------------------------------------------------- fmt

def test_fmt_check_then_fmt_then_check_again(tmp_path):
    path = tmp_path / "loose.tgn"
    loose = "1.B@e1   B@d8\n2. G@b1 G@g8 *"
    path.write_text(loose, encoding="utf-8")
    result = invoke("fmt", "--check", path)
    assert result.exit_code == 1
    assert "would reformat" in result.stderr
    assert path.read_text(encoding="utf-8") == loose
    assert invoke("fmt", path).exit_code == 0
    assert path.read_text(encoding="utf-8") != loose
    assert invoke("fmt", "--check", path).exit_code == 0
    assert invoke("validate", path).exit_code == 0


def test_fmt_leaves_an_invalid_file_alone(bad_file):
    result = invoke("fmt", bad_file)
    assert result.exit_code == 1
    assert bad_file.read_text(encoding="utf-8") == BAD_GATE


def test_fmt_dash_writes_to_stdout():
    result = invoke("fmt", "-", input="1.B@e1 B@d8 *")
    assert result.exit_code == 0
    assert "1. B@e1 B@d8" in result.stdout


# --------------------------------------------------------------------------- the rest

def test_caret_lines_point_at_the_column():
    assert caret_lines("ab\ncdef\n", 2, 3) == ["  cdef", "    ^"]
    assert caret_lines("ab", 5, 1) == []
    assert caret_lines("ab", 1, None) == ["  ab"]


def test_python_dash_m_tomis_runs_the_same_cli():
    result = subprocess.run([sys.executable, "-m", "tomis", "--help"],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0
    assert "validate" in result.stdout and "Usage: tomis" in result.stdout


def test_unknown_command_is_a_usage_error():
    assert invoke("frobnicate").exit_code == 2


def test_validate_json_streamed_file_by_file_is_the_same_document_as_printed_whole(tmp_path):
    # validate writes its JSON as each file finishes (flat memory for big archives);
    # the text must be exactly what dumping the whole report at once would give.
    good = tmp_path / "good.tgn"
    good.write_text("1. B@e1 B@d8 *\n")
    bad = tmp_path / "bad.tgn"
    bad.write_text("1. B@e1 B@e8 2. Fz9 *\n")
    result = invoke("validate", "--json", good, bad, good)
    report = json.loads(result.stdout)
    assert result.stdout == json.dumps(report, indent=2, ensure_ascii=False) + "\n"
    assert [f["ok"] for f in report["files"]] == [True, False, True]
    assert result.exit_code == 1
