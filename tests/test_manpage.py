"""The manual page (tomis/data/tomis.1) and shell completion for bash, zsh and fish.

The page is generated from the click commands by tools/gen_manpage.py; these tests fail
when a command or option changed without regenerating it, and check that what the page
and the README promise about completion is what click produces.
"""

from __future__ import annotations

import importlib.resources
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from tomis.cli import cli

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "tomis" / "data" / "tomis.1"


def generator():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import gen_manpage
    finally:
        sys.path.pop(0)
    return gen_manpage


def all_options():
    """(command name, option flag) for every option of every command."""
    ctx = click.Context(cli, info_name="tomis", **cli.context_settings)
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        for param in command.params:
            if isinstance(param, click.Option):
                for flag in param.opts:
                    yield name, flag


def test_the_shipped_page_is_what_the_generator_writes_now():
    assert PAGE.read_text(encoding="utf-8") == generator().manpage(cli), (
        "the commands changed: run python tools/gen_manpage.py")


def test_the_page_ships_inside_the_package():
    shipped = importlib.resources.files("tomis") / "data" / "tomis.1"
    assert shipped.read_text(encoding="utf-8").startswith(".\\\" GENERATED")


def test_every_command_has_a_section():
    page = PAGE.read_text(encoding="utf-8")
    ctx = click.Context(cli, info_name="tomis")
    for name in cli.list_commands(ctx):
        assert f'.SS "tomis {name} ' in page, name


@pytest.mark.parametrize("command, flag", list(all_options()))
def test_every_option_is_in_the_page(command, flag):
    assert flag in _tagged_flags(_command_section(command)), (command, flag)


def _tagged_flags(section: str) -> set[str]:
    """The option flags of a section's tagged paragraphs (``\\fB\\-q, \\-\\-quiet\\fR``)."""
    flags = set()
    for line in section.splitlines():
        if line.startswith("\\fB"):
            plain = line.replace("\\fB", "").replace("\\fR", "").replace("\\-", "-")
            flags.update(word for word in plain.replace(",", " ").split() if word.startswith("-"))
    return flags


def _command_section(name: str) -> str:
    page = PAGE.read_text(encoding="utf-8")
    start = page.index(f'.SS "tomis {name} ')
    end = page.find(".SS ", start + 1)
    return page[start:end if end != -1 else len(page)]


def test_troff_escapes_what_troff_would_misread():
    gen = generator()
    assert gen.text_line(".tgn files") == "\\&.tgn files"
    assert gen.text_line("a back\\slash and --check") == "a back\\eslash and \\-\\-check"


@pytest.mark.skipif(shutil.which("man") is None, reason="no man(1) here")
def test_man_renders_the_page_without_warnings(tmp_path):
    done = subprocess.run(["man", "--warnings", "-l", str(PAGE)], capture_output=True,
                          text=True, env={"MANWIDTH": "80", "PATH": "/usr/bin:/bin",
                                          "MANPAGER": "cat", "PAGER": "cat", "LANG": "C.UTF-8"})
    assert done.returncode == 0
    assert done.stderr == ""
    assert "tomis validate [OPTIONS] FILES..." in done.stdout
    assert "--as [white|black]" in done.stdout


@pytest.mark.parametrize("shell, marker", [
    ("bash", "complete -o nosort -F _tomis_completion tomis"),
    ("zsh", "#compdef tomis"),
    ("fish", "complete --no-files --command tomis"),
])
def test_completion_script_comes_out_for_each_shell(shell, marker):
    result = CliRunner().invoke(cli, [], prog_name="tomis",
                                env={"_TOMIS_COMPLETE": f"{shell}_source"})
    assert result.exit_code == 0
    assert marker in result.output


def test_bash_completion_completes_command_names():
    result = CliRunner().invoke(cli, [], prog_name="tomis", env={
        "_TOMIS_COMPLETE": "bash_complete", "COMP_WORDS": "tomis va", "COMP_CWORD": "1"})
    assert result.output.split() == ["plain,validate"]


def test_bash_completion_completes_option_choices():
    result = CliRunner().invoke(cli, [], prog_name="tomis", env={
        "_TOMIS_COMPLETE": "bash_complete", "COMP_WORDS": "tomis move g.tgn B@e1 --as ",
        "COMP_CWORD": "5"})
    assert result.output.split() == ["plain,white", "plain,black"]


def test_the_page_documents_completion_for_the_three_shells():
    page = PAGE.read_text(encoding="utf-8")
    for shell in ("bash", "zsh", "fish"):
        assert f"_TOMIS_COMPLETE={shell}_source tomis" in page
