"""The referee under fire: generated hostile messages through its library entry (thousands,
in process) and through real ``deliver`` processes (hundreds).

Each message is built from pieces that broke mail readers or the referee before: forged
and stranger senders, bad and good tokens, header shapes the email package parses slowly,
odd MIME, encodings, and reply lines mixing actions, near-actions, questions, commands and
chat. Whatever the message:

- it is decided within a time cap (stored as done or refused, never left new);
- no internal error is recorded for it;
- nothing command-like reaches the opponent as chat: a relayed line never holds one of the
  action words this generator wrote;
- every message from the registered player of a seat is either taken or refused with its
  reason; nothing is lost (the inbox holds every message once).

The seed is ``TOMIS_FUZZ_SEED`` (default 38), the counts ``TOMIS_FUZZ_REFEREE`` and
``TOMIS_FUZZ_REFEREE_PROCESSES``; a failure names the seed and the message's number, so it
can be replayed.
"""

from __future__ import annotations

import base64
import email
import email.policy
import os
import random
import signal
import sqlite3
import subprocess
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from conftest import ROOT
from referee_support import ADDRESSES, ANA, BO, REFEREE, run

from tomis.notation import record
from tomis.referee import service
from tomis.rules.core import legal_actions

pytestmark = pytest.mark.slow

SEED = int(os.environ.get("TOMIS_FUZZ_SEED", "38"))
IN_PROCESS = int(os.environ.get("TOMIS_FUZZ_REFEREE", "5000"))
PROCESSES = int(os.environ.get("TOMIS_FUZZ_REFEREE_PROCESSES", "200"))
CAP_SECONDS = 20            # per message: far above an honest message (milliseconds), far
                            # below what a quadratic parse of a hostile header costs
PLAYERS = (ANA, BO)

CHAT = ["Good luck!", "If you like, we can play on.", "Leave it to me.", "Resign? Never.",
        "Nice game so far", "Thanks", "See you next week", "I am away on Friday",
        "Accept my apologies for the delay", "status of the club?", "help me understand",
        "Let us draw lots for colours next time", "\u00e9t\u00e9 \u2014 caf\u00e9", ""]
NEAR_ACTIONS = ["Fa2-a9", "B@z9", "Ga1=Q", "Mc3:XX", "Q@d0", "Fa2--a3", "S@i1"]
HEADER_BOMBS = [
    lambda r: "Content-Type: text/plain;" + '"' * r.choice([10, 1000, 60_000]),
    lambda r: "Content-Type: mul" + ">> " * r.choice([10, 1000, 20_000]),
    lambda r: "Content-Type: text/plain; a*",
    lambda r: "Content-Type: text/plain; charset*0*=utf-8''x; charset*1*=%",
    lambda r: "From: " + "(" * r.choice([5, 200, 5000]) + "ana@a.test" + ")" * 5,
    lambda r: "To: " + "<" * r.choice([5, 500, 20_000]) + "x@y",
    lambda r: "Subject: =?utf-8?b?" + base64.b64encode(b"\r\nBcc: x@y").decode() + "?=",
    lambda r: "Message-ID: " + '"' * r.choice([10, 5000]) + "<a@b>",
    lambda r: "Received: from x by mail.club.test; " + "(" * r.choice([10, 3000]),
    lambda r: "X-Long: a" + "\n b" * r.choice([10, 3000]),
]


@contextmanager
def _reading(path: Path):
    """A connection for the checks, closed after (``with sqlite3.connect`` only commits)."""
    connection = sqlite3.connect(path)
    try:
        yield connection
    finally:
        connection.close()


@dataclass
class Sent:
    """What one generated message carried, for the checks after it is decided."""

    number: int
    raw: bytes
    action_words: set[str] = field(default_factory=set)


def _action_lines(rng: random.Random, legal: list[str], words: set[str]) -> list[str]:
    """Reply lines: actions alone and in sentences, two actions, questions, conditional
    lines with and without ``if``, commands, chat."""
    action = rng.choice(legal) if legal else "B@e1"
    other = rng.choice(legal) if legal else "G@b1"
    near = rng.choice(NEAR_ACTIONS)
    shown = rng.choice([action, action.lower(), action])
    words.update({action, other, near, shown})
    shapes = [
        shown, f"My move: {shown}", f"{shown}, your move", f"{shown} (centre)", f"{shown} \u2014",
        f"{shown}.", f"{shown} draw", f"{shown} please", f"{shown}?", f"{shown} {other}",
        f"If: {shown} {other}", f"if {shown} {other}", f"{shown} or maybe {other}?",
        f"I think {shown} is a fine action for you and me today", near, f"play {near}",
        "accept", "resign", "draw", "status", "moves", "help", "if", "leave 2027-01-10 2027-01-12",
        "leave 9999-12-30 9999-12-31", "Leave it to me.", rng.choice(CHAT),
    ]
    return [rng.choice(shapes) for _ in range(rng.randint(0, 4))] + [rng.choice(CHAT)]


class Seats:
    """Each side's newest reply address, read from what the referee mailed since last asked
    (a new game brings new ones)."""

    def __init__(self, db: Path):
        self.db, self.seen = db, 0
        self.newest: dict[int, str] = {}

    def read(self) -> dict[int, str]:
        with _reading(self.db) as connection:
            rows = connection.execute("SELECT id, envelope_to, raw FROM outbox WHERE id > ? "
                                      "ORDER BY id", (self.seen,)).fetchall()
        for number, to, raw in rows:
            self.seen = number
            if to not in ADDRESSES:
                continue
            reply = email.message_from_bytes(raw, policy=email.policy.default)["Reply-To"]
            if reply is not None:
                self.newest[ADDRESSES.index(to)] = reply.addresses[0].addr_spec
        return self.newest


def _legal(db: Path) -> list[str]:
    with _reading(db) as connection:
        row = connection.execute("SELECT record FROM games WHERE over = 0 ORDER BY id DESC "
                                 "LIMIT 1").fetchone()
    if row is None:
        return []
    return [str(action) for action in legal_actions(record.read_game(row[0]).final)]


def make_message(rng: random.Random, number: int, seats: dict[int, str],
                 legal: list[str]) -> Sent:
    sent = Sent(number, b"")
    side = rng.randint(0, 1)
    sender = rng.choice([PLAYERS[side]] * 6 + [PLAYERS[1 - side], "Eve <eve@evil.test>",
                                                 "MAILER-DAEMON@mx.test", "", "a@b@c"])
    seat = seats.get(side, REFEREE)
    to = rng.choice([seat] * 6 + [REFEREE, "ref+aaaaaaaaaaaaaaaaaaaaaaaa@club.test",
                                  seat.upper(), f"{seat}, {REFEREE}", "x@y"])
    lines = _action_lines(rng, legal, sent.action_words)
    body = "\n".join(lines)
    headers = [f"From: {sender}", f"To: {to}", "Subject: Re: [tomis] your game",
               f"Message-ID: <fuzz-{SEED}-{number}@player.test>"]
    if rng.random() < 0.25:
        headers.append(rng.choice(HEADER_BOMBS)(rng))
    if rng.random() < 0.1:
        headers.append(rng.choice(["Auto-Submitted: auto-replied", "X-Autoreply: yes",
                                   "Precedence: bulk", "Subject: Out of Office"]))
    kind = rng.random()
    if kind < 0.15:
        encoded = base64.encodebytes(body.encode()).decode()
        text = ("MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n"
                "Content-Transfer-Encoding: base64\n\n" + encoded)
    elif kind < 0.3:
        html = "".join(f"<div>{line}</div>" for line in lines)
        text = ('MIME-Version: 1.0\nContent-Type: multipart/alternative; boundary="b"\n\n'
                f"--b\nContent-Type: text/plain\n\n{body}\n--b\nContent-Type: text/html\n\n"
                f"<html><body>{html}</body></html>\n--b--\n")
    elif kind < 0.35:
        text = "Content-Type: multipart/mixed; boundary=" + "x" * rng.choice([1, 70, 2000]) + \
            "\n\n" + body
    else:
        text = "\n" + body + "\n\nOn Mon, Referee wrote:\n> B@e1\n> resign\n"
    raw = "\n".join(headers) + "\n" + text
    sent.raw = raw.encode("utf-8", "surrogateescape")
    if rng.random() < 0.05:
        sent.raw = sent.raw.replace(b"\n", b"\r\n")
    if rng.random() < 0.03:
        sent.raw = sent.raw[: rng.randint(1, len(sent.raw))]
    return sent


@contextmanager
def time_cap(seconds: int, what: str):
    """Fail (not hang) when the block takes longer than ``seconds``."""
    def expired(_number, _frame):
        raise AssertionError(f"{what} took longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


class Club:
    """A store with a game, sending to an outbox folder; a new game whenever one ends."""

    def __init__(self, tmp_path: Path):
        self.db = tmp_path / "referee.db"
        self.out = tmp_path / "out"
        self.out.mkdir()
        assert run("referee", "init", self.db, "--address", REFEREE,
                   "--send-by", f"outbox:{self.out}").exit_code == 0
        self.games = 0
        self.new_game()

    def new_game(self) -> None:
        result = run("referee", "new", self.db, "--white", ANA, "--black", BO,
                     "--time-control", "30d+3d", "--now", "2026-11-23T10:00Z")
        assert result.exit_code == 0, result.output
        self.games += 1

    def playing(self) -> bool:
        with _reading(self.db) as connection:
            return connection.execute("SELECT COUNT(*) FROM games WHERE over = 0").fetchone()[0] > 0

    def inbox_rows(self) -> list[tuple]:
        with _reading(self.db) as connection:
            return connection.execute("SELECT id, dedupe_key, state, reason FROM inbox "
                                      "ORDER BY id").fetchall()

    def outbox_since(self, first: int) -> list[tuple[int, bytes]]:
        with _reading(self.db) as connection:
            return connection.execute("SELECT id, raw FROM outbox WHERE id > ? ORDER BY id",
                                      (first,)).fetchall()

    def last_outbox(self) -> int:
        with _reading(self.db) as connection:
            return connection.execute("SELECT COALESCE(MAX(id), 0) FROM outbox").fetchone()[0]


def _relayed_lines(raw: bytes) -> list[str]:
    """The opponent's chat a referee message passes on (the quoted block it writes)."""
    message = email.message_from_bytes(raw, policy=email.policy.default)
    body = message.get_body(("plain",))
    text = body.get_content() if body is not None else ""
    return [line[2:] for line in text.splitlines() if line.startswith("| ")]


def check(club: Club, sent: Sent, before: int) -> None:
    where = f"seed {SEED}, message {sent.number}"
    rows = [row for row in club.inbox_rows() if row[1] == f"mid:<fuzz-{SEED}-{sent.number}@player.test>"]
    if rows:                                  # (a message cut before its Message-ID is keyed by digest)
        (_id, _key, state, reason), = rows
        assert state in ("done", "rejected"), f"{where}: left {state}"
        assert not (reason or "").startswith("internal error"), f"{where}: {reason}"
    for _number, raw in club.outbox_since(before):
        for line in _relayed_lines(raw):
            for word in sent.action_words:
                assert word.lower() not in line.lower(), \
                    f"{where}: command-like line relayed as chat: {line!r}"


def test_thousands_of_hostile_messages_through_the_library(tmp_path):
    rng = random.Random(SEED)
    club = Club(tmp_path)
    seats = Seats(club.db)
    connection, config = service.connect(str(club.db))
    minute = 0
    for number in range(IN_PROCESS):
        if not club.playing():
            club.new_game()
        sent = make_message(rng, number, seats.read(), _legal(club.db))
        before = club.last_outbox()
        minute += 1
        now = 1795428000 + minute * 60           # 2026-11-23T10:00Z onwards, a minute apart
        with time_cap(CAP_SECONDS, f"seed {SEED}, message {number}"):
            service.store_message(connection, sent.raw, False, None, now)
            service.after_storing(connection, config, now)
        check(club, sent, before)
    connection.close()
    states = {state for _id, _key, state, _reason in club.inbox_rows()}
    assert states <= {"done", "rejected"}
    assert "done" in states                     # some honest actions were played


def test_hundreds_of_hostile_messages_through_real_deliver(tmp_path):
    rng = random.Random(SEED + 1)
    club = Club(tmp_path)
    seats = Seats(club.db)
    for number in range(PROCESSES):
        if not club.playing():
            club.new_game()
        sent = make_message(rng, number, seats.read(), _legal(club.db))
        before = club.last_outbox()
        now = f"2026-11-24T{number // 60 % 24:02d}:{number % 60:02d}Z"
        done = subprocess.run([sys.executable, "-m", "tomis", "referee", "deliver", str(club.db),
                               "--now", now], input=sent.raw, capture_output=True,
                              timeout=CAP_SECONDS + 10, cwd=ROOT)
        where = f"seed {SEED + 1}, message {number}"
        assert done.returncode == 0, f"{where}: exit {done.returncode}: {done.stderr[-300:]!r}"
        assert b"Traceback" not in done.stderr and b"internal error" not in done.stderr, where
        check(club, sent, before)
