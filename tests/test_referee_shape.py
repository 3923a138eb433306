"""The shape of the referee's messages in a mail reader (issue 41, findings 3 and 4): one
Subject for every message of a game, a flat thread on the first message each player got,
a Subject folded after its text, and a body that is ``multipart/alternative`` whose HTML
shows the board (inline PNG, or a monospace block) with no remote part. The rendering
itself is checked in Chromium by test_referee_shape_browser.py.
"""

from __future__ import annotations

import email
import email.policy
import html
import re
from email.message import EmailMessage

import pytest

from referee_support import ANA, BO, Lab, attachment, board_image, body_of, headline, run

from tomis.notation import record
from tomis.outgoing import headers, htmlpart, reply
from tomis.outgoing import message as mail_message
from tomis.referee import composing, letters
from tomis.sources import read_source

LATER = "2026-11-23T11:00Z"
SUBJECT = "[tomis #1] Ana Lungu vs Bo Marin"
HOSTILE_CHAT = 'Nice <b>one</b> & <img src="http://evil.example/x.png"> <script>alert(1)</script>'


def played(lab: Lab) -> list[EmailMessage]:
    """A short game of every kind of message: the start, an action with chat, a refused
    message, a status and the legal actions, a reminder, a resignation."""
    lab.deliver(lab.reply(0, f"B@e1\n{HOSTILE_CHAT}"), LATER)
    lab.deliver(lab.reply(1, "Fb1-b9"), "2026-11-23T12:00Z")            # refused
    lab.deliver(lab.reply(1, "status\nmoves\nhelp"), "2026-11-23T12:30Z")
    run("referee", "tick", lab.db, "--now", "2026-12-08T12:00Z")           # Black's reminder
    lab.deliver(lab.reply(1, "resign"), "2026-12-09T12:00Z")
    return lab.messages()


@pytest.fixture
def game(tmp_path) -> list[EmailMessage]:
    return played(Lab(tmp_path))


def test_the_subject_stays_when_the_organiser_renames_a_player(tmp_path):
    lab = Lab(tmp_path)
    assert run("referee", "address", lab.db, "1", "black", "Bo Renamed <bo2@b.test>",
               "--now", LATER).exit_code == 0
    told = lab.messages()[-1]
    assert str(told["To"]) == "Bo Renamed <bo2@b.test>" and told["Subject"] == SUBJECT


def test_every_message_of_a_game_has_the_games_one_subject(game):
    told = [headline(message) for message in game]
    assert {str(message["Subject"]) for message in game} == {SUBJECT}
    # what happened is the body's first line, above the reply marker
    assert told[:4] == ["The game begins", "The game begins", "Action 1 (B@e1)", "Action 1 (B@e1)"]
    assert {"Not taken", "Status, moves, help", "Reminder: your turn"} <= set(told)
    assert told[-2:] == ["1-0, Black resigns"] * 2
    assert all(body_of(message).splitlines()[1] == "-- reply above this line --" for message in game)


def test_each_player_has_a_flat_thread_on_the_first_message_it_got(game):
    for address in ("ana@a.test", "bo@b.test"):
        mine = [message for message in game if address in str(message["To"])]
        first, later = mine[0], mine[1:]
        assert first["In-Reply-To"] is None and first["References"] is None
        assert len(later) >= 2
        for message in later:
            assert message["In-Reply-To"] == first["Message-ID"]
            assert message["References"] == first["Message-ID"]


def test_the_thread_stays_the_first_message_past_twenty(tmp_path, monkeypatch):
    """The stored thread was cut to the last 20 ids; the first must outlive that."""
    # No board pictures: the thread is in the headers, and drawing 25 PNGs was half the time.
    monkeypatch.setattr(composing, "board_png", lambda state, report=None: None)
    lab = Lab(tmp_path)
    first = lab.messages()[1]
    for hour in range(11, 34):                                   # 23 statuses to Black
        lab.deliver(lab.reply(1, "status"), f"2026-11-{23 + hour // 24}T{hour % 24:02d}:00Z")
    last = lab.last_to(1)
    assert last["In-Reply-To"] == last["References"] == first["Message-ID"]


def test_a_long_subject_is_folded_after_its_text_and_reads_back_whole(tmp_path):
    white, black = "Anastasia Lunguletta-Popescu", "Bartholomew Marinescu-Ionescu"
    lab = Lab.__new__(Lab)
    lab.db, lab.out, lab.seen = tmp_path / "r.db", tmp_path / "out", 0
    lab.out.mkdir()
    assert run("referee", "init", lab.db, "--address", "ref@club.test",
               "--send-by", f"outbox:{lab.out}").exit_code == 0
    assert run("referee", "new", lab.db, "--white", f"{white} <ana@a.test>",
               "--black", f"{black} <bo@b.test>").exit_code == 0
    subject = f"[tomis #1] {white} vs {black}"
    assert len(subject) > 69
    for path in sorted(lab.out.glob("*.eml")):
        raw = path.read_bytes()
        folded = re.search(rb"^Subject:.*\r\n(?:[ \t].*\r\n)*", raw, re.MULTILINE)[0]
        first_line = folded.split(b"\r\n")[0]
        assert first_line.startswith(b"Subject: [tomis #1] ")
        assert all(len(line) <= 78 for line in folded.split(b"\r\n"))
        parsed = email.message_from_bytes(raw, policy=email.policy.default)
        assert parsed["Subject"] == subject


@pytest.mark.parametrize("length", range(60, 90))
def test_the_policy_never_leaves_subject_alone_on_its_line(length):
    """email.policy.SMTP writes a subject of 70 to 77 characters as ``Subject:`` CRLF and
    the text; every length here, accented too, starts on the header's own line."""
    for name in ("x", "Zoë"):
        words = f"[tomis #12] {name} " + " ".join(["Lungu"] * 20)
        value = words[:length].rstrip()
        message = EmailMessage(policy=headers.POLICY)
        message["Subject"] = value
        raw = headers.message_bytes(message)
        assert not raw.startswith(b"Subject:\r\n")
        assert raw.split(b"\r\n")[0].startswith(b"Subject: [tomis #12] ")
        assert email.message_from_bytes(raw, policy=email.policy.default)["Subject"] == value


def test_a_hostile_name_is_one_bounded_line_in_the_subject():
    class Player:
        def __init__(self, name):
            self.name = name

    class Record:
        tags = {"White": "Ana\r\nBcc: x@evil.example"}      # a Black tag missing: the name

    class Game:
        id = 7
        record = Record()
        players = (Player("Ana"), Player("=?utf-8?q?=0D=0ABcc:_x?=" + "B" * 500))

    subject = letters.subject(Game())
    assert subject.isprintable() and "\n" not in subject and "\r" not in subject
    assert len(subject) <= len("[tomis #7]  vs ") + 2 * letters.MAX_NAME_SHOWN
    assert subject.startswith("[tomis #7] Ana\\r\\nBcc: x@evil.example vs = ?utf-8?q?=0D")
    message = EmailMessage(policy=headers.POLICY)
    headers.put_header(message, "Subject", subject)             # it reads back as written
    assert str(message["Subject"]) == subject


def parts(message: EmailMessage) -> list[str]:
    """The MIME tree as ``type`` strings, depth-first, each indented by its depth."""
    out = []

    def walk(part, depth):
        out.append("  " * depth + part.get_content_type())
        if part.is_multipart():
            for child in part.get_payload():
                walk(child, depth + 1)
    walk(message, 0)
    return out


def html_of(message: EmailMessage) -> str:
    return message.get_body(("html",)).get_content()


def test_an_update_is_text_and_html_with_the_board_inline_and_the_record_attached(game):
    update = game[2]
    assert board_image(update) is not None, "the images extra is part of the test install"
    assert parts(update) == ["multipart/mixed", "  multipart/alternative", "    text/plain",
                             "    multipart/related", "      text/html", "      image/png",
                             "  text/plain", "  text/calendar"]
    assert str(record.read_game(attachment(update, ".tgn")).nodes[0].action) == "B@e1"
    page = html_of(update)
    (image,) = [part for part in update.walk() if part.get_content_type() == "image/png"]
    cid = image["Content-ID"].strip("<>")
    assert f'<img src="cid:{cid}"' in page
    assert image.get_content_disposition() == "inline"
    # the rest of what the text says, clocks and commands, is in the page too
    assert "Clocks (TimeControl 30d+3d" in page and "resign the game" in page


def test_without_the_images_extra_the_board_is_a_monospace_block(tmp_path, monkeypatch):
    monkeypatch.setattr(composing, "board_png", lambda state, report=None: None)
    messages = played(Lab(tmp_path))
    for message in messages:
        assert parts(message)[:4] == ["multipart/mixed", "  multipart/alternative",
                                      "    text/plain", "    text/html"] or parts(message) == [
            "multipart/alternative", "  text/plain", "  text/html"]
        page = html_of(message)
        board = re.search(r'<pre style="([^"]*)">(\s+a\s+b\s+c.*?)</pre>', page, re.DOTALL)
        assert board is not None
        assert "font-family: monospace" in board[1] and "white-space: pre;" in board[1] + ";"
        assert html.unescape(board[2]).replace("\r\n", "\n") in body_of(message).replace("\r\n", "\n")


def test_the_html_holds_nothing_remote_and_no_outside_text_as_markup(game):
    for message in game:
        page = html_of(message)
        assert not re.search(r"<(script|style|link|iframe|object|form|base)\b", page, re.I)
        # the only reference to anything is the board's cid: (chat's "http://" is text)
        assert not re.search(r"url\(|@import", page, re.I)
        assert re.findall(r'\b(?:src|href|action|background|srcset)\s*=\s*"([^"]*)"', page) == [
            f"cid:{part['Content-ID'].strip('<>')}" for part in message.walk()
            if part.get_content_type() == "image/png"]
        assert not re.search(r"\bon[a-z]+\s*=", page, re.I)         # no event handlers
    (to_bo,) = [m for m in game[2:4] if "bo@b.test" in str(m["To"])]
    page = html_of(to_bo)
    assert "| Nice &lt;b&gt;one&lt;/b&gt; &amp; &lt;img" in page
    assert "<b>one</b>" not in page and "<script>" not in page


def test_a_page_without_a_board_is_all_text():
    page = htmlpart.page("Moved\n<b>x</b>\n\nsecond")
    assert page.count("<pre") == 1 and "&lt;b&gt;x&lt;/b&gt;" in page
    assert '<p style="' in page and ">Moved</p>" in page


def test_tomis_send_mail_has_the_html_alternative_and_reads_back_as_the_record(tmp_path):
    game = record.read_game("[White \"Ana <b>\"]\n[Black \"Bo\"]\n\n1. B@e1 B@d8 *\n")
    text = record.write(game)
    message = reply.compose(game, text, sender=ANA, to=BO, attachment_name="g.tgn")
    assert parts(message) == ["multipart/mixed", "  multipart/alternative", "    text/plain",
                              "    text/html", "  text/plain"]
    page = html_of(message)
    assert re.search(r'<pre style="[^"]*white-space: pre">\s+a\s+b', page)
    saved = tmp_path / "sent.eml"
    saved.write_bytes(headers.message_bytes(message))
    source = read_source(str(saved))
    assert str(record.read_game(source.text).nodes[-1].action) == "B@d8"


def test_the_content_id_comes_from_the_messages_own_id():
    assert mail_message.board_content_id("<1.2@club.test>") == "board.1.2@club.test"
    assert mail_message.board_content_id(None) == "board@tomis.invalid"


def test_a_players_mailbox_is_one_conversation_two_levels_deep(tmp_path):
    """Ana's mailbox as readers group it: the referee's messages and her replies. Gmail
    and Outlook join messages whose subjects agree once ``Re:`` is taken off: one
    conversation. mutt draws the References tree (a message under the last id it names):
    every referee message sits under the first, each reply under what it answers, so no
    branch is deeper than two however long the game; main's chain grew one a message."""
    lab = Lab(tmp_path)
    sent = []
    for hour, text in enumerate(["B@e1", "status", "Fa1-a2", "help", "status"], start=11):
        raw = lab.reply(0, text)
        sent.append(email.message_from_bytes(raw, policy=email.policy.default))
        lab.deliver(raw, f"2026-11-23T{hour}:00Z")
        if text == "B@e1":
            lab.deliver(lab.reply(1, "B@d8"), f"2026-11-23T{hour}:30Z")
    mailbox = [m for m in lab.messages() if "ana@a.test" in str(m["To"])] + sent
    assert len(mailbox) >= 12
    assert {re.sub(r"^(?:re|aw|sv):\s*", "", str(m["Subject"]), flags=re.I)
            for m in mailbox} == {SUBJECT}
    parent = {}
    for message in mailbox:
        refs = (str(message["References"] or "").split()
                or str(message["In-Reply-To"] or "").split())
        parent[message["Message-ID"]] = refs[-1] if refs else None

    def depth(message_id):
        return 0 if parent.get(message_id) is None else 1 + depth(parent[message_id])
    assert max(depth(m["Message-ID"]) for m in mailbox) == 2
