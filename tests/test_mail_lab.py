"""A whole short game mailed between ana and bo through Debian's postfix (port 587,
STARTTLS and AUTH, the lab's CA file as [smtp] cafile) into real Maildirs, read back from
the Maildir and once over IMAP from dovecot (imaps, port 993). Slow: it needs the lab
(.ci/mail-lab start) and waits for delivery, which is asynchronous."""

from __future__ import annotations

import time
import uuid

import pytest
from mail_support import run

pytestmark = pytest.mark.slow

ACTIONS = ["B@e1", "B@d8", "G@b1", "G@g8", "G@f2", "G@a7"]      # Ana, Bo, Ana, ...
DELIVERY_LIMIT = 60.0       # seconds to wait for a message to reach a Maildir


def sender_env(lab, user, config) -> dict:
    config.write_text(f"[smtp]\nhost = {lab.host}\nport = {lab.smtp['submission']}\n"
                      f"security = starttls\ncafile = {lab.cafile}\nuser = {user.name}\n"
                      f"from = {user.address}\n", encoding="utf-8")
    return {"TOMIS_MAIL_CONFIG": str(config), "TOMIS_SMTP_PASSWORD": user.password,
            "TOMIS_IMAP_PASSWORD": user.password, "TOMIS_IMAP_CAFILE": lab.cafile,
            **{f"TOMIS_SMTP_{name}": None for name in
               ("HOST", "PORT", "USER", "FROM", "STARTTLS", "SECURITY", "CAFILE", "SENDMAIL")}}


def delivered(user, known: set) -> bytes:
    """The next message to arrive in the user's Maildir (one not in ``known``)."""
    deadline = time.monotonic() + DELIVERY_LIMIT
    while time.monotonic() < deadline:
        for folder in ("new", "cur"):
            for path in sorted((user.maildir / folder).iterdir()):
                if path.name not in known:
                    known.add(path.name)
                    return path.read_bytes()
        time.sleep(0.2)
    raise AssertionError(f"nothing reached {user.maildir} within {DELIVERY_LIMIT:g} s")


def maildir_names(user) -> set:
    return {path.name for folder in ("new", "cur") for path in (user.maildir / folder).iterdir()}


def test_a_whole_game_through_postfix_and_dovecot(mail_lab, tmp_path):
    ana, bo = mail_lab.users["ana"], mail_lab.users["bo"]
    players = {"ana": (ana, tmp_path / "ana", "white"), "bo": (bo, tmp_path / "bo", "black")}
    envs = {}
    for name, (user, folder, _side) in players.items():
        folder.mkdir()
        envs[name] = sender_env(mail_lab, user, folder / "mail.ini")
    known = {name: maildir_names(user) for name, (user, _f, _s) in players.items()}
    event = f"Lab {uuid.uuid4().hex[:12]}"         # tells this game from earlier runs'
    first = players["ana"][1] / "ladder.tgn"
    assert run("new", first, "--white", "Ana", "--black", "Bo", "--event", event).exit_code == 0

    for number, action in enumerate(ACTIONS, 1):
        mover, receiver = ("ana", "bo") if number % 2 else ("bo", "ana")
        user, folder, side = players[mover]
        extra = ["--to", players[receiver][0].address] if number == 1 else []
        moved = run("move", folder / "ladder.tgn", action, "--as", side, "--send", *extra,
                    env=envs[mover])
        assert moved.exit_code == 0, moved.stderr
        assert f"sent to {players[receiver][0].address}" in moved.stderr
        message = delivered(players[receiver][0], known[receiver])
        target = players[receiver][1] / "ladder.tgn"
        if number == 4:
            # Once over IMAP: Ana finds the game with inbox and takes its record with extract.
            target.write_text(_record_over_imap(mail_lab, ana, event, envs["ana"]),
                              encoding="utf-8")
        else:
            target.write_bytes(message)          # "Save as" over the player's record
        shown = run("extract", target, env=envs[receiver])
        assert shown.exit_code == 0, shown.stderr
        assert " ".join(ACTIONS[:number]) in _movetext(shown.stdout), (number, shown.stdout)

    final = run("validate", players["bo"][1] / "ladder.tgn")
    assert final.exit_code == 0, final.stderr


def _record_over_imap(lab, ana, event: str, env: dict) -> str:
    place = f"imaps://{ana.name}@{lab.host}:{lab.imap['imaps']}/INBOX"
    listed = run("inbox", place, "--me", "Ana", env=env)
    assert listed.exit_code == 0, listed.stderr
    [line] = [row for row in listed.stdout.splitlines() if f"({event})" in row]
    label = line.strip().split(": vs Bo")[0]
    assert label.startswith(f"{place} --message ")
    uid = label.rsplit(" ", 1)[1]
    extracted = run("extract", place, "--message", uid, env=env)
    assert extracted.exit_code == 0, extracted.stderr
    return extracted.stdout


def _movetext(record: str) -> str:
    """The actions of a record, numbers dropped, one space apart."""
    lines = [line for line in record.splitlines() if line and not line.startswith("[")]
    return " ".join(word for word in " ".join(lines).split()
                    if not word.endswith(".") and word != "*")
