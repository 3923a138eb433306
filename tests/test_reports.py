"""The six validate report formats and the rule ids of findings.

SARIF is checked against the shape its 2.1.0 schema requires (version, runs, tool.driver
with a name, results with ruleId/message/locations, regions 1-based); JUnit is parsed as
XML; JSON Lines is one object per line; json is byte for byte json.dumps of the README's
document; github lines are workflow commands with their escapes.
"""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tomis import archive
from tomis.archive.findings import RULES, Finding, rule_id
from tomis.archive.reports import FORMATS, make_report

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
GOOD = (SAMPLES / "manual-win.tgn").read_text(encoding="utf-8")

# One bad record per rule id the reader can give, with the id it must get.
BAD = {
    "R5": "1. B@e1 B@e1 *\n",
    "R6": "1. B@e1 B@d8 2. G@d1 *\n",
    "R4": "1. B@e1 2. B@d8 *\n",
    "R22": GOOD.split("\n\n", 1)[1].replace(" 1-0", " T@a1 1-0"),
    "N-syntax": "1. B@e1 Zz9 *\n",
    "N-tag": '[Rules "blitz"]\n\n1. B@e1 *\n',
    "N-result": '[Result "1-0"]\n\n1. B@e1 0-1\n',
    "N-digest": '[Digest "0000000000000000"]\n\n1. B@e1 *\n',
    "N-annotation": "1. B@e1 !! ?? *\n",
    "N-destroyed": "1. B@e1(e1) *\n",
}


@pytest.fixture()
def archive_files(tmp_path):
    paths = []
    for name, text in [("good.tgn", GOOD), *((f"bad-{rid}.tgn", text) for rid, text in BAD.items())]:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        paths.append(str(path))
    (tmp_path / "empty.tgn").write_text("\n\n", encoding="utf-8")
    paths += [str(tmp_path / "empty.tgn"), str(tmp_path / "missing.tgn")]
    return paths


def report_of(paths, fmt):
    out, err = io.StringIO(), io.StringIO()
    report = make_report(fmt, out, err)
    report.start()
    for event in archive.walk(paths):
        report.event(event)
    report.finish()
    return out.getvalue(), err.getvalue(), report.worst


def findings_of(paths):
    found = []
    for event in archive.walk(paths):
        finding = getattr(event, "finding", None)
        if finding is not None:
            found.append(finding)
    return found


# --------------------------------------------------------------------------- rule ids

def test_every_bad_record_gets_its_rule_id(archive_files):
    by_file = {Path(f.path).name: f.rule for f in findings_of(archive_files)}
    for rid in BAD:
        assert by_file[f"bad-{rid}.tgn"] == rid, by_file
    assert by_file["empty.tgn"] == "F-no-game"
    assert by_file["missing.tgn"] == "F-unreadable"
    assert set(by_file.values()) <= set(RULES)


def test_the_rule_is_the_first_ruling_of_the_last_citation():
    from tomis.errors import IllegalActionError, RecordError

    assert rule_id(IllegalActionError("action 3 (White) G@d1: no gate here (R6, R7)")) == "R6"
    assert rule_id(RecordError("the game already ended at action 9 (1-0: base destroyed (R21)); "
                               "nothing may follow (R22)")) == "R22"
    assert rule_id(RecordError("something new without a citation")) == "N-record"


# --------------------------------------------------------------------------- text and json

def test_text_reports_problems_on_stderr_and_ok_files_on_stdout(archive_files):
    out, err, worst = report_of(archive_files, "text")
    assert out == f"{archive_files[0]}: ok, 1 game(s)\n"
    lines = err.splitlines()
    assert len(lines) == len(BAD) + 2
    assert lines[-1] == f"{archive_files[-1]}: no such file"      # no place: the file as a whole
    assert worst == 2


def test_json_is_the_readme_document_byte_for_byte(archive_files):
    out, err, worst = report_of(archive_files, "json")
    document = json.loads(out)
    assert out == json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    files = document["files"]
    assert [f["ok"] for f in files] == [True] + [False] * (len(files) - 1)
    assert files[0]["games"] == [{"ok": True, "actions": 59, "result": "1-0", "error": None}]
    bad = files[1]["games"][0]
    assert set(bad) == {"ok", "actions", "result", "error"} and set(bad["error"]) == {
        "line", "column", "action", "message"}
    assert files[-1] == {"path": archive_files[-1], "ok": False, "games": [],
                         "error": {"line": None, "column": None, "action": None, "message": "no such file"}}
    assert err == ""


def test_json_of_no_file_at_all_is_an_empty_list():
    out = io.StringIO()
    report = make_report("json", out, io.StringIO())
    report.start()
    report.finish()
    assert json.loads(out.getvalue()) == {"files": []}


# --------------------------------------------------------------------------- jsonl

def test_jsonl_is_one_object_per_line(archive_files):
    out, _err, _worst = report_of(archive_files, "jsonl")
    rows = [json.loads(line) for line in out.splitlines()]
    assert out.endswith("\n") and len(rows) == out.count("\n")
    assert all(isinstance(row, dict) and row["schema"] == 1 for row in rows)
    findings = [r for r in rows if r["type"] == "finding"]
    assert {"rule", "path", "game", "line", "column", "action", "message"} <= set(findings[0])
    assert [r["type"] for r in rows].count("file") == len(archive_files)
    assert rows[-1]["type"] == "summary" and rows[-1]["files"] == len(archive_files)


# --------------------------------------------------------------------------- sarif

def test_sarif_has_the_shape_of_the_2_1_0_schema(archive_files):
    out, _err, _worst = report_of(archive_files, "sarif")
    log = json.loads(out)
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    assert isinstance(log["runs"], list) and len(log["runs"]) == 1
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "tomis" and isinstance(driver["version"], str)
    rule_ids = [rule["id"] for rule in driver["rules"]]
    assert len(rule_ids) == len(set(rule_ids))
    assert all(rule["shortDescription"]["text"] for rule in driver["rules"])
    results = run["results"]
    assert len(results) == len(BAD) + 2
    for result in results:
        assert set(result) >= {"ruleId", "message", "locations", "level"}
        assert result["level"] in ("none", "note", "warning", "error")
        assert rule_ids[result["ruleIndex"]] == result["ruleId"]
        assert isinstance(result["message"]["text"], str) and result["message"]["text"]
        physical = result["locations"][0]["physicalLocation"]
        assert isinstance(physical["artifactLocation"]["uri"], str)
        region = physical.get("region")
        if region is not None:
            assert region["startLine"] >= 1 and region.get("startColumn", 1) >= 1
    syntax = next(r for r in results if r["ruleId"] == "N-syntax")
    assert syntax["locations"][0]["physicalLocation"]["region"] == {"startLine": 1, "startColumn": 9}
    assert run["invocations"][0]["executionSuccessful"] is True


def test_sarif_uris_are_escaped(tmp_path):
    odd = tmp_path / "a game #1.tgn"
    odd.write_text(BAD["R5"], encoding="utf-8")
    log = json.loads(report_of([str(odd)], "sarif")[0])
    uri = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri.endswith("a%20game%20%231.tgn")


# --------------------------------------------------------------------------- junit

def test_junit_parses_as_xml_with_a_suite_per_file(archive_files):
    out, _err, _worst = report_of(archive_files, "junit")
    root = ET.fromstring(out.encode("utf-8"))
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == archive_files
    good = suites[0]
    assert (good.get("tests"), good.get("failures"), good.get("errors")) == ("1", "0", "0")
    assert good.find("testcase").get("name") == "game 1" and good.find("testcase/failure") is None
    failure = suites[1].find("testcase/failure")
    assert failure.get("type") in BAD and "game 1" in failure.get("message")
    missing = suites[-1]
    assert missing.get("errors") == "1" and missing.find("testcase/error").get("type") == "F-unreadable"
    for suite in suites:
        cases = suite.findall("testcase")
        assert int(suite.get("tests")) == len(cases)
        assert int(suite.get("failures")) == len(suite.findall("testcase/failure"))


def test_junit_survives_control_characters_in_messages(tmp_path):
    path = tmp_path / "ctl.tgn"
    path.write_text("1. B@e1 \x01x *\n", encoding="utf-8")
    out, _err, _worst = report_of([str(path)], "junit")
    failure = ET.fromstring(out.encode("utf-8")).find("testsuite/testcase/failure")
    assert "\\x01" in failure.get("message")


# --------------------------------------------------------------------------- github

def test_github_lines_are_workflow_commands(archive_files):
    out, _err, _worst = report_of(archive_files, "github")
    lines = out.splitlines()
    assert len(lines) == len(BAD) + 2 and all(line.startswith("::error file=") for line in lines)
    syntax = next(line for line in lines if "title=N-syntax" in line)
    assert ",line=1,col=9,title=N-syntax::game 1: " in syntax
    assert lines[-1] == f"::error file={archive_files[-1]},title=F-unreadable::no such file"


def test_github_escapes_what_would_end_a_field():
    out = io.StringIO()
    report = make_report("github", out, io.StringIO())
    report.event(archive.FileStart("a,b:c.tgn"))
    report.event(archive.GameOutcome("a,b:c.tgn", 1, 0, None,
                                     Finding("N-syntax", "100% wrong\nreally", "a,b:c.tgn", 1, 2, 3)))
    assert out.getvalue() == "::error file=a%2Cb%3Ac.tgn,line=2,col=3,title=N-syntax::100%25 wrong%0Areally\n"


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_says_exit_2_for_an_unreadable_file(archive_files, fmt):
    assert report_of(archive_files, fmt)[2] == 2
    assert report_of(archive_files[:1], fmt)[2] == 0
