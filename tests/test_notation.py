"""The notation layer: every action form, syntax errors in words, the parser's setup.

Expected actions are built from their fields by hand (square a1 = 0, ``parse_square``),
never from the parser under test. Expected error messages are written out in full: the
column is where a player must look (1-based), worked out by counting characters.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from tomis import notation
from tomis.notation import record
from tomis.rules.actions import (
    GateJump, GateStrike, Jump, Move, Place, PlaceMarker, RotateMarker, Toggle,
)
from tomis.rules.board import (
    BASE, DIRECTION_INDEX, FLAGSHIP, FRIGATE, GATE, MARKER, SENTRY, TOWER, parse_square as sq,
)
from tomis.errors import NotationError, TomisError

DATA = Path(__file__).resolve().parent / "data"
NE, SW, N, W = (DIRECTION_INDEX[d] for d in ("NE", "SW", "N", "W"))

# (text, the action it names, the ruling that governs that form) -- notation.md's table.
ACTION_FORMS = [
    ("B@e1", Place(BASE, sq("e1")), "R5"),
    ("G@c1", Place(GATE, sq("c1")), "R6"),
    ("F@a1", Place(FRIGATE, sq("a1")), "R8"),
    ("S@b1", Place(SENTRY, sq("b1")), "R8"),
    ("T@g1", Place(TOWER, sq("g1")), "R8"),
    ("Q@d1", Place(FLAGSHIP, sq("d1")), "R8"),
    ("M@c3", Place(MARKER, sq("c3")), "R11"),     # well formed; the engine refuses it (R11)
    ("Fa2-a3", Move(FRIGATE, sq("a2"), sq("a3")), "R9"),
    ("Sc1-h6", Move(SENTRY, sq("c1"), sq("h6")), "R9"),
    ("Td1-d7", Move(TOWER, sq("d1"), sq("d7")), "R9"),
    ("Qd1-h5", Move(FLAGSHIP, sq("d1"), sq("h5")), "R9"),
    ("Be1-e2", Move(BASE, sq("e1"), sq("e2")), "R9"),   # syntax allows it; R9 forbids it
    ("Fc3=A", Toggle(sq("c3"), True), "R10"),
    ("Fc3=I", Toggle(sq("c3"), False), "R10"),
    ("M@c3:NE", PlaceMarker(sq("c3"), NE), "R11"),
    ("M@h8:N", PlaceMarker(sq("h8"), N), "R11"),
    ("Mc3:SW", RotateMarker(sq("c3"), SW), "R11"),
    ("Ma1:W", RotateMarker(sq("a1"), W), "R11"),
    ("Fc3>d4", GateJump(sq("c3"), sq("d4")), "R12"),
    ("Fc3xd4", GateStrike(sq("c3"), sq("d4")), "R13"),
    ("Fb2^e5", Jump(sq("b2"), sq("e5")), "R14"),
]


@pytest.mark.parametrize("text, action, ruling", ACTION_FORMS, ids=[c[0] for c in ACTION_FORMS])
def test_every_action_form_reads_as_its_action(text, action, ruling):
    parsed = notation.parse_action(text)
    assert parsed == action and type(parsed) is type(action)
    assert (parsed.line, parsed.column) == (1, 1)
    assert str(parsed) == text          # the engine's canonical text is the same form


@pytest.mark.parametrize("text, action, ruling", ACTION_FORMS, ids=[c[0] for c in ACTION_FORMS])
def test_every_action_form_reads_inside_a_record_with_its_position(text, action, ruling):
    # Syntax only: the first action of a record must be a base (R5), so every other
    # form stops the game as illegal -- but only after being read as the right action.
    checked = record.read(f"{{lead}}\n  {text} *")[0]
    if checked.error is None:
        assert checked.game.nodes[0].action == action
    else:
        assert f" {text}: " in checked.error.message   # the engine names the parsed action
        assert (checked.error.line, checked.error.column) == (2, 3)


def test_blanks_around_one_action_are_allowed_and_counted_in_columns():
    assert notation.parse_action("  Fa2-a3 ") == Move(FRIGATE, sq("a2"), sq("a3"))
    with pytest.raises(NotationError) as info:
        notation.parse_action("  Fz9-a3")
    assert info.value.column == 4       # the 'z' after two blanks and 'F'


# (text, exact message, 1-based column) for parse_action.
BAD_ACTIONS = [
    ("Fz9-a3", "expected a square like e4 after 'F' in 'Fz9-a3'", 2),
    ("fa2-a3", "expected a piece letter (B G M F S T Q) at the start of 'fa2-a3'; "
               "piece letters are uppercase: did you mean 'Fa2-a3'?", 1),
    ("FA2-A3", "expected a square like e4 after 'F' in 'FA2-A3'; "
               "squares are written in lowercase: did you mean 'Fa2-a3'?", 2),
    ("Fa2\u2013a3", "expected -, =, >, x or ^ after 'Fa2' in 'Fa2\u2013a3', found '\u2013'; "
                    "a move is written with the plain '-': did you mean 'Fa2-a3'?", 4),
    ("Fa2-a3+", "unexpected '+' after the action 'Fa2-a3'; Tomis has no check signs", 7),
    ("Fa2-a3x", "unexpected 'x' after the action 'Fa2-a3'", 7),
    ("Fa2", "expected -, =, >, x or ^ after 'Fa2' in 'Fa2', found the end of the word", 4),
    ("Fa2a3", "expected -, =, >, x or ^ after 'Fa2' in 'Fa2a3', found 'a'", 4),
    ("Sa2=A", "a gate toggle (R10) is a frigate's action, written 'Fa2=A'; found 'S' in 'Sa2=A'", 1),
    ("Tc3xd4", "a gate strike (R13) is a frigate's action, written 'Fc3xd4'; found 'T' in 'Tc3xd4'", 1),
    ("Ta1:N", "a rotation is written with 'M' like 'Ma1:N' (R11); found 'T' in 'Ta1:N'", 1),
    ("Fa2=X", "expected A (activate) or I (deactivate) after 'Fa2=' in 'Fa2=X'", 5),
    ("M@c3:XX", "expected a direction (N NE E SE S SW W NW) after 'M@c3:' in 'M@c3:XX'", 6),
    ("M@c3:", "expected a direction (N NE E SE S SW W NW) after 'M@c3:' in 'M@c3:'", 6),
    # Capital files and a one-letter direction at the word's end: the fix is offered, not a crash.
    ("M@F1:E", "expected a square like e4 after 'M@' in 'M@F1:E'; "
               "squares are written in lowercase: did you mean 'M@f1:E'?", 3),
    ("Ma2:NEE", "unexpected 'E' after the action 'Ma2:NE'", 7),
    ("Mc3-NE", "expected a square like e4 after 'Mc3-' in 'Mc3-NE'", 5),
    ("Fa2>z1", "expected a square like e4 after 'Fa2>' in 'Fa2>z1'", 5),
    ("Fa2x", "expected a square like e4 after 'Fa2x' in 'Fa2x'", 5),
    ("F@i1", "expected a square like e4 after 'F@' in 'F@i1'", 3),
    ("Q@", "expected a square like e4 after 'Q@' in 'Q@'", 3),
    ("X@a1", "expected a piece letter (B G M F S T Q) at the start of 'X@a1'", 1),
    ("O-O", "'O-O' is chess castling; Tomis has none", 1),
    ("O-1", "'O-1' is not an action; results use the digit zero: did you mean '0-1'?", 1),
    ("", "expected an action like Fa2-a3, found nothing", 1),
    ("Fa2-a3 Fa3-a4", "expected one action, found more after 'Fa2-a3'", 7),
    ("Fa2-a3!", "expected only the action 'Fa2-a3', found '!' after it", 7),
    ("B@e1(e4)", "expected only the action 'B@e1', found '(e4)' after it", 5),
    ("12.", "expected an action like Fa2-a3, found '12.'", 1),
    ("G@ a1", "an action is written without spaces: did you mean 'G@a1'?", 3),
    ("2. G@b1", "a move number is not part of the action (tomis numbers actions itself): write 'G@b1'", 1),
    ("12... Fa7-a6", "a move number is not part of the action (tomis numbers actions itself): "
                     "write 'Fa7-a6'", 1),
    ("G@b1\x1b[31m", "unexpected '\x1b[31m' after the action 'G@b1'", 5),
    ("F" * 65, "expected one action like Fa2-a3, found 65 characters starting 'FFFFFFFFFFFF...'", 1),
]


@pytest.mark.parametrize("text, message, column", BAD_ACTIONS, ids=[c[0] or "empty" for c in BAD_ACTIONS])
def test_bad_action_text_is_explained_in_words(text, message, column):
    with pytest.raises(NotationError) as info:
        notation.parse_action(text)
    assert (info.value.message, info.value.line, info.value.column) == (message, 1, column)


# (record text, exact message without the "game 1: " prefix, line, column), kept as data in
# tests/data/bad_records.jsonl (its first row says so; a "why" explains a case).
def bad_records() -> list[tuple[str, str, int, int]]:
    rows = (DATA / "bad_records.jsonl").read_text(encoding="utf-8").splitlines()
    cases = [json.loads(row) for row in rows]
    return [(case["text"], case["message"], case["line"], case["column"])
            for case in cases if "text" in case]


BAD_RECORDS = bad_records()


@pytest.mark.parametrize("text, message, line, column", BAD_RECORDS, ids=[c[1][:40] for c in BAD_RECORDS])
def test_malformed_record_gives_one_located_message_in_words(text, message, line, column):
    checked = record.read(text, "bad.tgn")
    error = checked[0].error
    assert error is not None
    assert error.message == f"game 1: {message}"
    assert (error.path, error.game, error.line, error.column) == ("bad.tgn", 1, line, column)
    assert error.located() == f"bad.tgn:{line}:{column}: game 1: {message}"
    assert "__ANON" not in error.message and "Token(" not in error.message


def test_there_are_at_least_thirty_distinct_malformed_inputs():
    texts = {c[0] for c in BAD_ACTIONS} | {c[0] for c in BAD_RECORDS}
    assert len(texts) >= 30


def test_caret_context_points_at_the_column():
    text = "1. B@e1\n\t2. Fz9-a3 *\n"
    # A tab is shown escaped, as every control character printed to a terminal is
    # (issue 23, finding 4); the caret stands under the escaped text.
    assert notation.caret_context(text, 2, 6) == "\\t2. Fz9-a3 *\n      ^"
    assert notation.caret_context(text, 1, 1) == "1. B@e1\n^"
    assert notation.caret_context(text, 9, 1) == ""           # no such line
    assert notation.caret_context(text, None, None) == ""


def test_caret_context_counts_only_newlines_as_line_ends():
    # The reader counts lines by "\n" alone; a form feed or U+2028 inside a line is no break.
    text = '[Event "a\u2028b"]\n1. B@e1 \f Zz *'
    error = record.read(text)[0].error
    assert (error.line, error.column) == (2, 11)
    assert notation.caret_context(text, 2, 11) == "1. B@e1 \\x0c Zz *\n             ^"


def test_caret_context_of_a_record_error_marks_the_bad_character():
    text = "1. B@e1 B@d8\n2. Fz9-a3 *"
    error = record.read(text)[0].error
    assert notation.caret_context(text, error.line, error.column) == "2. Fz9-a3 *\n    ^"


def test_the_grammar_ships_inside_the_package():
    from importlib import resources
    shipped = resources.files("tomis.grammar").joinpath("tomis.lark").read_text(encoding="utf-8")
    assert shipped == notation.grammar_text()
    assert "start:" in shipped


def test_the_parser_is_lalr_with_the_basic_lexer_built_once():
    assert notation.parser() is notation.parser()
    options = notation.parser().options
    assert (options.parser, options.lexer) == ("lalr", "basic")
    assert options.transformer is not None          # tokens handed over, no tree built


def test_file_cut_into_games_at_results_outside_comments_and_tags():
    text = '[Result "1-0"] {1-0 * inside} 1. B@e1 1-0\n1. B@a1 * ; 0-1 here\n'
    spans = notation.game_spans(text)
    assert [text[a:b].strip() for a, b in spans] == [
        '[Result "1-0"] {1-0 * inside} 1. B@e1 1-0', "1. B@a1 *", "; 0-1 here"]


def test_comment_text_is_reflowed_and_suffix_squares_read_in_order():
    assert notation.comment_text("{ two\n  lines }") == "two lines"
    assert notation.comment_text(";  to the end ") == "to the end"
    assert notation.destroyed_squares("(e6,f6)") == (sq("e6"), sq("f6"))
    assert notation.destroyed_squares("()") == ()


def test_tag_values_unescape_and_quote_back():
    name, value, quote = notation.tag_pair(r'[Annotator "Cy \"fox\" \\ Co"]')
    assert (name, value, quote) == ("Annotator", 'Cy "fox" \\ Co', 11)
    assert notation.quote_tag_value(value) == r'"Cy \"fox\" \\ Co"'


# ---------------------------------------------------------------------------
# Properties

squares = st.integers(0, 63)
directions = st.integers(0, 7)
any_action = st.one_of(
    st.builds(Place, st.integers(0, 6), squares),
    st.builds(Move, st.integers(0, 6), squares, squares),
    st.builds(Toggle, squares, st.booleans()),
    st.builds(PlaceMarker, squares, directions),
    st.builds(RotateMarker, squares, directions),
    st.builds(GateJump, squares, squares),
    st.builds(GateStrike, squares, squares),
    st.builds(Jump, squares, squares),
)


@settings(max_examples=300)
@given(any_action)
def test_action_text_action_round_trip_for_every_kind(action):
    parsed = notation.parse_action(str(action))
    assert parsed == action and type(parsed) is type(action)


# Garbage made mostly of the characters the notation uses, so it gets deep into the parser.
notation_chars = st.sampled_from(list("BGMFSTQabcdefgh12345678@-=:>x^NESW!?$(),{};[]\"\\ .*/\n0O") + ["1-0", "1/2-1/2"])
garbage = st.one_of(st.text(max_size=60), st.lists(notation_chars, max_size=60).map("".join))


@settings(max_examples=300)
@given(garbage)
def test_garbage_never_raises_anything_but_tomis_errors(text):
    for checked in record.read(text):                 # read() reports, never raises
        if checked.error is not None:
            assert isinstance(checked.error, TomisError)
            assert checked.error.line is not None and checked.error.column is not None
    try:
        notation.parse_action(text)
    except TomisError as error:
        assert error.column is not None
    try:
        record.read_game(text)
    except TomisError:
        pass


@pytest.mark.slow
@settings(max_examples=5000)
@given(garbage)
def test_garbage_never_raises_anything_but_tomis_errors_long(text):
    test_garbage_never_raises_anything_but_tomis_errors.hypothesis.inner_test(text)


@pytest.mark.parametrize("text", ["B@e1", "Fa2-a3", "Fc3=A", "M@c3:NE", "Mc3:SW", "Fc3>d4", "Fc3xd4", "Fb2^e5"])
def test_the_fast_builder_makes_the_same_frozen_action_as_the_constructor(text):
    from tomis.rules.actions import builder, values
    parsed = notation.parse_action(text)
    cls = type(parsed)
    built = builder(cls)(*values(parsed), 7, 9)
    expected = cls(*values(parsed), line=7, column=9)
    assert built == expected and hash(built) == hash(expected) and repr(built) == repr(expected)
    assert (built.line, built.column) == (7, 9)
    with pytest.raises(AttributeError, match="immutable"):
        built.line = 1
