"""The generated parser tables agree with the grammar and with Lark itself.

tomis/lalr.py runs tables that tools/gen_parser_tables.py read off Lark. These tests
fail when the grammar changed without regenerating them, and compare the runtime with
Lark on real records and on records broken in random ways: both must reject the same
texts and, where they accept, give the same tokens at the same lines and columns.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st
from lark.exceptions import UnexpectedInput

from tomis import notation
from tomis.notation import _parser_tables, lalr

ROOT = Path(__file__).resolve().parent.parent
RECORDS = sorted((ROOT / "samples").glob("*.tgn")) + sorted((ROOT / "tests" / "data" / "records").glob("*.tgn"))


def lark_tokens(text):
    try:
        return [(t.type, str(t), t.line, t.column) for t in notation.parser().parse(text)]
    except UnexpectedInput:
        return None


def table_tokens(text):
    found = lalr.parse(text)
    return None if found is None else [(t.type, t.value, t.line, t.column) for t in found]


def chunks(text):
    return [text[start:end] for start, end in notation.game_spans(text)]


def test_tables_were_generated_from_this_grammar():
    digest = hashlib.sha256(notation.grammar_text().encode("utf-8")).hexdigest()
    assert _parser_tables.GRAMMAR_SHA256 == digest, "grammar changed: run python tools/gen_parser_tables.py"


def test_generator_reproduces_the_committed_tables():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import gen_parser_tables
    finally:
        sys.path.pop(0)
    fresh = gen_parser_tables.tables(notation.grammar_text())
    assert fresh["TERMINALS"] == _parser_tables.TERMINALS
    assert fresh["STATES"] == _parser_tables.STATES
    assert (fresh["START_STATE"], fresh["END_STATE"]) == (_parser_tables.START_STATE, _parser_tables.END_STATE)


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.name)
def test_same_tokens_as_lark_on_every_record(path):
    for chunk in chunks(path.read_text(encoding="utf-8")):
        assert table_tokens(chunk) == lark_tokens(chunk)


def test_rejects_what_lark_rejects():
    for text in ["1. Fa2-a3 Fz9", "[Event \"x\"] 1. B@e1", "1. B@e1 {open", "1. B@e1 [Event \"late\"] *",
                 "1. B@e1 ) *", "", "*",
                 # a character no terminal matches: in the middle, first and last
                 "1. B@e1 % B@e8 *", "%1. B@e1 *", "1. B@e1 *%", "1. B@e1\n\n  &\n*"]:
        assert (table_tokens(text) is None) == (lark_tokens(text) is None), text


SAMPLE = (ROOT / "samples" / "every-action.tgn").read_text(encoding="utf-8")
_EDIT_CHARS = st.sampled_from(list(' \n{}[]"()!?$;*.-=:^>x@0123456789abcdefghFMBGSTQNESW/\\\tZ'))


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(chunks(SAMPLE)))
    for _ in range(draw(st.integers(1, 4))):
        if not text:
            break
        i = draw(st.integers(0, len(text) - 1))
        edit = draw(st.sampled_from(["delete", "insert", "duplicate", "swap"]))
        if edit == "delete":
            text = text[:i] + text[i + 1:]
        elif edit == "insert":
            text = text[:i] + draw(_EDIT_CHARS) + text[i:]
        elif edit == "duplicate":
            j = min(len(text), i + draw(st.integers(1, 12)))
            text = text[:j] + text[i:j] + text[j:]
        else:
            j = draw(st.integers(0, len(text) - 1))
            a, b = sorted((i, j))
            text = text[:a] + text[b:b + 1] + text[a + 1:b] + text[a:a + 1] + text[b + 1:] if a != b else text
    return text


@settings(max_examples=300, deadline=None)
@given(mutated())
def test_agrees_with_lark_on_mutated_records(text):
    assert table_tokens(text) == lark_tokens(text)


@pytest.mark.slow
@settings(max_examples=4000, deadline=None)
@given(mutated())
def test_agrees_with_lark_on_many_mutated_records(text):
    assert table_tokens(text) == lark_tokens(text)
