"""Imports at module level, where readers and tools see them (docs/ARCHITECTURE.md).

An import inside a function hides a module's structure; one stays only where it buys
start-up time a user feels (the click command registry and a command's own heavy imports
in tomis/cli/, optional extras, lark on the error path, the mail modules a record file
never needs), and then a comment says what it saves. pip keeps 3 % of its imports inside
functions, python-chess 5 %; outside tomis/cli/, tomis keeps at most 12 %.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import NamedTuple


ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "tomis"
MOST_INSIDE_FUNCTIONS = 0.12

# The packages whose imports inside functions each say what they save. The others
# (tomis/referee/, tomis/outgoing/, tomis/game.py, issue 39) join as their work lands.
SAYS_WHY = ("archive", "engine", "mail", "notation", "pictures", "sources", "util",
            "__init__.py", "errors.py")
# Words that say, in a comment by the import or in its function's docstring, why it waits.
WHY_WORDS = re.compile(r"\b(\d+(\.\d+)? ms|start-up|first use|unimported|optional|extra|only|"
                       r"never|loaded|error path|see above)\b")


class Imported(NamedTuple):
    path: Path
    line: int
    in_function: ast.FunctionDef | ast.AsyncFunctionDef | None


def imports(path: Path) -> list[Imported]:
    """Every import statement of ``path``, with the innermost function it sits in."""
    found: list[Imported] = []

    def visit(node, function):
        for child in ast.iter_child_nodes(node):
            inner = child if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                found.append(Imported(path, child.lineno, function))
            visit(child, inner)

    visit(ast.parse(path.read_text(encoding="utf-8")), None)
    return found


def outside_cli(root: Path = PACKAGE) -> list[Imported]:
    return [imported for path in sorted(root.rglob("*.py"))
            if "__pycache__" not in path.parts and path.relative_to(root).parts[0] != "cli"
            for imported in imports(path)]


def share_inside_functions(found: list[Imported]) -> float:
    return sum(imported.in_function is not None for imported in found) / len(found)


def says_why(imported: Imported, lines: list[str]) -> bool:
    """A comment on the import's line or on the comment and import lines just above it,
    or the function's docstring, gives a reason in :data:`WHY_WORDS`."""
    said = [lines[imported.line - 1].partition("#")[2]]
    above = imported.line - 2
    while above >= 0 and lines[above].lstrip().startswith(("#", "import ", "from ")):
        said.append(lines[above])
        above -= 1
    said.append(ast.get_docstring(imported.in_function) or "")
    return any(WHY_WORDS.search(text) for text in said)


def test_at_most_a_few_imports_sit_inside_functions_outside_the_cli():
    share = share_inside_functions(outside_cli())
    assert share <= MOST_INSIDE_FUNCTIONS, f"{share:.1%} of imports outside tomis/cli/ sit in functions"


def test_every_import_left_inside_a_function_says_what_it_saves():
    silent = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if "__pycache__" in path.parts or path.relative_to(PACKAGE).parts[0] not in SAYS_WHY:
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        silent += [f"{path.relative_to(ROOT)}:{imported.line}" for imported in imports(path)
                   if imported.in_function is not None and not says_why(imported, lines)]
    assert not silent, f"imports inside functions that do not say why: {silent}"


def test_the_share_counts_imports_in_nested_functions_and_methods(tmp_path):
    (tmp_path / "one.py").write_text(
        "import os\n"
        "class A:\n"
        "    def m(self):\n"
        "        def inner():\n"
        "            import json\n"
        "        from re import compile\n"
        "if os:\n"
        "    import sys\n")
    found = outside_cli(tmp_path)
    assert [(imported.line, imported.in_function is not None) for imported in found] == [
        (1, False), (5, True), (6, True), (8, False)]
    assert share_inside_functions(found) == 0.5


def test_an_import_in_a_function_without_a_reason_is_found(tmp_path):
    source = ("def quiet():\n"
              "    import json  # for the items\n"
              "def said():\n"
              "    # 8 ms that the text report never pays\n"
              "    import json\n"
              "def documented():\n"
              "    \"\"\"Built on first use.\"\"\"\n"
              "    import json\n")
    (tmp_path / "one.py").write_text(source)
    lines = source.splitlines()
    assert [says_why(imported, lines) for imported in imports(tmp_path / "one.py")] == [False, True, True]
