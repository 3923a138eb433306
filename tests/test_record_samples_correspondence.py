"""The two correspondence samples (issue 15): a game by email under a clock with offers and
conditional lines, and an annotated game with nested variations."""

from __future__ import annotations

from pathlib import Path

from tomis.notation import correspondence, record

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def load(name: str) -> record.Record:
    return record.read_game((SAMPLES / name).read_text(encoding="utf-8"), name)


def test_the_correspondence_sample_has_a_clock_offers_and_lines_honoured_and_cancelled():
    game = load("correspondence-cup.tgn")
    facts = correspondence.read_facts(game)
    assert str(facts.control) == "30d+3d" and facts.start is not None
    assert all(stamp is not None for stamp in facts.stamps)
    # Mara's line after action 1 fired twice (B@d8 -> G@b1, G@g8 -> G@f2), each reply
    # stamped with the minute of the action it answered.
    assert facts.lines[1] == [("B@d8", "G@b1", "G@g8", "G@f2")]
    actions = [str(node.action) for node in game.nodes]
    assert actions[1:5] == ["B@d8", "G@b1", "G@g8", "G@f2"]
    assert facts.stamps[1] == facts.stamps[2] and facts.stamps[3] == facts.stamps[4]
    # Radu's line after action 8 waited for G@h4; Mara played G@g4, which cancelled it.
    assert facts.lines[8] == [("G@h4", "G@d5")] and actions[8] == "G@g4"
    # Mara's offer (action 11) was declined by Radu's next action; his own offer stands.
    assert [index + 1 for index, offer in enumerate(facts.offers) if offer] == [11, 14]
    checked = correspondence.check(game, facts)
    assert checked.lines.pending == ((), ()) and checked.clock.flag_falls == ()


def test_the_annotated_sample_nests_variations_and_round_trips():
    game = load("annotated-variations.tgn")
    nested = [node for node in game.nodes if node.variations]
    assert len(nested) == 2
    inner = game.nodes[12].variations[0].nodes[1].variations
    assert [str(node.action) for node in inner[0].nodes] == ["Fh8-g8", "Fa2-b2"]
    text = (SAMPLES / "annotated-variations.tgn").read_text(encoding="utf-8")
    assert record.write(game) == text
