"""What the terminal in front of ``tomis`` wants: colour or not, arrow glyphs or not.

One policy for every command, decided here and nowhere else, so that ``show``, ``move``,
``replay`` and ``play`` agree. Nothing here prints; nothing heavy is imported (no click),
so the CLI can ask before it has loaded anything.

Colour, the first rule that applies wins (the order Python 3.13 itself uses for its own
colours, after https://no-color.org and https://force-color.org):

1. ``--ascii`` or ``--color never``: no colour.
2. ``--color always``: colour, even into a pipe (a per-run choice beats the environment).
3. ``NO_COLOR`` set to a non-empty value: no colour. An empty ``NO_COLOR=`` is ignored,
   as no-color.org asks.
4. ``FORCE_COLOR`` set to a non-empty value: colour, even into a pipe.
5. ``TERM=dumb``: no colour (the terminal cannot show escape codes).
6. otherwise colour exactly when the output is a terminal.

Arrow glyphs (jump-gate directions as ``\u2197`` instead of ``NE``) need a stream that can
carry them: never with ``--ascii`` or ``TERM=dumb``, only on a UTF-8 stream, and only on a
terminal unless colour was forced. So a pipe or a file always gets the plain ASCII diagram,
byte for byte, whatever ``NO_COLOR`` says.
"""

from __future__ import annotations

import os
from typing import Mapping, NamedTuple, TextIO

COLOR_CHOICES = ("auto", "always", "never")


class Display(NamedTuple):
    """How to draw for one output stream: ANSI colours, and arrows for directions.

    (A NamedTuple, not a dataclass: ``tomis --help`` imports this module, and the
    dataclasses module alone costs about 1 ms there.)
    """

    colour: bool
    glyphs: bool


PLAIN = Display(colour=False, glyphs=False)


def display_for(stream: TextIO | None, choice: str = "auto", *, ascii_only: bool = False,
                environ: Mapping[str, str] | None = None) -> Display:
    """The :class:`Display` for writing to ``stream`` under ``--color choice``.

    ``environ`` defaults to ``os.environ``; tests pass their own.
    """
    if choice not in COLOR_CHOICES:
        raise ValueError(f"--color takes one of {', '.join(COLOR_CHOICES)}, not {choice!r}")
    env = os.environ if environ is None else environ
    if ascii_only:
        return PLAIN
    colour, forced = _colour(stream, choice, env)
    glyphs = (not _is_dumb(env) and _can_encode_arrows(stream)
              and (forced or is_terminal(stream)))
    return Display(colour=colour, glyphs=glyphs)


def _colour(stream, choice: str, env: Mapping[str, str]) -> tuple[bool, bool]:
    """(colour wanted, whether it was forced rather than detected)."""
    if choice == "never":
        return False, False
    if choice == "always":
        return True, True
    if env.get("NO_COLOR"):
        return False, False
    if env.get("FORCE_COLOR"):
        return True, True
    if _is_dumb(env):
        return False, False
    return is_terminal(stream), False


def _is_dumb(env: Mapping[str, str]) -> bool:
    return env.get("TERM", "").lower() == "dumb"


def _can_encode_arrows(stream) -> bool:
    encoding = (getattr(stream, "encoding", None) or "ascii").lower().replace("-", "").replace("_", "")
    return encoding in ("utf8", "utf8sig", "utf16", "utf32")


def is_terminal(stream) -> bool:
    """True for a stream attached to a terminal; False for pipes, files, closed streams."""
    if stream is None:
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):     # no isatty, or already closed
        return False


def is_dumb_terminal(environ: Mapping[str, str] | None = None) -> bool:
    """``TERM=dumb``: no cursor movement, no escape codes (Emacs shell buffers, some CI)."""
    return _is_dumb(os.environ if environ is None else environ)
