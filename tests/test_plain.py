"""Plain classes (tomis/util/plain.py) behave as the dataclasses they replaced: equality
field by field, a repr naming each field, no hash, and a pickle round trip (the walker's
events cross process boundaries)."""

from __future__ import annotations

import pickle
import time

import pytest

from tomis.archive.findings import Finding
from tomis.archive.walker import FileEnd, GameOutcome, Progress
from tomis.sources.reading import Source


def test_events_compare_field_by_field_and_survive_pickling():
    finding = Finding("R9", "a frigate moves one square", "a.tgn", 1, 2, 3, 4)
    outcome = GameOutcome("a.tgn", 1, 3, None, finding)
    assert pickle.loads(pickle.dumps(outcome)) == outcome
    assert outcome != GameOutcome("a.tgn", 2, 3, None, finding)
    assert outcome != FileEnd("a.tgn")              # another class, even with like fields
    assert (outcome == ("a.tgn", 1, 3, None, finding, None, ())) is False
    with pytest.raises(TypeError):
        hash(outcome)


def test_repr_names_every_field_in_order():
    assert repr(FileEnd("a.tgn", games=2)) == (
        "FileEnd(path='a.tgn', games=2, invalid=0, finding=None, unreadable=False, size=0)")


def test_a_finding_moved_is_a_changed_copy():
    finding = Finding("N-syntax", "game 1: unexpected 'x'", "a.tgn", 1, 2, 3)
    moved = finding.moved(game=5, line=40)
    assert (moved.game, moved.line, moved.column, moved.message) == (5, 40, 3, finding.message)
    assert (finding.game, finding.line) == (1, 2)
    with pytest.raises(TypeError):
        finding.moved(colour="red")


def test_defaults_are_not_shared_between_instances():
    first, second = Source("t", "t"), Source("t", "t")
    first.notes.append("read message 2 of the mailbox")
    assert second.notes == []


def test_progress_starts_its_clock_when_made():
    before = time.monotonic()
    progress = Progress(files_total=1, bytes_total=10)
    assert before <= progress.started <= time.monotonic()
    assert Progress(1, 10, started=5.0).started == 5.0


def test_records_compare_by_game_not_by_where_they_stood():
    from tomis.notation import record

    text = '[Event "e"]\n[Rules "manual"]\n[Result "*"]\n\n1. B@a1 B@h8 *\n'
    alone = record.read(text)[0].game
    later = record.read("\n\n\n" + text)[0].game
    assert later.line != alone.line and later.tag_places != alone.tag_places
    assert later == alone
    shorter = record.read(text.replace("1. B@a1 B@h8 *", "1. B@a1 *"))[0].game
    assert shorter != alone
    assert pickle.loads(pickle.dumps(alone)) == alone


def test_classes_that_were_open_dataclasses_still_take_weak_references_and_attributes():
    """Record, Variation, Checked, Source, Item and Progress were dataclasses without slots:
    a script could hold a weak reference to one or hang its own attribute on it. Plain keeps
    that for them (their __dict__ and __weakref__ slots are not fields)."""
    import weakref

    from tomis.archive.walker import Progress
    from tomis.notation import record
    from tomis.sources.reading import Source

    checked = record.read("1. B@e1 B@d8 (1... B@c8) *", "x.tgn")[0]
    game = checked.game
    variation = game.nodes[-1].variations[0]
    progress = Progress(files_total=1, bytes_total=1)
    source = Source("1. B@e1 *", "1. B@e1 *")
    for thing in (checked, game, variation, progress, source):
        assert weakref.ref(thing)() is thing
        thing.note_of_mine = "kept"
        assert thing.note_of_mine == "kept"
        assert "__dict__" not in repr(thing) and "note_of_mine" not in repr(thing)
    assert game == record.read("1. B@e1 B@d8 (1... B@c8) *", "x.tgn")[0].game   # extras not compared
