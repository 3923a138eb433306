"""Replies with prose that starts like an action, and records of two messages one below
the other: the new record is the one read (issue 25).

Each message is written here as a mail program writes it (headers, a quoted or unquoted
older record, the reply's words, the new record), then read through the CLI.
"""

from __future__ import annotations

import pytest
from mail_support import RECORDS, run

OLD = (RECORDS / "ladder-2.tgn").read_text(encoding="utf-8")     # 1. B@e1 B@d8 *
NEW = (RECORDS / "ladder-3.tgn").read_text(encoding="utf-8")     # ... 2. G@b1 *
HEADERS = ("From: Bo <bo@example.org>\nTo: Ana <ana@example.org>\n"
           "Subject: Re: Club ladder\nMessage-ID: <r3@example.org>\n"
           "Date: Mon, 23 Nov 2026 10:00:00 +0000\n")


def quoted(record: str, depth: int = 1) -> str:
    mark = "> " * depth
    return "".join(f"{mark}{line}".rstrip() + "\n" for line in record.splitlines())


def message(body: str, content_type: str = "text/plain; charset=utf-8") -> bytes:
    return (HEADERS + f"MIME-Version: 1.0\nContent-Type: {content_type}\n"
            "Content-Transfer-Encoding: 8bit\n\n" + body).encode("utf-8")


ATTRIBUTION = "On Sun, 22 Nov 2026, Ana wrote:\n"
BODIES = {
    # mutt, bottom-posted: quote, blank, a prose line starting with the action, blank, record.
    "prose-between-blank-both-sides":
        ATTRIBUTION + quoted(OLD) + "\nG@b1. Draw?\n\n" + NEW,
    "prose-right-below-the-quote":
        ATTRIBUTION + quoted(OLD) + "G@b1. Draw?\n\n" + NEW,
    "prose-right-above-the-record":
        ATTRIBUTION + quoted(OLD) + "\nG@b1. Draw?\n" + NEW,
    "prose-touching-both":
        ATTRIBUTION + quoted(OLD) + "G@b1. Draw?\n" + NEW,
    # The second symptom: no words at all between the two records.
    "quote-one-blank-record":
        ATTRIBUTION + quoted(OLD) + "\n" + NEW,
    "quote-then-record-at-once":
        ATTRIBUTION + quoted(OLD) + NEW,
    # A reply to a reply: the older record quoted twice below the once-quoted one.
    "new-record-above-twice-quoted":
        "G@b1, your turn.\n\n" + NEW + "\n" + ATTRIBUTION + quoted(OLD, 2),
    # Top-posted, the prose above the new record and after it, the old record quoted below.
    "top-posted-prose-after-record":
        NEW + "\nG@b1 and I offer a draw.\n\n" + ATTRIBUTION + quoted(OLD),
    # Outlook: the old record unquoted below the new one, under its header block.
    "outlook-unquoted-below":
        "G@b1. Draw?\n\n" + NEW + "\n________________________________\nFrom: Ana\n"
        "Sent: Sunday, 22 November 2026 18:00\nTo: Bo\nSubject: Club ladder\n\n" + OLD,
    "outlook-unquoted-below-blank-only":
        "G@b1. Draw?\n\n" + NEW + "\n\n" + OLD,
}


@pytest.mark.parametrize("name", sorted(BODIES))
def test_the_new_record_is_read_whatever_the_prose_and_blank_lines(tmp_path, name):
    path = tmp_path / f"{name}.eml"
    path.write_bytes(message(BODIES[name]))
    result = run("extract", path)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == NEW
    moves = run("moves", path)
    assert moves.stdout.startswith("Black to act (action 4)"), moves.stderr


def test_neomutt_flowed_prose_with_an_action_above_the_record(tmp_path):
    """neomutt with text_flowed: the prose is wrapped with trailing spaces; unwrapped it
    is one line that starts with the action, right above the new record."""
    body = (ATTRIBUTION + quoted(OLD) + "\n"
            "G@b1, and I offer a draw if you would rather spend the winter on something \n"
            "else; the record is below as usual. \n"
            "Bo\n\n" + NEW)
    path = tmp_path / "neomutt.eml"
    path.write_bytes(message(body, "text/plain; charset=utf-8; format=flowed"))
    result = run("validate", path)
    assert result.exit_code == 0, result.stderr
    assert "took the one at" in result.stderr and "(3 actions)" in result.stderr
    assert run("extract", path).stdout == NEW


def test_a_line_of_actions_after_a_result_is_still_a_game_of_its_own(tmp_path):
    """Movetext without tags after a result is a second game, as before: only prose stops."""
    path = tmp_path / "two.tgn"
    path.write_text("1. B@e1 B@d8 *\n\nB@e1 B@d8 G@b1 *\n", encoding="utf-8")
    result = run("validate", path)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.endswith("ok, 2 game(s)\n")


def test_prose_after_a_plain_record_file_is_not_read_as_an_action(tmp_path):
    path = tmp_path / "g.tgn"
    path.write_text(NEW + "\nG@b1. Draw?\n", encoding="utf-8")
    result = run("validate", path)
    assert result.exit_code == 0, result.stderr
    assert "ignored the text after the last result" in result.stderr


def test_two_diverging_records_one_quoted_are_still_refused(tmp_path):
    other = NEW.replace("2. G@b1", "2. G@c1").replace('[Digest "c07615cc78f18373"]\n', "")
    path = tmp_path / "diverge.eml"
    path.write_bytes(message(ATTRIBUTION + quoted(NEW) + "\nG@c1. Draw?\n\n" + other))
    result = run("validate", path)
    assert result.exit_code == 1
    assert "diverge at action 3: G@b1" in result.stderr


def test_a_line_ending_in_a_result_after_a_result_is_a_game_whose_mistake_is_named(tmp_path):
    """Not prose: a game line with a bad word still reaches the reader, which names it."""
    path = tmp_path / "two.tgn"
    path.write_text("1. B@e1 B@d8 *\n\nB@e1 Z *\n", encoding="utf-8")
    result = run("validate", path)
    assert result.exit_code == 1
    assert f"{path}:3:6: game 2" in result.stderr


def test_different_games_one_after_the_other_in_a_message_are_read_as_a_file(tmp_path):
    """Games mailed in the text, nothing between them: all read, as before."""
    other = (RECORDS / "coast-3.tgn").read_text(encoding="utf-8")
    path = tmp_path / "games.eml"
    path.write_bytes(message("The games of round 2:\n\n" + NEW + "\n" + other))
    result = run("validate", path)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"{path}: ok, 2 game(s)\n"
    assert run("extract", path).stdout == NEW + "\n" + other
