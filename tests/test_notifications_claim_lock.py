"""A notification's claim and its order's lock: one statement on PostgreSQL, two elsewhere.

``recording.claim(delivery, order_id)`` inserts the delivery as the one that
applies its body and, only if it went in, locks the order it names. The
lock must come after the insert (a copy waits on the first copy's claim
before it asks for anything else, as with two statements) and must not be
taken at all by a copy whose claim is refused. Checked in real
transactions, with a second connection probing the order's lock.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import DatabaseError, connection, transaction

from django_orderpay.models import DeliveryOutcome, NotificationDelivery, Order
from django_orderpay.notifications import recording
from django_orderpay.sync import sync_transaction
from django_orderpay.testing.factories import OrderFactory

pytestmark = pytest.mark.django_db(transaction=True)

locks_rows = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="SQLite has no row locks to probe"
)
BODY = b'{"id": "ORDE_CLAIMED"}'


def _delivery() -> NotificationDelivery:
    return recording.new_delivery(
        body=BODY, headers={}, remote_addr="127.0.0.1", content_type="", valid=True
    )


def _in_thread(work: Any, timeout: float = 10) -> dict[str, Any]:
    """Run ``work()`` on its own connection; ``{"result": ...}`` or ``{"error": ...}``."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["result"] = work()
        except Exception as exc:
            outcome["error"] = exc
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), "the other connection is still waiting"
    return outcome


def _locked_elsewhere(order: Order) -> bool:
    """Whether another connection finds the order's row locked (``FOR UPDATE NOWAIT``)."""

    def probe() -> bool:
        try:
            with transaction.atomic():
                Order.objects.select_for_update(nowait=True).get(pk=order.pk)
        except DatabaseError:
            return True
        return False

    return _in_thread(probe)["result"]


def test_a_claim_for_a_mirrored_order_goes_in_and_hands_over_its_row():
    order = OrderFactory(provider_id="ORDE_CLAIMED")
    delivery = _delivery()

    with sync_transaction():
        claimed, locked = recording.claim(delivery, order.provider_id)

    assert claimed is True
    assert locked is not None and locked.pk == order.pk and locked.data == order.data
    stored = NotificationDelivery.objects.get(pk=delivery.pk)
    assert (stored.outcome, stored.attempts) == (DeliveryOutcome.PROCESSED, 1)


def test_a_claim_for_an_order_not_mirrored_goes_in_without_one():
    OrderFactory(provider_id="ORDE_SOMEONE_ELSE")
    delivery = _delivery()

    with sync_transaction():
        assert recording.claim(delivery, "ORDE_CLAIMED") == (True, None)

    assert NotificationDelivery.objects.filter(pk=delivery.pk).exists()


def test_a_copy_s_claim_is_refused_and_inserts_nothing():
    order = OrderFactory(provider_id="ORDE_CLAIMED")
    with sync_transaction():
        assert recording.claim(_delivery(), order.provider_id)[0]
    copy = _delivery()

    with sync_transaction():
        assert recording.claim(copy, order.provider_id) == (False, None)

    assert copy.pk is None
    assert NotificationDelivery.objects.count() == 1


@locks_rows
def test_the_claim_holds_the_order_s_lock_until_its_transaction_ends():
    order = OrderFactory(provider_id="ORDE_CLAIMED")

    with sync_transaction():
        recording.claim(_delivery(), order.provider_id)
        assert _locked_elsewhere(order)

    assert not _locked_elsewhere(order)


@locks_rows
def test_a_refused_copy_takes_no_lock():
    order = OrderFactory(provider_id="ORDE_CLAIMED")
    with sync_transaction():
        recording.claim(_delivery(), order.provider_id)

    with sync_transaction():
        assert recording.claim(_delivery(), order.provider_id) == (False, None)
        assert not _locked_elsewhere(order)


@locks_rows
def test_a_copy_waits_for_the_first_claim_and_locks_only_once_that_rolls_back():
    order = OrderFactory(provider_id="ORDE_CLAIMED")
    claimed_first = threading.Event()
    roll_back = threading.Event()

    class RolledBack(Exception):
        pass

    def first() -> None:
        try:
            with sync_transaction():
                recording.claim(_delivery(), order.provider_id)
                claimed_first.set()
                assert roll_back.wait(10)
                raise RolledBack
        except RolledBack:
            pass
        finally:
            connection.close()

    holder = threading.Thread(target=first)
    holder.start()
    assert claimed_first.wait(10)

    def copy() -> tuple[bool, Order | None]:
        with sync_transaction():
            return recording.claim(_delivery(), order.provider_id)

    waiting: dict[str, Any] = {}
    second = threading.Thread(target=lambda: waiting.update(_in_thread(copy, timeout=20)))
    second.start()
    second.join(0.5)
    assert second.is_alive()  # waiting on the first claim's uncommitted row
    roll_back.set()
    holder.join(10)
    second.join(20)

    assert "error" not in waiting, waiting.get("error")
    claimed, locked = waiting["result"]
    assert claimed is True and locked is not None and locked.pk == order.pk
    assert NotificationDelivery.objects.count() == 1
