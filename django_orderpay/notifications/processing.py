"""Apply one recorded delivery: dedupe, lock the order, fetch its state, sync it.

:func:`process_delivery` is the one way a delivery is processed: by the
view, by the background task, by ``orderpay_replay`` and by the admin's
replay action. It never raises for a delivery's sake: every attempt ends in
a :class:`Result` and in the delivery's row.

Why it is safe under at-least-once, out-of-order, concurrent delivery:

- The order row is locked (``SELECT ... FOR UPDATE``) for the whole attempt,
  so copies of a notification are processed one after the other; the
  duplicate check runs under that lock and sees a finished copy's outcome,
  because ``processed`` is written in the same transaction as the state it
  applied.
- The state applied is the provider's current one, fetched through the
  client (or, with ``NOTIFICATION_TRUST_BODY``, the verified body), and
  ``sync`` only moves charges forward: a late IN_ANALYSIS copy never undoes
  PAID, and signals fire once per real transition, after commit.
- A failure rolls the whole attempt back and is written down afterwards, in
  a transaction of its own; the view answers 500 so the provider retries.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django_orderpay.client import OrderPayClient
from django_orderpay.conf import get_settings
from django_orderpay.exceptions import NotFound
from django_orderpay.models import (
    ChangeSource,
    Charge,
    DeliveryOutcome,
    NotificationDelivery,
    Order,
)
from django_orderpay.services import refresh_order
from django_orderpay.sync import SyncError, sync_order, sync_transaction

from . import recording
from .verification import Rejected, named_charges, read_order

logger = logging.getLogger("django_orderpay.notifications")

#: The HTTP status the view answers for each outcome: 2xx where the provider
#: must stop retrying, 5xx where it should retry.
HTTP_STATUS: dict[str, int] = {
    DeliveryOutcome.RECEIVED: 200,
    DeliveryOutcome.PROCESSED: 200,
    DeliveryOutcome.DUPLICATE: 200,
    DeliveryOutcome.IGNORED: 200,
    DeliveryOutcome.REJECTED: 400,
    DeliveryOutcome.FAILED: 500,
}


@dataclass(frozen=True)
class Result:
    """How one processing attempt ended: the outcome stored and what to answer."""

    outcome: str
    detail: str = ""
    http_status: int = 200

    @classmethod
    def of(cls, outcome: str, detail: str = "") -> Result:
        return cls(outcome=outcome, detail=detail, http_status=HTTP_STATUS[outcome])

    @property
    def ok(self) -> bool:
        """True when the provider should stop retrying (any 2xx)."""
        return 200 <= self.http_status < 300


def _processed_copy(delivery: NotificationDelivery) -> int | None:
    """The id of another copy of this delivery (same dedupe key) already applied, if any."""
    if not delivery.dedupe_key:
        return None
    return (
        NotificationDelivery.objects.filter(
            dedupe_key=delivery.dedupe_key, outcome=DeliveryOutcome.PROCESSED
        )
        .exclude(pk=delivery.pk)
        .values_list("pk", flat=True)
        .first()
    )


def _order_of_charges(charge_ids: tuple[str, ...]) -> str:
    """The ``ORDE_`` id of the order a charge known here belongs to ("" if none is)."""
    found = (
        Charge.objects.filter(provider_id__in=charge_ids)
        .order_by("pk")
        .values_list("order__provider_id", flat=True)
        .first()
    )
    return found or ""


def _apply(
    delivery: NotificationDelivery,
    payload: dict[str, Any],
    order_id: str,
    *,
    trust_body: bool,
    client: OrderPayClient | None,
) -> Result:
    """One attempt, inside the processing transaction (the caller's).

    ``order_id`` "" means the body named only charges: their order is found
    here, locked and re-fetched (such a body is never synced as is).
    """
    unknown = f"order {order_id} is unknown here"
    named = bool(order_id)
    if not order_id:
        charge_ids = named_charges(payload)
        order_id = _order_of_charges(charge_ids)
        unknown = f"no order here has charge {', '.join(charge_ids)}"
        if order_id and order_id != delivery.order_provider_id:
            recording.name_order(delivery, order_id)
    order = None
    if order_id:
        order = Order.objects.select_for_update().filter(provider_id=order_id).first()
    if order is None and named:
        # An order this shop has not mirrored: its create's answer was lost,
        # or has not been mirrored yet. Whatever the body says, only the
        # provider's answer to our own token proves it is ours: adopt that.
        result = _adopt(order_id, client)
    elif order is None:
        logger.info("notification delivery %s ignored: %s", delivery.pk, unknown)
        result = Result.of(DeliveryOutcome.IGNORED, unknown)
    elif (copy_of := _processed_copy(delivery)) is not None:
        result = Result.of(DeliveryOutcome.DUPLICATE, f"a copy of delivery {copy_of}")
    else:
        if trust_body:
            sync_order(payload, source=ChangeSource.NOTIFICATION)
        else:
            refresh_order(order, source=ChangeSource.NOTIFICATION, client=client)
        result = Result.of(DeliveryOutcome.PROCESSED)
    recording.mark_outcome(delivery, result.outcome, result.detail)
    return result


def _adopt(order_id: str, client: OrderPayClient | None) -> Result:
    """Fetch an order unknown here with our token; mirror it if the provider has it for us."""
    try:
        refresh_order(order_id, source=ChangeSource.NOTIFICATION, client=client)
    except NotFound:
        detail = f"order {order_id} is not known to this account"
        logger.info("notification for %s ignored: %s", order_id, detail)
        return Result.of(DeliveryOutcome.IGNORED, detail)
    return Result.of(DeliveryOutcome.PROCESSED, f"order {order_id} adopted")


def process_delivery(
    delivery: NotificationDelivery, *, client: OrderPayClient | None = None
) -> Result:
    """Process (or re-process) one recorded delivery; never raises for the delivery's sake.

    The order's state is re-fetched (``services.refresh_order``) through
    ``client`` (default: this thread's client for the settings) unless
    ``NOTIFICATION_TRUST_BODY`` is on *and* the delivery's authenticity token
    was verified *and* the body is an Order with its id. A rejected
    delivery is not processed again: its token can't be checked twice (the
    log does not keep it).
    """
    if delivery.outcome == DeliveryOutcome.REJECTED:
        return Result(DeliveryOutcome.REJECTED, "a rejected delivery is not processed", 400)
    conf = get_settings()
    secrets = (*conf.notification_tokens, conf.token or "")
    try:
        payload, order_id = read_order(bytes(delivery.body), valid=delivery.valid)
    except Rejected as rejected:
        recording.record_rejection(delivery, f"{rejected.field}: {rejected.message}")
        return Result(DeliveryOutcome.REJECTED, rejected.message, rejected.status)
    # Only a verified Order (one with its id) is ever synced as is.
    trust_body = conf.notification_trust_body and delivery.valid is True and bool(order_id)
    try:
        with sync_transaction():
            return _apply(delivery, payload, order_id, trust_body=trust_body, client=client)
    except SyncError as exc:
        if trust_body:
            # A verified body the provider will send again unchanged: retrying can't help.
            recording.record_rejection(delivery, str(exc))
            return Result(DeliveryOutcome.REJECTED, str(exc), 400)
        failure: Exception = exc
    except Exception as exc:
        failure = exc
    logger.warning(
        "notification delivery %s for %s failed (%s); the provider will retry",
        delivery.pk,
        order_id or delivery.order_provider_id or "its charges' order",
        type(failure).__name__,
        exc_info=failure,
    )
    recording.record_failure(delivery, failure, secrets)
    return Result.of(DeliveryOutcome.FAILED, "processing failed")
