"""The ``tomis`` command line: the only package that prints, prompts or exits.

This module holds the click group and the exit policy; each command family has its own
module (:mod:`.records`: new, move, fmt; :mod:`.views`: show, moves, replay;
:mod:`.check`: validate; :mod:`.play`: the play loop), over :mod:`.files` (reading and
writing records) and :mod:`.output` (colour, JSON, caret lines).

Only click is imported at module level here and in those modules, so ``tomis --help``
starts as fast as a bare click app; the library, the record reader and lark load inside
the commands that need them.

Exit codes: 0 ok; 1 an invalid game, an illegal action or a file we could not write or
lock; 2 a usage error (click's own) or an input file we could not read.
Every error is one ``path:line:column: message`` line on stderr; when stderr is a
terminal, the offending source line and a caret follow it.
"""

from __future__ import annotations

import os
import sys

import click

EXIT_INVALID = 1
EXIT_USAGE = 2


class Failure(Exception):
    """A TomisError on its way out, with its exit code and the text it was found in."""

    def __init__(self, error, code: int = EXIT_INVALID, text: str | None = None):
        super().__init__(str(error))
        self.error = error
        self.code = code
        self.text = text


class TomisGroup(click.Group):
    """The one place where project errors become a located line and an exit code."""

    def invoke(self, ctx):
        from ..errors import TomisError

        try:
            return super().invoke(ctx)
        except Failure as failure:
            _print_error(failure.error, failure.text)
            ctx.exit(failure.code)
        except TomisError as error:
            _print_error(error, None)
            ctx.exit(EXIT_INVALID)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except BrokenPipeError:
            # The reader went away (`tomis moves | head`): nothing left to say to it.
            _silence_stdout()
            ctx.exit(EXIT_INVALID)
        except Exception as error:  # a bug of ours: one line, not a traceback, for users
            if os.environ.get("TOMIS_DEBUG"):
                raise
            click.echo(f"tomis: internal error: {type(error).__name__}: {error} "
                       "(please report it; TOMIS_DEBUG=1 shows the traceback)", err=True)
            ctx.exit(EXIT_INVALID)


def _silence_stdout() -> None:
    """Point stdout at the null device so Python's exit-time flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _print_error(error, text: str | None) -> None:
    click.echo(error.located(), err=True)
    if text is not None and is_terminal(sys.stderr):
        for line in caret_lines(text, error.line, error.column):
            click.echo(line, err=True)


@click.group(cls=TomisGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="tomis", prog_name="tomis")
def cli():
    """Tomis: keep, check and play game records of the space board game.

    Records are .tgn files (see docs/NOTATION.md). FILE may be - for stdin.
    Exit codes: 0 ok, 1 invalid game or illegal action, 2 usage or unreadable file.
    """


def main(argv=None) -> None:
    """The console script's entry point (``tomis = "tomis.cli:main"``)."""
    cli.main(args=argv, prog_name="tomis")


# The command modules come last: they take Failure and the exit codes from this module,
# and import only click and each other at module level (the layers load inside commands).
# A new command family is a module here defining click commands, imported and added below.
from .check import validate  # noqa: E402
from .engine import analyse, engine, hint, match  # noqa: E402
from .output import caret_lines, is_terminal  # noqa: E402
from .play import HumanPlayer, Player, PlaySession, play  # noqa: E402
from .pictures import export  # noqa: E402
from .records import fmt, move, new  # noqa: E402
from .views import moves, replay, show  # noqa: E402

for _command in (new, move, fmt, show, moves, replay, export, validate, play, hint, analyse, engine,
                 match):
    cli.add_command(_command)
del _command

__all__ = ["cli", "main", "Failure", "TomisGroup", "EXIT_INVALID", "EXIT_USAGE",
           "caret_lines", "Player", "HumanPlayer", "PlaySession"]
