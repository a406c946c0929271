"""Apply one delivery: claim it, lock the order, fetch its state, sync it.

Two ways in, one way through:

- :func:`receive_delivery`, the view's: a delivery just verified is
  inserted *as the first statement of its processing transaction*, as the
  claim on its body (see :mod:`.recording`), and processed in the same
  transaction. A copy of a body already processed is a duplicate in two
  statements; a first-time transition takes three on PostgreSQL (the claim
  with the order's lock, the charges, then the charge, its history row and
  the order written together: see :func:`~django_orderpay.sync.orders.insert_then_lock_order`
  and :mod:`django_orderpay.sync.batching`), six where they go one by one.
- :func:`process_delivery`, for a delivery recorded earlier: the background
  worker (through :func:`process_next_received`), ``orderpay_replay`` and
  the admin's replay. The delivery is claimed with an update, then
  processed the same way.

Neither raises for a delivery's sake: every attempt ends in a
:class:`Result` and in the delivery's row.

Why it is safe under at-least-once, out-of-order, concurrent delivery:

- One ``processed`` delivery per body (a unique index over the dedupe key
  of processed deliveries): a copy's claim waits for the first copy's
  transaction and then finds it, so a body is applied once, and a failed
  copy (rolled back) never counts.
- The order row is locked (``SELECT ... FOR UPDATE``) for the whole
  attempt, the fetch included, so different notifications of one order are
  applied one after the other.
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
from django_orderpay.connect.clients import client_for
from django_orderpay.exceptions import NotFound
from django_orderpay.models import (
    ChangeSource,
    Charge,
    Checkout,
    ConnectedAccount,
    DeliveryOutcome,
    NotificationDelivery,
    Order,
)
from django_orderpay.services import refresh_checkout, refresh_order, refresh_order_of_charge
from django_orderpay.sync import (
    SyncError,
    lock_order,
    once_more_on_conflict,
    sync_checkout,
    sync_order,
    sync_transaction,
)

from . import recording, unverified
from .verification import Rejected, is_checkout, named_charges, read_order

logger = logging.getLogger("django_orderpay.notifications")

#: The header PagBank names a hosted checkout with, on the notifications of its orders.
PRODUCT_HEADER = "x-product-id"

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
    order: Order | None = None,
) -> Result:
    """One attempt, inside the processing transaction (the caller's), the delivery claimed.

    ``order_id`` "" means the body named only charges: their order is found
    here, locked and re-fetched, or, unknown here, asked of the provider by
    the charge (such a body is never synced as is).
    ``order`` is ``order_id``'s row when the claim has locked it already;
    None, it is looked for (and locked) here.
    """
    named = bool(order_id)
    if not order_id:
        order_id = _order_of_charges(named_charges(payload))
        if order_id and order_id != delivery.order_provider_id:
            recording.name_order(delivery, order_id)
    if order is None and order_id:
        order = lock_order(order_id)
    # The account it was routed to (Connect; None: the settings' TOKEN): its token
    # fetches, and only its orders are written.
    account = delivery.account if delivery.account_id is not None else None
    if order is None and named:
        # An order this shop has not mirrored: its create's answer was lost,
        # or has not been mirrored yet. Whatever the body says, only the
        # provider's answer to our own token proves it is ours: adopt that.
        result = _adopt(order_id, client, account)
    elif order is None:
        # Charges of an order not mirrored here: the provider, asked with our own token
        # (GET /orders?charge_id=), says whose they are.
        result = _adopt_by_charge(delivery, named_charges(payload), client)
    else:
        if not trust_body:
            payload = (client or client_for(account)).get_order(order.provider_id)
        sync_order(payload, source=ChangeSource.NOTIFICATION, locked=order, account=account)
        result = Result.of(DeliveryOutcome.PROCESSED)
    checkout_id = _product_id(delivery)
    if checkout_id and order_id and result.outcome == DeliveryOutcome.PROCESSED:
        _join_checkout(order_id, checkout_id, client, account)
    if result.outcome != DeliveryOutcome.PROCESSED or result.detail:
        recording.change_outcome(delivery, result.outcome, result.detail)
    return result


def _product_id(delivery: NotificationDelivery) -> str:
    """The checkout a delivery's ``x-product-id`` names ("" when none, or not a ``CHEC_`` id).

    The log keeps headers as Django spells them (``X-Product-Id``): one lookup.
    """
    value = (delivery.headers or {}).get(PRODUCT_HEADER.title())
    return value if isinstance(value, str) and is_checkout(value) else ""


def _join_checkout(
    order_id: str,
    checkout_id: str,
    client: OrderPayClient | None,
    account: ConnectedAccount | None = None,
) -> None:
    """An order made on one of this shop's checkouts' page: link it, once, as the provider says.

    The header is not signed: it is only a hint to fetch the checkout with our
    token, which lists its orders (and is followed for checkouts mirrored here
    only). The order then takes the checkout's shop object.
    """
    if not Checkout.objects.filter(provider_id=checkout_id).exists():
        return
    if Order.objects.filter(provider_id=order_id, checkout__provider_id=checkout_id).exists():
        return
    try:
        refresh_checkout(
            checkout_id, source=ChangeSource.NOTIFICATION, client=client, account=account
        )
    except NotFound:
        logger.info("checkout %s named by order %s is not this account's", checkout_id, order_id)


def _apply_checkout(
    delivery: NotificationDelivery,
    payload: dict[str, Any],
    checkout_id: str,
    *,
    trust_body: bool,
    client: OrderPayClient | None,
) -> Result:
    """A hosted checkout's own notification: mirror the checkout and the orders it lists.

    The checkout is fetched with this shop's token (which proves it is this
    account's, and lists the orders made on its page), or with
    ``NOTIFICATION_TRUST_BODY`` the verified body is applied as it is.
    """
    account = delivery.account if delivery.account_id is not None else None
    if trust_body:
        sync_checkout(payload, source=ChangeSource.NOTIFICATION, account=account)
        return Result.of(DeliveryOutcome.PROCESSED)
    try:
        refresh_checkout(
            checkout_id, source=ChangeSource.NOTIFICATION, client=client, account=account
        )
    except NotFound:
        unverified.not_found(checkout_id)  # strangers' posts naming it fetch nothing more
        detail = f"checkout {checkout_id} is not known to this account"
        logger.info("notification delivery %s ignored: %s", delivery.pk, detail)
        recording.change_outcome(delivery, DeliveryOutcome.IGNORED, detail)
        return Result.of(DeliveryOutcome.IGNORED, detail)
    return Result.of(DeliveryOutcome.PROCESSED)


def _adopt(
    order_id: str, client: OrderPayClient | None, account: ConnectedAccount | None = None
) -> Result:
    """Fetch an order unknown here with our token; mirror it if the provider has it for us."""
    try:
        refresh_order(order_id, source=ChangeSource.NOTIFICATION, client=client, account=account)
    except NotFound:
        unverified.not_found(order_id)  # strangers' posts naming it fetch nothing more
        detail = f"order {order_id} is not known to this account"
        logger.info("notification for %s ignored: %s", order_id, detail)
        return Result.of(DeliveryOutcome.IGNORED, detail)
    return Result.of(DeliveryOutcome.PROCESSED, f"order {order_id} adopted")


def _adopt_by_charge(
    delivery: NotificationDelivery, charge_ids: tuple[str, ...], client: OrderPayClient | None
) -> Result:
    """Mirror the order of the first charge the provider knows for this account."""
    for charge_id in charge_ids[:1]:  # one call: a stranger's body must not cost more
        try:
            order = refresh_order_of_charge(
                charge_id,
                source=ChangeSource.NOTIFICATION,
                client=client,
                account=delivery.account if delivery.account_id is not None else None,
            )
        except NotFound:
            break
        recording.name_order(delivery, order.provider_id)
        return Result.of(DeliveryOutcome.PROCESSED, f"order {order.provider_id} adopted")
    detail = f"no order of this account has charge {', '.join(charge_ids)}"
    logger.info("notification delivery %s ignored: %s", delivery.pk, detail)
    return Result.of(DeliveryOutcome.IGNORED, detail)


def _secrets() -> tuple[str, ...]:
    conf = get_settings()
    return (*conf.notification_tokens, conf.token or "")


def _trusts(delivery: NotificationDelivery, order_id: str) -> bool:
    """Only a verified Order (one with its id) is ever synced as is."""
    return get_settings().notification_trust_body and delivery.valid is True and bool(order_id)


def _log_failure(delivery: NotificationDelivery, order_id: str, failure: Exception) -> None:
    logger.warning(
        "notification delivery %s for %s failed (%s); the provider will retry",
        delivery.pk,
        order_id or delivery.order_provider_id or "its charges' order",
        type(failure).__name__,
        exc_info=failure,
    )


def receive_delivery(
    delivery: NotificationDelivery,
    payload: dict[str, Any],
    order_id: str,
    *,
    client: OrderPayClient | None = None,
) -> Result:
    """Record a verified delivery (not saved yet) and process it, in one transaction.

    ``payload`` and ``order_id`` are the body as the checks read it. The
    delivery is saved whatever happens: as processed, duplicate or ignored
    with the state it applied, or, after a rollback, as failed (or rejected)
    in a transaction of its own. A copy of a body already processed is
    recorded as a duplicate and not processed again.
    """
    trust_body = _trusts(delivery, order_id)

    def attempt() -> Result:
        # Run twice if a deadlock ended the first: its claim was rolled back with it.
        delivery.pk = None
        delivery._state.adding = True
        with sync_transaction():
            checkout = is_checkout(order_id)
            claimed, order = recording.claim(delivery, "" if checkout else order_id)
            if not claimed:
                recording.record_duplicate(delivery)
                return Result.of(DeliveryOutcome.DUPLICATE, "a copy of a processed delivery")
            if checkout:
                return _apply_checkout(
                    delivery, payload, order_id, trust_body=trust_body, client=client
                )
            return _apply(
                delivery, payload, order_id, trust_body=trust_body, client=client, order=order
            )

    try:
        return once_more_on_conflict(attempt)
    except SyncError as exc:
        if trust_body:
            # A verified body the provider will send again unchanged: retrying can't help.
            recording.record_after_rollback(delivery, DeliveryOutcome.REJECTED, str(exc))
            return Result(DeliveryOutcome.REJECTED, str(exc), 400)
        failure: Exception = exc
    except Exception as exc:
        failure = exc
    _log_failure(delivery, order_id, failure)
    error, trace = recording.describe(failure, _secrets())
    recording.record_after_rollback(delivery, DeliveryOutcome.FAILED, error, trace)
    return Result.of(DeliveryOutcome.FAILED, "processing failed")


def process_delivery(
    delivery: NotificationDelivery, *, client: OrderPayClient | None = None
) -> Result:
    """Process (or re-process) one recorded delivery; never raises for the delivery's sake.

    The order's state is re-fetched (``GET /orders/{id}``) through
    ``client`` (default: this thread's client for the settings) unless
    ``NOTIFICATION_TRUST_BODY`` is on *and* the delivery's authenticity token
    was verified *and* the body is an Order with its id. A rejected
    delivery is not processed again: its token can't be checked twice (the
    log does not keep it).
    """
    if delivery.outcome == DeliveryOutcome.REJECTED:
        return Result(DeliveryOutcome.REJECTED, "a rejected delivery is not processed", 400)
    try:
        payload, order_id = _stored_order(delivery)
    except Rejected as rejected:
        recording.record_rejection(delivery, f"{rejected.field}: {rejected.message}")
        return Result(DeliveryOutcome.REJECTED, rejected.message, rejected.status)
    trust_body = _trusts(delivery, order_id)
    as_read = recording.attempt_fields(delivery)

    def attempt() -> Result:
        # Run twice if a deadlock ended the first: the row is back as it was read.
        recording.restore_attempt_fields(delivery, as_read)
        with sync_transaction():
            claim, copy_of = recording.claim_recorded(delivery)
            if claim == recording.Claim.COPY:
                detail = f"{recording.COPY_OF}{copy_of}"
                recording.mark_outcome(delivery, DeliveryOutcome.DUPLICATE, detail)
                return Result.of(DeliveryOutcome.DUPLICATE, detail)
            if claim == recording.Claim.MOVED:
                # Another process (a worker, a replay) got to it since it was read.
                return Result.of(delivery.outcome, delivery.error)
            if is_checkout(order_id):
                return _apply_checkout(
                    delivery, payload, order_id, trust_body=trust_body, client=client
                )
            return _apply(delivery, payload, order_id, trust_body=trust_body, client=client)

    try:
        return once_more_on_conflict(attempt)
    except SyncError as exc:
        if trust_body:
            recording.record_rejection(delivery, str(exc))
            return Result(DeliveryOutcome.REJECTED, str(exc), 400)
        failure: Exception = exc
    except Exception as exc:
        failure = exc
    _log_failure(delivery, order_id, failure)
    recording.record_failure(delivery, failure, _secrets())
    return Result.of(DeliveryOutcome.FAILED, "processing failed")


def _stored_order(delivery: NotificationDelivery) -> tuple[dict[str, Any], str]:
    """The recorded body as an Order and the id it names (:class:`Rejected` if it is not).

    An unverified body longer than the log keeps is cut: it was never to be
    trusted anyway, so the order it named (``order_provider_id``) is all
    processing needs; it is fetched.
    """
    body = bytes(delivery.body)
    if delivery.valid is not True and len(body) < delivery.body_size:
        if not delivery.order_provider_id:
            raise Rejected(
                400,
                "body_cut",
                "an unverified body over the kept size that names no order id",
                field="id",
            )
        return {"id": delivery.order_provider_id}, delivery.order_provider_id
    return read_order(body, valid=delivery.valid)


def process_next_received(
    *, client: OrderPayClient | None = None
) -> tuple[NotificationDelivery, Result] | None:
    """Process the oldest ``received`` delivery no other process holds; None when none is left.

    The background worker's step. The delivery's row is locked for the
    whole attempt, and rows another worker holds are skipped
    (``SELECT ... FOR UPDATE SKIP LOCKED``), so workers share a backlog
    without waiting on each other; the attempt is :func:`process_delivery`'s,
    in a savepoint of this transaction (a failure is written in it after the
    savepoint rolls back). Every attempt leaves the delivery ``received`` no
    more: processed, duplicate, ignored, rejected or failed, so a worker
    calling this until it answers None never takes one twice.
    """
    with sync_transaction():
        delivery = (
            NotificationDelivery.objects.select_for_update(skip_locked=True)
            .filter(outcome=DeliveryOutcome.RECEIVED)
            .order_by("pk")
            .first()
        )
        if delivery is None:
            return None
        return delivery, process_delivery(delivery, client=client)
