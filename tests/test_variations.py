"""Variations ( ... ) in records: read and replayed from their branch point, located errors,
kept by the canonical writer, not covered by the Digest (docs/NOTATION.md)."""

from __future__ import annotations

import pytest

from tomis.notation import record
from tomis.notation.record import MAX_VARIATION_DEPTH

ANNOTATED = """\
1. B@e1 B@d8 (1... B@a8 {the corner} (1... B@b8 $2) 2. G@b1 G@g8) 2. G@b1! G@g8
(2... G@a8 3. G@f2) 3. G@f2 *
"""


def error_of(text):
    checked = record.read(text)
    assert len(checked) == 1
    return checked[0].error


def test_variations_are_read_as_alternatives_from_the_position_before():
    game = record.read_game(ANNOTATED)
    assert [str(node.action) for node in game.nodes] == ["B@e1", "B@d8", "G@b1", "G@g8", "G@f2"]
    first = game.nodes[1].variations
    assert len(first) == 1
    side = first[0]
    assert side.start == game.states[1]             # before B@d8, which it replaces
    assert [str(node.action) for node in side.nodes] == ["B@a8", "G@b1", "G@g8"]
    assert side.nodes[0].comments == ["the corner"]
    nested = side.nodes[0].variations[0]
    assert [str(n.action) for n in nested.nodes] == ["B@b8"] and nested.nodes[0].nags == (2,)
    assert [str(n.action) for n in game.nodes[3].variations[0].nodes] == ["G@a8", "G@f2"]
    assert game.nodes[2].glyphs == "!"              # the main line goes on after ')'


def test_the_writer_keeps_variations_and_numbers_after_them():
    game = record.read_game(ANNOTATED)
    text = record.write(game, digest=False)
    assert text == (
        "1. B@e1 B@d8 (1... B@a8 {the corner} (1... B@b8 $2) 2. G@b1 G@g8) 2. G@b1! G@g8\n"
        "(2... G@a8 3. G@f2) 3. G@f2 *\n")
    again = record.read_game(text)
    assert again == game
    assert record.write(again, digest=False) == text


def test_a_line_comment_inside_a_variation_closes_on_the_next_line():
    game = record.read_game("1. B@e1 (1. B@a1 ;ends } here\n) B@d8 *")
    text = record.write(game, digest=False)
    assert text == "1. B@e1 (1. B@a1 ;ends } here\n) 1... B@d8 *\n"
    assert record.read_game(text) == game


def test_variations_do_not_change_the_digest():
    plain = record.read_game("1. B@e1 B@d8 2. G@b1 *")
    annotated = record.read_game("1. B@e1 B@d8 (1... B@a8) 2. G@b1 (2. G@c1) *")
    from tomis.notation.digest import game_digest
    assert game_digest(plain) == game_digest(annotated)


def test_commands_inside_variations_are_kept_and_not_interpreted():
    game = record.read_game("1. B@e1 (1. B@a1 {[%ts someday] [%if x]}) *")
    assert game.nodes[0].variations[0].nodes[0].comments == ["[%ts someday] [%if x]"]


@pytest.mark.parametrize("text, line, column, message", [
    ("1. B@e1 B@d8 (1... B@e1) *", 1, 20,
     "game 1, action 2 (Black) B@e1: the base goes on rank 8, Black's home row (R5)"),
    ("1. B@e1 B@d8\n(1. B@a8) *", 2, 2,
     "game 1, action 2 (Black) B@a8: the move number '1.' is wrong; this is Black's action of move 1, "
     "written '1...' (R4)"),
    ("1. B@e1 ( ) B@d8 *", 1, 9,
     "game 1: this variation holds no action; write the actions that replace the one before '(' inside it"),
    ("1. B@e1 ) B@d8 *", 1, 9,
     "game 1: ')' closes no variation; a variation is written ( ... ) after the action it replaces"),
    ("( 1. B@e1 ) *", 1, 1,
     "game 1: a variation '(' must follow an action: it replaces the action before it"),
    ("1. B@e1 2. (2. G@b1) *", 1, 9, "game 1: the move number '2.' has no action after it"),
    ("1. B@e1 B@d8 (1... B@a8 *", 1, 25,
     "game 1: the variation opened with '(' at line 1, column 14 is never closed with ')'"),
    ("1. B@e1 (1. B@a1 2.) B@d8 *", 1, 18, "game 1: the move number '2.' has no action after it"),
])
def test_variation_errors_are_located_like_the_main_line(text, line, column, message):
    error = error_of(text)
    assert (error.line, error.column, error.message) == (line, column, message)


def test_a_result_inside_a_variation_ends_the_game_there():
    first, second = record.read("1. B@e1 (1. B@a1 *) B@d8 *")
    assert (first.error.line, first.error.column, first.error.message) == (
        1, 18, "game 1: the variation opened with '(' at line 1, column 9 is never closed with ')'")
    assert second.error.message == ("game 2: ')' closes no variation; a variation is written ( ... ) "
                                    "after the action it replaces")


def test_an_action_after_a_decided_variation_is_refused():
    with open("samples/manual-win.tgn", encoding="utf-8") as file:
        game = record.read_game(file.read())
    last = game.nodes[-1]
    # A variation replaying the winning action, then going on after it.
    text = record.write(game, digest=False).replace(" 1-0", f" (30. {last.action} F@b8) 1-0")
    error = error_of(text)
    assert error.message.startswith("game 1, action 60 (Black) F@b8: the game already ended at action 59 (1-0")


def test_variations_nest_at_most_max_depth():
    deep = "1. B@e1 " + "(1. B@a1 " * (MAX_VARIATION_DEPTH + 1) + ")" * (MAX_VARIATION_DEPTH + 1) + " *"
    error = error_of(deep)
    column = len("1. B@e1 ") + len("(1. B@a1 ") * MAX_VARIATION_DEPTH + 1
    assert (error.line, error.column, error.message) == (
        1, column, f"game 1: variations nest at most {MAX_VARIATION_DEPTH} deep (MAX_VARIATION_DEPTH)")
    ok = "1. B@e1 " + "(1. B@a1 " * MAX_VARIATION_DEPTH + ")" * MAX_VARIATION_DEPTH + " *"
    assert error_of(ok) is None


# --------------------------------------------------------------------------- replay and variation add

def test_replay_shows_each_side_line_indented_after_the_action_it_replaces():
    from conftest import SAMPLES_DIR, invoke

    result = invoke("replay", SAMPLES_DIR / "annotated-variations.tgn", "--to", "14")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "\n    instead of action 2: 1... B@a8 $6 {the corner base is slow to defend} 2. G@b1\n" in out
    assert ("\n    instead of action 13: 7. Fa1-a2 T@a8 {a calmer plan} (7... Fh8-g8 8. Fa2-b2)\n" in out)
    # After the action's own board, before the next action.
    assert out.index("instead of action 2:") < out.index("White played 2. G@b1 (action 3)")


def test_replay_variations_steps_into_side_lines_with_boards():
    from conftest import SAMPLES_DIR, invoke

    result = invoke("replay", SAMPLES_DIR / "annotated-variations.tgn", "--from", "13", "--to", "13",
                    "--variations")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "\n    variation instead of action 13:\n    White played 7. Fa1-a2 (action 13)\n" in out
    assert "\n        variation instead of action 14:\n        Black played 7... Fh8-g8 (action 14)\n" in out
    assert "\n         8 | " in out          # the nested line's board, indented twice
    assert out.count("end of the variation") == 2


def test_variation_add_writes_a_checked_canonical_side_line(tmp_path):
    from conftest import SAMPLES_DIR, invoke

    path = tmp_path / "v.tgn"
    path.write_bytes((SAMPLES_DIR / "annotated-variations.tgn").read_bytes())
    result = invoke("variation", "add", path, "--at", "3", "2. G@c1 G@g8")
    assert result.exit_code == 0, result.stderr
    text = path.read_text(encoding="utf-8")
    game = record.read_game(text)
    side = game.nodes[2].variations[0]
    assert [str(node.action) for node in side.nodes] == ["G@c1", "G@g8"]
    assert side.start == game.states[2]             # from the position before action 3
    assert invoke("fmt", "--check", path).exit_code == 0        # written canonical
    assert "2. G@b1\n(2. G@c1 G@g8) 2... G@g8" in text


@pytest.mark.parametrize("args, where, message", [
    (["--at", "3", "2. G@d1"], "<actions>:1:4:", "(R6)"),
    (["--at", "3", "2. G@b1"], "<actions>:1:1:", "the main line already plays these actions"),
    (["--at", "2", "B@a8 G@b1"], "<actions>:1:1:", "a variation of the record already plays"),
    (["--at", "3", "2. Zz9"], "<actions>:1:4:", ""),
], ids=["illegal", "main-line", "repeat", "unreadable"])
def test_variation_add_refuses_and_leaves_the_file_as_it_was(tmp_path, args, where, message):
    from conftest import SAMPLES_DIR, invoke

    path = tmp_path / "v.tgn"
    path.write_bytes((SAMPLES_DIR / "annotated-variations.tgn").read_bytes())
    before = path.read_bytes()
    result = invoke("variation", "add", path, *args)
    assert result.exit_code == 1
    assert result.stderr.startswith(where) and message in result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert path.read_bytes() == before


def test_variation_add_at_an_action_the_game_lacks_is_a_usage_error(tmp_path):
    from conftest import SAMPLES_DIR, invoke

    path = tmp_path / "v.tgn"
    path.write_bytes((SAMPLES_DIR / "annotated-variations.tgn").read_bytes())
    result = invoke("variation", "add", path, "--at", "19", "B@a1")
    assert result.exit_code == 2 and "the game has actions 1 to 18" in result.stderr
