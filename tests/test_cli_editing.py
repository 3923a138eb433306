"""``tomis.cli.files.editing``: the one way a command changes a game file. Read under the
lock, change, check, write atomically on a clean exit; write nothing when the block
raises. The commands built on it (move, claim, draw, resign, variation add) keep their
own tests; these pin the context itself.
"""

from __future__ import annotations

import click
import pytest

from tomis.cli.base import Failure
from tomis.cli.files import editing
from tomis.errors import FileError
from tomis.util import safefile

GAME = "1. B@e1 B@d8 *\n"
TWO_GAMES = "1. B@e1 B@d8 *\n\n1. B@a1 *\n"


@pytest.fixture
def game_file(tmp_path):
    path = tmp_path / "g.tgn"
    path.write_text(GAME, encoding="utf-8")
    return path


def test_a_clean_block_writes_the_changed_game_back_canonical(game_file):
    with editing(str(game_file)) as edit:
        edit.game.play("G@b1")
    text = game_file.read_text(encoding="utf-8")
    assert text == edit.text and text.rstrip().endswith("1. B@e1 B@d8 2. G@b1 *")


def test_a_block_that_raises_writes_nothing(game_file):
    with pytest.raises(RuntimeError):
        with editing(str(game_file)) as edit:
            edit.game.play("G@b1")
            raise RuntimeError("refused half way")
    assert game_file.read_text(encoding="utf-8") == GAME and edit.text is None


def test_the_file_is_locked_while_the_block_runs(game_file):
    with editing(str(game_file)):
        with pytest.raises(FileError, match="being changed by another tomis"):
            with safefile.locked(str(game_file)):
                pass
    with safefile.locked(str(game_file)):       # and free again after it
        pass


def test_a_dry_run_checks_the_new_record_and_writes_nothing(game_file):
    with editing(str(game_file), dry_run=True) as edit:
        edit.game.play("G@b1")
    assert "2. G@b1" in edit.text and game_file.read_text(encoding="utf-8") == GAME


def test_with_output_the_file_read_stays_and_the_new_record_goes_there(game_file, tmp_path):
    out = tmp_path / "out.tgn"
    with editing(str(game_file), output=str(out)) as edit:
        edit.game.play("G@b1")
    assert edit.elsewhere and edit.target == str(out)
    assert game_file.read_text(encoding="utf-8") == GAME
    assert out.read_text(encoding="utf-8") == edit.text


def test_output_holding_another_game_is_refused_before_the_block_runs(game_file, tmp_path):
    out = tmp_path / "out.tgn"
    out.write_text("1. B@a1 *\n", encoding="utf-8")
    ran = []
    with pytest.raises(Failure):
        with editing(str(game_file), output=str(out)):
            ran.append(True)
    assert not ran and out.read_text(encoding="utf-8") == "1. B@a1 *\n"


def test_one_game_of_several_is_changed_and_every_game_written_back(tmp_path):
    path = tmp_path / "two.tgn"
    path.write_text(TWO_GAMES, encoding="utf-8")
    with editing(str(path), game_number=2) as edit:
        edit.game.play("B@h8")
    first, second = path.read_text(encoding="utf-8").split("\n\n[")
    assert first.rstrip().endswith("1. B@e1 B@d8 *") and second.rstrip().endswith("1. B@a1 B@h8 *")


def test_a_game_number_the_file_lacks_is_a_usage_error(tmp_path):
    path = tmp_path / "two.tgn"
    path.write_text(TWO_GAMES, encoding="utf-8")
    with pytest.raises(click.BadParameter, match="holds 2 game"):
        with editing(str(path), game_number=3):
            pass
    assert path.read_text(encoding="utf-8") == TWO_GAMES


def test_an_invalid_record_is_a_located_failure_and_nothing_is_written(tmp_path):
    path = tmp_path / "bad.tgn"
    path.write_text("1. B@e1 B@e1 *\n", encoding="utf-8")
    with pytest.raises(Failure) as failure:
        with editing(str(path)):
            pass
    assert failure.value.code == 1
    assert path.read_text(encoding="utf-8") == "1. B@e1 B@e1 *\n"
