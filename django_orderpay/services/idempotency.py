"""Stable ``x-idempotency-key`` values: the same operation always sends the same key.

A key is a digest of what makes an operation *this* operation, so a call
repeated after a timeout or a crash (by the client's retry loop, a worker
re-running a job, a customer pressing "pay" twice) reaches the provider with
the key it already answered, and nothing is charged twice.

Card secrets never enter a digest: encrypted card data changes on every
encryption (the same card would get a new key), and a number or security
code must not be derivable from anything we send or log.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

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


def stable_key(operation: str, *parts: Any) -> str:
    """``orderpay-<operation>-<40 hex>``: a digest of ``parts`` (under 64 characters)."""
    return f"{PREFIX}-{operation}-{digest([operation, *parts])[:40]}"


def create_key(reference_id: str, attempt: int, body: Mapping[str, Any]) -> str:
    """The key of ``POST /orders``.

    ``attempt`` is how many orders with this ``reference_id`` are already
    mirrored locally: a create that never got its answer back is sent again
    with the same key, while a new attempt after a synced (say declined)
    order gets a new one.
    """
    return stable_key("create", reference_id, attempt, body)


def pay_key(order_id: str, attempt: int, body: Mapping[str, Any]) -> str:
    """The key of ``POST /orders/{id}/pay``; ``attempt`` is the order's known charge count."""
    return stable_key("pay", order_id, attempt, body)


def capture_key(charge_id: str, amount: int, captured: int) -> str:
    """The key of a capture of ``amount`` when ``captured`` cents were captured before."""
    return stable_key("capture", charge_id, amount, captured)


def cancel_key(charge_id: str, amount: int, refunded: int, status: str) -> str:
    """The key of a cancel of ``amount`` after ``refunded`` cents, from ``status``.

    Two partial refunds of the same amount are two operations: the second is
    made after the first's refund is recorded, so ``refunded`` differs.
    """
    return stable_key("cancel", charge_id, amount, refunded, status)
