"""``tomis variation add``: an alternative to one action of a record, checked and written
back in canonical form.

``--at N`` names the action the side line replaces (action N itself, unlike ``show --at
N``, the position after it): the new actions are played from the position before it.
"""

from __future__ import annotations

import re

import click

from .files import ACTION_NUMBER, game_option, pinned_and_locked, read_record, read_text, write_over

ACTIONS_PATH = "<actions>"      # where errors in the ACTIONS argument are located
_MOVE_NUMBER = re.compile(r"\d+\.(\.\.)?")


@click.group()
def variation():
    """Side lines of a record: variation add."""


@variation.command("add")
@click.argument("file", type=click.Path(dir_okay=False))
@click.argument("actions")
@click.option("--at", "at", type=ACTION_NUMBER, required=True,
              help="The action the variation replaces (action N itself).")
@game_option
def add(file, actions, at, game_number):
    """Add ACTIONS (like "2... B@a8 3. G@b1") as an alternative to action N of the game
    in FILE, played from the position before action N; every action is checked, and the
    file is written back in canonical form, atomically."""
    from ..notation import record

    source = read_record(file, extract=False)
    source.refuse_prose()
    games = []
    for number, item in enumerate(record.iter_read(source.text, source.name), 1):
        if item.error is not None:
            raise source.failure(item.error)
        games.append(item.game)
    if game_number > len(games):
        raise click.BadParameter(f"{file} holds {len(games)} game(s), not {game_number}", param_hint="--game")
    game = games[game_number - 1]
    index = _node_index(game, at)
    line = _checked_line(game.states[index], actions)
    _refuse_a_repeat(game, index, line)
    node = game.nodes[index]
    if not node.variations:
        node.variations = []
    node.variations.append(line)
    text = "\n".join(record.write(each) for each in games)
    record.read_game(record.write(game))            # the new record must read back
    with pinned_and_locked(file) as pinned:
        if read_text(file, pinned) != source.raw:
            from ..errors import FileError

            changed = FileError("the file changed while the variation was being added; run it again")
            changed.path = file
            raise changed
        write_over(file, text, pinned)
    click.echo(f"{file}: added a variation of {len(line.nodes)} action(s) instead of action {at}")


def _node_index(game, at: int) -> int:
    """The index in ``game.nodes`` of action number ``at``, or a usage error."""
    first = game.start.ply + 1
    last = game.start.ply + len(game.nodes)
    if not first <= at <= last:
        held = f"actions {first} to {last}" if game.nodes else "no actions"
        raise click.BadParameter(f"the game has {held}; a variation replaces one of them",
                                 param_hint="--at")
    return at - first


def _checked_line(start, text: str):
    """ACTIONS read and played from ``start``: a record Variation, or the first error
    located in the ACTIONS argument (exit 1)."""
    from ..errors import TomisError
    from ..notation import parse_action
    from ..notation.record import Entry, Variation
    from ..rules import apply

    line = Variation(start)
    state = start
    for found in re.finditer(r"\S+", text):
        word = found.group()
        if _MOVE_NUMBER.fullmatch(word):
            continue
        try:
            action = parse_action(word)
            state, report = apply(state, action)
        except TomisError as error:
            error.path, error.line, error.column = ACTIONS_PATH, 1, found.start() + 1
            raise error from None
        line.nodes.append(Entry(action, report=report))
    if not line.nodes:
        raise click.BadParameter("give at least one action", param_hint="ACTIONS")
    return line


def _refuse_a_repeat(game, index: int, line) -> None:
    """A side line that the main line or another variation already holds adds nothing."""
    from ..errors import RecordError

    wanted = [node.action for node in line.nodes]
    main = [node.action for node in game.nodes[index:index + len(wanted)]]
    held = [[node.action for node in other.nodes] for other in game.nodes[index].variations]
    if main == wanted or wanted in held:
        where = "the main line" if main == wanted else "a variation of the record"
        repeat = RecordError(f"{where} already plays these actions from there", 1, 1)
        repeat.path = ACTIONS_PATH
        raise repeat
