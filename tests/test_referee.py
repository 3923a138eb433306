"""tomis referee: init, new, deliver and tick through the CLI in process (tests of real
processes, many at once and killed, are in test_referee_processes.py)."""

from __future__ import annotations

import pytest

from referee_support import (
    ADDRESSES, Lab, START, attachment, board_image, body_of, headline, run,
)

from tomis.notation import record
from tomis.referee import tokens


@pytest.fixture
def lab(tmp_path):
    return Lab(tmp_path)


def test_new_mails_both_players_from_their_token_addresses(lab):
    first = lab.new_messages()
    assert [str(m["To"]) for m in first] == ["Ana Lungu <ana@a.test>", "Bo Marin <bo@b.test>"]
    secret = lab.query("SELECT value FROM settings WHERE key = 'secret'")[0][0]
    for side, message in enumerate(first):
        assert message["From"] == message["Reply-To"]
        address = message["From"].addresses[0]
        assert address.display_name == "Club Referee" and address.domain == "club.test"
        local, token = address.username.split("+")
        assert local == "ref" and len(address.username) <= 64 and token == token.lower()
        assert tokens.read(secret, token) == tokens.Seat(lab.game, side)
        assert message["Auto-Submitted"] == "auto-replied"
        assert message["Subject"].startswith(f"[tomis #{lab.game}] ")
        body = body_of(message)
        assert body.splitlines()[:2] == ["The game begins", "-- reply above this line --"]
        assert "30d left" in body
        game = record.read_game(attachment(message, ".tgn"))
        assert game.tags["TimeControl"] == "30d+3d" and game.tags["White"] == "Ana Lungu"
        assert board_image(message)[:8] == b"\x89PNG\r\n\x1a\n"
    assert "Your turn" in body_of(first[0]) and "Waiting for White" in body_of(first[1])


def test_init_refuses_an_existing_store_and_bad_values(lab, tmp_path):
    again = run("referee", "init", lab.db, "--address", "ref@club.test", "--send-by", "outbox:x")
    assert again.exit_code == 1 and "already exists" in again.stderr
    bad = run("referee", "init", tmp_path / "b.db", "--address", "ref+x@club.test")
    assert bad.exit_code == 1 and "no '+'" in bad.stderr
    long = run("referee", "init", tmp_path / "c.db", "--address", "r" * 40 + "@club.test")
    assert long.exit_code == 1 and "too long for reply tokens" in long.stderr
    smtp = run("referee", "init", tmp_path / "d.db", "--address", "ref@club.test",
               "--send-by", "smtp")
    assert smtp.exit_code == 2 and "--config" in smtp.stderr
    assert not (tmp_path / "b.db").exists() and not (tmp_path / "d.db").exists()


def test_tokens_are_signed():
    secret = tokens.new_secret()
    token = tokens.make(secret, tokens.Seat(7, 1))
    assert len(token) == tokens.TOKEN_LENGTH and tokens.read(secret, token) == (7, 1)
    assert tokens.read(tokens.new_secret(), token) is None
    flipped = token[:-1] + ("a" if token[-1] != "a" else "b")
    assert tokens.read(secret, flipped) is None
    assert tokens.read(secret, token.upper() + "x") is None


def test_an_action_reaches_both_players_with_the_chat_for_the_opponent(lab):
    firsts = lab.new_messages()
    lab.deliver(lab.reply(0, "B@e1\nGood luck, Bo!"), "2026-11-23T12:00Z")
    to_ana, to_bo = lab.new_messages()
    assert str(to_ana["To"]).endswith("<ana@a.test>") and str(to_bo["To"]).endswith("<bo@b.test>")
    for message in (to_ana, to_bo):
        assert "White played 1. B@e1 (action 1)" in body_of(message)
        assert "B@e1 {[%ts 2026-11-23T12:00Z]}" in attachment(message, ".tgn")
        assert headline(message) == "Action 1 (B@e1)"
    assert "| Good luck, Bo!" in body_of(to_bo) and "Good luck" not in body_of(to_ana)
    assert "Your turn" in body_of(to_bo) and "Waiting for Black" in body_of(to_ana)
    # a flat thread: the first message each got, never the reply just read (issue 41)
    assert to_ana["In-Reply-To"] == firsts[0]["Message-ID"] == to_ana["References"]
    assert lab.inbox() == [("done", "action 1 (B@e1)")]
    # White had 30 days, used 2 hours, and gained 3 days.
    assert "32d 22h left" in body_of(to_bo)


# --------------------------------------------------------------------------- the new text

from tomis.referee.commands import CommandError, read_commands  # noqa: E402
from tomis.referee.inbound import new_text  # noqa: E402

QUOTE_CASES = [
    ("B@e1\n\nOn Mon, Ref <r@x> wrote:\n> Fe2-e3\n> old\n", "B@e1"),
    ("On Mon, Ref <r@x> wrote:\n> F@a1\n\nB@e1\n", "B@e1"),
    ("B@e1\nOn Mon, 23 Nov 2026 at 10:00, Club Referee\n<r@x> wrote:\n> F@a1\n", "B@e1"),
    ("B@e1\n\nOn Mon, Ref wrote:\nF@a1 unquoted by a phone\n", "B@e1"),
    ("B@e1\n-----Original Message-----\nFrom: r@x\nF@a1\n", "B@e1"),
    ("B@e1\n\nFrom: Club Referee <r@x>\nSent: Monday\nTo: a\n\nF@a1\n", "B@e1"),
    ("B@e1\n-- \nAna\nF@a1\n", "B@e1"),
    ("B@e1\n-- reply above this line --\nF@a1\n", "B@e1"),
    ("> F@a1\nB@e1\n> F@a2\nhi\n", "B@e1\nhi"),
    ("From: the heart\nB@e1\n", "From: the heart\nB@e1"),
]


@pytest.mark.parametrize("text, expected", QUOTE_CASES)
def test_only_the_new_text_of_a_reply_counts(text, expected):
    assert new_text(text) == expected


def test_commands_are_whole_lines_with_keywords_in_any_case():
    commands = read_commands("Hello Bo\nB@e1 DRAW!\nIF G@a7 G@b1\nLeave 2027-01-02 2027-01-03\n"
                             "Status.\nsee you")
    assert commands.action == "B@e1" and commands.offer_draw and commands.status
    assert commands.lines == [("G@a7", "G@b1")]
    assert [(str(l.first), str(l.last)) for l in commands.leaves] == [("2027-01-02", "2027-01-03")]
    assert commands.chat == ["Hello Bo", "see you"]
    assert read_commands("if").clear_lines and read_commands("Resign.").resign
    assert read_commands("I accept your offer").chat == ["I accept your offer"]
    assert read_commands("accept!").accept


@pytest.mark.parametrize("text, message", [
    ("B@e1\nG@b1", "a second action, after B@e1"),
    ("Fb1-b9", "expected a square like e4"),
    ("if G@a7", "conditional line"),
    ("leave 2027-02-30 2027-03-01", "not a date of the calendar"),
])
def test_a_bad_command_line_refuses_the_whole_message(text, message):
    with pytest.raises(CommandError, match=message):
        read_commands(text)


# --------------------------------------------------------------------------- who may act

def _unchanged(lab, before: str) -> None:
    assert lab.record() == before


def test_a_forged_from_changes_nothing_and_the_player_hears_of_it(lab):
    before = lab.record()
    lab.new_messages()
    lab.deliver(lab.reply(0, "resign", sender="Mallory <mallory@evil.test>"), "2026-11-23T11:00Z")
    _unchanged(lab, before)
    (warning,) = lab.new_messages()
    assert str(warning["To"]) == "Ana Lungu <ana@a.test>"
    assert "mallory@evil.test" in body_of(warning) and "changed nothing" in body_of(warning)
    assert lab.inbox()[0][0] == "rejected"


def test_a_wrong_token_and_a_stranger_get_no_answer(lab):
    before = lab.record()
    lab.new_messages()
    lab.deliver(lab.reply(0, "B@e1", to="ref+aaaaaaiaaaaaaaaaaaaaaaaa@club.test"), "2026-11-23T11:00Z")
    lab.deliver(lab.reply(0, "B@e1", to="ref@club.test"), "2026-11-23T11:01Z")
    lab.deliver(lab.reply(0, "B@e1", sender="Eve <eve@x.test>", to="other@club.test"),
                "2026-11-23T11:02Z")
    _unchanged(lab, before)
    assert lab.new_messages() == []
    assert [state for state, _ in lab.inbox()] == ["rejected"] * 3
    assert all("stranger" in reason for _, reason in lab.inbox())


def test_a_token_found_in_delivered_to_or_the_recipient_option_counts(lab):
    token_address = lab.last_to(0)["Reply-To"].addresses[0].addr_spec
    raw = lab.reply(0, "B@e1", to="ana-list@a.test")
    lab.deliver(raw, "2026-11-23T11:00Z", "--recipient", token_address)
    assert "B@e1" in lab.record()
    raw = b"Delivered-To: " + lab.last_to(1)["Reply-To"].addresses[0].addr_spec.encode() + \
        b"\r\n" + lab.reply(1, "B@d8", to="bo@b.test")
    lab.deliver(raw, "2026-11-23T11:05Z")
    assert "B@d8" in lab.record()


def test_a_stale_token_is_refused_once_the_game_has_ended(lab):
    old = lab.last_to(0)
    lab.deliver(lab.reply(0, "resign"), "2026-11-23T11:00Z")
    assert "0-1" in lab.record()
    before = lab.record()
    lab.new_messages()
    from referee_support import ANA, reply_to
    lab.deliver(reply_to(old, ANA, "B@e1"), "2026-11-23T11:05Z")
    _unchanged(lab, before)
    (told,) = lab.new_messages()
    assert str(told["To"]).endswith("<ana@a.test>") and "has ended" in body_of(told)


def test_a_replayed_message_changes_nothing_and_mails_nobody(lab):
    raw = lab.reply(0, "B@e1")
    lab.deliver(raw, "2026-11-23T11:00Z")
    lab.new_messages()
    before = lab.record()
    lab.deliver(raw, "2026-11-23T11:30Z")
    # the same Message-ID with other bytes (a mail server added a header) is the same message
    lab.deliver(b"X-Spam-Score: 0\r\n" + raw, "2026-11-23T11:31Z")
    _unchanged(lab, before)
    assert lab.new_messages() == [] and len(lab.inbox()) == 1


def test_the_same_bytes_without_a_message_id_are_taken_once(lab):
    raw = lab.reply(0, "B@e1").replace(b"Message-ID:", b"X-Old-ID:")
    lab.deliver(raw, "2026-11-23T11:00Z")
    lab.deliver(raw, "2026-11-23T11:01Z")
    assert len(lab.inbox()) == 1 and lab.record().count("B@e1") == 1


@pytest.mark.parametrize("headers", [
    {"Auto-Submitted": "auto-replied"},
    {"Precedence": "bulk"},
    {"Return-Path": "<>"},
    {"X-Bounce": "yes", "Sender": "MAILER-DAEMON@a.test"},
])
def test_auto_replies_and_bounces_get_no_answer(lab, headers):
    before = lab.record()
    lab.new_messages()
    lab.deliver(lab.reply(0, "B@e1", headers=headers), "2026-11-23T11:00Z")
    _unchanged(lab, before)
    assert lab.new_messages() == []
    assert lab.inbox()[0][0] == "rejected" and "machine" in lab.inbox()[0][1]


# --------------------------------------------------------------------------- refusals

def test_an_illegal_action_is_refused_with_the_legal_actions_near_it(lab):
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-23T11:00Z")
    before = lab.record()
    lab.new_messages()
    lab.deliver(lab.reply(1, "B@e1"), "2026-11-23T12:00Z")
    _unchanged(lab, before)
    (why,) = lab.new_messages()
    body = body_of(why)
    assert str(why["To"]).endswith("<bo@b.test>") and headline(why) == "Not taken"
    assert "B@e1 cannot be played" in body and "Legal actions" in body and "B@e8" in body
    assert attachment(why, ".tgn") is None


def test_two_actions_refuse_the_whole_message(lab):
    before = lab.record()
    lab.new_messages()
    lab.deliver(lab.reply(0, "B@e1\nB@d1\nhello"), "2026-11-23T11:00Z")
    _unchanged(lab, before)
    (why,) = lab.new_messages()
    assert "a second action" in body_of(why)


def test_acting_out_of_turn_is_refused(lab):
    lab.new_messages()
    lab.deliver(lab.reply(1, "B@e8"), "2026-11-23T11:00Z")
    (why,) = lab.new_messages()
    assert "not your turn" in body_of(why) and "B@e8" not in lab.record()


def test_explanations_are_limited_per_address(lab):
    lab.new_messages()
    for minute in range(8):
        lab.deliver(lab.reply(1, "B@e8"), f"2026-11-23T11:{minute:02d}Z")
    assert len(lab.new_messages()) == 5
    lab.deliver(lab.reply(1, "B@e8"), "2026-11-24T11:10Z")
    assert len(lab.new_messages()) == 1


def test_an_oversized_message_is_kept_as_rejected(lab):
    raw = lab.reply(0, "B@e1") + b"x" * (3 * 2**20)
    result = run("referee", "deliver", lab.db, "--now", START, input=raw)
    assert result.exit_code == 0
    assert lab.inbox() == [("rejected", "larger than 2 MiB: kept in part")]
    assert "B@e1" not in lab.record()


def test_deliver_asks_the_mail_server_to_retry_when_it_cannot_store(tmp_path):
    result = run("referee", "deliver", tmp_path / "missing.db", input=b"Subject: x\r\n\r\nhi\r\n")
    assert result.exit_code == 75 and "try again later" in result.stderr


def test_deliver_exits_75_while_another_process_holds_the_store(lab):
    import sqlite3

    holder = sqlite3.connect(lab.db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        result = run("referee", "deliver", lab.db, input=lab.reply(0, "B@e1"),
                     env={"TOMIS_REFEREE_WAIT": "0.2"})
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert result.exit_code == 75
    assert lab.inbox() == []


# --------------------------------------------------------------------------- draws, resigning

def test_a_draw_offered_with_an_action_and_accepted(lab):
    lab.new_messages()
    lab.deliver(lab.reply(0, "B@e1 draw"), "2026-11-23T11:00Z")
    to_ana, to_bo = lab.new_messages()
    assert "reply 'accept' to take it" in body_of(to_bo)
    assert "it stands until the next action" in body_of(to_ana)
    lab.deliver(lab.reply(1, "Accept."), "2026-11-23T12:00Z")
    ended = lab.new_messages()
    assert len(ended) == 2
    game = record.read_game(lab.record())
    assert game.result == "1/2-1/2" and "[%draw accept]" in lab.record()
    assert all("1/2-1/2" in headline(m) for m in ended)


def test_accepting_without_an_offer_is_refused(lab):
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-23T11:00Z")
    lab.new_messages()
    lab.deliver(lab.reply(1, "accept"), "2026-11-23T12:00Z")
    (why,) = lab.new_messages()
    assert "no draw offer" in body_of(why) and record.read_game(lab.record()).result == "*"


def test_either_player_may_resign_at_any_time(lab):
    lab.new_messages()
    lab.deliver(lab.reply(1, "resign"), "2026-11-23T11:00Z")
    assert record.read_game(lab.record()).result == "1-0"
    assert [("1-0" in headline(m)) for m in lab.new_messages()] == [True, True]


# --------------------------------------------------------------------------- conditional lines

def _play(lab, *moves, start_hour=11):
    for number, action in enumerate(moves):
        lab.deliver(lab.reply(number % 2, action), f"2026-11-23T{start_hour + number:02d}:00Z")


def test_a_conditional_line_fires_when_the_opponent_plays_its_action(lab):
    _play(lab, "B@e1", "B@d8")
    lab.new_messages()
    lab.deliver(lab.reply(0, "G@b1\nif G@g8 G@c2 G@c7 G@c3"), "2026-11-23T13:00Z")
    to_ana, to_bo = lab.new_messages()
    assert "Stored your conditional line: if G@g8 G@c2 G@c7 G@c3" in body_of(to_ana)
    for message in (to_bo,):
        text = body_of(message) + str(attachment(message, ".tgn"))
        assert "G@c2" not in text and "if " not in text.replace("if THEIRS", "")
    lab.deliver(lab.reply(1, "G@g8"), "2026-11-24T09:00Z")
    to_ana, to_bo = lab.new_messages()
    rec = record.read_game(lab.record())
    assert [str(node.action) for node in rec.nodes][-2:] == ["G@g8", "G@c2"]
    assert "[%if" not in lab.record() and "[%if" not in attachment(to_bo, ".tgn")
    assert "White played 3. G@c2 (action 5)" in body_of(to_bo)
    assert "Your conditional line answered G@g8 with G@c2" in body_of(to_ana)
    assert "conditional" not in body_of(to_bo).split("Reply above the line")[0]
    # the rest of the line waits for G@c7 ...
    lab.deliver(lab.reply(1, "G@c7"), "2026-11-24T10:00Z")
    assert [str(node.action) for node in record.read_game(lab.record()).nodes][-2:] == \
        ["G@c7", "G@c3"]
    # ... and both answers carry the time the opponent's message was stored
    assert "G@c3 {[%ts 2026-11-24T10:00Z]}" in lab.record()


def test_a_conditional_line_is_cancelled_by_another_action(lab):
    _play(lab, "B@e1", "B@d8")
    lab.deliver(lab.reply(0, "G@b1\nif G@g8 G@c2"), "2026-11-23T13:00Z")
    lab.new_messages()
    lab.deliver(lab.reply(1, "G@a8"), "2026-11-23T14:00Z")
    to_ana, _ = lab.new_messages()
    assert "they are cancelled" in body_of(to_ana) and "Your turn" in body_of(to_ana)
    assert lab.query("SELECT COUNT(*) FROM lines") == [(0,)]
    assert [str(n.action) for n in record.read_game(lab.record()).nodes][-1] == "G@a8"


def test_if_alone_clears_the_lines_and_a_line_must_be_playable(lab):
    lab.deliver(lab.reply(0, "B@e1\nif B@d8 G@b1"), "2026-11-23T11:00Z")
    assert lab.query("SELECT actions FROM lines") == [('["B@d8", "G@b1"]',)]
    lab.deliver(lab.reply(0, "if"), "2026-11-23T11:10Z")
    assert lab.query("SELECT COUNT(*) FROM lines") == [(0,)]
    lab.new_messages()
    lab.deliver(lab.reply(0, "if B@d8 G@d8"), "2026-11-23T11:20Z")
    (why,) = lab.new_messages()
    assert "cannot be played" in body_of(why)
    assert lab.query("SELECT COUNT(*) FROM lines") == [(0,)]


def test_two_lines_answering_the_same_action_are_refused_as_in_a_record(lab):
    # The record's rule (tomis.notation.conditional): at most one line answers an action.
    _play(lab, "B@e1", "B@d8")
    lab.new_messages()
    lab.deliver(lab.reply(0, "G@b1\nif G@g8 G@c2\nif G@g8 G@d2"), "2026-11-23T13:00Z")
    (why,) = lab.new_messages()
    assert "at most one line may answer an action" in body_of(why)
    assert lab.query("SELECT COUNT(*) FROM lines") == [(0,)]
    assert len(record.read_game(lab.record()).nodes) == 2


# --------------------------------------------------------------------------- time

def test_a_reminder_goes_once_a_turn_at_half_the_time_left(lab):
    lab.new_messages()
    run("referee", "tick", lab.db, "--now", "2026-12-08T09:59Z")
    assert lab.new_messages() == []
    run("referee", "tick", lab.db, "--now", "2026-12-08T10:00Z")
    (reminder,) = lab.new_messages()
    assert str(reminder["To"]).endswith("<ana@a.test>") and "Reminder" in headline(reminder)
    assert "runs out at 2026-12-23T10:00Z" in body_of(reminder)
    run("referee", "tick", lab.db, "--now", "2026-12-09T10:00Z")
    assert lab.new_messages() == []


def test_time_running_out_ends_the_game_as_a_claim_would(lab):
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-23T11:00Z")
    lab.new_messages()
    run("referee", "tick", lab.db, "--now", "2026-12-23T11:00Z")   # Black's 30 days: not yet
    assert [m for m in lab.new_messages() if "Reminder" not in headline(m)] == []
    result = run("referee", "tick", lab.db, "--now", "2026-12-23T11:01Z")
    assert "time-outs 1" in result.stderr
    ended = lab.new_messages()
    assert len(ended) == 2 and all("time ran out" in headline(m) for m in ended)
    text = lab.record()
    game = record.read_game(text)          # the record's own claim check agrees
    assert game.result == "1-0" and game.tags["Termination"] == "time forfeit"
    assert "[%claim 2026-12-23T11:01Z]" in text
    assert run("validate", "-", input=attachment(ended[0], ".tgn")).exit_code == 0


def test_a_message_after_the_deadline_ends_the_game_instead_of_acting(lab):
    lab.new_messages()
    lab.deliver(lab.reply(0, "B@e1"), "2026-12-24T10:00Z")
    game = record.read_game(lab.record())
    assert game.result == "0-1" and not game.nodes
    subjects = [headline(m) for m in lab.new_messages()]
    assert sum("time ran out" in s for s in subjects) == 2 and any("Not taken" in s for s in subjects)


def test_leave_stops_the_clock(lab):
    # White's leave, sent with its action: in the record after that action (NOTATION.md).
    lab.new_messages()
    lab.deliver(lab.reply(0, "B@e1\nleave 2026-12-01 2026-12-10"), "2026-11-23T11:00Z")
    to_ana, to_bo = lab.new_messages()
    assert "takes leave from 2026-12-01 to 2026-12-10" in body_of(to_bo)
    assert "B@e1 {[%ts 2026-11-23T11:00Z]}\n{[%leave 2026-12-01 2026-12-10]}" in lab.record()
    lab.deliver(lab.reply(1, "B@d8"), "2026-11-23T12:00Z")
    to_ana, to_bo = lab.new_messages()
    assert "White takes leave from 2026-12-01 to 2026-12-10" in body_of(to_ana)
    # 30d, less the hour before B@e1, plus 3d: 32d 23h from 12:00 on the 23rd, plus ten
    # days of leave
    assert "time runs out at 2027-01-05T11:00Z" in body_of(to_ana)
    run("referee", "tick", lab.db, "--now", "2026-12-30T12:00Z")
    assert record.read_game(lab.record()).result == "*"
    run("referee", "tick", lab.db, "--now", "2027-01-05T11:01Z")
    assert record.read_game(lab.record()).result == "0-1"


def test_leave_alone_on_your_turn_names_your_side_and_stops_your_clock(lab):
    lab.new_messages()
    lab.deliver(lab.reply(0, "leave 2026-12-01 2026-12-10"), "2026-11-23T11:00Z")
    to_bo, to_ana = sorted(lab.new_messages(), key=lambda m: "Bo" not in m["To"])
    assert "White takes leave from 2026-12-01 to 2026-12-10" in body_of(to_bo)
    assert "no action was played, and your clock runs" in body_of(to_ana)
    # White to act, before its first action: the place would say Black, so the side is named.
    assert "{[%ts 2026-11-23T10:00Z]} {[%leave white 2026-12-01 2026-12-10]} *" in lab.record()
    assert lab.query("SELECT side, first_day, last_day FROM leaves") == [(0, "2026-12-01", "2026-12-10")]
    # White's clock, running from the start, stops for the ten days: 30d from 10:00 on the
    # 23rd, plus ten days.
    run("referee", "tick", lab.db, "--now", "2027-01-02T09:59Z")
    assert record.read_game(lab.record()).result == "*"
    run("referee", "tick", lab.db, "--now", "2027-01-02T10:01Z")
    assert record.read_game(lab.record()).result == "0-1"


@pytest.mark.parametrize("text, message", [
    ("leave 2026-11-23 2026-11-25", "future days only"),
    ("leave 2026-12-05 2026-12-01", "last day comes before its first"),
    ("leave 2026-12-01 2027-02-20", "leave in 2027 to 51 days, more than the 45"),
])
def test_leave_is_refused_for_past_days_and_beyond_the_allowance(lab, text, message):
    lab.new_messages()
    lab.deliver(lab.reply(0, "B@e1\n" + text), "2026-11-23T11:00Z")
    (why,) = lab.new_messages()
    assert message in body_of(why) and lab.query("SELECT COUNT(*) FROM leaves") == [(0,)]
    assert not record.read_game(lab.record()).nodes          # the action went with it


def test_leave_allowance_is_per_calendar_year(tmp_path):
    lab = Lab(tmp_path, leave_days=10)
    # Before White's first action, a leave is Black's (the side that does not act first).
    lab.deliver(lab.reply(1, "leave 2026-12-25 2027-01-05"), "2026-11-23T11:00Z")
    assert lab.query("SELECT side, first_day, last_day FROM leaves") == [
        (1, "2026-12-25", "2027-01-05")]
    assert '[LeaveDays "10"]' in lab.record()
    lab.new_messages()
    lab.deliver(lab.reply(1, "leave 2026-12-19 2026-12-22"), "2026-11-23T11:05Z")
    (why,) = lab.new_messages()
    assert "more than the 10 a side may take per calendar year" in body_of(why)


def test_the_referees_clocks_are_what_tomis_clock_reads_in_the_mailed_record(tmp_path):
    import sqlite3

    import tomis
    from tomis.notation.clock import format_stamp, parse_stamp
    from tomis.referee.games import RefereedGame as Refereed
    from tomis.referee.store import Store

    lab = Lab(tmp_path, time_control="10/30d", leave_days=20)
    lab.new_messages()
    lab.deliver(lab.reply(0, "B@e1\nleave 2026-11-27 2026-12-05"), "2026-11-23T11:00Z")
    lab.new_messages()
    lab.deliver(lab.reply(1, "B@d8"), "2026-11-25T09:30Z")
    to_ana, _ = lab.new_messages()
    mailed = tmp_path / "mailed.tgn"
    mailed.write_text(attachment(to_ana, ".tgn"), encoding="utf-8")
    for now in ("2026-11-25T09:30Z", "2026-12-01T00:00Z", "2027-01-02T00:00Z"):
        shown = run("clock", mailed, "--now", now).stdout.splitlines()
        with Store.open(str(lab.db)) as connection:
            game = Refereed.load(connection, lab.game)
        readings = game.readings(parse_stamp(now))
        assert tomis.read_game(mailed).time_left(now) == {
            "white": readings[0].left, "black": readings[1].left}
        referee_lines = "\n".join(lab_clock_lines(game, parse_stamp(now)))
        for side, name in ((0, "White"), (1, "Black")):
            words = next(line for line in shown if line.startswith(f"{name}: "))[len(name) + 2:]
            assert f"{name} ({game.players[side].name}): {words}" in referee_lines
    shown = run("clock", mailed, "--now", "2026-11-25T09:30Z").stdout
    assert "until its 10th action" in shown and "White takes leave from 2026-11-27 to 2026-12-05" in shown
    assert "until its 10th action" in body_of(to_ana) and "White takes leave" in body_of(to_ana)
    # The deadline both print is the one the referee keeps: a minute later the game is over.
    deadline = next(line for line in shown.splitlines() if "time runs out at" in line).split()[-1]
    run("referee", "tick", lab.db, "--now", deadline)
    assert record.read_game(lab.record()).result == "*"
    assert tomis.read_game(mailed).time_left(deadline)["white"] == 0
    run("referee", "tick", lab.db, "--now", format_stamp(parse_stamp(deadline) + 60))
    assert record.read_game(lab.record()).result == "0-1"


def lab_clock_lines(game, now):
    from tomis.referee import letters

    return letters.clock_lines(game, now)


def test_a_message_that_trips_a_bug_is_set_aside_and_the_queue_goes_on(lab, monkeypatch):
    from tomis.referee import process

    real = process.read_commands

    def buggy(text):
        if "boom" in text:
            raise LookupError("a bug of ours")
        return real(text)

    monkeypatch.setattr(process, "read_commands", buggy)
    lab.new_messages()
    lab.deliver(lab.reply(0, "B@e1\nboom"), "2026-11-23T11:00Z")
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-23T11:05Z")
    assert lab.inbox() == [("rejected", "internal error: LookupError: a bug of ours"),
                           ("done", "action 1 (B@e1)")]
    # Issue 38: the sender is told that nothing was played, then both hear of the action.
    told, *updates = lab.new_messages()
    assert "nothing was played" in " ".join(body_of(told).split())
    assert len(updates) == 2
    assert lab.record().count("B@e1") == 1
