"""The colour policy of tomis/terminal.py: no-color.org, force-color.org, --color, TERM=dumb."""

from __future__ import annotations

import io

import pytest

from tomis.util.terminal import PLAIN, Display, display_for, is_terminal


class FakeStream(io.StringIO):
    """A text stream that says whether it is a terminal and which encoding it has."""

    def __init__(self, tty: bool, encoding: str = "utf-8"):
        super().__init__()
        self._tty = tty
        self._encoding = encoding

    def isatty(self) -> bool:
        return self._tty

    @property
    def encoding(self) -> str:
        return self._encoding


TTY = FakeStream(tty=True)
PIPE = FakeStream(tty=False)
XTERM = {"TERM": "xterm-256color"}


def test_a_terminal_gets_colour_and_arrows():
    assert display_for(TTY, environ=XTERM) == Display(colour=True, glyphs=True)


def test_a_pipe_gets_plain_ascii():
    assert display_for(PIPE, environ=XTERM) == PLAIN


def test_non_empty_no_color_turns_colour_off_but_keeps_arrows_on_a_terminal():
    shown = display_for(TTY, environ={**XTERM, "NO_COLOR": "1"})
    assert shown == Display(colour=False, glyphs=True)


def test_empty_no_color_is_ignored_as_no_color_org_asks():
    assert display_for(TTY, environ={**XTERM, "NO_COLOR": ""}).colour


def test_force_color_colours_a_pipe():
    assert display_for(PIPE, environ={**XTERM, "FORCE_COLOR": "1"}) == Display(True, True)


def test_empty_force_color_is_ignored():
    assert display_for(PIPE, environ={**XTERM, "FORCE_COLOR": ""}) == PLAIN


def test_no_color_beats_force_color():
    assert not display_for(TTY, environ={**XTERM, "NO_COLOR": "1", "FORCE_COLOR": "1"}).colour


def test_color_always_beats_no_color_and_colours_a_pipe():
    assert display_for(PIPE, "always", environ={**XTERM, "NO_COLOR": "1"}).colour


def test_color_never_beats_force_color_and_a_terminal():
    assert not display_for(TTY, "never", environ={**XTERM, "FORCE_COLOR": "1"}).colour


def test_term_dumb_gets_no_colour_and_no_arrows():
    assert display_for(TTY, environ={"TERM": "dumb"}) == PLAIN


def test_term_dumb_with_color_always_gets_colour_but_no_arrows():
    assert display_for(TTY, "always", environ={"TERM": "dumb"}) == Display(True, False)


def test_ascii_option_beats_everything():
    assert display_for(TTY, "always", ascii_only=True, environ={"FORCE_COLOR": "1"}) == PLAIN


def test_a_terminal_that_is_not_utf8_gets_colour_without_arrows():
    latin = FakeStream(tty=True, encoding="ISO-8859-1")
    assert display_for(latin, environ=XTERM) == Display(colour=True, glyphs=False)


@pytest.mark.parametrize("encoding", ["utf-8", "UTF-8", "utf8", "utf_8"])
def test_every_spelling_of_utf8_allows_arrows(encoding):
    assert display_for(FakeStream(True, encoding), environ=XTERM).glyphs


def test_an_unknown_color_choice_is_refused_by_name():
    with pytest.raises(ValueError, match="auto, always, never"):
        display_for(TTY, "sometimes", environ=XTERM)


def test_closed_or_missing_streams_are_not_terminals():
    class Closed(io.StringIO):
        def isatty(self):
            raise ValueError("I/O operation on closed file")

    assert not is_terminal(None)
    assert not is_terminal(object())
    assert not is_terminal(Closed())
