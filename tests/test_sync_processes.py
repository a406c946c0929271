"""Two processes mirroring the same order at once: the order's row lock keeps both updates.

A capture's or cancel's answer (``sync_charge``) and a pay's answer or a
notification (``sync_order``) can be mirrored by two processes at the same
moment. Each locks the order's row before it reads it, so the second waits
and then reads what the first wrote; without that lock the second writes
back the order as it read it before the first committed (its JSON and
status without the first one's new charge). PostgreSQL only (SQLite in
memory has no second process). Each process is a forked copy of this one.
"""

from __future__ import annotations

import multiprocessing
import time
import traceback
from collections.abc import Callable

import pytest
from django.db import connection, connections
from django.db.models.signals import pre_save

from django_orderpay.client import get_client
from django_orderpay.models import Charge, Order
from django_orderpay.services import create_order
from django_orderpay.sync import sync_charge, sync_order
from tests.test_services_support import charge, order_payload

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip("several processes need PostgreSQL (DATABASE_URL=postgres://...)")


def waiting_on_a_lock() -> int:
    """How many other sessions of this database wait for a lock now."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE wait_event_type = 'Lock' AND datname = current_database()"
        )
        return cursor.fetchone()[0]


def test_a_charge_mirrored_while_a_pay_is_mirrored_keeps_the_new_charge(orderpay_emulator):
    order = create_order(order_payload("lock-1", charges=[charge(800, capture=False)]))
    first = order.charges.get()
    # At the provider: the authorisation is voided, then the order paid by another card.
    # Neither answer is mirrored yet; two processes mirror them at once.
    voided = get_client().cancel_charge(first.provider_id, 800)
    paid = get_client().pay_order(order.provider_id, {"charges": [charge(800)]})
    [second_id] = [c["id"] for c in paid["charges"] if c["id"] != first.provider_id]

    context = multiprocessing.get_context("fork")
    holding, release = context.Event(), context.Event()
    outcomes = context.Queue()
    connections.close_all()  # a child must never share the parent's socket

    def child(name: str, work: Callable[[], object]) -> None:
        outcome = "done"
        try:
            work()
        except Exception:
            outcome = traceback.format_exc()
        finally:
            connections.close_all()
            outcomes.put((name, outcome))

    def mirror_the_pay() -> None:
        def hold(sender, instance, **kwargs):
            # The order's closing write is queued: its row and its charges are locked,
            # the new charge inserted, nothing committed yet.
            holding.set()
            release.wait(30)

        pre_save.connect(hold, sender=Order, weak=False)
        sync_order(paid, source="api")

    pay = context.Process(target=child, args=("pay", mirror_the_pay))
    void = context.Process(target=child, args=("void", lambda: sync_charge(voided, source="api")))
    pay.start()
    try:
        assert holding.wait(30), "the pay's sync never reached its closing write"
        void.start()
        # The void's sync waits for a lock the pay's transaction holds (the order's row;
        # were the order not locked, its charge's row, after reading the order unlocked).
        deadline = time.monotonic() + 30
        while not waiting_on_a_lock():
            assert time.monotonic() < deadline, "the void's sync never waited for a lock"
            time.sleep(0.02)
    finally:
        release.set()
        pay.join(60)
        if void.pid is not None:
            void.join(60)
    results = dict(outcomes.get(timeout=5) for _ in range(2))

    assert results == {"pay": "done", "void": "done"}
    order.refresh_from_db()
    assert order.status == "PAID"
    assert [c["id"] for c in order.data["charges"]] == [first.provider_id, second_id]
    assert dict(Charge.objects.filter(order=order).values_list("provider_id", "status")) == {
        first.provider_id: "CANCELED",
        second_id: "PAID",
    }
