"""A hosted checkout's refresh racing its order's notification: no deadlock reaches either.

``sync_checkout`` locks the checkout's row and then each order it lists;
an order's own sync (a notification) holds the order's row and then updates
its checkout (the ``paid_at`` claim of ``checkout_paid``). The two lock in
opposite orders, so PostgreSQL can fail one of them with "deadlock
detected"; each runs its transaction once more (``once_more_on_conflict``).

Which one PostgreSQL fails is decided by ``deadlock_timeout``: a waiting
transaction looks for a circle once, that long after it began to wait, and
the first to find one is failed. The refresh begins to wait for the order
while the notification's ``GET /orders/`` is still under way; when that GET
lasts less than ``deadlock_timeout``, the refresh's look comes after the
circle closed and before the notification's: the refresh is failed.

PostgreSQL only; each party is a forked process, as in
``tests/test_lock_order_processes.py``.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test import Client

from django_orderpay import signals
from django_orderpay.models import Checkout, DeliveryOutcome, NotificationDelivery, Order
from django_orderpay.models.states import OrderStatus
from django_orderpay.services import create_checkout, refresh_checkout
from tests.test_checkouts import NOTIFY, pay
from tests.test_checkouts import request as checkout_request
from tests.test_lock_order_processes import (
    in_processes,
    postgres_only,  # noqa: F401 (autouse: skips on any other database)
    wait_for_another,
)
from tests.test_notifications_processing import post_as_provider, queued

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def notified_here(orderpay):
    orderpay(NOTIFICATION_URL=NOTIFY)


def deadlock_timeout() -> float:
    """PostgreSQL's ``deadlock_timeout`` (seconds): how long a wait lasts before it is checked."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT setting::float / 1000 FROM pg_settings WHERE name = 'deadlock_timeout'"
        )
        return float(cursor.fetchone()[0])


def paid_on_the_page(emulator, shop_object) -> tuple[Checkout, Order, dict[str, Any]]:
    """A checkout whose Pix order is mirrored WAITING, then paid: the order's notification."""
    checkout = create_checkout(checkout_request(), shop_object=shop_object)
    waiting = pay(emulator, checkout, "PIX", pay_pix=False)
    refresh_checkout(checkout)
    order = Order.objects.get(provider_id=waiting["id"])
    assert (order.checkout_id, order.status) == (checkout.pk, OrderStatus.WAITING)
    before = len(queued(emulator))
    emulator.pay_pix(waiting["qr_codes"][0]["id"])
    # The provider notifies the order and its checkout: the order's is the one raced.
    [notification] = [n for n in queued(emulator)[before:] if n["body"].startswith(b'{"id":"ORDE_')]
    return checkout, order, notification


def test_a_refresh_failed_by_a_deadlock_with_its_orders_notification_runs_again(
    orderpay_emulator, django_user_model
):
    """The notification holds the order through its GET; the refresh locks the checkout and
    waits for the order; the notification, its order now PAID, claims the checkout's
    ``paid_at`` and waits for the checkout. PostgreSQL fails the refresh, which runs again."""
    purchase = django_user_model.objects.create_user("purchase-lock")
    checkout, order, notification = paid_on_the_page(orderpay_emulator, purchase)
    # Under deadlock_timeout: the refresh, waiting first, checks for a circle after it formed.
    slow_get = 0.6 * deadlock_timeout()
    orderpay_emulator.control("POST", "latency", {"seconds": slow_get, "path_prefix": "/orders/"})
    heard: list[str] = []  # each forked process fills its own copy

    def paid(sender: Any, checkout: Checkout, order: Order, **kwargs: Any) -> None:
        heard.append(order.provider_id)

    def notify() -> tuple[int, list[str]]:
        return post_as_provider(Client(), notification).status_code, heard

    def refresh() -> tuple[str, list[str]]:
        wait_for_another("state = 'idle in transaction'")  # the notification holds the order
        return refresh_checkout(checkout.provider_id).provider_id, heard

    signals.checkout_paid.connect(paid)
    try:
        outcomes, reruns = in_processes(notify, refresh)
    finally:
        signals.checkout_paid.disconnect(paid)

    # Each answers with what it heard: the notification claimed paid_at once the refresh
    # was failed, and the refresh's second run found it claimed.
    notified, refreshed = (200, [order.provider_id]), (checkout.provider_id, [])
    assert (outcomes, reruns) == ([notified, refreshed], 1), outcomes
    delivery = NotificationDelivery.objects.get()
    assert (delivery.outcome, delivery.error) == (DeliveryOutcome.PROCESSED, "")
    assert Order.objects.get(pk=order.pk).status == OrderStatus.PAID
    assert Checkout.objects.get(pk=checkout.pk).paid_at is not None
