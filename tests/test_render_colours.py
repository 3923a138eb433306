"""Colours of the board diagram: every unit and gate in its owner's colour."""

from __future__ import annotations

import click

from tomis.pictures import render
from tomis.rules import position

# A White jump gate with two markers on b1 under a White frigate, a Black active gate on
# g8 under a Black frigate, White inactive gates on f2, c3 and h4 (as in test_render).
STATE = position.from_string(
    "t1sb2f1/8/8/8/8/8/8/1F2B3 b1wJ2NE,f2wI,c3wI,h4wI,d5bI,e6bI,a7bI,g8bA "
    "w 0027221/0047111 - manual 21 0")


def test_white_gates_are_drawn_in_whites_colour_and_black_gates_in_blacks():
    coloured = render.board(STATE, color=True, legend=False)
    assert "." + click.style("G-", fg="yellow") in coloured          # White's gate on c3
    assert "." + click.style("g-", fg="magenta") in coloured         # Black's gate on a7
    assert "\x1b[36m" not in coloured                                 # cyan, the old colour


def test_a_unit_is_bold_and_the_gate_under_it_is_not():
    coloured = render.board(STATE, color=True, legend=False)
    assert click.style("f", fg="magenta", bold=True) + click.style("g+", fg="magenta") in coloured
    assert click.style("F", fg="yellow", bold=True) + click.style("G\u21972", fg="yellow") in coloured


def test_arrows_can_be_asked_for_without_colour():
    text = render.board(STATE, arrows=True)
    assert "\x1b[" not in text
    assert "G\u21972" in text


def test_colour_without_arrows_keeps_direction_names():
    text = click.unstyle(render.board(STATE, color=True, arrows=False))
    assert "GNE2" in text and "\u2197" not in text


def test_plain_diagram_is_unchanged_by_the_colour_options():
    plain = render.position_text(STATE)
    assert plain == render.position_text(STATE, color=False, arrows=False)
    assert plain.isascii()
    assert click.unstyle(render.position_text(STATE, color=True, arrows=False)) == plain
