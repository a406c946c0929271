"""The delivery log: every request is written down before, and apart from, its processing.

Each write here is its own short transaction, never the processing one, so a
delivery whose processing fails and rolls back is still in the log with its
error. (dj-stripe learned this the hard way: a webhook stored inside the
transaction that then failed vanished with it.) The view runs with
``non_atomic_requests``, so ``ATOMIC_REQUESTS`` cannot fold these writes into
the request's transaction either.

Writes go through :func:`~django_orderpay.sync.sync_transaction`: on SQLite,
whose writers can't wait for each other's locks, it makes them take turns
with the syncs of the same process.
"""

from __future__ import annotations

import hashlib
import ipaddress
import traceback as tb
from collections.abc import Iterable, Mapping

from django.db.models import F
from django.utils import timezone

from django_orderpay.models import DeliveryOutcome, NotificationDelivery, redact_headers
from django_orderpay.models.notifications import UNVERIFIED_BODY_KEPT
from django_orderpay.redaction import redact_text
from django_orderpay.sync import sync_transaction

#: Longest error text kept (a traceback is kept whole, tracebacks are bounded).
MAX_ERROR_LENGTH = 2000


def client_address(meta: Mapping[str, object]) -> str | None:
    """``REMOTE_ADDR`` when it is an IP address (a proxy's own header is kept in ``headers``)."""
    value = str(meta.get("REMOTE_ADDR") or "").strip()
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        return None


def record_delivery(
    *,
    body: bytes,
    whole: bool = True,
    headers: Mapping[str, str],
    remote_addr: str | None,
    content_type: str,
    valid: bool | None,
    outcome: str = DeliveryOutcome.RECEIVED,
    order_provider_id: str = "",
    dedupe_key: str = "",
    error: str = "",
    traceback: str = "",
    secrets: Iterable[str] = (),
) -> NotificationDelivery:
    """Insert one delivery as received (or as rejected), committed on its own.

    ``headers`` lose the values of credential headers; ``error`` loses any
    of ``secrets`` (the configured tokens) should it ever quote one. Unless
    ``whole`` (a delivery to process), only the body's first
    ``UNVERIFIED_BODY_KEPT`` bytes are kept, with its size and digest.
    """
    body = bytes(body)
    delivery = NotificationDelivery(
        body=body if whole else body[:UNVERIFIED_BODY_KEPT],
        body_size=len(body),
        headers=redact_headers(headers),
        remote_addr=remote_addr,
        content_type=content_type[:255],
        valid=valid,
        outcome=outcome,
        order_provider_id=order_provider_id[:64],
        dedupe_key=dedupe_key or hashlib.sha256(body).hexdigest(),
        error=redact_text(error, secrets)[:MAX_ERROR_LENGTH],
        traceback=redact_text(traceback, secrets),
    )
    with sync_transaction():
        delivery.save(force_insert=True)
    return delivery


def _update(delivery: NotificationDelivery, **fields: object) -> None:
    """Update the row (``attempts`` counted in SQL) and the instance alike."""
    fields["processed_at"] = timezone.now()
    NotificationDelivery.objects.filter(pk=delivery.pk).update(attempts=F("attempts") + 1, **fields)
    for name, value in fields.items():
        setattr(delivery, name, value)
    delivery.attempts += 1


def mark_outcome(delivery: NotificationDelivery, outcome: str, error: str = "") -> None:
    """Set the outcome of one processing attempt (``attempts`` counted).

    Called inside the processing transaction for a success, so the outcome
    commits together with the state it applied, or not at all.
    """
    _update(
        delivery,
        outcome=outcome,
        error=error[:MAX_ERROR_LENGTH],
        traceback="",
    )


def name_order(delivery: NotificationDelivery, order_provider_id: str) -> None:
    """Note the order a delivery turned out to be about (its body named only charges).

    Written with the attempt's outcome, in the processing transaction.
    """
    NotificationDelivery.objects.filter(pk=delivery.pk).update(order_provider_id=order_provider_id)
    delivery.order_provider_id = order_provider_id


def describe(exc: BaseException, secrets: Iterable[str] = ()) -> tuple[str, str]:
    """``(error, traceback)`` of ``exc`` as stored: class and message, then the whole trace.

    Our errors never quote a card number or a token; redaction is a second
    line of defence for whatever a library might put in a message.
    """
    secrets = tuple(secrets)
    error = redact_text(f"{type(exc).__name__}: {exc}", secrets)[:MAX_ERROR_LENGTH]
    trace = redact_text("".join(tb.format_exception(exc)), secrets)
    return error, trace


def record_failure(
    delivery: NotificationDelivery, exc: BaseException, secrets: Iterable[str] = ()
) -> None:
    """Write down a failed attempt, after its transaction rolled back, in a transaction of its own.

    ``error`` is the exception's class and message, ``traceback`` the whole trace.
    """
    error, trace = describe(exc, secrets)
    with sync_transaction():
        _update(
            delivery,
            outcome=DeliveryOutcome.FAILED,
            error=error,
            traceback=trace,
        )


def record_rejection(delivery: NotificationDelivery, error: str) -> None:
    """A stored delivery turned out not to be processable (a malformed body): not retried."""
    with sync_transaction():
        _update(
            delivery,
            outcome=DeliveryOutcome.REJECTED,
            error=error[:MAX_ERROR_LENGTH],
            traceback="",
        )
