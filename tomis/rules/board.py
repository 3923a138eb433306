"""Squares, sides, pieces and directions: the types and tables every layer shares.

Squares are ints 0..63 with a1 = 0 and ``square = rank * 8 + file``. Strings appear
only at the edges (:func:`parse_square`, :func:`square_name`). Nothing in this module
knows a rule of the game beyond the geometry of the board (R1).
"""

from __future__ import annotations

from typing import Final, NamedTuple

# The names below are Final: they are never rebound. Besides saying so to type checkers,
# this lets the optional compiled build (tomis/rules/compiled.py) read each as a constant
# instead of looking it up by name at every use, which cost it more than the interpreter's
# own cached lookup. Tuples read at an index known only at run time are declared
# ``tuple[int, ...]`` (or ``str``): typed by their length, as mypy infers them, the
# compiled build keeps them unboxed and built a new Python tuple at every such read.

WHITE: Final = 0
BLACK: Final = 1
SIDE_NAMES: Final[tuple[str, ...]] = ("white", "black")
SIDE_TITLES: Final[tuple[str, ...]] = ("White", "Black")

# Piece kinds. Units occupy squares; gates and markers are the other two kinds (R2, R3).
BASE: Final = 0
GATE: Final = 1
MARKER: Final = 2
FRIGATE: Final = 3
SENTRY: Final = 4
TOWER: Final = 5
FLAGSHIP: Final = 6
PIECE_LETTERS: Final = "BGMFSTQ"
PIECE_NAMES: Final[tuple[str, ...]] = ("base", "gate", "marker", "frigate", "sentry", "tower", "flagship")
LETTER_TO_PIECE: Final = {letter: kind for kind, letter in enumerate(PIECE_LETTERS)}
PIECE_CONSTANTS: Final[tuple[str, ...]] = ("BASE", "GATE", "MARKER", "FRIGATE", "SENTRY", "TOWER", "FLAGSHIP")
SIDE_CONSTANTS: Final[tuple[str, ...]] = ("WHITE", "BLACK")

# Unit codes: a unit on the board is one small int, ``side << 3 | kind``, so that a
# position's units are a plain dict square -> int. Read them through the two tables:
# a tuple lookup is faster in CPython than the shift or mask it replaces (measured:
# 22 ns against 29 ns for side and kind together), so hot loops use them too.
UNIT_SIDE: Final = tuple(code >> 3 for code in range(16))
UNIT_KIND: Final = tuple(code & 7 for code in range(16))


def unit_code(side: int, kind: int) -> int:
    """The code of ``side``'s unit of ``kind`` (``UNIT_SIDE``/``UNIT_KIND`` read it back)."""
    return side << 3 | kind


def unit_side(code: int) -> int:
    return UNIT_SIDE[code]


def unit_kind(code: int) -> int:
    return UNIT_KIND[code]


# Gate states (R10, R11): a gate is placed inactive, a frigate on it activates it, and a
# marker on an active gate makes it a jump gate.
INACTIVE: Final = 0
ACTIVE: Final = 1
JUMP: Final = 2
GATE_STATE_NAMES: Final[tuple[str, ...]] = ("inactive", "active", "jump")

# Rules editions (E1-E4): the manual's and the readme's readings.
MANUAL: Final = 0
README: Final = 1
EDITIONS: Final[tuple[str, ...]] = ("manual", "readme")

# Results (R21-R23), the one definition every layer uses.
WHITE_WINS: Final = "1-0"
BLACK_WINS: Final = "0-1"
DRAW: Final = "1/2-1/2"
UNDECIDED: Final = "*"
DECIDED_RESULTS: Final[tuple[str, ...]] = (WHITE_WINS, BLACK_WINS, DRAW)
RESULTS: Final = DECIDED_RESULTS + (UNDECIDED,)
WIN_RESULTS: Final[tuple[str, ...]] = (WHITE_WINS, BLACK_WINS)      # indexed by the winning side

# What each side owns at the start (R2), in reserve order B G M F S T Q.
INITIAL_RESERVE: Final[tuple[int, ...]] = (1, 4, 4, 8, 2, 2, 1)

FILE_NAMES: Final = "abcdefgh"
RANK_NAMES: Final = "12345678"
SQUARE_NAMES: Final = tuple(f + r for r in RANK_NAMES for f in FILE_NAMES)
SQUARES: Final = range(64)
SQUARE_INDEX: Final = {name: index for index, name in enumerate(SQUARE_NAMES)}    # "e4" -> 28
# RANK_OF[square], FILE_OF[square]: 0-7 each; a tuple lookup reads as fast as the shift
# or mask it names (see UNIT_SIDE).
RANK_OF: Final = tuple(square >> 3 for square in SQUARES)
FILE_OF: Final = tuple(square & 7 for square in SQUARES)

# Absolute compass directions (R1): index -> (file step, rank step).
N: Final = 0
NE: Final = 1
E: Final = 2
SE: Final = 3
S: Final = 4
SW: Final = 5
W: Final = 6
NW: Final = 7
DIRECTION_NAMES: Final[tuple[str, ...]] = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
DIRECTION_STEPS: Final[tuple[tuple[int, int], ...]] = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))
DIRECTION_INDEX: Final = {name: index for index, name in enumerate(DIRECTION_NAMES)}
ORTHOGONAL: Final[tuple[int, ...]] = (N, E, S, W)
DIAGONAL: Final[tuple[int, ...]] = (NE, SE, SW, NW)

HOME_RANK: Final[tuple[int, ...]] = (0, 7)          # White's home row is rank 1, Black's rank 8 (R1).
FORWARD: Final[tuple[int, ...]] = (1, -1)           # rank step of each side's forward.


class Gate(NamedTuple):
    """A gate on the board (R3, R6): at most one per rank.

    ``state`` is INACTIVE, ACTIVE or JUMP; ``markers`` (0-2) and ``direction`` (N..NW)
    matter only for a jump gate and are 0 and -1 otherwise. A plain tuple underneath,
    so hashing, comparing and unpacking cost what a tuple's do; ``gate.state`` reads
    faster than ``gate[2]`` (a tuple subclass misses CPython's tuple-index fast path).
    """

    square: int
    owner: int
    state: int
    markers: int = 0
    direction: int = -1

    def __repr__(self) -> str:
        direction = DIRECTION_NAMES[self.direction] if self.direction >= 0 else "-1"
        return (f"Gate(square=parse_square({SQUARE_NAMES[self.square]!r}), "
                f"owner={SIDE_CONSTANTS[self.owner]}, state={GATE_STATE_CONSTANTS[self.state]}, "
                f"markers={self.markers}, direction={direction})")


GATE_STATE_CONSTANTS: Final[tuple[str, ...]] = ("INACTIVE", "ACTIVE", "JUMP")


def square_file(square: int) -> int:
    return FILE_OF[square]


def square_rank(square: int) -> int:
    return RANK_OF[square]


def make_square(file: int, rank: int) -> int:
    return rank * 8 + file


def square_name(square: int) -> str:
    return SQUARE_NAMES[square]


def parse_square(name: str) -> int:
    """Return the square index of a name like ``"e4"``; raise ``ValueError`` otherwise."""
    try:
        return SQUARE_INDEX[name]
    except KeyError:
        raise ValueError(f"not a square: {name!r}") from None


def offset(square: int, direction: int, distance: int = 1) -> int | None:
    """The square ``distance`` steps from ``square`` in ``direction``, or None off the board."""
    df, dr = DIRECTION_STEPS[direction]
    file = FILE_OF[square] + df * distance
    rank = RANK_OF[square] + dr * distance
    if 0 <= file < 8 and 0 <= rank < 8:
        return rank * 8 + file
    return None


def _ray(square: int, direction: int) -> tuple[int, ...]:
    # Stepped by hand rather than by offset(): the 512 rays are built at every start-up.
    df, dr = DIRECTION_STEPS[direction]
    file, rank = FILE_OF[square] + df, RANK_OF[square] + dr
    squares = []
    while 0 <= file < 8 and 0 <= rank < 8:
        squares.append(rank * 8 + file)
        file, rank = file + df, rank + dr
    return tuple(squares)


# RAYS[square][direction]: the squares from ``square`` outward, nearest first.
RAYS: Final = tuple(tuple(_ray(sq, d) for d in range(8)) for sq in SQUARES)

# NEIGHBOURS[square]: the up to eight squares around ``square`` (each ray's nearest).
NEIGHBOURS: Final = tuple(tuple(ray[0] for ray in rays if ray) for rays in RAYS)

# FRIGATE_ATTACKS[side][square]: ahead-left, ahead, ahead-right by that side's forward (R15).
FRIGATE_ATTACKS: Final = tuple(
    tuple(
        tuple(
            make_square(square_file(sq) + df, square_rank(sq) + FORWARD[side])
            for df in (-1, 0, 1)
            if 0 <= square_file(sq) + df < 8 and 0 <= square_rank(sq) + FORWARD[side] < 8
        )
        for sq in SQUARES
    )
    for side in (WHITE, BLACK)
)

# FRIGATE_STEPS[side][square]: one step forward, or sideways along the rank (R9).
FRIGATE_STEPS: Final = tuple(
    tuple(tuple(rays[d][0] for d in (N if side == WHITE else S, W, E) if rays[d]) for rays in RAYS)
    for side in (WHITE, BLACK)
)

# The ray directions each sliding ship moves and attacks along (R9, R15).
SLIDER_DIRECTIONS: Final = {
    SENTRY: DIAGONAL,
    TOWER: ORTHOGONAL,
    FLAGSHIP: tuple(range(8)),
}
