"""Matches between two players: levels of this engine or any UGI engine run as a program.

Games come in colour-swapped pairs: both games of a pair start from the same seeded
random opening (its first K actions), once with A as White and once with B. Each game
is kept as a valid record (:mod:`tomis.record`). A program that crashes, answers later
than its time allows, or answers an illegal action loses that game, and the record
says who and why in a comment and in its ``Termination`` tag. A game still running after
``max_actions`` actions is adjudicated a draw (R23: a result the rules did not decide),
also said in a comment and with ``[Termination "adjudication"]``.

The statistics (:func:`elo`, :func:`sprt`) follow the usual trinomial model: each game
scores 1, 1/2 or 0 for A; the Elo difference of the mean score with a 95 % interval
from the games' variance; and the generalised SPRT log-likelihood ratio of Elo1
against Elo0 in its normal approximation, with alpha = beta = 0.05.
"""

from __future__ import annotations

import math
import queue
import random
import shlex
import subprocess
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from ..errors import TomisError
from ..notation.syntax import parse_action
from ..notation import record
from ..notation.record import ABANDONED, ADJUDICATION, RULES_INFRACTION, TERMINATION_TAG, TIME_FORFEIT
from ..rules.actions import Action
from ..rules.core import apply_unchecked, legal_actions, new_game
from .levels import level_limits
from .player import PROGRAM, TYPE_TAGS, program_name
from .search import Limits, Search

START_TIMEOUT = 10.0         # seconds a program may take to answer ugi / isready
GRACE = 2.0                  # seconds past its movetime before a program is said to hang
DEFAULT_MAX_ACTIONS = 400
SPRT_ALPHA = SPRT_BETA = 0.05
Z95 = 1.959964
Z95_TAIL = 0.025             # each tail of the 95 % interval


# --------------------------------------------------------------------------- players

@dataclass(frozen=True)
class PlayerSpec:
    """``level:N`` (this engine, in process) or the command line of a UGI program."""

    text: str
    level: int | None = None
    argv: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return program_name(self.level) if self.level is not None else self.text


def parse_player(text: str) -> PlayerSpec:
    """``level:N`` or a command line; ValueError with a one-line reason otherwise."""
    text = text.strip()
    if text.startswith("level:"):
        number = text[len("level:"):]
        if not number.isdigit():
            raise ValueError(f"expected level:N with N from 1 to 8, found {text!r}")
        level_limits(int(number))                  # refuses numbers outside 1-8
        return PlayerSpec(text, level=int(number))
    try:
        argv = tuple(shlex.split(text))
    except ValueError as problem:
        raise ValueError(f"cannot split the command line {text!r}: {problem}") from None
    if not argv:
        raise ValueError("a player is level:N or the command line of a UGI engine; found nothing")
    return PlayerSpec(text, argv=argv)


class Forfeit(Exception):
    """A program broke the rules of the match: it crashed, hung, or answered illegally.

    ``termination`` is the record's Termination tag for it, so archive tools can tell a
    forfeit from a resignation."""

    def __init__(self, message: str, termination: str = ABANDONED):
        super().__init__(message)
        self.termination = termination


class LevelPlayer:
    """A level of this engine, searching in this process."""

    def __init__(self, spec: PlayerSpec, seed: int, seconds: float | None):
        limits = level_limits(spec.level)
        if seconds is not None:           # --time caps every search (a level is node-limited)
            limits = Limits(limits.depth, limits.nodes, seconds, limits.noise)
        self.limits = limits
        self.search = Search(seed)

    def start(self, rules: str) -> None:
        pass

    def choose(self, state, actions_text: list[str]):
        # The last two actions, as the computer player and the UGI engine pass them: the
        # search does not undo its own last slide for nothing. Without them a level in a
        # match played differently from the same level in ``tomis play``.
        previous = [parse_action(text) for text in actions_text[-2:]]
        return self.search.run(state, self.limits, previous=previous).action

    def close(self) -> None:
        pass


class ProgramPlayer:
    """A UGI engine run as a subprocess; every answer must come in time."""

    def __init__(self, spec: PlayerSpec, seed: int, seconds: float | None):
        self.spec = spec
        self.seconds = seconds
        self.seed = seed
        self.process = None
        self.hung = False
        self.lines: queue.Queue = queue.Queue()

    def start(self, rules: str) -> None:
        try:
            self.process = subprocess.Popen(
                self.spec.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, text=True, bufsize=1)
        except OSError as problem:
            raise Forfeit(f"could not start: {problem.strerror or problem}") from None
        threading.Thread(target=self._read, daemon=True).start()
        self._send("ugi")
        self._wait_for("ugiok", START_TIMEOUT)
        self._send(f"setoption name Rules value {rules}")
        self._send(f"setoption name Seed value {self.seed}")
        self._send("uginewgame")
        self._send("isready")
        self._wait_for("readyok", START_TIMEOUT)

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)                  # the program closed its output

    def _send(self, line: str) -> None:
        try:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise Forfeit("crashed (its input closed)") from None

    def _wait_for(self, prefix: str, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self.hung = True
                raise Forfeit(f"hung: no {prefix!r} within {timeout:g} s", TIME_FORFEIT)
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise Forfeit(f"crashed before answering {prefix!r} (exit status {self.process.poll()})")
            if line == prefix or line.startswith(prefix + " "):
                return line

    def choose(self, state, actions_text: list[str]):
        moves = " moves " + " ".join(actions_text) if actions_text else ""
        self._send("position startpos" + moves)
        if self.seconds is not None:
            self._send(f"go movetime {int(self.seconds * 1000)}")
            timeout = self.seconds + GRACE
        else:
            self._send("go")
            timeout = 60.0
        answer = self._wait_for("bestmove", timeout).split()
        if len(answer) < 2:
            raise Forfeit("answered 'bestmove' without an action", RULES_INFRACTION)
        try:
            action = parse_action(answer[1])
        except TomisError as problem:
            raise Forfeit(f"answered an unreadable action {answer[1]!r}: {problem}",
                          RULES_INFRACTION) from None
        if action not in legal_actions(state):
            raise Forfeit(f"answered an illegal action {answer[1]!r}", RULES_INFRACTION)
        return action

    def close(self) -> None:
        if self.process is None:
            return
        try:
            if self.hung:                     # it would not read quit either
                raise Forfeit("hung")
            self._send("quit")
            self.process.wait(timeout=GRACE)
        except (Forfeit, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()


def make_player(spec: PlayerSpec, seed: int, seconds: float | None):
    if spec.level is not None:
        return LevelPlayer(spec, seed, seconds)
    return ProgramPlayer(spec, seed, seconds)


# --------------------------------------------------------------------------- games

def random_opening(seed: int, pair: int, length: int, rules: str) -> list[Action]:
    """The first ``length`` actions of pair ``pair``: seeded random legal actions.

    An opening that would already end the game is drawn again (with the next seed).
    """
    attempt = 0
    while True:
        rng = random.Random(f"opening:{seed}:{pair}:{attempt}")
        state = new_game(rules)
        actions = []
        while len(actions) < length and state.to_move is not None:
            action = rng.choice(legal_actions(state))
            state, _report = apply_unchecked(state, action)
            actions.append(action)
        if state.to_move is not None:
            return actions
        attempt += 1


@dataclass
class GameTask:
    """Everything one worker needs to play one game (picklable)."""

    number: int
    white: PlayerSpec
    black: PlayerSpec
    opening: list[Action]          # frozen dataclasses: they pickle to the workers as they are
    rules: str
    seed: int
    seconds: float | None
    max_actions: int
    event: str = "tomis match"


@dataclass
class MatchGame:
    """One game of a match, played to its end: who played it, how it ended, its record."""

    number: int
    white: str
    black: str
    result: str
    reason: str
    record: str                  # the game as record text
    forfeit: str | None = None   # the player that lost by breaking the match rules


# The old name, kept for scripts and tests written before it: the archive walker's
# per-game event is tomis.archive.walker.GameOutcome, a different thing.
GameOutcome = MatchGame


def play_game(task: GameTask) -> MatchGame:
    """Play one game to its end; the record and the result."""
    game = record.new_record(white=task.white.name, black=task.black.name, rules=task.rules,
                             event=task.event, round=task.number)
    for side in TYPE_TAGS.values():          # both players are programs, levels or UGI
        game.tags[side] = PROGRAM
    for action in task.opening:
        record.append(game, action)
    players = [make_player(task.white, task.seed, task.seconds), make_player(task.black, task.seed, task.seconds)]
    specs = (task.white, task.black)
    forfeit = failure = None          # the side that broke the match rules, and how
    try:
        for side in (0, 1):
            try:
                players[side].start(task.rules)
            except Forfeit as problem:
                forfeit, failure = side, problem
                break
        while forfeit is None and game.final.to_move is not None and len(game.nodes) < task.max_actions:
            state = game.final
            side = state.to_move
            try:
                action = players[side].choose(state, [str(node.action) for node in game.nodes])
            except Forfeit as problem:
                forfeit, failure = side, problem
                break
            record.append(game, action)
    finally:
        for player in players:
            player.close()
    final = game.final
    if forfeit is not None:
        loser = ("White", "Black")[forfeit]
        reason = f"{loser} ({specs[forfeit].name}) forfeits: {failure}"
        if final.to_move is not None:
            record.finish(game, ("0-1", "1-0")[forfeit])
            game.tags[TERMINATION_TAG] = failure.termination
        _comment(game, reason)
    elif final.to_move is None:
        reason = final.reason
    else:
        reason = f"adjudicated a draw after {task.max_actions} actions"
        record.finish(game, "1/2-1/2")
        game.tags[TERMINATION_TAG] = ADJUDICATION
        _comment(game, reason)
    return MatchGame(task.number, task.white.name, task.black.name, game.result, reason,
                       record.write(game), specs[forfeit].name if forfeit is not None else None)


def _comment(game, text: str) -> None:
    (game.nodes[-1].comments if game.nodes else game.comments).append(text)


# --------------------------------------------------------------------------- statistics

@dataclass
class Score:
    """A's results against B."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    forfeits: dict = field(default_factory=dict)    # player name -> games lost by forfeit

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2

    @property
    def fraction(self) -> float:
        return self.points / self.games if self.games else 0.0


def elo_of(fraction: float) -> float:
    """The Elo difference that expects ``fraction`` of the points (+-inf at 1 and 0)."""
    if fraction >= 1:
        return math.inf
    if fraction <= 0:
        return -math.inf
    return -400 * math.log10(1 / fraction - 1)


def _variance(score: Score) -> float:
    """The variance of one game's points for A, from the games played."""
    n = score.games
    mean = score.fraction
    return (score.wins * (1 - mean) ** 2 + score.draws * (0.5 - mean) ** 2 + score.losses * mean ** 2) / n


def elo(score: Score) -> tuple[float, float, float]:
    """(Elo difference, low, high) of A over B, the interval at 95 %.

    When every game went one way the games show no variance; the bound on that side
    is then the exact binomial one (the score p with p**n = 2.5 %).
    """
    if not score.games:
        return 0.0, -math.inf, math.inf
    if score.wins == score.games or score.losses == score.games:
        bound = elo_of(Z95_TAIL ** (1 / score.games))      # > 0
        return (math.inf, bound, math.inf) if score.wins else (-math.inf, -math.inf, -bound)
    spread = Z95 * math.sqrt(_variance(score) / score.games)
    mean = score.fraction
    return elo_of(mean), elo_of(mean - spread), elo_of(mean + spread)


def sprt(score: Score, elo0: float, elo1: float) -> tuple[float, float, float, str]:
    """(log-likelihood ratio, lower bound, upper bound, verdict) of H1: Elo1 over H0: Elo0."""
    lower = math.log(SPRT_BETA / (1 - SPRT_ALPHA))
    upper = math.log((1 - SPRT_BETA) / SPRT_ALPHA)
    variance = _variance(score) if score.games else 0.0
    if variance <= 0:
        return 0.0, lower, upper, "inconclusive (no variance yet)"
    expected0 = 1 / (1 + 10 ** (-elo0 / 400))
    expected1 = 1 / (1 + 10 ** (-elo1 / 400))
    llr = score.games * (expected1 - expected0) * (2 * score.fraction - expected0 - expected1) / (2 * variance)
    if llr >= upper:
        verdict = f"H1 accepted (Elo >= {elo1:g})"
    elif llr <= lower:
        verdict = f"H0 accepted (Elo <= {elo0:g})"
    else:
        verdict = "inconclusive (keep playing)"
    return llr, lower, upper, verdict


# --------------------------------------------------------------------------- the match

@dataclass
class MatchSettings:
    a: PlayerSpec
    b: PlayerSpec
    games: int = 10
    seconds: float | None = None
    opening_length: int = 12
    seed: int = 0
    concurrency: int = 1
    rules: str = "manual"
    max_actions: int = DEFAULT_MAX_ACTIONS


def tasks(settings: MatchSettings) -> list[GameTask]:
    """The games of the match in order: pair p is games 2p+1 (A White) and 2p+2 (B White)."""
    out = []
    for number in range(1, settings.games + 1):
        pair = (number - 1) // 2
        opening = random_opening(settings.seed, pair, settings.opening_length, settings.rules)
        a_white = number % 2 == 1
        white, black = (settings.a, settings.b) if a_white else (settings.b, settings.a)
        out.append(GameTask(number, white, black, opening, settings.rules,
                            settings.seed * 1000 + pair, settings.seconds, settings.max_actions))
    return out


def score_for_a(settings: MatchSettings, outcome: MatchGame, score: Score) -> None:
    """Add one game to A's score (A is White in odd-numbered games)."""
    a_white = outcome.number % 2 == 1
    if outcome.result == "1/2-1/2":
        score.draws += 1
    elif (outcome.result == "1-0") == a_white:
        score.wins += 1
    else:
        score.losses += 1
    if outcome.forfeit is not None:
        score.forfeits[outcome.forfeit] = score.forfeits.get(outcome.forfeit, 0) + 1


def run_match(settings: MatchSettings, on_game=None, stop=None) -> tuple[Score, list[MatchGame]]:
    """Play the games (``concurrency`` worker processes); A's score and the games in order.

    ``stop(score)`` is asked after each colour-swapped pair; when it answers True the
    match ends there (a sequential test that has decided: :func:`sprt_stop`), and games
    not yet started are not played.
    """
    score = Score()
    outcomes = []
    work = tasks(settings)
    if settings.concurrency <= 1:
        for outcome in map(play_game, work):
            _add(settings, outcome, score, outcomes, on_game)
            if _should_stop(stop, score):
                break
        return score, outcomes
    pool = ProcessPoolExecutor(max_workers=settings.concurrency)
    try:
        for outcome in pool.map(play_game, work):
            _add(settings, outcome, score, outcomes, on_game)
            if _should_stop(stop, score):
                break
    finally:
        # Games already running finish (and are dropped); queued ones never start.
        pool.shutdown(wait=True, cancel_futures=True)
    return score, outcomes


def _should_stop(stop, score: Score) -> bool:
    """Only at the end of a pair, so both colours of every opening count equally."""
    return stop is not None and score.games % 2 == 0 and stop(score)


def sprt_stop(elo0: float, elo1: float):
    """A ``stop`` for :func:`run_match`: true once the test has accepted H0 or H1."""
    def decided(score: Score) -> bool:
        llr, lower, upper, _ = sprt(score, elo0, elo1)
        return llr >= upper or llr <= lower
    return decided


def _add(settings, outcome, score, outcomes, on_game) -> None:
    score_for_a(settings, outcome, score)
    outcomes.append(outcome)
    if on_game is not None:
        on_game(outcome, score)
