"""Mail addresses tomis writes into headers: a non-ASCII address (SMTPUTF8, which tomis
does not speak) is a MailError in tomis's words, never an internal error; an accented
display name stays welcome."""

from __future__ import annotations

import pytest
from conftest import SAMPLES_DIR, invoke

from tomis import outgoing


@pytest.mark.parametrize("text", ["Bø <bø@example.net>", "bo@exämple.net", "0@\x80( <ana@example.org>"])
def test_a_non_ascii_address_is_refused_as_not_an_address(text):
    with pytest.raises(outgoing.MailError) as info:
        outgoing.addresses(text, "the address to send to")
    assert "is not a list of mail addresses" in info.value.message


def test_an_accented_name_before_an_ascii_address_is_kept():
    assert outgoing.addresses("Bø <bo@example.net>", "the address to send to") == \
        "=?utf-8?b?QsO4?= <bo@example.net>"


def test_move_with_a_non_ascii_address_is_one_line_not_an_internal_error(tmp_path, monkeypatch):
    game = tmp_path / "g.tgn"
    before = (SAMPLES_DIR / "pbem-in-progress.tgn").read_bytes()
    game.write_bytes(before)
    monkeypatch.setenv("TOMIS_SMTP_FROM", "ana@example.org")
    result = invoke("move", game, "F@a1", "--mail", tmp_path / "o.eml", "--to", "bø@example.net")
    assert result.exit_code == 2                    # a bad option value, refused before the move
    assert "internal error" not in result.stderr
    assert "the address to send to 'bø@example.net' is not a list of mail addresses" in result.stderr
    assert not (tmp_path / "o.eml").exists() and game.read_bytes() == before
