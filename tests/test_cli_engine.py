"""The computer opponent's commands (issue 12): hint, analyse, engine, and play against
the computer, run through the real ``tomis`` group in process (conftest.invoke)."""

from __future__ import annotations

import json
import shutil


from tomis.notation import record
from conftest import invoke
from tomis.cli.engine import line_text
from tomis.engine.analysis import BLUNDER_DROP, MISTAKE_DROP, Verdict
from tomis.notation import parse_action
from tomis.rules import legal_actions, new_game

SAMPLE = "samples/pbem-in-progress.tgn"
FINISHED = "samples/manual-win.tgn"


def run(*args, **kwargs):
    return invoke(*args, catch_exceptions=False, **kwargs)


def final_state(path: str):
    with open(path) as source:
        return record.read_game(source.read()).final


def test_hint_names_a_legal_action_its_score_and_line(tmp_path):
    copy = tmp_path / "game.tgn"
    shutil.copy(SAMPLE, copy)
    before = copy.read_bytes()
    result = run("hint", str(copy), "--depth", "2")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("White to act: 13. ")
    action = parse_action(lines[0].split()[4])
    assert action in legal_actions(final_state(SAMPLE))
    assert lines[0].endswith(" frigates)")
    assert lines[1].startswith("expected line: 13. ")
    assert lines[2].startswith("searched 2 actions deep, ")
    assert copy.read_bytes() == before            # hint writes nothing


def test_hint_json_and_the_same_answer_twice():
    first = run("hint", SAMPLE, "--depth", "3", "--json")
    second = run("hint", SAMPLE, "--depth", "3", "--json")
    assert first.exit_code == 0, first.output
    data = json.loads(first.stdout)
    assert data["side"] == "white" and data["action_number"] == 25
    assert data["pv"][0] == data["action"] and data["depth"] == 3
    assert data["score_text"].endswith("frigates")
    assert parse_action(data["action"]) in legal_actions(final_state(SAMPLE))
    assert {k: v for k, v in data.items() if k != "seconds"} == \
        {k: v for k, v in json.loads(second.stdout).items() if k != "seconds"}


def test_hint_with_time_answers():
    result = run("hint", SAMPLE, "--time", "0.3")
    assert result.exit_code == 0, result.output


def test_hint_refuses_a_finished_game_and_bad_options():
    result = run("hint", FINISHED)
    assert result.exit_code == 1
    assert "the game is over (1-0, Black's base destroyed (R21)); there is no action to search" in result.output
    assert result.output.startswith(f"{FINISHED}:")
    result = run("hint", SAMPLE, "--time", "1", "--depth", "2")
    assert result.exit_code == 2 and "not both" in result.output
    result = run("hint", SAMPLE, "--time", "-1")
    assert result.exit_code == 2 and "not a number of seconds" in result.output
    result = run("hint", "no-such-file.tgn")
    assert result.exit_code == 2 and "no-such-file.tgn" in result.output


def test_analyse_scores_every_action_and_writes_a_valid_record(tmp_path):
    out = tmp_path / "analysed.tgn"
    result = run("analyse", SAMPLE, "--time", "0.05", "-o", str(out))
    assert result.exit_code == 0, result.output
    original = record.read_game(open(SAMPLE).read())
    rows = result.stdout.splitlines()
    assert len(rows) == len(original.nodes)
    assert rows[0].startswith("1. B@g1")
    analysed = record.read_game(out.read_text())            # valid: reads back with no error
    assert [n.action for n in analysed.nodes] == [n.action for n in original.nodes]
    for row, node in zip(rows, analysed.nodes):
        # A glyph in the table comes with the better line as a variation, and back.
        assert bool(node.variations) == ("; better " in row)
        if node.glyphs:
            assert node.glyphs in ("?", "??")
    # The players' own comments survive.
    assert any("Happy new year" in c for c in analysed.comments)
    result = run("analyse", SAMPLE, "-o", str(out))        # never replaces a file
    assert result.exit_code == 2 and "exists" in result.output


def test_glyph_thresholds():
    def glyph(drop):
        return Verdict("a", drop, 0, drop=drop).glyph

    assert glyph(MISTAKE_DROP) == ""
    assert glyph(MISTAKE_DROP + 1) == "?"
    assert glyph(BLUNDER_DROP) == "?"
    assert glyph(BLUNDER_DROP + 1) == "??"


def test_line_text_numbers_moves_like_a_record():
    state = new_game()
    actions = [parse_action(t) for t in ("B@e1", "B@d8", "G@b1")]
    assert line_text(state, actions) == "1. B@e1 B@d8 2. G@b1"
    from tomis.rules import apply
    after, _ = apply(state, actions[0])
    assert line_text(after, actions[1:]) == "1... B@d8 2. G@b1"


def test_engine_command_speaks_ugi():
    result = run("engine", input="ugi\nisready\nquit\n")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].startswith("id name tomis ") and "ugiok" in lines and lines[-1] == "readyok"


def test_analyse_to_stdout_keeps_the_table_apart():
    result = run("analyse", SAMPLE, "--time", "0.02", "-o", "-")
    assert result.exit_code == 0, result.stderr
    assert record.read_game(result.stdout).tags["White"] == "Hana Vlad"     # only the record
    assert result.stderr.splitlines()[0].startswith("1. B@g1")
