"""The Digest tag (docs/SECURITY.md): its documented serialisation, verification on
reading, and every ``tomis`` command that writes a record writing it."""

from __future__ import annotations

import hashlib
import re

import pytest

from conftest import EMPTY_BOARD, TAGS
from conftest import invoke as run
from tomis.notation import digest, record
from tomis.errors import RecordError

OPENING = "1. B@e1 B@d8 2. G@b1 G@g8 3. G@f2 G@a7 4. G@c3 G@e6 5. G@h4 G@d5"


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




@pytest.mark.parametrize("name", ["every-action.tgn", "annotated-variations.tgn", "correspondence-cup.tgn"])
def test_reading_checks_the_digest_without_looking_through_the_comments_again(name, monkeypatch):
    # Whether the main line uses correspondence play is learnt while its comments are
    # read; the digest check must not scan them a second time to find out.
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "samples" / name).read_text(encoding="utf-8")
    assert '[Digest "' in text
    expected = [checked.game for checked in record.read(text)]

    def second_scan(game):
        raise AssertionError("the comments were scanned again")

    monkeypatch.setattr(digest, "_may_use_correspondence", second_scan)
    checked = record.read(text)
    assert [c.error for c in checked] == [None] * len(expected)      # every Digest tag matched
