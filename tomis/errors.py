"""One hierarchy of errors for the whole project.

Every error the project raises on bad input is a :class:`TomisError`. It may carry the
``line`` and ``column`` (1-based) where the problem was found; the CLI turns it into a
single ``path:line:column: message`` line.
"""

from __future__ import annotations


class TomisError(Exception):
    """Base of every error the project reports to a user."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.path: str | None = None      # the file, set by whoever read it
        self.game: int | None = None      # 1-based game number within the file
        self.action: int | None = None    # 1-based action number within the game

    def __str__(self) -> str:
        return self.message

    def located(self) -> str:
        """The one-line form ``path:line:column: message`` the CLI prints.

        A problem with the file as a whole (missing, a folder, locked) has no place in
        it, so it reads ``path: message``, as compilers and grep say it, not ``path:0:0:``
        (which pointed at a line 0 no editor has); a known line without a column gives
        ``path:line: message``.

        Messages quote what the input said; a control character in it (a line or record
        separator, say) is shown escaped, so the report stays one line whatever the input.
        """
        place = one_line(self.path or "<input>")
        if self.line is not None:
            place += f":{self.line}"
            if self.column is not None:
                place += f":{self.column}"
        return f"{place}: {one_line(self.message)}"


def visible(text: str, lines: bool = False) -> str:
    """``text`` as it may be shown to a person: every character that is not printable
    escaped (``\\x1b``, ``\\x07``, ``\\x9b``, ``\\u202e``, ``\\t``, ``\\n``); spaces stay.

    Outside text (a tag, a comment, a file or attachment name, a word quoted in an
    error) may hold terminal escape sequences that retitle the terminal, hide text or
    write links; escaped, they are only characters to read. "Not printable" is Python's
    ``str.isprintable``: the C0 and C1 controls, DEL, format characters such as the bidi
    overrides and zero-width joiners, separators other than the space. A tab is escaped
    too: it moves the cursor, and nothing a record says needs one. With ``lines``, a
    ``\\n`` stays, for text that is several lines by design (a comment, a record).
    """
    if text.isprintable():
        return text
    return "".join(
        char if char.isprintable() or (lines and char == "\n")
        else char.encode("unicode_escape").decode("ascii")
        for char in text
    )


# The name the error reports always used: a one-line message is visible() text.
one_line = visible


class NotationError(TomisError):
    """Text that is not valid notation or record syntax."""


class IllegalActionError(TomisError):
    """A well-formed action the rules do not allow in the position; names the ruling."""


class PositionError(TomisError):
    """A position string that cannot be read or describes an impossible position."""


class RecordError(TomisError):
    """A game record whose tags, numbers or results do not agree with its actions."""


class FileError(TomisError):
    """A file that cannot be read, written or locked, or whose bytes are not a text record.

    ``.path`` names the file when one is known; ``.line``/``.column`` are set only when the
    problem sits at a place inside the file (a byte that is not UTF-8, an over-long line).
    """


class MailError(TomisError):
    """A message that cannot be composed or sent; the move itself is already saved."""
