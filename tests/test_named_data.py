"""Engine data read by name (issue 11): Gate, unit codes, board-level constants, and reprs
that read back as code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tomis import rules
from tomis.notation import record
from tomis.rules import actions, board, combat, position
from tomis.rules.board import (
    ACTIVE, BLACK, DECIDED_RESULTS, INACTIVE, JUMP, MANUAL, NE, README, RESULTS, UNDECIDED,
    UNIT_KIND, UNIT_SIDE, WHITE, Gate, parse_square, unit_code, unit_kind, unit_side,
)
from tomis.errors import NotationError, RecordError

SAMPLES = sorted((Path(__file__).resolve().parent.parent / "samples").glob("*.tgn"))


def sample_games():
    for path in SAMPLES:
        for checked in record.read(path.read_text(encoding="utf-8"), str(path)):
            assert checked.error is None, checked.error.located()
            yield checked.game


def every_gate():
    """Every gate standing in any position of the samples."""
    return [gate for game in sample_games() for state in game.states
            for gate in state.gates if gate is not None]


# -- Gate ---------------------------------------------------------------------------------

def test_the_engine_keeps_gates_as_named_tuples_whose_names_match_the_old_indexes():
    gates = every_gate()
    assert {gate.state for gate in gates} == {INACTIVE, ACTIVE, JUMP}    # the samples show all three
    for gate in gates:
        assert type(gate) is Gate
        assert (gate.square, gate.owner, gate.state, gate.markers, gate.direction) == tuple(gate)
        assert gate == tuple(gate) and hash(gate) == hash(tuple(gate))
        # Only a jump gate carries markers and a direction (R11).
        assert (gate.markers, gate.direction) == (0, -1) or gate.state == JUMP


def test_a_position_string_gives_back_the_same_gates_by_name():
    text = "4b3/8/8/8/8/8/8/4B3 c3wJ2NE,e4bA,f5wI w 0000021/0000021 - manual 21 0"
    state = position.from_string(text)
    c3, e4, f5 = (state.gate_at(parse_square(name)) for name in ("c3", "e4", "f5"))
    assert c3 == Gate(parse_square("c3"), WHITE, JUMP, 2, NE)
    assert (e4.owner, e4.state, f5.owner, f5.state) == (BLACK, ACTIVE, WHITE, INACTIVE)
    assert position.to_string(state) == text


@pytest.mark.parametrize("gate", [
    Gate(parse_square("c3"), WHITE, JUMP, 2, NE),
    Gate(parse_square("h8"), BLACK, INACTIVE),
    Gate(parse_square("a1"), WHITE, ACTIVE),
])
def test_a_gate_repr_reads_back(gate):
    text = repr(gate)
    assert text.startswith("Gate(square=parse_square(")
    assert eval(text, vars(board)) == gate


# -- unit codes ----------------------------------------------------------------------------

def test_unit_codes_round_trip_through_the_tables_and_the_helpers():
    codes = set()
    for side in (WHITE, BLACK):
        for kind in range(7):
            code = unit_code(side, kind)
            codes.add(code)
            assert (UNIT_SIDE[code], UNIT_KIND[code]) == (side, kind)
            assert (unit_side(code), unit_kind(code)) == (side, kind)
    assert len(codes) == 14


def test_every_unit_on_a_sample_board_decodes_to_a_side_and_a_unit_kind():
    kinds = set()
    for game in sample_games():
        for state in game.states:
            for code in state.units.values():
                assert UNIT_SIDE[code] in (WHITE, BLACK)
                kinds.add(UNIT_KIND[code])
    assert kinds <= {board.BASE, board.FRIGATE, board.SENTRY, board.TOWER, board.FLAGSHIP}
    assert board.BASE in kinds and board.FRIGATE in kinds


# -- constants at the board level -------------------------------------------------------------

def test_gate_state_and_edition_constants_have_one_home():
    # combat and rules still answer to the old names, and they are the board's.
    assert (combat.INACTIVE, combat.ACTIVE, combat.JUMP) == (INACTIVE, ACTIVE, JUMP)
    assert (combat.MANUAL, combat.README) == (MANUAL, README)
    assert rules.EDITIONS is board.EDITIONS
    assert board.EDITIONS[MANUAL] == "manual" and board.EDITIONS[README] == "readme"
    assert board.GATE_STATE_NAMES[JUMP] == "jump"


def test_rendering_a_board_needs_no_combat_module():
    code = ("import sys, tomis.pictures.render as r; from tomis.rules.board import Gate, JUMP; "
            "print(r.gate_mark(Gate(18, 0, JUMP, 1, 1))); print('tomis.rules.combat' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["GNE", "False"]


def test_one_set_of_results_serves_every_layer():
    assert RESULTS == ("1-0", "0-1", "1/2-1/2", "*") and DECIDED_RESULTS == RESULTS[:3]
    assert UNDECIDED == "*" and board.WIN_RESULTS == ("1-0", "0-1")
    assert record.DECIDED_RESULTS is DECIDED_RESULTS
    decided = {game.final.result for game in sample_games() if game.final.is_over}
    assert decided and decided <= set(DECIDED_RESULTS)
    for result in DECIDED_RESULTS:         # a position string takes each decided result
        text = f"8/8/8/8/8/8/8/4B3 - {result} 0448221/1448221 - manual 2 0"
        assert position.from_string(text).result == result
    game = record.new_record()
    with pytest.raises(RecordError, match=r"R23"):
        record.finish(game, UNDECIDED)


# -- reprs that read back ---------------------------------------------------------------------

def _namespace():
    return {**vars(board), "Action": actions.Action, "Destroyed": rules.Destroyed,
            "Report": rules.Report, "from_string": position.from_string}


def test_every_action_repr_reads_back_as_the_same_action():
    namespace = {"Action": actions.Action}
    seen = 0
    for game in sample_games():
        for state in game.states[:40]:
            for action in state.legal_actions():
                text = repr(action)
                assert text == f"Action.parse({str(action)!r})"
                assert eval(text, namespace) == action
                seen += 1
    assert seen > 1000


def test_action_parse_on_a_kind_refuses_another_kind():
    assert actions.Move.parse(" Fa2-a3") == actions.Move(board.FRIGATE, 8, 16)
    with pytest.raises(NotationError, match=r"expected a Move action, found 'F@a1' \(a Place\)"):
        actions.Move.parse("F@a1")
    with pytest.raises(NotationError, match=r"expected a piece letter"):
        actions.Action.parse("Xa2-a3")


def test_the_action_word_patterns_are_the_grammars_action_terminals():
    # The rules layer reads one action without the notation layer: its patterns must say
    # what the grammar's terminals say (the generated tables hold them, with the lookahead
    # and blanks that cut a word out of a record).
    from tomis.notation import _parser_tables

    terminals = dict(_parser_tables.TERMINALS)
    assert set(actions.WORD_PATTERNS) == set(actions.ACTION_TERMINALS)
    for kind, pattern in actions.WORD_PATTERNS.items():
        assert terminals[kind].startswith(pattern + "(?!"), kind


def test_reading_one_action_agrees_with_the_notation_parser():
    from tomis.notation.syntax import parse_action

    words = {str(action) for game in sample_games() for state in game.states[:30]
             for action in state.legal_actions()}
    assert len(words) > 300
    mutated = {word[:i] + c + word[i + 1:] for word in sorted(words)[:200] for i in range(len(word))
               for c in "aF@-:x^>=9Ni "}
    for text in sorted(words | mutated):
        try:
            expected = parse_action(text)
        except NotationError as error:
            with pytest.raises(NotationError) as caught:
                actions.read_action(text)
            assert caught.value.line == error.line, text
            continue
        found = actions.read_action(text)
        assert (found, found.line, found.column) == (expected, expected.line, expected.column)


def test_reports_and_states_of_the_samples_read_back():
    namespace = _namespace()
    reports = 0
    for game in sample_games():
        for node in game.nodes:
            assert eval(repr(node.report), namespace) == node.report
            reports += 1
        for state in game.states[::7] + [game.final]:
            again = eval(repr(state), namespace)
            assert again == state and position.to_string(again) == position.to_string(state)
    assert reports > 100


def test_a_destroyed_piece_reads_as_names():
    destroyed = rules.Destroyed(parse_square("e6"), BLACK, board.FRIGATE)
    assert repr(destroyed) == "Destroyed(square=parse_square('e6'), side=BLACK, piece=FRIGATE)"
    assert eval(repr(destroyed), _namespace()) == destroyed


# -- one definition each ------------------------------------------------------------------

def test_each_shared_tag_name_and_ending_is_assigned_in_one_module():
    import ast

    names = {"TIME_CONTROL_TAG", "TERMINATION_TAG", "TIME_FORFEIT", "DRAW", "WIN_RESULTS"}
    homes: dict[str, list[str]] = {name: [] for name in names}
    package = Path(__file__).resolve().parent.parent / "tomis"
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = (node.targets if isinstance(node, ast.Assign)
                       else [node.target] if isinstance(node, ast.AnnAssign) else [])   # NAME: Final = ...
            for target in targets:
                for element in (target.elts if isinstance(target, ast.Tuple) else [target]):
                    if isinstance(element, ast.Name) and element.id in names:
                        homes[element.id].append(path.relative_to(package).as_posix())
    assert homes == {"TIME_CONTROL_TAG": ["notation/tags.py"], "TERMINATION_TAG": ["notation/tags.py"],
                     "TIME_FORFEIT": ["notation/tags.py"], "DRAW": ["rules/board.py"],
                     "WIN_RESULTS": ["rules/board.py"]}
