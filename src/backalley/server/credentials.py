"""The secrets that open a table — seat tokens, invites, the host's token, watch codes: made
at random, kept only as their hash, compared in constant time."""

from __future__ import annotations

import hashlib
import hmac
import secrets


def secret() -> str:
    """A fresh random secret for a link or a seat: 128 bits, URL-safe."""
    return secrets.token_urlsafe(16)


def digest(token: str) -> bytes:
    """What the store keeps of a secret: its SHA-256 (a random 128-bit secret needs no
    slow hash)."""
    return hashlib.sha256(token.encode()).digest()


def matches(token: str | None, stored: bytes | None) -> bool:
    """Whether ``token`` is the secret stored as ``stored``, compared in constant time."""
    return token is not None and stored is not None and hmac.compare_digest(digest(token), stored)


__all__ = ["digest", "matches", "secret"]
