"""Validation reports in six formats, written as the events of :func:`tomis.archive.walk` come.

``text``, ``json``, ``jsonl``, ``sarif``, ``junit``, ``github`` (docs/ARCHIVES.md gives each
schema). Every format is streamed: a report never holds more than one file's games, and
spills those to a temporary file past a few MiB, so memory stays flat however big the
archive. Schemas only ever gain fields.

A report is made with an ``out`` and an ``err`` stream (text mode) and fed
``start()``, then every event through ``event()``, then ``finish()``.
"""

from __future__ import annotations

from urllib.parse import quote

from .walker import FileEnd, FileStart, GameOutcome
from ..errors import visible
from .findings import RULES, Finding
from ..notation.syntax import caret_context

FORMATS = ("text", "json", "jsonl", "sarif", "junit", "github")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
JSONL_SCHEMA = 1
_SPOOL_BYTES = 4 << 20        # one file's report kept in memory up to this, then on disk


def _dumps(value, **options) -> str:
    """``json.dumps``, with json imported on first use: the text report, validate's
    default, never loads it (start-up, docs/PERFORMANCE.md)."""
    import json

    return json.dumps(value, **options)


def tool_version() -> str:
    try:
        from importlib.metadata import version   # 20-40 ms; only sarif and junit name the version
        return version("tomis")
    except Exception:  # noqa: BLE001 -- running from a checkout that was never installed
        return "0"


class ArchiveReport:
    """The base: counts, notes on stderr, and a dispatch of events to the format's hooks."""

    def __init__(self, out, err, quiet: bool = False, carets: bool = False):
        self.out, self.err, self.quiet, self.carets = out, err, quiet, carets
        self.files = self.games = self.invalid = self.unreadable = 0
        self.worst = 0

    def start(self) -> None:
        pass

    def event(self, event) -> None:
        if isinstance(event, GameOutcome):
            self.games += 1
            self.invalid += event.finding is not None
            self.game(event)
        elif isinstance(event, FileStart):
            for note in event.notes:          # what mail extraction removed, as validate says it
                self.err.write(f"{event.path}: note: {visible(note)}\n")
            self.file_start(event)
        else:
            self.files += 1
            self.unreadable += event.unreadable
            self.worst = max(self.worst, event.exit_code)
            self.file_end(event)

    def file_start(self, start: FileStart) -> None:
        pass

    def game(self, outcome: GameOutcome) -> None:
        pass

    def file_end(self, end: FileEnd) -> None:
        pass

    def finish(self) -> None:
        pass


class TextReport(ArchiveReport):
    """Problems on stderr, one located line each (with ``carets``, followed by the source
    line and a caret under the column, as every command shows them on a terminal);
    ``path: ok, N game(s)`` on stdout."""

    def game(self, outcome):
        finding = outcome.finding
        for note in outcome.notes:
            self.err.write(f"{outcome.path}: note: game {outcome.number}: {visible(note)}\n")
        if finding is None:
            return
        self.err.write(finding.located() + "\n")
        if self.carets and finding.source is not None:
            shown = caret_context(finding.source, 1, finding.column).split("\n")
            self.err.write("".join(f"  {line}\n" for line in shown[:1 if not finding.column else 2]))

    def file_end(self, end):
        if end.finding is not None:
            self.err.write(end.finding.located() + "\n")
        if not self.quiet and end.exit_code == 0:
            self.out.write(f"{end.path}: ok, {end.games} game(s)\n")


class _Spool:
    """Text written for the current file, in memory up to a few MiB, then on disk."""

    def __init__(self):
        import tempfile     # 10 ms (with shutil) that the text report, validate's default, never spends

        self.buffer = tempfile.SpooledTemporaryFile(max_size=_SPOOL_BYTES, mode="w+", encoding="utf-8")
        self.count = 0

    def write(self, text: str) -> None:
        self.buffer.write(text)
        self.count += 1

    def copy_to(self, out) -> None:
        import shutil       # loaded with tempfile above; named here for copyfileobj

        self.buffer.seek(0)
        shutil.copyfileobj(self.buffer, out)
        self.buffer.close()


def _indented(item, indent: str) -> str:
    """``json.dumps(item, indent=2)`` as it stands nested at ``indent``."""
    return _dumps(item, indent=2, ensure_ascii=False).replace("\n", "\n" + indent)


class JsonReport(ArchiveReport):
    """``{"files": [...]}`` exactly as README documents it, byte for byte what
    ``json.dumps(document, indent=2, ensure_ascii=False)`` gives, written file by file."""

    def __init__(self, out, err, quiet=False, carets=False):
        super().__init__(out, err, quiet, carets)
        self._spool: _Spool | None = None

    def file_start(self, start):
        self._spool = _Spool()

    def game(self, outcome):
        entry = {"ok": outcome.finding is None, "actions": outcome.actions, "result": outcome.result,
                 "error": outcome.finding.error_json() if outcome.finding is not None else None}
        self._spool.write(("" if self._spool.count == 0 else ",") + "\n        "
                          + _indented(entry, "        "))

    def file_end(self, end):
        spool = self._spool
        head = '{\n  "files": [\n    ' if self.files == 1 else ",\n    "
        self.out.write(f'{head}{{\n      "path": {_dumps(end.path, ensure_ascii=False)},\n'
                       f'      "ok": {_dumps(end.exit_code == 0)},\n      "games": [')
        if spool.count:
            spool.copy_to(self.out)
            self.out.write("\n      ]")
        else:
            spool.buffer.close()
            self.out.write("]")
        if end.finding is not None:
            self.out.write(',\n      "error": ' + _indented(end.finding.error_json(), "      "))
        self.out.write("\n    }")
        self._spool = None

    def finish(self):
        self.out.write('{\n  "files": []\n}\n' if self.files == 0 else "\n  ]\n}\n")


def finding_json(finding: Finding) -> dict:
    """A finding as jsonl, sarif properties and tests see it."""
    return {"rule": finding.rule, "path": finding.path, "game": finding.game,
            "line": finding.line, "column": finding.column, "action": finding.action,
            "message": finding.message}


class JsonLinesReport(ArchiveReport):
    """One JSON object per line: a ``finding`` per problem, a ``file`` per file, one
    ``summary`` at the end. Every object has ``type`` and ``schema`` (1)."""

    def _line(self, kind: str, data: dict) -> None:
        self.out.write(_dumps({"type": kind, "schema": JSONL_SCHEMA, **data}, ensure_ascii=False) + "\n")

    def game(self, outcome):
        if outcome.finding is not None:
            self._line("finding", finding_json(outcome.finding))

    def file_end(self, end):
        if end.finding is not None:
            self._line("finding", finding_json(end.finding))
        self._line("file", {"path": end.path, "ok": end.exit_code == 0, "games": end.games,
                            "invalid": end.invalid, "unreadable": end.unreadable})

    def finish(self):
        self._line("summary", {"files": self.files, "games": self.games, "invalid": self.invalid,
                               "unreadable": self.unreadable, "ok": self.worst == 0})


_RULE_IDS = list(RULES)


class _FindingsReport(ArchiveReport):
    """A format that writes one entry per finding, whether about a game or a whole file."""

    def finding(self, finding: Finding) -> None:
        raise NotImplementedError

    def game(self, outcome):
        if outcome.finding is not None:
            self.finding(outcome.finding)

    def file_end(self, end):
        if end.finding is not None:
            self.finding(end.finding)


class SarifReport(_FindingsReport):
    """A SARIF 2.1.0 log: one run, the tool's whole rule catalogue, one result per finding."""

    def __init__(self, out, err, quiet=False, carets=False):
        super().__init__(out, err, quiet, carets)
        self._results = 0

    def start(self):
        rules = [{"id": rid, "name": rid, "shortDescription": {"text": RULES[rid]}}
                 for rid in _RULE_IDS]
        driver = {"name": "tomis", "version": tool_version(), "rules": rules}
        self.out.write('{"$schema": ' + _dumps(SARIF_SCHEMA) + ', "version": "' + SARIF_VERSION
                       + '", "runs": [{"tool": {"driver": ' + _dumps(driver, ensure_ascii=False)
                       + '}, "columnKind": "unicodeCodePoints", "results": [')

    def finding(self, finding: Finding) -> None:
        location = {"artifactLocation": {"uri": _uri(finding.path or "<input>")}}
        if finding.line is not None and finding.line >= 1:
            region = {"startLine": finding.line}
            if finding.column is not None and finding.column >= 1:
                region["startColumn"] = finding.column
            location["region"] = region
        result = {"ruleId": finding.rule, "ruleIndex": _RULE_IDS.index(finding.rule),
                  "level": "error", "message": {"text": finding.message},
                  "locations": [{"physicalLocation": location}],
                  "properties": {"game": finding.game, "action": finding.action}}
        self.out.write(("\n" if self._results == 0 else ",\n") + _dumps(result, ensure_ascii=False))
        self._results += 1

    def finish(self):
        self.out.write("\n], \"invocations\": [{\"executionSuccessful\": true, \"exitCode\": "
                       f"{self.worst}}}]}}]}}\n")


def _uri(path: str) -> str:
    """A relative URI reference for ``path`` (SARIF's artifactLocation.uri)."""
    return quote(path.replace("\\", "/"), safe="/:")


class JunitReport(ArchiveReport):
    """JUnit XML: a ``testsuite`` per file, a ``testcase`` per game, a ``failure`` per
    invalid game (``type`` the rule id); an unreadable file is one ``error`` testcase."""

    def __init__(self, out, err, quiet=False, carets=False):
        super().__init__(out, err, quiet, carets)
        self._spool: _Spool | None = None

    def start(self):
        self.out.write('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="tomis validate">\n')

    def file_start(self, start):
        self._spool = _Spool()

    def game(self, outcome):
        name = quoteattr(f"game {outcome.number}")
        classname = quoteattr(outcome.path)
        if outcome.finding is None:
            self._spool.write(f"    <testcase classname={classname} name={name}/>\n")
            return
        self._spool.write(f"    <testcase classname={classname} name={name}>\n"
                          f"{_failure('failure', outcome.finding)}    </testcase>\n")

    def file_end(self, end):
        cases, failures, errors = end.games, end.invalid, 0
        extra = ""
        if end.finding is not None:
            kind = "error" if end.unreadable or end.finding.rule == "X-internal" else "failure"
            errors += kind == "error"
            failures += kind == "failure"
            cases += 1
            extra = (f"    <testcase classname={quoteattr(end.path)} name=\"file\">\n"
                     f"{_failure(kind, end.finding)}    </testcase>\n")
        self.out.write(f"  <testsuite name={quoteattr(end.path)} tests=\"{cases}\" "
                       f"failures=\"{failures}\" errors=\"{errors}\">\n")
        self._spool.copy_to(self.out)
        self.out.write(extra + "  </testsuite>\n")
        self._spool = None

    def finish(self):
        self.out.write("</testsuites>\n")


def _failure(kind: str, finding: Finding) -> str:
    return (f"      <{kind} type={quoteattr(finding.rule)} message={quoteattr(_xml_safe(finding.message))}>"
            f"{escape(_xml_safe(finding.located()))}</{kind}>\n")


def escape(text: str) -> str:
    """``text`` as XML character data."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def quoteattr(text: str) -> str:
    """``text`` as a double-quoted XML attribute value; line ends and tabs kept as such.

    Written here: xml.sax.saxutils would import urllib.request and the email package,
    a tenth of a second of start-up for four replacements.
    """
    return '"' + escape(text).replace('"', "&quot;").replace("\n", "&#10;").replace(
        "\r", "&#13;").replace("\t", "&#9;") + '"'


def _xml_safe(text: str) -> str:
    """XML 1.0 cannot hold most control characters, even escaped: show them as \\xNN."""
    return "".join(ch if ch in "\t\n\r" or ord(ch) >= 0x20 and ch not in "\ufffe\uffff"
                   else f"\\x{ord(ch):02x}" for ch in text)


class GithubReport(_FindingsReport):
    """GitHub Actions workflow commands: ``::error file=…,line=…,col=…,title=…::message``."""

    def finding(self, finding: Finding) -> None:
        fields = [f"file={_gh_property(finding.path or '<input>')}"]
        if finding.line is not None and finding.line >= 1:
            fields.append(f"line={finding.line}")
            if finding.column is not None and finding.column >= 1:
                fields.append(f"col={finding.column}")
        fields.append(f"title={_gh_property(finding.rule)}")
        self.out.write(f"::error {','.join(fields)}::{_gh_data(finding.message)}\n")


def _gh_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_property(text: str) -> str:
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")


REPORTS = {"text": TextReport, "json": JsonReport, "jsonl": JsonLinesReport,
           "sarif": SarifReport, "junit": JunitReport, "github": GithubReport}


def make_report(fmt: str, out, err, quiet: bool = False, carets: bool = False) -> ArchiveReport:
    return REPORTS[fmt](out, err, quiet, carets)
