"""Terminal conventions and rough edges of every command (issue 17), without a keyboard.

Colour rules, located errors (caret on a terminal, no ``:0:0``, one style for every
unreadable path), case-insensitive sides, ``moves --game``, hints for swapped arguments
and for text that holds no game, ``show --fen``, yes/no prompts, undo in words, the
player's name at the prompt, quitting an unsaved game, no prompt repeated at end of input.
What needs a real keyboard is in tests/test_play_keyboard.py.
"""

from __future__ import annotations

import json
import os
import sys

import pytest

from conftest import invoke, tomis, written

pexpect = pytest.importorskip("pexpect")
ESC = "\x1b["
TWO_GAMES = "1. B@e1 B@d8 *\n\n1. B@f1 B@c8 2. G@a1 *\n"
PROSE = "Hello Bo,\n\nhow are you? Let us play on Sunday, after lunch.\n\nAna\n"


def in_pty(*args, env=None, cwd=None):
    """``tomis ARGS`` on a pseudo-terminal: (everything it showed, exit code)."""
    full_env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    full_env.update({"COLUMNS": "100", "TERM": "xterm"})
    full_env.update(env or {})
    child = pexpect.spawn(sys.executable, ["-m", "tomis", *map(str, args)], env=full_env,
                          cwd=cwd, encoding="utf-8", timeout=20)
    child.setwinsize(40, 100)
    child.expect(pexpect.EOF)
    child.close()
    return child.before.replace("\r\n", "\n"), child.exitstatus


@pytest.fixture
def game(tmp_path):
    return written(tmp_path / "g.tgn", "1. B@e1 B@d8 2. G@b1 G@g8")


# --------------------------------------------------------------------------- colour

def test_color_always_colours_a_pipe(game):
    result = invoke("show", game, "--color", "always")
    assert result.exit_code == 0 and ESC in result.stdout


def test_color_never_beats_force_color(game, monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert ESC not in invoke("show", game, "--color", "never").stdout


def test_force_color_colours_a_pipe(game, monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert ESC in invoke("show", game).stdout


def test_a_pipe_gets_the_plain_diagram_byte_for_byte(game, monkeypatch):
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    plain = invoke("show", game).stdout
    assert plain == invoke("show", game, "--ascii").stdout == invoke("show", game, "--color", "never").stdout
    assert plain.isascii()


def test_an_unknown_color_choice_is_a_usage_error(game):
    result = invoke("show", game, "--color", "sometimes")
    assert result.exit_code == 2 and "--color" in result.stderr


@pytest.mark.parametrize("command", [["show"], ["replay"], ["move", "--dry-run"], ["play"]])
def test_every_command_that_draws_a_board_takes_color(command, game):
    args = [*command, game] + (["G@c2"] if command[0] == "move" else [])
    result = invoke(*args, "--color", "always", input="quit\n")
    assert result.exit_code == 0, result.stderr
    assert ESC in result.stdout


def test_empty_no_color_on_a_terminal_still_colours(game):
    shown, code = in_pty("show", game, env={"NO_COLOR": ""})
    assert code == 0 and ESC + "33m" in shown


def test_no_color_on_a_terminal_turns_colour_off(game):
    shown, code = in_pty("show", game, env={"NO_COLOR": "1"})
    assert code == 0 and ESC not in shown


def test_term_dumb_gets_no_escape_codes_and_no_arrows(tmp_path):
    path = written(tmp_path / "j.tgn", "1. B@e1 B@d8 2. G@b1 G@g8 3. G@f2 G@a7 4. G@c3 G@e6 "
                                       "5. G@h4 G@d5 6. F@a1 F@h8 7. Fa1-b1 T@a8 8. Fb1=A Fh8-g8 "
                                       "9. M@b1:NE")
    shown, code = in_pty("show", path, env={"TERM": "dumb"})
    assert code == 0
    assert ESC not in shown and "\u2197" not in shown
    assert "FGNE" in shown


# --------------------------------------------------------------------------- errors

@pytest.mark.parametrize("command", [
    ["validate"], ["show"], ["moves"], ["replay"], ["fmt", "--check"],
    ["move", "--dry-run", "_", "F@a1"]])
def test_every_command_shows_the_caret_on_a_terminal(tmp_path, command):
    path = tmp_path / "bad.tgn"
    path.write_text("1. B@e1 B@d8 2. G@z9 *\n", encoding="utf-8")
    args = [path if word == "_" else word for word in command] + ([] if "_" in command else [path])
    shown, code = in_pty(*args)
    assert code == 1
    lines = shown.splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith(f"{path}:1:"))
    column = int(lines[index][len(f"{path}:1:"):].split(":")[0])
    assert lines[index + 1] == "  1. B@e1 B@d8 2. G@z9 *"
    assert lines[index + 2] == "  " + " " * (column - 1) + "^"


def test_validate_shows_no_caret_in_a_pipe(tmp_path):
    path = tmp_path / "bad.tgn"
    path.write_text("1. B@e1 B@d8 2. G@z9 *\n", encoding="utf-8")
    assert len(invoke("validate", path).stderr.splitlines()) == 1


def test_a_missing_file_is_named_without_a_place(tmp_path):
    result = invoke("validate", tmp_path / "nosuch.tgn")
    assert result.exit_code == 2
    assert result.stderr == f"{tmp_path / 'nosuch.tgn'}: no such file\n"


@pytest.mark.parametrize("command", [
    ["validate"], ["show"], ["moves"], ["replay"], ["fmt"], ["move", "_", "B@e1"]])
def test_a_folder_is_reported_like_every_other_unreadable_path(command, tmp_path):
    folder = tmp_path / "games"
    folder.mkdir()
    args = [folder if word == "_" else word for word in command]
    if "_" not in command:
        args.append(folder)
    result = invoke(*args)
    assert result.exit_code == 2
    assert result.stderr == f"{folder}: is a folder, not a game file\n"


@pytest.mark.parametrize("command", [
    ["show", "_game", "--svg", "-o", "_folder"], ["export", "_game", "--html", "-o", "_folder"],
    ["move", "_game", "G@c2", "--mail", "_folder"]])
def test_a_folder_to_write_into_is_refused_before_anything_is_done(command, game, tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    before = game.read_bytes()
    args = [{"_game": game, "_folder": folder}.get(word, word) for word in command]
    result = invoke(*args)
    assert result.exit_code == 1
    assert result.stderr == f"{folder}: is a folder; name a file in it instead\n"
    assert game.read_bytes() == before          # the move was not saved either


@pytest.mark.parametrize("command", [["send", "_"], ["extract", "_"], ["export", "_", "--html", "-o", "x.html"]])
def test_the_mail_and_picture_commands_name_a_folder_as_the_others_do(command, tmp_path):
    folder = tmp_path / "games"
    folder.mkdir()
    result = invoke(*[folder if word == "_" else word for word in command])
    assert result.exit_code == 2
    assert result.stderr == f"{folder}: is a folder, not a game file\n"


def test_inbox_names_a_missing_place_as_every_command_does(tmp_path):
    result = invoke("inbox", tmp_path / "nowhere", "--me", "Ana")
    assert result.exit_code == 2
    assert result.stderr == f"{tmp_path / 'nowhere'}: no such file or folder\n"


def test_new_into_a_folder_is_refused_in_the_same_style(tmp_path):
    result = invoke("new", tmp_path)
    assert result.exit_code in (1, 2)
    assert result.stderr == f"{tmp_path}: is a folder; name a file in it instead\n"


def test_play_save_into_a_folder_says_it_is_a_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "games").mkdir()
    result = invoke("play", input="B@e1\nsave games\nquit\nyes\n")
    assert "games: is a folder; name a file in it instead" in result.stderr


def test_show_at_past_the_start_of_an_empty_game_says_only_0_exists(tmp_path):
    path = tmp_path / "new.tgn"
    invoke("new", path)
    result = invoke("show", path, "--at", "1")
    assert result.exit_code == 2
    assert "the game has no actions yet; only 0, the start, can be shown" in result.stderr


def test_swapped_file_and_action_get_a_hint(game, monkeypatch):
    monkeypatch.chdir(game.parent)
    result = invoke("move", "B@e1", "g.tgn")
    assert result.exit_code == 2
    assert result.stderr == ("B@e1: no such file; FILE comes before ACTION: "
                             "did you mean 'tomis move g.tgn B@e1'?\n")


def test_an_unquoted_gate_jump_cut_by_the_shell_gets_a_hint(tmp_path):
    path = written(tmp_path / "g.tgn", "1. B@e1 B@d8")
    done = tomis("move", path, "Fc3", cwd=tmp_path)      # what the shell left of Fc3>d4
    assert done.returncode == 1
    assert done.stderr.startswith("<action>:1:4: expected -, =, >, x or ^ after 'Fc3'")
    assert "put it in quotes ('Fc3>e4')" in done.stderr


def test_move_action_completes_in_the_shell_from_the_games_legal_actions(tmp_path):
    from click.testing import CliRunner

    from tomis.cli import cli

    path = written(tmp_path / "g.tgn", "1. B@e1")
    result = CliRunner().invoke(cli, [], prog_name="tomis", env={
        "_TOMIS_COMPLETE": "bash_complete", "COMP_WORDS": f"tomis move {path} B@",
        "COMP_CWORD": "3"})
    assert result.output.split() == [f"plain,B@{f}8" for f in "abcdefgh"]


def test_move_action_completion_offers_nothing_for_a_missing_file(tmp_path):
    from click.testing import CliRunner

    from tomis.cli import cli

    result = CliRunner().invoke(cli, [], prog_name="tomis", env={
        "_TOMIS_COMPLETE": "bash_complete", "COMP_WORDS": f"tomis move {tmp_path}/no.tgn B@",
        "COMP_CWORD": "3"})
    assert result.exit_code == 0 and result.output.split() == []


@pytest.mark.parametrize("command", ["validate", "show", "moves", "replay"])
def test_prose_is_no_game_not_a_bad_piece_letter(tmp_path, command):
    path = tmp_path / "letter.txt"
    path.write_text(PROSE, encoding="utf-8")
    result = invoke(command, path)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"{path}: no game found in this file: no tags")
    assert "piece letter" not in result.stderr


# --------------------------------------------------------------------------- options

@pytest.mark.parametrize("side", ["White", "WHITE", "white"])
def test_as_takes_a_side_in_any_case(side, tmp_path):
    path = written(tmp_path / "g.tgn", "1. B@e1 B@d8")
    result = invoke("move", path, "G@b1", "--as", side)
    assert result.exit_code == 0, result.stderr


def test_as_in_any_case_still_refuses_the_wrong_side(tmp_path):
    path = written(tmp_path / "g.tgn", "1. B@e1 B@d8")
    result = invoke("move", path, "G@b1", "--as", "Black")
    assert result.exit_code == 1 and "it is White's turn" in result.stderr


def test_moves_square_takes_a_capital_square_too(game):
    assert invoke("moves", game, "--square", "C2").stdout == invoke("moves", game, "--square", "c2").stdout
    assert "G@c2" in invoke("moves", game, "--square", "C2").stdout       # gates on rank 2 now


def test_play_moves_takes_a_capital_square_too(tmp_path):
    result = invoke("play", tmp_path / "p.tgn", input="moves E1\nquit\n")
    assert "legal action(s) from e1" in result.stdout and "B@e1" in result.stdout


def test_moves_game_lists_the_actions_of_that_game(tmp_path):
    path = tmp_path / "two.tgn"
    path.write_text(TWO_GAMES, encoding="utf-8")
    first = json.loads(invoke("moves", path, "--json").stdout)["moves"]
    second = invoke("moves", path, "--game", "2", "--json")
    assert second.exit_code == 0, second.stderr
    assert json.loads(second.stdout)["moves"] != first
    assert "G@a8" in json.loads(second.stdout)["moves"]          # Black's gate, action 4


def test_moves_game_past_the_end_is_a_usage_error(tmp_path):
    path = tmp_path / "two.tgn"
    path.write_text(TWO_GAMES, encoding="utf-8")
    result = invoke("moves", path, "--game", "3")
    assert result.exit_code == 2 and "holds 2 game(s)" in result.stderr


def test_show_fen_prints_the_position_string_new_takes(game, tmp_path):
    fen = invoke("show", game, "--fen")
    assert fen.exit_code == 0
    assert len(fen.stdout.splitlines()) == 1
    copy = tmp_path / "copy.tgn"
    assert invoke("new", copy, "--position", fen.stdout.strip()).exit_code == 0
    assert invoke("show", copy, "--fen").stdout == fen.stdout


def test_show_fen_at_an_earlier_action(game):
    start = invoke("show", game, "--fen", "--at", "0").stdout.strip()
    assert start == "8/8/8/8/8/8/8/8 - w 1448221/1448221 - manual 1 0"


def test_show_json_includes_the_position_string(game):
    data = json.loads(invoke("show", game, "--json").stdout)
    assert data["position"] == invoke("show", game, "--fen").stdout.strip()


def test_show_fen_and_json_together_are_refused(game):
    result = invoke("show", game, "--fen", "--json")
    assert result.exit_code == 2


# --------------------------------------------------------------------------- play without a keyboard

def test_the_prompt_names_the_player_and_the_side(tmp_path):
    result = invoke("play", tmp_path / "p.tgn", "--white", "Ana", "--black", "Bo",
                    input="B@e1\nquit\n")
    assert "Ana (White, action 1)> " in result.stdout
    assert "Bo (Black, action 2)> " in result.stdout


def test_the_draw_question_names_the_player_asked(tmp_path):
    result = invoke("play", tmp_path / "p.tgn", "--white", "Ana", "--black", "Bo",
                    input="draw\nno\nquit\n")
    assert "Bo (Black), do you accept a draw? [yes/no] " in result.stdout


def test_undo_names_what_it_took_back_and_shows_the_board(tmp_path):
    path = tmp_path / "p.tgn"
    result = invoke("play", path, input="B@e1\nB@d8\nundo\nquit\n")
    after_undo = result.stdout.split("took back", 1)[1]
    assert after_undo.startswith(" action 2, Black's B@d8")
    assert " 8 | .     .     .     .     .     .     .     .     | 8" in after_undo


def test_undo_of_a_resignation_says_so(tmp_path):
    path = tmp_path / "p.tgn"
    result = invoke("play", path, input="B@e1\nresign\nundo\nquit\n")
    assert "took back the result 1-0" in result.stdout


def test_quitting_an_unsaved_game_asks_first(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = invoke("play", input="B@e1\nquit\nno\nsave kept.tgn\nquit\n")
    assert result.exit_code == 0
    assert "not saved" in result.stdout and "[yes/no]" in result.stdout
    assert "B@e1" in (tmp_path / "kept.tgn").read_text(encoding="utf-8")


def test_quitting_an_unsaved_game_with_yes_discards_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = invoke("play", input="B@e1\nquit\nyes\n")
    assert result.exit_code == 0
    assert "bye; this game was not saved" in result.stdout
    assert list(tmp_path.iterdir()) == []


def test_play_without_a_file_says_so_at_the_start(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = invoke("play", input="quit\n")
    assert "new game, not saved to any file: type save FILE to keep it" in result.stdout


def test_quitting_before_any_action_does_not_ask(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = invoke("play", input="quit\n")
    assert result.exit_code == 0 and "[yes/no]" not in result.stdout


def test_replay_step_without_input_prompts_once(game):
    done = tomis("replay", game, "--step", input="")
    assert done.returncode == 0
    assert done.stderr.count("Enter: next action") == 1
    assert done.stdout.count("played") == 4


def test_play_at_end_of_input_prompts_once(tmp_path):
    result = invoke("play", tmp_path / "p.tgn", input="")
    assert result.stdout.count("White (action 1)> ") == 1
