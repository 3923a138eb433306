"""``tomis play``: a game at one terminal, saved after every action.

The loop (:class:`PlaySession`) asks the :class:`Player` of the side to act for its next
line: an action's notation or a play command. A :class:`HumanPlayer` reads that line at a
prompt; it is the only thing here that reads input, so another kind of player (the
computer, :class:`tomis.cli.engine.ComputerOpponent`) plugs in without touching the loop. Every action is shown the same
way, the board after it, whoever played it.
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING, Callable, Protocol

import click

from .files import load_game, locked, new_game, read_record, require_stdin, write_new, write_over
from .output import colour_options, display, legal_action_words

if TYPE_CHECKING:
    import tomis

PLAY_HELP = """\
Type an action in the notation, e.g.  B@e1  G@c1  F@a1  Fa2-a3  Fc3=A  M@c3:NE  Fb2^e5
Commands:
  moves [SQUARE]  legal actions (all, or those starting from SQUARE)
  show            the board again
  undo            take back the last action (or a resignation or agreed draw)
  resign          the side to act resigns
  draw            offer a draw; the other player answers yes or no
  save [FILE]     save now (to FILE, which then becomes the game's file)
  help            this text
  quit            leave; a game with a file is saved after every action, for one
                  without a file you are asked first
Keys: Tab completes actions and commands, Up and Down recall earlier lines,
Ctrl-L clears the screen, Ctrl-D quits as quit does, Ctrl-C stops at once."""

SIDES = ("white", "black")
COMMAND_WORDS = ("help", "moves", "show", "undo", "resign", "draw", "save", "quit")


class Player(Protocol):
    name: str        # shown in prompts and messages, e.g. "Ana" or "computer (level 4)"

    def turn(self, game: "tomis.Game") -> str | None:
        """The next line for the side to act: an action's notation or a play command
        (help, moves, show, undo, resign, draw, save, quit); None at end of input."""

    def confirm(self, question: str, game: "tomis.Game") -> bool | None:
        """Answer a yes/no question put to this player (a draw offer); None at end of input."""


def read_line(prompt: str) -> str | None:
    """One line typed at ``prompt``, or None at end of input (Ctrl-D, a closed pipe)."""
    try:
        return input(prompt)
    except EOFError:
        return None


class HumanPlayer:
    """Someone at the keyboard. ``ask(prompt)`` gives one line or None at end of input;
    it is :func:`read_line` unless a test or a line editor passes its own.

    ``side`` (``"white"``/``"black"``) is named in prompts beside the player's name, so
    that "Ana" is also told she plays White; without it, or when the name is the side's
    own, prompts show the name alone.
    """

    def __init__(self, name: str, ask: Callable[[str], str | None] = read_line,
                 side: str | None = None):
        self.name = name
        self.ask = ask
        self.side = side

    @property
    def _names_side(self) -> bool:
        return self.side is not None and self.name.lower() != self.side

    @property
    def label(self) -> str:
        """``Ana (White)``, or ``White`` for a player known only by the side."""
        return f"{self.name} ({self.side.capitalize()})" if self._names_side else self.name

    def turn(self, game: "tomis.Game") -> str | None:
        if game.is_over:
            return self.ask(f"game over ({game.result})> ")
        number = game.position.action_number
        where = f"{self.side.capitalize()}, action {number}" if self._names_side else f"action {number}"
        return self.ask(f"{self.name} ({where})> ")

    def confirm(self, question: str, game: "tomis.Game") -> bool | None:
        """Yes or no, asked again until it is one of them (``maybe`` is not an answer)."""
        from .lineedit import ask_yes_no

        return ask_yes_no(self.ask, f"{self.label}, {question}",
                          lambda words: click.echo(words, err=True))


@click.command()
@click.argument("file", required=False, type=click.Path())
@click.option("--rules", type=click.Choice(["manual", "readme"], case_sensitive=False), default=None,
              help="Edition for a new game (default manual); a resumed game keeps its own.")
@click.option("--white", help="human (default), computer[:LEVEL] (1-8), or a player's name.")
@click.option("--black", help="human (default), computer[:LEVEL] (1-8), or a player's name.")
@click.option("--seed", type=click.IntRange(0, 2**31 - 1), default=0,
              help="Seed of the computer's randomness (levels 1-4).")
@colour_options
def play(file, rules, white, black, seed, color, ascii_only):
    """Play at one terminal, against each other or the computer; FILE is saved after
    every action, resumed if it exists.

    --white and --black are human (the default), computer or computer:LEVEL (levels 1-8;
    computer alone is the default level), or a human player's name. Two computers play
    each other to the end. At the prompt type an action in the notation (like F@a1 or
    Fa2-a3), or one of: help, moves [SQUARE], undo, show, resign, draw, save [FILE], quit.
    At a terminal, Tab completes legal actions and commands and Up recalls earlier
    lines (kept per game). End of input (Ctrl-D) quits as quit does: a game without
    FILE is not thrown away without asking. Ctrl-C stops at once (exit 130).
    """
    chosen = dict(zip(SIDES, (white, black)))
    computers = {side: computer_player(side, value, seed)
                 for side, value in chosen.items() if is_computer(value)}
    if len(computers) < len(SIDES):
        require_stdin("cannot read the players' actions: stdin is closed; run tomis play "
                      "at a terminal or pipe the actions in")
    names = {side: computers[side].name if side in computers
             else None if value is None or value.lower() == "human" else value
             for side, value in chosen.items()}
    shown = display(ascii_only, color)
    session = PlaySession(file, colour=shown.colour, arrows=shown.glyphs, computers=computers)
    with session.locks:
        if file is not None:
            # Held from the first read to the last save: a `tomis move` on the same file
            # meanwhile is refused, and nothing it wrote can be overwritten by our saves.
            session.hold(file)
        session.open(rules, names["white"], names["black"])
        session.run()


def is_computer(value: str | None) -> bool:
    return value is not None and (value.lower() == "computer" or value.lower().startswith("computer:"))


def computer_player(side: str, value: str, seed: int) -> Player:
    """The computer an option names: computer (the default level) or computer:LEVEL."""
    from .engine import ComputerOpponent, parse_level

    return ComputerOpponent(parse_level(value.lower(), f"--{side}"), seed)


class PlaySession:
    """The loop behind ``tomis play``: ask a player for a line, act on it, show, save.

    ``players`` maps ``"white"`` and ``"black"`` to a :class:`Player` each; by default
    two :class:`HumanPlayer` at this terminal, named after the record's White and Black
    tags (their sides when the tags are unknown), sharing one line editor, except for the
    sides in ``computers``.
    """

    def __init__(self, file: str | None, colour: bool, players: dict[str, Player] | None = None,
                 arrows: bool | None = None, computers: dict[str, Player] | None = None):
        self.file = file
        self.computers = computers or {}     # sides the computer plays; people play the rest
        self.colour = colour
        self.arrows = colour if arrows is None else arrows
        self.players = players          # None: two HumanPlayers, made once the names are known
        self.editor = None              # their shared LineEditor (history, completion)
        self.game = None
        self._legal_cache = (None, [])
        self.locks = contextlib.ExitStack()     # the file locks held until the session ends
        self.commands = {
            "help": self.do_help, "?": self.do_help, "moves": self.do_moves,
            "show": self.do_show, "undo": self.do_undo, "resign": self.do_resign,
            "draw": self.do_draw, "save": self.do_save, "quit": self.do_quit,
            "exit": self.do_quit,
        }

    # -- start ------------------------------------------------------------------
    def open(self, rules: str | None, white: str | None, black: str | None) -> None:
        """Resume ``file`` when it exists, otherwise start (and save) a new game."""
        if self.file is not None and os.path.exists(self.file):
            self.game = load_game(read_record(self.file, extract=False))
            edition = self.game.position.rules
            if rules is not None and rules != edition:
                click.echo(f"note: this game uses the {edition} rules; "
                           f"--rules {rules} applies only to new games", err=True)
            click.echo(f"resumed {self.file} after {len(self.game.actions)} action(s)")
        else:
            self.game = new_game(white=white, black=black, rules=(rules or "manual").lower())
            if self.file is not None:
                write_new(self.file, str(self.game))
                click.echo(f"new game saved in {self.file}")
            else:
                click.echo("new game, not saved to any file: type save FILE to keep it "
                           "(you are asked before it is thrown away)")
        if self.players is None:
            self.players = {**self._people_at_the_keyboard(), **self.computers}

    def _people_at_the_keyboard(self) -> dict[str, Player]:
        """Two HumanPlayers named after the record's White and Black tags, sharing one
        line editor: one keyboard, one history (kept per game), completion of what is
        legal now."""
        from .lineedit import LineEditor

        self.editor = LineEditor(history=self.file, completions=self.completions)
        players = {}
        for side in SIDES:
            name = self.game.tags.get(side.capitalize())
            name = side.capitalize() if name in (None, "", "?") else name
            players[side] = HumanPlayer(name, ask=self.editor, side=side)
        return players

    def completions(self, before_cursor: str) -> list[str]:
        """What Tab offers: commands and legal actions for the first word, the squares
        that have legal actions after ``moves``."""
        import re

        words = before_cursor.split()
        typing_first = len(words) == 0 or (len(words) == 1 and not before_cursor.endswith(" "))
        if typing_first:
            return [*COMMAND_WORDS, *self._legal_texts()]
        if words[0].lower() == "moves":
            starts = (re.search(r"[a-h][1-8]", text) for text in self._legal_texts())
            return sorted({found.group() for found in starts if found})
        return []

    def _legal_texts(self) -> list[str]:
        """The legal actions in notation, worked out once per position."""
        key = (len(self.game.record.nodes), self.game.result)
        if self._legal_cache[0] != key:
            self._legal_cache = (key, [str(action) for action in self.game.legal_actions()])
        return self._legal_cache[1]

    # -- loop -------------------------------------------------------------------
    def run(self) -> None:
        click.echo("Type help for the commands.")
        self.do_show("")
        try:
            self._loop()
        except KeyboardInterrupt as interrupt:      # Ctrl-C: one line, exit 130
            from .lineedit import Interrupted

            if self.file is not None:
                note = f"the game is saved in {self.file}"
            else:
                note = "this game was not saved" if self._unsaved() else None
            raise Interrupted(getattr(interrupt, "at_line_start", False), note) from None

    def _loop(self) -> None:
        while True:
            line = self.player_to_ask().turn(self.game)
            if line is None:            # the editor has ended the prompt's line
                if self.do_quit("") is False:
                    return
                continue
            word, _, rest = line.strip().partition(" ")
            if not word:
                continue
            command = self.commands.get(word.lower())
            if command is None:
                self.do_action(line.strip())
            elif command(rest.strip()) is False:
                return

    def player_to_ask(self) -> Player:
        """The player of the side to act; once the game is over, of the side whose turn
        it would be (odd actions are White's, R4), who may still undo, save or quit --
        or the person, when that side is the computer's."""
        position = self.game.position
        side = position.turn or SIDES[(position.action_number - 1) % 2]
        if self.game.is_over and side in self.computers:
            # The computer has nothing more to say; a person at the keyboard may still
            # want to undo or save, so they are asked rather than the game just ending.
            people = [self.players[other] for other in SIDES if other not in self.computers]
            if people:
                return people[0]
        return self.players[side]

    def say_error(self, error) -> None:
        click.echo(f"  {error.message}", err=True)

    # -- actions and commands -----------------------------------------------------
    def do_action(self, text: str) -> None:
        from ..pictures import render
        from ..errors import TomisError

        if self.game.is_over:
            click.echo("  the game is over; undo, save or quit", err=True)
            return
        try:
            self.game.play(text)
        except TomisError as error:
            self.say_error(error)
            if error.column and error.line in (None, 1):
                click.echo("  " + text + "\n  " + " " * (error.column - 1) + "^", err=True)
            return
        nodes = self.game.record.nodes
        played = len(nodes)
        words = self.correspond()
        self.save()
        click.echo("\n".join(render.report_lines(nodes[played - 1].report, played) + words))
        self.do_show("")

    def correspond(self) -> list[str]:
        """Under a TimeControl the action is stamped, and stored lines fire, as in ``move``."""
        from .correspondence import after_action, parse_now, stamps_moves

        record = self.game.record
        at = parse_now(None) if stamps_moves(record, False) else None
        return after_action(record, at, False, [])

    def do_help(self, _rest: str) -> None:
        click.echo(PLAY_HELP)

    def do_show(self, _rest: str) -> None:
        from ..pictures import render

        click.echo(render.position_text(self.game.position.state, color=self.colour,
                                        arrows=self.arrows, result=self.game.result),
                   color=self.colour or None)

    def do_moves(self, rest: str) -> None:
        from ..errors import PositionError

        try:
            click.echo(legal_action_words(self.game, rest.lower() or None))
        except PositionError as error:      # not a square
            self.say_error(error)

    def do_undo(self, _rest: str) -> None:
        from ..errors import RecordError

        result = self.game.result
        try:
            taken = self.game.undo()
        except RecordError:
            click.echo("  nothing to undo", err=True)
            return
        self.save()
        if taken is None:
            click.echo(f"took back the result {result}; the game goes on")
        else:
            # After the undo it is again the turn of whoever played the action (R4).
            position = self.game.position
            click.echo(f"took back action {position.action_number}, "
                       f"{position.turn.capitalize()}'s {taken}")
        self.do_show("")

    def do_resign(self, _rest: str) -> None:
        if self._already_over():
            return
        loser = self.game.position.turn
        self.game.resign(loser)
        self.finished(f"{loser.capitalize()} resigns")

    def do_draw(self, _rest: str) -> None:
        if self._already_over():
            return
        other = SIDES[1 - SIDES.index(self.game.position.turn)]
        if self.players[other].confirm("do you accept a draw?", self.game):
            from ..errors import TomisError

            try:
                self.game.agree_draw()
            except TomisError as error:      # a game under a clock needs an offer (R23)
                self.say_error(error)
                return
            self.finished("draw agreed")
        else:
            click.echo("draw declined; play on")

    def _already_over(self) -> bool:
        """Whether the game has ended, saying so: nothing is left to resign or offer."""
        if self.game.is_over:
            click.echo("  the game is already over", err=True)
        return self.game.is_over

    def finished(self, words: str) -> None:
        """Save and say how the game ended by resignation or agreement (R23)."""
        self.save()
        click.echo(f"{words}: {self.game.result} (R23)")

    def hold(self, path: str) -> None:
        """Lock ``path`` until the session ends (refused if another process holds it)."""
        self.locks.enter_context(locked(path))

    def do_save(self, rest: str) -> None:
        from ..errors import TomisError

        if rest and rest != self.file:
            # A new name must be a new file: never replace some other record, and a
            # failure here must not end the session and lose the game being played.
            try:
                with contextlib.ExitStack() as attempt:
                    attempt.enter_context(locked(rest))
                    write_new(rest, str(self.game))
                    self.locks.push(attempt.pop_all())      # held from now on, as hold() does
            except TomisError as error:
                click.echo(f"  {error.located()}", err=True)
                return
            self.file = rest
            if self.editor is not None:
                self.editor.keep_history_for(rest)
        elif self.file is None:
            click.echo("  save where? type: save FILE", err=True)
            return
        else:
            self.save()
        click.echo(f"saved {self.file}")

    def do_quit(self, _rest: str) -> bool | None:
        """Leave (False), or play on (None) when the players would lose an unsaved game
        and say no to that."""
        if self.file is not None:
            click.echo(f"bye; the game is in {self.file}")
            return False
        if self._unsaved():
            click.echo("this game is not saved (save FILE keeps it)")
            if self.player_to_ask().confirm("quit without saving it?", self.game) is False:
                return None
        click.echo("bye; this game was not saved (play FILE saves as you go)")
        return False

    def _unsaved(self) -> bool:
        """A game without a file that holds something to lose: an action or a result."""
        return self.file is None and (bool(self.game.record.nodes) or self.game.result != "*")

    def save(self) -> None:
        """Write the record atomically, so a closed terminal never loses an action."""
        if self.file is not None:
            write_over(self.file, str(self.game))
