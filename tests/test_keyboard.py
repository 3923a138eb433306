"""``tomis play`` and ``tomis replay`` at a real keyboard (a pseudo-terminal): editing,
history, completion, quitting safely, Ctrl-C and Ctrl-L.

The screen is drawn by prompt_toolkit, which puts escape codes between characters as it
redraws; :func:`shown` matches text with any of them in between. PROMPT_TOOLKIT_NO_CPR
tells it not to wait for a cursor-position answer, which a real terminal gives and
pexpect does not.
"""

from __future__ import annotations

import os
import re
import sys

import pytest

pexpect = pytest.importorskip("pexpect")
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")

TIMEOUT = 20            # generous for a slow machine; nothing here measures time
UP, TAB, CTRL_C, CTRL_D, CTRL_L = "\x1b[A", "\t", "\x03", "\x04", "\x0c"
_CODES = "(?:\x1b\\[[0-9;?]*[A-Za-z])*"


def shown(text: str) -> str:
    """A pattern for ``text`` as it appears on the screen, escape codes and all."""
    return _CODES.join(re.escape(char) for char in text)


def spawn(tmp_path, *args):
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(TERM="xterm", NO_COLOR="1", COLUMNS="100", PROMPT_TOOLKIT_NO_CPR="1",
               XDG_STATE_HOME=str(tmp_path / "state"))
    child = pexpect.spawn(sys.executable, ["-m", "tomis", "play", *map(str, args)], env=env,
                          cwd=str(tmp_path), encoding="utf-8", timeout=TIMEOUT)
    child.setwinsize(50, 100)
    return child


def prompt(child, text: str) -> None:
    child.expect(shown(text))


def type_line(child, text: str, next_prompt: str) -> None:
    child.send(text + "\r")
    prompt(child, next_prompt)


def leave(child) -> None:
    """Type quit and see tomis end cleanly."""
    child.send("quit\r")
    assert finish(child) == 0


def finish(child) -> int:
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus


def test_up_recalls_the_last_line_typed(tmp_path):
    child = spawn(tmp_path, "g.tgn")
    prompt(child, "White (action 1)>")
    type_line(child, "moves e1", "White (action 1)>")
    child.send(UP + "\r")                   # the same command again, not ^[[A
    child.expect_exact("legal action(s) from e1")
    prompt(child, "White (action 1)>")
    assert "^[[A" not in child.before
    leave(child)


def test_history_is_kept_per_game_across_sessions(tmp_path):
    first = spawn(tmp_path, "g.tgn")
    prompt(first, "White (action 1)>")
    type_line(first, "B@e1", "Black (action 2)>")
    leave(first)

    again = spawn(tmp_path, "g.tgn")
    prompt(again, "Black (action 2)>")
    again.send(UP + UP)                      # quit, then B@e1 from the last session
    again.expect(shown("B@e1"))
    again.send("\x15" + "quit\r")            # Ctrl-U clears the line
    assert finish(again) == 0

    other = spawn(tmp_path, "other.tgn")     # another game starts with no history
    prompt(other, "White (action 1)>")
    other.send(UP + "\r")
    prompt(other, "White (action 1)>")
    assert "B@e1" not in other.before
    leave(other)
    assert len(list((tmp_path / "state" / "tomis" / "history").iterdir())) == 2


def test_history_of_an_unsaved_game_moves_with_save_file(tmp_path):
    first = spawn(tmp_path)
    prompt(first, "White (action 1)>")
    type_line(first, "B@e1", "Black (action 2)>")
    type_line(first, "save kept.tgn", "Black (action 2)>")
    leave(first)

    again = spawn(tmp_path, "kept.tgn")
    prompt(again, "Black (action 2)>")
    again.send(UP + UP + UP)                 # quit, save kept.tgn, then B@e1
    again.expect(shown("B@e1"))
    again.send("\x15")
    leave(again)


@pytest.mark.parametrize("typed, completed, then", [
    ("B@e", "B@e1", "White played 1. B@e1 (action 1)"),      # a legal action
    ("he", "help", "Commands:"),                              # a command
])
def test_tab_completes(tmp_path, typed, completed, then):
    child = spawn(tmp_path, "g.tgn")
    prompt(child, "White (action 1)>")
    child.send(typed)
    child.send(TAB)
    child.expect(shown(completed))
    child.send("\r")
    child.expect_exact(then)
    child.expect(shown(" (action "))
    leave(child)


def test_tab_offers_only_legal_actions(tmp_path):
    child = spawn(tmp_path, "g.tgn")
    prompt(child, "White (action 1)>")
    type_line(child, "B@e1", "Black (action 2)>")
    child.send("B@d")                        # Black's base: only on rank 8 (R5)
    child.send(TAB)
    child.expect(shown("B@d8"))
    child.send("\r")
    child.expect_exact("Black played 1... B@d8 (action 2)")
    leave(child)


def test_quitting_an_unsaved_game_asks_and_insists_on_yes_or_no(tmp_path):
    child = spawn(tmp_path)
    prompt(child, "White (action 1)>")
    type_line(child, "B@e1", "Black (action 2)>")
    child.send("quit\r")
    child.expect_exact("not saved")
    prompt(child, "[yes/no]")
    child.send("maybe\r")
    child.expect_exact("please answer yes or no")
    prompt(child, "[yes/no]")
    child.send("no\r")
    prompt(child, "Black (action 2)>")
    child.send("quit\r")
    prompt(child, "[yes/no]")
    child.send("yes\r")
    child.expect_exact("bye; this game was not saved")
    assert finish(child) == 0
    assert not list(tmp_path.glob("*.tgn"))


def test_ctrl_d_on_an_unsaved_game_asks_too(tmp_path):
    child = spawn(tmp_path)
    prompt(child, "White (action 1)>")
    type_line(child, "B@e1", "Black (action 2)>")
    child.send(CTRL_D)
    prompt(child, "[yes/no]")
    child.send("no\r")
    prompt(child, "Black (action 2)>")
    child.send("save kept.tgn\r")
    child.expect_exact("saved kept.tgn")
    child.send(CTRL_D)                       # saved now: leaves without asking
    child.expect_exact("bye; the game is in kept.tgn")
    assert finish(child) == 0


def test_ctrl_c_exits_130_with_one_line_and_the_game_saved(tmp_path):
    child = spawn(tmp_path, "g.tgn")
    prompt(child, "White (action 1)>")
    type_line(child, "B@e1", "Black (action 2)>")
    child.send("B@d")                        # half a line typed
    child.send(CTRL_C)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    tail = child.before.rsplit("B@d", 1)[1]
    words = [line for line in re.sub("\x1b\\[[0-9;?]*[A-Za-z]", "", tail).splitlines()
             if line.strip()]
    assert words == ["tomis: interrupted; the game is saved in g.tgn"]
    assert "Aborted" not in child.before and "Traceback" not in child.before
    assert "B@e1" in (tmp_path / "g.tgn").read_text(encoding="utf-8")


def test_ctrl_l_clears_the_screen_instead_of_printing_it(tmp_path):
    child = spawn(tmp_path, "g.tgn")
    prompt(child, "White (action 1)>")
    child.send(CTRL_L)
    child.expect_exact("\x1b[2J")
    prompt(child, "White (action 1)>")
    assert "^L" not in child.before
    leave(child)


def spawn_replay(path, *options):
    env = dict(os.environ, TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1")
    return pexpect.spawn(sys.executable, ["-m", "tomis", "replay", str(path), *options],
                         env=env, encoding="utf-8", timeout=TIMEOUT)


def test_ctrl_c_at_the_replay_step_prompt_exits_130(tmp_path):
    from conftest import written

    child = spawn_replay(written(tmp_path / "r.tgn", "1. B@e1 B@d8"), "--step")
    child.expect_exact("Enter: next action")
    child.send(CTRL_C)
    child.expect_exact("tomis: interrupted")
    assert finish(child) == 130


def test_ctrl_c_while_replay_waits_exits_130_with_one_line(tmp_path):
    from conftest import written

    child = spawn_replay(written(tmp_path / "r.tgn", "1. B@e1 B@d8"), "--delay", "3600")
    child.expect_exact("White played 1. B@e1 (action 1)")
    child.expect_exact("Action 2: Black to act")
    child.sendintr()
    assert finish(child) == 130
    after = child.before            # everything shown after the board
    assert [line for line in after.replace("^C", "").splitlines() if line.strip()] == [
        "tomis: interrupted"]


def test_replay_step_q_stops_at_a_terminal(tmp_path):
    from conftest import written

    child = spawn_replay(written(tmp_path / "r.tgn", "1. B@e1 B@d8 2. G@b1"), "--step")
    child.expect_exact("White played 1. B@e1")
    child.expect_exact("Enter: next action")
    child.send("q\r")
    assert finish(child) == 0
    assert "Black played" not in child.before


def test_ctrl_c_at_the_smtp_password_prompt_exits_130_not_aborted(tmp_path):
    from conftest import written

    game = written(tmp_path / "g.tgn", "1. B@e1")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOMIS_")}
    env.update(TERM="xterm", TOMIS_SMTP_HOST="127.0.0.1", TOMIS_SMTP_PORT="9",
               TOMIS_SMTP_USER="ana", TOMIS_SMTP_FROM="ana@example.org",
               TOMIS_MAIL_CONFIG=str(tmp_path / "none.ini"))
    child = pexpect.spawn(sys.executable, ["-m", "tomis", "send", str(game), "--to", "bo@example.net"],
                          env=env, encoding="utf-8", timeout=TIMEOUT)
    child.expect_exact("SMTP password for ana")
    child.sendintr()
    assert finish(child) == 130
    assert "tomis: interrupted" in child.before and "Aborted" not in child.before
