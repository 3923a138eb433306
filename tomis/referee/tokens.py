"""Reply tokens: which game and side an address ``LOCAL+TOKEN@DOMAIN`` speaks for.

A token is the game number (4 bytes), the side (1 byte) and the first 10 bytes of an
HMAC-SHA256 of those 5 bytes under the store's secret, written in lowercase base32
without padding: 24 characters. Anyone can read the game number out of a token; no one
can make one for another game or side without the secret.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from typing import NamedTuple

TOKEN_LENGTH = 24             # base32 of 15 bytes
MAX_LOCAL_PART = 64           # RFC 5321's limit on the part before the @
_MAC_BYTES = 10
_MAX_GAME = 2**32 - 1


class Seat(NamedTuple):
    """A game and a side (0 White, 1 Black), as a token names them."""

    game: int
    side: int


def new_secret() -> str:
    return secrets.token_hex(32)


def _mac(secret: str, payload: bytes) -> bytes:
    return hmac.new(bytes.fromhex(secret), payload, hashlib.sha256).digest()[:_MAC_BYTES]


def make(secret: str, seat: Seat) -> str:
    """The token for ``seat``."""
    if not 0 < seat.game <= _MAX_GAME or seat.side not in (0, 1):
        raise ValueError(f"no token for {seat}")
    payload = seat.game.to_bytes(4, "big") + bytes([seat.side])
    return base64.b32encode(payload + _mac(secret, payload)).decode("ascii").lower()


def read(secret: str, token: str) -> Seat | None:
    """The seat ``token`` names, or None when it is not one this store signed."""
    if len(token) != TOKEN_LENGTH or not token.isascii() or not token.isalnum():
        return None
    try:
        raw = base64.b32decode(token.upper())
    except (binascii.Error, ValueError):
        return None
    payload, mac = raw[:5], raw[5:]
    if payload[4] not in (0, 1) or not hmac.compare_digest(mac, _mac(secret, payload)):
        return None
    return Seat(int.from_bytes(payload[:4], "big"), payload[4])


def local_part_room(local: str) -> bool:
    """Whether ``LOCAL+TOKEN`` stays within 64 characters."""
    return len(local) + 1 + TOKEN_LENGTH <= MAX_LOCAL_PART
