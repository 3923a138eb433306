"""The layers of tomis/: every import points down, and no modules import each other.

The order is written once, below (docs/ARCHITECTURE.md draws it). Every ``import`` and
``from ... import`` under tomis/ counts, function-level ones too (they are there for
start-up time, not to hide an arrow); only ``if TYPE_CHECKING:`` blocks do not, as they
never run. A module may import its own layer or one below it.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "tomis"

# Bottom first. A module belongs to the first entry that is its name or a package above it.
LAYERS = (
    ("tomis", "tomis.errors", "tomis.util"),   # the root's names load through importlib, on use
    ("tomis.rules",),
    ("tomis.notation",),
    ("tomis.pictures",),
    ("tomis.mail",),
    ("tomis.outgoing",),
    ("tomis.sources",),
    ("tomis.game",),
    ("tomis.archive",),
    ("tomis.engine",),
    ("tomis.season",),
    ("tomis.referee",),
    ("tomis.cli", "tomis.__main__"),
)

def old_paths() -> set[str]:
    """The import paths from before the layers (tomis/_oldpaths.py): for scripts only, so a
    module inside tomis/ that imports one counts as importing the top of the house."""
    tree = ast.parse((PACKAGE / "_oldpaths.py").read_text(encoding="utf-8"))
    table = next(node.value for node in tree.body if isinstance(node, ast.Assign)
                 and any(getattr(target, "id", None) == "MOVED" for target in node.targets))
    return {f"tomis.{old}" for old in ast.literal_eval(table)}


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(source: str, name: str, is_package: bool) -> set[str]:
    """Every tomis module ``source`` imports (``from pkg import mod`` names ``pkg.mod``)."""
    tree = ast.parse(source)
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if isinstance(child, ast.Import):
                found.update(alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")[:len(package.split(".")) - child.level + 1]
                    module = ".".join(base + ([child.module] if child.module else []))
                else:
                    module = child.module
                found.add(module)
                found.update(f"{module}.{alias.name}" for alias in child.names)
            visit(child)

    visit(tree)
    return {module for module in found if module == "tomis" or module.startswith("tomis.")}


def read_graph(root: Path = PACKAGE) -> tuple[dict[str, set[str]], set[str]]:
    """(module -> the tomis modules it imports, the old-path modules)."""
    sources = {}
    for path in sorted(root.rglob("*.py")):
        if "__pycache__" not in path.parts:
            sources[module_name(path, root)] = (path.read_text(encoding="utf-8"), path.name == "__init__.py")
    graph = {}
    # "from tomis.rules import board" names a module; "from .core import State" a name.
    old = old_paths() if root == PACKAGE else set()
    for name, (source, is_package) in sources.items():
        graph[name] = {m for m in imports_of(source, name, is_package)
                       if (m in sources or m in old) and m != name}
    return graph, old


def layer_of(module: str, old_paths: set[str]) -> int:
    if module in old_paths:
        return len(LAYERS)
    best = None
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and (
                    best is None or len(prefix) > best[1]):
                best = (index, len(prefix))
    assert best is not None, f"{module} is in no layer: add it to LAYERS"
    return best[0]


def upward_arrows(graph, old_paths) -> set[tuple[str, str]]:
    return {(source, target) for source, targets in graph.items() for target in targets
            if layer_of(target, old_paths) > layer_of(source, old_paths)}


def circles(graph) -> set[frozenset]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset] = set()

    def connect(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                found.add(frozenset(group))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def test_every_import_points_down():
    graph, old_paths = read_graph()
    assert upward_arrows(graph, old_paths) == set()


def test_no_modules_import_each_other():
    graph, _ = read_graph()
    assert circles(graph) == set()


def test_an_upward_import_is_caught(tmp_path):
    # A synthetic package: the rules layer asking the notation layer for something.
    package = tmp_path / "tomis"
    for folder in ("rules", "notation"):
        (package / folder).mkdir(parents=True)
        (package / folder / "__init__.py").write_text("", encoding="utf-8")
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "notation" / "syntax.py").write_text("from ..rules import core\n", encoding="utf-8")
    (package / "rules" / "core.py").write_text(
        "def parse(text):\n    from ..notation.syntax import parse_action\n", encoding="utf-8")
    graph, old_paths = read_graph(package)
    assert upward_arrows(graph, old_paths) == {("tomis.rules.core", "tomis.notation.syntax")}
    assert circles(graph) == {frozenset({"tomis.rules.core", "tomis.notation.syntax"})}


def test_type_checking_imports_do_not_count(tmp_path):
    package = tmp_path / "tomis"
    (package / "rules").mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "rules" / "__init__.py").write_text("", encoding="utf-8")
    (package / "game.py").write_text("", encoding="utf-8")
    (package / "rules" / "core.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..game import Game\n",
        encoding="utf-8")
    graph, old_paths = read_graph(package)
    assert upward_arrows(graph, old_paths) == set()


def test_nothing_imports_an_old_path():
    graph, old_paths = read_graph()
    users = {(source, target) for source, targets in graph.items() for target in targets
             if target in old_paths and source not in old_paths}
    assert not users
