"""The public library (docs/API.md): tomis.Position, tomis.Game, tomis.read_games.

The API wraps the engine and the record reader; these tests check it agrees with them and
with the command line (same messages, same canonical text) on every sample.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import tomis
from tomis.rules import position as position_codec
from tomis import rules
from tomis.notation import record
from tomis.cli import cli

SAMPLES = sorted((Path(__file__).resolve().parent.parent / "samples").glob("*.tgn"))
EMPTY = "8/8/8/8/8/8/8/8 - w 1448221/1448221 - manual 1 0"


def sample_games():
    return [(path.name, game) for path in SAMPLES for game in tomis.read_games(path)]


# --------------------------------------------------------------------------- the package

def test_every_exported_name_resolves_and_is_listed():
    for name in tomis.__all__:
        assert getattr(tomis, name) is not None
    assert set(tomis.__all__) <= set(dir(tomis))
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        tomis.Nope


def test_error_classes_are_the_errors_module_ones():
    from tomis import errors
    assert tomis.IllegalActionError is errors.IllegalActionError
    assert issubclass(tomis.IllegalActionError, tomis.TomisError)
    assert issubclass(tomis.FileError, tomis.TomisError)


def _modules_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys; print(' '.join(sys.modules))"],
                         capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_import_tomis_loads_nothing_else():
    loaded = _modules_after("import tomis")
    # Only the table of old import paths, which has to be in place before any of them is asked for.
    assert {m for m in loaded if m.startswith("tomis.")} == {"tomis._oldpaths"}
    assert "lark" not in loaded and "click" not in loaded


def test_reading_a_valid_record_needs_neither_lark_nor_click():
    loaded = _modules_after(f"import tomis; list(tomis.read_games({str(SAMPLES[0])!r}))")
    assert "tomis.game" in loaded
    assert "lark" not in loaded and "click" not in loaded


def test_py_typed_marker_ships():
    assert (Path(tomis.__file__).parent / "py.typed").is_file()


# --------------------------------------------------------------------------- Position

def test_empty_position_of_each_edition():
    assert tomis.Position().to_string() == EMPTY
    readme = tomis.Position(rules="readme")
    assert readme.rules == "readme" and readme.to_string() == EMPTY.replace("manual", "readme")
    assert (tomis.Position().turn, tomis.Position().result, tomis.Position().is_over) == ("white", "*", False)
    assert tomis.Position().action_number == 1 and tomis.Position().last is None


def test_unknown_rules_are_refused_naming_the_editions():
    with pytest.raises(tomis.PositionError, match=r"manual or readme.*\(E1-E4\)"):
        tomis.Position(rules="blitz")


def test_position_is_immutable_and_hashable():
    pos = tomis.Position()
    with pytest.raises(AttributeError, match="immutable"):
        pos.turn = "black"
    same = tomis.Position.from_string(EMPTY)
    assert pos == same and hash(pos) == hash(same) and len({pos, same}) == 1
    assert pos != pos.play("B@e1")


def test_repr_reads_back_as_code():
    pos = tomis.Position().play("B@e1")
    assert eval(repr(pos), {"Position": tomis.Position}) == pos


def test_str_is_the_ascii_diagram():
    from tomis.pictures.render import board
    pos = tomis.Position().play("B@e1")
    assert str(pos) == board(pos.state)
    assert " B " in str(pos)


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_positions_agree_with_the_engine_and_the_codec(path):
    game = tomis.read_game(path)
    assert game.error is None
    for pos, state in zip(game.positions(), game.record.states):
        assert pos.to_string() == position_codec.to_string(state)
        assert pos.to_json() == position_codec.to_json(state)
        assert tomis.Position.from_string(pos.to_string()) == pos
        assert pos.turn == (None if state.to_move is None else ("white", "black")[state.to_move])
        assert pos.action_number == state.ply + 1
        assert pos.result == state.result and pos.is_over == state.is_over
        assert [str(a) for a in pos.legal_actions()] == sorted(str(a) for a in rules.legal_actions(state))


def test_legal_actions_empty_once_decided():
    final = tomis.read_game(next(p for p in SAMPLES if p.name == "manual-win.tgn")).position  # R21
    assert final.is_over and final.legal_actions() == []


def test_units_gates_and_reserve_speak_show_json_words():
    pos = tomis.read_game(next(p for p in SAMPLES if p.name == "manual-win.tgn")).position
    view = pos.to_json()
    assert [u._asdict() for u in pos.units()] == view["units"]
    assert [g._asdict() for g in pos.gates()] == view["gates"]
    letters = dict(zip("BGMFSTQ", ("base", "gate", "marker", "frigate", "sentry", "tower", "flagship")))
    assert pos.reserve("White") == {letters[k]: v for k, v in view["reserve"]["white"].items()}
    with pytest.raises(tomis.RecordError, match="white or black"):
        pos.reserve("red")


def test_play_accepts_text_or_action_and_reports_what_happened():
    pos = tomis.Position()
    by_text = pos.play("B@e1")
    by_action = pos.play(tomis.Action.parse("B@e1") if hasattr(tomis.Action, "parse")
                         else by_text.last.action)
    assert by_text == by_action
    last = by_text.last
    assert (last.number, last.side, str(last.action)) == (1, "white", "B@e1")
    assert last.destroyed == () and last.result is None and pos.turn == "white"


def test_last_names_what_combat_destroyed():
    """manual-win.tgn, action 29: 15. Ff3-f4(e5) -- the suffix the record states (R15-R19)."""
    game = tomis.read_game(next(p for p in SAMPLES if p.name == "manual-win.tgn"))
    last = game.positions()[29].last
    assert str(last.action) == "Ff3-f4"
    assert last.destroyed == (tomis.Removed("e5", "black", "frigate"),)


def test_the_last_action_of_a_won_game_carries_the_result():
    final = tomis.read_game(next(p for p in SAMPLES if p.name == "manual-win.tgn")).position
    assert final.last.result == "1-0" and "(R21)" in final.last.reason


def test_illegal_action_raises_the_message_the_cli_prints(tmp_path):
    pos = tomis.Position().play("B@e1").play("B@d8")
    with pytest.raises(tomis.IllegalActionError) as caught:
        pos.play("G@d1")
    game = tomis.Game()
    for action in ("B@e1", "B@d8"):
        game.play(action)
    path = tmp_path / "g.tgn"
    path.write_text(str(game))
    out = CliRunner().invoke(cli, ["move", str(path), "G@d1", "--dry-run"])
    assert out.exit_code == 1
    assert str(caught.value) in out.output
    assert "(R6)" in str(caught.value)


def test_unreadable_action_text_is_a_notation_error():
    with pytest.raises(tomis.NotationError) as caught:
        tomis.Position().play("Fa2-a9")
    assert caught.value.column == 5          # where "a9" starts


def test_is_legal():
    pos = tomis.Position()
    assert pos.is_legal("B@e1") and not pos.is_legal("G@e1") and not pos.is_legal("nonsense")


# --------------------------------------------------------------------------- reading

def test_read_games_takes_a_path_a_pathlike_a_file_or_text():
    path = SAMPLES[0]
    text = path.read_text(encoding="utf-8")
    expected = [str(g) for g in tomis.read_games(path)]
    assert [str(g) for g in tomis.read_games(str(path))] == expected
    with open(path, encoding="utf-8") as handle:
        assert [str(g) for g in tomis.read_games(handle)] == expected
    with open(path, "rb") as handle:
        assert [str(g) for g in tomis.read_games(handle)] == expected
    assert [str(g) for g in tomis.read_games(text)] == expected
    assert [str(g) for g in tomis.read_games(io.StringIO(text))] == expected


def test_bom_crlf_and_mail_text_read_as_the_cli_reads_them():
    plain = SAMPLES[0].read_text(encoding="utf-8")
    expected = str(tomis.read_game(plain))
    crlf_bom = b"\xef\xbb\xbf" + plain.replace("\n", "\r\n").encode()
    assert str(tomis.read_game(io.BytesIO(crlf_bom))) == expected
    mail = "Hi Bo,\nmy move.\n\nOn Monday Ana wrote:\n" + "".join("> " + line + "\n" for line in plain.splitlines())
    assert str(tomis.read_game(mail)) == expected


def test_errors_in_mail_text_point_at_the_message_lines():
    mail = "Hello,\nhere it is:\n\n> 1. B@e1 B@e1 *\n"
    game = tomis.read_game(mail)
    assert (game.error.line, game.error.column) == (4, 11)


def test_a_bad_game_is_yielded_with_its_error_and_the_actions_before_it():
    games = list(tomis.read_games("1. B@e1 B@d8 *\n1. B@e1 B@e1 *\n1. Z *\n1. B@a1 *\n"))
    assert [g.error is None for g in games] == [True, False, False, True]
    second = games[1]
    assert (second.error.line, second.error.column, second.error.action) == (2, 9, 2)
    assert [str(a) for a in second.actions] == ["B@e1"]
    assert "(R5)" in str(second.error)
    third = games[2]
    assert isinstance(third.error, tomis.NotationError) and third.actions == []
    with pytest.raises(tomis.RecordError, match="read with an error"):
        second.play("B@d8")


def test_read_games_is_lazy_one_game_at_a_time(monkeypatch):
    replayed = []
    real = record._replay
    monkeypatch.setattr(record, "_replay", lambda chunk, game: (replayed.append(1), real(chunk, game)))
    games = tomis.read_games("1. B@e1 *\n" * 5)
    next(games)
    assert len(replayed) == 1
    assert len(list(games)) == 4 and len(replayed) == 5


def test_missing_files_raise_file_error():
    with pytest.raises(tomis.FileError, match="no such file"):
        list(tomis.read_games("nosuch-game.tgn"))
    with pytest.raises(tomis.FileError):
        list(tomis.read_games(Path("nosuch")))


def test_text_without_a_game_yields_nothing():
    assert list(tomis.read_games("just prose, no record")) == [] or \
        all(g.error is not None for g in tomis.read_games("just prose, no record"))
    assert tomis.read_game("") is None


def test_non_utf8_bytes_are_refused_with_a_place():
    with pytest.raises(tomis.FileError, match="byte 0xe9 at line 1, column 4"):
        tomis.read_game(io.BytesIO(b"[E \xe9]"))


# --------------------------------------------------------------------------- Game

@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_str_of_a_game_is_byte_identical_to_fmt(path):
    out = CliRunner().invoke(cli, ["fmt", "-"], input=path.read_text(encoding="utf-8"))
    assert out.exit_code == 0, out.output
    assert "".join(str(g) + "\n" for g in tomis.read_games(path)).rstrip("\n") + "\n" == out.stdout


def test_new_game_tags_roster_first():
    game = tomis.Game(white="Ana", black="Bo", rules="readme", Annotator="Cy", event="Ladder")
    assert list(game.tags) == ["Event", "Site", "Date", "Round", "White", "Black", "Result",
                               "Rules", "Annotator"]
    assert game.tags["Event"] == "Ladder" and game.tags["Rules"] == "readme"
    assert game.position.rules == "readme"


def test_tags_read_in_any_order_come_back_in_canonical_order():
    game = tomis.read_game('[Zeta "z"]\n[White "W"]\n[Event "E"]\n\n1. B@e1 *\n')
    assert list(game.tags)[:2] == ["Event", "White"] and list(game.tags)[-1] == "Zeta"


def test_bad_tags_are_refused():
    with pytest.raises(tomis.RecordError, match="not a tag name"):
        tomis.Game(**{"9lives": "x"})
    with pytest.raises(tomis.RecordError, match="one line"):
        tomis.Game(Annotator="a\nb")
    with pytest.raises(tomis.RecordError, match=r"\(E1-E4\)"):
        tomis.Game(rules="blitz")


def test_game_from_a_position_string():
    start = tomis.Position().play("B@e1").play("B@d8")
    game = tomis.Game(position=start.to_string())
    assert game.start == start and game.tags["Position"] == start.to_string()
    game.play("G@b1")
    assert tomis.read_game(str(game)).actions == game.actions


def test_play_undo_resign_and_agree():
    game = tomis.Game()
    game.play("B@e1")
    game.play("B@d8")
    assert str(game.undo()) == "B@d8" and len(game.actions) == 1
    game.play("B@d8")
    game.resign("WHITE")
    assert game.result == "0-1" and game.tags["Result"] == "0-1" and game.is_over
    with pytest.raises(tomis.RecordError, match="R23"):
        game.play("G@b1")
    assert game.undo() is None and game.result == "*" and len(game.actions) == 2
    game.agree_draw()
    assert game.result == "1/2-1/2"
    with pytest.raises(tomis.RecordError, match="already ended"):
        game.resign("black")


def test_undo_of_a_deciding_action_reopens_the_game():
    game = tomis.read_game(next(p for p in SAMPLES if p.name == "manual-win.tgn"))
    assert game.result == "1-0"
    game.undo()
    assert game.result == "*" and game.tags["Result"] == "*" and not game.is_over
    assert game.position.turn == "white"
    assert tomis.read_game(str(game)).error is None


def test_undo_with_nothing_to_take_back():
    with pytest.raises(tomis.RecordError, match="no action"):
        tomis.Game().undo()


def test_nodes_carry_numbers_sides_and_annotations():
    game = tomis.read_game(next(p for p in SAMPLES if p.name == "manual-win.tgn"))
    nodes = game.nodes
    assert [n.number for n in nodes] == list(range(1, len(nodes) + 1))
    assert nodes[0].side == "white" and nodes[1].side == "black"
    annotated = {n.number: n.glyphs for n in nodes if n.glyphs}
    assert annotated == {53: "!", 54: "?!", 58: "??", 59: "!"}
    assert any(n.comments for n in nodes)


def test_heading_and_repr():
    game = tomis.Game(white="Ana", black="Bo", event="Ladder")
    assert game.heading() == "Ana (White) vs Bo (Black), Ladder"
    assert repr(game) == "<Game Ana (White) vs Bo (Black), Ladder: 0 actions, *>"
    assert tomis.Game().heading() is None


def test_a_script_written_from_the_api_tour_replays_every_sample(tmp_path):
    """issue 11's yardstick: import tomis alone; each position string, legal-action count, result."""
    script = tmp_path / "replay.py"
    script.write_text(
        "import sys, tomis\n"
        "for path in sys.argv[1:]:\n"
        "    for game in tomis.read_games(path):\n"
        "        for position in game.positions():\n"
        "            print(position.to_string(), len(position.legal_actions()))\n"
        "        print(path, game.result)\n")
    done = subprocess.run([sys.executable, str(script), *map(str, SAMPLES)],
                          capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    expected = []
    for path in SAMPLES:
        checked = record.read(path.read_text(encoding="utf-8"))
        for item in checked:
            for state in item.game.states:
                expected.append(f"{position_codec.to_string(state)} {len(rules.legal_actions(state))}")
            expected.append(f"{path} {item.game.result}")
    assert lines == expected and done.stderr == ""


def test_legal_actions_of_a_game_by_square_and_after_it_ended():
    game = tomis.Game()
    for text in ("B@e1", "B@d8"):
        game.play(text)
    every = game.legal_actions()
    assert every == game.position.legal_actions()
    from_c1 = game.legal_actions("c1")
    assert from_c1 and all(str(action).endswith("@c1") for action in from_c1)
    assert set(map(str, from_c1)) < set(map(str, every))
    with pytest.raises(tomis.PositionError, match="'z9' is not a square like e4"):
        game.legal_actions("z9")
    game.agree_draw()                   # ended by agreement (R23): nothing may follow
    assert game.legal_actions() == [] and game.position.legal_actions() == every


def test_game_from_record_shares_the_record_it_wraps():
    checked = record.read_game("1. B@e1 B@d8 *\n")
    game = tomis.Game.from_record(checked)
    assert game.record is checked and game.error is None
    game.play("G@b1")
    assert len(checked.nodes) == 3 and str(game) == record.write(checked)


MAIL = Path(__file__).resolve().parent / "data" / "mail"


@pytest.mark.parametrize("name", ["gmail-base64.eml", "apple-top-qp.eml", "gmail-attachment.eml",
                                  "thunderbird-bottom-flowed.eml", "debris-curly-tags.eml"])
def test_read_games_reads_saved_messages_as_the_cli_does(name):
    """The library and `tomis extract` take the same record from a saved message (issue 14)."""
    path = MAIL / name
    out = CliRunner().invoke(cli, ["extract", str(path)])
    assert out.exit_code == 0, out.output
    cli_games = [str(g) for g in tomis.read_games(out.stdout)]
    assert [str(g) for g in tomis.read_games(path)] == cli_games
    with open(path, "rb") as handle:
        assert [str(g) for g in tomis.read_games(handle)] == cli_games


def test_error_places_in_a_message_count_in_the_saved_file():
    game = tomis.read_game(MAIL / "bottom-new-record-illegal.eml")
    assert (game.error.line, game.error.column) == (91, 9) and "(R5)" in str(game.error)


def test_diverging_records_in_one_message_are_refused():
    with pytest.raises(tomis.RecordError, match="diverge at action 2"):
        tomis.read_game(MAIL / "diverging-records.eml")


# -- correspondence play on the library's Game (what tomis new/move/claim/draw use) ----------

def _timed_game():
    game = tomis.Game(white="Ana", black="Bo")
    game.start_clock("1d+1d", "2026-11-01T00:00Z")
    game.play("B@e1")
    game.stamp("2026-11-01T01:00Z")
    return game


def test_a_clock_starts_stamps_go_forward_only_and_read_back():
    game = _timed_game()
    assert game.tags["TimeControl"] == "1d+1d" and game.stamps_actions()
    game.play("B@d8")
    with pytest.raises(tomis.RecordError, match="timestamps never go backwards"):
        game.stamp("2026-10-31T00:00Z")
    game.stamp("2026-11-01T02:00Z")
    again = tomis.read_game(str(game))
    assert again.error is None and again.nodes[-1].comments == ("[%ts 2026-11-01T02:00Z]",)
    with pytest.raises(tomis.RecordError, match="not a time control|TimeControl|time control"):
        tomis.Game().start_clock("soon")


def test_a_draw_offer_is_accepted_only_by_the_side_to_act():
    game = _timed_game()
    game.offer_draw()
    with pytest.raises(tomis.RecordError, match="only the side to act"):
        game.accept_draw("white")
    game.accept_draw("black")
    assert game.result == "1/2-1/2" and game.nodes[-1].comments[-1] == "[%draw accept]"
    with pytest.raises(tomis.RecordError, match="has already ended 1/2-1/2"):
        game.check_not_ended()


def test_a_claim_on_time_needs_the_opponents_time_gone():
    game = _timed_game()
    with pytest.raises(tomis.RecordError, match="Black's time has not run out"):
        game.claim_time("white", "2026-11-01T12:00Z")
    fall = game.claim_time("white", "2026-11-05T00:00Z")
    assert fall.side == 1 and game.result == "1-0"
    assert game.tags["Termination"] == "time forfeit"
    assert tomis.read_game(str(game)).error is None


def test_conditional_lines_are_checked_stored_and_fire():
    game = tomis.Game()
    game.play("B@e1")
    with pytest.raises(tomis.RecordError, match="cannot be played") as caught:
        game.add_lines([("B@d8", "G@b1"), ("B@d8", "G@e1")])
    assert (caught.value.line, caught.value.column) == (2, 1)      # the second line given
    assert game.nodes[-1].comments == ()                           # nothing stored
    game.add_lines([("B@d8", "G@b1")])
    game.play("B@d8")
    fired = game.play_fired_lines()
    assert [(owed.reply, owed.number) for owed in fired] == [("G@b1", 3)]
    assert [str(action) for action in game.actions] == ["B@e1", "B@d8", "G@b1"]
