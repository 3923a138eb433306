"""``tomis variation add``: an alternative to one action of a record, checked and written
back in canonical form.

``--at N`` names the action the side line replaces (action N itself, unlike ``show --at
N``, the position after it): the new actions are played from the position before it.
"""

from __future__ import annotations

import re

import click

from ..errors import TomisError
from .files import ACTION_NUMBER, editing, game_option

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
    with editing(file, game_number=game_number) as edit:
        _check_at(edit.game, at)
        _refuse_no_actions(actions)
        try:
            line = edit.game.add_variation(at, actions)
        except TomisError as error:
            error.path = ACTIONS_PATH       # located in the ACTIONS argument, not in FILE
            raise
    click.echo(f"{file}: added a variation of {len(line)} action(s) instead of action {at}")


def _check_at(game, at: int) -> None:
    """Action number ``at`` must be one the game holds, else a usage error."""
    first = game.start.action_number
    last = first + len(game.actions) - 1
    if not first <= at <= last:
        held = f"actions {first} to {last}" if last >= first else "no actions"
        raise click.BadParameter(f"the game has {held}; a variation replaces one of them",
                                 param_hint="--at")


def _refuse_no_actions(text: str) -> None:
    """ACTIONS holding nothing but move numbers is a usage error (exit 2), not a bad record."""
    if all(_MOVE_NUMBER.fullmatch(word) for word in text.split()):
        raise click.BadParameter("give at least one action", param_hint="ACTIONS")
