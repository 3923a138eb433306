"""One name, one thing: no two classes under tomis/ share a name.

A reader who meets ``Place`` should not have to check which of three it is. A module's own
``_Private`` helpers are its business and are not compared; an old name kept for scripts is
an assignment (``GameOutcome = MatchGame``), not a second class, so it is not counted either.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "tomis"

# Names still shared, each with the reason it may be; a pair leaves this table when one of
# its classes is renamed, and an entry no longer shared fails the test below.
NOT_YET_RENAMED: dict[str, set[str]] = {}


def public_classes(root: Path = PACKAGE) -> dict[str, set[str]]:
    """Class name -> the modules (paths below ``root``) that define a class of that name."""
    found: dict[str, set[str]] = defaultdict(set)
    for path in sorted(root.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                found[node.name].add(path.relative_to(root).as_posix())
    return found


def shared_names(root: Path = PACKAGE) -> dict[str, set[str]]:
    return {name: modules for name, modules in public_classes(root).items() if len(modules) > 1}


def test_no_two_classes_share_a_name_but_those_left_to_others():
    unexpected = {name: sorted(modules) for name, modules in shared_names().items()
                  if modules != NOT_YET_RENAMED.get(name)}
    assert not unexpected, f"classes sharing a name: {unexpected}"


def test_the_table_of_names_left_lists_only_names_still_shared():
    # Once a pair is renamed its entry must go, or the table hides the next duplicate.
    shared = shared_names()
    stale = sorted(name for name, modules in NOT_YET_RENAMED.items()
                   if shared.get(name) != modules)
    assert not stale, f"no longer shared, drop from NOT_YET_RENAMED: {stale}"


def test_the_finder_sees_a_shared_name_and_passes_over_private_helpers(tmp_path):
    (tmp_path / "one.py").write_text("class Place:\n    pass\nclass _Helper:\n    pass\n")
    (tmp_path / "two.py").write_text("def f():\n    class Place:\n        pass\nclass _Helper:\n    pass\n")
    assert shared_names(tmp_path) == {"Place": {"one.py", "two.py"}}
