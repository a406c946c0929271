"""Masking of secrets before anything is logged or put in an exception message.

Card numbers, security codes, encrypted card blobs and API tokens must never
reach a log line or an exception (PCI DSS 3.3/3.4). :func:`redact` masks them
by key in a JSON-like structure and, as a second line of defence, any string
that looks like a card number wherever it sits; :func:`redact_text` does the
same for free text such as a provider's error description.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from django_orderpay import rules

MASK = "[REDACTED]"
#: What a stored or logged header keeps of a credential: that it was there.
HEADER_MASK = "[removed]"

#: The keys of a ``card`` object that are its secrets: never stored, logged,
#: digested into an idempotency key, or put in a message (``cvv`` is the official
#: plugin's name for the security code; a network token stands for the number).
CARD_SECRET_KEYS = frozenset({"number", "security_code", "encrypted", "network_token", "cvv"})
#: Secrets of the objects beside a card: a wallet's payment key, a network token's
#: cryptogram. Kept out as the card's are.
NESTED_SECRET_KEYS = {"card": CARD_SECRET_KEYS, "wallet": {"key"}, "token_data": {"cryptogram"}}
#: Headers whose values are credentials (or derived from one).
SECRET_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "cookie",
        "x-authenticity-token",
        "x-csrftoken",
        "x-api-key",
        "x-client-secret",
        "x_client_secret",
    }
)

#: Keys whose values are always masked, compared case-insensitively. ``number``
#: is masked only inside a ``card`` (an address or phone number is not secret).
SECRET_KEYS = frozenset(
    {
        "security_code",
        "encrypted",
        "card_number",
        "authorization",
        "x-authenticity-token",
        "token",
        "access_token",
        "refresh_token",
        "code_verifier",
        "client_secret",
        "network_token",
        "cvv",
        "cryptogram",
    }
)
_PAN = re.compile(r"(?<!\d)\d{13,19}(?!\d)")
_BEARER = re.compile(r"(Bearer\s+)\S+", re.IGNORECASE)


def redact(payload: Any, *, _parent: str = "") -> Any:
    """A copy of ``payload`` (dicts, lists, scalars) with every secret masked."""
    if isinstance(payload, Mapping):
        masked: dict[Any, Any] = {}
        for key, value in payload.items():
            name = str(key).lower()
            if name in SECRET_KEYS or name in NESTED_SECRET_KEYS.get(_parent, ()):
                masked[key] = MASK if value not in (None, "") else value
            else:
                masked[key] = redact(value, _parent=name)
        return masked
    if isinstance(payload, list | tuple):
        return [redact(item, _parent=_parent) for item in payload]
    if isinstance(payload, str):
        return redact_text(payload)
    return payload


def redact_text(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with card-number-like digit runs, bearer tokens and ``secrets`` masked."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, MASK)
    text = _BEARER.sub(lambda m: m.group(1) + MASK, text)
    return _PAN.sub(lambda m: MASK if rules.luhn_valid(m.group(0)) else m.group(0), text)


def redact_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """A copy of ``headers`` with each credential's value replaced by ``HEADER_MASK``."""
    return {
        name: HEADER_MASK if name.lower() in SECRET_HEADERS else str(value)
        for name, value in headers.items()
    }


def without_card_secrets(payload: Any, *, _parent: str = "") -> Any:
    """A copy of ``payload`` without the secrets of any ``card`` object in it (and of a
    wallet or token data beside it)."""
    if isinstance(payload, Mapping):
        return {
            key: without_card_secrets(value, _parent=str(key))
            for key, value in payload.items()
            if key not in NESTED_SECRET_KEYS.get(_parent, ())
        }
    if isinstance(payload, list | tuple):
        return [without_card_secrets(item, _parent=_parent) for item in payload]
    return payload


__all__ = [
    "CARD_SECRET_KEYS",
    "HEADER_MASK",
    "MASK",
    "NESTED_SECRET_KEYS",
    "SECRET_HEADERS",
    "SECRET_KEYS",
    "redact",
    "redact_headers",
    "redact_text",
    "without_card_secrets",
]
