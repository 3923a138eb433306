"""Issue 40, findings 1, 3 and 5: what reaches the referee from the mail server's command
line (every recipient, never a usage error, the message left whole when it cannot be
taken), paths kept absolute, and a store its user cannot read said for what it is.

Real processes throughout where the mail server would run one: ``deliver``'s exit code
and what it read of its standard input are what Postfix acts on."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import click
import lark
import pytest

from conftest import ROOT
from referee_support import ANA, BO, REFEREE, START, Lab, body_of, reply_to, run

from tomis.referee import process, service
from tomis.referee.inbound import read_message
from tomis.referee.store import Store

NOBODY = 65534            # the user and group nobody and nogroup of Debian's base system


def deliver_process(db, raw: bytes, *args, tmp_path: Path, user: Path | None = None,
                    cwd: Path | str = ROOT):
    """``tomis referee deliver DB ARGS`` as a real process reading ``raw`` from a file, as
    Postfix's pipe hands it a message (as another user when ``user`` is the folder
    :func:`another_user` made); the result and how many bytes of it the process read (the
    offset the child left in the file both share)."""
    message = tmp_path / f"message-{len(list(tmp_path.glob('message-*')))}.eml"
    message.write_bytes(raw)
    message.chmod(0o644)
    argv = ["referee", "deliver", *([str(db)] if db is not None else []), *map(str, args)]
    with open(message, "rb") as stdin:
        done = subprocess.run(tomis_command(argv, user), stdin=stdin, capture_output=True,
                              timeout=60, cwd=cwd, env=_environment(user))
        read = os.lseek(stdin.fileno(), 0, os.SEEK_CUR)
    return done, read


def tomis_command(args: list, user: Path | None) -> list[str]:
    """``python -m tomis ARGS``; with ``user``, as nobody, by the system's Python (the
    tests' own may sit where nobody may not go)."""
    if user is None:
        return [sys.executable, "-m", "tomis", *map(str, args)]
    return ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
            SYSTEM_PYTHON, "-m", "tomis", *map(str, args)]


def _environment(user: Path | None) -> dict:
    path = str(ROOT) if user is None else f"{ROOT}:{user}"
    return {**os.environ, "PYTHONPATH": path, "HOME": "/tmp"}


SYSTEM_PYTHON = "/usr/bin/python3"


def another_user(folder: Path) -> Path:
    """A folder the user nobody may read, holding the pure Python packages tomis needs
    (click and lark), for the system's Python run as nobody."""
    if shutil.which("setpriv") is None or not os.access(SYSTEM_PYTHON, os.X_OK):
        pytest.skip("needs setpriv and the system's Python to run as another user")
    lib = folder / "lib"
    for package in (click, lark):
        source = Path(package.__file__).parent
        shutil.copytree(source, lib / source.name)
    for place in [lib, *lib.rglob("*")]:
        place.chmod(0o755 if place.is_dir() else 0o644)
    return lib


def token_address(lab: Lab, side: int) -> str:
    return lab.last_to(side)["Reply-To"].addresses[0].addr_spec


@pytest.fixture
def lab(tmp_path):
    made = Lab(tmp_path)
    made.new_messages()
    return made


# --------------------------------------------------------------------------- finding 1

def test_deliver_takes_every_recipient_in_both_forms(lab, tmp_path):
    """The player's reply names the referee's bare address only; the reply address is
    one of several envelope recipients, as Postfix passes them with a recipient limit
    above 1 (``--recipient A B``) or as written out (``--recipient A --recipient B``)."""
    ana = reply_to(lab.last_to(0), ANA, "B@e1", to=REFEREE)
    done, _ = deliver_process(lab.db, ana, "--now", "2026-11-23T11:00Z",
                              "--recipient", REFEREE, token_address(lab, 0), tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    bo = reply_to(lab.last_to(1), BO, "B@d8", to=REFEREE)
    done, _ = deliver_process(lab.db, bo, "--now", "2026-11-23T12:00Z",
                              "--recipient", token_address(lab, 1), "--recipient", REFEREE,
                              tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    assert lab.inbox() == [("done", "action 1 (B@e1)"), ("done", "action 2 (B@d8)")]


def test_a_reply_all_delivered_twice_is_played_once(lab, tmp_path):
    """A reply-all: To the game's reply address, Cc another of the referee's addresses.
    Postfix hands it over once with both recipients, and (the recipient limit lowered,
    or the message requeued) once more; the second copy is a duplicate."""
    token = token_address(lab, 0)
    raw = reply_to(lab.last_to(0), ANA, "B@e1", headers={"Cc": REFEREE})
    first, _ = deliver_process(lab.db, raw, "--now", "2026-11-23T11:00Z",
                               "--recipient", REFEREE, token, tmp_path=tmp_path)
    second, _ = deliver_process(lab.db, raw, "--now", "2026-11-23T11:01Z",
                                "--recipient", token, "--recipient", REFEREE, tmp_path=tmp_path)
    assert (first.returncode, second.returncode) == (0, 0), (first.stderr, second.stderr)
    assert lab.inbox() == [("done", "action 1 (B@e1)")]
    assert lab.record().count("B@e1") == 1
    to_ana, to_bo = lab.new_messages()          # one update each, nothing answered twice
    assert "(action 1)" in body_of(to_ana) and "(action 1)" in body_of(to_bo)


def test_whichever_copy_comes_first_the_message_is_the_games(tmp_path):
    """Two copies, one recipient each (``tomisref_destination_recipient_limit = 1``), and
    the reply address in the envelope alone (a Bcc). The copy for the bare address names
    no game: coming first, it is refused with no answer, and the copy for the reply
    address has it decided again and played; coming second, it is a duplicate of a
    message played. Either way one action, and one update to each player."""
    for first in ("bare", "token"):
        (tmp_path / first).mkdir()
        lab = Lab(tmp_path / first)
        lab.new_messages()
        token = token_address(lab, 0)
        raw = reply_to(lab.last_to(0), ANA, "B@e1", to=REFEREE)
        copies = [REFEREE, token] if first == "bare" else [token, REFEREE]
        for minute, recipient in enumerate(copies):
            done, _ = deliver_process(lab.db, raw, "--now", f"2026-11-23T11:0{minute}Z",
                                      "--recipient", recipient, tmp_path=tmp_path / first)
            assert done.returncode == 0, done.stderr
        assert lab.inbox() == [("done", "action 1 (B@e1)")], first
        assert lab.record().count("B@e1") == 1 and len(lab.new_messages()) == 2


def test_a_copy_stored_while_the_first_is_read_is_not_lost(lab):
    """The second copy (to the reply address) is stored while another process reads the
    first (to the bare address, still undecided, so nothing is reopened): the decision,
    made after, sees the recipients both copies brought."""
    raw = reply_to(lab.last_to(0), ANA, "B@e1", to=REFEREE)
    store, config = service.connect(str(lab.db))
    with store:
        service.store_message(store, raw, False, [REFEREE], 1_795_431_600)
        claim = process._claim(store)
        incoming = read_message(claim.stored.raw, claim.stored.recipient)
        service.store_message(store, raw, False, [token_address(lab, 0)], 1_795_431_660)
        process._decide_claimed(store, config, claim.stored, incoming)
    assert lab.inbox() == [("done", "action 1 (B@e1)")]


@pytest.mark.parametrize("args", [
    ["DB", "--bogus"],                               # an option this deliver does not know
    [],                                              # no store named
    ["DB", "--now", "yesterday"],                    # a clock it cannot read
    ["DB", "--recipient"],                           # an option without its value
    ["DB", "not-an-address", "--recipient", REFEREE],   # an argument too many
], ids=["unknown option", "no DB", "bad --now", "no value", "extra argument"])
def test_a_command_line_deliver_cannot_read_is_75_and_the_message_stays_unread(
        lab, tmp_path, args):
    raw = reply_to(lab.last_to(0), ANA, "B@e1")
    args = [str(lab.db) if arg == "DB" else arg for arg in args]
    done, read = deliver_process(None, raw, *args, tmp_path=tmp_path)
    assert done.returncode == 75, (done.returncode, done.stderr)
    said = done.stderr.decode().splitlines()
    assert len(said) == 1 and said[0].startswith("tomis referee deliver: not stored, try again")
    assert "Usage" not in said[0] and "Traceback" not in said[0]
    assert read == 0 and done.stdout == b""        # not a byte taken: Postfix keeps it whole
    assert lab.inbox() == []


def test_a_store_deliver_cannot_open_leaves_the_message_unread(lab, tmp_path):
    raw = reply_to(lab.last_to(0), ANA, "B@e1")
    done, read = deliver_process(tmp_path / "missing.db", raw, tmp_path=tmp_path)
    assert done.returncode == 75 and read == 0
    assert done.stderr.decode().count("\n") == 1 and "missing.db: no such store" in \
        done.stderr.decode()


# --------------------------------------------------------------------------- finding 3

def _fake_sendmail(folder: Path) -> Path:
    """A sendmail that keeps each message beside itself, in ``sent/``."""
    program = folder / "bin" / "fake-sendmail"
    program.parent.mkdir()
    (folder / "sent").mkdir()
    program.write_text('#!/bin/sh\ncat > "$(dirname "$0")/../sent/$$.eml"\n', encoding="utf-8")
    program.chmod(0o755)
    return program


def test_init_keeps_its_paths_absolute_for_commands_run_elsewhere(tmp_path):
    """init runs in the club's folder with relative paths; later commands run in another
    (as deliver runs in the mail server's): mail still leaves by what init was given."""
    club, elsewhere = tmp_path / "club", tmp_path / "elsewhere"
    for folder in (club, elsewhere):
        folder.mkdir()
    (club / "out").mkdir()
    (club / "mail.ini").write_text("[smtp]\nhost = localhost\n", encoding="utf-8")
    _fake_sendmail(club)
    for name, send_by in (("out.db", "outbox:out"), ("sm.db", "sendmail:bin/fake-sendmail")):
        made = subprocess.run([sys.executable, "-m", "tomis", "referee", "init", name,
                               "--address", REFEREE, "--send-by", send_by, "--config",
                               "mail.ini"], cwd=club, capture_output=True, timeout=60,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert made.returncode == 0, made.stderr
        with Store.open(str(club / name)) as store:
            kept = store.settings()
        kind, _, where = send_by.partition(":")
        assert kept["send_by"] == f"{kind}:{club / where}"
        assert kept["config"] == str(club / "mail.ini")
        started = subprocess.run([sys.executable, "-m", "tomis", "referee", "new",
                                  str(club / name), "--white", ANA, "--black", BO, "--now",
                                  START], cwd=elsewhere, capture_output=True, timeout=60,
                                 env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert started.returncode == 0 and b"not sent" not in started.stderr, started.stderr
    assert len(list((club / "out").glob("*.eml"))) == 2
    assert len(list((club / "sent").glob("*.eml"))) == 2
    assert list(elsewhere.iterdir()) == []


def test_a_relative_path_kept_by_an_older_store_is_taken_in_the_stores_folder(tmp_path):
    """A store made before init made its paths absolute holds ``outbox:out``: that is the
    folder beside the store, whichever folder the command runs in."""
    club, elsewhere = tmp_path / "club", tmp_path / "elsewhere"
    for folder in (club, elsewhere, club / "out"):
        folder.mkdir()
    Store.create(str(club / "old.db"), {"address": REFEREE, "name": "Club Referee",
                                         "send_by": "outbox:out", "secret": "ab" * 32})
    started = subprocess.run([sys.executable, "-m", "tomis", "referee", "new",
                              str(club / "old.db"), "--white", ANA, "--black", BO, "--now",
                              START], cwd=elsewhere, capture_output=True, timeout=60,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert started.returncode == 0 and b"not sent" not in started.stderr, started.stderr
    assert len(list((club / "out").glob("*.eml"))) == 2 and list(elsewhere.iterdir()) == []


# --------------------------------------------------------------------------- finding 5

@pytest.fixture
def open_folder():
    """A folder anyone may enter (a test's own tmp_path is inside root's private one)."""
    folder = Path(tempfile.mkdtemp(prefix="tomis-in-", dir="/tmp"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder)


def _store_of_another(folder: Path) -> tuple[Path, Path | None, str]:
    """A store its user may not read: run as nobody when the tests run as root (root
    reads everything), else the store's mode taken away from its owner. The store, the
    library folder of the user that runs the command (None: this one), and the owner the
    error should name."""
    db = folder / "club.db"
    assert run("referee", "init", db, "--address", REFEREE, "--send-by",
               f"outbox:{folder}").exit_code == 0
    owner = pwd.getpwuid(os.getuid()).pw_name
    if os.getuid() == 0:
        return db, another_user(folder), owner
    db.chmod(0)
    return db, None, owner


def test_a_store_its_user_may_not_read_says_whose_it_is(open_folder):
    db, user, owner = _store_of_another(open_folder)
    mode = f"{db.stat().st_mode & 0o7777:04o}"
    listed = subprocess.run(tomis_command(["referee", "games", db], user), capture_output=True,
                            timeout=60, cwd="/tmp", env=_environment(user))
    said = listed.stderr.decode().splitlines()
    assert listed.returncode == 1 and len(said) == 1, listed.stderr
    assert said[0].startswith(f"{db}: cannot read and write the store")
    assert f"belongs to {owner} (mode {mode})" in said[0] and "no such store" not in said[0]
    done, read = deliver_process(db, b"Subject: hi\n\nB@e1\n", tmp_path=open_folder,
                                 user=user, cwd="/tmp")
    assert done.returncode == 75 and read == 0, done.stderr
    assert f"belongs to {owner} (mode {mode})" in done.stderr.decode()


@pytest.mark.skipif(os.getuid() != 0, reason="needs another user to be shut out of a folder")
def test_a_store_in_a_folder_its_user_may_not_enter_names_that_folder(open_folder):
    shut = open_folder / "private"
    shut.mkdir(mode=0o700)
    assert run("referee", "init", shut / "club.db", "--address", REFEREE, "--send-by",
               f"outbox:{shut}").exit_code == 0
    user = another_user(open_folder)
    listed = subprocess.run(tomis_command(["referee", "games", shut / "club.db"], user),
                            capture_output=True, timeout=60, cwd="/tmp",
                            env=_environment(user))
    said = listed.stderr.decode()
    assert listed.returncode == 1 and said.count("\n") == 1, said
    assert f"its folder {shut} belongs to root (mode 0700)" in said
    assert "no such store" not in said


@pytest.mark.skipif(os.getuid() != 0, reason="needs another user to be shut out of a folder")
def test_a_store_in_a_folder_its_user_may_not_write_names_that_folder(open_folder):
    """The store may be read and written, but SQLite's -wal and -shm files beside it may
    not be made: the folder is named, with its owner and mode."""
    db = open_folder / "club.db"
    assert run("referee", "init", db, "--address", REFEREE, "--send-by",
               f"outbox:{open_folder}").exit_code == 0
    db.chmod(0o666)
    user = another_user(open_folder)
    listed = subprocess.run(tomis_command(["referee", "games", db], user), capture_output=True,
                            timeout=60, cwd="/tmp", env=_environment(user))
    said = listed.stderr.decode()
    assert listed.returncode == 1 and said.count("\n") == 1, said
    assert said.startswith(f"{db}: cannot open the store")
    assert f"its folder {open_folder} belongs to root (mode 0755)" in said


@pytest.mark.parametrize("args", [
    ["show", "DB", "7"], ["export", "DB", "7"], ["resend", "DB", "7"],
    ["abort", "DB", "7", "--reason", "gone"], ["adjudicate", "DB", "7", "1-0", "--reason", "x"],
    ["address", "DB", "7", "white", "Cy <cy@c.test>"], ["games", "MISSING"],
    ["outbox", "MISSING"], ["new", "MISSING", "--white", ANA, "--black", BO],
    ["new", "DB", "--white", ANA, "--black", ANA],
])
def test_organiser_errors_name_the_store_not_input(lab, tmp_path, args):
    store = {"DB": str(lab.db), "MISSING": str(tmp_path / "missing.db")}
    result = run("referee", *[store.get(arg, arg) for arg in args])
    said = result.stderr.splitlines()
    assert result.exit_code == 1 and len(said) == 1, result.output
    assert said[0].startswith(f"{store[args[1]]}: ") and "<input>" not in said[0]
