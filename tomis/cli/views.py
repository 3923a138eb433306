"""The commands that look at a record without changing it: ``show``, ``moves``, ``replay``."""

from __future__ import annotations

import sys

import click

from .files import ACTION_NUMBER, INPUT_PATH, MAX_DELAY, finite, game_option, pick_game, read_record, require_stdin
from .output import colour_options, display, echo_json, echo_position, legal_action_words, termination
from .pictures import picture_options, show_picture



def _past_the_end(game, lowest: int) -> str:
    """Why an action number outside ``game`` cannot be shown, and what can: ``lowest`` is
    0 where the start can be shown too (``show --at``), 1 where only actions can.

    Numbers count over the whole game: a game from a position (its Position tag) goes on
    from the position's action number, so its first action may be action 49.
    """
    start = game.record.start.ply
    count = len(game.record.nodes)
    if count < lowest:
        return "the game has no actions yet"
    if count == 0:
        return f"the game has no actions yet; only {start}, the start, can be shown"
    if start == 0:
        return f"the game has {count} action{'' if count == 1 else 's'}; choose {lowest} to {count}"
    return (f"the game starts from a position after action {start} and has actions "
            f"{start + 1} to {start + count}; choose {start + lowest} to {start + count}")


def _index_at(game, at: int | None, lowest: int, option: str) -> int:
    """Where action number ``at`` (over the whole game) stands in ``game.record.states``:
    0 the start, the last index for None; a number outside the game is a usage error."""
    states = game.record.states
    if at is None:
        return len(states) - 1
    index = at - game.record.start.ply
    if not lowest <= index < len(states):
        raise click.BadParameter(_past_the_end(game, lowest), param_hint=option)
    return index


@click.command()
@click.argument("file", type=INPUT_PATH)
@click.option("--at", "at", type=ACTION_NUMBER,
              help="Show the position after action N (0: the start; a game from a position "
                   "counts on from its action number).")
@click.option("--json", "as_json", is_flag=True,
              help="Print the position as JSON (with its position string) and nothing else.")
@click.option("--fen", "as_fen", is_flag=True,
              help="Print only the position string (what new --position takes).")
@colour_options
@game_option
@picture_options
def show(file, at, as_json, as_fen, color, ascii_only, game_number, picture, output, flip, size, legend):
    """Show the position of a game: board, reserves, unlocks, side to act, result.

    With --svg or --png, draw it as a picture instead (docs/PICTURES.md); with --fen,
    print only its position string.
    """
    from ..rules import position
    from ..pictures import render
    from ..errors import visible

    chosen = [f"--{name}" for name, wanted in (("json", as_json), ("fen", as_fen),
                                              (picture, picture)) if wanted]
    if len(chosen) > 1:
        raise click.UsageError(f"{' and '.join(chosen)} are different outputs; choose one")
    game = pick_game(read_record(file), game_number)
    index = _index_at(game, at, 0, "--at")
    state = game.record.states[index]
    nodes = game.record.nodes
    last = nodes[index - 1].report if index else None
    if legend and picture is None:
        raise click.UsageError("--legend is for a picture: add --svg or --png")
    if show_picture(state, last, picture=picture, output=output, flip=flip, size=size, legend=legend):
        return
    if as_fen:
        click.echo(position.to_string(state))
        return
    if as_json:
        echo_json({**position.to_json(state), "position": position.to_string(state)})
        return
    lines = []
    heading = game.heading()
    if heading:
        lines.append(visible(heading))          # names and event are the record's text
    if last is not None:
        lines += render.report_lines(last, state.ply) + [""]
    final = index == len(nodes)
    shown = display(ascii_only, color)
    lines.append(render.position_text(state, color=shown.colour, arrows=shown.glyphs, flipped=flip,
                                      result=game.result if final else "*",
                                      termination=termination(game) if final else ""))
    echo_position("\n".join(lines), shown)


@click.command()
@click.argument("file", type=INPUT_PATH)
@click.option("--json", "as_json", is_flag=True, help='Print {"moves": [...]} and nothing else.')
@click.option("--square", help="Only actions starting from (or placing on) this square (e4 or E4).")
@game_option
def moves(file, as_json, square, game_number):
    """List the legal actions in the final position of a game in FILE."""
    square = square and square.lower()         # E4 means e4, as --as White means white
    _check_square_option(square)
    game = pick_game(read_record(file), game_number)
    if as_json:
        echo_json({"moves": [str(action) for action in game.legal_actions(square)]})
        return
    click.echo(legal_action_words(game, square))


def _check_square_option(square: str | None) -> None:
    """Refuse a --square that is no square before any file is read (a usage error)."""
    if square is None:
        return
    from ..rules.board import parse_square

    try:
        parse_square(square)
    except ValueError:
        raise click.BadParameter(f"{square!r} is not a square like e4", param_hint="--square") from None


@click.command()
@click.argument("file", type=INPUT_PATH)
@game_option
@click.option("--from", "first", type=ACTION_NUMBER, help="First action to show.")
@click.option("--to", "last", type=ACTION_NUMBER, help="Last action to show.")
@click.option("--step", is_flag=True, help="Wait for Enter after each action (q then Enter stops).")
@click.option("--delay", type=click.FloatRange(min=0, max=MAX_DELAY), default=0.0,
              callback=finite,
              help="Seconds between actions.")
@colour_options
@click.option("--format", "fmt", type=click.Choice(["text", "jsonl"]), default="text", show_default=True,
              help="jsonl: one JSON object per action (docs/ARCHIVES.md), no boards.")
@click.option("--variations", "into_variations", is_flag=True,
              help="Step into the side lines too, each action with its board, indented.")
def replay(file, game_number, first, last, step, delay, color, ascii_only, fmt, into_variations):
    """Replay a game action by action, with the board and combat after each, and the
    record's comments and annotation glyphs. The side lines of an action follow it,
    indented, in one line each (--variations: action by action, with boards)."""
    from ..pictures import render
    from ..errors import visible

    if fmt == "jsonl" and (step or delay):
        raise click.UsageError("--format jsonl writes rows for scripts; --step and --delay are for people")
    if step and file == "-":
        raise click.UsageError("--step reads Enter from stdin, so FILE cannot be - as well")
    if step:
        require_stdin("cannot read Enter for --step: stdin is closed; leave out --step")
    if first is not None and last is not None and last < first:
        raise click.BadParameter(f"--to {last} comes before --from {first}", param_hint="--to")
    game = pick_game(read_record(file), game_number)
    nodes, states = game.record.nodes, game.record.states
    # Indexes into nodes, 1-based; the options give action numbers over the whole game.
    first = 1 if first is None else _index_at(game, first, 1, "--from")
    if last is not None and last - game.record.start.ply < 1:
        raise click.BadParameter(_past_the_end(game, 1), param_hint="--to")
    last = len(nodes) if last is None else min(last - game.record.start.ply, len(nodes))
    if fmt == "jsonl":
        _replay_rows(game, game_number, first, last)
        return
    shown = display(ascii_only, color)
    pause = _Pause(step, delay)
    if first == 1 and game.record.comments:
        echo_position("\n".join(f"{{{visible(comment, lines=True)}}}"
                                 for comment in game.record.comments) + "\n", shown)
    for index in range(first, last + 1):
        final = index == len(nodes)
        node, number = nodes[index - 1], states[index].ply
        lines = annotated_report(node, number, render) + [
            render.position_text(states[index], color=shown.colour, arrows=shown.glyphs,
                                 result=game.result if final else "*",
                                 termination=termination(game) if final else ""), ""]
        for side_line in node.variations:
            lines += (variation_steps(side_line, number, shown, render) if into_variations
                      else [f"    instead of action {number}: {line_words(side_line)}", ""])
        echo_position("\n".join(lines), shown)
        if index < last and not pause():
            break


def annotated_report(node, number: int, render) -> list[str]:
    """What action ``number`` did (render's lines), with the record's glyph and numeric
    annotations written after the action as in the record (``Fc5-b5?? $4``) and its
    comments, each on a line of its own under the heading (their control characters
    made visible: a comment is the opponent's text)."""
    from ..errors import visible

    lines = render.report_lines(node.report, number)
    if node.glyphs or node.nags:
        marks = node.glyphs + "".join(f" ${nag}" for nag in node.nags)
        lines[0] = lines[0].replace(f" {node.action} (action", f" {node.action}{marks} (action", 1)
    lines[1:1] = [f"  {{{visible(comment, lines=True)}}}" for comment in node.comments]
    return lines


def line_words(side_line) -> str:
    """A side line in one line of notation: numbered actions with their glyphs, NAGs and
    comments, and its own side lines in parentheses."""
    words = [f"{{{comment}}}" for comment in side_line.comments]
    for index, node in enumerate(side_line.nodes):
        number = side_line.start.ply + index + 1
        if number % 2:
            words.append(f"{(number + 1) // 2}.")
        elif index == 0 or side_line.nodes[index - 1].comments or side_line.nodes[index - 1].variations:
            words.append(f"{number // 2}...")
        words.append(f"{node.action}{node.glyphs}")
        words += [f"${nag}" for nag in node.nags] + [f"{{{comment}}}" for comment in node.comments]
        words += [f"({line_words(inner)})" for inner in node.variations]
    return " ".join(words)


def variation_steps(side_line, number: int, shown, render, depth: int = 1) -> list[str]:
    """A side line action by action, each with its report and board, indented one step
    per level of nesting."""
    pad = "    " * depth
    lines = [f"{pad}variation instead of action {number}:"]
    lines += [f"{pad}{{{comment}}}" for comment in side_line.comments]
    state = side_line.start
    for index, node in enumerate(side_line.nodes):
        acting = side_line.start.ply + index + 1
        state = _after(state, node)
        block = annotated_report(node, acting, render) + [
            render.position_text(state, color=shown.colour, arrows=shown.glyphs), ""]
        lines += [pad + line if line else line for line in "\n".join(block).split("\n")]
        for inner in node.variations:
            lines += variation_steps(inner, acting, shown, render, depth + 1)
    lines.append(f"{pad}end of the variation")
    return lines + [""]


def _after(state, node):
    from ..rules import apply

    return apply(state, node.action)[0]


def _replay_rows(game, game_number: int, first: int, last: int) -> None:
    from ..archive.jsonl import action_rows, row_line

    for row in action_rows(game.record, game_number, first, last):
        click.echo(row_line(row))


class _Pause:
    """The wait between two actions of a replay; calling it is False when the viewer
    asked to stop.

    With ``--step`` it asks for Enter on stderr (stdout keeps only the replay). At end
    of input (no terminal, ``</dev/null``) the replay simply runs on, and the question is
    not asked again: it was printed 58 times for a 59-action game.
    """

    def __init__(self, step: bool, delay: float):
        self.delay = delay
        self.ask = None
        if step:
            from .lineedit import LineEditor

            self.ask = LineEditor(stdout=sys.stderr)

    def __call__(self) -> bool:
        if self.delay:
            import time

            time.sleep(self.delay)
        if self.ask is None:
            return True
        answer = self.ask("-- Enter: next action, q: stop -- ")
        return answer is None or answer.strip().lower() not in ("q", "quit")
