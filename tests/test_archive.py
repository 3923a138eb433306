"""The archive commands on a crafted club archive whose answers are known game by game:
-j order and results equal to -j 1, every select filter, dedupe, stats and ratings,
export/replay rows; and streaming (the walk keeps one game at a time)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

import tomis
from tomis import archive, rules
from tomis.notation import record
import tomis.archive.walker  # noqa: F401  (patched below)
from tomis.errors import TomisError
from tomis.cli.output import ProgressLine, progress_wanted
from tomis.archive.select import ENDINGS, compile_position, board_text, ending_of, PatternError

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def random_game(seed: int, white: str, black: str, round_: int) -> tomis.Game:
    """A seeded random legal game played to its end (actions sorted by text, so the
    engine's internal order does not matter); seeds chosen for their ending."""
    rng = random.Random(seed)
    game = tomis.Game(white=white, black=black, round=str(round_))
    state = rules.new_game("manual")
    while not state.is_over:
        action = rng.choice(sorted(rules.legal_actions(state), key=str))
        state, _ = rules.apply_unchecked(state, action)
        game.play(str(action))
    return game


def short_game(white: str, black: str, round_: int, actions: list[str], rules_: str = "manual") -> tomis.Game:
    game = tomis.Game(white=white, black=black, round=str(round_), rules=rules_)
    for action in actions:
        game.play(action)
    return game


OPENING = ["B@e1", "B@d8", "G@b1", "G@g8", "G@c2", "G@f7", "G@d3", "G@e6", "G@a4", "G@h5"]
BASE_SEED, NO_ACTION_SEED, QUIET_SEED = 432, 366, 179     # their endings: R21, R22 (2), R22 (4)


@pytest.fixture(scope="module")
def club(tmp_path_factory) -> dict:
    """Three files, nine games, one of each ending, a duplicate and an invalid game."""
    folder = tmp_path_factory.mktemp("club")
    base = random_game(BASE_SEED, "Ana", "Bo", 1)                 # Black's base destroyed: 1-0
    resigned = short_game("Bo", "Carmen", 2, OPENING)
    resigned.resign("white")                                       # 0-1
    agreed = short_game("Carmen", "Ana", 3, OPENING[:6], "readme")
    agreed.agree_draw()
    no_action = random_game(NO_ACTION_SEED, "Ana", "Carmen", 4)    # Black cannot act: 1-0
    duplicate = tomis.read_game(str(base))                         # the same game, other tags
    duplicate.tags["Round"] = "5"
    duplicate.tags["Site"] = "typed twice"
    quiet = random_game(QUIET_SEED, "Bo", "Ana", 7)                # 1/2-1/2
    repetition = (SAMPLES / "repetition-draw.tgn").read_text(encoding="utf-8")
    unfinished = short_game("Dan", "Bo", 9, OPENING[:4])
    files = {
        "a.tgn": str(base) + "\n" + str(resigned),
        "b.tgn": "\n".join([str(agreed), str(no_action), str(duplicate),
                            '[White "Eve"]\n[Black "Bo"]\n\n1. B@e1 B@e1 *\n']),
        "c.tgn": str(quiet) + "\n" + repetition + "\n" + str(unfinished),
    }
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return {"folder": folder, "paths": [str(folder / name) for name in files],
            "games": {"base": base, "resigned": resigned, "agreed": agreed, "no_action": no_action,
                      "duplicate": duplicate, "quiet": quiet, "unfinished": unfinished}}


def invoke(*args, input=None):
    """``tomis ARGS`` in process, stdout and stderr apart."""
    from tomis.cli import cli

    return CliRunner().invoke(cli, [str(a) for a in args], input=input, catch_exceptions=False)


def stdout_of(result) -> str:
    return result.stdout


def stderr_of(result) -> str:
    return result.stderr


# --------------------------------------------------------------------------- the crafted archive

def test_the_crafted_games_end_as_intended(club):
    games = club["games"]
    assert games["base"].position.reason == "Black's base destroyed (R21)" and games["base"].result == "1-0"
    assert games["no_action"].position.reason == "Black has no legal action (R22)"
    assert "without destruction or deployment (R22)" in games["quiet"].position.reason


def test_validate_finds_the_one_invalid_game_with_its_rule(club):
    result = invoke("validate", *club["paths"], "--format", "jsonl", "-j", "1")
    assert result.exit_code == 1
    rows = [json.loads(line) for line in stdout_of(result).splitlines()]
    findings = [row for row in rows if row["type"] == "finding"]
    assert len(findings) == 1
    finding = findings[0]
    assert (finding["rule"], finding["game"], finding["line"], finding["column"], finding["action"]) == \
        ("R5", 4, finding["line"], 9, 2)
    text = Path(club["paths"][1]).read_text(encoding="utf-8").splitlines()
    assert text[finding["line"] - 1] == "1. B@e1 B@e1 *"
    summary = rows[-1]
    assert summary == {"type": "summary", "schema": 1, "files": 3, "games": 9, "invalid": 1,
                       "unreadable": 0, "ok": False}


# --------------------------------------------------------------------------- -j

@pytest.mark.parametrize("fmt", ["text", "json", "jsonl", "sarif", "junit", "github"])
def test_two_workers_write_exactly_what_one_process_writes(club, fmt, tmp_path):
    # A small split threshold makes the big-file path (pieces shared out) run too.
    many = tmp_path / "many.tgn"
    many.write_text("\n".join(Path(p).read_text(encoding="utf-8") for p in club["paths"] * 30),
                    encoding="utf-8")
    paths = club["paths"] + [str(many), str(tmp_path / "missing.tgn")] + club["paths"]
    outputs = {}
    for jobs in (1, 2):
        events = list(archive.walk(paths, None, jobs, split_chars=4096, piece_chars=2000))
        outputs[jobs] = render(events, fmt)
    assert outputs[1] == outputs[2]
    assert outputs[1][0]          # something was written


def render(events, fmt):
    import io

    from tomis.archive.reports import make_report

    out, err = io.StringIO(), io.StringIO()
    report = make_report(fmt, out, err)
    report.start()
    for event in events:
        report.event(event)
    report.finish()
    return out.getvalue(), err.getvalue(), report.worst


def test_pieces_of_a_big_file_are_numbered_and_located_as_in_one_piece(club, tmp_path):
    many = tmp_path / "many.tgn"
    many.write_text("\n".join(Path(p).read_text(encoding="utf-8") for p in club["paths"] * 5),
                    encoding="utf-8")
    whole = list(archive.walk([str(many)], None, 1, split_chars=1 << 30))
    pieces = list(archive.walk([str(many)], None, 2, split_chars=1000, piece_chars=1500))
    assert whole == pieces
    assert len(list(archive.plan(many.read_text(encoding="utf-8"), "many", 1500))) > 5
    bad = [e for e in whole if isinstance(e, archive.GameOutcome) and e.finding]
    assert [e.number for e in bad] == [6, 15, 24, 33, 42]
    assert [e.finding.message.split(",")[0] for e in bad] == [f"game {n}" for n in (6, 15, 24, 33, 42)]
    lines = many.read_text(encoding="utf-8").splitlines()
    assert all(lines[e.finding.line - 1] == "1. B@e1 B@e1 *" for e in bad)


def test_the_walk_matches_the_readers_own_account_of_each_game(club):
    for path in club["paths"]:
        expected = record.read(Path(path).read_text(encoding="utf-8"), path)
        got = [e for e in archive.walk([path]) if isinstance(e, archive.GameOutcome)]
        assert len(got) == len(expected)
        for outcome, checked in zip(got, expected):
            if checked.error is None:
                assert (outcome.actions, outcome.result) == (len(checked.game.nodes), checked.game.result)
            else:
                assert outcome.finding.located() == checked.error.located()


def test_the_games_limit_still_holds_when_a_file_is_cut_into_pieces(monkeypatch, tmp_path):
    monkeypatch.setattr(record, "MAX_GAMES_PER_FILE", 5)
    many = tmp_path / "many.tgn"
    many.write_text("*\n" * 8, encoding="utf-8")
    events = list(archive.walk([str(many)], None, 1, split_chars=4, piece_chars=3))
    outcomes = [e for e in events if isinstance(e, archive.GameOutcome)]
    assert len(outcomes) == 6
    assert outcomes[-1].finding.rule == "N-limit"
    assert outcomes[-1].finding.located().startswith(f"{many}:6:1: game 6: a file may hold at most 5 games")


# --------------------------------------------------------------------------- select

def selected(club, *args):
    result = invoke("select", *club["paths"], "-j", "1", *args)
    assert result.exit_code == 0, result.stderr
    return [game for game in tomis.read_games(stdout_of(result))] if stdout_of(result) else []


def rounds(games):
    return [g.tags.get("Round") for g in games]


def test_select_by_tag_regex(club):
    assert rounds(selected(club, "--tag", "White=^Ana$")) == ["1", "4", "5"]
    assert rounds(selected(club, "--tag", "Site=typed")) == ["5"]


def test_select_by_player_of_either_colour(club):
    assert rounds(selected(club, "--player", "Carmen")) == ["2", "3", "4"]


def test_select_by_result_and_rules(club):
    assert rounds(selected(club, "--result", "0-1")) == ["2"]
    assert rounds(selected(club, "--result", "1/2-1/2", "--rules", "readme")) == ["3"]


def test_select_by_length(club):
    lengths = {round_: len(game.actions) for round_, game in
               ((g.tags["Round"], g) for g in selected(club))}
    chosen = rounds(selected(club, "--min-actions", "5", "--max-actions", "10"))
    assert chosen == [r for r, n in lengths.items() if 5 <= n <= 10] and chosen


@pytest.mark.parametrize("ending,expected", [
    ("base-destroyed", ["1", "5"]), ("no-legal-action", ["4"]), ("repetition", ["4"]),
    ("quiet-actions", ["7"]), ("resignation", ["2"]), ("agreement", ["3"]), ("unfinished", ["9"]),
])
def test_select_by_how_the_game_ended(club, ending, expected):
    games = selected(club, "--ended", ending)
    assert rounds(games) == expected
    if ending == "repetition":      # the sample game, Round 4 of its championship
        assert games[0].tags["White"] == "Bogdan Ionescu"


# Endings only a match's Termination tag gives; tests/test_match.py selects and counts them.
MATCH_ENDINGS = ("adjudicated", "forfeit")


def test_every_ending_is_met_once_or_more(club):
    assert sorted({e for e in ENDINGS}) == sorted(ENDINGS)
    for ending in ENDINGS:
        assert bool(selected(club, "--ended", ending)) == (ending not in MATCH_ENDINGS), ending


def test_a_termination_tag_turns_an_agreement_or_resignation_into_its_ending(club):
    """R23 results are agreed or resigned unless a Termination tag says an arbiter ruled."""
    agreed, resigned = club["games"]["agreed"], club["games"]["resigned"]
    assert (ending_of(agreed.record), ending_of(resigned.record)) == ("agreement", "resignation")
    for game, termination, ending in ((agreed, "Adjudication", "adjudicated"),
                                      (resigned, "time forfeit", "forfeit"),
                                      (resigned, "normal", "resignation")):
        tagged = tomis.read_game(str(game))
        tagged.tags["Termination"] = termination
        assert ending_of(tagged.record) == ending, termination
    decided = tomis.read_game(str(club["games"]["base"]))       # the rules decide first (R21)
    decided.tags["Termination"] = "adjudication"
    assert ending_of(decided.record) == "base-destroyed"


def test_select_by_an_action_played(club):
    every = selected(club)
    chosen = selected(club, "--played", "G@a4")
    expected = [g.tags["Round"] for g in every if "G@a4" in [str(a) for a in g.actions]]
    assert rounds(chosen) == expected and "2" in expected and len(expected) < len(every)
    by_pattern = selected(club, "--played", "B@?1")
    assert len(by_pattern) == 8           # every valid game places White's base on rank 1
    assert selected(club, "--played", "Q@*") == [g for g in selected(club) if any(
        str(a).startswith("Q@") for a in g.actions)]


def test_select_by_a_position_reached(club):
    # Black's base on d8 with nothing else on rank 8 and White's base on e1 (the OPENING games).
    chosen = selected(club, "--position", "3b4/*/*/*/*/*/*/4B3")
    assert rounds(chosen) == ["2", "3", "9"]


def test_position_patterns_read_as_documented():
    regex = compile_position("*/*/*/*/*/*/*/*Q*")
    assert regex.fullmatch("8/8/8/8/8/8/8/3Q4".replace("8", "........").replace("3Q4", "...Q...."))
    assert not regex.fullmatch("/".join(["........"] * 8))
    with pytest.raises(PatternError, match="8 ranks"):
        compile_position("*/*")
    with pytest.raises(PatternError, match="covers 9 squares"):
        compile_position("9/*/*/*/*/*/*/*".replace("9", "8?"))
    with pytest.raises(PatternError, match="unexpected 'x'"):
        compile_position("x/*/*/*/*/*/*/*")


def test_board_text_is_the_units_field_expanded():
    position = tomis.Position().play("B@e1").play("B@d8")
    expected = position.to_string().split()[0]
    expanded = board_text(position.state)
    import re
    assert re.sub(r"\.+", lambda m: str(len(m.group())), expanded) == expected


def test_select_invalid_writes_the_broken_game_as_written(club):
    result = invoke("select", *club["paths"], "--invalid", "-j", "1")
    assert stdout_of(result) == '[White "Eve"]\n[Black "Bo"]\n\n1. B@e1 B@e1 *\n'
    assert "selected 1 of 9 game(s) in 3 file(s)" in stderr_of(result)


def test_select_writes_canonical_records_to_a_file(club, tmp_path):
    out = tmp_path / "ana.tgn"
    result = invoke("select", *club["paths"], "--player", "^Ana$", "-o", out, "-j", "2")
    assert result.exit_code == 0 and stdout_of(result) == ""
    games = list(tomis.read_games(out))
    assert rounds(games) == ["1", "3", "4", "5", "7"]
    assert out.read_text(encoding="utf-8") == "\n".join(str(g) for g in games)
    assert "1 invalid game(s) skipped" in stderr_of(result)


def test_select_refuses_bad_patterns_with_a_usage_error(club):
    for args in (["--tag", "White"], ["--tag", "White=("], ["--position", "8/8"], ["--played", ""]):
        result = invoke("select", *club["paths"], *args)
        assert result.exit_code == 2, args
        assert "Traceback" not in result.output


# --------------------------------------------------------------------------- dedupe

def test_dedupe_keeps_the_first_and_names_the_duplicate(club, tmp_path):
    unique, dups = tmp_path / "unique.tgn", tmp_path / "dups.tgn"
    result = invoke("dedupe", *club["paths"], "-o", unique, "--duplicates", dups, "-j", "1")
    assert result.exit_code == 0
    a, b = club["paths"][0], club["paths"][1]
    assert f"{b}: game 3 duplicates {a}: game 1" in stderr_of(result)
    assert "9 game(s) in 3 file(s): 7 unique, 1 duplicate(s), 1 invalid left out" in stderr_of(result)
    assert rounds(tomis.read_games(unique)) == ["1", "2", "3", "4", "7", "4", "9"]
    assert rounds(tomis.read_games(dups)) == ["5"]


def test_dedupe_ignores_tags_but_not_the_final_position(club):
    from tomis.archive.dedupe import game_key

    base = club["games"]["base"].record
    assert game_key(base) == game_key(club["games"]["duplicate"].record)
    shorter = tomis.read_game(str(club["games"]["base"]))
    shorter.undo()
    assert game_key(shorter.record) != game_key(base)


# --------------------------------------------------------------------------- stats

def test_stats_counts_the_crafted_archive(club):
    result = invoke("stats", *club["paths"], "--json", "-j", "1")
    assert result.exit_code == 0
    data = json.loads(stdout_of(result))
    assert (data["games"], data["valid"], data["invalid"], data["files"]) == (9, 8, 1, 3)
    assert data["endings"] == {"base-destroyed": 2, "no-legal-action": 1, "repetition": 1,
                               "quiet-actions": 1, "resignation": 1, "agreement": 1, "adjudicated": 0,
                               "forfeit": 0, "unfinished": 1}
    assert data["results"]["readme"] == {"1-0": 0, "0-1": 0, "1/2-1/2": 1, "*": 0}
    assert data["results"]["manual"] == {"1-0": 3, "0-1": 1, "1/2-1/2": 2, "*": 1}
    from collections import Counter
    every = selected(club)
    assert data["first_placements"]["white"] == dict(Counter(str(g.actions[0]) for g in every))
    assert data["first_placements"]["black"] == dict(Counter(str(g.actions[1]) for g in every))
    assert data["first_placements"]["white"]["B@e1"] >= 3     # the three OPENING games
    lengths = [len(g.actions) for g in every]
    assert data["lengths"]["min"] == min(lengths) and data["lengths"]["max"] == max(lengths)
    assert sum(b["games"] for b in data["lengths"]["buckets"]) == 8
    players = {p["name"]: p for p in data["players"]}
    # Ana: won 1 and 5 (base), 4 (no action); drew 3 (agreed) and 7 (quiet).
    assert (players["Ana"]["wins"], players["Ana"]["draws"], players["Ana"]["losses"]) == (3, 2, 0)
    assert players["Bo"]["losses"] == 3 and players["Bo"]["draws"] == 1
    assert data["crosstable"]["Ana"]["Bo"] == {"score": 2.5, "games": 3}
    assert data["crosstable"]["Bo"]["Ana"] == {"score": 0.5, "games": 3}
    assert "Dan" not in players                   # his only game is unfinished
    assert data["players"][0]["name"] == "Ana"


def test_elo_ratings_follow_the_documented_formula(tmp_path):
    # Both start at 1500: expected 0.5, so Ana gains 20 * (1 - 0.5) = 10 -> 1510 / 1490.
    # Then expected = 1 / (1 + 10 ** ((1490 - 1510) / 400)) = 0.52876, gain 20 * 0.47124 = 9.42
    # -> 1519.42 / 1480.58, printed rounded: 1519 / 1481.
    games = []
    for round_ in (1, 2):
        game = short_game("Ana", "Bo", round_, ["B@e1"])
        game.resign("black")
        games.append(str(game))
    path = tmp_path / "two.tgn"
    path.write_text("\n".join(games), encoding="utf-8")
    data = json.loads(stdout_of(invoke("stats", path, "--json")))
    assert [(p["name"], p["rating"]) for p in data["players"]] == [("Ana", 1519), ("Bo", 1481)]
    assert data["rating"]["start"] == 1500 and data["rating"]["k"] == 20


def test_stats_text_shows_every_section(club):
    text = stdout_of(invoke("stats", *club["paths"]))
    for heading in ("9 games in 3 file(s): 8 valid, 1 invalid", "Results by rules edition:",
                    "How games ended:", "Length in actions:", "First placements, White:",
                    "Players (score, then rating", "Crosstable"):
        assert heading in text


# --------------------------------------------------------------------------- export and replay views

def test_export_jsonl_gives_one_row_per_action(club):
    result = invoke("export", club["paths"][0], "--jsonl")
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    base, resigned = club["games"]["base"], club["games"]["resigned"]
    assert result.exit_code == 0 and len(rows) == len(base.actions) + len(resigned.actions)
    first = rows[0]
    assert (first["game"], first["number"], first["side"], first["action"]) == (1, 1, "white", str(base.actions[0]))
    assert first["position"] == base.positions()[1].to_string()
    last_of_base = rows[len(base.actions) - 1]
    assert last_of_base["position"] == base.position.to_string()
    assert [d["piece"] for d in last_of_base["destroyed"]].count("base") == 1     # R21 ended it
    assert rows[len(base.actions)]["game"] == 2


def test_export_jsonl_leaves_out_invalid_games_and_says_so(club):
    result = invoke("export", club["paths"][1], "--jsonl")
    assert result.exit_code == 1 and "(R5)" in result.stderr and "(left out)" in result.stderr
    assert {json.loads(line)["game"] for line in result.stdout.splitlines()} == {1, 2, 3}


def test_export_asks_for_a_form():
    assert invoke("export", SAMPLES / "manual-win.tgn").exit_code == 2


def test_replay_shows_glyphs_and_comments():
    text = invoke("replay", SAMPLES / "manual-win.tgn", "--ascii").stdout
    assert text.startswith("{Both sides build a diagonal chain of gates toward the centre.}\n")
    assert "Black played 29... Fc5-b5?? (action 58)\n  {Black reopens the c-file" in text
    game = tomis.read_game(str(SAMPLES / "manual-win.tgn"))
    assert text.count("\n  {") == sum(len(node.comments) for node in game.nodes)
    later = invoke("replay", SAMPLES / "manual-win.tgn", "--from", "58", "--to", "58").stdout
    assert not later.startswith("{Both sides")          # opening comments only from the start


def test_replay_jsonl_rows_for_a_range():
    result = invoke("replay", SAMPLES / "manual-win.tgn", "--format", "jsonl", "--from", "53", "--to", "54")
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["number"], r["action"], r["glyphs"]) for r in rows] == [(53, "F@d1", "!"), (54, "Fd5-c5", "?!")]
    assert invoke("replay", SAMPLES / "manual-win.tgn", "--format", "jsonl", "--step").exit_code == 2


# --------------------------------------------------------------------------- streaming

@pytest.mark.slow
def test_games_are_read_one_at_a_time(tmp_path, monkeypatch):
    # A probe that records how many games are alive at once: with streaming, one.
    import gc
    import weakref

    alive = []

    class Counting(archive.Probe):
        def __call__(self, checked, source):
            alive.append(weakref.ref(checked.game))
            gc.collect()
            return sum(ref() is not None for ref in alive)

    path = tmp_path / "many.tgn"
    path.write_text("\n".join(["1. B@e1 B@d8 2. G@b1 G@g8 *"] * 200), encoding="utf-8")
    counts = [e.payload for e in archive.walk([str(path)], Counting()) if isinstance(e, archive.GameOutcome)]
    assert len(counts) == 200 and max(counts) <= 2


# --------------------------------------------------------------------------- progress

class FakeTerminal:
    def __init__(self, tty: bool):
        self.tty, self.text = tty, ""

    def isatty(self):
        return self.tty

    def write(self, text):
        self.text += text

    def flush(self):
        pass


def test_progress_line_is_drawn_after_a_second_and_cleared_before_other_lines():
    import time

    progress = archive.Progress(files_total=4, bytes_total=1000)
    progress.started = time.monotonic() - 2.0          # two seconds of work behind us
    progress.advance(files=1, games=300, size=250)
    screen = FakeTerminal(True)
    line = ProgressLine(screen, progress, True, "validating")
    line.tick()
    drawn = screen.text
    assert drawn.startswith("\rvalidating: 1/4 files, 300 games, ") and "games/s" in drawn
    assert drawn.endswith(" left")                     # 3/4 of the bytes to go
    line.write("a.tgn:1:1: problem\n")
    cleared = "\r" + " " * (len(drawn) - 1) + "\r"
    # Cleared for the problem line, and drawn again under it at once (its rates may
    # have moved on meanwhile; the counts have not).
    before, again = screen.text.split("a.tgn:1:1: problem\n")
    assert before == drawn + cleared
    assert again.startswith("\rvalidating: 1/4 files, 300 games, ") and again.endswith(" left")
    line.write("a.tgn:2:")                             # half a line: no line under it yet
    assert screen.text.endswith("\r" + "a.tgn:2:") and "a.tgn:2:" not in again


def test_no_progress_line_in_the_first_second_on_a_pipe_or_when_quiet():
    progress = archive.Progress(files_total=4, bytes_total=1000)
    fresh = FakeTerminal(True)
    ProgressLine(fresh, progress, True, "validating").tick()   # under a second
    assert fresh.text == ""
    assert progress_wanted(FakeTerminal(True), quiet=False)
    assert not progress_wanted(FakeTerminal(False), quiet=False)    # a pipe
    assert not progress_wanted(FakeTerminal(True), quiet=True)


def test_validate_on_a_pipe_writes_no_progress(club):
    result = invoke("validate", *club["paths"], "-j", "1")
    assert "\r" not in result.stderr and "files," not in result.stderr
    assert result.stdout.count(": ok, ") == 2


# --------------------------------------------------------------------------- stdin and outputs

def test_validate_reads_stdin_as_one_more_file(club):
    text = Path(club["paths"][1]).read_text(encoding="utf-8")
    result = invoke("validate", "--format", "jsonl", "-", input=text)
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert result.exit_code == 1
    assert [(r["path"], r["rule"], r["game"]) for r in rows if r["type"] == "finding"] == [("<stdin>", "R5", 4)]


def test_an_output_that_cannot_be_written_is_one_line_and_exit_1(club, tmp_path):
    target = tmp_path / "no-such-folder" / "out.tgn"
    result = invoke("select", *club["paths"], "-o", target)
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines()[-1].startswith(str(target))
    assert not target.exists()


def test_json_and_another_format_together_are_a_usage_error(club):
    assert invoke("validate", "--json", "--format", "sarif", *club["paths"]).exit_code == 2


def test_without_worker_processes_the_walk_runs_in_this_process(club, monkeypatch):
    def refused(jobs):
        raise OSError("no semaphores here")

    monkeypatch.setattr(archive.walker, "_executor", refused)     # the module, not the package
    assert list(archive.walk(club["paths"], None, 2)) == list(archive.walk(club["paths"], None, 1))


def test_pieces_of_a_pasted_email_point_into_the_message(club, tmp_path):
    body = "\n".join(Path(p).read_text(encoding="utf-8") for p in club["paths"] * 3)
    mail = tmp_path / "mail.txt"
    mail.write_text("Hi all,\nthe games of the autumn cup:\n\n" + body + "\nSee you Friday,\nAna\n",
                    encoding="utf-8")
    whole = list(archive.walk([str(mail)], None, 1, split_chars=1 << 30))
    pieces = list(archive.walk([str(mail)], None, 2, split_chars=1000, piece_chars=1500))
    assert whole == pieces
    assert any("skipped 3 line(s) of mail text" in note for note in whole[0].notes)
    lines = mail.read_text(encoding="utf-8").splitlines()
    bad = [e.finding for e in whole if isinstance(e, archive.GameOutcome) and e.finding]
    assert len(bad) == 3 and all(lines[f.line - 1] == "1. B@e1 B@e1 *" and f.column == 9 for f in bad)


def test_export_jsonl_one_game_to_a_file(club, tmp_path):
    out = tmp_path / "rows.jsonl"
    result = invoke("export", club["paths"][0], "--jsonl", "--game", "2", "-o", out)
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert result.exit_code == 0 and result.stdout == ""
    assert {row["game"] for row in rows} == {2} and len(rows) == len(club["games"]["resigned"].actions)


def test_export_jsonl_past_the_last_game_writes_nothing(club, tmp_path):
    out = tmp_path / "rows.jsonl"
    result = invoke("export", club["paths"][0], "--jsonl", "--game", "3", "-o", out)
    assert result.exit_code == 2 and "holds 2 game(s), there is no game 3" in result.output
    assert not out.exists()


def test_export_html_still_needs_an_output(club):
    result = invoke("export", club["paths"][0], "--html")
    assert result.exit_code == 2 and "-o" in result.output


def test_report_lines_on_stdout_clear_the_progress_line_first():
    import time

    progress = archive.Progress(files_total=2, bytes_total=100)
    progress.started = time.monotonic() - 2.0
    screen = FakeTerminal(True)           # stdout and stderr on one screen
    line = ProgressLine(screen, progress, True, "validating")
    line.tick()
    drawn = screen.text
    line.beside(screen).write("a.tgn: ok, 1 game(s)\n")
    # Many small files: each ok line is followed by the progress line again (issue 44),
    # which the next clears; the line shows under the last one whenever the screen rests.
    before, again = screen.text.split("a.tgn: ok, 1 game(s)\n")
    assert before == drawn + "\r" + " " * (len(drawn) - 1) + "\r"
    assert again.startswith("\rvalidating: 0/2 files, ")
    line.clear()
    assert screen.text == before + "a.tgn: ok, 1 game(s)\n" + again + "\r" + " " * (len(again) - 1) + "\r"


# --------------------------------------------------------------------------- the walk is the reader

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

PARTS = st.sampled_from([
    "1. B@e1 B@d8 2. G@b1 G@g8 *", "1. B@e1 B@e1 *", "1-0", "0-1", "1/2-1/2", "*", "1-01-0",
    '[White "Ana"]', '[Result "1-0"]', "{a 1-0 comment}", "; 0-1 line\n", "Zz9", "B@e1",
    "2.", "$3", "!?", "(e4)", "\n", " ", "\n\n", "12.1-0", '[Event "x"] 1. B@a1 *',
    "Hello Bo,\n", "\n> ", "see you Friday", "\u00a0",      # mail text, quoting, debris
])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(PARTS, max_size=25).map(" ".join))
def test_the_walk_in_pieces_says_what_the_reader_says(tmp_path, text):
    from tomis import sources

    path = tmp_path / "f.tgn"
    path.write_text(text, encoding="utf-8")
    events = list(archive.walk([str(path)], None, 1, split_chars=0, piece_chars=7))
    got = [e for e in events if isinstance(e, archive.GameOutcome)]
    try:
        found = sources.read_source(str(path))
    except TomisError as error:           # two records that diverge: the file's one finding
        assert got == [] and events[-1].finding.message == error.message
        return
    from tomis.util.hints import looks_like_a_record

    if found.text.strip() and not looks_like_a_record(found.text):      # prose: no game, as
        assert got == [] and events[-1].finding.rule == "F-no-game"       # every command says
        return
    expected = record.read(found.text, str(path))
    assert len(got) == len(expected)
    for outcome, checked in zip(got, expected):
        if checked.error is None:
            assert outcome.finding is None
            assert (outcome.actions, outcome.result) == (len(checked.game.nodes), checked.game.result)
        else:
            assert outcome.finding.located() == found.located(checked.error).located()


def test_the_walk_collects_young_objects_sparsely_and_restores_the_threshold(club):
    """Checking games with CPython's default threshold (700) ran the collector after every
    replayed game (record pauses it during the replay); the walk raises the threshold,
    in worker processes too, and puts the caller's back when it ends."""
    import gc

    before = gc.get_threshold()
    seen = []
    for event in archive.walk(club["paths"][:2]):
        seen.append(gc.get_threshold()[0])
    assert seen and set(seen) == {archive.SPARSE_GC_THRESHOLD}
    assert gc.get_threshold() == before
    executor = archive._executor(2)
    try:
        assert executor.submit(gc.get_threshold).result()[0] == archive.SPARSE_GC_THRESHOLD
    finally:
        executor.shutdown()
