"""What the opponent reads in the message body: the board, and for a correspondence game
the clocks and an open draw offer, in plain ASCII, so nobody needs tomis to learn them."""

from __future__ import annotations

import email
import email.policy

from mail_support import run

ENV = {"TOMIS_SMTP_FROM": "ana@example.org", "TOMIS_MAIL_CONFIG": "/nonexistent/mail.ini"}


def body_of(path) -> str:
    message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
    return message.get_body(("plain",)).get_content().replace("\r\n", "\n")


def test_the_body_shows_the_clocks_and_the_draw_offer(tmp_path):
    game = tmp_path / "cup.tgn"
    assert run("new", game, "--white", "Ana", "--black", "Bo", "--time-control", "30d+3d",
               "--time", "2026-11-22T10:00Z").exit_code == 0
    out = tmp_path / "sent.eml"
    result = run("move", game, "B@e1", "--time", "2026-11-23T09:30Z", "--offer-draw",
                 "--mail", out, "--to", "bo@example.net", env=ENV)
    assert result.exit_code == 0, result.stderr
    body = body_of(out)
    assert body.isascii()
    assert ("Clocks (30d+3d) after action 1:\n"
            "  White: 32d 30m left\n"          # 30d, less 23h 30m used, plus 3d
            "  Black: 30d left\n"
            "  Black is to act; its time runs out at 2026-12-23T09:30Z\n"
            "White offers a draw with this action (=); any action declines it.\n"
            "Black accepts with: tomis draw FILE --accept --as black\n") in body
    # The next action declines the offer: the reply's body no longer shows one.
    reply = tmp_path / "reply.eml"
    answered = run("move", game, "B@d8", "--time", "2026-11-24T09:30Z", "--mail", reply,
                   env={**ENV, "TOMIS_SMTP_FROM": "bo@example.net"})
    assert answered.exit_code == 0, answered.stderr
    assert "offers a draw" not in body_of(reply)
    assert "  Black: 32d left\n" in body_of(reply)


def test_a_game_without_a_time_control_shows_no_clock(tmp_path):
    game = tmp_path / "ladder.tgn"
    assert run("new", game, "--white", "Ana", "--black", "Bo").exit_code == 0
    out = tmp_path / "sent.eml"
    result = run("move", game, "B@e1", "--mail", out, "--to", "bo@example.net", env=ENV)
    assert result.exit_code == 0, result.stderr
    body = body_of(out)
    assert "Clocks" not in body and "offers a draw" not in body
    assert "Action 2: Black to act" in body
