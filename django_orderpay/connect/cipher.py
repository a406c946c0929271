"""Tokens at rest: encrypted with Fernet keys from ``ORDERPAY['CONNECT_KEYS']``.

A connected account's access and refresh tokens act for the seller: whoever
reads them can charge and refund in the seller's name. They are stored only
as Fernet tokens (AES-128-CBC with an HMAC-SHA256, from the ``cryptography``
package), so a database dump, a backup or a read-only SQL console shows
nothing usable without the keys, which live in the settings (the
environment), never in the database.

Rotation: ``CONNECT_KEYS`` is a list. The first key encrypts; every key
decrypts (``MultiFernet``). Put a new key first, deploy, run
``manage.py orderpay_rotate_keys`` (every stored token re-encrypted with the
new key), then drop the old key.
"""

from __future__ import annotations

import threading

from cryptography.fernet import Fernet, InvalidToken, MultiFernet

from django_orderpay.conf import env_var, get_settings
from django_orderpay.exceptions import ConfigurationError

__all__ = ["InvalidToken", "decrypt", "encrypt", "generate_key", "rotate"]

_lock = threading.Lock()
_cached: tuple[tuple[str, ...], MultiFernet] | None = None


def generate_key() -> str:
    """A new key for ``CONNECT_KEYS`` (url-safe base64 of 32 random bytes)."""
    return Fernet.generate_key().decode()


def _cipher() -> MultiFernet:
    global _cached
    keys = get_settings(strict=False).connect_keys
    cached = _cached
    if cached is not None and cached[0] == keys:
        return cached[1]
    if not keys:
        raise ConfigurationError(
            "ORDERPAY['CONNECT_KEYS'] (or the "
            f"{env_var('CONNECT_KEYS')} environment variable) is required to store connected "
            "accounts' tokens: a list of Fernet keys "
            "(django_orderpay.connect.cipher.generate_key() makes one)."
        )
    try:
        fernets = [Fernet(key) for key in keys]
    except (ValueError, TypeError):
        raise ConfigurationError(
            "ORDERPAY['CONNECT_KEYS'] must be Fernet keys: 32 url-safe base64-encoded bytes each."
        ) from None
    cipher = MultiFernet(fernets)
    with _lock:
        _cached = (keys, cipher)
    return cipher


def encrypt(secret: str) -> str:
    """``secret`` encrypted with the first key (text, safe in a text column)."""
    return _cipher().encrypt(secret.encode()).decode()


def decrypt(stored: str) -> str:
    """The secret behind ``stored``; :class:`InvalidToken` when no key opens it."""
    return _cipher().decrypt(stored.encode()).decode()


def rotate(stored: str) -> str:
    """``stored`` encrypted again with the first key (for a key rotation)."""
    return _cipher().rotate(stored.encode()).decode()
