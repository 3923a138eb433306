"""Write the manual page tomis/data/tomis.1 from the click commands themselves.

Every command, argument and option in the page comes from walking the click group, with
the same help texts ``--help`` prints, so the page cannot drift from the program: after
changing a command, run this; tests/test_manpage.py fails until you do. The sections
click knows nothing about (exit status, environment, files, completion) are written out
below. The page carries no date and no version, so regenerating an unchanged CLI gives
the same bytes.

    python tools/gen_manpage.py          # rewrite tomis/data/tomis.1
    python tools/gen_manpage.py --check  # exit 1 if it is out of date
"""

from __future__ import annotations

import argparse
import inspect
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "tomis" / "data" / "tomis.1"

SUMMARY = "keep, check and play game records of Tomis, the space board game"

# Sections the click commands cannot describe, as (heading, paragraphs). A paragraph is
# a string; a (term, text) pair is a tagged paragraph.
EXTRA_SECTIONS = [
    ("EXIT STATUS", [
        ("0", "Everything is valid; the action was played."),
        ("1", "An invalid game, an illegal or unreadable action, fmt --check found a "
              "difference, or a file that could not be written or locked."),
        ("2", "A usage error, or an input file that cannot be read (missing, a folder, "
              "not UTF-8, binary, too large)."),
        ("130", "Interrupted with Ctrl-C; what was saved stays saved."),
    ]),
    ("ENVIRONMENT", [
        ("NO_COLOR", "When set to a non-empty value, no colour (https://no-color.org). "
                     "An empty value is ignored. --color always still wins."),
        ("FORCE_COLOR", "When set to a non-empty value, colour even into a pipe or a "
                        "file, unless NO_COLOR is set or --color never is given."),
        ("TERM", "TERM=dumb: no colour, no arrow glyphs and no line editing."),
        ("XDG_STATE_HOME", "Where play keeps each game's input history: "
                           "$XDG_STATE_HOME/tomis/history (default ~/.local/state)."),
        ("TOMIS_DEBUG", "When set, an internal error shows its Python traceback."),
    ]),
    ("SHELL COMPLETION", [
        "Commands, options, choices and file names complete in bash, zsh and fish. "
        "Add one line to the shell's start-up file:",
        ("bash (~/.bashrc)", 'eval "$(_TOMIS_COMPLETE=bash_source tomis)"'),
        ("zsh (~/.zshrc)", 'eval "$(_TOMIS_COMPLETE=zsh_source tomis)"'),
        ("fish (~/.config/fish/completions/tomis.fish)",
         "_TOMIS_COMPLETE=fish_source tomis | source"),
    ]),
    ("SEE ALSO", [
        "README.md, docs/NOTATION.md (the notation and the record format), docs/RULES.md "
        "(the rules, ruling by ruling) and docs/SECURITY.md in the tomis source.",
    ]),
]


def escape(text: str) -> str:
    """``text`` safe inside a troff line: backslashes and hyphens escaped."""
    return text.replace("\\", "\\e").replace("-", "\\-")


def text_line(text: str) -> str:
    """One line of running text; a leading . or ' would be read as a request."""
    line = escape(text)
    return "\\&" + line if line[:1] in (".", "'") else line


def paragraphs(help_text: str) -> list[list[str]]:
    """click help text as paragraphs of lines; a ``\\b`` paragraph keeps its lines."""
    blocks = inspect.cleandoc(help_text or "").split("\n\n")
    result = []
    for block in blocks:
        lines = block.splitlines()
        if lines and lines[0].strip() == "\b":
            result.append(["\b"] + lines[1:])
        elif lines:
            result.append([" ".join(line.strip() for line in lines)])
    return result


def paragraph_lines(help_text: str) -> list[str]:
    out = []
    for block in paragraphs(help_text):
        if block[0] == "\b":
            out += [".PP", ".nf"] + [text_line(line) for line in block[1:]] + [".fi"]
        else:
            out += [".PP", text_line(block[0])]
    return out


def option_lines(command, ctx, with_help: bool = True) -> list[str]:
    """A tagged paragraph per option: its flags and metavar in bold, then its help.

    ``with_help``: list -h/--help too (once, for the whole program, is enough).
    """
    import click

    out = []
    help_option = command.get_help_option(ctx)
    for param in command.get_params(ctx):
        is_help = help_option is not None and param.name == help_option.name
        if not isinstance(param, click.Option) or (is_help and not with_help):
            continue
        record = param.get_help_record(ctx)
        if record is None:                  # a hidden option
            continue
        flags, help_text = record
        out += [".TP", f"\\fB{escape(flags)}\\fR", text_line(help_text or "")]
    return out


def command_lines(group, ctx) -> list[str]:
    out = [".SH COMMANDS"]
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is None or command.hidden:
            continue
        sub = command.context_class(command, info_name=name, parent=ctx)
        usage = " ".join(command.collect_usage_pieces(sub))
        out += [f".SS \"tomis {escape(name)} {escape(usage)}\""]
        out += paragraph_lines(command.help)
        out += option_lines(command, sub, with_help=False)
    return out


def extra_lines() -> list[str]:
    out = []
    for heading, items in EXTRA_SECTIONS:
        out.append(f".SH {heading}")
        for item in items:
            if isinstance(item, tuple):
                out += [".TP", f"\\fB{escape(item[0])}\\fR", text_line(item[1])]
            else:
                out += [".PP", text_line(item)]
    return out


def manpage(group) -> str:
    """The troff source of tomis(1) for the click ``group``."""
    ctx = group.context_class(group, info_name="tomis", **group.context_settings)
    usage = " ".join(group.collect_usage_pieces(ctx))
    lines = [
        ".\\\" GENERATED by tools/gen_manpage.py from the click commands; do not edit.",
        '.TH TOMIS 1 "" "tomis" "User Commands"',
        ".SH NAME",
        f"tomis \\- {escape(SUMMARY)}",
        ".SH SYNOPSIS",
        f"\\fBtomis\\fR {escape(usage)}",
        ".SH DESCRIPTION",
        *paragraph_lines(group.help),
        ".SH OPTIONS",
        *option_lines(group, ctx),
        *command_lines(group, ctx),
        *extra_lines(),
    ]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the page is out of date")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from tomis.cli import cli

    text = manpage(cli)
    if args.check:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != text:
            print(f"{OUTPUT.relative_to(ROOT)} is out of date: run python tools/gen_manpage.py")
            return 1
        return 0
    OUTPUT.parent.mkdir(exist_ok=True)
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
