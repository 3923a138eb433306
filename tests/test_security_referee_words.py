"""Issue 38 (the referee under attack), the words of a reply: how its lines are read (a
command-like line is refused and never relayed), a new reply token after ``address``, the
daily limit on relayed chat, and automatic mail never relayed.

Through real referee stores (referee_support.Lab), in process and as real processes."""

from __future__ import annotations

import base64
import hashlib
import hmac
from email.message import EmailMessage
from email.utils import make_msgid

import pytest

from referee_support import ANA, BO, Lab, body_of, headline, process, reply_to, run

from tomis.referee import tokens
from tomis.referee.queueing import CHAT_LIMIT
from tomis.referee.commands import CommandError, read_commands


@pytest.fixture
def lab(tmp_path):
    return Lab(tmp_path)


# --------------------------------------------------------------------------- the rule

ACTION, DRAW, COMMAND, REFUSED, CHAT = "action", "draw", "command", "refused", "chat"

READINGS = [
    # a line that is a command
    ("B@e1", ACTION, "B@e1"),
    ("b@e1", ACTION, "B@e1"),
    ("B@E1.", ACTION, "B@e1"),
    ("fa2-a3!", ACTION, "Fa2-a3"),
    ("Fc3xd4", ACTION, "Fc3xd4"),
    ("FC3XD4", ACTION, "Fc3xd4"),
    ("m@c3:ne", ACTION, "M@c3:NE"),
    ("Mc3:sw", ACTION, "Mc3:SW"),
    ("Fc3=a", ACTION, "Fc3=A"),
    ("fb2^e5", ACTION, "Fb2^e5"),
    ("Fc3>d4", ACTION, "Fc3>d4"),
    ("B@e1 draw", DRAW, "B@e1"),
    ("b@e1 DRAW!", DRAW, "B@e1"),
    ("accept", COMMAND, "accept"),
    ("Accept!", COMMAND, "accept"),
    ("RESIGN.", COMMAND, "resign"),
    ("status", COMMAND, "status"),
    ("Moves.", COMMAND, "moves"),
    ("help", COMMAND, "help"),
    ("if", COMMAND, "clear_lines"),
    ("IF g@a7 g@b1", COMMAND, "lines"),
    ("leave 2027-01-02 2027-01-03", COMMAND, "leaves"),
    # one action-like word, at most four other words, no ?: that action
    ("My move: B@e1", ACTION, "B@e1"),
    ("B@e1, your move", ACTION, "B@e1"),
    ("B@e1 (centre)", ACTION, "B@e1"),
    ("B@e1 \u2014", ACTION, "B@e1"),
    ("B@d8 please", ACTION, "B@d8"),
    ("(b@e1)", ACTION, "B@e1"),
    ("Here is my move: B@e1", ACTION, "B@e1"),
    ("B@e1!!", ACTION, "B@e1"),
    # command-like: the whole message refused, naming the line
    ("B@d6 G@b2", REFUSED, "2 actions on one line"),
    ("If: B@d7 G@b1", REFUSED, "2 actions on one line"),
    ("B@e1,G@b2", REFUSED, "2 actions on one line"),
    ("If you play B@e1 I play G@b1", REFUSED, "2 actions on one line"),
    ("B@e1?", REFUSED, "question mark"),
    ("Is b@e1 legal?", REFUSED, "question mark"),
    ("if you play B@e1, fine", REFUSED, "if THEIRS MINE"),
    ("I think B@e1 was a great idea", REFUSED, "more than 4 other words"),
    ("B@e1 draw please", REFUSED, "'draw' acts only as a line of its own"),
    ("B@e1, and I resign", REFUSED, "'resign' acts only"),
    ("B@e1 accept", REFUSED, "'accept' acts only"),
    ("12.Fa2-a3", REFUSED, "inside the word"),
    ("hello move:B@e1", REFUSED, "inside the word"),
    ("Fb1-b9", REFUSED, "expected a square like e4"),
    ("B@e9", REFUSED, "B@e9"),
    ("if G@a7", REFUSED, "conditional line"),
    ("leave 2027-02-30 2027-03-01", REFUSED, "not a date of the calendar"),
    # chat
    ("If you like", CHAT, None),
    ("Leave it to me", CHAT, None),
    ("Resign? Never.", CHAT, None),
    ("I accept your offer", CHAT, None),
    ("Draw?", CHAT, None),
    ("Good luck, Bo!", CHAT, None),
    ("help me", CHAT, None),
    ("status quo", CHAT, None),
    ("moves like Jagger", CHAT, None),
    ("Let's meet at SE17 station", CHAT, None),
    ("G8 summit, B2B sales, call 555-1234", CHAT, None),
    ("The gate on c3 is strong: e4 too", CHAT, None),
    ("Write to bob@b.test or t@ex.test", CHAT, None),
    ("leave 2027-01-02 to 2027-01-03", CHAT, None),
]


def _reading(line: str) -> tuple[str, object]:
    try:
        commands = read_commands(line)
    except CommandError as error:
        return REFUSED, error.message
    if commands.chat:
        assert commands.empty and commands.chat == [line]
        return CHAT, None
    if commands.action:
        return (DRAW if commands.offer_draw else ACTION), commands.action
    (name,) = [name for name in ("accept", "resign", "status", "moves", "help", "clear_lines",
                                 "lines", "leaves") if getattr(commands, name)]
    return COMMAND, name


@pytest.mark.parametrize("line, kind, what", READINGS)
def test_each_line_is_a_command_an_action_refused_or_chat(line, kind, what):
    found_kind, found = _reading(line)
    assert found_kind == kind, found
    if kind == REFUSED:
        assert found.startswith(f"line 1 '{line}': ") and what in found
    else:
        assert found == what


def test_the_table_covers_every_kind_of_reading():
    kinds = [kind for _line, kind, _what in READINGS]
    assert len(READINGS) >= 40 and all(kinds.count(kind) >= 5 for kind in
                                       (ACTION, COMMAND, REFUSED, CHAT))


def test_a_refused_line_refuses_the_whole_message_whatever_else_it_holds():
    with pytest.raises(CommandError, match="line 3 'B@d6 G@b2'"):
        read_commands("B@e1\nmy secret plan\nB@d6 G@b2\nsee you")


# --------------------------------------------------------------------------- through a store

def _opponent_heard_nothing(lab, before: str) -> None:
    assert lab.record() == before
    fresh = lab.new_messages()
    assert [str(m["To"]) for m in fresh] == [BO], "only the sender hears of a refusal"
    assert headline(fresh[0]) == "Not taken"


@pytest.mark.parametrize("line", ["B@d6 G@b2", "If: B@d7 G@b1", "B@e1?",
                                  "if you play B@e1, fine", "B@d8 draw please"])
def test_a_command_like_line_is_refused_and_never_relayed(lab, line):
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-23T11:00Z")
    before = lab.record()
    lab.new_messages()
    lab.deliver(lab.reply(1, f"Ana, my private plan:\n{line}\nbye"), "2026-11-23T12:00Z")
    (why,) = [m for m in lab.messages() if headline(m) == "Not taken"]
    assert f"line 2 '{line}'" in body_of(why) and lab.inbox()[-1][0] == "rejected"
    _opponent_heard_nothing(lab, before)
    to_ana = [m for m in lab.messages() if "ana@a.test" in str(m["To"])]
    assert all("private plan" not in body_of(m) for m in to_ana)


def test_a_command_like_line_is_refused_by_a_real_deliver_process(lab):
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-23T11:00Z")
    before = lab.record()
    lab.new_messages()
    result = process("referee", "deliver", lab.db, "--now", "2026-11-23T12:00Z",
                     input=lab.reply(1, "B@d6 G@b2\nthe rest is for Ana"))
    assert result.returncode == 0, result.stderr
    _opponent_heard_nothing(lab, before)


def test_an_action_in_a_short_sentence_is_played_and_not_relayed_as_chat(lab):
    lab.deliver(lab.reply(0, "My move: b@e1"), "2026-11-23T11:00Z")
    lab.new_messages()
    lab.deliver(lab.reply(1, "B@d8 please\nGood game"), "2026-11-23T12:00Z")
    assert "B@e1" in lab.record() and "B@d8" in lab.record()
    to_ana = lab.last_to(0)
    assert "| Good game" in body_of(to_ana) and "please" not in body_of(to_ana)


def test_moves_and_help_answer_the_sender_alone(lab):
    lab.new_messages()
    lab.deliver(lab.reply(0, "moves\nhelp"), "2026-11-23T11:00Z")
    (answer,) = lab.new_messages()
    body = body_of(answer)
    assert str(answer["To"]) == ANA and headline(answer) == "Moves, help"
    assert "Legal actions (1), by kind:" in body and "place: B@a1" in body and "B@e1" in body
    assert "at most 4 other words" in body


# --------------------------------------------------------------------------- tokens

def test_a_seat_of_generation_0_keeps_the_token_earlier_versions_made():
    secret = tokens.new_secret()
    seat = tokens.Seat(7, 1)
    payload = (7).to_bytes(4, "big") + bytes([1])
    mac = hmac.new(bytes.fromhex(secret), payload, hashlib.sha256).digest()[:10]
    before = base64.b32encode(payload + mac).decode("ascii").lower()
    assert tokens.make(secret, seat) == before and tokens.read(secret, before) == seat
    newer = tokens.make(secret, seat, 1)
    assert len(newer) == tokens.TOKEN_LENGTH and newer != before
    assert tokens.read(secret, newer) is None
    assert tokens.read(secret, newer, lambda s: 1) == seat
    assert tokens.read(secret, before, lambda s: 1) is None
    assert tokens.read(secret, before, lambda s: None) is None


def _reply_address(message: EmailMessage) -> str:
    return message["Reply-To"].addresses[0].addr_spec


def test_address_gives_the_seat_a_new_token_and_the_old_reply_address_stops(lab):
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-23T11:00Z")
    old = lab.last_to(1)
    lab.new_messages()
    result = run("referee", "address", lab.db, lab.game, "black", "Bo Marin <bo@new.test>",
                 "--now", "2026-11-23T12:00Z")
    assert result.exit_code == 0, result.output
    (told,) = lab.new_messages()
    assert str(told["To"]) == "Bo Marin <bo@new.test>"
    new_address = _reply_address(told)
    assert new_address != _reply_address(old) and "reply address" in body_of(told)
    new_token = new_address.split("+")[1].split("@")[0]
    # The new address writing to the old reply address is a stranger.
    before = lab.record()
    lab.deliver(reply_to(old, "Bo Marin <bo@new.test>", "B@d8"), "2026-11-23T13:00Z")
    assert lab.record() == before and lab.new_messages() == []
    assert "stranger" in lab.inbox()[-1][1]
    # To its new reply address, it acts.
    lab.deliver(reply_to(told, "Bo Marin <bo@new.test>", "B@d8"), "2026-11-23T13:05Z")
    assert "B@d8" in lab.record()
    to_old = lab.query("SELECT raw FROM outbox WHERE envelope_to = 'bo@b.test'")
    assert to_old and all(new_token.encode() not in raw for (raw,) in to_old)
    assert all(new_token not in m.as_string() for m in lab.messages()
               if "bo@b.test" in str(m["To"]))


# --------------------------------------------------------------------------- chat limit

def test_chat_is_relayed_ten_times_a_day_then_dropped_with_one_notice(lab):
    lab.new_messages()
    for number in range(12):
        lab.deliver(lab.reply(0, f"chat number {number}"), f"2026-11-23T11:{number:02d}Z")
    fresh = lab.new_messages()
    to_bo = [m for m in fresh if "bo@b.test" in str(m["To"])]
    to_ana = [m for m in fresh if "ana@a.test" in str(m["To"])]
    assert [f"| chat number {n}" in body_of(m) for n, m in enumerate(to_bo)] == [True] * 10
    # Ana, whose turn it is, hears of each message passed on that nothing was played
    # (issue 41), then once that chat stops.
    *answers, notice = to_ana
    assert len(answers) == 10
    assert all("passed on to Black (Bo Marin); no action was played" in body_of(m)
               for m in answers)
    assert "not passed on" in body_of(notice) and "chat number" not in body_of(notice)
    # An action still goes through while chat is over the limit; its chat does not.
    lab.deliver(lab.reply(0, "B@e1\nchat number 12"), "2026-11-23T12:00Z")
    assert "B@e1" in lab.record()
    assert "chat number" not in body_of(lab.last_to(1))
    # A day after the first, chat passes again.
    lab.deliver(lab.reply(0, "chat number 13"), "2026-11-24T11:00Z")
    assert "| chat number 13" in body_of(lab.last_to(1))


# --------------------------------------------------------------------------- autoresponders

def _responder(lab, side: int, subject: str, headers: dict[str, str]) -> bytes:
    """``side``'s out-of-office program answering the referee's last message to it."""
    original = lab.last_to(side)
    message = EmailMessage()
    message["From"] = (ANA, BO)[side]
    message["To"] = str(original["Reply-To"])
    message["Subject"] = subject.format(original["Subject"])
    message["Message-ID"] = make_msgid(domain="away.test")
    message["In-Reply-To"] = original["Message-ID"]
    for name, value in headers.items():
        message[name] = value
    message.set_content("I am away until Monday and will read your message then.")
    return message.as_bytes()


def _converse(lab, subject: str, headers: dict[str, str], rounds: int = 40) -> list[int]:
    """Let both responders answer whatever the referee last sent them, turn about, until
    one has nothing new to answer; how many messages each side got from the referee."""
    got = [0, 0]
    lab.new_messages()
    side = 0
    for turn in range(rounds):
        lab.deliver(_responder(lab, side, subject, headers),
                    f"2026-11-23T{11 + turn // 60:02d}:{turn % 60:02d}Z")
        fresh = lab.new_messages()
        for message in fresh:
            got[0 if "ana@a.test" in str(message["To"]) else 1] += 1
        if not any(str(m["To"]).endswith(("bo@b.test>", "ana@a.test>")[side])
                   and "writes:" in body_of(m) for m in fresh):
            return got
        side = 1 - side
    raise AssertionError(f"still talking after {rounds} messages: {got}")


@pytest.mark.parametrize("subject, headers", [
    ("Out of Office: {}", {}),
    ("Automatic reply: {}", {}),
    ("AUTO: {}", {}),
    ("Re: {}", {"X-Autoreply": "yes"}),
    ("Re: {}", {"X-Autorespond": "vacation"}),
    ("Re: {}", {"Precedence": "auto_reply"}),
    ("Re: {}", {"X-Auto-Response-Suppress": "All"}),
    ("Re: {}", {"List-Id": "<chess.lists.test>"}),
])
def test_an_autoresponder_without_auto_submitted_is_never_relayed(lab, subject, headers):
    assert _converse(lab, subject, headers) == [0, 0]
    assert lab.inbox() == [("rejected", lab.inbox()[0][1])] and "machine" in lab.inbox()[0][1]


@pytest.mark.slow            # 10 s: two responders run until the chat limit stops them
def test_two_unmarked_autoresponders_stop_at_the_chat_limit(lab):
    ana, bo = _converse(lab, "Re: {}", {})
    # The side to act is also told, of each message passed on, that nothing was played
    # (issue 41); past the chat limit neither hears more than the one notice.
    assert ana <= 2 * CHAT_LIMIT + 1 and bo <= CHAT_LIMIT + 1


def test_a_long_refused_line_is_quoted_clipped():
    with pytest.raises(CommandError) as caught:
        read_commands("B@e1 " * 1000)
    assert caught.value.message.startswith("line 1 'B@e1 B@e1") and len(caught.value.message) < 500
