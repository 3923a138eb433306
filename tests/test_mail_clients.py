"""Every reading command on messages shaped as mail programs write them (issue 25):
mutt, neomutt flowed, s-nail quoted-printable, GNU mail base64, Thunderbird forward as
attachment, Outlook and Gmail HTML-only replies (tests/mail_clients.py), each saved as a
file and as a message of an mbox. The game has a clock and an open draw offer, so clock
and draw read it too."""

from __future__ import annotations

import json
from pathlib import Path

import mail_clients as clients
import pytest
from mail_support import make_mbox, run


@pytest.fixture(scope="module")
def stages(tmp_path_factory) -> tuple[str, str]:
    """(old, new): Zoë's record after action 2, and Bo's after action 3 with a draw offer."""
    folder = tmp_path_factory.mktemp("stages")
    game = folder / "c.tgn"
    assert run("new", game, "--white", "Zoë", "--black", "Bo", "--event", "Club ladder",
               "--date", "2026.11.20", "--time-control", "30d+3d",
               "--time", "2026-11-20T10:00Z").exit_code == 0
    assert run("move", game, "B@e1", "--time", "2026-11-20T11:00Z").exit_code == 0
    assert run("move", game, "B@d8", "--time", "2026-11-21T11:00Z").exit_code == 0
    old = game.read_text(encoding="utf-8")
    assert run("move", game, "G@b1", "--time", "2026-11-22T11:00Z", "--offer-draw").exit_code == 0
    return old, game.read_text(encoding="utf-8")


SHAPES = {
    "mutt": clients.mutt,
    "neomutt-flowed": clients.neomutt_flowed,
    "s-nail-qp": clients.snail_qp,
    "gnu-mail-base64": clients.gnu_mail_base64,
    "thunderbird-forward": lambda old, new: clients.thunderbird_forward(clients.mutt(old, new)),
    "outlook-html": clients.outlook_html,
    "gmail-html": clients.gmail_html,
}

# Each reading command, and what in its output shows it read the new record.
READERS = {
    "extract": ([], lambda out, new: out == new),
    "validate": ([], lambda out, new: out.endswith("ok, 1 game(s)\n")),
    "show": (["--json"], lambda out, new: json.loads(out)["to_move"] == "black"),
    "moves": ([], lambda out, new: out.startswith("Black to act (action 4)")),
    "replay": (["--ascii"], lambda out, new: "White played 2. G@b1 (action 3)" in out),
    "clock": (["--now", "2026-11-23T11:00Z"], lambda out, new: "Black: " in out),
    "select": (["--player", "Bo"], lambda out, new: "2. G@b1 (=)" in out),
    "stats": ([], lambda out, new: "1 game" in out),
    "dedupe": ([], lambda out, new: "2. G@b1 (=)" in out),
    "move": (["--dry-run", "G@g8", "--ascii"], lambda out, new: "Black played 2... G@g8" in out),
}


def saved(shape: str, stages, folder: Path, in_mbox: bool) -> list:
    """The message saved as a file, or as the second message of an mbox: FILE [--message]."""
    data = SHAPES[shape](*stages)
    if not in_mbox:
        path = folder / f"{shape}.eml"
        path.write_bytes(data)
        return [path]
    box = make_mbox(folder / f"{shape}.mbox", [b"From: x@example.org\nSubject: hi\n\nhello\n", data])
    return [box, "--message", "2"]


@pytest.mark.parametrize("in_mbox", [False, True], ids=["file", "mbox"])
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_reading_command_reads_the_new_record(shape, in_mbox, stages, tmp_path):
    source = saved(shape, stages, tmp_path, in_mbox)
    new = stages[1]
    for command, (options, shows) in READERS.items():
        result = run(command, *source, *options)
        assert result.exit_code == 0, (command, result.stderr)
        assert shows(result.stdout, new), (command, result.stdout)
        assert "Traceback" not in result.stderr


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_accepting_the_draw_from_the_message_writes_the_record_beside(shape, stages, tmp_path,
                                                                      monkeypatch):
    monkeypatch.chdir(tmp_path)
    box = saved(shape, stages, tmp_path, True)
    before = box[0].read_bytes()
    result = run("draw", *box, "--accept", "--as", "black")
    assert result.exit_code == 0, result.stderr
    assert "1/2-1/2" in (tmp_path / "Zoe-vs-Bo.tgn").read_text(encoding="utf-8")
    assert box[0].read_bytes() == before
