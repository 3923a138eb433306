"""The ``tomis`` command line: the only package that prints, prompts or exits.

This module holds the click group; :mod:`.base` the exit policy; each command family has its own
module (:mod:`.records`: new, move, fmt; :mod:`.views`: show, moves, replay;
:mod:`.check`: validate; :mod:`.play`: the play loop; :mod:`.mail`: send, inbox,
extract and move's mail options; :mod:`.manual`: help and the man page;
:mod:`.correspondence`: clock, claim, draw, resign; :mod:`.variations`: variation), over :mod:`.files` (reading
and writing records) and :mod:`.output` (colour, JSON, caret lines).

The group is lazy (click's documented ``LazyGroup`` pattern): a command's module is
imported only when that command runs, or when help lists it. Inside the command
modules, only click and their siblings load at module level; the library, the record
reader and lark load inside the commands that need them. This is the one reason for
the function-level imports under ``tomis/``: start-up time (docs/PERFORMANCE.md).

Exit codes (:mod:`.base`): 0 ok; 1 an invalid game or illegal action; 2 usage; 130 Ctrl-C.
"""

from __future__ import annotations

import atexit
import gc
from importlib import import_module

import click

from .base import EXIT_INVALID, EXIT_USAGE, Failure, TomisGroup

# command name -> "module:function" in this package. A new command family is a module
# here defining click commands, named below.
COMMANDS = {
    "new": "records:new", "move": "records:move", "fmt": "records:fmt",
    "show": "views:show", "moves": "views:moves", "replay": "views:replay",
    "export": "pictures:export", "validate": "check:validate", "play": "play:play",
    "send": "mail:send", "inbox": "mail:inbox", "extract": "mail:extract",
    "help": "manual:help_command", "select": "archive:select", "dedupe": "archive:dedupe",
    "stats": "archive:stats", "clock": "correspondence:clock", "claim": "correspondence:claim",
    "draw": "correspondence:draw", "resign": "correspondence:resign", "hint": "engine:hint",
    "analyse": "engine:analyse", "engine": "engine:engine", "match": "engine:match",
    "variation": "variations:variation", "referee": "referee:referee",
}

# Every command that reads a record can read one message of a mailbox (--message); those
# that write (move, claim, draw, resign) then write the new record to a file of its own.
# fmt rewrites record files only.
TAKE_MESSAGE = frozenset({"show", "moves", "replay", "export", "validate", "select", "dedupe",
                          "stats", "hint", "analyse", "move", "clock", "claim", "draw",
                          "resign"})


# The names other programs give a command, which tomis calls otherwise: asked for,
# the error names tomis's (python-chess and chess GUIs say legal moves, for one).
OTHER_NAMES = {
    "legal": "moves", "legal-moves": "moves", "actions": "moves", "board": "show",
    "view": "show", "check": "validate", "lint": "validate", "format": "fmt",
    "analyze": "analyse", "play-move": "move", "undo": "play", "man": "help",
}


class LazyGroup(TomisGroup):
    """A group that imports a command's module the first time the command is asked for."""

    def list_commands(self, ctx) -> list[str]:
        return sorted(COMMANDS)

    def resolve_command(self, ctx, args):
        name = args[0] if args else None
        if name is not None and name not in COMMANDS and not name.startswith("-"):
            import difflib

            close = difflib.get_close_matches(name.lower(), COMMANDS, n=1)
            meant = OTHER_NAMES.get(name.lower()) or (close[0] if close else None)
            if meant is not None:
                ctx.fail(f"No such command {name!r}. Did you mean {meant!r}?")
        return super().resolve_command(ctx, args)

    def get_command(self, ctx, name: str):
        command = self.commands.get(name)
        if command is None and name in COMMANDS:
            command = self.commands[name] = _load(name)
        return command


def _load(name: str) -> click.Command:
    module, attribute = COMMANDS[name].split(":")
    command = getattr(import_module(f".{module}", __name__), attribute)
    if name in TAKE_MESSAGE and not any(p.name == "message" for p in command.params):
        from .files import message_option
        message_option(command)
    return command


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """``--version``: the installed version, and whether the rules run compiled (the
    optional mypyc build), so that a timing can name what it measured."""
    if not value or ctx.resilient_parsing:
        return
    from importlib.metadata import version

    from ..rules.compiled import build_name
    click.echo(f"tomis, version {version('tomis')} ({build_name()})")
    ctx.exit()


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version and exit.")
def cli():
    """Tomis: keep, check and play game records of the space board game.

    Records are .tgn files (see docs/NOTATION.md). FILE may be - for stdin.
    Exit codes: 0 ok, 1 invalid game or illegal action, 2 usage or unreadable file,
    130 interrupted (Ctrl-C). The whole manual: tomis help (or man tomis).
    """


# The collector's first threshold (allocations between collections of young objects) in a
# command's process; CPython's default is 700.
COMMAND_GC_THRESHOLD = 20_000
_collector_set = False


def main(argv=None) -> None:
    """The console script's entry point (``tomis = "tomis.cli:main"``)."""
    _collect_sparsely()
    cli.main(args=argv, prog_name="tomis")


def _collect_sparsely() -> None:
    """Spare a command the collector's scans of what it loads and keeps to its end.

    Nearly everything a command allocates while it starts (modules, classes, the rules'
    tables, the grammar's) lives until the process ends, so each collection of young
    objects scanned it again and found nothing, and the interpreter scanned all of it once
    more when it exited: about 13 ms of a 140 ms ``tomis validate`` of one file, measured
    with ``gc.callbacks``. Collections every 20,000 allocations, and everything frozen
    (left out of the final collection) once the command is done, keep that for cycles
    that are really garbage. Open files are closed by ``with`` blocks, never by the
    final collection. docs/PERFORMANCE.md has the start-up figures.
    """
    global _collector_set
    if _collector_set:           # main() called twice in one process (tests)
        return
    _collector_set = True
    gc.set_threshold(COMMAND_GC_THRESHOLD, *gc.get_threshold()[1:])
    atexit.register(gc.freeze)


# Names scripts and tests take from tomis.cli, each from the module that defines it,
# loaded on first use like the commands.
_ELSEWHERE = {"caret_lines": "output", "is_terminal": "output", "Player": "play",
              "HumanPlayer": "play", "PlaySession": "play", "message_option": "files"}


def __getattr__(name: str):
    module = _ELSEWHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f".{module}", __name__), name)


__all__ = ["cli", "main", "Failure", "TomisGroup", "LazyGroup", "EXIT_INVALID", "EXIT_USAGE",
           "caret_lines", "Player", "HumanPlayer", "PlaySession"]
