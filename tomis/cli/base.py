"""The exit policy of every command: exit codes, ``Failure`` and ``TomisGroup``.

Exit codes: 0 ok; 1 an invalid game, an illegal action or a file we could not write or
lock; 2 a usage error (click's own) or an input file we could not read; 130 Ctrl-C.
Every error is one ``path:line:column: message`` line on stderr (``path: message`` when
it concerns the file as a whole); when stderr is a terminal, the offending source line
and a caret follow it.
"""

from __future__ import annotations

import os
import sys

import click

from .output import caret_lines, is_terminal

EXIT_INVALID = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130        # 128 + SIGINT, what shells report for a program stopped by Ctrl-C


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
        except click.Abort as abort:
            # click.prompt turns Ctrl-C into Abort ("Aborted!", exit 1): say it as ours.
            if isinstance(abort.__context__, KeyboardInterrupt):
                _say_interrupted(abort.__context__)
                ctx.exit(EXIT_INTERRUPTED)
            raise
        except (click.ClickException, click.exceptions.Exit):
            raise
        except KeyboardInterrupt as interrupt:
            _say_interrupted(interrupt)
            ctx.exit(EXIT_INTERRUPTED)
        except BrokenPipeError:
            # The reader went away (`tomis moves | head`): nothing left to say to it.
            _silence_stdout()
            ctx.exit(EXIT_INVALID)
        except Exception as error:  # a bug of ours: one line, not a traceback, for users
            if os.environ.get("TOMIS_DEBUG"):
                raise
            from ..errors import visible      # the error may quote the input

            click.echo(f"tomis: internal error: {type(error).__name__}: {visible(str(error))} "
                       "(please report it; TOMIS_DEBUG=1 shows the traceback)", err=True)
            ctx.exit(EXIT_INVALID)


def _say_interrupted(interrupt: KeyboardInterrupt) -> None:
    """One line for Ctrl-C (click's own "Aborted!" came with exit 1).

    The terminal has echoed ``^C`` where the cursor was; the line starts below it,
    unless the line editor already moved there (``at_line_start``). ``note`` is what the
    command wants said, e.g. where the game is saved.
    """
    if not getattr(interrupt, "at_line_start", False) and is_terminal(sys.stderr):
        click.echo(err=True)
    note = getattr(interrupt, "note", None)
    click.echo("tomis: interrupted" + (f"; {note}" if note else ""), err=True)


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
