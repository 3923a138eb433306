"""notation.game_items: each game as typed items with their file locations (issue 11), and
the tag places a record keeps from them."""

from __future__ import annotations

import pytest

from tomis import notation
from tomis.notation import digest, record
from tomis.rules import actions
from tomis.rules.board import parse_square
from tomis.errors import NotationError, RecordError
from tomis.notation import (
    CommentItem, DestroyedItem, GlyphItem, MoveNumber, NagItem, ResultItem, TagItem, game_items,
)

# Two games; the second starts on the line where the first ends, after its result.
TEXT = (
    '[Event "Club \\"ladder\\""]\n'          # line 1
    '  [White  "Ana"]\n'                      # line 2: blanks before and inside
    '\n'
    '{opening} 1. B@e1! $3 1... B@d8 ;late\n'  # line 4
    '2. G@b1 ?! (e6,f6) *  [Event "two"]\n'   # line 5: game 2 starts at column 22
    '1. B@e1 1-0\n'                           # line 6
)


def items_of(text):
    return [list(game_items(chunk)) for chunk in notation.parse_games(text)]


def located(items):
    """(type name, what it holds, line, column) per item, for readable comparisons."""
    out = []
    for item in items:
        if isinstance(item, actions.Action):
            out.append(("action", str(item), item.line, item.column))
        else:
            out.append((type(item).__name__, item[0], item.line, item.column))
    return out


def test_each_token_becomes_a_typed_item_at_its_file_line_and_column():
    first, second = items_of(TEXT)
    assert located(first) == [
        ("TagItem", "Event", 1, 1),
        ("TagItem", "White", 2, 3),
        ("CommentItem", "opening", 4, 1),
        ("MoveNumber", "1.", 4, 11),
        ("action", "B@e1", 4, 14),
        ("GlyphItem", "!", 4, 18),
        ("NagItem", "$3", 4, 20),
        ("MoveNumber", "1...", 4, 23),
        ("action", "B@d8", 4, 28),
        ("CommentItem", "late", 4, 33),
        ("MoveNumber", "2.", 5, 1),
        ("action", "G@b1", 5, 4),
        ("GlyphItem", "?!", 5, 9),
        ("DestroyedItem", (parse_square("e6"), parse_square("f6")), 5, 12),
        ("ResultItem", "*", 5, 20),
    ]
    assert located(second) == [
        ("TagItem", "Event", 5, 23),
        ("MoveNumber", "1.", 6, 1),
        ("action", "B@e1", 6, 4),
        ("ResultItem", "1-0", 6, 9),
    ]


def test_items_carry_decoded_values_and_the_text_as_written():
    first, _second = items_of(TEXT)
    event, white = first[0], first[1]
    assert event == TagItem("Event", 'Club "ladder"', 1, 1, 8)
    assert white == TagItem("White", "Ana", 2, 3, 11)          # the value's quote column
    assert first[2] == CommentItem("opening", 7, 4, 1)
    assert first[9] == CommentItem("late", 4, 4, 33)           # ';late' holds 4 characters
    assert first[13] == DestroyedItem((parse_square("e6"), parse_square("f6")), "(e6,f6)", 5, 12)
    assert (first[3], first[5], first[6]) == (MoveNumber("1.", 4, 11), GlyphItem("!", 4, 18),
                                              NagItem("$3", 4, 20))
    assert first[-1] == ResultItem("*", 5, 20)


def test_a_comment_keeps_its_words_and_its_size_between_delimiters():
    (items,) = items_of("{ two\n   words } *")
    assert items[0] == CommentItem("two words", len(" two\n   words "), 1, 1)


def test_a_word_that_is_no_action_raises_only_when_reached():
    (chunk,) = notation.parse_games("1. B@e1 B@d8 2. Fa2a3 *")
    items = game_items(chunk)
    assert [str(x) if isinstance(x, actions.Action) else x for x in
            (next(items), next(items), next(items), next(items))] == [
        MoveNumber("1.", 1, 1), "B@e1", "B@d8", MoveNumber("2.", 1, 14)]
    with pytest.raises(NotationError) as caught:
        next(items)
    assert (caught.value.line, caught.value.column) == (1, 20)
    assert caught.value.message.startswith("expected -, =, >, x or ^ after 'Fa2'")


def test_a_record_keeps_where_each_tag_stood_the_digest_too():
    text = '[Event "x"] [Site "y"]\n[Digest "0000000000000000"]\n\n1. B@e1 *\n'
    (checked,) = record.read(text)
    assert "Digest" not in checked.game.tags
    assert checked.game.tag_places == {"Event": (1, 1), "Site": (1, 13), "Digest": (2, 1)}
    # The wrong digest is reported at its value, as before.
    assert (checked.error.line, checked.error.column) == (2, 9)


def test_tag_places_are_file_places_in_later_games():
    checked = record.read('1. B@e1 *\n\n[Event "second"]\n[White "Bo"]\n1. B@e1 *\n')
    assert checked[1].game.tag_places == {"Event": (3, 1), "White": (4, 1)}
    assert record.new_record().tag_places == {}      # a built game stood nowhere


def test_a_changed_tag_in_a_reply_is_located_where_it_stood_even_mid_line():
    sent = record.read_game('[Event "x"]\n[White "Ana"] [Black "Bo"]\n\n1. B@e1 *\n')
    reply = record.read_game('[Event "x"]\n[White "Ana"] [Black "Boris"]\n\n1. B@e1 B@d8 *\n')
    with pytest.raises(RecordError) as caught:
        digest.check_extends(sent, reply, "sent.tgn")
    assert caught.value.message == 'the Black tag was "Bo" in sent.tgn but is "Boris" here'
    assert (caught.value.line, caught.value.column) == (2, 15)
