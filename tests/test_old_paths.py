"""Every module path tomis had before the packages keeps working, with the names docs give.

Importing an old flat path gives the moved module (the same object: tomis/_oldpaths.py
keeps the one table), and tomis.rules, tomis.notation and tomis.archive are packages that
answer the old module's names. Scripts, bench/ and tools/ import these paths.
"""

from __future__ import annotations

import importlib

import pytest

# old path -> (where it lives now, names docs/, README.md, bench/ or tools/ use)
OLD_PATHS = {
    "tomis.board": ("tomis.rules.board", ["parse_square", "SQUARE_NAMES", "Gate", "INITIAL_RESERVE"]),
    "tomis.actions": ("tomis.rules.actions", ["Action", "Move", "Place", "ACTION_TYPES", "builder"]),
    "tomis.combat": ("tomis.rules.combat", ["resolve"]),
    "tomis.position": ("tomis.rules.position", ["from_string", "to_string", "to_json"]),
    "tomis.lalr": ("tomis.notation.lalr", ["parse", "tokens"]),
    "tomis._parser_tables": ("tomis.notation._parser_tables", ["GRAMMAR_SHA256", "TERMINALS"]),
    "tomis.clock": ("tomis.notation.clock", ["TimeControl", "Stamp", "DAY"]),
    "tomis.conditional": ("tomis.notation.conditional", ["Fired", "Line", "NotHonoured"]),
    "tomis.correspondence": ("tomis.notation.correspondence", ["read_facts", "check"]),
    "tomis.digest": ("tomis.notation.digest", ["check_extends", "game_digest", "digest_of"]),
    "tomis.record": ("tomis.notation.record", ["read", "write", "append", "iter_read", "Game"]),
    "tomis.textio": ("tomis.util.textio", ["decode", "read_path", "read_stream", "Extracted"]),
    "tomis.safefile": ("tomis.util.safefile", ["atomic_write", "create_new", "locked"]),
    "tomis.terminal": ("tomis.util.terminal", ["Display", "display_for", "is_terminal", "PLAIN"]),
    "tomis.hints": ("tomis.util.hints", ["looks_like_a_record"]),
    "tomis.render": ("tomis.pictures.render", ["board"]),
    "tomis.words": ("tomis.pictures.words", ["action_words", "position_words", "report_words"]),
    "tomis.svg": ("tomis.pictures.svg", ["board", "COLORS"]),
    "tomis.images": ("tomis.pictures.images", ["png", "gif"]),
    "tomis.html": ("tomis.pictures.html", ["page"]),
    "tomis.findings": ("tomis.archive.findings", ["Finding", "RULES", "rule_id"]),
    "tomis.select": ("tomis.archive.select", ["ending_of", "ENDINGS", "compile_position"]),
    "tomis.dedupe": ("tomis.archive.dedupe", ["game_key"]),
    "tomis.stats": ("tomis.archive.stats", []),
    "tomis.reports": ("tomis.archive.reports", ["make_report", "FORMATS"]),
    "tomis.jsonl": ("tomis.archive.jsonl", []),
    "tomis.lineedit": ("tomis.cli.lineedit", ["LineEditor"]),
}

# old modules that became packages -> (the module they answer for, names)
PACKAGES = {
    "tomis.rules": ("tomis.rules.core", ["apply", "check", "legal_actions", "new_game", "State",
                                         "apply_unchecked", "compute_hash"]),
    "tomis.notation": ("tomis.notation.syntax", ["parse_action", "grammar_text", "game_items",
                                                 "parser", "game_spans"]),
    "tomis.archive": ("tomis.archive.walker", ["walk", "Probe", "_executor"]),
}


@pytest.mark.parametrize("old", sorted(OLD_PATHS))
def test_an_old_module_path_is_the_moved_module(old):
    new, names = OLD_PATHS[old]
    module = importlib.import_module(old)
    assert module is importlib.import_module(new)
    for name in names:
        assert hasattr(module, name), f"{old}.{name}"


@pytest.mark.parametrize("old", sorted(PACKAGES))
def test_an_old_module_that_became_a_package_answers_its_names(old):
    home, names = PACKAGES[old]
    package = importlib.import_module(old)
    module = importlib.import_module(home)
    for name in names:
        assert getattr(package, name) is getattr(module, name), f"{old}.{name}"
    with pytest.raises(AttributeError):
        package.no_such_name


def test_an_old_name_answered_once_is_kept_on_the_package():
    # The hot path: tomis.rules.apply in a loop must be a plain attribute read after the
    # first, not a module lookup per call.
    package = importlib.import_module("tomis.rules")
    package.__dict__.pop("apply", None)
    first = package.apply
    assert package.__dict__["apply"] is first is importlib.import_module("tomis.rules.core").apply


def test_from_imports_of_old_paths():
    from tomis.notation import parse_action
    from tomis.record import read
    from tomis.rules import apply, new_game

    state, _ = apply(new_game("manual"), parse_action("B@e1"))
    assert state.ply == 1
    assert read("1. B@e1 *\n")[0].game.nodes


def test_the_public_names_of_import_tomis():
    import tomis

    for name in tomis.__all__:
        assert getattr(tomis, name) is not None
