"""The manual: tomis/data/tomis.1, ``tomis help``, shell completion, the README's table.

The page is generated from the click commands (tomis/cli/manual.py, written out by
tools/gen_manpage.py); these tests fail when a command or option changed without
regenerating it or without the README's command table saying so, and check that what
the page and the README promise about completion is what click produces.
"""

from __future__ import annotations

import importlib.resources
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from conftest import invoke
from tomis.cli import cli, manual

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "tomis" / "data" / "tomis.1"


def all_options():
    """(command name, option flag) for every option of every command."""
    ctx = click.Context(cli, info_name="tomis", **cli.context_settings)
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden:   # hidden: for tests only
                for flag in param.opts:
                    yield name, flag


def test_the_shipped_page_is_what_the_generator_writes_now():
    assert PAGE.read_text(encoding="utf-8") == manual.manpage(cli), (
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


def test_every_environment_variable_tomis_reads_is_in_the_page():
    names = set()
    for source in (ROOT / "tomis").rglob("*.py"):
        names.update(re.findall(r'"(TOMIS_[A-Z_]+|NO_COLOR|FORCE_COLOR|XDG_[A-Z_]+)"',
                                source.read_text(encoding="utf-8")))
    page = PAGE.read_text(encoding="utf-8").replace("\\-", "-")
    section = page.split(".SH ENVIRONMENT", 1)[1].split(".SH ", 1)[0]
    assert names and all(name in section for name in names), sorted(n for n in names if n not in section)


def test_troff_escapes_what_troff_would_misread():
    gen = manual
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
        "_TOMIS_COMPLETE": "bash_complete", "COMP_WORDS": "tomis val", "COMP_CWORD": "1"})
    assert result.output.split() == ["plain,validate"]


def test_bash_completion_completes_option_choices():
    result = CliRunner().invoke(cli, [], prog_name="tomis", env={
        "_TOMIS_COMPLETE": "bash_complete", "COMP_WORDS": "tomis move g.tgn B@e1 --as ",
        "COMP_CWORD": "5"})
    assert result.output.split() == ["plain,white", "plain,black"]


def test_bash_completion_completes_the_command_help_is_asked_about():
    result = CliRunner().invoke(cli, [], prog_name="tomis", env={
        "_TOMIS_COMPLETE": "bash_complete", "COMP_WORDS": "tomis help mo", "COMP_CWORD": "2"})
    assert result.output.split() == ["plain,move", "plain,moves"]


def test_the_page_documents_completion_for_the_three_shells():
    page = PAGE.read_text(encoding="utf-8")
    for shell in ("bash", "zsh", "fish"):
        assert f"_TOMIS_COMPLETE={shell}_source tomis" in page


def test_the_generator_script_agrees_with_the_shipped_page():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_manpage.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout


# --------------------------------------------------------------------------- tomis help

def test_help_in_a_pipe_prints_the_whole_manual_as_text():
    result = invoke("help")
    assert result.exit_code == 0
    for words in ("Usage: tomis validate [OPTIONS] FILES...", "Usage: tomis play",
                  "EXIT STATUS", "NO_COLOR", "_TOMIS_COMPLETE=zsh_source tomis"):
        assert words in result.stdout, words


def test_help_command_is_that_commands_help():
    assert invoke("help", "show").stdout == invoke("show", "--help").stdout


def test_help_for_no_such_command_names_the_commands():
    result = invoke("help", "shwo")
    assert result.exit_code == 2
    assert "there is no command 'shwo'; the commands are " in result.stderr
    assert all(f" {name}," in result.stderr for name in ("fmt", "help", "move", "show"))


def test_help_man_prints_the_shipped_troff_source():
    assert invoke("help", "--man").stdout == PAGE.read_text(encoding="utf-8")


@pytest.mark.skipif(shutil.which("man") is None or sys.platform == "win32",
                    reason="needs man(1) and a pseudo-terminal")
def test_help_on_a_terminal_opens_the_page_in_man():
    pexpect = pytest.importorskip("pexpect")
    env = dict(os.environ, MANPAGER="cat", PAGER="cat", MANWIDTH="80", TERM="xterm")
    child = pexpect.spawn(sys.executable, ["-m", "tomis", "help"], env=env,
                          encoding="utf-8", timeout=20)
    child.expect_exact("TOMIS(1)")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


# --------------------------------------------------------------------------- the README

def readme_rows() -> dict[str, str]:
    """command -> its rows in the README's command table (show has two), joined."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    table = text.split("## Commands", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, str] = {}
    for line in table.splitlines():
        found = re.match(r"\| `tomis (\w+)", line)
        if found:
            rows[found[1]] = rows.get(found[1], "") + line
    return rows


def test_the_readme_table_lists_every_command():
    ctx = click.Context(cli, info_name="tomis")
    assert sorted(readme_rows()) == cli.list_commands(ctx)


def _every_option():
    ctx = click.Context(cli, info_name="tomis")
    for name in cli.list_commands(ctx):
        for param in cli.get_command(ctx, name).params:
            if isinstance(param, click.Option) and not param.hidden:   # hidden: for tests only
                flags = param.opts + param.secondary_opts       # --starttls/--no-starttls
                yield pytest.param(name, flags, id=f"{name} {param.opts[-1]}")


@pytest.mark.parametrize("command, flags", list(_every_option()))
def test_the_readme_table_lists_every_option(command, flags):
    row = readme_rows()[command]
    assert any(re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", row) for flag in flags), (
        command, flags)
