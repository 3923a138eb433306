"""tomis.pictures.words: actions and positions in sentences (SVG titles, the page's announcements)."""

from __future__ import annotations

from svg_cases import sample_game
from tomis.rules.actions import GateJump, GateStrike, Jump, Move, Place, PlaceMarker, RotateMarker, Toggle
from tomis.pictures.words import action_words, position_words, report_words


def test_every_kind_of_action_in_words():
    """The every-action sample plays each kind; each reads as its own sentence."""
    game = sample_game("every-action.tgn")
    said = {type(node.action): action_words(node.action) for node in game.nodes}
    assert set(said) == {Place, Move, Toggle, PlaceMarker, RotateMarker, GateJump, GateStrike, Jump}
    assert action_words(game.nodes[0].action) == "base placed on e1"
    assert said[Move].startswith("frigate ") or said[Move].startswith("tower ")
    words = {str(node.action): action_words(node.action) for node in game.nodes}
    assert words["Ff4xf5"] == "frigate f4 strikes the frigate on f5 through the gates"
    assert words["Ff5>f4"] == "frigate f5 gate-jumps to f4"
    assert words["Fc2^c6"] == "frigate c2 jumps over the jump gate to c6"
    assert words["M@c3:NE"] == "marker placed on c3, jump gate pointing north-east"
    assert words["Mc3:N"] == "jump gate on c3 turned to point north"
    assert words["Ff4=I"] == "frigate on f4 deactivates its gate"
    assert words["Fc2-c3"] == "frigate c2 to c3"


def test_an_action_announced_with_its_combat():
    """The issue's form: "Action 14, White: frigate a2 to a3; combat destroyed Black's frigate on b4"."""
    game = sample_game("every-action.tgn")
    assert report_words(game.nodes[49].report, 50) == (
        "Action 50, Black: frigate f6 to f5; combat destroyed White's frigate on f4")
    assert report_words(game.nodes[0].report, 1) == "Action 1, White: base placed on e1; combat destroyed nothing"
    strike = report_words(game.nodes[20].report, 21)
    assert strike.startswith("Action 21, White: frigate f4 strikes the frigate on f5 through the gates; "
                             "the action destroyed ")
    assert "White's frigate on f4" in strike and "Black's frigate on f5" in strike


def test_the_end_and_unlocks_are_announced():
    game = sample_game("readme-win.tgn")
    last = game.nodes[-1].report
    assert report_words(last, len(game.nodes)).endswith(f"game over, {last.result}, {last.reason}")
    unlocking = next(i for i, node in enumerate(game.nodes) if node.report.unlocked)
    assert "White's flagship is unlocked (R20)" in report_words(game.nodes[unlocking].report, unlocking + 1)


def test_position_in_words():
    game = sample_game("every-action.tgn")
    said = position_words(game.states[50])
    assert said.startswith("White units: base on e1; frigate on c6; tower on f1. White gates: inactive gate on b1;")
    assert "Black units: base on d8; frigates on e5, f5; sentry on a6." in said
    assert said.endswith("Action 51: White to act.")
    assert "White units: no units. White gates: no gates." in position_words(game.states[0])
