"""The correspondence facts of a record: clocks, draw offers, claims, conditional lines.

docs/NOTATION.md ("Correspondence play") defines them; they live in the ``TimeControl``
tag, in ``(=)`` after an action (``Node.offer``), and in comment commands ``[%ts ...]``,
``[%if ...]``, ``[%draw accept]``, ``[%claim ...]``, ``[%leave ...]`` (by its place or
naming its side, with the ``LeaveDays`` tag), ``[%outage ...]`` and ``[%credit ...]``. :func:`read_facts` finds them in a
:class:`tomis.record.Record` and checks their form; :func:`check` checks them against the
main line (stamps in order, every action stamped under a clock, lines playable and
honoured, an accepted draw backed by an offer, a claim backed by a flag fall, leave
taken ahead, never twice and within the yearly allowance, outages in order within the
game, credits to a side still in time) and
returns what the clock says. :func:`digest_lines` gives what the Digest covers.

Nothing here reads the system clock or a file. Comments keep every command as text (the
writer writes them back as they were); this module only reads them.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from . import clock as _clock
from . import conditional
from ..rules.board import DRAW, SIDE_TITLES, WIN_RESULTS
from .tags import ADJUDICATION, TERMINATION_TAG, TIME_FORFEIT
from ..errors import NotationError, RecordError, TomisError

WIN_FOR = WIN_RESULTS               # WIN_FOR[side]: the result when ``side`` wins
KNOWN = ("ts", "if", "draw", "claim", "leave", "outage", "credit")

# [%name arguments]: a lowercase name, then blanks and the arguments up to the next ']'.
_COMMAND = re.compile(r"\[%([a-z]+)(?:[ \t]+([^\]]*?))?[ \t]*\]")


class Command(NamedTuple):
    """A known comment command. ``index`` is 0 before the first action, else the 1-based
    index of the node it follows; ``line``/``column`` of its ``[`` (None when built)."""

    name: str
    arguments: str
    index: int
    line: int | None
    column: int | None
    arguments_column: int | None


class Facts(NamedTuple):
    """What a record says about correspondence play (empty for an ordinary record)."""

    control: _clock.TimeControl | None
    start: int | None                      # the game's start stamp
    stamps: tuple[int | None, ...]         # per node
    offers: tuple[bool, ...]               # per node: (=) after it
    lines: dict[int, list[tuple[str, ...]]]   # node index -> lines stored after it
    draw_accepted: bool
    claim: int | None                      # the claim's time
    commands: tuple[Command, ...]
    leaves: tuple[_clock.Leave, ...] = ()  # in record order, one per [%leave] command
    leave_days: int | None = None          # the LeaveDays tag (None: absent)
    outages: tuple[_clock.Outage, ...] = ()  # in record order, one per [%outage] command
    credits: tuple[_clock.Credit, ...] = ()  # in record order, one per [%credit] command

    @property
    def stops(self) -> tuple[_clock.Leave, ...]:
        """Every stop of a clock: each side's leave, and each outage as a stop of both."""
        return self.leaves + tuple(stop for outage in self.outages for stop in outage.stops())

    @property
    def leave_allowance(self) -> int:
        """Days of leave each side may take per calendar year."""
        return _clock.DEFAULT_LEAVE_DAYS if self.leave_days is None else self.leave_days

    @property
    def used(self) -> bool:
        """Whether the record uses any of it (the Digest's format 2, docs/NOTATION.md)."""
        return (self.control is not None or bool(self.commands) or any(self.offers))


class CorrespondenceCheck(NamedTuple):
    """What :func:`check` found: the clocks (None without a TimeControl) and the lines."""

    clock: _clock.Clock | None
    lines: conditional.Follow


def commands_in(text: str) -> list[tuple[str, str, int]]:
    """(name, arguments, offset of '[') of every known command in a comment's text."""
    return [(m.group(1), m.group(2) or "", m.start()) for m in _COMMAND.finditer(text)
            if m.group(1) in KNOWN]


def leave_spans(text: str) -> list[tuple[str, int, int]]:
    """(arguments, start, end) of every ``[%leave]`` command in a comment's text, for a
    writer that takes one out (:meth:`tomis.Game.cancel_leave`)."""
    return [(m.group(2) or "", m.start(), m.end()) for m in _COMMAND.finditer(text)
            if m.group(1) == "leave"]


def ending_command(comment: str) -> bool:
    """Whether ``comment`` is exactly what ``tomis draw --accept`` or ``claim`` writes."""
    found = commands_in(comment)
    return (len(found) == 1 and found[0][0] in ("draw", "claim")
            and _COMMAND.fullmatch(comment.strip()) is not None)


def read_facts(game, places: dict | None = None, control_at: tuple | None = None,
               leave_days_at: tuple | None = None) -> Facts:
    """The facts of ``game`` (a :class:`tomis.record.Record`), each command checked for form.

    ``places[(index, k)]`` is (line, column) of the k-th comment at ``index`` (0: before
    the first action, n: after node n), for errors; ``control_at`` and
    ``leave_days_at`` where the TimeControl and LeaveDays tags' values stand. Raises a
    located :class:`RecordError` or :class:`NotationError`.
    """
    places = places or {}
    control = _tag_value(game, _clock.TIME_CONTROL_TAG, _clock.parse_time_control, control_at)
    leave_days = _tag_value(game, _clock.LEAVE_DAYS_TAG, _clock.parse_leave_days, leave_days_at)
    commands = []
    for index, comments in enumerate([game.comments] + [node.comments for node in game.nodes]):
        for k, comment in enumerate(comments):
            where = places.get((index, k))
            for name, arguments, offset in commands_in(comment):
                line = column = args_column = None
                if where is not None:
                    line, column = where[0], where[1] + 1 + offset
                    args_column = column + 2 + len(name) + 1
                commands.append(Command(name, arguments, index, line, column, args_column))
    stamps: list[int | None] = [None] * (len(game.nodes) + 1)
    lines: dict[int, list[tuple[str, ...]]] = {}
    draw_accepted, claim = False, None
    leaves, outages, credits = [], [], []
    for command in commands:
        if command.name == "ts":
            if stamps[command.index] is not None:
                raise _at(RecordError(_twice(game, command.index)), _place(command))
            stamps[command.index] = _stamp(command)
        elif command.name == "if":
            lines.setdefault(command.index, []).append(_line(game, command))
        elif command.name == "draw":
            if command.arguments != "accept":
                raise _at(RecordError(f"expected [%draw accept], found [%draw {command.arguments}]"),
                          _place(command))
            draw_accepted = True
        elif command.name == "leave":
            leaves.append(_leave(command, leave_side(game, command.index)))
        elif command.name == "outage":
            outages.append(_parsed(command, _clock.parse_outage))
        elif command.name == "credit":
            credits.append(_parsed(command, _clock.parse_credit, game.start.ply + command.index))
        else:
            claim = _stamp(command)
    offers = tuple(node.offer for node in game.nodes)
    return Facts(control, stamps[0], tuple(stamps[1:]), offers, lines, draw_accepted, claim,
                 tuple(commands), tuple(leaves), leave_days, tuple(outages), tuple(credits))


def _tag_value(game, name: str, parse, where):
    """A tag's value read by ``parse``, None when absent; an error located at the value."""
    text = game.tags.get(name)
    if text is None:
        return None
    try:
        return parse(text)
    except RecordError as error:
        raise _at(error, where) from None


def leave_side(game, index: int) -> int:
    """Whose leave a ``[%leave]`` at ``index`` (0: before the first action, n: after node
    n) is when it names no side: the side that played the action it follows. Before the
    first action, the side that does not act first, as if the game's start were its action."""
    return (game.start.ply + index - 1) & 1


def leave_text(leave: _clock.Leave, command: Command) -> str:
    """The leave as its command wrote it: naming its side when the command did."""
    return leave.named_command() if _clock.names_side(command.arguments) else leave.command()


def _leave(command: Command, side: int) -> _clock.Leave:
    try:
        return _clock.parse_leave(command.arguments, side)
    except RecordError as error:
        raise _at(RecordError(f"[%leave ...]: {error.message}"),
                  (command.line, command.arguments_column)) from None


def _parsed(command: Command, parse, *more):
    """``parse(arguments, *more)``, its error located at the command's arguments."""
    try:
        return parse(command.arguments, *more)
    except RecordError as error:
        raise _at(RecordError(f"[%{command.name} ...]: {error.message}"),
                  (command.line, command.arguments_column)) from None


def _place(command: Command) -> tuple[int | None, int | None]:
    return command.line, command.column


def _at(error: TomisError, where) -> TomisError:
    if where is not None and error.line is None:
        error.line, error.column = where
    return error


def _stamp(command: Command) -> int:
    try:
        return _clock.parse_stamp(command.arguments)
    except RecordError as error:
        raise _at(RecordError(f"[%{command.name} ...]: {error.message}"),
                  (command.line, command.arguments_column)) from None


def _twice(game, index: int) -> str:
    if index == 0:
        return "the game's start is stamped twice; one [%ts ...] before the first action"
    return f"{_words(game, index)}: the action is stamped twice; one [%ts ...] per action"


def _line(game, command: Command) -> tuple[str, ...]:
    if command.index == 0:
        raise _at(RecordError("a conditional line [%if ...] follows the action it answers; "
                              "there is none before the first action"), _place(command))
    try:
        return conditional.parse_line(command.arguments)
    except NotationError as error:
        column = None if command.arguments_column is None else command.arguments_column + error.column - 1
        raise NotationError(error.message, command.line, column) from None


def _words(game, index: int) -> str:
    """``action 14 (White) Fa2-b3`` for node ``index`` (1-based)."""
    number = game.start.ply + index
    return f"action {number} ({SIDE_TITLES[(number - 1) & 1]}) {game.nodes[index - 1].action}"


# --------------------------------------------------------------------------- against the main line

def check(game, facts: Facts, result_at: tuple | None = None) -> CorrespondenceCheck:
    """Check ``facts`` against ``game``'s main line and result; return the clocks and lines.

    ``result_at`` is where the result token stands (for errors about the ending).
    Raises a located :class:`RecordError` whose ``action`` is set when it is about one.
    """
    by_name = {}
    for command in facts.commands:
        by_name.setdefault(command.name, command)
    ran = _check_clock(game, facts)
    lines = _check_lines(game, facts)
    _check_ending(game, facts, ran, by_name, result_at or (None, None))
    if facts.claim is not None:
        ran = _stopped_at_claim(game, facts.claim, ran)
    return CorrespondenceCheck(ran, lines)


def _stopped_at_claim(game, claim: int, ran: _clock.Clock) -> _clock.Clock:
    """The clocks as a claim on time stopped them: the loser's at what it had at the
    claim, below zero (its time ran out), not what it had after its last action; every
    reader of a finished game's clocks then says its time ran out."""
    loser = 1 - WIN_FOR.index(game.result)
    left = list(ran.left)
    left[loser] = min(left[loser], ran.time_left(loser, game.final.to_move, claim))
    return ran._replace(left=(left[0], left[1]))


def _about(error: TomisError, game, index: int) -> TomisError:
    error.action = game.start.ply + index
    return error


def _check_clock(game, facts: Facts) -> _clock.Clock | None:
    first = game.start.ply + 1
    stamped = [_clock.Stamp(first + i, (first + i - 1) & 1, at)
               for i, at in enumerate(facts.stamps) if at is not None]
    try:
        _clock.check_order(facts.start, stamped)
    except _clock.BackwardStamp as error:
        index = stamped[error.index].number - game.start.ply
        stamp = next(c for c in facts.commands if c.name == "ts" and c.index == index)
        raise _about(RecordError(f"{_words(game, index)}: {error.message}",
                                 stamp.line, stamp.arguments_column), game, index) from None
    if facts.control is None:
        if facts.leaves:
            raise _at(RecordError("[%leave ...] stops a side's clock, but the game has no "
                                  "TimeControl tag"), _place(_leave_commands(facts)[0]))
        for name in ("outage", "credit"):
            if getattr(facts, name + "s"):
                raise _at(RecordError(f"[%{name} ...] counts on the clocks, but the game has "
                                      f"no TimeControl tag"), _place(_named(facts, name)[0]))
        return None
    for index, at in enumerate(facts.stamps, 1):
        if at is None:
            action = game.nodes[index - 1].action
            raise _about(RecordError(
                f"{_words(game, index)}: the game has a TimeControl, so every action carries "
                f"a timestamp like {{[%ts 2026-11-23T10:15Z]}}; this one has none",
                action.line, action.column), game, index)
    _check_leaves(facts)
    _check_outages(facts)
    if len(facts.credits) > _clock.MAX_CREDITS:
        raise _at(RecordError(f"at most {_clock.MAX_CREDITS} credits [%credit ...] in one game"),
                  _place(_named(facts, "credit")[_clock.MAX_CREDITS]))
    try:
        return _clock.run(facts.control, facts.start, stamped, facts.stops, facts.credits)
    except _clock.CreditAfterFall as error:
        raise _at(RecordError(error.message), _place(_named(facts, "credit")[error.index])) from None


def _named(facts: Facts, name: str) -> list[Command]:
    """The commands called ``name``, in record order (the order of their facts)."""
    return [command for command in facts.commands if command.name == name]


def _check_outages(facts: Facts) -> None:
    """Each outage lies within the game, from the stamp it follows on (it is written once
    over), after the end of the one before it; at most :data:`MAX_OUTAGES`."""
    before: _clock.Outage | None = None
    for number, (outage, command) in enumerate(zip(facts.outages, _named(facts, "outage")), 1):
        where = _place(command)
        if number > _clock.MAX_OUTAGES:
            raise _at(RecordError(f"at most {_clock.MAX_OUTAGES} outages [%outage ...] in one game"),
                      where)
        after = facts.start if command.index == 0 else facts.stamps[command.index - 1]
        if after is None:
            raise _at(RecordError(f"{outage.command()} stands before the first action, so it "
                                  f"needs the game's start stamp {{[%ts ...]}} before it"), where)
        if outage.begins < after:
            raise _at(RecordError(f"{outage.command()}: an outage is written after it ended, "
                                  f"within the game: it cannot begin before the timestamp it "
                                  f"follows, {_clock.format_stamp(after)}"), where)
        if before is not None and outage.begins < before.ends:
            raise _at(RecordError(f"{outage.command()} begins before the earlier outage "
                                  f"{before.command()} ended; outages come in order and do "
                                  f"not overlap"), where)
        before = outage


def _leave_commands(facts: Facts) -> list[Command]:
    """The ``[%leave]`` commands, in the order of ``facts.leaves``."""
    return [command for command in facts.commands if command.name == "leave"]


def _check_leaves(facts: Facts) -> None:
    """Each leave lies ahead of the stamp it follows, overlaps no earlier leave of its side,
    and keeps its side within the yearly allowance (docs/NOTATION.md, "Leave")."""
    taken: list[_clock.Leave] = []
    texts: list[str] = []                   # each taken leave as its command wrote it
    for leave, command in zip(facts.leaves, _leave_commands(facts)):
        where = _place(command)
        text = leave_text(leave, command)
        after = facts.start if command.index == 0 else facts.stamps[command.index - 1]
        if after is None:
            raise _at(RecordError(f"{text} stands before the first action, so it needs "
                                  f"the game's start stamp {{[%ts ...]}} before it, to show the "
                                  f"leave lies ahead"), where)
        if leave.begins < after:
            raise _at(RecordError(f"{text}: leave is taken ahead, but its first day "
                                  f"begins before the timestamp it follows, "
                                  f"{_clock.format_stamp(after)}"), where)
        side = SIDE_TITLES[leave.side]
        for earlier, earlier_text in zip(taken, texts):
            if earlier.side == leave.side and earlier.begins < leave.ends and leave.begins < earlier.ends:
                raise _at(RecordError(f"{text} overlaps {side}'s earlier leave "
                                      f"{earlier_text}"), where)
        taken.append(leave)
        texts.append(text)
        for year in _clock.years_of(leave):
            days = _clock.leave_days_in_year(taken, leave.side, year)
            if days > facts.leave_allowance:
                raise _at(RecordError(
                    f"{text} brings {side}'s leave in {year} to {days} days, more "
                    f"than the {facts.leave_allowance} a side may take per calendar year "
                    f"({_allowance_source(facts)})"), where)


def _allowance_source(facts: Facts) -> str:
    if facts.leave_days is None:
        return f"no {_clock.LEAVE_DAYS_TAG} tag, so {_clock.DEFAULT_LEAVE_DAYS}"
    return f"[{_clock.LEAVE_DAYS_TAG} \"{facts.leave_days}\"]"


def _check_lines(game, facts: Facts) -> conditional.Follow:
    if not facts.lines:
        return conditional.Follow(((), ()), None)
    commands = [c for c in facts.commands if c.name == "if"]
    seen: dict[int, int] = {}
    for index, lines in sorted(facts.lines.items()):
        after = game.states[index]
        for line in lines:
            k = seen.get(index, 0)
            seen[index] = k + 1
            command = [c for c in commands if c.index == index][k]
            try:
                conditional.check_playable(after, line)
            except RecordError as error:
                raise _about(RecordError(f"{_words(game, index)}: {error.message}",
                                         *_place(command)), game, index) from None
    try:
        follow = conditional.follow_record(game, facts.lines)
    except conditional.NotHonoured as error:
        index = error.number - game.start.ply
        action = game.nodes[index - 1].action
        raise _about(RecordError(f"{_words(game, index)}: {error.message}", action.line,
                                 action.column), game, index) from None
    except conditional.Clash as error:       # two lines waiting for one action
        index = error.number - game.start.ply
        command = [c for c in commands if c.index == index][-1]
        raise _about(_at(error, _place(command)), game, index) from None
    return follow


def _check_ending(game, facts: Facts, ran: _clock.Clock | None, by_name: dict, result_at) -> None:
    last = len(game.nodes)
    decided = game.final.is_over
    for name in ("draw", "claim"):
        command = by_name.get(name)
        if command is not None and command.index != last:
            raise _at(RecordError(f"[%{name} ...] ends the game: it stands only after the last "
                                  f"action"), _place(command))
    if facts.claim is not None:
        _check_claim(game, facts, ran, by_name["claim"])
    elif facts.draw_accepted:
        _check_draw(game, facts, by_name["draw"])
    elif facts.control is not None and game.result == DRAW and not decided \
            and game.tags.get(TERMINATION_TAG) != ADJUDICATION:      # an arbiter's draw stands
        raise RecordError("the game has a TimeControl and ends 1/2-1/2 without a decided position; "
                          "an agreed draw is an accepted offer: (=) after the last action and "
                          "{[%draw accept]} (R23)", *result_at)


def _check_draw(game, facts: Facts, command: Command) -> None:
    last = len(game.nodes)
    if game.result != DRAW:
        raise _at(RecordError(f"[%draw accept] agrees a draw, so the game ends 1/2-1/2, "
                              f"not {game.result} (R23)"), _place(command))
    if last == 0 or not facts.offers[last - 1]:
        offerer = SIDE_TITLES[(game.final.ply - 1) & 1] if last else "either side"
        raise _at(RecordError(f"[%draw accept] accepts a draw offer, but no offer of {offerer} "
                              f"stands: the last action carries no (=) (R23)"), _place(command))


def _check_claim(game, facts: Facts, ran: _clock.Clock | None, command: Command) -> None:
    where = _place(command)
    if ran is None:
        raise _at(RecordError("[%claim ...] claims on time, but the game has no TimeControl tag"), where)
    if game.tags.get(TERMINATION_TAG) != TIME_FORFEIT:
        raise _at(RecordError(f"a game won by a claim on time carries [Termination "
                              f"\"{TIME_FORFEIT}\"]"), where)
    if game.result not in WIN_FOR:
        raise _at(RecordError(f"a claim on time wins the game: it ends 1-0 or 0-1, not "
                              f"{game.result}"), where)
    winner = WIN_FOR.index(game.result)
    loser = 1 - winner
    if ran.since is not None and facts.claim < ran.since:
        raise _at(RecordError(f"the claim at {_clock.format_stamp(facts.claim)} is earlier than the "
                              f"last timestamp, {_clock.format_stamp(ran.since)}"), where)
    to_move = game.final.to_move
    if _clock.ran_out(ran, loser, to_move, facts.claim) is None:
        left = ran.time_left(loser, to_move, facts.claim)
        raise _at(RecordError(
            f"the claim at {_clock.format_stamp(facts.claim)} gives the game to "
            f"{SIDE_TITLES[winner]}, but {SIDE_TITLES[loser]}'s time had not run out: "
            f"{_clock.describe_duration(left)} left (TimeControl {game.tags[_clock.TIME_CONTROL_TAG]})"),
            where)


# --------------------------------------------------------------------------- the Digest

def digest_lines(game) -> tuple[list[str], list[list[str]], list[str]]:
    """What the Digest's format 2 adds (docs/NOTATION.md): lines after ``start``, lines
    after each action, lines before ``result``; all empty for a game using none of it.

    Reads the commands from the comments' text, so a game built in code is covered alike.
    """
    facts = read_facts(game)
    head = []
    if facts.control is not None:
        head.append(f"timecontrol {game.tags[_clock.TIME_CONTROL_TAG]}")
        if facts.leave_days is not None:
            head.append(f"leavedays {facts.leave_days}")
    if facts.start is not None:
        head.append(f"ts {_clock.format_stamp(facts.start)}")
    # Leave, outages and credits, in record order at each place. A leave that names its
    # side is covered with it: moved to the other side, it no longer matches.
    leaves: dict[int, list[str]] = {}
    named = {"leave": iter(facts.leaves), "outage": iter(facts.outages),
             "credit": iter(facts.credits)}
    for command in facts.commands:
        if command.name in named:
            fact = next(named[command.name])
            words = fact.named() if command.name == "leave" and _clock.names_side(
                command.arguments) else str(fact)
            leaves.setdefault(command.index, []).append(f"{command.name} {words}")
    head.extend(leaves.get(0, ()))
    per_action = []
    for index, (stamp, offer) in enumerate(zip(facts.stamps, facts.offers), 1):
        lines = [] if stamp is None else [f"ts {_clock.format_stamp(stamp)}"]
        if offer:
            lines.append("offer")
        lines.extend(f"if {' '.join(line)}" for line in facts.lines.get(index, ()))
        lines.extend(leaves.get(index, ()))
        per_action.append(lines)
    tail = []
    if facts.draw_accepted:
        tail.append("draw accept")
    if facts.claim is not None:
        tail.append(f"claim {_clock.format_stamp(facts.claim)}")
    return head, per_action, tail


def flag_fall_words(fall) -> str:
    """``action 31 (Black) was played after Black's time ran out at ...``: a validate note."""
    return (f"action {fall.number} ({SIDE_TITLES[fall.side]}) was played after "
            f"{SIDE_TITLES[fall.side]}'s time ran out at {_clock.format_stamp(fall.deadline)}; "
            f"{SIDE_TITLES[1 - fall.side]} may claim the game (tomis claim)")


# --------------------------------------------------------------------------- the clocks in words
# One wording for `tomis clock` and the referee's messages, so they read alike.

def control_words(control: _clock.TimeControl) -> str:
    """``30d each, 3d more after each own action``, and the like for each form."""
    start = _clock.describe_duration(control.start)
    if control.per is not None:
        return f"{control.per} own actions in {start}, cumulative (time saved carries forward)"
    plus = _clock.describe_duration(control.increment)
    if control.cap is None:
        return f"{start} each, {plus} more after each own action"
    return (f"a bank of {start} each, {plus} more after each own action, "
            f"never above {_clock.describe_duration(control.cap)}")


def side_clock_words(ran: _clock.Clock, side: int, to_move: int | None, now: int) -> str:
    """``15d 2h left until its 10th action, to act since ...; time runs out at ...``:
    one side's clock at ``now`` (``to_move`` None once the game has ended)."""
    left = ran.time_left(side, to_move, now)
    words = time_left_words(left, to_move is None)
    target = ran.next_control(side)
    if target is not None and left >= 0:
        words += f" until its {_ordinal(target)} action"
    if side == to_move and ran.since is not None:
        words += f", to act since {_clock.format_stamp(ran.since)}"
        if left >= 0:
            words += f"; time runs out at {_clock.format_stamp(ran.deadline(side))}"
    elif side == to_move:
        words += ", to act; the clocks start with White's first action"
    return words


def time_left_words(left: int, ended: bool = False) -> str:
    """``15d 2h left``, or ``no time left`` below zero: ``time ran out`` once the game
    has ended (``ended``), for the clock stopped there says no more will come."""
    if left >= 0:
        return f"{_clock.describe_duration(left)} left"
    return "time ran out" if ended else "no time left"


def leave_lines(facts: Facts, now: int) -> list[str]:
    """Leave taken and left in ``now``'s year, and each side's leave not yet over."""
    year = _clock.year_of(now)
    allowance = facts.leave_allowance
    taken = [_clock.leave_days_in_year(facts.leaves, side, year) for side in (0, 1)]
    lines = [f"Leave in {year} ({allowance} days a side per calendar year): " + "; ".join(
        f"{SIDE_TITLES[side]} {taken[side]} taken, {max(0, allowance - taken[side])} left"
        for side in (0, 1))]
    for leave in sorted(facts.leaves, key=lambda leave: leave.begins):
        first, last = _clock.format_date(leave.begins), _clock.format_date(leave.ends - _clock.DAY)
        side = SIDE_TITLES[leave.side]
        if leave.covers(now):
            lines.append(f"{side} is on leave from {first} to {last}: its clock stands still")
        elif leave.begins > now:
            lines.append(f"{side} takes leave from {first} to {last}")
    return lines


def _ordinal(number: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``11th``, ``22nd``."""
    if number % 100 in (11, 12, 13):
        return f"{number}th"
    return f"{number}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(number % 10, 'th')}"
