"""Issue #5: untrusted files, concurrent writers and players who cheat.

- the Digest tag: its documented serialisation, verification on reading, and the CLI
  writing it everywhere;
- the documented limits (file size, line length, comment length, actions per game);
- files that are folders, missing or huge;
- ``move --as`` and ``move --since`` (turn integrity for play by email);
- real ``tomis`` processes racing for one file, and writes that fail half way.
"""

from __future__ import annotations

import re

import errno
import hashlib
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from tomis import digest, record, safefile, textio
from tomis.cli import cli
from tomis.errors import RecordError

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
OPENING = "1. B@e1 B@d8 2. G@b1 G@g8 3. G@f2 G@a7 4. G@c3 G@e6 5. G@h4 G@d5"
TAGS = '[White "Ana"]\n[Black "Bo"]\n[Result "*"]\n[Rules "manual"]\n'
EMPTY_BOARD = "8/8/8/8/8/8/8/8 - w 1448221/1448221 - manual 1 0"


def run(*args, input=None):
    try:
        runner = CliRunner(mix_stderr=False)
    except TypeError:           # click 8.2 keeps stderr apart by itself
        runner = CliRunner()
    return runner.invoke(cli, [str(a) for a in args], input=input, catch_exceptions=False)


def tomis(*args, cwd=None, input=None) -> subprocess.CompletedProcess:
    """A real ``python -m tomis`` process."""
    return subprocess.run([sys.executable, "-m", "tomis", *map(str, args)], cwd=cwd, input=input,
                          capture_output=True, text=True, timeout=120)


def written(path: Path, moves: str) -> Path:
    """A record of ``moves`` as `tomis` writes it (with its Digest), saved at ``path``."""
    game = record.read_game(TAGS + "\n" + moves + " *\n")
    path.write_text(record.write(game, digest=True), encoding="utf-8")
    return path


# --------------------------------------------------------------------------- Digest

def test_the_digest_is_sha256_of_the_serialisation_docs_describe():
    game = record.read_game(TAGS + "\n1. B@e1 {hello} B@d8 *\n")
    documented = (f"tomis-digest 1\nrules manual\nstart {EMPTY_BOARD}\n"
                  "action B@e1\naction B@d8\nresult *\n")
    assert digest.game_digest(game) == hashlib.sha256(documented.encode()).hexdigest()[:16]


def test_names_comments_and_annotations_do_not_change_the_digest_but_actions_and_results_do():
    plain = record.read_game("1. B@e1 B@d8 *")
    dressed = record.read_game('[White "Someone"]\n\n{hi} 1. B@e1! $3 {yes} B@d8 *')
    other = record.read_game("1. B@f1 B@d8 *")
    resigned = record.read_game("1. B@e1 B@d8 0-1")
    readme = record.read_game('[Rules "readme"]\n\n1. B@e1 B@d8 *')
    assert digest.game_digest(plain) == digest.game_digest(dressed)
    others = {digest.game_digest(g) for g in (other, resigned, readme)}
    assert len(others) == 3 and digest.game_digest(plain) not in others


def written_digest(text: str) -> str:
    """The value of the Digest tag line in a written record."""
    return re.search(r'^\[Digest "([0-9a-f]+)"\]$', text, re.M).group(1)


def test_a_written_digest_reads_back_and_an_edited_past_is_refused_at_the_tag():
    text = record.write(record.read_game(TAGS + "\n" + OPENING + " *\n"), digest=True)
    assert written_digest(text) == digest.game_digest(record.read_game(text))
    edited = text.replace("G@c3", "G@d3")           # still legal, different history
    assert record.read_game(edited.replace('[Digest', '[Note')).final is not None
    with pytest.raises(RecordError) as caught:
        record.read_game(edited, "game.tgn")
    line = text.splitlines().index(next(l for l in text.splitlines() if l.startswith("[Digest"))) + 1
    assert caught.value.located() == (
        f"game.tgn:{line}:9: game 1: the Digest tag does not match the actions: "
        "the history was edited, or the file was written by hand")


def test_the_prefix_digest_of_a_longer_game_is_the_digest_that_was_sent():
    sent = record.read_game("1. B@e1 B@d8 *")
    later = record.read_game("1. B@e1 B@d8 2. G@b1 G@g8 *")
    assert digest.game_digest(later, actions=2) == digest.game_digest(sent)


def test_every_cli_write_carries_a_matching_digest(tmp_path):
    path = tmp_path / "g.tgn"
    assert run("new", path, "--white", "Ana").exit_code == 0
    assert "[Digest " in path.read_text()
    result = run("move", path, "B@e1")
    assert result.exit_code == 0
    game = record.read_game(path.read_text())
    tag = written_digest(path.read_text())
    assert tag == digest.game_digest(game)
    assert f"Digest after action 1: {tag} (keep it" in result.stdout
    loose = tmp_path / "loose.tgn"
    loose.write_text("1.B@e1   B@d8 *\n")
    assert run("fmt", loose).exit_code == 0
    assert written_digest(loose.read_text()) == digest.digest_of("manual", EMPTY_BOARD, ["B@e1", "B@d8"], "*")
    played = tmp_path / "p.tgn"
    assert run("play", played, input="B@e1\nquit\n").exit_code == 0
    assert written_digest(played.read_text()) == tag


def test_the_digest_is_checked_on_reading_but_not_kept_as_a_tag():
    text = record.write(record.read_game(TAGS + "\n" + OPENING + " *\n"))
    game = record.read_game(text)
    assert "Digest" not in game.tags
    assert record.read_game(record.write(game)) == game


# --------------------------------------------------------------------------- limits

def test_a_comment_of_max_comment_characters_is_kept_and_one_more_is_refused():
    body = ("x" * 99 + "\n") * (textio.MAX_COMMENT // 100)
    assert len(body) == textio.MAX_COMMENT
    assert record.read_game("1. B@e1 {" + body + "} *").nodes[0].comments
    with pytest.raises(RecordError) as caught:
        record.read_game("1. B@e1 {" + body + "y} *", "c.tgn")
    assert caught.value.located() == (
        "c.tgn:1:9: game 1: this comment holds 10,001 characters; a comment may hold at most "
        "10,000 (MAX_COMMENT)")


def _action_lines(count: int) -> str:
    words = ["B@e1"] * count
    return "\n".join(" ".join(words[i:i + 1000]) for i in range(0, count, 1000))


def test_more_than_max_actions_is_refused_at_the_first_extra_action(monkeypatch):
    # No legal game gets near 20,000 actions (R22 draws after 100 quiet ones), so the
    # limit is shown with a small stand-in value.
    monkeypatch.setattr(record, "MAX_ACTIONS_PER_GAME", 3)
    with pytest.raises(RecordError) as caught:
        record.read_game("1. B@e1 B@d8 2. G@b1 G@g8 *", "big.tgn")
    assert caught.value.located() == (
        "big.tgn:1:22: game 1, action 4: a game may hold at most 3 actions "
        "(MAX_ACTIONS_PER_GAME); no real game comes near that")


def test_more_than_max_tokens_is_refused_while_lexing_at_the_first_extra_token():
    # Millions of empty comments once cost a minute and 1.6 GB; lexing now stops here.
    limit = textio.MAX_TOKENS_PER_GAME
    checked = record.read("1. B@e1 {}\n" + "{}\n" * limit + "*\n", "big.tgn")
    # Tokens 1-2 are "1." and "B@e1"; comment k stands on line k, so token limit + 1
    # is the comment on line limit - 1.
    assert checked[0].game is None
    assert checked[0].error.located() == (
        f"big.tgn:{limit - 1}:1: game 1: a game may hold at most {limit:,} tokens (actions, move "
        "numbers, comments, annotations; MAX_TOKENS_PER_GAME); this one has more")


def test_actions_inside_comments_do_not_count_towards_the_limit():
    limit = textio.MAX_ACTIONS_PER_GAME
    text = "1. B@e1 {" + _action_lines(limit + 1).replace("\n", "}\n{") + "} *\n"
    checked = record.read(text)
    assert checked[0].error is None and len(checked[0].game.nodes) == 1


def test_a_million_actions_on_one_line_is_refused_by_the_line_limit(tmp_path):
    path = tmp_path / "line.tgn"
    path.write_text("B@e1 " * 1_000_000 + "*\n")
    result = run("validate", path)
    assert (result.exit_code, result.stderr) == (2, (
        f"{path}:1:10001: line 1 is longer than 10,000 characters; a game record never needs "
        "lines that long\n"))


def test_a_file_over_max_file_bytes_is_refused_without_reading_it_whole(tmp_path):
    path = tmp_path / "huge.tgn"
    with open(path, "wb") as stream:
        stream.truncate(textio.MAX_FILE_BYTES + 1)       # sparse: costs no disk
    result = run("validate", path)
    assert (result.exit_code, result.stderr) == (
        2, f"{path}: the file is larger than 16 MiB; a game record is never that big\n")


@pytest.mark.parametrize("command", [["validate"], ["show"], ["fmt"], ["move", "_", "B@e1"]])
def test_a_folder_or_a_missing_file_is_a_clear_error_not_a_traceback(tmp_path, command):
    for target in (tmp_path, tmp_path / "missing.tgn"):
        args = [str(target) if word == "_" else word for word in command]
        if "_" not in command:
            args.append(str(target))
        result = run(*args)
        assert result.exit_code == 2
        last = result.stderr.strip().splitlines()[-1]
        assert ("is a directory" in last) if target == tmp_path else \
            last == f"{target}: no such file"


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_file_is_a_clear_error(tmp_path):
    path = written(tmp_path / "g.tgn", "1. B@e1")
    path.chmod(0)
    result = run("validate", path)
    assert (result.exit_code, result.stderr) == (
        2, f"{path}: permission denied: cannot read this file\n")


# --------------------------------------------------------------------------- --as

def test_move_as_the_other_side_is_refused_and_changes_nothing(tmp_path):
    path = written(tmp_path / "g.tgn", "1. B@e1")
    before = path.read_bytes()
    result = run("move", path, "G@b1", "--as", "white")
    assert (result.exit_code, result.stderr) == (
        1, "<action>:1:1: it is Black's turn (action 2), not White's (--as white)\n")
    assert path.read_bytes() == before
    assert run("move", path, "B@d8", "--as", "black").exit_code == 0


# --------------------------------------------------------------------------- --since

@pytest.fixture
def exchange(tmp_path):
    """Ana (White) sent sent.tgn after action 3; Bo's honest reply adds action 4."""
    sent = written(tmp_path / "sent.tgn", "1. B@e1 B@d8 2. G@b1")
    reply = written(tmp_path / "reply.tgn", "1. B@e1 B@d8 2. G@b1 G@g8")
    return sent, reply


def test_an_honest_reply_passes_since(exchange):
    sent, reply = exchange
    result = run("move", reply, "G@f2", "--as", "white", "--since", sent)
    assert result.exit_code == 0, result.stderr
    assert len(record.read_game(reply.read_text()).nodes) == 5


@pytest.mark.parametrize("moves, message", [
    ("1. B@f1 B@d8 2. G@b1 G@g8", "{reply}:6:4: action 1 was B@e1 in {sent} but B@f1 here"),
    ("1. B@e1 B@d8 2. G@b1", "{reply}:6:17: this record has no action after the 3 of {sent}: "
                             "it is still Black's turn (action 4)"),
    ("1. B@e1 B@d8", "{reply}:6:9: {sent} has 3 actions but this record only 2: action 3 (G@b1) "
                     "is missing"),
    ("1. B@e1 B@d8 2. G@b1 G@g8 3. G@f2", "{reply}:6:30: action 5 (White) G@f2 is new since "
                                         "{sent}, but only Black's reply may be new"),
])
def test_a_reply_that_is_not_sent_plus_one_opponent_action_is_refused(exchange, moves, message):
    sent, reply = exchange
    # Written by hand (no Digest), as a cheat would: only --since can tell.
    reply.write_text(TAGS + "\n" + moves + " *\n")
    before = reply.read_bytes()
    result = run("move", reply, "G@a7", "--since", sent)
    assert (result.exit_code, result.stderr) == (
        1, message.format(reply=reply, sent=sent) + "\n")
    assert reply.read_bytes() == before


def test_a_changed_player_name_is_named_with_its_tag(exchange):
    sent, reply = exchange
    reply.write_text(reply.read_text().replace('"Bo"', '"Boris"'))
    result = run("move", reply, "G@f2", "--since", sent)
    assert (result.exit_code, result.stderr) == (
        1, f'{reply}:2:1: the Black tag was "Bo" in {sent} but is "Boris" here\n')


def test_a_claimed_resignation_is_refused(exchange):
    sent, reply = exchange
    reply.write_text(TAGS.replace('"*"', '"0-1"') + "\n1. B@e1 B@d8 2. G@b1 G@g8 0-1\n")
    result = run("move", reply, "G@f2", "--since", sent)
    assert (result.exit_code, result.stderr) == (
        1, f"{reply}:3:1: this record ends 0-1 by resignation or agreement, which {sent} "
           "does not (R23)\n")


def test_since_reads_the_sent_copy_out_of_a_mail(exchange, tmp_path):
    sent, reply = exchange
    mail = tmp_path / "mail.txt"
    mail.write_text("Hi Bo,\n\nmy move:\n\n" + textwrap.indent(sent.read_text(), "> ") + "\nAna\n")
    result = run("move", reply, "G@f2", "--since", mail)
    assert result.exit_code == 0, result.stderr


# --------------------------------------------------------------------------- writers

LOCK_HOLDER = textwrap.dedent("""
    import sys
    from tomis import safefile
    with safefile.locked(sys.argv[1]):
        print("locked", flush=True)
        sys.stdin.read()            # hold until the test closes our stdin
""")


@pytest.fixture
def held(tmp_path):
    """A helper process holding the tomis lock on g.tgn until the test ends."""
    path = written(tmp_path / "g.tgn", "1. B@e1")
    holder = subprocess.Popen([sys.executable, "-c", LOCK_HOLDER, str(path)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline() == "locked\n"
    yield path
    holder.stdin.close()
    holder.wait(timeout=60)


@pytest.mark.parametrize("command", [["move", "_", "B@d8"], ["fmt", "_"], ["play", "_"]])
def test_a_real_second_writer_fails_clearly_and_changes_nothing(held, command):
    held.write_text("1.B@e1   *\n")          # not canonical, so fmt too has to write
    before = held.read_bytes()
    args = [str(held) if word == "_" else word for word in command]
    done = tomis(*args, input="B@d8\nquit\n")
    assert (done.returncode, done.stderr) == (
        1, f"{held}: this file is being changed by another tomis process; try again\n")
    assert held.read_bytes() == before


def test_two_real_move_processes_racing_never_both_win(tmp_path):
    # Both play White's first action, each a different one. If either read the record
    # outside the lock, both could succeed and one action would silently vanish.
    for round_ in range(6):
        path = written(tmp_path / f"race{round_}.tgn", "")
        command = [sys.executable, "-m", "tomis", "move", str(path)]
        racers = [subprocess.Popen(command + [action], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
                  for action in ("B@e1", "B@f1")]
        outcomes = [(racer.wait(timeout=120), racer.stderr.read()) for racer in racers]
        for racer in racers:
            racer.stdout.close()
            racer.stderr.close()
        codes = sorted(code for code, _ in outcomes)
        assert codes == [0, 1], outcomes
        loser = next(err for code, err in outcomes if code == 1)
        assert ("being changed by another tomis process" in loser
                or "action 2 (Black)" in loser), loser
        game = record.read_game(path.read_text())
        assert len(game.nodes) == 1


def test_a_move_whose_write_fails_leaves_the_file_as_it_was(tmp_path, monkeypatch):
    path = written(tmp_path / "g.tgn", "1. B@e1")
    before = path.read_bytes()

    def disk_full(*_args):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(safefile.os, "replace", disk_full)
    result = run("move", path, "B@d8")
    assert (result.exit_code, result.stderr) == (
        1, f"{path}: cannot save: the disk is full; the file is unchanged\n")
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.tgn"]


def test_play_save_as_never_replaces_another_file(tmp_path):
    other = written(tmp_path / "other.tgn", "1. B@e1 B@d8")
    before = other.read_bytes()
    result = run("play", input=f"B@e1\nsave {other}\nsave {tmp_path / 'new.tgn'}\nquit\n")
    assert result.exit_code == 0
    assert f"{other}: already exists; choose another name or remove it first" in result.stderr
    assert other.read_bytes() == before
    assert len(record.read_game((tmp_path / "new.tgn").read_text()).nodes) == 1
