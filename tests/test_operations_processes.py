"""Several processes making the same payment or refund at once, under faults: money moves once.

A double click, a task retried on another worker, a customer on two tabs:
each is another process calling the same service for the same operation,
with its own database connection. PostgreSQL only (the operation row's lock
and unique sequence are what serialise them; SQLite in memory has no second
process). Each process is a forked copy of this one, so it shares the
settings and reaches the emulator served here over HTTP.
"""

from __future__ import annotations

import multiprocessing
import traceback
from collections.abc import Callable

import pytest
from django.db import connection, connections

from django_orderpay.client import client_from_settings, get_client
from django_orderpay.exceptions import OrderPayError
from django_orderpay.models import Charge, Operation
from django_orderpay.services import cancel_charge, capture_charge, create_order, pay_order
from tests.test_services_support import charge, order_payload

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

PROCESSES = 4
CALLS = 5


@pytest.fixture(autouse=True)
def postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip("several processes need PostgreSQL (DATABASE_URL=postgres://...)")


def run_in_processes(call: Callable[[], object]) -> list[str]:
    """``call`` in PROCESSES forked processes released together; each one's outcome."""
    context = multiprocessing.get_context("fork")
    start = context.Barrier(PROCESSES)
    results = context.Queue()
    connections.close_all()  # a child must never share the parent's socket

    def child() -> None:
        outcome = "no answer"
        try:
            start.wait(timeout=30)
            for _ in range(CALLS):
                try:
                    call()
                    outcome = "answered"
                    break
                except OrderPayError as error:
                    outcome = f"{type(error).__name__}"
        except Exception:
            outcome = "foreign: " + traceback.format_exc()
        finally:
            connections.close_all()
            results.put(outcome)

    workers = [context.Process(target=child) for _ in range(PROCESSES)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    return [results.get(timeout=5) for _ in workers]


@pytest.fixture
def faults(orderpay_emulator, orderpay):
    orderpay(TIMEOUT=0.3)

    def inject(prefix: str) -> None:
        # The first attempts act and lose their answers; the next are refused by a gateway.
        orderpay_emulator.inject_fault("timeout", 2, delay=1.0, path_prefix=prefix)
        orderpay_emulator.inject_fault("http_403_json", 2, path_prefix=prefix)

    return inject


def test_a_refund_asked_by_several_processes_at_once_refunds_once(orderpay_emulator, faults):
    row = create_order(order_payload("proc-1", charges=[charge(2000)])).charges.get()
    faults("/charges/")

    outcomes = run_in_processes(
        lambda: cancel_charge(
            Charge.objects.get(pk=row.pk), 300, client=client_from_settings(backoff=0)
        )
    )

    assert not [o for o in outcomes if o.startswith("foreign")], outcomes
    assert "answered" in outcomes
    provider = get_client().get_charge(row.provider_id)
    assert provider["amount"]["summary"]["refunded"] == 300
    [operation] = Operation.objects.filter(kind="cancel")
    assert operation.state == "succeeded"
    row.refresh_from_db()
    assert row.amount_refunded == 300


def test_an_order_created_by_several_processes_at_once_is_charged_once(orderpay_emulator, faults):
    faults("/orders")

    outcomes = run_in_processes(
        lambda: create_order(
            order_payload("proc-2", charges=[charge(500)]), client=client_from_settings(backoff=0)
        )
    )

    assert not [o for o in outcomes if o.startswith("foreign")], outcomes
    assert "answered" in outcomes
    assert len(orderpay_emulator.order_ids()) == 1
    [operation] = Operation.objects.all()
    assert operation.state == "succeeded"
    assert operation.order.charges.get().status == "PAID"


def test_an_order_paid_by_several_processes_at_once_is_charged_once(orderpay_emulator, faults):
    order = create_order(order_payload("proc-3"))
    faults(f"/orders/{order.provider_id}/pay")

    outcomes = run_in_processes(
        lambda: pay_order(order, [charge(500)], client=client_from_settings(backoff=0))
    )

    assert not [o for o in outcomes if o.startswith("foreign")], outcomes
    assert "answered" in outcomes
    [paid] = get_client().get_order(order.provider_id)["charges"]
    assert paid["status"] == "PAID"
    [operation] = Operation.objects.filter(kind="pay")
    assert operation.state == "succeeded"
    assert operation.charge.provider_id == paid["id"]


def test_a_capture_asked_by_several_processes_at_once_captures_once(orderpay_emulator, faults):
    row = create_order(order_payload("proc-4", charges=[charge(900, capture=False)])).charges.get()
    faults("/charges/")

    outcomes = run_in_processes(
        lambda: capture_charge(
            Charge.objects.get(pk=row.pk), 400, client=client_from_settings(backoff=0)
        )
    )

    assert not [o for o in outcomes if o.startswith("foreign")], outcomes
    assert "answered" in outcomes
    provider = get_client().get_charge(row.provider_id)
    assert (provider["status"], provider["amount"]["summary"]["paid"]) == ("PAID", 400)
    [operation] = Operation.objects.filter(kind="capture")
    assert operation.state == "succeeded"
