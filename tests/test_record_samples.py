"""The sample records in samples/ (issue #4): each reads, validates, ends as its name
promises, and writes back byte-identical (canonical form)."""

from __future__ import annotations

import pytest

from conftest import ROOT, SAMPLES, SAMPLES_DIR
from tomis.notation import record
from tomis.rules.actions import ACTION_TYPES, PlaceMarker
from tomis.rules.board import BASE, FLAGSHIP, FRIGATE, GATE, SENTRY, TOWER


def load(name: str) -> record.Record:
    checked = record.read((SAMPLES_DIR / name).read_text(encoding="utf-8"), name)
    assert len(checked) == 1
    assert checked[0].error is None, checked[0].error.located()
    return checked[0].game


def test_at_least_six_samples():
    names = {path.name for path in SAMPLES}
    assert {"manual-win.tgn", "readme-win.tgn", "repetition-draw.tgn", "resignation.tgn",
            "every-action.tgn", "pbem-in-progress.tgn"} <= names


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_sample_validates_and_round_trips(path):
    text = path.read_text(encoding="utf-8")
    checked = record.read(text, str(path))
    assert checked and all(c.error is None for c in checked), [c.error for c in checked]
    assert record.write_all([c.game for c in checked]) == text
    for c in checked:
        tags = c.game.tags
        for name in ("Event", "Site", "Date", "Round", "White", "Black", "Result", "Rules"):
            assert tags.get(name) not in (None, "", "?"), name
        assert tags["Date"].startswith("2026.")
        assert tags["Result"] == c.game.result
        assert any(node.comments for node in c.game.nodes)


def test_manual_win_ends_by_base_destruction():
    game = load("manual-win.tgn")
    assert game.tags["Rules"] == "manual" and game.final.edition_name == "manual"
    assert game.result == "1-0" and game.final.result == "1-0"
    assert "R21" in game.final.reason
    last = game.nodes[-1].report
    assert [d.piece for d in last.destroyed if d.piece == BASE] == [BASE]


def test_readme_win_uses_edition_differences():
    game = load("readme-win.tgn")
    assert game.tags["Rules"] == "readme" and game.final.edition_name == "readme"
    assert game.result == "1-0" and "R21" in game.final.reason
    reports = [node.report for node in game.nodes]
    # E2: White's flagship was unlocked by a tower, not a frigate.
    unlock = next(i for i, r in enumerate(reports) if 0 in r.unlocked)
    assert game.states[unlock + 1].units.get(game.nodes[unlock].action.target) & 7 == TOWER
    # E1: a lone flagship move destroyed two frigates (2 AP each).
    assert any(len([d for d in r.destroyed if d.piece == FRIGATE]) >= 2
               and getattr(r.action, "piece", None) == FLAGSHIP for r in reports)


def test_repetition_draw():
    game = load("repetition-draw.tgn")
    assert game.result == "1/2-1/2" and game.final.result == "1/2-1/2"
    assert "R22" in game.final.reason and "third time" in game.final.reason


@pytest.mark.parametrize("name", ["resignation.tgn", "every-action.tgn"])
def test_resigned_games_are_undecided_positions(name):
    game = load(name)
    assert game.result in ("1-0", "0-1")
    assert not game.final.is_over          # R23: the result stands without a decided position
    assert "resign" in " ".join(game.nodes[-1].comments).lower()


def test_pbem_in_progress():
    game = load("pbem-in-progress.tgn")
    assert game.result == "*" and game.tags["Site"] == "By email"
    assert not game.final.is_over


def test_every_action_uses_every_kind():
    game = load("every-action.tgn")
    actions = [node.action for node in game.nodes]
    assert {type(a) for a in actions} == set(ACTION_TYPES)
    placed = {a.piece for a in actions if hasattr(a, "piece") and type(a).__name__ == "Place"}
    assert placed >= {BASE, GATE, FRIGATE, SENTRY, TOWER, FLAGSHIP}
    moved = {a.piece for a in actions if type(a).__name__ == "Move"}
    assert moved >= {FRIGATE, SENTRY, TOWER, FLAGSHIP}
    toggles = {a.activate for a in actions if type(a).__name__ == "Toggle"}
    assert toggles == {True, False}
    markers = [a for a in actions if isinstance(a, PlaceMarker)]
    assert len(markers) > len({a.square for a in markers})     # a second marker on one gate
    assert any(r.captured for r in (n.report for n in game.nodes)
               if type(r.action).__name__ == "GateJump")        # a capture by gate jump


def test_generator_is_in_sync():
    import subprocess
    import sys
    script = ROOT / "tools" / "make_samples.py"
    done = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
