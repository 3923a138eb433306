"""Game records: reading with full validation, building, canonical writing, round trips.

The positions are drawn as diagrams (``conftest.position_string``) and every expected
destruction is worked out from the rulings in the comment beside it.
"""

from __future__ import annotations

import gc
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import position_string
from tomis import rules
from tomis.notation import record
from tomis.rules.actions import Move, Place
from tomis.rules.board import BASE, FRIGATE, parse_square as sq
from tomis.errors import IllegalActionError, NotationError, RecordError

DATA = Path(__file__).parent / "data" / "records"

# Two White frigates: c4 attacks b5 c5 d5; after Fe3-e4 the one on e4 attacks d5 e5 f5,
# so the Black frigate on d5 has 2 AP against defence 1 and is destroyed (R15, R17, R18).
# It attacks c4 d4 e4 with 1 AP each: not more than defence 1, so both survive.
TWO_ON_D5 = position_string("""
.......b
........
........
...f....
..F.....
....F...
........
B.......""")

# Black base d8 is attacked by frigates c7 and e7 (2 AP); Ta1-a8 adds the tower's ray
# along rank 8 (b8 c8 d8): 3 AP destroy the base (R19 manual, E4), White wins (R21).
BASE_FALLS = position_string("""
...b....
..F.F...
........
........
........
........
........
T......B""")


def only(text: str) -> record.Checked:
    checked = record.read(text, "t.tgn")
    assert len(checked) == 1
    return checked[0]


# ---------------------------------------------------------------------------
# Reading

def test_the_notation_md_example_reads_with_tags_comment_and_result():
    game = record.read_game((DATA / "spec-example.tgn").read_text(), "spec-example.tgn")
    assert game.tags == {"Event": "Club ladder", "Site": "By email", "Date": "2026.11.22",
                         "Round": "1", "White": "Ana", "Black": "Bo", "Result": "*",
                         "Rules": "manual"}
    assert len(game.nodes) == 14 and len(game.states) == 15
    assert game.nodes[0].action == Place(BASE, sq("e1"))
    assert game.nodes[10].action == Place(FRIGATE, sq("a1"))
    assert game.nodes[10].comments == ["first ship"]
    assert game.nodes[12].action == Move(FRIGATE, sq("a1"), sq("a2"))
    assert (game.nodes[12].action.line, game.nodes[12].action.column) == (11, 30)
    assert game.result == "*" and game.final.ply == 14 and game.line == 1
    assert game.start == rules.new_game("manual")


def test_canonical_fixture_is_written_back_byte_for_byte():
    text = (DATA / "canonical.tgn").read_text()
    checked = record.read(text)
    assert [c.error for c in checked] == [None, None, None]
    assert record.write_all([c.game for c in checked]) == text


def test_writing_the_spec_example_makes_it_canonical_and_then_stable():
    game = record.read_game((DATA / "spec-example.tgn").read_text())
    once = record.write(game)
    # After the comment Black's action gets its move number (PGN's rule, notation.md).
    assert "{first ship} 6... F@h8" in once
    assert record.write(record.read_game(once)) == once
    assert record.read_game(once) == game


def test_destroyed_suffix_lists_what_the_combat_destroyed():
    text = f'[Position "{TWO_ON_D5}"]\n\n6. Fe3-e4(d5) *\n'
    game = record.read_game(text)
    assert [d.square for d in game.nodes[0].report.destroyed] == [sq("d5")]
    assert record.write(game, digest=False) == text


def test_destroyed_suffix_is_optional_and_the_writer_adds_it():
    game = record.read_game(f'[Position "{TWO_ON_D5}"]\n6. Fe3-e4 *')
    assert "6. Fe3-e4(d5) *" in record.write(game)


def test_a_wrong_destroyed_suffix_names_both_sets_of_squares():
    error = only(f'[Position "{TWO_ON_D5}"]\n6. Fe3-e4(c5,d5) *').error
    assert error.message == ("game 1, action 11 (White) Fe3-e4: the record says the combat destroyed "
                             "c5, d5, but it destroyed d5 (R15-R19)")
    assert (error.line, error.column, error.action) == (2, 10, 11)


def test_an_empty_suffix_claims_nothing_was_destroyed():
    error = only(f'[Position "{TWO_ON_D5}"]\n6. Fe3-e4() *').error
    assert error.message.endswith("the record says the combat destroyed nothing, but it destroyed d5 (R15-R19)")
    assert only(f'[Position "{TWO_ON_D5}"]\n6. Fc4-b4() *').error is None


def test_a_destroyed_base_decides_the_game_and_the_record_must_say_so():
    text = f'[Result "1-0"]\n[Position "{BASE_FALLS}"]\n\n6. Ta1-a8(d8) 1-0\n'
    game = record.read_game(text)
    assert game.final.result == "1-0" and game.final.is_over
    assert record.write(game, digest=False) == text


@pytest.mark.parametrize("tail, message, column", [
    # columns: "6. Ta1-a8(d8) " is 14 characters, so the tail starts in column 15
    ("*", "the game is decided (1-0: Black's base destroyed (R21)); it must end with 1-0, not *", 15),
    ("0-1", "the position is decided 1-0 (Black's base destroyed (R21)), but the record ends with 0-1", 15),
    ("F@h8 1-0", "action 12 (Black) F@h8: the game already ended at action 11 (1-0: Black's base "
                 "destroyed (R21)); nothing may follow (R22)", 15),
])
def test_a_decided_game_must_end_there_with_its_result(tail, message, column):
    error = only(f'[Position "{BASE_FALLS}"]\n6. Ta1-a8(d8) {tail}').error
    assert isinstance(error, RecordError)
    prefix = "game 1, " if message.startswith("action") else "game 1: "
    assert error.message == prefix + message
    assert (error.line, error.column) == (2, column)


def test_a_result_in_an_undecided_position_is_a_resignation_or_agreement():
    for result in ("1-0", "0-1", "1/2-1/2"):     # R23
        checked = only(f"1. B@e1 B@d8 {result}")
        assert checked.error is None and checked.game.result == result
        assert not checked.game.final.is_over


def test_result_tag_and_token_must_agree():
    error = only('[Result "1-0"]\n1. B@e1 B@d8 0-1').error
    assert error.message == "game 1: the Result tag says 1-0 but the game ends with 0-1"
    assert (error.line, error.column) == (2, 14)


def test_illegal_action_stops_the_game_and_names_everything():
    checked = only("1. B@e1 B@d8\n2. G@e1 G@g8 *")
    error = checked.error
    assert isinstance(error, IllegalActionError)
    assert error.message == ("game 1, action 3 (White) G@e1: a gate on the home row leaves at least "
                             "one empty square between it and the base (R6)")
    assert (error.path, error.line, error.column, error.game, error.action) == ("t.tgn", 2, 4, 1, 3)
    assert [str(n.action) for n in checked.game.nodes] == ["B@e1", "B@d8"]   # the valid prefix
    assert checked.game.result == "*"


@pytest.mark.parametrize("text, message, column", [
    ("1. B@e1 2. B@d8 *", "action 2 (Black) B@d8: the move number '2.' is wrong; this is Black's "
                          "action of move 1, written '1...' (R4)", 9),
    ("1. B@e1 1. B@d8 *", "action 2 (Black) B@d8: the move number '1.' is wrong; this is Black's "
                          "action of move 1, written '1...' (R4)", 9),
    ("1... B@e1 *", "action 1 (White) B@e1: the move number '1...' is wrong; this is White's "
                    "action of move 1, written '1.' (R4)", 1),
    ("1. B@e1 B@d8 3. G@b1 *", "action 3 (White) G@b1: the move number '3.' is wrong; this is "
                               "White's action of move 2, written '2.' (R4)", 14),
])
def test_every_move_number_present_is_checked(text, message, column):
    error = only(text).error
    assert error.message == f"game 1, {message}"
    assert error.column == column


def test_move_numbers_may_be_left_out():
    assert only("B@e1 B@d8 G@b1 G@g8 *").error is None         # hand-typed, no numbers
    assert only("B@e1 B@d8 G@b1 2... G@g8 *").error is None
    error = only("B@e1 B@d8 G@b1 1... G@g8 *").error           # action 4 is Black's of move 2
    assert error.message.endswith("the move number '1...' is wrong; this is Black's action of "
                                  "move 2, written '2...' (R4)")


def test_rules_tag_chooses_the_edition_and_position_tag_the_start():
    assert only('[Rules "readme"]\n*').game.start.edition_name == "readme"
    assert only("*").game.start.edition_name == "manual"          # default (E1-E4)
    game = only(f'[Position "{TWO_ON_D5}"]\n*').game
    assert game.start.ply == 10 and game.start.units[sq("d5")] >> 3 == 1
    error = only(f'[Rules "readme"]\n[Position "{TWO_ON_D5}"]\n*').error
    assert error.message == ("game 1: the Rules tag says readme but the Position tag's edition is "
                             "manual (E1-E4)")


def test_position_tag_move_numbers_continue_from_the_position():
    black_to_act = position_string("""
.......b
........
........
........
........
........
........
B.......""", to_act="b")
    game = only(f'[Position "{black_to_act}"]\n6... F@g8 *').game
    assert game.nodes[0].action == Place(FRIGATE, sq("g8"))
    assert "6... F@g8 *" in record.write(game)       # a Black first action gets its number


def test_unknown_tags_are_kept_and_written_after_rules_alphabetically():
    game = only('[Zeta "z"]\n[Rules "manual"]\n[Annotator "a"]\n[White "w"]\n*').game
    assert list(game.tags) == ["Zeta", "Rules", "Annotator", "White"]     # as read
    assert record.write(game, digest=False) == (
        '[White "w"]\n[Rules "manual"]\n[Annotator "a"]\n[Zeta "z"]\n\n*\n')


def test_annotations_and_comments_attach_to_the_action_before_them():
    game = only("{opening} ; a line comment\n1. B@e1!? $2 $14 {strong} B@d8 *").game
    assert game.comments == ["opening", "a line comment"]
    node = game.nodes[0]
    assert (node.glyphs, node.nags, node.comments) == ("!?", (2, 14), ["strong"])
    assert record.write(game, digest=False) == "{opening} {a line comment} 1. B@e1!? $2 $14 {strong} 1... B@d8 *\n"


def test_a_comment_holding_a_closing_brace_is_written_as_a_line_comment():
    game = only("1. B@e1 ; a } b\nB@d8 *").game
    assert game.nodes[0].comments == ["a } b"]
    text = record.write(game, digest=False)
    assert text == "1. B@e1 ;a } b\n1... B@d8 *\n"
    assert only(text).game == game


def test_several_games_one_broken_does_not_hide_the_others():
    checked = record.read((DATA / "several.tgn").read_text(), "several.tgn")
    assert len(checked) == 6
    assert [c.error is None for c in checked] == [True, False, False, True, False, True]
    assert checked[0].game.result == "0-1" and checked[3].game.result == "1/2-1/2"
    two, three, five = checked[1].error, checked[2].error, checked[4].error
    assert (two.game, two.line, two.column, two.action) == (2, 10, 4, 3)
    assert (three.game, three.line, three.column) == (3, 16, 1)
    assert three.message == ("game 3: expected a result (1-0, 0-1, 1/2-1/2 or *) to end the game "
                             "before the next game's tags")
    assert (five.game, five.line, five.column) == (5, 21, 8)
    assert checked[3].game.tags["Event"] == "four" and checked[3].game.line == 16
    assert checked[5].game.nodes[1].action == Place(BASE, sq("c8"))


def test_read_game_wants_exactly_one_game():
    with pytest.raises(RecordError) as info:
        record.read_game("1. B@e1 *\n1. B@a1 *", "two.tgn")
    assert info.value.message == "game 2: expected one game, found 2; game 2 starts here"
    assert (info.value.line, info.value.path) == (2, "two.tgn")
    with pytest.raises(RecordError) as info:
        record.read_game("1. B@e1 B@d8 *\n\n  [Event \"b\"] *", "two.tgn")
    assert (info.value.line, info.value.column) == (3, 3)      # where game 2's first token is
    with pytest.raises(RecordError) as info:
        record.read_game("1. B@e1 *  1. B@a1 *")
    assert (info.value.line, info.value.column) == (1, 12)
    with pytest.raises(RecordError) as info:
        record.read_game("  \n")
    assert info.value.message == "no game found in this file"
    with pytest.raises(NotationError):
        record.read_game("1. Fz9-a3 *")


def test_records_with_no_tags_and_crlf_line_ends():
    game = only("1. B@e1\r\nB@d8 *\r\n").game
    assert len(game.nodes) == 2 and game.tags == {}


# ---------------------------------------------------------------------------
# Building

def test_new_record_fills_the_roster_and_rules():
    game = record.new_record(white="Ana", black="Bo", rules="readme", round=3)
    assert game.tags == {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "3",
                         "White": "Ana", "Black": "Bo", "Result": "*", "Rules": "readme"}
    assert game.start.edition_name == "readme" and game.states == [game.start]
    assert record.write(game, digest=False).endswith('[Rules "readme"]\n\n*\n')


def test_new_record_from_a_position():
    game = record.new_record(position=TWO_ON_D5)
    assert game.tags["Position"] == TWO_ON_D5 and game.start.ply == 10
    with pytest.raises(RecordError):
        record.new_record(position=TWO_ON_D5, rules="readme")      # editions differ (E1-E4)
    with pytest.raises(RecordError):
        record.new_record(rules="blitz")


def test_append_plays_records_and_sets_the_result_when_decided():
    game = record.new_record(position=BASE_FALLS)
    report = record.append(game, "Ta1-a8")
    assert [d.square for d in report.destroyed] == [sq("d8")]
    assert game.result == "1-0" and game.tags["Result"] == "1-0"     # R21
    with pytest.raises(IllegalActionError):
        record.append(game, "F@h8")                                  # R22: nothing follows
    with pytest.raises(RecordError):
        record.finish(game, "0-1")                                   # decided, result stands


def test_append_refuses_bad_text_and_illegal_actions_without_recording_them():
    game = record.new_record()
    with pytest.raises(NotationError):
        record.append(game, "Bz1")
    with pytest.raises(IllegalActionError):
        record.append(game, "B@e2")                                  # R5: rank 1
    assert game.nodes == [] and len(game.states) == 1


def test_finish_records_a_resignation_and_then_nothing_may_follow():
    game = record.new_record()
    record.append(game, "B@e1")
    record.finish(game, "0-1")                                       # R23
    assert game.result == "0-1" and game.tags["Result"] == "0-1"
    with pytest.raises(RecordError):
        record.append(game, "B@d8")
    with pytest.raises(RecordError):
        record.finish(game, "1-0")
    with pytest.raises(RecordError):
        record.finish(record.new_record(), "*")
    assert record.read_game(record.write(game)) == game


# ---------------------------------------------------------------------------
# Round trips

GLYPH_CHOICES = ("", "", "", "!", "?", "!!", "??", "!?", "?!")
COMMENT_WORDS = ("good", "a long plan", "x" * 30, "", "} brace", "{nested", "1-0", "* star")


def random_game(seed: int, edition: str, limit: int, annotate: bool) -> record.Record:
    """A random legal game built with append(), optionally with random annotations."""
    rng = random.Random(seed)
    game = record.new_record(rules=edition, white="W \"q\"", black="B\\b")
    if annotate and rng.random() < 0.5:
        game.comments.append(rng.choice(COMMENT_WORDS).strip())
    while not game.final.is_over and game.final.ply < limit:
        record.append(game, str(rng.choice(rules.legal_actions(game.final))))
        if annotate:
            node = game.nodes[-1]
            node.glyphs = rng.choice(GLYPH_CHOICES)
            node.nags = tuple(rng.randint(1, 255) for _ in range(rng.choice((0, 0, 0, 1, 2))))
            if rng.random() < 0.15:
                node.comments.append(" ".join(rng.choice(COMMENT_WORDS).split()))
    if not game.final.is_over and rng.random() < 0.3:
        record.finish(game, rng.choice(("1-0", "0-1", "1/2-1/2")))
    return game


def check_round_trip(game: record.Record) -> None:
    text = record.write(game)
    again = record.read_game(text)
    assert again == game
    assert again.states == game.states
    assert record.write(again) == text
    assert all(len(line) < 80 for line in text.splitlines() if not line.startswith(("[", ";"))
               and " ;" not in line)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32), st.sampled_from(("manual", "readme")), st.booleans())
def test_random_legal_games_survive_write_then_read(seed, edition, annotate):
    check_round_trip(random_game(seed, edition, 160, annotate))


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(("manual", "readme")), st.booleans())
def test_random_legal_games_survive_write_then_read_long(seed, edition, annotate):
    check_round_trip(random_game(seed, edition, 600, annotate))


def test_several_games_round_trip_through_write_all():
    games = [random_game(seed, "manual", 60, True) for seed in range(3)]
    read_back = record.read(record.write_all(games))
    assert [c.error for c in read_back] == [None, None, None]
    assert [c.game for c in read_back] == games


def test_action_positions_are_those_of_the_written_text():
    game = random_game(7, "manual", 40, False)
    text = record.write(game)
    lines = text.splitlines()
    for node in record.read_game(text).nodes:
        line = lines[node.action.line - 1]
        assert line[node.action.column - 1:].startswith(str(node.action))


# ---------------------------------------------------------------------------
# The collector around reading (record._collector_paused)

GAME = '[Result "*"]\n\n1. B@d1 1... B@e8 2. G@a1 *\n'


def _in_oldest_generation(obj) -> bool:
    return any(other is obj for other in gc.get_objects(generation=2))


def test_read_puts_what_it_returns_in_the_oldest_generation_and_restores_the_collector():
    gc.collect()                     # young generations empty: nothing promoted by chance
    [checked] = record.read(GAME, "t.tgn")
    assert checked.error is None
    assert gc.isenabled()
    assert _in_oldest_generation(checked.game)
    assert _in_oldest_generation(checked.game.nodes)


def test_read_leaves_the_collector_off_when_the_caller_turned_it_off():
    gc.disable()
    try:
        record.read(GAME, "t.tgn")
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_read_game_leaves_objects_the_caller_froze_frozen_also_on_error():
    # Asked of one object the test holds, not of the frozen count: another thread (pytest-
    # xdist's link to its controller) may free frozen objects meanwhile, and the count drops.
    held = [object()]
    gc.freeze()
    try:
        assert not _in_a_generation(held)
        with pytest.raises(RecordError):
            record.read_game(GAME + GAME, "t.tgn")
        assert not _in_a_generation(held)       # unfrozen, it would be back in generation 2
        assert gc.isenabled()
    finally:
        gc.unfreeze()
    assert _in_a_generation(held)


def _in_a_generation(obj) -> bool:
    """Whether the collector tracks ``obj`` in one of its generations (a frozen object is in
    none of them)."""
    return any(other is obj for other in gc.get_objects())


def test_an_entry_read_has_every_field_an_entry_made_by_hand_has():
    """The reader fills Entry objects field by field, not through __init__: a field added
    to Entry and forgotten there would be missing (an AttributeError here)."""
    [checked] = record.read(GAME, "t.tgn")
    nodes = checked.game.nodes
    assert len(nodes) == 3
    for node in nodes:
        assert node == record.Entry(node.action, report=node.report)
    assert len({id(node.comments) for node in nodes}) == 3     # a list of its own each
