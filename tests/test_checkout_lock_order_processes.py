"""A hosted checkout's sync racing its orders' notifications: no deadlock reaches either.

An order's own sync (a notification) holds the order's row and then claims
its checkout's ``paid_at`` (``checkout_paid``). A checkout's sync used to
lock the checkout and then each order it lists: the two waited for each
other in a circle and PostgreSQL failed one with "deadlock detected".
Which one is decided by ``deadlock_timeout``: a waiting transaction looks
for a circle once, that long after it began to wait, and the first to find
one is failed. The refresh waits first (for the order, while the
notification's ``GET /orders/`` is under way): a GET shorter than
``deadlock_timeout`` got the refresh failed, a longer one the notification,
whose second run could lock the order again before the refresh (woken, not
yet running) and be failed a second time, answering 500. The checkout's
sync now locks the orders already mirrored before the checkout; only an
order new to the mirror is still inserted under the checkout's lock, and
that circle is ended by ``once_more_on_conflict``.

PostgreSQL only; each party is a forked process, as in
``tests/test_lock_order_processes.py``.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test import Client

from django_orderpay import signals
from django_orderpay.client import get_client
from django_orderpay.models import (
    ChangeSource,
    Checkout,
    DeliveryOutcome,
    NotificationDelivery,
    Order,
)
from django_orderpay.models.states import OrderStatus
from django_orderpay.services import create_checkout, refresh_checkout
from django_orderpay.sync import sync_checkout
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


class CheckoutPaid:
    """``checkout_paid`` as heard in each forked process (each fills its own copy)."""

    def __init__(self) -> None:
        self.orders: list[str] = []

    def __call__(self, sender: Any, checkout: Checkout, order: Order, **kwargs: Any) -> None:
        self.orders.append(order.provider_id)

    def __enter__(self) -> CheckoutPaid:
        signals.checkout_paid.connect(self)
        return self

    def __exit__(self, *exc: object) -> None:
        signals.checkout_paid.disconnect(self)


def waited_for_a_lock() -> str:
    """A third process: it sees another connection wait for a row (the race did happen)."""
    wait_for_another("wait_event_type = 'Lock'")
    return "seen"


@pytest.mark.parametrize("get_lasts", [0.6, 1.5], ids=["get-under-timeout", "get-over-timeout"])
def test_a_refresh_and_its_orders_notification_never_wait_in_a_circle(
    orderpay_emulator, django_user_model, get_lasts
):
    """The notification holds the order through a slow GET, then (the order now PAID)
    claims its checkout's ``paid_at``; the refresh waits for the order before it locks
    the checkout: no circle, nothing run again, whether the GET outlasts
    ``deadlock_timeout`` or not."""
    purchase = django_user_model.objects.create_user("purchase-lock")
    checkout, order, notification = paid_on_the_page(orderpay_emulator, purchase)
    slow_get = get_lasts * deadlock_timeout()
    orderpay_emulator.control("POST", "latency", {"seconds": slow_get, "path_prefix": "/orders/"})

    with CheckoutPaid() as heard:

        def notify() -> tuple[int, list[str]]:
            return post_as_provider(Client(), notification).status_code, heard.orders

        def refresh() -> tuple[str, list[str]]:
            wait_for_another("state = 'idle in transaction'")  # the notification holds the order
            return refresh_checkout(checkout.provider_id).provider_id, heard.orders

        outcomes, reruns = in_processes(notify, refresh, waited_for_a_lock)

    # Each says what it heard: the notification claimed paid_at; the refresh found it claimed.
    notified, refreshed = (200, [order.provider_id]), (checkout.provider_id, [])
    assert (outcomes, reruns) == ([notified, refreshed, "seen"], 0), outcomes
    delivery = NotificationDelivery.objects.get()
    assert (delivery.outcome, delivery.error) == (DeliveryOutcome.PROCESSED, "")
    assert Order.objects.get(pk=order.pk).status == OrderStatus.PAID
    assert Checkout.objects.get(pk=checkout.pk).paid_at is not None


def test_a_checkout_sync_failed_by_a_deadlock_with_a_notification_adopting_its_order_runs_again(
    orderpay_emulator, django_user_model
):
    """An order paid on the page, not mirrored yet: its notification inserts it and then
    joins it to its checkout (``GET /checkouts/``, slow here), locking the checkout; the
    checkout's sync (its answer in hand, as ``refresh_checkout`` after its GET) locks the
    checkout, then waits to insert the same order. The one circle left: PostgreSQL fails
    the sync (it waited first, for less than ``deadlock_timeout``), which runs once more."""
    purchase = django_user_model.objects.create_user("purchase-adopt")
    checkout = create_checkout(checkout_request(), shop_object=purchase)
    before = len(queued(orderpay_emulator))
    paid = pay(orderpay_emulator, checkout)
    [notification] = [
        n for n in queued(orderpay_emulator)[before:] if n["body"].startswith(b'{"id":"ORDE_')
    ]
    answer = get_client().get_checkout(checkout.provider_id)
    assert [entry["id"] for entry in answer["orders"]] == [paid["id"]]
    slow_get = 0.6 * deadlock_timeout()
    orderpay_emulator.control(
        "POST", "latency", {"seconds": slow_get, "path_prefix": "/checkouts/"}
    )

    with CheckoutPaid() as heard:

        def notify() -> tuple[int, list[str]]:
            return post_as_provider(Client(), notification).status_code, heard.orders

        def sync() -> tuple[str, list[str]]:
            # The notification has inserted the order and asks for its checkout.
            wait_for_another(
                "state = 'idle in transaction' AND query LIKE '%\"django_orderpay_checkout\"%'"
            )
            synced = sync_checkout(answer, source=ChangeSource.SYNC)
            return synced.provider_id, heard.orders

        outcomes, reruns = in_processes(notify, sync)

    notified, synced = (200, [paid["id"]]), (checkout.provider_id, [])
    assert (outcomes, reruns) == ([notified, synced], 1), outcomes
    delivery = NotificationDelivery.objects.get()
    assert delivery.outcome == DeliveryOutcome.PROCESSED
    order = Order.objects.get(provider_id=paid["id"])
    assert (order.checkout_id, order.shop_object, order.status) == (
        checkout.pk,
        purchase,
        OrderStatus.PAID,
    )
    assert Checkout.objects.get(pk=checkout.pk).paid_at is not None
