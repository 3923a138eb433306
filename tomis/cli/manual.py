"""The manual: tomis(1) generated from the click commands, and ``tomis help``.

Every command, argument and option in the page comes from walking the click group, with
the same help texts ``--help`` prints, so the page cannot drift from the program. The
page ships as tomis/data/tomis.1 (and in share/man/man1, where ``man tomis`` finds it);
after changing a command, run ``python tools/gen_manpage.py``: tests/test_cli_manual.py
fails until you do. The sections click knows nothing about (exit status, environment,
completion) are written out below. The page carries no date and no version, so an
unchanged CLI gives the same bytes.
"""

from __future__ import annotations

import click

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
        ("75", "referee deliver only: the message could not be stored (the store locked "
               "too long, the disk full); the mail server tries again. It exits 0 for every "
               "message it stored, refused ones included."),
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
        ("TOMIS_SMTP_HOST, TOMIS_SMTP_PORT, TOMIS_SMTP_USER, TOMIS_SMTP_FROM, "
         "TOMIS_SMTP_SECURITY, TOMIS_SMTP_STARTTLS, TOMIS_SMTP_CAFILE",
         "SMTP settings for move --send and send; they override the config file. "
         "TOMIS_SMTP_SECURITY is starttls (port 587, the default), tls (port 465) or none "
         "(port 25, no password except to this machine)."),
        ("TOMIS_SMTP_SENDMAIL", "A program (sendmail, msmtp) that --send and send pipe the "
                                "message to, as PROGRAM -i -f SENDER -- RECIPIENT..., instead "
                                "of talking SMTP."),
        ("TOMIS_SMTP_PASSWORD", "The SMTP password; without it send asks on the terminal. "
                                "Never read from a file or the command line."),
        ("TOMIS_IMAP_PASSWORD", "The IMAP password for a PLACE like "
                                "imaps://USER@HOST/FOLDER; without it tomis asks on the "
                                "terminal. Never read from a file or the command line."),
        ("TOMIS_IMAP_CAFILE", "The CA file that vouches for the IMAP server's certificate "
                              "(default: the system's); overrides cafile = in [imap]."),
        ("TOMIS_MAIL_CONFIG", "The mail config file (default "
                              "$XDG_CONFIG_HOME/tomis/mail.ini, else ~/.config/tomis/mail.ini, "
                              "sections [smtp] and [imap]; docs/MAIL.md)."),
        ("TOMIS_DEBUG", "When set, an internal error shows its Python traceback."),
        ("TOMIS_REFEREE_WAIT", "Seconds referee deliver waits for the store's lock before it "
                               "exits 75 so that the mail server tries again (default 20)."),
        ("TOMIS_TEST_NO_TMPFILE, TOMIS_TEST_PAUSE_BEFORE_RENAME",
         "For tests only (docs/SECURITY.md): named temporary files even where O_TMPFILE "
         "works; a pause of so many seconds before a write's rename."),
    ]),
    ("FILES", [
        ("~/.local/state/tomis/history/", "What was typed in play, one file per game "
                                          "(under $XDG_STATE_HOME when set)."),
        ("RECORD.mail.json", "Beside a record: the opponent's address and the mail thread "
                             "of its game (never a password)."),
        ("~/.config/tomis/mail.ini", "SMTP and IMAP settings (see TOMIS_MAIL_CONFIG)."),
    ]),
    ("SHELL COMPLETION", [
        "Commands, options, choices and file names complete in bash, zsh and fish, and "
        "so do the legal actions after tomis move FILE. "
        "For bash and zsh add one line to the shell's start-up file; for fish, write the "
        "completion file once:",
        ("bash (~/.bashrc)", 'eval "$(_TOMIS_COMPLETE=bash_source tomis)"'),
        ("zsh (~/.zshrc)", 'eval "$(_TOMIS_COMPLETE=zsh_source tomis)"'),
        ("fish", "_TOMIS_COMPLETE=fish_source tomis > ~/.config/fish/completions/tomis.fish"),
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
    import inspect      # here: every start of tomis imports this module, few need this

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


def command_lines(group, ctx, prefix: str = "tomis") -> list[str]:
    """A section per command; a command group's own commands follow it, each named in full
    (``tomis referee deliver``)."""
    out = [".SH COMMANDS"] if prefix == "tomis" else []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is None or command.hidden:
            continue
        sub = command.context_class(command, info_name=name, parent=ctx)
        usage = " ".join(command.collect_usage_pieces(sub))
        out += [f".SS \"{escape(prefix)} {escape(name)} {escape(usage)}\""]
        out += paragraph_lines(command.help)
        out += option_lines(command, sub, with_help=False)
        if isinstance(command, click.Group):
            out += command_lines(command, sub, f"{prefix} {name}")
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


def _root_context(group):
    return group.context_class(group, info_name="tomis", **group.context_settings)


def manpage(group) -> str:
    """The troff source of tomis(1) for the click ``group``."""
    ctx = _root_context(group)
    usage = " ".join(group.collect_usage_pieces(ctx))
    lines = [
        ".\\\" GENERATED by tools/gen_manpage.py (tomis/cli/manual.py) from the click commands; do not edit.",
        '.TH TOMIS 1 "" "tomis" "User Commands"',
        # Left-aligned, never hyphenated: options, paths and commands must stay typeable.
        ".ad l",
        ".nh",
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


# --------------------------------------------------------------------------- tomis help

def shipped_page():
    """The installed tomis.1 as an importlib resource."""
    import importlib.resources

    return importlib.resources.files("tomis") / "data" / "tomis.1"


def plain_manual(group) -> str:
    """The manual as plain text, for a pipe or a system without man(1): the program's
    help, every command's help as ``--help`` prints it, then the extra sections."""
    import textwrap

    ctx = _root_context(group)
    parts = [group.get_help(ctx)]
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is None or command.hidden:
            continue
        sub = command.context_class(command, info_name=name, parent=ctx)
        parts.append(command.get_help(sub))
    for heading, items in EXTRA_SECTIONS:
        lines = [heading]
        for item in items:
            term, text = item if isinstance(item, tuple) else (None, item)
            if term is not None:
                lines.append("  " + term)
            lines += textwrap.wrap(text, width=78, initial_indent="      " if term else "  ",
                                   subsequent_indent="      " if term else "  ")
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def _complete_command(ctx, _param, incomplete: str):
    """Shell completion of ``tomis help COMMAND``: the command names."""
    from click.shell_completion import CompletionItem

    group = ctx.parent.command
    return [CompletionItem(name) for name in group.list_commands(ctx.parent)
            if name.startswith(incomplete)]


@click.command("help")
@click.argument("command", required=False, shell_complete=_complete_command)
@click.option("--man", "troff", is_flag=True,
              help="Print the manual page's troff source (to install it by hand).")
@click.pass_context
def help_command(ctx, command, troff):
    """Show the manual, or COMMAND's help (what tomis COMMAND --help shows).

    On a terminal the manual opens in man(1); in a pipe, or where there is no man, it is
    printed as plain text.
    """
    import shutil
    import subprocess
    import sys

    from .output import is_terminal

    group = ctx.parent.command
    if command is not None:
        found = group.get_command(ctx.parent, command)
        if found is None:
            names = ", ".join(group.list_commands(ctx.parent))
            raise click.BadParameter(f"there is no command {command!r}; the commands are {names}",
                                     param_hint="COMMAND")
        sub = found.context_class(found, info_name=command, parent=ctx.parent)
        click.echo(found.get_help(sub))
        return
    page = shipped_page()
    if troff:
        click.echo(page.read_text(encoding="utf-8"), nl=False)
        return
    if is_terminal(sys.stdout) and shutil.which("man"):
        import importlib.resources

        with importlib.resources.as_file(page) as path:
            # A name with a slash is read as a file by man-db and BSD man alike.
            ctx.exit(subprocess.run(["man", str(path.resolve())]).returncode)
    click.echo(plain_manual(group), nl=False)
