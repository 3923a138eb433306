"""Reply tokens: which game and side an address ``LOCAL+TOKEN@DOMAIN`` speaks for.

A token is the game number (4 bytes), the side (1 byte) and the first 10 bytes of an
HMAC-SHA256 under the store's secret, written in lowercase base32 without padding: 24
characters. Anyone can read the game number out of a token; no one can make one for
another game or side without the secret.

A *request* token (issue 43: a one-time address that confirms a command mailed to the
club's bare address) has the same length and shape: the request's number (4 bytes), the
byte 2 where a seat token has its side (so the one never reads as the other), and the MAC
of those 5 bytes under the same secret with a label of its own (:data:`_REQUEST_LABEL`).

The MAC covers those 5 bytes and, when it is not 0, the seat's *generation* (4 bytes),
which the organiser raises by changing the seat's address (``tomis referee address``):
the seat's old token then no longer reads, while every token of a seat whose address never
changed (generation 0) is the one earlier versions made. The generation is not in the
token: the reader looks it up for the seat the token names (:func:`read`'s ``generation``).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from typing import Callable, NamedTuple

TOKEN_LENGTH = 24             # base32 of 15 bytes
MAX_LOCAL_PART = 64           # RFC 5321's limit on the part before the @
_MAC_BYTES = 10
REQUEST_KIND = 2              # the fifth byte of a request token (a seat's is its side, 0 or 1)
# Signed before a request token's payload, so that no seat's MAC is ever a request's.
_REQUEST_LABEL = b"tomis-club-request\0"
_MAX_GAME = 2**32 - 1
MAX_GENERATION = 2**32 - 1


class Seat(NamedTuple):
    """A game and a side (0 White, 1 Black), as a token names them."""

    game: int
    side: int


def new_secret() -> str:
    return secrets.token_hex(32)


def _mac(secret: str, payload: bytes, generation: int) -> bytes:
    # Generation 0 signs the payload alone, as before generations: those tokens stay valid.
    signed = payload + (generation.to_bytes(4, "big") if generation else b"")
    return hmac.new(bytes.fromhex(secret), signed, hashlib.sha256).digest()[:_MAC_BYTES]


def make(secret: str, seat: Seat, generation: int = 0) -> str:
    """The token for ``seat`` in its ``generation``."""
    if not 0 < seat.game <= _MAX_GAME or seat.side not in (0, 1):
        raise ValueError(f"no token for {seat}")
    if not 0 <= generation <= MAX_GENERATION:
        raise ValueError(f"no token for generation {generation}")
    payload = seat.game.to_bytes(4, "big") + bytes([seat.side])
    return base64.b32encode(payload + _mac(secret, payload, generation)).decode("ascii").lower()


def _first_generation(seat: Seat) -> int | None:
    return 0


def read(secret: str, token: str,
         generation: Callable[[Seat], int | None] = _first_generation) -> Seat | None:
    """The seat ``token`` names, or None when it is not one this store signed for the
    seat's current generation (``generation(seat)``; None: no such seat)."""
    if len(token) != TOKEN_LENGTH or not token.isascii() or not token.isalnum():
        return None
    try:
        raw = base64.b32decode(token.upper())
    except (binascii.Error, ValueError):
        return None
    payload, mac = raw[:5], raw[5:]
    if payload[4] not in (0, 1):
        return None
    seat = Seat(int.from_bytes(payload[:4], "big"), payload[4])
    current = generation(seat)
    if current is None or not hmac.compare_digest(mac, _mac(secret, payload, current)):
        return None
    return seat


def make_request(secret: str, number: int) -> str:
    """The token of the club's one-time request ``number`` (:mod:`.clubmail`)."""
    if not 0 < number <= _MAX_GAME:
        raise ValueError(f"no token for request {number}")
    payload = number.to_bytes(4, "big") + bytes([REQUEST_KIND])
    return base64.b32encode(payload + _mac(secret, _REQUEST_LABEL + payload, 0)
                            ).decode("ascii").lower()


def read_request(secret: str, token: str) -> int | None:
    """The request number ``token`` names, or None when it is no request token this store
    signed."""
    if len(token) != TOKEN_LENGTH or not token.isascii() or not token.isalnum():
        return None
    try:
        raw = base64.b32decode(token.upper())
    except (binascii.Error, ValueError):
        return None
    payload, mac = raw[:5], raw[5:]
    if payload[4] != REQUEST_KIND:
        return None
    if not hmac.compare_digest(mac, _mac(secret, _REQUEST_LABEL + payload, 0)):
        return None
    return int.from_bytes(payload[:4], "big")


def local_part_room(local: str) -> bool:
    """Whether ``LOCAL+TOKEN`` stays within 64 characters."""
    return len(local) + 1 + TOKEN_LENGTH <= MAX_LOCAL_PART
