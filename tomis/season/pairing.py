"""Pairings of an event's rounds: Berger round robins and Swiss rounds.

Players are numbers, 1-based, in seeding order (1 is the top seed). A round is a list of
:class:`Pairing`, first board first; ``Pairing(n, None)`` is a bye for ``n``.

:func:`round_robin` writes the Berger tables of the FIDE Handbook (C.05, Annex 1).
:func:`swiss_round` pairs one Swiss round by a maximum-weight matching (networkx's
``max_weight_matching``, the ``referee`` extra): the pairs allowed are the edges of a
graph, each weighed by what the pairing costs, and the matching that pairs everyone at
the least cost is the round. docs/REFEREE.md, "Pairings and tie-breaks", says it in
words.

networkx is the ``referee`` extra. Without it this module still imports and round
robins are still made; :func:`swiss_round` raises :class:`PairingError` saying what to
install, one line the event can report.
"""

from __future__ import annotations

from dataclasses import dataclass

from tomis.errors import TomisError

try:
    import networkx
except ImportError:        # the referee extra is not installed: no Swiss pairing
    networkx = None

# What a Swiss pairing without networkx says.
INSTALL_HINT = "pairing a Swiss round needs networkx: pip install 'tomis[referee]'"

WHITE = "w"
BLACK = "b"

# The node of the matching graph that stands for the bye; player numbers start at 1.
BYE = 0


class PairingError(TomisError):
    """A round that cannot be paired (or entrants that do not make sense); the message is
    one line an organiser can act on."""


@dataclass(frozen=True)
class Pairing:
    """One board: ``white`` against ``black``; ``black`` None is a bye for ``white``."""

    white: int
    black: int | None


@dataclass(frozen=True)
class Entrant:
    """A Swiss player as the next round sees them.

    ``colours`` is one letter per game played, in order (``w`` or ``b``; a bye has no
    colour and no letter); ``opponents`` the numbers already met; ``had_bye`` whether a
    bye was given before (a player has at most one).
    """

    number: int
    score: float
    opponents: tuple[int, ...]
    colours: str
    had_bye: bool


# ---------------------------------------------------------------------- round robin

def round_robin(count: int, *, double: bool = False) -> list[list[Pairing]]:
    """The Berger tables for ``count`` players: every round, first board first.

    For an odd count the table of ``count + 1`` is used and the player drawn against
    ``count + 1`` has the bye that round (``Pairing(n, None)``, listed after the boards).
    With ``double`` the cycle is played twice, the second time with colours reversed; as
    the Handbook recommends, the last two rounds of the first cycle change places, so
    no player has one colour three rounds running across the turn of the cycles.

    >>> [[(p.white, p.black) for p in rnd] for rnd in round_robin(4)]
    [[(1, 4), (2, 3)], [(4, 3), (1, 2)], [(2, 4), (3, 1)]]

    Raises :class:`PairingError` for fewer than two players.
    """
    if count < 2:
        raise PairingError(f"a round robin needs at least 2 players, not {count}")
    size = count + count % 2
    rounds = [with_byes(berger_round(size, number), count) for number in range(1, size)]
    if not double:
        return rounds
    first = rounds[:-2] + rounds[-2:][::-1]
    return first + [[reversed_colours(pairing) for pairing in rnd] for rnd in rounds]


def berger_round(size: int, number: int) -> list[Pairing]:
    """Round ``number`` (1-based) of the Berger table for an even ``size``.

    The last player sits on board 1 against ``top``, who moves on by ``size / 2`` places
    (counted round the other ``size - 1``) each round, and has White in even rounds; on
    board ``k + 1`` the player ``k`` places after ``top`` has White against the one ``k``
    places before.
    """
    others = size - 1
    half = size // 2
    top = (number - 1) * half % others + 1
    boards = [Pairing(size, top) if number % 2 == 0 else Pairing(top, size)]
    for step in range(1, half):
        boards.append(Pairing(around(top + step, others), around(top - step, others)))
    return boards


def around(place: int, others: int) -> int:
    """``place`` counted round a circle of the players 1..``others``."""
    return (place - 1) % others + 1


def with_byes(boards: list[Pairing], count: int) -> list[Pairing]:
    """The boards with the dummy player ``count + 1`` (if any) turned into a bye, last."""
    real = [pairing for pairing in boards if count + 1 not in (pairing.white, pairing.black)]
    byes = [Pairing(pairing.black if pairing.white == count + 1 else pairing.white, None)
            for pairing in boards if count + 1 in (pairing.white, pairing.black)]
    return real + byes


def reversed_colours(pairing: Pairing) -> Pairing:
    if pairing.black is None:
        return pairing
    return Pairing(pairing.black, pairing.white)


# ---------------------------------------------------------------------- Swiss

@dataclass(frozen=True)
class ColourCost:
    """What giving a player one colour costs: ``streak`` 1 for a third of one colour in a
    row, ``preference`` the weight of a preference not met (0 when met or none)."""

    streak: int
    preference: int


@dataclass(frozen=True)
class SwissPlayer:
    """An entrant as this round's pairing weighs them, worked out once: their rank (0 is
    the top: score, then seeding), their place in their score group and its size, the
    colour they prefer and what each colour costs them (None: not allowed)."""

    entrant: Entrant
    rank: int
    group_place: int
    group_size: int
    preferred: str | None
    white: ColourCost | None
    black: ColourCost | None


@dataclass(frozen=True)
class Side:
    """One way round of a pair: who has White, and what it costs."""

    white: int
    black: int
    streak: int
    preference: int


@dataclass(frozen=True)
class Tiers:
    """The weight of one unit of each criterion, chosen so that no sum of the lower
    criteria over a whole round can outweigh one unit of a higher one; ``base`` keeps
    every edge's weight positive."""

    bye: int
    streak: int
    score: int
    colour: int
    seed: int
    base: int


def swiss_round(entrants: list[Entrant]) -> list[Pairing]:
    """Pair one Swiss round: boards by score (the highest-scoring pair first), the bye last.

    Never allowed: two players who have met; a colour that takes a player's colour
    difference (Whites less Blacks) beyond 2 either way; a second bye. Then, most
    important first:

    1. for an odd count, the bye to the lowest-ranked player (score, then seeding) who
       has not had one;
    2. no player with one colour three times in a row, where it can be avoided;
    3. opponents of equal score (the square of each score difference counts);
    4. colour preferences: a player who has had one White more than Black wants Black
       (strongly), one whose colours are even wants the other colour to the last
       (mildly); the higher-ranked player gets their preference when the two conflict;
    5. the seeding within a score group: its top half against its bottom half, in order
       (1 against 1 + half), and a player who floats down is the lowest of their group
       and meets the highest of the group below.

    Where it can, the round leaves the next one pairable by the three rules
    (:func:`next_round_pairable`): this function does not know which round is the last.

    In the first round, where nobody prefers a colour, the higher-ranked player of each
    board has White on boards 1, 3, 5, ... and Black on boards 2, 4, ...

    >>> first = swiss_round([Entrant(n, 0.0, (), "", False) for n in range(1, 8)])
    >>> [(p.white, p.black) for p in first]
    [(1, 4), (5, 2), (3, 6), (7, None)]

    Raises :class:`PairingError` when no pairing of everyone obeys the three rules, or
    for entrants that repeat a number or give colours other than ``w`` and ``b``.
    """
    if networkx is None:
        raise PairingError(INSTALL_HINT)
    check_entrants(entrants)
    if not entrants:
        return []
    field = swiss_players(entrants)
    tiers = tiers_for(field)
    graph = networkx.Graph()
    graph.add_nodes_from(player.entrant.number for player in field)
    if len(field) % 2:
        graph.add_node(BYE)
        add_bye_edges(graph, field, tiers)
    add_pair_edges(graph, field, tiers)
    matching = networkx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) != graph.number_of_nodes():
        raise PairingError(unpaired_message(graph, matching, len(field)))
    players = {player.entrant.number: player for player in field}
    if not next_round_pairable(matching, players):
        matching = pairable_instead(graph, matching, players) or matching
    return boards_of(matching, players)


def check_entrants(entrants: list[Entrant]) -> None:
    seen: set[int] = set()
    for entrant in entrants:
        if entrant.number < 1:
            raise PairingError(f"player numbers start at 1, not {entrant.number}")
        if entrant.number in seen:
            raise PairingError(f"player {entrant.number} is entered twice")
        seen.add(entrant.number)
        if entrant.colours.strip(WHITE + BLACK):
            raise PairingError(f"player {entrant.number}'s colours are not all w and b: "
                               f"{entrant.colours!r}")


def swiss_players(entrants: list[Entrant]) -> list[SwissPlayer]:
    """The entrants as :class:`SwissPlayer`, in rank order."""
    ranked = sorted(entrants, key=lambda entrant: (-entrant.score, entrant.number))
    groups: dict[float, list[int]] = {}
    for entrant in ranked:
        groups.setdefault(entrant.score, []).append(entrant.number)
    strong = strong_weight(len(entrants))
    return [SwissPlayer(entrant, rank, groups[entrant.score].index(entrant.number),
                 len(groups[entrant.score]), preferred_colour(entrant),
                 colour_cost(entrant, WHITE, strong), colour_cost(entrant, BLACK, strong))
            for rank, entrant in enumerate(ranked)]


def tiers_for(field: list[SwissPlayer]) -> Tiers:
    """The units of :class:`Tiers` for these players, from the most each criterion can
    add up to over one round (integers: networkx's matching is exact with them)."""
    count = len(field)
    pairs = count // 2 + 1
    widest = half_points(field[0].entrant.score - field[-1].entrant.score)
    most = {                       # the most one pair (or the bye) can cost, per criterion
        "seed": count,
        "colour": 2 * strong_weight(count),
        "score": widest * widest,
        "streak": 2,
        "bye": count,
    }
    units = {}
    ceiling = 0
    for name in ("seed", "colour", "score", "streak", "bye"):
        units[name] = ceiling + 1
        ceiling += units[name] * most[name] * pairs
    return Tiers(base=ceiling + 1, **units)


def strong_weight(count: int) -> int:
    """A strong preference outweighs every mild one of the round together."""
    return count + 1


def half_points(score: float) -> int:
    return round(abs(score) * 2)


def add_bye_edges(graph: networkx.Graph, field: list[SwissPlayer], tiers: Tiers) -> None:
    """An edge to the bye for each player who has not had one; the lower the player
    ranks, the less it costs."""
    eligible = [player for player in field if not player.entrant.had_bye]
    for below, player in enumerate(reversed(eligible)):
        graph.add_edge(player.entrant.number, BYE, weight=tiers.base - tiers.bye * below)


def add_pair_edges(graph: networkx.Graph, field: list[SwissPlayer], tiers: Tiers) -> None:
    """An edge for each pair allowed to meet, weighed by what the pair costs."""
    for place, higher in enumerate(field):
        for lower in field[place + 1:]:
            if have_met(higher.entrant, lower.entrant):
                continue
            side = best_side(higher, lower)
            if side is None:
                continue
            gap = half_points(higher.entrant.score - lower.entrant.score)
            cost = (tiers.streak * side.streak + tiers.score * gap * gap
                    + tiers.colour * side.preference + tiers.seed * seed_cost(higher, lower))
            graph.add_edge(higher.entrant.number, lower.entrant.number,
                           weight=tiers.base - cost)


def have_met(first: Entrant, second: Entrant) -> bool:
    return second.number in first.opponents or first.number in second.opponents


def seed_cost(higher: SwissPlayer, lower: SwissPlayer) -> int:
    """How far a pair is from the Dutch order: within a group, place ``i`` of the top half
    meets place ``i`` of the bottom half; across groups, the bottom of the higher group
    meets the top of the lower one. ``higher`` ranks above ``lower``."""
    if higher.entrant.score == lower.entrant.score:
        return abs(lower.group_place - higher.group_place - higher.group_size // 2)
    return (higher.group_size - 1 - higher.group_place) + lower.group_place


def colour_cost(entrant: Entrant, colour: str, strong: int) -> ColourCost | None:
    """What ``colour`` costs ``entrant``; None when it would take their colour difference
    beyond 2."""
    difference = entrant.colours.count(WHITE) - entrant.colours.count(BLACK)
    after = difference + (1 if colour == WHITE else -1)
    if abs(after) > 2:
        return None
    streak = 1 if entrant.colours[-2:] == colour * 2 else 0
    wanted = preferred_colour(entrant)
    if wanted is None or wanted == colour:
        return ColourCost(streak, 0)
    return ColourCost(streak, strong if difference else 1)


def preferred_colour(entrant: Entrant) -> str | None:
    """The colour that evens the difference, else the other to the last; None before the
    first game."""
    difference = entrant.colours.count(WHITE) - entrant.colours.count(BLACK)
    if difference > 0:
        return BLACK
    if difference < 0:
        return WHITE
    if entrant.colours:
        return BLACK if entrant.colours[-1] == WHITE else WHITE
    return None


def side_of(white: SwissPlayer, black: SwissPlayer) -> Side | None:
    if white.white is None or black.black is None:
        return None
    return Side(white.entrant.number, black.entrant.number,
                white.white.streak + black.black.streak,
                white.white.preference + black.black.preference)


def best_side(higher: SwissPlayer, lower: SwissPlayer) -> Side | None:
    """The cheaper way round of a pair (None if neither is allowed); at equal cost, the
    higher-ranked player's preference, else the opposite of the other's; with no
    preference at all, the higher-ranked player has White (:func:`boards_of` turns every
    other such board)."""
    straight = side_of(higher, lower)
    turned = side_of(lower, higher)
    if straight is None or turned is None:
        return straight or turned
    if (straight.streak, straight.preference) != (turned.streak, turned.preference):
        return min(straight, turned, key=lambda side: (side.streak, side.preference))
    wanted = higher.preferred
    if wanted is None and lower.preferred is not None:
        wanted = BLACK if lower.preferred == WHITE else WHITE
    return turned if wanted == BLACK else straight


# How many other matchings a round may try, at most, to leave the next round pairable.
LOOK_AHEAD_TRIES = 100


def next_round_pairable(matching: set, players: dict[int, SwissPlayer]) -> bool:
    """Whether, after this matching is played, everyone can be paired once more by the
    rules (no pair twice, colours within 2, one bye each). The pairing does not know which
    round is the last, so it keeps the next one possible wherever it can: a small event
    paired round by round can otherwise leave, say, two triangles of players who have
    all met. In a field where everyone may still meet half the others, there is always a
    way (Dirac's theorem: such a graph has a Hamiltonian cycle), and nothing is matched."""
    after = entrants_after(matching, players)
    graph = networkx.Graph()
    graph.add_nodes_from(entrant.number for entrant in after)
    if len(after) % 2:
        graph.add_edges_from((entrant.number, BYE) for entrant in after if not entrant.had_bye)
    takes = {entrant.number: colours_allowed(entrant) for entrant in after}
    for place, first in enumerate(after):
        for second in after[place + 1:]:
            if not have_met(first, second) and may_meet(takes[first.number],
                                                         takes[second.number]):
                graph.add_edge(first.number, second.number)
    nodes = graph.number_of_nodes()
    if all(2 * degree >= nodes for _, degree in graph.degree()):
        return True
    return 2 * len(networkx.max_weight_matching(graph, maxcardinality=True)) == nodes


def entrants_after(matching: set, players: dict[int, SwissPlayer]) -> list[Entrant]:
    """The entrants as the next round would see them, scores aside."""
    met: dict[int, tuple[int, ...]] = {}
    colour: dict[int, str] = {}
    bye: set[int] = set()
    for one, other in matching:
        if BYE in (one, other):
            bye.add(other if one == BYE else one)
            continue
        higher, lower = sorted((players[one], players[other]), key=lambda player: player.rank)
        side = best_side(higher, lower)
        met[one], met[other] = (other,), (one,)
        colour[side.white], colour[side.black] = WHITE, BLACK
    return [Entrant(number, 0.0, player.entrant.opponents + met.get(number, ()),
                    player.entrant.colours + colour.get(number, ""),
                    player.entrant.had_bye or number in bye)
            for number, player in players.items()]


def colours_allowed(entrant: Entrant) -> str:
    """The colours that keep ``entrant``'s colour difference within 2."""
    difference = entrant.colours.count(WHITE) - entrant.colours.count(BLACK)
    return (WHITE if difference < 2 else "") + (BLACK if difference > -2 else "")


def may_meet(first: str, second: str) -> bool:
    """Whether two players who may take ``first`` and ``second`` can meet, one way round."""
    return (WHITE in first and BLACK in second) or (BLACK in first and WHITE in second)


def pairable_instead(graph: networkx.Graph, best: set,
                     players: dict[int, SwissPlayer]) -> set | None:
    """Another perfect matching that leaves the next round pairable: breadth first, each
    found by forbidding one more pair of the one before it, and of the first depth where
    some do, the cheapest. None when none is found within :data:`LOOK_AHEAD_TRIES`."""
    frontier = [(frozenset(), best)]
    tries = 0
    while frontier and tries < LOOK_AHEAD_TRIES:
        found = []
        deeper = []
        for forbidden, matching in frontier:
            for pair in matching:
                if tries >= LOOK_AHEAD_TRIES:
                    break
                banned = forbidden | {frozenset(pair)}
                tries += 1
                other = matching_without(graph, banned)
                if other is None:
                    continue
                if next_round_pairable(other, players):
                    found.append(other)
                deeper.append((banned, other))
        if found:
            return max(found, key=lambda matching: weight_of(graph, matching))
        frontier = deeper
    return None


def matching_without(graph: networkx.Graph, banned: frozenset) -> set | None:
    """The best perfect matching without the ``banned`` pairs, or None."""
    smaller = graph.copy()
    smaller.remove_edges_from(tuple(pair) for pair in banned)
    matching = networkx.max_weight_matching(smaller, maxcardinality=True)
    return matching if 2 * len(matching) == graph.number_of_nodes() else None


def weight_of(graph: networkx.Graph, matching: set) -> int:
    return sum(graph.edges[pair]["weight"] for pair in matching)


def boards_of(matching: set, players: dict[int, SwissPlayer]) -> list[Pairing]:
    """The matched pairs as boards: by the higher score, then the sum of the scores, then
    the higher rank; the bye last."""
    pairs = []
    bye = []
    for one, other in matching:
        if BYE in (one, other):
            bye.append(Pairing(other if one == BYE else one, None))
        else:
            pairs.append(sorted((players[one], players[other]), key=lambda player: player.rank))
    pairs.sort(key=lambda pair: (-pair[0].entrant.score,
                                 -pair[0].entrant.score - pair[1].entrant.score, pair[0].rank))
    boards = []
    for board, (higher, lower) in enumerate(pairs):
        side = best_side(higher, lower)
        pairing = Pairing(side.white, side.black)
        if board % 2 and higher.preferred is None and lower.preferred is None:
            pairing = reversed_colours(pairing)
        boards.append(pairing)
    return boards + bye


def unpaired_message(graph: networkx.Graph, matching: set, count: int) -> str:
    """One line naming (some of) the players the best matching left without a game."""
    matched = {node for pair in matching for node in pair}
    left = sorted(node for node in graph if node not in matched and node != BYE)
    shown = ", ".join(str(number) for number in left[:10]) + (", ..." if len(left) > 10 else "")
    bye = " or a bye they have not had" if count % 2 else ""
    return (f"no pairing of all {count} players exists: players {shown} would have no "
            f"opponent they have not met with a colour they may take{bye}")
