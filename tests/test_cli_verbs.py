"""The command line changes a game only through the verbs of :class:`tomis.Game`
(docs/ARCHITECTURE.md, "no game logic in cli/"): no module of tomis/cli assigns into the
record underneath (``game.record``), calls a mutating method on it, plays or finishes a
record with :mod:`tomis.notation.record`'s ``append``/``finish``, or builds record nodes
and side lines by hand. Read with ``ast``, so a new command cannot slip past it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import ROOT

CLI = ROOT / "tomis" / "cli"
MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "update",
                      "setdefault", "popitem", "sort", "reverse", "__setitem__", "__delitem__"})
RECORD_MODULE_CHANGES = frozenset({"append", "finish"})        # notation.record's writers
RECORD_BUILDING = frozenset({"Entry", "Variation", "Node", "Record", "Game"})


def _root_chain(node: ast.AST) -> list[str]:
    """``a.b[0].c`` -> ["a", "b", "c"]: the names and attributes a target is reached by."""
    chain = []
    while True:
        if isinstance(node, ast.Attribute):
            chain.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Name):
            chain.append(node.id)
            return chain[::-1]
        else:
            return chain[::-1]


class _Finder(ast.NodeVisitor):
    def __init__(self):
        self.found: list[str] = []
        self.aliases: set[str] = set()       # local names bound to a .record

    def _reaches_record(self, node: ast.AST) -> bool:
        chain = _root_chain(node)
        return "record" in chain[1:] or (bool(chain) and chain[0] in self.aliases)

    def visit_Assign(self, node: ast.Assign) -> None:
        if self._reaches_record(node.value) and not isinstance(node.value, ast.Call):
            self.aliases.update(t.id for t in node.targets if isinstance(t, ast.Name))
        self._targets(node, node.targets)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._targets(node, [node.target])
        self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        self._targets(node, node.targets)
        self.generic_visit(node)

    def _targets(self, node: ast.AST, targets) -> None:
        for target in targets:
            if isinstance(target, (ast.Attribute, ast.Subscript)) and self._reaches_record(target):
                self.found.append(f"{node.lineno}: {ast.unparse(target)} changed")

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Attribute):
            if func.attr in MUTATORS and self._reaches_record(func.value):
                self.found.append(f"{node.lineno}: {ast.unparse(func)}(...)")
            elif (func.attr in RECORD_MODULE_CHANGES and isinstance(func.value, ast.Name)
                  and func.value.id in ("record", "_record", "records")):
                self.found.append(f"{node.lineno}: {ast.unparse(func)}(...)")
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if (node.module or "").endswith("notation.record"):
            for alias in node.names:
                if alias.name in RECORD_BUILDING:
                    self.found.append(f"{node.lineno}: imports {alias.name} to build a record by hand")
        self.generic_visit(node)


def record_changes(source: str) -> list[str]:
    finder = _Finder()
    finder.visit(ast.parse(source))
    return finder.found


@pytest.mark.parametrize("path", sorted(CLI.glob("*.py")), ids=lambda path: path.name)
def test_the_cli_changes_games_only_through_tomis_game(path: Path):
    assert record_changes(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("text", [
    "game.record.tags['Termination'] = 'x'",
    "game.record.nodes[-1].offer = True",
    "game.record.nodes[-1].comments.append('x')",
    "rec = game.record\nrec.nodes.pop()",
    "record.finish(game.record, '1-0')",
    "record.append(rec, 'B@e1')",
    "del game.record.tags['Digest']",
    "game.record.nodes[0].nags += (1,)",
    "from ..notation.record import Entry, Variation",
], ids=["tag", "offer", "comment", "alias", "finish", "append", "delete", "augmented", "builders"])
def test_the_check_sees_each_way_of_changing_a_record(text):
    assert record_changes(text)


@pytest.mark.parametrize("text", [
    "n = len(game.record.nodes)",
    "words.append(str(game.record.nodes[-1].action))",
    "game.annotate(1, glyph='!')",
    "record.write(game.record)",
], ids=["len", "other-list", "verb", "write"])
def test_reading_a_record_is_not_changing_it(text):
    assert record_changes(text) == []
