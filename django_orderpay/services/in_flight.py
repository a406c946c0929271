"""One money-moving operation in flight per shop object; a repeat waits for the first's answer.

A shop object (the purchase an order was created for) has at most one
money-moving operation without an outcome at a time:

- a new **payment** (create, pay) of it is refused with
  :class:`~django_orderpay.exceptions.PaymentInProgress` while another of
  its operations is in flight (:func:`refuse_if_in_flight`), whatever its
  reference; the look and the record happen under the shop object's lock
  (:func:`busy_name`), so two processes cannot both find nothing;
- a **repeat** of the operation in flight (the same key, or the same
  scope: a page posted twice, a second worker) joins it, and when the
  first call is being sent right now in another process, waits for its
  outcome (:func:`await_outcome`) instead of sending the key the provider
  holds as "in use".

Captures and refunds are never refused: a refund is how a purchase paid
twice is put right.
"""

from __future__ import annotations

import datetime as dt
import time
from typing import TYPE_CHECKING

from django.contrib.contenttypes.models import ContentType
from django.db import models, transaction
from django.utils import timezone

from django_orderpay.exceptions import PaymentInProgress
from django_orderpay.models import Operation, OperationKind, OperationState

if TYPE_CHECKING:
    from .operations import Intent

#: How long an open operation keeps its shop object busy (a new payment of it
#: refused): a call's own retries end within minutes; past this an open one
#: is left to the notification, ``orderpay_sync`` and staff, and the shopper
#: may pay again (a purchase then paid twice sends ``payment_duplicated``).
IN_FLIGHT_FOR = dt.timedelta(minutes=15)
#: The operations that start a payment: refused while their shop object has
#: another money-moving operation in flight.
PAYMENT_KINDS = frozenset({OperationKind.CREATE, OperationKind.PAY})
#: How long a call still marked ``sending`` may be waiting for its answer: a
#: repeat waits for it that long at most (``orderpay_sync`` leaves it alone as long).
SENDING_FOR = dt.timedelta(minutes=2)
#: How often a repeat looks whether the call it waits for has its answer.
POLL_EVERY = 0.05


def shop_object_of(intent: Intent) -> tuple[int | None, str]:
    """``(content type id, object id)`` of what ``intent`` is for: its shop object, else its
    order's (a pay, a capture, a refund); ``(None, "")`` when it has none."""
    if intent.shop_object is not None:
        content_type = ContentType.objects.get_for_model(intent.shop_object)
        return content_type.pk, str(intent.shop_object.pk)
    order = intent.order if intent.order is not None else getattr(intent.charge, "order", None)
    if order is not None and order.content_type_id is not None:
        return order.content_type_id, order.object_id
    return None, ""


def busy_name(intent: Intent) -> str | None:
    """The lock a payment of a shop object takes while it looks (None: not a payment, or
    for no shop object)."""
    if intent.kind not in PAYMENT_KINDS:
        return None
    content_type_id, object_id = shop_object_of(intent)
    return f"orderpay:shop-object:{content_type_id}:{object_id}" if content_type_id else None


def in_flight_for(shop_object: models.Model) -> Operation | None:
    """The money-moving operation of ``shop_object`` with no outcome yet (see :func:`in_flight`).

    What a payment page asks to say "your payment is being confirmed" instead
    of offering to pay again.
    """
    if shop_object.pk is None:
        return None
    content_type = ContentType.objects.get_for_model(shop_object)
    return in_flight(content_type.pk, str(shop_object.pk))


def in_flight(content_type_id: int | None, object_id: str) -> Operation | None:
    """The money-moving operation of a shop object still in flight (open, called within
    :data:`IN_FLIGHT_FOR`), if any: the newest."""
    if content_type_id is None:
        return None
    since = timezone.now() - IN_FLIGHT_FOR
    return (
        Operation.objects.open()
        .filter(content_type_id=content_type_id, object_id=object_id, updated_at__gte=since)
        .order_by("-pk")
        .first()
    )


def refuse_if_in_flight(operation: Operation) -> None:
    """Raise :class:`PaymentInProgress` when ``operation``'s shop object has another in flight."""
    busy = in_flight(operation.content_type_id, operation.object_id)
    # Any other: one of another scope, or of this scope under another request's key
    # (a page of its own: not joined, see operations._under_way).
    if busy is not None and busy.idempotency_key != operation.idempotency_key:
        raise PaymentInProgress(
            f"{operation.get_kind_display().lower()} {operation.target or operation.scope}: "
            f"operation {busy.pk} ({busy.get_kind_display().lower()}) of the same shop object "
            "has no outcome yet; nothing was sent",
            operation=busy,
        )


def in_flight_elsewhere(operation: Operation) -> bool:
    """Whether a call just joined ``operation`` while another is sending it right now.

    Not inside a transaction of the caller's: there the join holds the
    operation's row, and the other call could not write its outcome.
    """
    return (
        operation.state == OperationState.SENDING
        and operation.calls > 1
        and operation.created_at >= timezone.now() - SENDING_FOR
        and not transaction.get_connection().in_atomic_block
    )


def await_outcome(operation: Operation) -> Operation | None:
    """Wait until the call sending ``operation`` has its outcome (up to :data:`SENDING_FOR`
    after it began); ``operation``, refreshed, when it succeeded, else None (refused, or
    unknown: the caller sends the key itself then, and the provider answers it)."""
    deadline = operation.created_at + SENDING_FOR
    rows = Operation.objects.filter(pk=operation.pk)
    while timezone.now() < deadline:
        state = rows.values_list("state", flat=True).first()
        if state != OperationState.SENDING:
            operation.refresh_from_db(fields=["state", "reported", "order", "charge", "error"])
            return operation if state == OperationState.SUCCEEDED else None
        time.sleep(POLL_EVERY)
    return None
