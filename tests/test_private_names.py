"""A package's ``_private`` names stay in the package: no module of tomis imports or uses
another package's private name or private module (docs/ARCHITECTURE.md). Where one package
needs more of another, the other's public front door is widened, once.

The package of a module is its first folder under tomis/ (tomis/mail/imap.py: ``mail``);
a module directly under tomis/ is a package of its own, the root's ``__init__`` included.
"""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "tomis"


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _package_of(module: str) -> str:
    """``tomis.mail.imap`` -> ``tomis.mail``; ``tomis.game`` -> ``tomis.game``; the root's
    own private modules (``tomis._oldpaths``) belong to the root, ``tomis``."""
    parts = module.split(".")
    if len(parts) < 2 or _private(parts[1]):
        return "tomis"
    return ".".join(parts[:2])


def _is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _private_module_part(target: str) -> str | None:
    for part in target.split(".")[1:]:
        if _private(part):
            return part
    return None


def crossings(path: Path) -> list[str]:
    """Each use in ``path`` of another package's private name, as ``line: what``."""
    module = _module_name(path)
    own = _package_of(module)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    foreign: dict[str, str] = {}        # a local name bound to another package's module
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = _absolute(module, path.name == "__init__.py", node)
            names = [(f"{target}.{alias.name}", alias.asname or alias.name) for alias in node.names]
            said = [f"from {target} import {alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [(alias.name, alias.asname or alias.name.split(".")[0]) for alias in node.names]
            said = [f"import {alias.name}" for alias in node.names]
        else:
            continue
        for (full, local), words in zip(names, said):
            if not full.startswith("tomis."):
                continue
            owner = _package_of(full if _is_module(full) else full.rpartition(".")[0])
            if owner == own:
                continue
            if any(_private(part) for part in full.split(".")[1:]):
                found.append(f"{node.lineno}: {words}")
            elif _is_module(full):
                foreign[local] = full
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr) \
                and isinstance(node.value, ast.Name) and node.value.id in foreign:
            found.append(f"{node.lineno}: {foreign[node.value.id]}.{node.attr}")
    return found


def test_no_module_uses_another_packages_private_names():
    found = {str(path.relative_to(ROOT)): crossings(path) for path in _modules()}
    assert {path: uses for path, uses in found.items() if uses} == {}


def test_the_check_finds_a_crossing(monkeypatch):
    """The test above can fail: a module that reaches into another package is named."""
    fake = PACKAGE / "referee" / "fetching.py"
    text = ("from ..mail import imap\nfrom ..mail.imap import _responses\n"
            "from ..mail._secret import thing\nimport tomis.notation._parser_tables\n"
            "x = imap._Failures\n")
    monkeypatch.setattr(Path, "read_text", lambda self, encoding=None: text)
    assert crossings(fake) == ["2: from tomis.mail.imap import _responses",
                               "3: from tomis.mail._secret import thing",
                               "4: import tomis.notation._parser_tables",
                               "5: tomis.mail.imap._Failures"]
    assert _package_of("tomis._oldpaths") == _package_of("tomis") == "tomis"


def test_a_package_may_use_its_own_private_names(monkeypatch):
    own = PACKAGE / "notation" / "lalr.py"
    text = "from . import _parser_tables\nfrom .syntax import _cut\nx = _parser_tables._t\n"
    monkeypatch.setattr(Path, "read_text", lambda self, encoding=None: text)
    assert crossings(own) == []
