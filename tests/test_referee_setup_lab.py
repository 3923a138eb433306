"""docs/REFEREE.md's "A club's host, step by step", followed literally on the mail lab's
postfix (.ci/mail-lab start; issue 40's "Done when"): the blocks marked for it are read out
of the doc, the club's names replaced by the lab's (the doc's last step of that section
lists what is replaced and why), and run as root; then a game is played through postfix:
a move, a reply-all to the reply address with the opponent and the referee's own address
in Cc (two recipients of the pipe: one action, the other copy a duplicate), a copy sent in
Cc to the reply address, sent twice (one action), the cron and timer commands, and a bounce
of a player's address, which the organiser's report names.

And the doc's unit for ``run``: under ``setpriv --no-new-privs`` (what NoNewPrivileges
does) postfix's sendmail cannot send, and the referee says so within its timeout and
leaves no postdrop behind; as the unit is written (its user, no no-new-privs) a message
leaves through postfix.

Everything postfix is given has names of this test's own and is taken away at the end;
the lab's own `tomisref` service and map are left as they were.
Slow: a virtual environment is installed and delivery is asynchronous.
"""

from __future__ import annotations

import json
import os
import pwd
import re
import shlex
import shutil
import signal
import smtplib
import sqlite3
import subprocess
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

import recipe_blocks as recipe
from conftest import ROOT
from mail_lab import Lab, read_lab
from referee_support import reply_to
from test_referee_mail_lab import DELIVERY_LIMIT, Players
from test_referee_run import running, stop

pytestmark = pytest.mark.slow

LAB_DOMAIN = "tomis.test"
SERVICE = "tomisrecipe"              # the lab runs a `tomisref` of its own
POSTFIX_LOG = Path("/var/log/postfix.log")


# ------------------------------------------------------------------ the lab, this module

@pytest.fixture(scope="module")
def lab() -> Lab:
    """The mail_lab fixture's Lab, once for the module (the recipe is applied once)."""
    found = read_lab()
    if os.geteuid() != 0:
        message = "the recipe is run as root, as the doc says"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found


@dataclass(frozen=True)
class Names:
    """The lab's names for the club's, for one run."""
    tag: str

    @property
    def user(self) -> str:
        return f"tomis{self.tag}"

    @property
    def opt(self) -> str:
        return f"/opt/tomis-lab-{self.tag}"

    @property
    def bin(self) -> str:
        return f"/opt/tomis-lab-{self.tag}-bin"

    @property
    def var(self) -> str:
        return f"/var/lib/tomis-lab-{self.tag}"

    @property
    def www(self) -> str:
        return f"/var/lib/tomis-lab-{self.tag}-www"

    @property
    def transport(self) -> str:
        return f"/etc/postfix/tomis-lab-{self.tag}-transport"

    @property
    def local(self) -> str:
        return f"recipe{self.tag}"

    @property
    def address(self) -> str:
        return f"{self.local}@{LAB_DOMAIN}"

    @property
    def store(self) -> str:
        return f"{self.var}/club.db"

    def replace(self, text: str) -> str:
        """The club's names in ``text`` made the lab's, in one pass (no replacement is
        read again)."""
        paths = {"/usr/local/src/tomis": str(ROOT), "/opt/tomis": self.opt,
                 "/usr/local/bin": self.bin, "/var/lib/tomis": self.var,
                 "/var/www/club": self.www, "/etc/postfix/transport": self.transport,
                 "referee@club.example": self.address,
                 "organiser@club.example": f"referee@{LAB_DOMAIN}",
                 "club.example": LAB_DOMAIN, "tomisref": SERVICE}
        pattern = "|".join(re.escape(key) for key in sorted(paths, key=len, reverse=True))
        text = re.sub(pattern, lambda match: paths[match.group(0)], text)
        # The service user: `tomis` as a word of its own (user=tomis, -u tomis, -o tomis,
        # cron's user field, User=tomis, the alias), never the command `tomis referee`.
        text = re.sub(r"(?<=[\s=])tomis(?=\s|$)(?!\s+referee\b)", self.user, text,
                      flags=re.MULTILINE)
        text = re.sub(r"^(\s*)referee:", rf"\g<1>{self.local}:", text, flags=re.MULTILINE)
        text = re.sub(r"\bsudo -u (\S+) ", r"runuser -u \1 -- ", text)
        return re.sub(r"(?m)^python3 -m venv ", "/usr/bin/python3 -m venv ", text)


def shell(line: str, names: Names, check: bool = True) -> subprocess.CompletedProcess:
    """One command line of the doc, as root's shell runs it (the link folder first on PATH,
    as /usr/local/bin is)."""
    env = {"PATH": f"{names.bin}:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8",
           "HOME": "/root"}
    done = subprocess.run(["/bin/sh", "-ec", line], capture_output=True, text=True, env=env,
                          cwd="/", timeout=300)
    if check:
        assert done.returncode == 0, f"{line}\n{done.stdout}{done.stderr}"
    return done


def as_user(names: Names, *args, check=True, no_new_privs=False, timeout=300):
    """``tomis ARGS`` through the link, as the service user (setpriv: the user, its groups,
    and no-new-privs when asked, as systemd's User= and NoNewPrivileges= do)."""
    command = ["setpriv", f"--reuid={names.user}", f"--regid={names.user}", "--init-groups"]
    if no_new_privs:
        command.append("--no-new-privs")
    command += [f"{names.bin}/tomis", *map(str, args)]
    done = subprocess.run(command, capture_output=True, text=True, cwd="/", timeout=timeout,
                          env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
    if check:
        assert done.returncode == 0, f"{args}\n{done.stdout}{done.stderr}"
    return done


def postconf(*args) -> str:
    return subprocess.run(["postconf", *args], capture_output=True, text=True,
                          check=True).stdout.strip()


def rcpt_answer(lab: Lab, address: str) -> int:
    with smtplib.SMTP(lab.host, lab.smtp["relay"], timeout=30) as smtp:
        smtp.ehlo()
        smtp.mail(f"ana@{LAB_DOMAIN}")
        code, _ = smtp.rcpt(address)
        smtp.rset()
    return code


class Recipe:
    """What the doc's blocks did to the host, to be undone."""

    def __init__(self, names: Names):
        self.names = names
        self.transport_maps = postconf("-h", "transport_maps")
        self.aliases = Path("/etc/aliases").read_text(encoding="utf-8")
        self.done: list[str] = []

    def install(self) -> None:
        lines = recipe.commands(recipe.block("install"))
        assert lines[0].startswith("apt-get install ") and "python3-venv" in lines[0]
        for line in lines[1:]:
            Path(self.names.bin).mkdir(exist_ok=True)   # /usr/local/bin is always there
            shell(self.names.replace(line), self.names)
        self.done.append("install")

    def service_user(self) -> None:
        self.done.append("user")
        for line in recipe.commands(recipe.block("user")):
            shell(self.names.replace(line), self.names)

    def postfix_without_alias(self) -> None:
        names = self.names
        self.done.append("postfix")
        service = names.replace(" ".join(recipe.block("master.cf").split()))
        postconf("-M", f"{SERVICE}/unix={service}")
        for key, value in recipe.main_cf(names.replace(recipe.block("main.cf"))).items():
            if key == "transport_maps":             # added to the lab's, not instead
                postconf("-e", f"transport_maps = {self.transport_maps}, {value}")
            elif key == "recipient_delimiter":      # the lab's own already
                assert postconf("-h", key) == value
            else:
                assert key.startswith(SERVICE + "_"), key
                postconf("-e", f"{key} = {value}")
        Path(names.transport).write_text(names.replace(recipe.block("transport")),
                                         encoding="utf-8")
        for line in recipe.commands(recipe.block("postfix-commands")):
            if line != "newaliases":
                shell(names.replace(line), names)

    def alias(self) -> None:
        self.done.append("alias")
        with open("/etc/aliases", "a", encoding="utf-8") as aliases:
            aliases.write(self.names.replace(recipe.block("aliases")))
        for line in recipe.commands(recipe.block("postfix-commands")):
            if line != recipe.commands(recipe.block("postfix-commands"))[0]:   # postmap done
                shell(self.names.replace(line), self.names)

    def undo(self) -> None:
        names = self.names
        if "alias" in self.done:
            Path("/etc/aliases").write_text(self.aliases, encoding="utf-8")
            subprocess.run(["newaliases"], check=False)
        if "postfix" in self.done:
            subprocess.run(["postconf", "-MX", f"{SERVICE}/unix"], check=False)
            subprocess.run(["postconf", "-X", f"{SERVICE}_destination_recipient_limit"],
                           check=False)
            subprocess.run(["postconf", "-e", f"transport_maps = {self.transport_maps}"],
                           check=False)
            for path in (names.transport, names.transport + ".db"):
                Path(path).unlink(missing_ok=True)
            subprocess.run(["postfix", "reload"], capture_output=True, check=False)
        if "user" in self.done:
            subprocess.run(["pkill", "-KILL", "-u", names.user], check=False)
            subprocess.run(["userdel", names.user], capture_output=True, check=False)
        for path in (names.opt, names.bin, names.var, names.www):
            shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def host(lab):
    """The doc's steps 1 to 4 done on the lab: tomis installed, the service user, postfix's
    pipe, limit and map, and the alias (postfix answering 550 before it, 250 after)."""
    names = Names(uuid.uuid4().hex[:6])
    done = Recipe(names)
    try:
        done.install()
        done.service_user()
        done.postfix_without_alias()
        assert rcpt_answer(lab, names.address) == 550    # the transport map alone: unknown
        done.alias()
        assert rcpt_answer(lab, names.address) == 250
        assert rcpt_answer(lab, f"{names.local}+anything@{LAB_DOMAIN}") == 250
        for line in recipe.commands(recipe.block("init")):
            shell(names.replace(line), names)
        yield names
    finally:
        done.undo()


# ------------------------------------------------------------------ seeing it through

def send(lab: Lab, sender: str, recipients: list[str], raw: bytes) -> str:
    """``raw`` through postfix's SMTP service; postfix's queue id of it."""
    with smtplib.SMTP(lab.host, lab.smtp["relay"], timeout=30) as smtp:
        smtp.ehlo()
        smtp.mail(sender)
        for address in recipients:
            code, said = smtp.rcpt(address)
            assert code == 250, (address, code, said)
        code, said = smtp.data(raw)
    assert code == 250, said
    return said.decode().rpartition(" ")[2]


def deliveries(queue_id: str, count: int) -> list[str]:
    """The first ``count`` final delivery lines of ``queue_id`` in postfix's log."""
    deadline = time.monotonic() + DELIVERY_LIMIT
    while time.monotonic() < deadline:
        lines = [line for line in POSTFIX_LOG.read_text(errors="replace").splitlines()
                 if f" {queue_id}: to=<" in line and " status=" in line]
        if len(lines) >= count:
            return lines
        time.sleep(0.2)
    raise AssertionError(f"postfix did not deliver {queue_id} {count} times")


def store_rows(names: Names, sql: str) -> list:
    with sqlite3.connect(f"file:{names.store}?mode=ro", uri=True) as connection:
        return connection.execute(sql).fetchall()


def game_row(names: Names, game: int) -> dict:
    rows = [json.loads(line) for line in
            as_user(names, "referee", "games", names.store, "--all", "--json").stdout.splitlines()]
    return next(row for row in rows if row["number"] == game)


def sent_count(names: Names) -> int:
    return store_rows(names, "SELECT COUNT(*) FROM outbox")[0][0]


def test_the_recipe_plays_a_move_a_reply_all_and_a_copy_through_postfix(lab, host):
    names = host
    players = Players(lab)
    game = int(as_user(names, "referee", "new", names.store, "--white", players.option(0),
                       "--black", players.option(1), "--time-control", "30d+3d").stdout)
    host_, port = lab.host, lab.smtp["relay"]
    ana, bo = (user.address for user in players.users)

    # A move: Ana answers the referee's letter.
    begins = [players.wait(side, "the game begins") for side in (0, 1)]
    players.reply(0, begins[0], "B@e1", host_, port)
    moved = [players.wait(side, "action 1 (B@e1)") for side in (0, 1)]

    # A reply-all: to Bo's reply address, Ana and the referee's own address in Cc. Two
    # recipients of the pipe in one message: each a deliver of its own, neither bounced.
    reply_address = moved[1]["Reply-To"].addresses[0].addr_spec
    raw = reply_to(moved[1], players.option(1), "B@d8", headers={"Cc": f"{ana}, {names.address}"})
    queue_id = send(lab, bo, [reply_address, ana, names.address], raw)
    lines = deliveries(queue_id, 3)
    assert all("status=sent" in line for line in lines), lines
    assert sum(f"relay={SERVICE}" in line for line in lines) == 2, lines
    replied = [players.wait(side, "action 2 (B@d8)") for side in (0, 1)]
    assert game_row(names, game)["actions"] == 2

    # A copy: Ana writes to Bo, her reply address in Cc; her mail program sends it twice.
    her_address = replied[0]["Reply-To"].addresses[0].addr_spec
    copy = reply_to(replied[0], players.option(0), "G@b1", to=bo, headers={"Cc": her_address})
    lines = deliveries(send(lab, ana, [bo, her_address], copy), 2)
    assert all("status=sent" in line for line in lines), lines
    [players.wait(side, "action 3 (G@b1)") for side in (0, 1)]
    before = sent_count(names)
    again = deliveries(send(lab, ana, [her_address], copy), 1)
    # deliver has stored and decided the copy once postfix logs it sent: nothing new.
    assert "status=sent" in again[0] and f"relay={SERVICE}" in again[0], again
    assert game_row(names, game)["actions"] == 3
    assert sent_count(names) == before

    # Step 6: the cron lines and the timer's service, each as the user they name.
    for line in recipe.cron_lines(names.replace(recipe.block("cron"))):
        assert line.user == names.user
        done = as_user(names, *shlex.split(line.command)[1:], check=False)
        assert done.returncode == 0, (line.command, done.stderr)
    unit = recipe.unit(names.replace(recipe.block("tomis-tick.service")))
    assert unit.one("Service", "User") == names.user
    for start in unit.get("Service", "ExecStart"):
        assert as_user(names, *shlex.split(start)[1:]).returncode == 0
    assert "G@b1" in Path(names.www, f"game-{game}.html").read_text(encoding="utf-8")


# ------------------------------------------------------------------ run's unit

def postdrops_of(user: str) -> list[int]:
    """The postdrop processes of ``user`` still running (a zombie is not running)."""
    uid, found = pwd.getpwnam(user).pw_uid, []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            owner = (entry / "status").read_text().split("\nUid:")[1].split()[0]
        except (OSError, IndexError):
            continue
        name, state = stat[stat.index("(") + 1:stat.rindex(")")], stat.rpartition(")")[2].split()[0]
        if name == "postdrop" and int(owner) == uid and state not in ("Z", "X"):
            found.append(int(entry.name))
    return found


def test_the_run_unit_sends_where_no_new_privs_cannot(lab, host):
    names = host
    players = Players(lab)
    referee = lab.users["referee"]           # dovecot serves its mailbox over IMAP
    stuck, store = f"{names.var}/stuck.db", f"{names.var}/unit.db"
    for path in (stuck, store):
        as_user(names, "referee", "init", path, "--address", referee.address,
                "--send-by", "sendmail")

    # What NoNewPrivileges does to postfix's sendmail: postdrop loses its setgid bit. The
    # referee waits a bounded time, keeps the message with what postdrop said, and leaves
    # no postdrop behind.
    started = time.monotonic()
    refused = as_user(names, "referee", "new", stuck, "--white", "Ana <ana@tomis.test>",
                      "--black", "Bo <bo@tomis.test>", no_new_privs=True, timeout=120)
    took = time.monotonic() - started
    assert refused.returncode == 0, refused.stderr      # the game is stored all the same
    assert refused.stderr.count("not sent yet (tick tries again)") == 2, refused.stderr
    assert "did not finish within 10 s" in refused.stderr
    assert "postdrop" in refused.stderr and "Permission denied" in refused.stderr, refused.stderr
    assert took < 40, took                               # two tries of 10 s, not for ever
    assert postdrops_of(names.user) == []

    # As the unit is written: its user, no no-new-privs. Its run takes Ana's answer over
    # IMAP, and its letters leave through postfix.
    as_user(names, "referee", "new", store, "--white", players.option(0),
            "--black", players.option(1))
    begins = [players.wait(side, "the game begins") for side in (0, 1)]
    unit = recipe.unit(names.replace(recipe.block("tomis-referee.service")))
    assert unit.one("Service", "User") == names.user
    start = shlex.split(recipe.systemd_unescape(unit.one("Service", "ExecStart")))
    start = [store if word == names.store else word for word in start]
    # The provider's login is the whole address; the lab's dovecot knows its user by name.
    start = [word.replace(f"{referee.address.replace('@', '%40')}@imap.provider.example",
                          f"{referee.name}@{lab.host}:{lab.imap['imaps']}") for word in start]
    assert f"{referee.name}@{lab.host}:{lab.imap['imaps']}/INBOX" in " ".join(start), start
    start[start.index("--every") + 1] = "1s"              # not a minute between rounds
    assert start[0] == f"{names.bin}/tomis" and store in start
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "TOMIS_IMAP_PASSWORD": referee.password,
           "TOMIS_IMAP_CAFILE": lab.cafile}
    log_path = Path(names.var) / "run.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(["setpriv", f"--reuid={names.user}", f"--regid={names.user}",
                                    "--init-groups", *start], stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=log, cwd="/", env=env)
    with running(process):
        players.reply(0, begins[0], "B@e1", lab.host, lab.smtp["relay"])
        try:
            for side in (0, 1):
                players.wait(side, "action 1 (B@e1)")
        except AssertionError as missing:
            raise AssertionError(f"{missing}; run said:\n{log_path.read_text()}") from None
        assert stop(process, signal.SIGTERM) == 0
    assert "done: action 1 (B@e1)" in log_path.read_text(), log_path.read_text()


# ------------------------------------------------------------------ the organiser's report

def test_a_bounce_of_a_player_s_address_is_in_the_organiser_s_report(lab, host):
    names = host
    if "alerts" not in as_user(names, "referee", "--help").stdout:
        pytest.skip("needs the `report` part of issue 40 (settings --organiser, bounces "
                    "read by deliver, alerts --json); runs once it is merged")
    for line in recipe.commands(recipe.block("organiser")):
        shell(names.replace(line), names)
    nobody = f"nobody{names.tag}@{LAB_DOMAIN}"       # no such user: postfix bounces
    game = int(as_user(names, "referee", "new", names.store, "--white",
                       f"Ana {names.tag} <{lab.users['ana'].address}>",
                       "--black", f"Nobody {names.tag} <{nobody}>").stdout)
    deadline = time.monotonic() + DELIVERY_LIMIT
    while time.monotonic() < deadline:
        bounced = json.loads(as_user(names, "referee", "alerts", names.store,
                                     "--json").stdout)["bounced"]
        if bounced:
            break
        time.sleep(0.5)
    assert [(item["address"], item["game"]) for item in bounced] == [(nobody, game)], bounced
    assert f"Nobody {names.tag}" in bounced[0]["player"], bounced
