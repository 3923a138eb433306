"""The commands that look at a record without changing it: ``show``, ``moves``, ``replay``."""

from __future__ import annotations

import sys

import click

from .files import load_game, pick_game, read_record, require_stdin
from .output import echo_json, legal_action_words, use_colour
from .pictures import picture_options, show_picture

MAX_DELAY = 3600.0             # replay --delay, seconds; time.sleep refuses inf and huge values


def _finite(value: float, option: str) -> float:
    """click's FloatRange lets nan through (every comparison with it is false)."""
    if value != value:
        raise click.BadParameter(f"{value} is not a number", param_hint=option)
    return value


def _past_the_end(game, lowest: int) -> str:
    """Why an action number past the end of ``game`` cannot be shown, and what can."""
    count = len(game.record.nodes)
    if count < lowest:
        return "the game has no actions yet"
    return f"the game has {count} action{'' if count == 1 else 's'}; choose {lowest} to {count}"


def _state_at(game, at: int | None):
    """The engine state after action ``at`` (0: the start; None: after the last action)."""
    states = game.record.states
    if at is None:
        return states[-1]
    if not 0 <= at < len(states):
        raise click.BadParameter(_past_the_end(game, 0), param_hint="--at")
    return states[at]


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--at", "at", type=click.IntRange(min=0), help="Show the position after action N (0: start).")
@click.option("--json", "as_json", is_flag=True, help="Print the position as JSON and nothing else.")
@click.option("--ascii", "ascii_only", is_flag=True, help="Plain ASCII, no colour.")
@click.option("--game", "game_number", type=click.IntRange(min=1), default=1, show_default=True,
              help="Which game of the file.")
@picture_options
def show(file, at, as_json, ascii_only, game_number, picture, output, flip, size):
    """Show the position of a game: board, reserves, unlocks, side to act, result.

    With --svg or --png, draw it as a picture instead (docs/PICTURES.md).
    """
    from .. import position, render

    if as_json and picture:
        raise click.UsageError("--json and --{} are two different outputs; choose one".format(picture))
    game = pick_game(read_record(file), game_number)
    state = _state_at(game, at)
    if show_picture(game, state, at, picture=picture, output=output, flip=flip, size=size):
        return
    if as_json:
        echo_json(position.to_json(state))
        return
    lines = []
    heading = game.heading()
    if heading:
        lines.append(heading)
    nodes = game.record.nodes
    number = len(nodes) if at is None else at
    if number:
        lines += render.report_lines(nodes[number - 1].report, number) + [""]
    result = game.result if at is None or at == len(nodes) else "*"
    lines.append(render.position_text(state, color=use_colour(ascii_only), result=result))
    click.echo("\n".join(lines))


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--json", "as_json", is_flag=True, help='Print {"moves": [...]} and nothing else.')
@click.option("--square", help="Only actions starting from (or placing on) this square.")
def moves(file, as_json, square):
    """List the legal actions in the final position of the game in FILE."""
    _check_square_option(square)
    game = load_game(read_record(file))
    if as_json:
        echo_json({"moves": [str(action) for action in game.legal_actions(square)]})
        return
    click.echo(legal_action_words(game, square))


def _check_square_option(square: str | None) -> None:
    """Refuse a --square that is no square before any file is read (a usage error)."""
    if square is None:
        return
    from ..board import parse_square

    try:
        parse_square(square)
    except ValueError:
        raise click.BadParameter(f"{square!r} is not a square like e4", param_hint="--square") from None


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--game", "game_number", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--from", "first", type=click.IntRange(min=1), help="First action to show.")
@click.option("--to", "last", type=click.IntRange(min=1), help="Last action to show.")
@click.option("--step", is_flag=True, help="Wait for Enter after each action (q then Enter stops).")
@click.option("--delay", type=click.FloatRange(min=0, max=MAX_DELAY), default=0.0,
              callback=lambda _ctx, _param, value: _finite(value, "--delay"),
              help="Seconds between actions.")
@click.option("--ascii", "ascii_only", is_flag=True, help="Plain ASCII, no colour.")
def replay(file, game_number, first, last, step, delay, ascii_only):
    """Replay a game action by action, with the board and combat after each."""
    from .. import render

    if step and file == "-":
        raise click.UsageError("--step reads Enter from stdin, so FILE cannot be - as well")
    if step:
        require_stdin("cannot read Enter for --step: stdin is closed; leave out --step")
    if first is not None and last is not None and last < first:
        raise click.BadParameter(f"--to {last} comes before --from {first}", param_hint="--to")
    game = pick_game(read_record(file), game_number)
    nodes, states = game.record.nodes, game.record.states
    if first is None:
        first = 1
    elif first > len(nodes):
        raise click.BadParameter(_past_the_end(game, 1), param_hint="--from")
    last = len(nodes) if last is None else min(last, len(nodes))
    colour = use_colour(ascii_only)
    for number in range(first, last + 1):
        result = game.result if number == len(nodes) else "*"
        lines = render.report_lines(nodes[number - 1].report, number) + [
            render.position_text(states[number], color=colour, result=result), ""]
        click.echo("\n".join(lines))
        if number < last and not _pause(step, delay):
            break


def _pause(step: bool, delay: float) -> bool:
    """Wait between actions; False when the viewer asked to stop.

    With ``--step`` and no more input (EOF, e.g. no terminal), the replay simply goes on.
    """
    if delay:
        import time

        time.sleep(delay)
    if not step:
        return True
    click.echo("-- Enter: next action, q: stop --", err=True)
    answer = sys.stdin.readline()
    return answer.strip().lower() not in ("q", "quit")
