"""Reading what the players type: line editing, history and completion at a terminal.

:class:`LineEditor` is the ``ask`` of an interactive player: call it with a prompt, get
the line typed (without its newline) or None at end of input. At a terminal it edits
with prompt_toolkit -- arrows, Home/End, Ctrl-A/E/K/U/W, Ctrl-L clears the screen, Up and
Down walk the history, Tab completes -- and otherwise it reads plain lines, so pipes and
scripts see exactly what they saw before.

Why prompt_toolkit rather than the standard ``readline``: ``readline`` is missing on
Windows and is libedit, with another configuration language, on macOS; its history and
completer are process-wide globals (two editors would overwrite each other's history);
its completer sees ``@``, ``-`` and ``>`` as word breaks unless reconfigured globally.
prompt_toolkit is pure Python from PyPI, behaves the same everywhere, and keeps history
and completion per editor object. It is imported only here, only for a terminal.

History is kept per game in the user's state directory (``$XDG_STATE_HOME/tomis/history``,
by default ``~/.local/state/tomis/history``), one file per record path, so the folder a
game lives in (often a mail folder or a git checkout) gets no extra files. A history that
cannot be read or written is silently skipped: it is a convenience, never a reason to
stop a game.

Ctrl-C raises :class:`Interrupted` (a KeyboardInterrupt) to the caller, and the CLI exits
130; Ctrl-D on an empty line returns None, as end of input does. A terminal may be read
again after Ctrl-D (the player may change their mind when asked); a pipe or file that
has ended has ended for good, so from then on every call returns None at once without
printing its prompt: a loop cannot print its prompt over and over.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from typing import Callable, Iterable, Mapping

from ..util.terminal import is_dumb_terminal, is_terminal

# The candidates for the word being typed, given the whole line before the cursor.
Completions = Callable[[str], Iterable[str]]

YES_WORDS = ("y", "yes")
NO_WORDS = ("n", "no")


class Interrupted(KeyboardInterrupt):
    """Ctrl-C at a prompt. ``at_line_start``: the cursor already stands on a fresh line
    (prompt_toolkit moves there itself), so the CLI's one closing line needs no newline
    before it; ``note`` is added to that line."""

    def __init__(self, at_line_start: bool, note: str | None = None):
        super().__init__()
        self.at_line_start = at_line_start
        self.note = note        # what the CLI adds to its one line, e.g. where the game is


def history_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where per-game histories live: ``$XDG_STATE_HOME/tomis/history`` (or its default)."""
    env = os.environ if environ is None else environ
    if env.get("XDG_STATE_HOME"):
        base = Path(env["XDG_STATE_HOME"])
    elif sys.platform == "win32" and env.get("LOCALAPPDATA"):
        base = Path(env["LOCALAPPDATA"])
    else:
        base = Path(env.get("HOME") or Path.home()) / ".local" / "state"
    return base / "tomis" / "history"


def history_path(record: str | os.PathLike, environ: Mapping[str, str] | None = None) -> Path:
    """The history file of the game in ``record``: named after it, keyed by its full path.

    Two records called ``game.tgn`` in different folders get different histories; the
    readable part of the name lets a user find (or delete) one by hand.
    """
    full = os.path.realpath(os.fspath(record))
    key = hashlib.sha256(full.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    readable = "".join(c if c.isalnum() or c in "._-" else "_" for c in Path(full).name)[:60]
    return history_dir(environ) / f"{readable}-{key}.history"


def split_word(before_cursor: str) -> tuple[str, str]:
    """(text before the word being typed, that word): completion replaces only the word."""
    head, _, word = before_cursor.rpartition(" ")
    return (head + " " if head or before_cursor.startswith(" ") else ""), word


def matching(candidates: Iterable[str], word: str) -> list[str]:
    """The candidates that start with ``word``, ignoring case, each once, in order."""
    lowered = word.lower()
    seen: dict[str, None] = {}
    for candidate in candidates:
        if candidate.lower().startswith(lowered):
            seen.setdefault(candidate, None)
    return list(seen)


class LineEditor:
    """``ask(prompt) -> str | None`` for a person at a keyboard.

    Whenever it returns None the cursor stands at the start of a fresh line, so what
    the caller prints next does not run on after the prompt.

    ``history``: the record whose per-game history to keep (None: this run only).
    ``completions``: candidates for the word being typed (see :data:`Completions`).
    ``stdout`` is where the prompt goes (stderr, say, to keep stdout for data);
    ``stdin``/``stdout``/``environ`` default to the process's; tests pass their own.
    """

    def __init__(self, *, history: str | os.PathLike | None = None,
                 completions: Completions | None = None, stdin=None, stdout=None,
                 environ: Mapping[str, str] | None = None):
        self.completions = completions
        self.at_end = False
        self._environ = environ
        self._stdin = stdin
        self._stdout = stdout
        self._session = None
        self._history = None
        self.interactive = (is_terminal(self.stdin) and is_terminal(self.stdout)
                            and not is_dumb_terminal(environ))
        self.history_file: Path | None = None
        if history is not None:
            self.keep_history_for(history)

    @property
    def stdin(self):
        return sys.stdin if self._stdin is None else self._stdin

    @property
    def stdout(self):
        return sys.stdout if self._stdout is None else self._stdout

    # -- asking ---------------------------------------------------------------
    def __call__(self, prompt: str) -> str | None:
        if self.at_end:
            return None
        try:
            line = self._edit(prompt) if self.interactive else self._plain(prompt)
        except EOFError:                    # Ctrl-D at the terminal
            return None
        except KeyboardInterrupt:
            raise Interrupted(at_line_start=self.interactive) from None
        if line is None:                    # a pipe or file has ended for good
            self.at_end = True
        return line

    def _plain(self, prompt: str) -> str | None:
        """One line from a pipe or file, the prompt written as ``input()`` would."""
        if self.stdin is None:
            return None
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            if prompt:          # end the prompt's line, as a terminal's Ctrl-D leaves it
                self.stdout.write("\n")
                self.stdout.flush()
            return None
        return line[:-1] if line.endswith("\n") else line

    def _edit(self, prompt: str) -> str:
        return self._prompt_session().prompt(prompt)

    # -- history --------------------------------------------------------------
    def keep_history_for(self, record: str | os.PathLike) -> None:
        """From now on keep the history in ``record``'s history file.

        What was typed so far in this run goes into it too, so ``save FILE`` in the middle
        of an unsaved game carries the history along.
        """
        self.history_file = history_path(record, self._environ)
        if self._session is None:       # nothing typed yet: the session opens the file
            return
        typed = self._history.get_strings()         # oldest first
        self._history = _file_history(self.history_file)
        for line in typed:
            self._history.append_string(line)
        self._session.history = self._history
        self._session.default_buffer.history = self._history

    def _prompt_session(self):
        if self._session is None:
            from prompt_toolkit import PromptSession
            from prompt_toolkit.history import InMemoryHistory

            self._history = (InMemoryHistory() if self.history_file is None
                             else _file_history(self.history_file))
            from prompt_toolkit.output import create_output

            completer = None if self.completions is None else _completer(self.completions)
            self._session = PromptSession(history=self._history, completer=completer,
                                          complete_while_typing=False,
                                          output=create_output(stdout=self.stdout))
        return self._session


def ask_yes_no(ask: Callable[[str], str | None], question: str,
               say: Callable[[str], None]) -> bool | None:
    """Ask until the answer is yes or no (``y``/``n`` too, any case); None at end of input.

    Anything else (``maybe``, an empty line) is not taken as either: ``say`` explains
    and the question is asked again.
    """
    while True:
        answer = ask(f"{question} [yes/no] ")
        if answer is None:
            return None
        word = answer.strip().lower()
        if word in YES_WORDS:
            return True
        if word in NO_WORDS:
            return False
        say("  please answer yes or no")


def _file_history(path: Path):
    """A prompt_toolkit FileHistory that never lets a disk problem end the game."""
    from prompt_toolkit.history import FileHistory

    class QuietFileHistory(FileHistory):
        def load_history_strings(self):
            try:
                yield from super().load_history_strings()
            except (OSError, UnicodeError):
                return

        def store_string(self, string: str) -> None:
            try:
                path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                super().store_string(string)
            except OSError:
                pass

    return QuietFileHistory(str(path))


def _completer(completions: Completions):
    """A prompt_toolkit Completer for the word before the cursor."""
    from prompt_toolkit.completion import Completer, Completion

    class WordCompleter(Completer):
        def get_completions(self, document, complete_event):
            _head, word = split_word(document.text_before_cursor)
            for candidate in matching(completions(document.text_before_cursor), word):
                yield Completion(candidate, start_position=-len(word))

    return WordCompleter()
