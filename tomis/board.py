"""Squares, sides, pieces and directions: the types and tables every layer shares.

Squares are ints 0..63 with a1 = 0 and ``square = rank * 8 + file``. Strings appear
only at the edges (:func:`parse_square`, :func:`square_name`). Nothing in this module
knows a rule of the game beyond the geometry of the board (R1).
"""

from __future__ import annotations

WHITE, BLACK = 0, 1
SIDE_NAMES = ("white", "black")
SIDE_TITLES = ("White", "Black")

# Piece kinds. Units occupy squares; gates and markers are the other two kinds (R2, R3).
BASE, GATE, MARKER, FRIGATE, SENTRY, TOWER, FLAGSHIP = range(7)
PIECE_LETTERS = "BGMFSTQ"
PIECE_NAMES = ("base", "gate", "marker", "frigate", "sentry", "tower", "flagship")
LETTER_TO_PIECE = {letter: kind for kind, letter in enumerate(PIECE_LETTERS)}
UNIT_KINDS = (BASE, FRIGATE, SENTRY, TOWER, FLAGSHIP)
SHIP_KINDS = (FRIGATE, SENTRY, TOWER, FLAGSHIP)

# What each side owns at the start (R2), in reserve order B G M F S T Q.
INITIAL_RESERVE = (1, 4, 4, 8, 2, 2, 1)

FILE_NAMES = "abcdefgh"
RANK_NAMES = "12345678"
SQUARE_NAMES = tuple(f + r for r in RANK_NAMES for f in FILE_NAMES)
SQUARES = range(64)
_SQUARE_INDEX = {name: index for index, name in enumerate(SQUARE_NAMES)}

# Absolute compass directions (R1): index -> (file step, rank step).
N, NE, E, SE, S, SW, W, NW = range(8)
DIRECTION_NAMES = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
DIRECTION_STEPS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))
DIRECTION_INDEX = {name: index for index, name in enumerate(DIRECTION_NAMES)}
ORTHOGONAL = (N, E, S, W)
DIAGONAL = (NE, SE, SW, NW)

HOME_RANK = (0, 7)          # White's home row is rank 1, Black's rank 8 (R1).
FORWARD = (1, -1)           # rank step of each side's forward.


def square_file(square: int) -> int:
    return square & 7


def square_rank(square: int) -> int:
    return square >> 3


def make_square(file: int, rank: int) -> int:
    return rank * 8 + file


def square_name(square: int) -> str:
    return SQUARE_NAMES[square]


def parse_square(name: str) -> int:
    """Return the square index of a name like ``"e4"``; raise ``ValueError`` otherwise."""
    try:
        return _SQUARE_INDEX[name]
    except KeyError:
        raise ValueError(f"not a square: {name!r}") from None


def offset(square: int, direction: int, distance: int = 1) -> int | None:
    """The square ``distance`` steps from ``square`` in ``direction``, or None off the board."""
    df, dr = DIRECTION_STEPS[direction]
    file = (square & 7) + df * distance
    rank = (square >> 3) + dr * distance
    if 0 <= file < 8 and 0 <= rank < 8:
        return rank * 8 + file
    return None


def _ray(square: int, direction: int) -> tuple[int, ...]:
    squares = []
    distance = 1
    while (target := offset(square, direction, distance)) is not None:
        squares.append(target)
        distance += 1
    return tuple(squares)


# RAYS[square][direction]: the squares from ``square`` outward, nearest first.
RAYS = tuple(tuple(_ray(sq, d) for d in range(8)) for sq in SQUARES)

# NEIGHBOURS[square]: the up to eight squares around ``square``.
NEIGHBOURS = tuple(
    tuple(t for d in range(8) if (t := offset(sq, d)) is not None) for sq in SQUARES
)

# FRIGATE_ATTACKS[side][square]: ahead-left, ahead, ahead-right by that side's forward (R15).
FRIGATE_ATTACKS = tuple(
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
FRIGATE_STEPS = tuple(
    tuple(
        tuple(
            t
            for t in (
                offset(sq, N if side == WHITE else S),
                offset(sq, W),
                offset(sq, E),
            )
            if t is not None
        )
        for sq in SQUARES
    )
    for side in (WHITE, BLACK)
)

# The ray directions each sliding ship moves and attacks along (R9, R15).
SLIDER_DIRECTIONS = {
    SENTRY: DIAGONAL,
    TOWER: ORTHOGONAL,
    FLAGSHIP: tuple(range(8)),
}
