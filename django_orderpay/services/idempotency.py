"""``x-idempotency-key`` values: derived from what makes an operation *this* operation.

A key is a digest of the operation's kind, its scope (what it acts on),
its sequence within that scope and its body, so two processes starting the
same operation at once derive the same key and the provider acts once. The
:class:`~django_orderpay.models.Operation` record decides the sequence: it
moves on only when the earlier operation of the scope is known to be
finished (see :mod:`.operations`), never from local mirror state.

Card secrets never enter a digest: encrypted card data changes on every
encryption (the same card would get a new key), and a number or security
code must not be derivable from anything we store or log. Everything else
does, address and phone ``number`` fields included.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

from django_orderpay.exceptions import FieldError, PayloadError
from django_orderpay.redaction import without_card_secrets

__all__ = [
    "check_explicit_key",
    "digest",
    "operation_key",
    "stable_key",
    "without_card_secrets",
]

PREFIX = "orderpay"
#: What a header value may hold (no spaces or control characters).
_KEY_PATTERN = re.compile(r"[!-~]{1,255}")


def canonical(payload: Any) -> str:
    """``payload`` as canonical JSON (sorted keys, no spaces)."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)


def digest(payload: Any) -> str:
    """SHA-256 of ``payload`` as canonical JSON, card secrets removed."""
    return hashlib.sha256(canonical(without_card_secrets(payload)).encode()).hexdigest()


def stable_key(operation: str, *parts: Any) -> str:
    """``orderpay-<operation>-<40 hex>``: a digest of ``parts`` (under 64 characters)."""
    return f"{PREFIX}-{operation}-{digest([operation, *parts])[:40]}"


def operation_key(
    kind: str, scope: str, sequence: int, body: Mapping[str, Any], *, body_digest: str = ""
) -> str:
    """The key of the ``sequence``-th operation of ``scope``, sending ``body``.

    ``body_digest`` is ``digest(body)`` when the caller has it already.
    """
    return stable_key(kind, scope, sequence, body_digest or digest(body))


def check_explicit_key(key: Any) -> str:
    """An idempotency key given by the caller: a non-empty header-safe string."""
    if not isinstance(key, str) or not _KEY_PATTERN.fullmatch(key):
        raise PayloadError(
            [
                FieldError(
                    "idempotency_key",
                    "must be 1 to 255 printable ASCII characters without spaces",
                )
            ]
        )
    return key
