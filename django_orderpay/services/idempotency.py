"""Stable ``x-idempotency-key`` values: the same operation always sends the same key.

A key is a digest of what makes an operation *this* operation, so a call
repeated after a timeout or a crash (by the client's retry loop, a worker
re-running a job, a customer pressing "pay" twice) reaches the provider with
the key it already answered, and nothing is charged twice.

Card secrets never enter a digest: encrypted card data changes on every
encryption (the same card would get a new key), and a number or security
code must not be derivable from anything we send or log.

A key the provider *refused* (a 4xx: it did nothing, but it keeps that
answer under the key) must not be reused for the next attempt, or every
later attempt with other card data would be a 409 for good: one
undecryptable card would lock an order. :func:`send` remembers such a
refusal in Django's cache and moves the operation's key to its next
*generation*. Only a refusal moves it: after a timeout, an outage or a 409
the provider may have done the work, so the same key must be sent again.
Without a working cache nothing is remembered, and the worst case is the
409 (never a second charge).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from django.core.cache import cache

from django_orderpay.exceptions import (
    FieldError,
    IdempotencyConflict,
    ProviderError,
    ProviderUnavailable,
    ValidationError,
)

logger = logging.getLogger("django_orderpay.services")

T = TypeVar("T")

#: Keys of a ``card`` object left out of every digest.
CARD_SECRETS = frozenset({"number", "security_code", "encrypted"})
PREFIX = "orderpay"


def without_card_secrets(payload: Any, *, _parent: str = "") -> Any:
    """A copy of ``payload`` without the secrets of any ``card`` object in it."""
    if isinstance(payload, Mapping):
        return {
            key: without_card_secrets(value, _parent=str(key))
            for key, value in payload.items()
            if not (_parent == "card" and key in CARD_SECRETS)
        }
    if isinstance(payload, list | tuple):
        return [without_card_secrets(item, _parent=_parent) for item in payload]
    return payload


def digest(payload: Any) -> str:
    """SHA-256 of ``payload`` as canonical JSON (sorted keys), card secrets removed."""
    canonical = json.dumps(
        without_card_secrets(payload), sort_keys=True, separators=(",", ":"), default=str
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def stable_key(operation: str, *parts: Any, generation: int = 0) -> str:
    """``orderpay-<operation>-<40 hex>``: a digest of ``parts`` (under 64 characters).

    ``generation`` > 0 is the same operation after the provider refused each
    earlier generation's key (see :func:`send`).
    """
    material = [operation, *parts]
    if generation:
        material.append({"generation": generation})
    return f"{PREFIX}-{operation}-{digest(material)[:40]}"


def create_key(
    reference_id: str, attempt: int, body: Mapping[str, Any], *, generation: int = 0
) -> str:
    """The key of ``POST /orders``.

    ``attempt`` is how many orders with this ``reference_id`` are already
    mirrored locally: a create that never got its answer back is sent again
    with the same key, while a new attempt after a synced (say declined)
    order gets a new one.
    """
    return stable_key("create", reference_id, attempt, body, generation=generation)


def pay_key(order_id: str, attempt: int, body: Mapping[str, Any], *, generation: int = 0) -> str:
    """The key of ``POST /orders/{id}/pay``; ``attempt`` is the order's known charge count."""
    return stable_key("pay", order_id, attempt, body, generation=generation)


def capture_key(charge_id: str, amount: int, captured: int, *, generation: int = 0) -> str:
    """The key of a capture of ``amount`` when ``captured`` cents were captured before."""
    return stable_key("capture", charge_id, amount, captured, generation=generation)


def cancel_key(
    charge_id: str, amount: int, refunded: int, status: str, *, generation: int = 0
) -> str:
    """The key of a cancel of ``amount`` after ``refunded`` cents, from ``status``.

    Two partial refunds of the same amount are two operations: the second is
    made after the first's refund is recorded, so ``refunded`` differs.
    """
    return stable_key("cancel", charge_id, amount, refunded, status, generation=generation)


# --- refused keys -------------------------------------------------------------------

#: How long a refusal is remembered. The provider's key lifetime is not
#: documented; past this a refused key may be sent again (a 409 at worst).
REFUSAL_TTL = 7 * 24 * 60 * 60
_CACHE_PREFIX = "orderpay:idempotency-generation:"
#: What a header value may hold (no spaces or control characters).
_KEY_PATTERN = re.compile(r"[!-~]{1,255}")


def is_refusal(error: ProviderError) -> bool:
    """Whether the provider answered ``error`` without doing anything (so a new key is due).

    A 4xx refusal, but not a 409 (the key is in use: the work may be done)
    and not an outage (a timeout or 5xx may hide work done).
    """
    if isinstance(error, ProviderUnavailable | IdempotencyConflict):
        return False
    return error.status is not None and 400 <= error.status < 500


def _generation(base: str) -> int:
    try:
        value = cache.get(_CACHE_PREFIX + base)
    except Exception:  # a cache outage must not stop a payment
        logger.warning("idempotency: cache unavailable, using the first key", exc_info=True)
        return 0
    return value if isinstance(value, int) and value > 0 else 0


def _advance(base: str, refused: int) -> None:
    try:
        if _generation(base) <= refused:
            cache.set(_CACHE_PREFIX + base, refused + 1, REFUSAL_TTL)
    except Exception:
        logger.warning("idempotency: could not remember a refused key", exc_info=True)


def check_explicit_key(key: Any) -> str:
    """An idempotency key given by the caller: a non-empty header-safe string."""
    if not isinstance(key, str) or not _KEY_PATTERN.fullmatch(key):
        raise ValidationError(
            [
                FieldError(
                    "idempotency_key",
                    "must be 1 to 255 printable ASCII characters without spaces",
                )
            ]
        )
    return key


def send(
    explicit_key: str | None,
    derive: Callable[[int], str],
    call: Callable[[str], T],
) -> T:
    """``call(key)`` with ``explicit_key``, else the derived key of the current generation.

    ``derive(generation)`` answers the operation's key for that generation.
    When the provider refuses a derived key (:func:`is_refusal`), the
    refusal is remembered so the next attempt of the same operation derives
    the next generation's key. An explicit key is the caller's to manage.
    """
    if explicit_key is not None:
        return call(check_explicit_key(explicit_key))
    base = derive(0)
    generation = _generation(base)
    key = derive(generation) if generation else base
    try:
        return call(key)
    except ProviderError as error:
        if is_refusal(error):
            _advance(base, generation)
        raise
