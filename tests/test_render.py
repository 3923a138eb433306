"""The text views: the ASCII diagram of a reference position, reserves, turns, combat words."""

from __future__ import annotations

import pytest

from tomis import rules
from tomis.pictures import render
from tomis.rules import position
from tomis.rules.actions import Move
from tomis.rules.board import FRIGATE, parse_square

# After 1. B@e1 B@d8 2. G@b1 G@g8 3. G@f2 G@a7 4. G@c3 G@e6 5. G@h4 G@d5 6. F@a1 F@h8
# 7. Fa1-b1 Fh8-g8 8. Fb1=A Fg8=A 9. M@b1:NE T@a8 10. M@b1:NE S@c8 (manual edition).
REFERENCE = (
    "t1sb2f1/8/8/8/8/8/8/1F2B3 b1wJ2NE,f2wI,c3wI,h4wI,d5bI,e6bI,a7bI,g8bA "
    "w 0027221/0047111 - manual 21 0"
)

REFERENCE_DIAGRAM = """\
     a     b     c     d     e     f     g     h
   +-------------------------------------------------+
 8 | t     .     s     b     .     .     fg+   .     | 8
 7 | .g-   .     .     .     .     .     .     .     | 7
 6 | .     .     .     .     .g-   .     .     .     | 6
 5 | .     .     .     .g-   .     .     .     .     | 5
 4 | .     .     .     .     .     .     .     .G-   | 4
 3 | .     .     .G-   .     .     .     .     .     | 3
 2 | .     .     .     .     .     .G-   .     .     | 2
 1 | .     FGNE2 .     .     B     .     .     .     | 1
   +-------------------------------------------------+
     a     b     c     d     e     f     g     h
   units: B base  F frigate  S sentry  T tower  Q flagship
          UPPERCASE White, lowercase Black
   gates: G White  g Black;  - inactive  + active
          N NE E SE S SW W NW: jump gate direction (2: two markers)"""

# Two White frigates about to attack d6 and the Black jump gate on f6 together.
COMBAT = "7b/8/3f4/2F3F1/4F3/8/8/B7 f6bJ1N w 0045221/0037221 - manual 31 4"


def test_reference_diagram_matches_text():
    assert render.board(position.from_string(REFERENCE)) == REFERENCE_DIAGRAM


def test_ascii_diagram_is_pure_ascii_and_fits_an_email_line():
    text = render.position_text(position.from_string(REFERENCE))
    assert text.isascii()
    assert max(len(line) for line in text.splitlines()) <= 72


def test_colour_diagram_uses_arrows_for_jump_directions():
    import click

    coloured = render.board(position.from_string(REFERENCE), color=True)
    assert "\x1b[" in coloured
    assert "FG\u21972" in click.unstyle(coloured)


def test_colour_rows_are_as_wide_as_ascii_rows():
    import click

    state = position.from_string(REFERENCE)
    plain = click.unstyle(render.board(state, color=True, legend=False))
    ascii_rows = render.board(state, legend=False).splitlines()
    assert [len(r) for r in plain.splitlines()] == [len(r) for r in ascii_rows]


def test_reserves_in_words():
    state = position.from_string(REFERENCE)
    assert render.reserve_words(state, 0) == (
        "White reserve: 7 frigates, 2 sentries, 2 towers, flagship, 2 markers")
    assert render.reserve_words(state, 1) == (
        "Black reserve: 7 frigates, 1 sentry, 1 tower, flagship, 4 markers")


def test_unlock_words():
    state = position.from_string("7b/8/8/8/8/8/8/B7 - 0-1 0000000/0000000 b manual 31 4")
    assert render.unlock_words(state) == "Flagships: White locked, Black unlocked (R20)"


def test_long_reserve_wraps_between_items():
    text = render.reserve_words(rules.new_game(), 0)
    assert text == (
        "White reserve: 1 base, 4 gates, 8 frigates, 2 sentries, 2 towers,\n"
        "    flagship, 4 markers")


def test_empty_reserve_says_so():
    state = position.from_string("7b/8/8/8/8/8/8/B7 - 0-1 0000000/0000000 wb manual 31 4")
    assert render.reserve_words(state, 0) == "White reserve: empty"


def test_turn_words_before_and_after_the_end():
    state = position.from_string(REFERENCE)
    assert render.turn_words(state) == "Action 21: White to act"
    assert render.turn_words(rules.new_game()) == "Action 1: White to act"
    # R23: a win the rules did not give is a resignation, a draw an agreement, unless the
    # record's Termination tag names what it was.
    assert render.turn_words(state, "0-1") == "Game over: 0-1, by resignation (R23)"
    assert render.turn_words(state, "1/2-1/2") == "Game over: 1/2-1/2, by agreement (R23)"
    assert render.turn_words(state, "1-0", "time forfeit") == "Game over: 1-0, time forfeit (R23)"
    # The tag is the record's text: an escape sequence in it is shown, never sent.
    assert render.turn_words(state, "1-0", "\x1b]0;x\x07") == "Game over: 1-0, \\x1b]0;x\\x07 (R23)"


def test_turn_words_for_a_decided_position():
    decided = position.from_string("7b/8/8/8/8/8/8/B7 - 1-0 0000000/0000000 - manual 31 4")
    assert render.turn_words(decided) == "Game over: 1-0, decided before this position"


def test_combat_report_names_side_piece_and_square():
    state = position.from_string(COMBAT)
    _after, report = rules.apply(state, Move(FRIGATE, parse_square("e4"), parse_square("e5")))
    assert render.combat_words(report) == (
        "combat destroyed: Black frigate on d6, Black jump gate on f6")
    assert render.report_lines(report, 31) == [
        "White played 16. Fe4-e5 (action 31)",
        "combat destroyed: Black frigate on d6, Black jump gate on f6",
    ]


def test_black_heading_uses_three_dots():
    state = position.from_string(COMBAT.replace(" w ", " b ").replace(" 31 ", " 32 "))
    _after, report = rules.apply(state, Move(FRIGATE, parse_square("d6"), parse_square("d5")))
    assert render.action_heading(report, 32) == "Black played 16... Fd6-d5 (action 32)"


def test_quiet_action_reports_nothing_destroyed():
    state = position.from_string(COMBAT)
    _after, report = rules.apply(state, Move(FRIGATE, parse_square("c5"), parse_square("c6")))
    assert render.combat_words(report) == "combat destroyed nothing"


@pytest.mark.parametrize("gate, arrows, mark", [
    (None, False, ""),
    ((0, 0, 0, 0, -1), False, "G-"),
    ((0, 1, 1, 0, -1), False, "g+"),
    ((0, 1, 2, 1, 7), False, "gNW"),
    ((0, 0, 2, 2, 4), False, "GS2"),
    ((0, 0, 2, 1, 0), True, "G\u2191"),
])
def test_gate_marks(gate, arrows, mark):
    assert render.gate_mark(gate, arrows=arrows) == mark


@pytest.mark.parametrize("direction", range(8))
def test_flipped_arrows_point_as_the_board_is_drawn(direction):
    # Turned round, north (toward rank 8) is down the screen: a jump gate's direction
    # (R11) shows as the arrow of its opposite, as the SVG draws it; names stay notation.
    gate = (0, 0, 2, 1, direction)
    opposite = (direction + 4) % 8
    assert render.gate_mark(gate, arrows=True, flipped=True) == "G" + render.ARROWS[opposite]
    assert render.gate_mark(gate, arrows=False, flipped=True) == render.gate_mark(gate)


def test_flipped_diagram_turns_the_jump_gate_arrow():
    state = position.from_string(REFERENCE)
    upright = render.board(state, arrows=True, legend=False)
    flipped = render.board(state, arrows=True, legend=False, flipped=True)
    assert "FG\u21972" in upright and "FG\u21992" in flipped     # NE: up-right, then down-left
    assert "\u2197" not in flipped
    legend = render.board(state, arrows=True, flipped=True)
    assert "\u2193 points N" in legend and "points N" not in render.board(state, arrows=True)
