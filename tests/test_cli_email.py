"""Play by email: ``tomis move --as`` (whose turn) and ``--since`` (the reply must be the
record sent plus the opponent's new actions, nothing else)."""

from __future__ import annotations

import textwrap

import pytest

from conftest import TAGS, written
from conftest import invoke as run
from tomis.notation import record


# --------------------------------------------------------------------------- --as

def test_move_as_the_other_side_is_refused_and_changes_nothing(tmp_path):
    path = written(tmp_path / "g.tgn", "1. B@e1")
    before = path.read_bytes()
    result = run("move", path, "G@b1", "--as", "white")
    assert (result.exit_code, result.stderr) == (
        1, "<action>:1:1: it is Black's turn (action 2), not White's (--as white)\n")
    assert path.read_bytes() == before
    assert run("move", path, "B@d8", "--as", "black").exit_code == 0


# --------------------------------------------------------------------------- --since

@pytest.fixture
def exchange(tmp_path):
    """Ana (White) sent sent.tgn after action 3; Bo's honest reply adds action 4."""
    sent = written(tmp_path / "sent.tgn", "1. B@e1 B@d8 2. G@b1")
    reply = written(tmp_path / "reply.tgn", "1. B@e1 B@d8 2. G@b1 G@g8")
    return sent, reply


def test_an_honest_reply_passes_since(exchange):
    sent, reply = exchange
    result = run("move", reply, "G@f2", "--as", "white", "--since", sent)
    assert result.exit_code == 0, result.stderr
    assert len(record.read_game(reply.read_text()).nodes) == 5


@pytest.mark.parametrize("moves, message", [
    ("1. B@f1 B@d8 2. G@b1 G@g8", "{reply}:6:4: action 1 was B@e1 in {sent} but B@f1 here"),
    ("1. B@e1 B@d8 2. G@b1", "{reply}:6:17: this record has no action after the 3 of {sent}: "
                             "it is still Black's turn (action 4)"),
    ("1. B@e1 B@d8", "{reply}:6:9: {sent} has 3 actions but this record only 2: action 3 (G@b1) "
                     "is missing"),
    ("1. B@e1 B@d8 2. G@b1 G@g8 3. G@f2", "{reply}:6:30: action 5 (White) G@f2 is new since "
                                         "{sent}, but only Black's reply may be new"),
])
def test_a_reply_that_is_not_sent_plus_one_opponent_action_is_refused(exchange, moves, message):
    sent, reply = exchange
    # Written by hand (no Digest), as a cheat would: only --since can tell.
    reply.write_text(TAGS + "\n" + moves + " *\n")
    before = reply.read_bytes()
    result = run("move", reply, "G@a7", "--since", sent)
    assert (result.exit_code, result.stderr) == (
        1, message.format(reply=reply, sent=sent) + "\n")
    assert reply.read_bytes() == before


def test_a_changed_player_name_is_named_with_its_tag(exchange):
    sent, reply = exchange
    reply.write_text(reply.read_text().replace('"Bo"', '"Boris"'))
    result = run("move", reply, "G@f2", "--since", sent)
    assert (result.exit_code, result.stderr) == (
        1, f'{reply}:2:1: the Black tag was "Bo" in {sent} but is "Boris" here\n')


def test_a_claimed_resignation_is_refused(exchange):
    sent, reply = exchange
    reply.write_text(TAGS.replace('"*"', '"0-1"') + "\n1. B@e1 B@d8 2. G@b1 G@g8 0-1\n")
    result = run("move", reply, "G@f2", "--since", sent)
    assert (result.exit_code, result.stderr) == (
        1, f"{reply}:3:1: this record ends 0-1 by resignation or agreement, which {sent} "
           "does not (R23)\n")


def test_since_reads_the_sent_copy_out_of_a_mail(exchange, tmp_path):
    sent, reply = exchange
    mail = tmp_path / "mail.txt"
    mail.write_text("Hi Bo,\n\nmy move:\n\n" + textwrap.indent(sent.read_text(), "> ") + "\nAna\n")
    result = run("move", reply, "G@f2", "--since", mail)
    assert result.exit_code == 0, result.stderr
