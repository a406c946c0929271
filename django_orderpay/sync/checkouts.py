"""Checkouts in: the checkout's row, the orders its page made, and what that tells the shop.

:func:`sync_checkout` mirrors a Checkout answer under the checkout's row
lock: its status (EXPIRED is final: a late ACTIVE copy never revives it),
and each order it lists, synced as any order and linked to it
(:func:`link_order`), taking the checkout's shop object and user. An order
already mirrored without a shop object (adopted from its own notification
before the checkout was seen) joins the checkout's purchase then, and a
payment it holds is checked for duplicates as if it had just been paid.

:func:`announce` decides the checkout's signals, once each (a conditional
update of ``paid_at`` or ``expired_announced_at`` is the claim):
``checkout_paid`` when an order of it is first seen paid;
``checkout_expired`` once it is EXPIRED with nothing paid and nothing
pending. The order sync calls it when an order of a checkout changes.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import models
from django.utils import timezone

from ..models import (
    ChangeSource,
    Charge,
    ChargeStatus,
    Checkout,
    CheckoutStatus,
    ConnectedAccount,
    Order,
)
from ..models.states import OrderStatus
from ..signals import announce_checkout_expired, announce_checkout_paid, announce_duplicates_of
from .inserting import insert_new
from .locking import once_more_on_conflict, sync_transaction
from .orders import lock_order, sync_order
from .parse import SyncError
from .parse.checkouts import CheckoutState, parse_checkout

logger = logging.getLogger("django_orderpay.sync")

#: An order in one of these may still bring money: a checkout holding one is not "expired".
PENDING_ORDER_STATUSES = frozenset(
    {OrderStatus.AUTHORIZED, OrderStatus.IN_ANALYSIS, OrderStatus.WAITING}
)


def lock_checkout(provider_id: str) -> Checkout | None:
    """The mirrored checkout ``provider_id``, its row locked until the transaction ends."""
    return Checkout.objects.select_for_update().filter(provider_id=provider_id).first()


def _lock_or_create(
    state: CheckoutState, user: Any, shop_object: models.Model | None, account_id: int | None
) -> tuple[Checkout, bool]:
    found = lock_checkout(state.provider_id)
    if found is not None:
        return found, False
    checkout = Checkout(
        provider_id=state.provider_id,
        data=state.data,
        synced_at=timezone.now(),
        account_id=account_id,
    )
    _apply(checkout, state)
    checkout.claim(user, shop_object)
    if insert_new([checkout]):
        return checkout, True
    winner = lock_checkout(state.provider_id)  # inserted by a concurrent sync meanwhile
    if winner is None:
        raise Checkout.DoesNotExist(f"checkout {state.provider_id} is gone")
    return winner, False


def _apply(checkout: Checkout, state: CheckoutState) -> None:
    for name, value in state.columns.items():
        if name == "status" and checkout.status == CheckoutStatus.EXPIRED:
            continue  # EXPIRED is final: a late copy saying ACTIVE is stale
        if value not in ("", None):
            setattr(checkout, name, value)


def sync_checkout(
    payload: dict[str, Any],
    *,
    source: str,
    user: Any = None,
    shop_object: models.Model | None = None,
    account: ConnectedAccount | None = None,
) -> Checkout:
    """Mirror a Checkout answer and the orders it lists; the checkout's row.

    ``user`` and ``shop_object`` are attached when the checkout has none yet;
    its orders take them. ``account``: the connected account whose token the
    answer came with (None: the settings' ``TOKEN``); a checkout (and its
    orders) of another account is refused. Raises :class:`~.parse.SyncError`
    naming the field of a malformed payload.
    """
    state = parse_checkout(payload)
    account_id = account.pk if account is not None else None
    # An order new to the mirror is inserted under the checkout's lock, while a
    # notification adopting it may hold its row and then lock the checkout
    # (joining it to its checkout): the two can deadlock, and the database's loser
    # runs once more (nothing is sent twice: the signals wait for the commit).
    return once_more_on_conflict(
        lambda: _sync(state, source, user, shop_object, account, account_id)
    )


def _sync(
    state: CheckoutState,
    source: str,
    user: Any,
    shop_object: models.Model | None,
    account: ConnectedAccount | None,
    account_id: int | None,
) -> Checkout:
    with sync_transaction():
        # The orders already mirrored first (by id), then the checkout: the order an
        # order's own sync takes (it holds its order, then claims its checkout's
        # paid_at). The other way round, a notification failed for the deadlock
        # could take its order again, before the waiting sync, and be failed again.
        for provider_id in sorted({str(entry["id"]) for entry in state.orders}):
            lock_order(provider_id)
        checkout, created = _lock_or_create(state, user, shop_object, account_id)
        if checkout.account_id != account_id:
            raise SyncError(
                "account",
                f"checkout {checkout.provider_id} belongs to another account than the one "
                "this answer was fetched for",
            )
        if not created:
            _apply(checkout, state)
            checkout.claim(user, shop_object)
            checkout.data = state.data
            checkout.synced_at = timezone.now()
            checkout.save()
        owner = checkout.shop_object if checkout.content_type_id is not None else None
        for entry in state.orders:
            known = Order.objects.filter(provider_id=entry["id"]).values("content_type_id").first()
            order = sync_order(
                dict(entry),
                source=source,
                user=checkout.user,
                shop_object=owner,
                account=account,
            )
            joined = known is not None and known["content_type_id"] is None and owner is not None
            link_order(checkout, order, source, joined_purchase=joined)
        announce(checkout, source)
    return checkout


def link_order(
    checkout: Checkout, order: Order, source: str, *, joined_purchase: bool = False
) -> None:
    """``order`` was made on ``checkout``'s page: say so (once), in the caller's transaction.

    ``joined_purchase``: the order has just taken the checkout's shop object,
    after its payment was mirrored; a payment it holds is then checked for
    duplicates of the purchase (it was not, when it was paid).
    """
    if order.checkout_id != checkout.pk:
        Order.objects.filter(pk=order.pk).update(checkout=checkout)
        order.checkout = checkout
    if joined_purchase:
        for charge in Charge.objects.filter(order=order, status=ChargeStatus.PAID):
            announce_duplicates_of(charge, source)


def announce(checkout: Checkout, source: str = ChangeSource.SYNC) -> None:
    """Claim and send ``checkout_paid`` / ``checkout_expired`` if their time has come."""
    statuses = dict(checkout.orders.values_list("pk", "status"))
    now = timezone.now()
    if checkout.paid_at is None:
        paid = next((pk for pk, status in statuses.items() if status == OrderStatus.PAID), None)
        claimed = paid is not None and Checkout.objects.filter(
            pk=checkout.pk, paid_at__isnull=True
        ).update(paid_at=now)
        if claimed:
            checkout.paid_at = now
            announce_checkout_paid(checkout, Order.objects.get(pk=paid or 0), source)
    pending = any(status in PENDING_ORDER_STATUSES for status in statuses.values())
    if (
        checkout.status == CheckoutStatus.EXPIRED
        and checkout.paid_at is None
        and checkout.expired_announced_at is None
        and not pending
        and Checkout.objects.filter(pk=checkout.pk, expired_announced_at__isnull=True).update(
            expired_announced_at=now
        )
    ):
        checkout.expired_announced_at = now
        announce_checkout_expired(checkout, source)


def order_changed(order: Order, source: str) -> None:
    """An order of a checkout changed status (its own sync): the checkout's signals may be due."""
    checkout = Checkout.objects.filter(pk=order.checkout_id or 0).first()
    if checkout is not None:
        announce(checkout, source)
