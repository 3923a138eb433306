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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Protocol

import click

from ..rules.board import SIDE_NAMES

from .files import MAX_DELAY, MAX_THINK, finite, load_game, locked, new_game, read_record, require_stdin, write_new, write_over
from .output import colour_options, display, legal_action_words, termination

if TYPE_CHECKING:
    import tomis
    from ..rules.actions import Action
    from .turns import Command

SIDES = SIDE_NAMES      # defined once, in tomis.rules.board
KEYS_HELP = """\
Keys: Tab completes actions and commands, Up and Down recall earlier lines,
Ctrl-L clears the screen, Ctrl-D quits as quit does, Ctrl-C stops at once."""


def play_help() -> str:
    """What ``help`` prints: how to type an action, each command, the keys."""
    from .turns import COMMAND_HELP

    lines = ["Type an action in the notation, e.g.  B@e1  G@c1  F@a1  Fa2-a3  Fc3=A  M@c3:NE  Fb2^e5",
             "Commands:"]
    lines += [f"  {(word + ' ' + args).strip():<16}{words}" for word, args, words in COMMAND_HELP]
    return "\n".join([*lines, KEYS_HELP])


class Player(Protocol):
    name: str        # shown in prompts and messages, e.g. "Ana" or "tomis level 4"

    def turn(self, game: "tomis.Game") -> "Action | Command | None":
        """What the side to act does next: an Action, or a command object of
        :mod:`tomis.cli.turns` (Undo, Hint, Quit, ...); None at end of input."""

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

    def turn(self, game: "tomis.Game"):
        """The next thing typed, read into an Action or a command; a line that is
        neither is answered with its error (and a caret) and asked again."""
        from .turns import TurnError, read_turn

        while True:
            line = self.ask(self._prompt(game))
            if line is None:
                return None
            try:
                move = read_turn(line)
            except TurnError as error:
                click.echo(f"  {error.message}", err=True)
                if error.column:
                    text = line.strip()
                    click.echo("  " + text + "\n  " + " " * (error.column - 1) + "^", err=True)
                continue
            if move is not None:
                return move

    def _prompt(self, game: "tomis.Game") -> str:
        if game.is_over:
            return f"game over ({game.result})> "
        number = game.position.action_number
        where = f"{self.side.capitalize()}, action {number}" if self._names_side else f"action {number}"
        return f"{self.name} ({where})> "

    def confirm(self, question: str, game: "tomis.Game") -> bool | None:
        """Yes or no, asked again until it is one of them (``maybe`` is not an answer)."""
        from .lineedit import ask_yes_no

        return ask_yes_no(self.ask, f"{self.label}, {question}",
                          lambda words: click.echo(words, err=True))


@dataclass(frozen=True)
class SideChoice:
    """What ``--white`` or ``--black`` says about a side: ``kind`` is ``"human"``,
    ``"computer"`` (at ``level``) or None when the option was not given; ``name`` a
    human player's name, if one was given."""
    kind: str | None = None
    level: int | None = None
    name: str | None = None
    level_given: bool = False       # computer:N, not computer alone


def side_choice(option: str, value: str | None) -> SideChoice:
    """Read one --white/--black value; a bad level is a usage error naming the option."""
    if value is None:
        return SideChoice()
    if not value.isprintable() or not value.strip():
        raise click.BadParameter(f"a player's name is one line of visible text, not {value!r}",
                                 param_hint=option)
    lowered = value.lower()
    if lowered == "computer" or lowered.startswith("computer:"):
        from .engine import parse_level

        return SideChoice("computer", parse_level(lowered, option), level_given=lowered != "computer")
    if lowered == "human":
        return SideChoice("human")
    return SideChoice("human", name=value)


@click.command()
@click.argument("file", required=False, type=click.Path())
@click.option("--rules", type=click.Choice(["manual", "readme"], case_sensitive=False), default=None,
              help="Edition for a new game (default manual); a resumed game keeps its own.")
@click.option("--white", help="human (default), computer[:LEVEL] (1-8), or a player's name.")
@click.option("--black", help="human (default), computer[:LEVEL] (1-8), or a player's name.")
@click.option("--seed", type=click.IntRange(0, 2**31 - 1), default=0,
              help="Seed of the computer's randomness (levels 1-3; 4-8 play the same "
                   "action in the same position).")
@click.option("--delay", type=click.FloatRange(min=0, max=MAX_DELAY), default=0.0, callback=finite,
              metavar="SECONDS", help="Wait this long before each of the computer's actions "
                                      "(to watch two computers at a readable pace).")
@click.option("--think", type=click.FloatRange(min=0, max=MAX_THINK, min_open=True), callback=finite,
              metavar="SECONDS", help="Give the computer this many seconds per action instead of "
                                      "a level's node limit (not with computer:LEVEL).")
@click.option("--compact", is_flag=True, help="A ten-line board after each action (compact toggles it).")
@colour_options
def play(file, rules, white, black, seed, delay, think, compact, color, ascii_only):
    """Play at one terminal, against each other or the computer; FILE is saved after
    every action, resumed if it exists.

    --white and --black are human (the default), computer or computer:LEVEL (levels 1-8;
    computer alone is the default level), or a human player's name. Two computers play
    each other to the end (--delay 2 to follow them). A resumed game keeps the computer on the side it played
    (the record's WhiteType/BlackType tags) unless --white or --black say otherwise.
    --think SECONDS gives the computer a time per action instead of its level's node
    limit: its strongest answer in that time, different on a faster machine (level N
    at the prompt goes back to a level).
    At the prompt type an action in the notation (like F@a1 or Fa2-a3), or one of:
    help, moves [SQUARE], show, undo [N], redo [N], hint, history, clock, flip,
    compact, level N, resign, draw, save [FILE], quit. At a terminal, Tab completes
    legal actions and commands and Up recalls earlier lines (kept per game). End of
    input (Ctrl-D) quits as quit does: a game without FILE is not thrown away without
    asking. Ctrl-C stops at once (exit 130).
    """
    choices = {"white": side_choice("--white", white), "black": side_choice("--black", black)}
    if think is not None:
        refuse_a_level_with_think(choices, think)
    shown = display(ascii_only, color)
    session = PlaySession(file, colour=shown.colour, arrows=shown.glyphs, seed=seed, compact=compact,
                          delay=delay, think=think)
    with session.locks:
        if file is not None:
            # Held from the first read to the last save: a `tomis move` on the same file
            # meanwhile is refused, and nothing it wrote can be overwritten by our saves.
            session.hold(file)
        session.open(rules, choices["white"], choices["black"])
        session.run()


def refuse_a_level_with_think(choices: dict[str, SideChoice], think: float) -> None:
    """--think replaces a level's node limit, so computer:N beside it is a usage error
    (which of the two would hold is not for tomis to guess)."""
    for side, choice in choices.items():
        if choice.kind == "computer" and choice.level_given:
            raise click.UsageError(
                f"--think {think:g} gives the computer a time per action instead of a level's node "
                f"limit; give --{side} computer, not computer:{choice.level}, or leave out --think")


def login_name() -> str | None:
    """The name of the person logged in at this keyboard, or None when none is known."""
    import getpass

    try:
        return getpass.getuser() or None
    except Exception:       # no user name in the environment nor the password database
        return None


def side_of_action(number: int) -> str:
    """The side that plays action ``number``: odd actions are White's (R4)."""
    return SIDES[(number - 1) % 2]


class PlaySession:
    """The loop behind ``tomis play``: ask a player what to do, act on it, show, save.

    ``players`` maps ``"white"`` and ``"black"`` to a :class:`Player` each; by default
    two :class:`HumanPlayer` at this terminal, named after the record's White and Black
    tags (their sides when the tags are unknown), sharing one line editor, except for the
    sides the computer plays (``computers``, or as the options and the record say).
    """

    def __init__(self, file: str | None, colour: bool, players: dict[str, Player] | None = None,
                 arrows: bool | None = None, computers: dict[str, Player] | None = None,
                 seed: int = 0, compact: bool = False, delay: float = 0.0, think: float | None = None):
        from . import turns

        self.file = file
        self.computers = dict(computers or {})   # sides the computer plays; people play the rest
        self.seed = seed
        self.think = think              # seconds per computer action instead of a level's nodes
        self.colour = colour
        self.arrows = colour if arrows is None else arrows
        self.compact = compact
        self.delay = delay              # seconds before each computer action
        self.flipped = False            # set in open(): the person's side at the bottom
        self.players = players          # None: two HumanPlayers, made once the names are known
        self.editor = None              # their shared LineEditor (history, completion)
        self.game = None
        self.redo_stack: list = []      # actions undo took back, the next to replay last
        self._legal_cache = (None, [])
        self.locks = contextlib.ExitStack()     # the file locks held until the session ends
        self.handlers = {
            turns.Help: self.do_help, turns.Moves: self.do_moves, turns.Show: self.do_show,
            turns.Undo: self.do_undo, turns.Redo: self.do_redo, turns.Resign: self.do_resign,
            turns.OfferDraw: self.do_draw, turns.Save: self.do_save, turns.Quit: self.do_quit,
            turns.Hint: self.do_hint, turns.ShowClock: self.do_clock, turns.History: self.do_history,
            turns.Flip: self.do_flip, turns.SetLevel: self.do_level, turns.Compact: self.do_compact,
        }

    # -- start ------------------------------------------------------------------
    def open(self, rules: str | None, white: SideChoice | None = None, black: SideChoice | None = None) -> None:
        """Resume ``file`` when it exists, otherwise start (and save) a new game.

        ``white`` and ``black`` say who plays each side; a resumed game's computer keeps
        its side unless they say otherwise.
        """
        choices = {"white": white or SideChoice(), "black": black or SideChoice()}
        if self.file is not None and os.path.exists(self.file):
            self.game = load_game(read_record(self.file, extract=False))
            edition = self.game.position.rules
            if rules is not None and rules != edition:
                click.echo(f"note: this game uses the {edition} rules; "
                           f"--rules {rules} applies only to new games", err=True)
            self._choose_players(choices, resumed=True)
            self._require_people_input()
            click.echo(f"resumed {self.file} after {len(self.game.actions)} action(s)")
            before = str(self.game)
            self._name_players(choices)
            if str(self.game) != before:        # someone else plays a side now
                self.save()
        else:
            self._choose_players(choices, resumed=False)
            self._require_people_input()
            self.game = new_game(rules=(rules or "manual").lower())
            self._name_players(choices)
            if self.file is not None:
                write_new(self.file, str(self.game))
                click.echo(f"new game saved in {self.file}")
            else:
                click.echo("new game, not saved to any file: type save FILE to keep it "
                           "(you are asked before it is thrown away)")
        people = [side for side in SIDES if side not in self.computers]
        self.flipped = people == ["black"]           # the one person's side at the bottom
        if self.players is None:
            self.players = {**self._people_at_the_keyboard(), **self.computers}

    def _choose_players(self, choices: dict[str, SideChoice], resumed: bool) -> None:
        """Which sides the computer plays: as the options say, else (resuming) as the
        record says (a ``program`` Type tag and a ``tomis level N`` name)."""
        from ..engine.levels import DEFAULT_LEVEL
        from ..engine.player import PROGRAM, TYPE_TAGS, program_level, thinking_seconds
        from .engine import ComputerOpponent

        for side, choice in choices.items():
            level = choice.level if choice.kind == "computer" else None
            think = self.think
            if choice.kind is None and resumed and self.game.tags.get(TYPE_TAGS[side]) == PROGRAM:
                name = self.game.tags.get(side.capitalize())
                level = program_level(name)
                recorded = thinking_seconds(name)       # a computer given a time per action
                if recorded is not None:
                    level, think = DEFAULT_LEVEL, think if think is not None else recorded
            if level is not None and side not in self.computers:
                self.computers[side] = ComputerOpponent(level, self.seed, side, think=think)
        if self.think is not None and not self.computers:       # checked before any file is written
            raise click.UsageError("--think gives the computer a time per action, but the computer "
                                   "plays neither side; add --white computer or --black computer")

    def _require_people_input(self) -> None:
        if len(self.computers) < len(SIDES) and self.players is None:
            require_stdin("cannot read the players' actions: stdin is closed; run tomis play "
                          "at a terminal or pipe the actions in")

    def _name_players(self, choices: dict[str, SideChoice]) -> None:
        """The White/Black and WhiteType/BlackType tags, as who plays now: the computer
        by its name; a person by the name given, else (facing the computer, in a new
        game) by the login name; two people without names stay ``?``."""
        from ..engine.player import PROGRAM, TYPE_TAGS

        tags = self.game.tags
        facing_computer = bool(self.computers) and len(self.computers) < len(SIDES)
        for side in SIDES:
            name_tag, type_tag = side.capitalize(), TYPE_TAGS[side]
            if side in self.computers:
                tags[name_tag], tags[type_tag] = self.computers[side].name, PROGRAM
                continue
            was_program = tags.pop(type_tag, None) == PROGRAM
            given = choices[side].name
            if given is not None:
                tags[name_tag] = given
            elif was_program or (facing_computer and tags.get(name_tag) in (None, "", "?")):
                tags[name_tag] = (login_name() if facing_computer else None) or "?"

    def _people_at_the_keyboard(self) -> dict[str, Player]:
        """Two HumanPlayers named after the record's White and Black tags, sharing one
        line editor: one keyboard, one history (kept per game), completion of what is
        legal now."""
        from .lineedit import LineEditor

        from ..errors import visible

        self.editor = LineEditor(history=self.file, completions=self.completions)
        players = {}
        for side in SIDES:
            name = self.game.tags.get(side.capitalize())
            # The name is the record's text, shown in every prompt: controls made visible.
            name = side.capitalize() if name in (None, "", "?") else visible(name)
            players[side] = HumanPlayer(name, ask=self.editor, side=side)
        return players

    def completions(self, before_cursor: str) -> list[str]:
        """What Tab offers: commands and legal actions for the first word, the squares
        that have legal actions after ``moves``."""
        import re

        from .turns import COMMAND_WORDS

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
        self.show_board(full=True)
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
        from ..rules.actions import Action
        from .turns import Quit

        while True:
            player = self.player_to_ask()
            if self.delay and player in self.computers.values() and not self.game.is_over:
                import time

                time.sleep(self.delay)
            move = player.turn(self.game)
            if move is None:            # end of input: as quit
                move = Quit()
            if isinstance(move, Action):
                self.do_action(move)
            elif self.handlers[type(move)](move) is False:
                return

    def player_to_ask(self) -> Player:
        """The player of the side to act; once the game is over, of the side whose turn
        it would be (odd actions are White's, R4), who may still undo, save or quit --
        or the person, when that side is the computer's."""
        position = self.game.position
        side = position.turn or side_of_action(position.action_number)
        if self.game.is_over and side in self.computers:
            # The computer has nothing more to say; a person at the keyboard may still
            # want to undo or save, so they are asked rather than the game just ending.
            people = [self.players[other] for other in SIDES if other not in self.computers]
            if people:
                return people[0]
        return self.players[side]

    def say_error(self, error) -> None:
        from ..errors import visible

        click.echo(f"  {visible(error.message)}", err=True)

    def show_board(self, full: bool = False) -> None:
        """The position now: in full, or in ten lines in compact mode."""
        from ..pictures import render

        draw = render.position_text if full or not self.compact else render.compact_text
        click.echo(draw(self.game.position.state, color=self.colour, arrows=self.arrows,
                        result=self.game.result, termination=termination(self.game),
                        flipped=self.flipped),
                   color=self.colour or None)

    # -- actions and commands -----------------------------------------------------
    def do_action(self, action) -> None:
        """A player's new action: what undo took back can no longer be redone."""
        if self.play_action(action):
            self.redo_stack.clear()

    def play_action(self, action) -> bool:
        """Play, stamp, save and show ``action``; False (and why) when it is refused."""
        from ..pictures import render
        from ..errors import TomisError

        if self.game.is_over:
            click.echo("  the game is over; undo, save or quit", err=True)
            return False
        try:
            # When it is played, asked first: a record stamped after now refuses the action.
            at = self.stamp_now()
            self.game.play(action)
        except TomisError as error:
            self.say_error(error)
            return False
        record = self.game.record
        # Numbered over the whole game: from a position, as its action number counts on.
        lines = render.report_lines(record.nodes[-1].report, record.final.ply) + self.correspond(at)
        self.save()
        click.echo("; ".join(lines) if self.compact else "\n".join(lines))
        self.show_board()
        return True

    def stamp_now(self) -> int | None:
        """The stamp of an action played now: none without a TimeControl (see
        :func:`~tomis.cli.correspondence.stamp_now`)."""
        from .correspondence import stamp_now

        return stamp_now(self.game) if self.game.stamps_actions() else None

    def correspond(self, at: int | None) -> list[str]:
        """Under a TimeControl the action is stamped ``at``, and stored lines fire, as in
        ``move``."""
        from .correspondence import after_action

        return after_action(self.game, at, False, [])

    def do_help(self, _command) -> None:
        click.echo(play_help())

    def do_show(self, _command) -> None:
        self.show_board(full=True)

    def do_moves(self, command) -> None:
        from ..errors import PositionError

        try:
            click.echo(legal_action_words(self.game, command.square))
        except PositionError as error:      # not a square
            self.say_error(error)

    def do_flip(self, _command) -> None:
        self.flipped = not self.flipped
        self.show_board()

    def do_compact(self, _command) -> None:
        self.compact = not self.compact
        click.echo(f"compact board {'on' if self.compact else 'off'}")
        self.show_board()

    def do_history(self, _command) -> None:
        import textwrap

        from .engine import line_text

        actions = self.game.actions
        if not actions:
            click.echo("no actions yet")
            return
        click.echo(textwrap.fill(line_text(self.game.record.start, actions), width=72))

    def do_hint(self, _command) -> None:
        from .engine import hint_lines

        if self.game.is_over:
            click.echo("  the game is over; there is nothing to suggest", err=True)
            return
        click.echo("\n".join(hint_lines(self.game.position.state)))

    def do_clock(self, _command) -> None:
        from ..notation import correspondence
        from .correspondence import clock_lines, parse_now

        record = self.game.record
        facts = correspondence.read_facts(record)
        if facts.control is None:
            click.echo("  this game has no clock (no TimeControl tag; tomis new --time-control "
                       "starts a game with one)", err=True)
            return
        ran = correspondence.check(record, facts).clock
        click.echo("\n".join(clock_lines(record, facts, ran, parse_now(None), self.file or "FILE")))

    def do_level(self, command) -> None:
        if not self.computers:
            click.echo("  the computer plays neither side; tomis play --white or --black "
                       "computer:N brings it in", err=True)
            return
        for side, computer in self.computers.items():
            computer.set_level(command.level)
        self._name_players({side: SideChoice() for side in SIDES})
        self.save()
        names = ", ".join(f"{computer.name} ({side.capitalize()})" for side, computer in self.computers.items())
        click.echo(f"from now on: {names}")

    def _people(self) -> list[str]:
        return [side for side in SIDES if side not in self.computers]

    def do_undo(self, command) -> None:
        """Take back ``count`` actions of the people at the keyboard, with the computer's
        answers to them; after a resignation or agreed draw, first that result."""
        from ..errors import RecordError

        result = self.game.result
        if result != "*" and not self.game.position.is_over:      # resigned or agreed (R23)
            self.game.undo()
            self.save()
            click.echo(f"took back the result {result}; the game goes on")
            self.show_board()
            return
        people = self._people()
        start = self.game.record.start.ply
        ours = [n for n in range(start + 1, start + len(self.game.actions) + 1) if side_of_action(n) in people]
        if not ours:
            click.echo("  nothing to undo" if not self.game.actions else
                       "  nothing of yours to undo: the computer's actions are its own", err=True)
            return
        back_to = ours[max(0, len(ours) - command.count)]       # the first action taken back
        taken = []
        while len(self.game.record.nodes) + start >= back_to:
            try:
                taken.append(self.game.undo())
            except RecordError:
                break
        self.redo_stack.extend(taken)
        self.save()
        for number, action in zip(range(back_to + len(taken) - 1, 0, -1), taken):
            click.echo(f"took back action {number}, {side_of_action(number).capitalize()}'s {action}")
        self.show_board()

    def do_redo(self, command) -> None:
        """Play again what undo took back: ``count`` actions of the people, and the
        computer's answers as it played them."""
        if not self.redo_stack:
            click.echo("  nothing to redo", err=True)
            return
        people = self._people()
        mine = 0
        while self.redo_stack:
            number = self.game.position.action_number
            if side_of_action(number) in people:
                if mine == command.count:
                    break
                mine += 1
            if not self.play_action(self.redo_stack.pop()):
                self.redo_stack.clear()
                return

    def do_resign(self, _command) -> None:
        if self._already_over():
            return
        loser = self.game.position.turn
        self.game.resign(loser)
        self.finished(f"{loser.capitalize()} resigns")

    def do_draw(self, _command) -> None:
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

    def do_save(self, command) -> None:
        from ..errors import TomisError

        rest = command.path
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

    def do_quit(self, _command) -> bool | None:
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
