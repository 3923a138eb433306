"""Scores a player reads: hints, their K best lines, and each action of a game judged.

Three rules keep the numbers trustworthy (docs/ENGINE.md, "Analysis"):

- **No tempo.** The search here leaves the evaluation's tempo term out
  (:attr:`Search.tempo`): with it, a score changes by twice the term with the parity of
  the search's leaves, so the evaluation of a game flipped sign from one action to the
  next in a quiet opening.
- **One depth.** A score is that of the last depth the search finished, never of a pass
  cut short by the node or time limit; lines beyond the first, and a played action
  that is not the best, are scored by a search to that same depth from the same
  position. So :func:`hint` with one line and with K lines give the best action the
  same score, and :func:`judge` compares the played action with the best at the same
  effort.
- **One side's view for evaluations.** :func:`white_view` turns a score for the side to
  act into White's, as ``[%eval]`` comments and chess GUIs show them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..rules.board import WHITE
from ..rules.core import State, apply_unchecked
from .search import MATE_BOUND, Limits, ScoredLine, Search, SearchResult, terminal_score

# A played action whose drop (:func:`judge`) is more than this many centi-frigates is a
# mistake ("?") or a blunder ("??"). At analyse's default effort (about three plies in
# a middle game) one more ply moves a score by a frigate or more (docs/ENGINE.md), so a
# mistake is one and a half frigates clearly lost, a blunder three.
MISTAKE_DROP = 150
BLUNDER_DROP = 300


def searcher(seed: int = 0) -> Search:
    """A search without the tempo term, for scores shown to players."""
    search = Search(seed)
    search.tempo = False
    return search


def best(state: State, limits: Limits, previous=()) -> SearchResult:
    """The best action in ``state`` for the side to act under ``limits``, with the score
    and line of the last odd depth the search finished under a node or time limit (of
    the depth asked for under a depth limit, or of the depth that found a forced end;
    ``previous`` as :meth:`Search.run`): after
    the action searched, both sides then act equally often, so the side to act's next
    action (a deployment gains at once) is not counted for one side only."""
    finished: list[SearchResult] = []
    answer = searcher().run(state, limits, on_depth=finished.append, previous=previous)
    # A depth asked for is the depth answered, and a forced end found is the answer;
    # otherwise, under a node or time limit, the last odd depth.
    odd = [result for result in finished if result.depth % 2 or limits.depth is not None
           or abs(result.score) > MATE_BOUND]
    chosen = odd[-1] if odd else answer
    chosen.nodes, chosen.time = answer.nodes, answer.time
    if not chosen.lines:
        chosen.lines = [ScoredLine(chosen.action, chosen.score, chosen.pv)]
    return chosen


def hint(state: State, limits: Limits, lines: int = 1, exact=(), previous=()) -> SearchResult:
    """:func:`best`, and with ``lines`` > 1 or ``exact`` actions the next best lines and
    those actions scored by a search to the same depth. The first line is always
    :func:`best`'s own, so a hint's score does not depend on how many lines it shows."""
    top = best(state, limits, previous)
    wanted = tuple(action for action in exact if action != top.action)
    if lines <= 1 and not wanted:
        return top
    more = searcher().run(state, Limits(depth=max(1, top.depth)), lines=lines,
                          exact=wanted, previous=previous)
    others = [line for line in more.lines if line.action != top.action]
    ranked = [line for line in others if line.action not in wanted][:lines - 1]
    asked = [line for line in others if line.action in wanted]
    top.lines = [ScoredLine(top.action, top.score, top.pv), *ranked, *asked]
    top.nodes += more.nodes
    top.time += more.time
    return top


@dataclass
class Verdict:
    """One action judged: the best action there, its score and line, the played
    action's score (both for the side that acted, at the same odd depth), and the drop
    that decides the glyph (:func:`judge`)."""

    best_action: object
    best: int
    played: int
    best_line: list = field(default_factory=list)
    depth: int = 0
    drop: int = 0

    @property
    def glyph(self) -> str:
        """``??`` past :data:`BLUNDER_DROP`, ``?`` past :data:`MISTAKE_DROP`, else nothing."""
        if self.drop > BLUNDER_DROP:
            return "??"
        if self.drop > MISTAKE_DROP:
            return "?"
        return ""


def judge(before: State, action, limits: Limits, previous=()) -> Verdict:
    """What ``action``, played in ``before``, is worth against the best action there:
    both scored from ``before`` to the odd depth :func:`best` finished under ``limits``.

    The drop that earns a glyph is how far the played action stays below the best,
    less how much the best action's or the played action's score moved between the
    last two depths (the larger): a gap that one more ply of search opens or closes by
    itself is not "clearly better".
    """
    top = best(before, limits, previous)
    line = top.pv or [top.action]
    if action == top.action:
        return Verdict(action, top.score, top.score, line, top.depth)
    after, _report = apply_unchecked(before, action)
    if after.to_move is None:
        played = terminal_score(after, before.to_move, 1)
        drop = max(0, top.score - played)
    else:
        depths: list[SearchResult] = []
        searcher().run(before, Limits(depth=max(1, top.depth)), exact=(action,),
                       on_depth=depths.append, previous=previous)
        played = depths[-1].line_of(action).score
        drop = max(0, top.score - played)
        if len(depths) > 1 and max(abs(top.score), abs(played)) <= MATE_BOUND:
            last, before_last = depths[-1], depths[-2]
            swing = max(abs(last.lines[0].score - before_last.lines[0].score),
                        abs(last.line_of(action).score - before_last.line_of(action).score))
            drop = max(0, drop - swing)
    # The best search may not have seen what the played action's own search saw: the
    # played action is then the best there is, never better than it.
    return Verdict(top.action, max(top.score, played), played, line, top.depth, drop)


def white_view(score: int, mover: int) -> int:
    """A score for ``mover`` (the side to act) as White's: the other side's is negated."""
    return score if mover == WHITE else -score
