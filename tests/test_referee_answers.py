"""Issue 41, the players' first week: every message on a player's turn answered, 'draw'
alone, ``moves`` grouped by kind, ``help`` a players' guide with the rules, the limit on
explanations (forged mail apart), autoresponders, lapsed draw offers and "waiting since".

Through real referee stores (referee_support.Lab), in process."""

from __future__ import annotations

import json
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest

from referee_support import ANA, BO, Lab, attachment, body_of, run

from tomis.notation.record import read_game
from tomis.referee.queueing import WHY_LIMIT
from tomis.rules.core import legal_actions

ROOT = Path(__file__).resolve().parent.parent
OPENING = ["B@e1", "B@d8", "G@b1", "G@g8", "G@f2", "G@a7", "G@c3", "G@e6", "G@h4", "G@d5"]


@pytest.fixture
def lab(tmp_path):
    return Lab(tmp_path)


def _play(lab: Lab, actions: list[str], hour: int = 11) -> None:
    """Play ``actions`` from the start, White first, one message each, a minute apart."""
    for number, action in enumerate(actions):
        lab.deliver(lab.reply(number % 2, action), f"2026-11-23T{hour:02d}:{number:02d}Z")


def _to(messages: list[EmailMessage], side: int) -> list[EmailMessage]:
    return [m for m in messages if ("ana@a.test", "bo@b.test")[side] in str(m["To"])]


# --------------------------------------------------------------------------- every message answered

def test_chat_on_your_turn_is_passed_on_and_you_hear_that_nothing_was_played(lab):
    lab.new_messages()
    lab.deliver(lab.reply(0, "Good luck, Bo!"), "2026-11-23T11:00Z")
    fresh = lab.new_messages()
    (to_bo,) = _to(fresh, 1)
    (to_ana,) = _to(fresh, 0)
    assert "| Good luck, Bo!" in body_of(to_bo)
    answer = " ".join(body_of(to_ana).split())
    assert ("Your text was passed on to Black (Bo Marin); no action was played, and your "
            "clock runs.") in answer
    assert "send your action on a line of its own (e.g. 'B@a1')" in answer
    assert "Good luck" not in answer


def test_chat_while_the_opponent_is_to_act_is_passed_on_without_an_answer(lab):
    lab.new_messages()
    lab.deliver(lab.reply(1, "Take your time."), "2026-11-23T11:00Z")
    fresh = lab.new_messages()
    assert _to(fresh, 1) == [] and "| Take your time." in body_of(_to(fresh, 0)[0])


def test_a_game_without_clocks_does_not_say_a_clock_runs(tmp_path):
    lab = Lab(tmp_path, time_control=None)
    lab.new_messages()
    lab.deliver(lab.reply(0, "hello"), "2026-11-23T11:00Z")
    (to_ana,) = _to(lab.new_messages(), 0)
    answer = " ".join(body_of(to_ana).split())
    assert "no action was played. To act" in answer and "clock runs" not in answer


@pytest.mark.parametrize("side", [0, 1])
def test_draw_alone_is_answered_with_how_to_offer_one_and_never_passed_on(lab, side):
    before = lab.record()
    lab.new_messages()
    lab.deliver(lab.reply(side, "Draw."), "2026-11-23T11:00Z")
    fresh = lab.new_messages()
    (answer,) = fresh                  # to the sender alone: the opponent hears nothing
    assert str(answer["To"]) == (ANA, BO)[side]
    text = " ".join(body_of(answer).split())
    example = "B@a1" if side == 0 else "ACTION"
    assert (f"'draw' alone offers nothing: a draw is offered with an action, as 'ACTION "
            f"draw' on one line (e.g. '{example} draw')") in text
    assert "not passed on" in text and "writes:" not in text
    assert lab.record() == before and "(=)" not in lab.record()
    # The opponent's 'accept' then has no offer to take, and says so.
    lab.deliver(lab.reply(1 - side, "accept"), "2026-11-23T12:00Z")
    assert lab.inbox()[-1][0] == "rejected"


def test_status_alone_on_your_turn_is_its_own_answer(lab):
    lab.new_messages()
    lab.deliver(lab.reply(0, "status"), "2026-11-23T11:00Z")
    (answer,) = lab.new_messages()
    assert "no action was played" not in body_of(answer)
    assert "Your turn: reply above the line" in body_of(answer)


# --------------------------------------------------------------------------- moves and help

def test_moves_lists_every_legal_action_once_under_its_kind(lab):
    _play(lab, OPENING + ["F@a1", "F@h8"])
    lab.new_messages()
    lab.deliver(lab.reply(0, "moves"), "2026-11-23T12:00Z")
    (answer,) = lab.new_messages()
    lines = body_of(answer).splitlines()
    start = lines.index("Legal actions (13), by kind:")
    groups, kind = {}, None
    for line in lines[start + 1:]:
        if not line.startswith("  "):
            break
        if not line.startswith("    "):
            kind, line = line.strip().split(": ", 1)
        groups.setdefault(kind, []).extend(line.split())
    assert list(groups) == ["place", "move"]
    assert all("@" in word for word in groups["place"])
    assert groups["move"] and all("-" in word for word in groups["move"])
    legal = sorted(str(a) for a in legal_actions(read_game(lab.record()).final))
    assert sorted(groups["place"] + groups["move"]) == legal


def test_help_mails_the_guide_and_the_rules_to_the_sender_alone(lab):
    lab.new_messages()
    lab.deliver(lab.reply(1, "help"), "2026-11-23T11:00Z")
    (answer,) = lab.new_messages()
    assert str(answer["To"]) == BO
    body = body_of(answer)
    for shown in ("The notation: one action is one word", "Fa2-a3  Td1-d7", "M@c3:NE  Mc3:SW",
                  "Fb2^e5", "leave FROM TO", "at most 4 other words",
                  "attached as tomis-rules.txt"):
        assert shown in body
    rules = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
    assert attachment(answer, "tomis-rules.txt").replace("\r\n", "\n") == rules


def test_the_rules_the_package_ships_are_docs_rules(lab):
    shipped = ROOT / "tomis" / "data" / "rules.md"
    assert shipped.read_bytes() == (ROOT / "docs" / "RULES.md").read_bytes(), \
        "copy docs/RULES.md to tomis/data/rules.md"
    assert "data/rules.md" in (ROOT / "pyproject.toml").read_text()


def test_the_first_message_of_a_game_says_how_to_get_the_guide(lab):
    first = lab.messages()
    assert len(first) == 2
    for message in first:
        assert "Reply 'help' for a short guide" in " ".join(body_of(message).split())


# --------------------------------------------------------------------------- explanations

def _refused(lab: Lab, side: int, minute: int, sender: str | None = None) -> None:
    """A message to ``side``'s seat that is refused: out of turn, or from ``sender``."""
    lab.deliver(lab.reply(side, "B@e8", sender=sender), f"2026-11-23T11:{minute:02d}Z")


def test_the_last_explanation_before_the_limit_says_so_and_when_answers_resume(lab):
    lab.new_messages()
    for minute in range(WHY_LIMIT + 2):
        _refused(lab, 1, minute)
    told = lab.new_messages()
    assert len(told) == WHY_LIMIT
    warning = "the last: refused messages from you get no answer until 2026-11-24T11:00Z"
    assert [warning in " ".join(body_of(m).split()) for m in told] == \
        [False] * (WHY_LIMIT - 1) + [True]
    assert all(state == "rejected" for state, _ in lab.inbox())
    # Answers resume when the first of the five leaves the window.
    lab.deliver(lab.reply(1, "B@e8"), "2026-11-24T10:59Z")
    assert lab.new_messages() == []
    lab.deliver(lab.reply(1, "B@e8"), "2026-11-24T11:01Z")
    assert len(lab.new_messages()) == 1


def test_forged_mail_never_uses_up_the_answers_to_the_players_own(lab):
    lab.new_messages()
    for minute in range(WHY_LIMIT + 3):
        _refused(lab, 1, minute, sender="Mallory <mallory@evil.test>")
    forged = lab.new_messages()
    # The forgeries have a limit of their own: the player is told, but not flooded.
    assert len(forged) == WHY_LIMIT
    assert all("mallory@evil.test" in body_of(m) for m in forged)
    assert "messages from other addresses to your reply address get no answer" in \
        " ".join(body_of(forged[-1]).split())
    # Bo's own refused message is still explained.
    _refused(lab, 1, 30)
    (answer,) = lab.new_messages()
    assert str(answer["To"]) == BO and "not your turn" in body_of(answer)


# --------------------------------------------------------------------------- draw offers lapse

def test_a_draw_offer_that_lapses_is_told_to_both(lab):
    lab.deliver(lab.reply(0, "B@e1 draw"), "2026-11-23T11:00Z")
    lab.new_messages()
    lab.deliver(lab.reply(1, "B@d8"), "2026-11-23T12:00Z")
    fresh = lab.new_messages()
    assert len(fresh) == 2
    for message in fresh:
        assert ("The draw White (Ana Lungu) offered has lapsed: Black (Bo Marin) played B@d8 "
                "instead of accepting it.") in " ".join(body_of(message).split())
    # The next action, with no offer standing, says nothing of one.
    lab.deliver(lab.reply(0, "G@b1"), "2026-11-23T13:00Z")
    assert not any("lapsed" in body_of(m) for m in lab.new_messages())


# --------------------------------------------------------------------------- waiting since

def test_waiting_since_moves_only_with_actions(lab, tmp_path):
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-23T11:00Z")
    lab.deliver(lab.reply(1, "status"), "2026-11-23T12:00Z")
    lab.deliver(lab.reply(1, "hello"), "2026-11-23T13:00Z")
    lab.deliver(lab.reply(0, "chat back"), "2026-11-23T14:00Z")
    assert [state for state, _ in lab.inbox()] == ["done"] * 4
    listed = run("referee", "games", lab.db, "--json", "--now", "2026-11-23T15:00Z")
    assert listed.exit_code == 0, listed.output
    (game,) = map(json.loads, listed.stdout.splitlines())
    assert game["waiting_since"] == "2026-11-23T11:00Z"
    pages = tmp_path / "pages"
    shown = run("referee", "page", lab.db, "-o", pages, "--now", "2026-11-23T15:00Z")
    assert shown.exit_code == 0, shown.output
    index = (pages / "index.html").read_text(encoding="utf-8")
    assert "2026-11-23T11:00Z" in index and "2026-11-23T14:00Z" not in index
    # An action moves it.
    lab.deliver(lab.reply(1, "B@d8"), "2026-11-23T16:00Z")
    listed = run("referee", "games", lab.db, "--json", "--now", "2026-11-23T17:00Z")
    assert json.loads(listed.stdout)["waiting_since"] == "2026-11-23T16:00Z"


# --------------------------------------------------------------------------- autoresponders

def _away(lab: Lab, subject: str, headers: dict[str, str]) -> bytes:
    """Ana's mail program answering the referee's last message to her by itself."""
    original = lab.last_to(0)
    message = EmailMessage()
    message["From"] = ANA
    message["To"] = str(original["Reply-To"])
    message["Subject"] = subject.format(original["Subject"])
    message["Message-ID"] = make_msgid(domain="away.test")
    message["In-Reply-To"] = original["Message-ID"]
    for name, value in headers.items():
        message[name] = value
    message.set_content("I am away until Monday and will read your message then.")
    return message.as_bytes()


@pytest.mark.parametrize("subject, headers", [
    ("Re: {}", {"Auto-Submitted": "auto-replied"}),
    ("Re: {}", {"Auto-Submitted": "auto-generated"}),
    ("Re: {}", {"Precedence": "bulk"}),
    ("Re: {}", {"Precedence": "junk"}),
    ("Re: {}", {"Precedence": "list"}),
    ("Re: {}", {"Precedence": "auto_reply"}),
    ("Re: {}", {"X-Autoreply": "yes"}),
    ("Re: {}", {"X-Autorespond": "vacation"}),
    ("Re: {}", {"X-Auto-Response-Suppress": "All"}),
    ("Re: {}", {"List-Id": "Chess club <chess.lists.test>"}),
    ("Out of Office: {}", {}),
    ("Automatic reply: {}", {}),
    ("Auto: {}", {}),
    ("Automatische Antwort: {}", {}),
])
def test_an_autoresponder_on_its_players_turn_is_neither_relayed_nor_answered(lab, subject,
                                                                              headers):
    # On Ana's turn, text from her is passed on and answered: from her mail program, neither.
    lab.new_messages()
    lab.deliver(_away(lab, subject, headers), "2026-11-23T11:00Z")
    assert lab.new_messages() == []
    ((state, reason),) = lab.inbox()
    assert state == "rejected" and "machine" in reason


def test_the_same_text_without_a_mark_is_passed_on_and_answered(lab):
    lab.new_messages()
    lab.deliver(_away(lab, "Re: {}", {"Auto-Submitted": "no"}), "2026-11-23T11:00Z")
    fresh = lab.new_messages()
    assert len(_to(fresh, 0)) == 1 and "| I am away" in body_of(_to(fresh, 1)[0])
