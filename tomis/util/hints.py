"""Second guesses for common slips at the command line, in words a user can act on.

Nothing here prints or raises: each function looks at what the user gave and returns a
sentence to add to an error, or None when it has nothing useful to say.
"""

from __future__ import annotations

import os
import re

# Anything a record is made of: a tag pair, a move number, an action (whatever follows
# its square), or a result standing alone. Prose has none of these.
_RECORD_SIGN = re.compile(
    r"""^[ \t]*\[[ \t]*[A-Za-z]\w*[ \t]+"      # [Event "...
      | (?<!\S)[0-9]+\.(?:\.\.)?(?!\S)          # 12. or 12...
      | (?<![\w@])[BGMFSTQ]@?[a-h][1-8]         # B@e1, Fa2-a3, Mc3:NE ...
      | (?<!\S)(?:1-0|0-1|1/2-1/2|\*)(?!\S)     # a result
    """, re.MULTILINE | re.VERBOSE)

# An action as typed on the command line (its shape only; the rules judge the rest).
_ACTION_SHAPE = re.compile(r"^[BGMFSTQ]@?[a-h][1-8]\S*$")


def looks_like_a_record(text: str) -> bool:
    """False for a text with no tag, move number, action or result anywhere in it.

    Such a text (a letter, a shopping list) holds no game, and saying so beats a complaint
    about the first word's first letter.
    """
    return _RECORD_SIGN.search(text) is not None


def no_record_hint() -> str:
    """What a record looks like, for the "no game found" error of a text that is not one."""
    return "no tags like [Event \"...\"], move numbers like 1. or actions like B@e1 in it"


def looks_like_an_action(word: str) -> bool:
    return _ACTION_SHAPE.match(word) is not None


def swapped_arguments(command: str, file: str, action: str) -> str | None:
    """For ``tomis move B@e1 game.tgn``: the command with FILE and ACTION the right way
    round, when FILE looks like an action and ACTION names a file that exists."""
    import shlex        # 0.7 ms of start-up for validate, which loads this module for its hints

    if file == "-" or not looks_like_an_action(file) or not os.path.isfile(action):
        return None
    return (f"FILE comes before ACTION: did you mean "
            f"'tomis {command} {shlex.quote(action)} {shlex.quote(file)}'?")


def shell_took_a_redirect(action: str) -> str | None:
    """For ``tomis move g.tgn Fc3>d4`` typed unquoted: the shell ran ``tomis move g.tgn
    Fc3`` with its output sent to a file ``d4``. A frigate and a square alone is what is
    left; say how to type it."""
    if not re.fullmatch(r"F[a-h][1-8]", action):
        return None
    return (f"if you typed a gate jump like {action}>e4, put it in quotes ('{action}>e4'): "
            "unquoted, the shell takes > for a redirection into a file")
