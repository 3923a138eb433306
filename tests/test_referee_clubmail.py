"""Issue 43, mail to the referee's bare address: join, challenge, games, digest, leave and
help, each command that changes anything confirmed from a one-time reply address.

Through real referee stores (referee_support.Lab: Ana and Bo play game 1), every message
delivered with ``deliver --now``, in process."""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import make_msgid

import pytest

from referee_support import ANA, BO, REFEREE, Lab, body_of, run

from tomis.referee import tokens

CY = "Cy Dune <cy@c.test>"
DAY1, DAY2, DAY9 = "2026-11-24T09:00Z", "2026-11-25T09:30Z", "2026-12-02T09:00Z"


@pytest.fixture
def lab(tmp_path):
    made = Lab(tmp_path)
    made.new_messages()
    return made


def to_club(sender: str, text: str, *, to: str = REFEREE, cc: str | None = None) -> bytes:
    """A new message (no reply) to the club's address."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    if cc:
        message["Cc"] = cc
    message["Subject"] = "club"
    message["Message-ID"] = make_msgid(domain="player.test")
    message.set_content(f"{text}\n\n-- \nsent from my phone\n")
    return message.as_bytes()


def answer(note: EmailMessage, sender: str, text: str = "yes") -> bytes:
    """``sender`` replying to the referee's ``note`` (to its Reply-To), quoting it."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = str(note["Reply-To"])
    message["Subject"] = "Re: " + str(note["Subject"])
    message["Message-ID"] = make_msgid(domain="player.test")
    message["In-Reply-To"] = note["Message-ID"]
    quoted = "".join(f"> {line}\n" for line in body_of(note).splitlines())
    message.set_content(f"{text}\n\nOn Tue, the referee wrote:\n{quoted}")
    return message.as_bytes()


def one_to(lab: Lab, address: str) -> EmailMessage:
    """The one message just sent, to ``address``."""
    fresh = lab.new_messages()
    assert [m["To"].addresses[0].addr_spec for m in fresh] == [address], \
        [str(m["To"]) for m in fresh]
    return fresh[0]


def text(message: EmailMessage) -> str:
    return " ".join(body_of(message).split())


def players(lab: Lab) -> dict[str, tuple[str, int]]:
    return {name: (address, approved) for name, address, approved in
            lab.query("SELECT name, address, approved FROM players")}


def confirm(lab: Lab, sender: str, line: str, now: str) -> EmailMessage:
    """``line`` mailed by ``sender`` and confirmed at once; the confirmation request."""
    lab.deliver(to_club(sender, line), now)
    request = one_to(lab, _address(sender))
    lab.deliver(answer(request, sender), now)
    return request


def _address(person: str) -> str:
    return person.split("<")[1].rstrip(">")


# --------------------------------------------------------------------------- join

def test_join_takes_effect_only_when_confirmed_from_the_address(lab):
    lab.deliver(to_club(CY, "Join Cy Dune"), DAY1)
    request = one_to(lab, "cy@c.test")
    reply_to = request["Reply-To"].addresses[0].addr_spec
    assert reply_to.startswith("ref+") and reply_to != REFEREE
    assert "Cy Dune" in text(request) and "reply to this message" in text(request)
    assert "Cy Dune" not in str(request["Subject"])          # outside text stays out of headers
    assert "Cy Dune" not in players(lab)                       # nothing before the reply
    lab.deliver(answer(request, CY), DAY1)
    assert players(lab)["Cy Dune"] == ("cy@c.test", 1)
    welcome = one_to(lab, "cy@c.test")
    assert "Welcome, Cy Dune" in text(welcome)


def test_a_forged_from_never_joins_anyone(lab):
    mallory = "Mallory <mallory@evil.test>"
    # Mallory writes in Cy's name: the one-time address goes to Cy, never to Mallory.
    lab.deliver(to_club("Cy Dune <cy@c.test>", "join Mallory"), DAY1)
    request = one_to(lab, "cy@c.test")
    # Mallory, knowing what the referee does, answers the bare address and a made-up
    # request address, in Cy's name and her own: nothing joins, nothing is answered.
    made_up = f"ref+{tokens.make_request('00' * 32, 1)}@club.test"
    for sender in (mallory, CY):
        lab.deliver(answer(request, sender).replace(
            request["Reply-To"].addresses[0].addr_spec.encode(), made_up.encode()), DAY1)
    # The real one-time address, were it leaked, from another address: nothing.
    lab.deliver(answer(request, mallory), DAY1)
    assert "Mallory" not in players(lab) and lab.new_messages() == []
    reasons = [reason for _state, reason in lab.inbox()][-3:]
    assert "not cy@c.test" in reasons[-1]


def test_a_one_time_address_works_once_and_for_seven_days(lab):
    lab.deliver(to_club(CY, "join Cy Dune"), DAY1)
    first = one_to(lab, "cy@c.test")
    lab.deliver(to_club("Di Ek <di@d.test>", "join Di Ek"), DAY1)
    late = one_to(lab, "di@d.test")
    lab.deliver(answer(first, CY), DAY1)
    lab.new_messages()
    count = len(players(lab))
    lab.deliver(answer(first, CY, "join again"), DAY2)          # reused: nothing
    assert lab.new_messages() == [] and len(players(lab)) == count
    lab.deliver(answer(late, "Di Ek <di@d.test>"), "2026-12-01T09:01Z")   # 7 days and a minute
    assert lab.new_messages() == [] and "Di Ek" not in players(lab)
    (_, used), (_, lapsed) = lab.inbox()[-2:]
    assert "was used" in used and "lapsed" in lapsed


def test_at_most_three_confirmation_requests_a_day_to_one_address(lab):
    for minute in range(4):
        lab.deliver(to_club(CY, f"join Cy Dune {minute}"), f"2026-11-24T09:0{minute}Z")
    assert len([m for m in lab.new_messages() if "cy@c.test" in str(m["To"])]) == 3
    assert "3 went to cy@c.test in 24 hours" in lab.inbox()[-1][1]
    lab.deliver(to_club(CY, "join Cy Dune"), "2026-11-25T09:01Z")      # a day on: again
    one_to(lab, "cy@c.test")


def test_join_in_approve_mode_waits_for_the_organiser_and_closed_refuses(lab):
    assert run("referee", "settings", lab.db, "--join", "approve").exit_code == 0
    confirm(lab, CY, "join Cy Dune", DAY1)
    assert players(lab)["Cy Dune"] == ("cy@c.test", 0)
    assert "the club's organiser approves each new player" in text(one_to(lab, "cy@c.test"))
    assert run("referee", "settings", lab.db, "--join", "closed").exit_code == 0
    lab.deliver(to_club("Di Ek <di@d.test>", "join Di Ek"), DAY1)
    refusal = one_to(lab, "di@d.test")
    assert "takes no new players by mail" in text(refusal)
    assert refusal["Reply-To"].addresses[0].addr_spec == REFEREE      # nothing to confirm
    assert "Di Ek" not in players(lab)


def test_a_bad_join_setting_is_one_line(lab):
    result = run("referee", "settings", lab.db, "--join", "maybe")
    assert result.exit_code != 0 and "one of open, approve, closed" in result.output


# --------------------------------------------------------------------------- challenge

def test_challenge_confirmed_and_accepted_starts_the_game(lab):
    confirm(lab, ANA, "challenge Bo Marin 10d+1d white", DAY1)
    fresh = lab.new_messages()
    to_bo = [m for m in fresh if "bo@b.test" in str(m["To"])]
    to_ana = [m for m in fresh if "ana@a.test" in str(m["To"])]
    assert len(to_bo) == 1 and len(to_ana) == 1
    assert "Ana Lungu challenges you" in text(to_bo[0]) and "10d+1d" in text(to_bo[0])
    assert "Bo Marin is asked" in text(to_ana[0])
    # Ana cannot accept her own challenge: its address is Bo's to answer.
    lab.deliver(answer(to_bo[0], ANA, "accept"), DAY1)
    assert lab.new_messages() == [] and len(lab.query("SELECT id FROM games")) == 1
    lab.deliver(answer(to_bo[0], BO, "Accept."), DAY1)
    ((number, white, black, record),) = lab.query(
        "SELECT id, white_name, black_name, record FROM games WHERE id > 1")
    assert (white, black) == ("Ana Lungu", "Bo Marin")
    assert '[TimeControl "10d+1d"]' in record
    firsts = lab.new_messages()
    assert sorted(m["To"].addresses[0].addr_spec for m in firsts) == ["ana@a.test", "bo@b.test"]
    assert all("A new game of Tomis begins" in text(m) for m in firsts)
    assert all(f"[tomis #{number}]" in str(m["Subject"]) for m in firsts)
    lab.deliver(answer(to_bo[0], BO, "accept"), DAY2)                 # once only
    assert len(lab.query("SELECT id FROM games")) == 2


def test_a_declined_challenge_tells_the_challenger_and_starts_nothing(lab):
    confirm(lab, BO, "challenge ana lungu", DAY1)
    (request,) = [m for m in lab.new_messages() if "ana@a.test" in str(m["To"])]
    lab.deliver(answer(request, ANA, "decline"), DAY1)
    assert "Ana Lungu declines your challenge" in text(one_to(lab, "bo@b.test"))
    assert len(lab.query("SELECT id FROM games")) == 1


def test_without_a_colour_the_two_alternate(lab):
    # Game 1 has Ana White: Bo's challenge of her, no colour asked, gives Bo White.
    confirm(lab, BO, "challenge Ana Lungu", DAY1)
    (request,) = [m for m in lab.new_messages() if "ana@a.test" in str(m["To"])]
    lab.deliver(answer(request, ANA, "accept"), DAY1)
    assert lab.query("SELECT white_name FROM games WHERE id = 2") == [("Bo Marin",)]


def test_a_challenge_of_no_player_is_refused_in_words(lab):
    lab.deliver(to_club(ANA, "challenge Nobody Here 10d"), DAY1)
    assert "no player named 'Nobody Here'" in text(one_to(lab, "ana@a.test"))


# --------------------------------------------------------------------------- games, digest

def _two_games(lab: Lab) -> None:
    """Game 1: Ana White has played, Bo to act. Game 2: Bo White has played, Ana to act."""
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-23T11:00Z")
    assert run("referee", "new", lab.db, "--white", "Bo Marin", "--black", "Ana Lungu",
               "--time-control", "30d", "--now", "2026-11-23T12:00Z").exit_code == 0
    lab.new_messages()
    lab.deliver(lab.reply(1, "B@e1"), "2026-11-23T13:00Z")
    lab.new_messages()


def _reply_address(lab: Lab, game: int, address: str) -> str:
    sent = [m for m in lab.messages() if address in str(m["To"])
            and f"[tomis #{game}]" in str(m["Subject"])]
    return sent[-1]["Reply-To"].addresses[0].addr_spec


def test_games_lists_those_waiting_first_with_deadline_and_reply_address(lab):
    _two_games(lab)
    lab.deliver(to_club(ANA, "games"), DAY1)
    listing = body_of(one_to(lab, "ana@a.test"))
    first, second = listing.index("#2 against Bo Marin"), listing.index("#1 against Bo Marin")
    assert first < second
    assert "#2 against Bo Marin, you have Black. Your turn, until 2026-12-23T13:00Z." in listing
    assert "#1 against Bo Marin, you have White. Waiting for your opponent." in listing
    assert "Last action: 1. B@e1 (2026-11-23T13:00Z)" in listing
    assert _reply_address(lab, 2, "ana@a.test") in listing[first:second]
    assert _reply_address(lab, 1, "ana@a.test") in listing[second:]
    assert "You play 2 game(s); 1 wait on you." in listing


def test_games_answers_the_registered_address_not_another_from(lab):
    # From an address that is no player's: help, and not the list, to that address.
    lab.deliver(to_club("Eve <eve@x.test>", "games"), DAY1)
    reply = one_to(lab, "eve@x.test")
    assert "Only the club's players may send that" in text(reply) and "#1" not in text(reply)


def test_digest_lists_only_the_games_waiting_on_the_player_on_schedule(lab):
    _two_games(lab)                      # Ana is to act in game 2, Bo in game 1
    confirm(lab, ANA, "digest daily", DAY1)
    assert "daily digest, first at 2026-11-25T09:00Z" in text(one_to(lab, "ana@a.test"))
    confirm(lab, BO, "digest weekly", DAY1)
    lab.new_messages()
    assert run("referee", "tick", lab.db, "--now", "2026-11-25T08:59Z").exit_code == 0
    assert lab.new_messages() == []                               # not yet due
    assert run("referee", "tick", lab.db, "--now", "2026-11-25T09:00Z").exit_code == 0
    digest = one_to(lab, "ana@a.test")                            # Bo's is a week away
    assert "1 game(s) wait on you" in text(digest)
    assert "#2 against Bo Marin" in body_of(digest) and "#1 " not in body_of(digest)
    assert digest["Auto-Submitted"] == "auto-generated"
    assert run("referee", "tick", lab.db, "--now", "2026-11-25T12:00Z").exit_code == 0
    assert lab.new_messages() == []                               # the next is a day on
    assert run("referee", "tick", lab.db, "--now", "2026-12-01T09:00Z").exit_code == 0
    fresh = lab.new_messages()
    (to_bo,) = [m for m in fresh if "bo@b.test" in str(m["To"])]
    assert len(fresh) == 2 and "#1 against Ana Lungu" in body_of(to_bo)
    assert "#2 " not in body_of(to_bo)


def test_no_digest_when_no_game_waits(lab):
    lab.deliver(lab.reply(0, "B@e1"), "2026-11-23T11:00Z")       # Ana played: Bo to act
    lab.new_messages()
    confirm(lab, ANA, "digest daily", DAY1)
    lab.new_messages()
    assert run("referee", "tick", lab.db, "--now", "2026-11-26T09:00Z").exit_code == 0
    assert lab.new_messages() == []


# --------------------------------------------------------------------------- routing, help

def test_a_games_reply_address_with_the_bare_address_in_cc_is_the_games(lab):
    reply_address = lab.last_to(0)["Reply-To"].addresses[0].addr_spec
    lab.deliver(to_club(ANA, "B@e1", to=reply_address, cc=REFEREE), DAY1)
    assert "B@e1" in lab.record()
    assert lab.inbox()[-1] == ("done", "action 1 (B@e1)")
    assert all("[tomis #1]" in str(m["Subject"]) for m in lab.new_messages())


def test_unknown_text_gets_the_commands_a_few_times_a_day(lab):
    for minute in range(7):
        lab.deliver(to_club(ANA, f"hello there {minute}"), f"2026-11-24T09:0{minute}Z")
    answers = lab.new_messages()
    assert len(answers) == 5 and all("ana@a.test" in str(m["To"]) for m in answers)
    assert "challenge NAME [TC] [white|black]" in body_of(answers[0])
    assert "'hello there 0' is no command of the club" in text(answers[0])


def test_machine_written_mail_to_the_club_is_never_answered(lab):
    raw = to_club(ANA, "games").replace(b"Subject: club", b"Subject: Out of office")
    lab.deliver(raw, DAY1)
    assert lab.new_messages() == []


def test_request_tokens_are_no_seat_tokens_and_cannot_be_made_without_the_secret():
    secret, other = "ab" * 32, "cd" * 32
    token = tokens.make_request(secret, 7)
    assert tokens.read_request(secret, token) == 7
    assert tokens.read_request(other, token) is None
    assert tokens.read(secret, token) is None                     # never a seat
    seat = tokens.make(secret, tokens.Seat(7, 0))
    assert tokens.read_request(secret, seat) is None               # nor a seat a request
    assert len(token) == tokens.TOKEN_LENGTH


# --------------------------------------------------------------------------- leave

def test_leave_by_mail_is_taken_in_the_games_only_once_confirmed(lab):
    lab.deliver(to_club(ANA, "leave 2026-12-01 2026-12-05"), DAY1)
    request = one_to(lab, "ana@a.test")
    assert "leave from 2026-12-01 to 2026-12-05" in text(request)
    assert "2026-12-01" not in lab.record()                       # nothing before the reply
    lab.deliver(answer(request, ANA), DAY1)
    assert "2026-12-01" in lab.record()
    fresh = lab.new_messages()
    (to_ana,) = [m for m in fresh if "ana@a.test" in str(m["To"])]
    (to_bo,) = [m for m in fresh if "bo@b.test" in str(m["To"])]
    assert "2026-12-05" in text(to_ana) and "2026-12-01" in text(to_bo)
    request = confirm(lab, ANA, "leave cancel", DAY2)
    assert "cancel your leave not yet begun" in text(request)
    assert "2026-12-01" not in lab.record()


def test_leave_past_the_allowance_is_refused_after_confirmation_in_words(lab):
    confirm(lab, ANA, "leave 2026-12-01 2027-03-01", DAY1)        # 31 + 60 days > 45
    refusal = [m for m in lab.new_messages() if "ana@a.test" in str(m["To"])][-1]
    assert "Not taken" in body_of(refusal) and "2026-12-01" not in lab.record()


def test_mail_in_the_referees_own_name_is_never_answered(lab):
    for sender in (f"Club Referee <{REFEREE}>", "x <ref+abc@club.test>"):
        lab.deliver(to_club(sender, "join Someone Else"), DAY1)
        lab.deliver(to_club(sender, "help"), DAY1)
    assert lab.new_messages() == []
    assert all("referee's own addresses" in reason for _state, reason in lab.inbox()[-4:])


def test_a_stranger_asking_for_help_gets_the_commands_and_unknown_text_says_so(lab):
    lab.deliver(to_club("Eve <eve@x.test>", "help"), DAY1)
    assert "join NAME" in body_of(one_to(lab, "eve@x.test"))
    lab.deliver(to_club("Eve <eve@x.test>", "hi"), DAY1)
    assert "'hi' is no command of the club" in text(one_to(lab, "eve@x.test"))
    assert lab.inbox()[-2:] == [("done", "club mail: help sent (asked for)"),
                                ("done", "club mail: help sent ('hi' is no command of the club.)")]


def test_prune_drops_requests_past_their_seven_days(lab):
    lab.deliver(to_club(CY, "join Cy Dune"), DAY1)
    lab.deliver(to_club("Di Ek <di@d.test>", "join Di Ek"), DAY2)
    assert run("referee", "prune", lab.db, "--now", "2026-12-01T09:10Z").exit_code == 0
    assert lab.query("SELECT address FROM club_requests") == [("di@d.test",)]
