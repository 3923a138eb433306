"""Every error reaches a user as exactly one line, whatever characters the input held."""

from __future__ import annotations

import pytest

from conftest import invoke
from tomis.errors import RecordError, TomisError, one_line


@pytest.mark.parametrize("char", ["\n", "\r", "\x1d", "\x1e", "\x0b", "\x0c", "\x85", "\u2028"])
def test_located_escapes_every_line_breaking_character(char):
    # str.splitlines() breaks at all of these; a report must not.
    error = RecordError(f"found 'a{char}b'", 3, 4)
    error.path = f"odd{char}name.tgn"
    text = error.located()
    assert len(text.splitlines()) == 1
    assert text.startswith("odd") and text.endswith("b'")


def test_one_line_keeps_printable_text_as_it_is():
    assert one_line("game 1: expected a square like e4 after 'F' in 'Fz9-a3' — é") == \
        "game 1: expected a square like e4 after 'F' in 'Fz9-a3' — é"
    assert one_line("a\x1db") == "a\\x1db"


def test_validate_reports_a_control_character_in_a_tag_on_one_line(tmp_path):
    # Found by the slow fuzz run: a Digest value holding \x1d printed as two lines.
    path = tmp_path / "g.tgn"
    path.write_text('[Digest "b1fc28d1d44\x1d8190"]\n\n1. B@e1 *\n', encoding="utf-8")
    result = invoke("validate", path)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"{path}:1:9: game 1: the Digest tag must be 16 lowercase hexadecimal digits, "
        "found 'b1fc28d1d44\\x1d8190'"]


def test_every_error_type_is_a_tomis_error():
    from tomis import errors
    kinds = [errors.NotationError, errors.IllegalActionError,
             errors.PositionError, errors.RecordError, errors.FileError]
    assert all(issubclass(kind, TomisError) for kind in kinds)


def test_a_file_name_with_a_newline_is_named_on_one_line(tmp_path):
    path = tmp_path / "odd\nname.tgn"
    path.write_text("1. B@e1 B@d8 *\n", encoding="utf-8")
    result = invoke("validate", path)
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [f"{tmp_path}/odd\\nname.tgn: ok, 1 game(s)"]


@pytest.mark.parametrize("typed, meant", [
    ("legal", "moves"), ("analyze", "analyse"), ("mvoes", "moves"), ("check", "validate"),
])
def test_an_unknown_command_names_the_one_meant(typed, meant):
    # A chess user types `legal` (python-chess's legal_moves); tomis calls it `moves`.
    result = invoke(typed, "game.tgn")
    assert result.exit_code == 2
    assert f"No such command {typed!r}. Did you mean {meant!r}?" in result.stderr
