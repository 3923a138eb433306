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
from .output import legal_action_words, use_colour

if TYPE_CHECKING:
    import tomis

PLAY_HELP = """\
Type an action in the notation, e.g.  B@e1  G@c1  F@a1  Fa2-a3  Fc3=A  M@c3:NE  Fb2^e5
Commands:
  moves [SQUARE]  legal actions (all, or those starting from SQUARE)
  show            the board again
  undo            take back the last action
  resign          the side to act resigns
  draw            offer a draw; the other player answers y or n
  save [FILE]     save now (to FILE, which then becomes the game's file)
  help            this text
  quit            leave; the game is saved after every action"""

SIDES = ("white", "black")


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
    it is :func:`read_line` unless a test or a line editor passes its own."""

    def __init__(self, name: str, ask: Callable[[str], str | None] = read_line):
        self.name = name
        self.ask = ask

    def turn(self, game: "tomis.Game") -> str | None:
        if game.is_over:
            return self.ask(f"game over ({game.result})> ")
        return self.ask(f"{self.name} (action {game.position.action_number})> ")

    def confirm(self, question: str, game: "tomis.Game") -> bool | None:
        answer = self.ask(f"{self.name}, {question} [y/N] ")
        if answer is None:
            return None
        return answer.strip().lower() in ("y", "yes")


@click.command()
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.option("--rules", type=click.Choice(["manual", "readme"]), default=None,
              help="Edition for a new game (default manual); a resumed game keeps its own.")
@click.option("--white", help="human (default), computer[:LEVEL] (1-8), or a player's name.")
@click.option("--black", help="human (default), computer[:LEVEL] (1-8), or a player's name.")
@click.option("--seed", type=click.IntRange(0, 2**31 - 1), default=0,
              help="Seed of the computer's randomness (levels 1-4).")
@click.option("--ascii", "ascii_only", is_flag=True, help="Plain ASCII, no colour.")
def play(file, rules, white, black, seed, ascii_only):
    """Play at one terminal, against each other or the computer; FILE is saved after
    every action, resumed if it exists.

    --white and --black are human (the default), computer or computer:LEVEL (levels 1-8;
    computer alone is the default level), or a human player's name. Two computers play
    each other to the end. At the prompt type an action in the notation (like F@a1 or
    Fa2-a3), or one of: help, moves [SQUARE], undo, show, resign, draw, save [FILE], quit.
    End of input (Ctrl-D) quits; the game is already saved.
    """
    players = {side: make_player(side, value, seed) for side, value in zip(SIDES, (white, black))}
    if any(isinstance(player, HumanPlayer) for player in players.values()):
        require_stdin("cannot read the players' actions: stdin is closed; run tomis play "
                      "at a terminal or pipe the actions in")
    session = PlaySession(file, colour=use_colour(ascii_only), players=players)
    with session.locks:
        if file is not None:
            # Held from the first read to the last save: a `tomis move` on the same file
            # meanwhile is refused, and nothing it wrote can be overwritten by our saves.
            session.hold(file)
        session.open(rules, players["white"].name if white else None,
                     players["black"].name if black else None)
        session.run()


def make_player(side: str, value: str | None, seed: int) -> Player:
    """The player an option names: human, computer[:LEVEL], or a human's name."""
    if value is not None and (value == "computer" or value.startswith("computer:")):
        from .engine import ComputerOpponent, parse_level

        return ComputerOpponent(parse_level(value, f"--{side}"), seed)
    if value is None or value == "human":
        return HumanPlayer(side.capitalize())
    return HumanPlayer(value)


class PlaySession:
    """The loop behind ``tomis play``: ask a player for a line, act on it, show, save.

    ``players`` maps ``"white"`` and ``"black"`` to a :class:`Player` each; by default
    two :class:`HumanPlayer` at this terminal, named after their sides.
    """

    def __init__(self, file: str | None, colour: bool, players: dict[str, Player] | None = None):
        self.file = file
        self.colour = colour
        self.players = players or {side: HumanPlayer(side.capitalize()) for side in SIDES}
        self.game = None
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
            return
        self.game = new_game(white=white, black=black, rules=rules or "manual")
        if self.file is not None:
            write_new(self.file, str(self.game))
            click.echo(f"new game saved in {self.file}")

    # -- loop -------------------------------------------------------------------
    def run(self) -> None:
        click.echo("Type help for the commands.")
        self.do_show("")
        while True:
            line = self.player_to_ask().turn(self.game)
            if line is None:
                click.echo()
                self.do_quit("")
                return
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
        it would be (odd actions are White's, R4), who may still undo, save or quit."""
        position = self.game.position
        side = position.turn or SIDES[(position.action_number - 1) % 2]
        return self.players[side]

    def say_error(self, error) -> None:
        click.echo(f"  {error.message}", err=True)

    # -- actions and commands -----------------------------------------------------
    def do_action(self, text: str) -> None:
        from .. import render
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
        self.save()
        nodes = self.game.record.nodes
        click.echo("\n".join(render.report_lines(nodes[-1].report, len(nodes))))
        self.do_show("")

    def do_help(self, _rest: str) -> None:
        click.echo(PLAY_HELP)

    def do_show(self, _rest: str) -> None:
        from .. import render

        click.echo(render.position_text(self.game.position.state, color=self.colour,
                                        result=self.game.result))

    def do_moves(self, rest: str) -> None:
        from ..errors import PositionError

        try:
            click.echo(legal_action_words(self.game, rest or None))
        except PositionError as error:      # not a square
            self.say_error(error)

    def do_undo(self, _rest: str) -> None:
        from ..errors import RecordError

        try:
            self.game.undo()
        except RecordError:
            click.echo("  nothing to undo", err=True)
            return
        self.save()
        click.echo("took back the last action")
        self.do_show("")

    def do_resign(self, _rest: str) -> None:
        if self.game.is_over:
            click.echo("  the game is already over", err=True)
            return
        loser = self.game.position.turn
        self.game.resign(loser)
        self.finished(f"{loser.capitalize()} resigns")

    def do_draw(self, _rest: str) -> None:
        if self.game.is_over:
            click.echo("  the game is already over", err=True)
            return
        other = SIDES[1 - SIDES.index(self.game.position.turn)]
        if self.players[other].confirm("do you accept a draw?", self.game):
            self.game.agree_draw()
            self.finished("draw agreed")
        else:
            click.echo("draw declined; play on")

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
        elif self.file is None:
            click.echo("  save where? type: save FILE", err=True)
            return
        else:
            self.save()
        click.echo(f"saved {self.file}")

    def do_quit(self, _rest: str) -> bool:
        if self.file is not None:
            click.echo(f"bye; the game is in {self.file}")
        else:
            click.echo("bye; this game was not saved (play FILE saves as you go)")
        return False

    def save(self) -> None:
        """Write the record atomically, so a closed terminal never loses an action."""
        if self.file is not None:
            write_over(self.file, str(self.game))
