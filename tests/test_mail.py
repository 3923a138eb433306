"""Reading records out of saved mail (tomis/mail.py), always through the CLI.

The corpus in tests/data/mail/ holds messages in the shapes Thunderbird, Gmail, Outlook,
Apple Mail and mutt save: every quoting style, every transfer encoding, declared
charsets, format=flowed, HTML-only mail, attachments, webmail debris. expected.txt has
the exact stderr of `tomis validate NAME` for each; takes.txt the record tomis takes.
"""

from __future__ import annotations

import email
import email.policy
import json
from pathlib import Path

import pytest
from conftest import corpus_expectations, validate_as_expected
from mail_support import MAIL, RECORDS, run
MESSAGES = sorted(p.name for p in MAIL.iterdir()
                  if p.suffix in (".eml", ".txt") and p.name not in ("expected.txt", "takes.txt",
                                                                       "README.txt"))


def table(name: str, columns: int) -> list[list[str]]:
    rows = []
    for line in (MAIL / name).read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            rows.append([part.strip() if i < columns - 1 else part
                         for i, part in enumerate(line.split(" | ", columns - 1))])
    return rows


EXPECTED = corpus_expectations(MAIL)     # name -> (exit code, stderr lines)
TAKES = [(source, record) for source, record in table("takes.txt", 2)]


def test_the_corpus_has_at_least_thirty_messages_each_with_an_expectation():
    assert len(MESSAGES) >= 30
    assert sorted(EXPECTED) == MESSAGES
    assert {source.split()[0] for source, _ in TAKES} <= set(MESSAGES) | {"thread.mbox", "maildir"}


@pytest.mark.parametrize("name", MESSAGES)
def test_validate_says_exactly_what_it_took_repaired_or_refused(name, monkeypatch):
    result = validate_as_expected(MAIL, name, EXPECTED[name], monkeypatch)
    if result.exit_code == 0:
        assert result.stdout == f"{name}: ok, 1 game(s)\n"


@pytest.mark.parametrize("source, expected", TAKES, ids=[s for s, _ in TAKES])
def test_extract_gives_the_record_taken(source, expected, monkeypatch):
    monkeypatch.chdir(MAIL)
    name, *options = source.split(" ", 2)
    args = ["extract", name] + (options[0:1] + [options[1]] if options else [])
    result = run(*args)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == (RECORDS / expected).read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["thread.mbox", "maildir"])
def test_a_mailbox_of_several_messages_wants_one_chosen(name, monkeypatch):
    monkeypatch.chdir(MAIL)
    count = {"thread.mbox": 3, "maildir": 2}[name]
    result = run("show", name)
    assert result.exit_code == 2
    assert result.stderr == (f"{name}: this mailbox holds {count} messages; choose one with "
                             f"--message N (1-{count}) or --message MESSAGE-ID\n")
    result = run("show", name, "--message", count + 1)
    assert result.exit_code == 2
    assert result.stderr == f"{name}: --message {count + 1}: this mailbox holds {count} message(s)\n"


def test_every_reading_command_takes_the_newest_of_a_bottom_posted_reply(tmp_path):
    """The issue's first symptom: the stale quoted record was taken, the new one dropped."""
    mail = MAIL / "paste-bottom.txt"
    moves = run("moves", mail)
    assert moves.stdout.startswith("White to act (action 3)")
    shown = run("show", mail, "--json")
    assert json.loads(shown.stdout)["to_move"] == "white"
    replay = run("replay", mail)
    assert "Black played 1... B@d8 (action 2)" in replay.stdout
    sent = tmp_path / "sent.tgn"
    sent.write_bytes((RECORDS / "ladder-1.tgn").read_bytes())
    reply = tmp_path / "reply.txt"
    reply.write_bytes(mail.read_bytes())
    moved = run("move", reply, "G@b1", "--as", "white", "--since", sent)
    assert moved.exit_code == 0, moved.stderr
    assert "1. B@e1 B@d8 2. G@b1 *" in reply.read_text(encoding="utf-8")


def test_diverging_records_are_refused_and_nothing_is_written(tmp_path):
    path = tmp_path / "reply.eml"
    path.write_bytes((MAIL / "diverging-records.eml").read_bytes())
    result = run("move", path, "G@b1")
    assert result.exit_code == 1
    assert "diverge at action 2: B@d8 at lines 38-48 but B@c8 at lines 80-90" in result.stderr
    assert path.read_bytes() == (MAIL / "diverging-records.eml").read_bytes()


def test_move_never_writes_into_a_mailbox(tmp_path, monkeypatch):
    box = tmp_path / "one.mbox"
    box.write_bytes((MAIL / "thread.mbox").read_bytes().split(b"\nFrom bo")[0] + b"\n")
    before = box.read_bytes()
    monkeypatch.chdir(tmp_path)
    result = run("move", box, "B@d8")
    assert result.exit_code == 0, result.stderr
    assert box.read_bytes() == before
    assert "Ana-vs-Bo.tgn: the new record is written here; the mailbox is left as it is" \
        in result.stderr
    piped = run("move", "-", "B@d8", input=before)
    assert piped.exit_code == 2
    assert piped.stderr == ("<stdin>: this is an mbox mailbox: name its file as FILE, not "
                            "stdin, and choose a message with --message N|ID; a record is "
                            "never written into it\n")


def test_a_plain_record_file_keeps_the_readers_own_hints():
    """Visible debris (dashes, curly quotes) is repaired only in text that came by mail;
    a hand-edited .tgn gets the reader's message, as before (tests/data/bad)."""
    bad = MAIL.parent / "bad" / "typographic-dash.tgn"
    result = run("validate", bad)
    assert result.exit_code == 1
    assert "did you mean 'Fa1-a2'?" in result.stderr
    assert "note:" not in result.stderr


def test_a_non_breaking_space_in_a_plain_record_is_repaired_with_one_note(tmp_path):
    text = (RECORDS / "ladder-2.tgn").read_text(encoding="utf-8").replace(
        "1. B@e1 B@d8", "1.\u00a0B@e1\u00a0B@d8")
    path = tmp_path / "g.tgn"
    path.write_text(text, encoding="utf-8")
    result = run("validate", path)
    assert result.exit_code == 0
    assert result.stderr == (f"{path}: note: repaired webmail debris in the record: "
                             "2 x a non-breaking space (U+00A0) read as ' '\n")


def test_a_message_on_stdin_is_read_like_a_file():
    data = (MAIL / "gmail-base64.eml").read_bytes()
    result = run("moves", "-", input=data)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("White to act (action 5)")
    assert "<stdin>: note: skipped 31 line(s) of mail text before the record" in result.stderr


# --------------------------------------------------------------------------- --mail

SENDER = {"TOMIS_SMTP_FROM": "Ana Lee <ana@example.org>", "TOMIS_MAIL_CONFIG": "/nonexistent/mail.ini"}


def parse(path: Path):
    with open(path, "rb") as stream:
        return email.message_from_binary_file(stream, policy=email.policy.default)


def test_move_mail_writes_a_message_that_reads_back_to_the_same_game(tmp_path):
    game = tmp_path / "ladder.tgn"
    game.write_bytes((MAIL / "apple-top-qp.eml").read_bytes())     # Bo's reply, as saved
    out = tmp_path / "reply.eml"
    result = run("move", game, "G@f2", "--as", "white", "--mail", out, env=SENDER)
    assert result.exit_code == 0, result.stderr
    assert f"{out}: message to bo@example.net written" in result.stderr
    message = parse(out)
    assert message["Subject"] == "Tomis: Ana vs Bo — action 5 (G@f2)"
    assert message["To"] == "bo@example.net"                    # Bo's From, remembered
    assert message["In-Reply-To"] == "<ABCD-1234@example.net>"
    assert message["References"] == "<ABCD-1234@example.net>"
    body = message.get_body(("plain",)).get_content()
    assert "White played 3. G@f2 (action 5)" in body
    assert " 2 | .     .     .     .     .     .G-   .     .     | 2" in body
    [attachment] = list(message.iter_attachments())
    assert attachment.get_filename() == "ladder.tgn"
    assert attachment.get_content() == game.read_text(encoding="utf-8")
    extracted = run("extract", out)
    assert extracted.stdout == game.read_text(encoding="utf-8")
    assert json.loads((tmp_path / "ladder.tgn.mail.json").read_text()) == {
        "to": "bo@example.net", "in_reply_to": "<ABCD-1234@example.net>",
        "references": []}
    # The address is never written into the record itself.
    assert "example" not in game.read_text(encoding="utf-8")


def test_the_remembered_address_is_used_next_time(tmp_path):
    game = tmp_path / "g.tgn"
    game.write_bytes((RECORDS / "ladder-1.tgn").read_bytes())
    first = run("move", game, "B@d8", "--mail", tmp_path / "1.eml", "--to", "ana@example.org",
                env=SENDER)
    assert first.exit_code == 0, first.stderr
    second = run("move", game, "G@b1", "--mail", tmp_path / "2.eml", env=SENDER)
    assert second.exit_code == 0, second.stderr
    assert parse(tmp_path / "2.eml")["To"] == "ana@example.org"


def test_mail_without_an_address_saves_the_move_and_says_how_to_send(tmp_path):
    game = tmp_path / "g.tgn"
    game.write_bytes((RECORDS / "ladder-1.tgn").read_bytes())
    result = run("move", game, "B@d8", "--mail", tmp_path / "out.eml", env=SENDER)
    assert result.exit_code == 1
    assert result.stderr.splitlines()[-1] == (
        f"{game}: the move is saved, but no message was written: no address to send to: "
        f"give --to ADDRESS (it is remembered for this game) -- once that is fixed: "
        f"tomis send {game} --to ADDRESS")
    assert "1. B@e1 B@d8 *" in game.read_text(encoding="utf-8")
    assert not (tmp_path / "out.eml").exists()


@pytest.mark.parametrize("options, message", [
    (["--dry-run", "--mail", "x.eml"], "--dry-run writes nothing, so it cannot go with --mail or --send"),
    (["--to", "a@b.c"], "--to is the address for --mail or --send"),
    (["--mail", "{game}"], "the message would be written over FILE, which keeps the record"),
])
def test_mail_options_that_do_not_go_together(tmp_path, options, message):
    game = tmp_path / "g.tgn"
    game.write_bytes((RECORDS / "ladder-1.tgn").read_bytes())
    result = run("move", game, "B@d8", *[o.format(game=game) for o in options])
    assert result.exit_code == 2
    assert message in result.stderr
    assert game.read_bytes() == (RECORDS / "ladder-1.tgn").read_bytes()


# --------------------------------------------------------------------------- inbox

def test_inbox_lists_the_games_waiting_for_me_oldest_first(tmp_path):
    import os

    folder = tmp_path / "games"
    folder.mkdir()
    for name in ("ladder-2.tgn", "ladder-3.tgn", "coast-3.tgn", "zoe-3.tgn"):
        (folder / name).write_bytes((RECORDS / name).read_bytes())
    (folder / "ladder-3.tgn.mail.json").write_text("{}")
    (folder / "notes.txt").write_text("nothing here")
    os.utime(folder / "coast-3.tgn", (1795336000, 1795336000))      # 2026-11-22 08:26:40 UTC
    os.utime(folder / "ladder-3.tgn", (1795377600, 1795377600))     # 2026-11-22 20:00:00 UTC
    now = ("--now", "2026-11-23T12:00:00+00:00")
    result = run("inbox", folder, "--me", "bo", *now)
    assert result.exit_code == 0, result.stderr
    # ladder-2 is an older stage of the ladder game (Ana's turn); zoe waits for Björn.
    assert result.stdout.splitlines() == [
        "2 game(s) waiting for bo, oldest first",
        f"  {folder}/coast-3.tgn: vs Ana (Club ladder of the Tomis players of the Black Sea "
        "coast, autumn season 2026), you play Black, action 4 after 3, waiting 1 d 3 h",
        f"  {folder}/ladder-3.tgn: vs Ana (Club ladder), you play Black, action 4 after 3, "
        "waiting 16 h 0 min",
    ]
    assert result.stderr == (f"{folder}: note: 1 file(s) or message(s) without a readable "
                             "record were passed over\n")
    # Once Bo's reply (4 actions) is in the folder, the ladder game waits for Ana.
    (folder / "bo-reply.eml").write_bytes((MAIL / "mutt-bottom-signed.eml").read_bytes())
    result = run("inbox", folder, "--me", "bo", *now)
    assert result.stdout.splitlines()[0] == "1 game(s) waiting for bo, oldest first"
    result = run("inbox", folder, "--me", "Ana", *now)
    assert result.stdout.splitlines()[1:] == [
        f"  {folder}/bo-reply.eml: vs Bo (Club ladder), you play White, action 5 after 4, "
        "waiting 1 d 0 h"]   # its Date: 13:00 +0100


def test_inbox_reads_an_mbox_and_a_maildir_by_their_dates():
    result = run("inbox", MAIL / "thread.mbox", "--me", "Bo", "--now", "2026-11-22T13:30:00+00:00")
    assert result.stdout.splitlines() == [
        "1 game(s) waiting for Bo, oldest first",
        f"  {MAIL}/thread.mbox --message box3@example.org: vs Ana (Club ladder), you play "
        "Black, action 4 after 3, waiting 3 h 30 min"]
    result = run("inbox", MAIL / "maildir", "--me", "ana", "--now", "2026-11-22T10:05:00Z")
    assert result.stdout.splitlines() == [
        "1 game(s) waiting for ana, oldest first",
        f"  {MAIL}/maildir --message md2@example.net: vs Bo (Club ladder), you play White, "
        "action 5 after 4, waiting 5 min"]


def test_debris_in_comments_is_text_and_stays(tmp_path):
    """Curly quotes and dashes are repaired in the notation only: a comment is free text,
    even one that runs over two lines; the action after it is repaired again."""
    record = (RECORDS / "ladder-2.tgn").read_text(encoding="utf-8")
    text = record.replace("1. B@e1 B@d8 *",
                          "1. B@e1 {Bo\u2019s \u201cgambit\u201d \u2013\nrisky} B\uff20d8 {fine} *")
    message = tmp_path / "m.eml"
    message.write_bytes(b"From: bo@example.net\nSubject: x\nContent-Type: text/plain; "
                        b"charset=utf-8\n\nHi,\n\n" + text.encode("utf-8"))
    result = run("extract", message)
    assert result.exit_code == 0, result.stderr
    assert "1. B@e1 {Bo\u2019s \u201cgambit\u201d \u2013 risky} 1... B@d8 {fine} *" in result.stdout
    assert result.stderr.splitlines()[-1].endswith(
        "repaired webmail debris in the record: 1 x a full-width '@' (U+FF20) read as '@'")


def test_a_curly_quoted_event_with_a_dash_keeps_its_dash(tmp_path):
    game = tmp_path / "g.tgn"
    assert run("new", game, "--white", "Ana", "--black", "Bo",
               "--event", "Club ladder \u2013 round 2").exit_code == 0
    text = game.read_text(encoding="utf-8").replace('"', "\u201c", 1).replace(
        '2"]', "2\u201d]", 1)
    message = tmp_path / "m.eml"
    message.write_bytes(b"From: bo@example.net\nContent-Type: text/plain; charset=utf-8\n\n"
                        + text.encode("utf-8"))
    result = run("extract", message)
    assert result.exit_code == 0, result.stderr
    assert '[Event "Club ladder \u2013 round 2"]' in result.stdout
    assert result.stderr.splitlines()[-1].endswith(
        "1 x a curly quote (U+201C) read as '\"', 1 x a curly quote (U+201D) read as '\"'")


# --------------------------------------------------------------------------- robustness

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

SEEDS = [(MAIL / name).read_bytes() for name in MESSAGES]


def mutated(data: bytes, cuts: list[tuple[int, int, bytes]]) -> bytes:
    for at, length, insert in cuts:
        at %= max(len(data), 1)
        data = data[:at] + insert + data[at + length:]
    return data


MUTATIONS = st.tuples(
    st.sampled_from(SEEDS),
    st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 40),
                       st.sampled_from([b"", b"\n", b"=", b"=\n", b"--", b">", b"\xc3", b"\xff",
                                        b"\xa0", "\u00a0".encode(), "\u201c".encode(),
                                        b"charset=x", b"boundary=", b"\r\n\r\n", b"{", b"}",
                                        b"[Event \"", b"1. ", b"From x y\n"])),
             min_size=1, max_size=6))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(MUTATIONS)
def test_a_damaged_message_gives_one_line_and_an_exit_code_never_a_traceback(tmp_path_factory, case):
    seed, cuts = case
    path = tmp_path_factory.mktemp("fuzz") / "m.eml"
    path.write_bytes(mutated(seed, cuts))
    result = run("validate", path)
    assert result.exit_code in (0, 1, 2)
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr
    for line in result.stderr.splitlines():
        assert line.startswith(f"{path}:")


@pytest.mark.slow
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(MUTATIONS)
def test_many_damaged_messages_never_break_the_reader(case):
    from tomis import sources
    from tomis.notation import record
    from tomis.errors import TomisError

    seed, cuts = case
    import tempfile
    with tempfile.NamedTemporaryFile(suffix=".eml") as handle:
        handle.write(mutated(seed, cuts))
        handle.flush()
        try:
            found = sources.read_source(handle.name)
        except TomisError:
            return
        for checked in record.read(found.text):
            if checked.error is not None:
                found.located(checked.error)


def test_the_mail_benchmark_runs_and_prints_every_figure():
    """Smoke only (never a time): bench/bench_mail.py must not rot."""
    import subprocess
    import sys

    bench = MAIL.parent.parent.parent / "bench" / "bench_mail.py"
    proc = subprocess.run([sys.executable, str(bench), "--repeat", "1", "--loops", "1",
                           "--games", "2"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    for label in ("sample ", "archive, 2 games", "non-ASCII comment", "paste-bottom.txt",
                  "import tomis.sources after tomis.notation.record"):
        assert label in proc.stdout


def test_accented_names_travel_as_7bit_quoted_printable(tmp_path):
    game = tmp_path / "zoe.tgn"
    game.write_bytes((RECORDS / "zoe-3.tgn").read_bytes())
    out = tmp_path / "out.eml"
    env = dict(SENDER, TOMIS_SMTP_FROM="Björn Åberg <bjorn@example.se>")
    result = run("move", game, "G@f8", "--mail", out, "--to", "Zoë <zoe@example.fr>", env=env)
    assert result.exit_code == 0, result.stderr
    assert out.read_bytes().isascii()          # any SMTP server takes it, 8BITMIME or not
    message = parse(out)
    assert message["To"].addresses[0].display_name == "Zoë"
    assert message["From"].addresses[0].display_name == "Björn Åberg"
    assert message["Subject"] == "Tomis: Zoë vs Björn — action 4 (G@f8)"
    assert run("extract", out).stdout == game.read_text(encoding="utf-8")


@pytest.mark.parametrize("option, value, words", [
    ("--to", "Ana <ana@", "the address to send to 'Ana <ana@' is not a list of mail addresses"),
    ("--to", "bo@example.net\nBcc: all@example.com", "the address to send to 'bo@example.net\\nBcc"),
])
def test_a_bad_address_is_refused_before_the_move(tmp_path, option, value, words):
    game = tmp_path / "g.tgn"
    before = (RECORDS / "ladder-1.tgn").read_bytes()
    game.write_bytes(before)
    result = run("move", game, "B@d8", "--mail", tmp_path / "o.eml", option, value, env=SENDER)
    assert result.exit_code == 2
    assert words in result.stderr and "--to" in result.stderr
    assert game.read_bytes() == before
    assert not (tmp_path / "o.eml").exists() and not (tmp_path / "g.tgn.mail.json").exists()


def test_a_missing_mail_folder_or_sender_is_refused_before_the_move(tmp_path):
    game = tmp_path / "g.tgn"
    before = (RECORDS / "ladder-1.tgn").read_bytes()
    game.write_bytes(before)
    nowhere = run("move", game, "B@d8", "--mail", tmp_path / "no" / "o.eml", "--to", "bo@example.net",
                  env=SENDER)
    assert nowhere.exit_code == 2 and "no folder" in nowhere.stderr
    no_sender = run("move", game, "B@d8", "--mail", tmp_path / "o.eml", "--to", "bo@example.net",
                    env={"TOMIS_SMTP_FROM": "", "TOMIS_MAIL_CONFIG": str(tmp_path / "none.ini")})
    assert no_sender.exit_code == 2 and "no sender address" in no_sender.stderr
    assert game.read_bytes() == before and not (tmp_path / "o.eml").exists()


def test_a_control_character_in_a_name_is_escaped_in_the_subject(tmp_path):
    game = tmp_path / "g.tgn"
    assert run("new", game, "--white", "A\x1db", "--black", "Bo").exit_code == 0
    out = tmp_path / "o.eml"
    result = run("move", game, "B@e1", "--mail", out, "--to", "bo@example.net", env=SENDER)
    assert result.exit_code == 0, result.stderr
    assert parse(out)["Subject"] == "Tomis: A\\x1db vs Bo — action 1 (B@e1)"


@settings(max_examples=80, deadline=None)
@given(st.text(min_size=1, max_size=40), st.text(min_size=0, max_size=40))
def test_any_names_compose_into_a_7bit_message_that_reads_back(white, sender_name):
    """Whatever the players are called, the message is built, is 7-bit, and its attachment
    is the record (or the sender is refused with a MailError, never anything else)."""
    from tomis import outgoing
    from tomis.notation import record
    from tomis.errors import TomisError

    try:
        game = record.new_record(white=white, black="Bo")
    except TomisError:
        return                  # a name the record itself refuses
    record.append(game, "B@e1")
    text = record.write(game)
    try:
        message = outgoing.compose(game, text, sender=f"{sender_name} <ana@example.org>",
                                  to="bo@example.net", attachment_name="g.tgn")
    except outgoing.MailError:
        return
    data = outgoing.message_bytes(message)
    assert data.isascii()
    back = email.message_from_bytes(data, policy=email.policy.default)
    [attachment] = list(back.iter_attachments())
    assert attachment.get_content().replace("\r\n", "\n") == text


INVISIBLE = st.sampled_from(["\u200b", "\u00ad", "\u2060", "\ufeff", "\u200c"])
SPACES = st.sampled_from(["\u00a0", "\u2009", "\u202f", "\u3000", " "])


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_invisible_debris_anywhere_in_a_mailed_record_gives_back_the_same_game(data):
    """Webmail may put zero-width characters anywhere and turn any space into a Unicode
    one: the record read back is the record sent (its Digest proves it)."""
    from tomis import sources
    from tomis.notation import record

    sent = (RECORDS / "ladder-16.tgn").read_text(encoding="utf-8")
    chars = []
    for char in sent:
        if char == " ":
            char = data.draw(SPACES)
        elif char != "\n" and data.draw(st.integers(0, 30)) == 0:
            char = data.draw(INVISIBLE) + char
        chars.append(char)
    body = "Hi Ana,\n\n" + "".join(chars)
    import tempfile
    with tempfile.NamedTemporaryFile("wb", suffix=".eml") as handle:
        handle.write(b"From: bo@example.net\nContent-Type: text/plain; charset=utf-8\n"
                     b"Content-Transfer-Encoding: 8bit\n\n" + body.encode("utf-8"))
        handle.flush()
        found = sources.read_source(handle.name)
    [checked] = record.read(found.text)
    assert checked.error is None
    assert record.write(checked.game) == sent


def test_a_joiner_inside_a_persian_name_is_kept(tmp_path):
    name = "\u0645\u0647\u0631\u200c\u0646\u0648\u0634"        # Mehr-noush, with a ZWNJ
    game = tmp_path / "g.tgn"
    assert run("new", game, "--white", name, "--black", "Bo").exit_code == 0
    message = tmp_path / "m.eml"
    message.write_bytes(b"From: bo@example.net\nContent-Type: text/plain; charset=utf-8\n\n"
                        + game.read_bytes())
    result = run("extract", message)
    assert result.exit_code == 0, result.stderr
    assert f'[White "{name}"]' in result.stdout
    assert "repaired" not in result.stderr


def full_width(char: str) -> str:
    return chr(ord(char) + 0xFEE0) if "!" <= char <= "~" else char


@settings(max_examples=60, deadline=None)
@given(st.randoms(use_true_random=False))
def test_smart_quotes_dashes_and_full_width_letters_give_back_the_same_game(rng):
    """What editors and input methods make of a pasted record: curly quotes around tag
    values, dashes for '-', full-width letters and brackets; the same record comes back."""
    from tomis import sources
    from tomis.notation import record

    sent = (RECORDS / "ladder-16.tgn").read_text(encoding="utf-8")
    lines = []
    for line in sent.split("\n"):
        if line.startswith("["):
            name, _, rest = line.partition(' "')
            opening, closing = rng.choice([("\u201c", "\u201d"), ("\u201e", "\u201c"),
                                           ('"', "\u201d"), ("\uff02", "\uff02")])
            name = "".join(full_width(c) if rng.random() < 0.2 else c for c in name)
            bracket = rng.choice(["]", "\uff3d"])
            line = f"{name} {opening}{rest[:-2]}{closing}{bracket}"
        else:
            line = "".join(rng.choice("\u2013\u2014\u2212\u2011") if c == "-" else
                           full_width(c) if c != " " and rng.random() < 0.15 else c
                           for c in line)
        lines.append(line)
    import tempfile
    with tempfile.NamedTemporaryFile("wb", suffix=".eml") as handle:
        handle.write(b"From: bo@example.net\nContent-Type: text/plain; charset=utf-8\n\nHi,\n\n"
                     + "\n".join(lines).encode("utf-8"))
        handle.flush()
        found = sources.read_source(handle.name)
    [checked] = record.read(found.text)
    assert checked.error is None
    assert record.write(checked.game) == sent
