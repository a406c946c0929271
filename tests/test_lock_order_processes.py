"""No deadlock reaches a caller or a notification: one lock order, and once more on conflict.

A capture, a refund or a payment can be called while the provider's
notification of it is being applied: by the shop's own code in several
processes (gunicorn workers), inside the caller's own transaction or not.
PostgreSQL fails one of two transactions that wait for each other in a
circle ("deadlock detected"); the package takes its row locks in one order
(``django_orderpay.sync.locking``) so that never happens among its own
transactions, and runs its own transaction once more when a transaction of
the shop's, locking in another order, makes it the one that failed.

PostgreSQL only: SQLite has no row locks. Each party is a forked process
with its own connection, as gunicorn's workers are; the emulator (served by
this process) answers them all.
"""

from __future__ import annotations

import logging
import multiprocessing
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.db import DatabaseError, connection, connections, transaction
from django.test import Client

from django_orderpay.client import client_from_settings, get_client
from django_orderpay.exceptions import OutcomeUnknown
from django_orderpay.models import (
    Charge,
    ChargeStatusChange,
    DeliveryOutcome,
    NotificationDelivery,
    Operation,
    Order,
)
from django_orderpay.services import cancel_charge, capture_charge, create_order, pay_order
from django_orderpay.services._bodies import pay_body
from django_orderpay.sync import lock_order, sync_transaction
from tests.test_notifications_processing import post_as_provider, queued
from tests.test_services_support import charge, order_payload

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

KEY = "shop-call-1"
#: How long the provider takes to answer the notification's GET of the order:
#: the notification holds the order's lock that long.
SLOW_GET = 1.5


@pytest.fixture(autouse=True)
def postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip("row locks and several processes need PostgreSQL (DATABASE_URL=postgres://...)")


class Reruns(logging.Handler):
    """Counts the package's transactions run once more after the database failed them."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if "running it again" in record.getMessage():
            self.count += 1


def in_processes(
    *works: Callable[[], Any],
    timeout: float = 60,
    meanwhile: Callable[[], None] | None = None,
) -> tuple[list[Any], int]:
    """Each of ``works`` in a forked process, released together: what each returned, and
    how many of the package's transactions a deadlock made run again (in all of them).

    A process whose work raised answers ``"<ExceptionName>: <message>"``.
    ``meanwhile`` runs in this process while they work (before they are awaited).
    """
    context = multiprocessing.get_context("fork")
    start = context.Barrier(len(works))
    results = context.Queue()
    connections.close_all()  # a child must never share the parent's socket

    def child(index: int, work: Callable[[], Any]) -> None:
        outcome: Any
        reruns = Reruns()
        logging.getLogger("django_orderpay.sync").addHandler(reruns)
        try:
            start.wait(timeout=30)
            outcome = work()
        except Exception as error:
            outcome = f"{type(error).__name__}: {error}\n{traceback.format_exc()}"
        finally:
            connections.close_all()
        results.put((index, outcome, reruns.count))

    processes = [context.Process(target=child, args=item) for item in enumerate(works)]
    for process in processes:
        process.start()
    if meanwhile is not None:
        meanwhile()
    for process in processes:
        process.join(timeout)
    answers = [results.get(timeout=5) for _ in processes]
    outcomes = dict((index, outcome) for index, outcome, _ in answers)
    return [outcomes[index] for index in range(len(works))], sum(count for *_, count in answers)


def wait_for_another(condition: str, timeout: float = 20) -> None:
    """Wait until another connection to this database is in ``condition`` (SQL on
    ``pg_stat_activity``): idle inside its transaction, or waiting for a lock."""
    deadline = time.monotonic() + timeout
    # Only this module's constant conditions are formatted in.
    sql = (
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
        f" AND pid <> pg_backend_pid() AND {condition}"
    )
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(sql)
            if cursor.fetchone()[0]:
                return
            time.sleep(0.02)
    raise AssertionError(f"no other connection became {condition}")


@dataclass
class Scenario:
    """A money-moving call of one kind, on a fresh order, and how to check it moved once."""

    kind: str
    charge: Charge | None
    order: Order

    @classmethod
    def make(cls, kind: str, reference: str) -> Scenario:
        if kind == "capture":
            body = order_payload(reference, charges=[charge(900, capture=False)])
        elif kind == "refund":
            body = order_payload(reference, charges=[charge(900)])
        else:
            body = order_payload(reference)
        order = create_order(body)
        return cls(kind, order.charges.first(), order)

    def call(self, *, client: Any = None, key: str = KEY) -> Any:
        """The service call, on rows read afresh (as another process has them)."""
        client = client or client_from_settings(backoff=0)
        if self.kind == "capture":
            row = Charge.objects.get(pk=self.charge.pk)
            return capture_charge(row, idempotency_key=key, client=client)
        if self.kind == "refund":
            row = Charge.objects.get(pk=self.charge.pk)
            return cancel_charge(row, 300, idempotency_key=key, client=client)
        order = Order.objects.get(pk=self.order.pk)
        return pay_order(order, [charge(500)], idempotency_key=key, client=client)

    def by_the_provider(self) -> None:
        """The provider acts on ``KEY`` before any caller here heard of it."""
        api = get_client()
        if self.kind == "capture":
            api.capture_charge(self.charge.provider_id, 900, idempotency_key=KEY)
        elif self.kind == "refund":
            api.cancel_charge(self.charge.provider_id, 300, idempotency_key=KEY)
        else:
            api.pay_order(self.order.provider_id, pay_body([charge(500)]), idempotency_key=KEY)

    def fault_path(self) -> str:
        if self.kind == "pay":
            return f"/orders/{self.order.provider_id}/pay"
        return "/charges/"

    def assert_moved_once(self) -> None:
        [operation] = Operation.objects.filter(idempotency_key=KEY)
        assert operation.state == "succeeded"
        provider = get_client().get_order(self.order.provider_id)
        if self.kind == "pay":
            [paid] = provider["charges"]
            assert paid["status"] == "PAID"
            [mirrored] = Charge.objects.filter(order=self.order)
            assert (mirrored.provider_id, mirrored.status) == (paid["id"], "PAID")
            changes = ChargeStatusChange.objects.filter(charge=mirrored)
            assert [c.new_status for c in changes] == ["PAID"]
            return
        [answer] = provider["charges"]
        row = Charge.objects.get(pk=self.charge.pk)
        if self.kind == "capture":
            assert (answer["status"], answer["amount"]["summary"]["paid"]) == ("PAID", 900)
            assert row.status == "PAID"
            captured = ChargeStatusChange.objects.filter(charge=row, new_status="PAID")
            assert captured.count() == 1
        else:
            assert answer["amount"]["summary"]["refunded"] == 300
            assert (row.status, row.amount_refunded) == ("PAID", 300)


KINDS = ["capture", "refund", "pay"]


def notified(emulator, scenario: Scenario, act: Callable[[], Any]) -> dict[str, Any]:
    """The notification the provider queues when ``act()`` makes it act."""
    before = len(queued(emulator))
    act()
    time.sleep(0.1)  # a lost answer's work is done by the time its delay ends
    return queued(emulator)[before:][-1]


def left_open(emulator, scenario: Scenario) -> dict[str, Any]:
    """Call once, the provider acting and the answer lost: the operation stays open."""
    emulator.inject_fault("timeout", 1, delay=0.5, path_prefix=scenario.fault_path())
    lost = client_from_settings(backoff=0, timeout=0.2, retries=0)

    def act() -> None:
        with pytest.raises(OutcomeUnknown):
            scenario.call(client=lost)
        time.sleep(0.5)

    notification = notified(emulator, scenario, act)
    assert Operation.objects.get(idempotency_key=KEY).is_open
    return notification


@pytest.mark.parametrize("kind", KINDS)
def test_a_caller_in_its_own_transaction_and_the_notification_both_finish(orderpay_emulator, kind):
    """The notification holds the order (its GET is slow) and would settle the operation;
    the caller, inside its own ``atomic()``, holds that operation and waits for the order.
    Before the sync skipped operations held elsewhere, they waited for each other in a
    circle: PostgreSQL failed one (the caller, or the notification, run again)."""
    scenario = Scenario.make(kind, f"lock-{kind}")
    notification = left_open(orderpay_emulator, scenario)
    orderpay_emulator.control("POST", "latency", {"seconds": SLOW_GET, "path_prefix": "/orders/"})

    def notify() -> int:
        return post_as_provider(Client(), notification).status_code

    def call_in_a_transaction() -> str:
        wait_for_another("state = 'idle in transaction'")  # the notification holds the order
        with transaction.atomic():
            scenario.call()
        return "answered"

    outcomes, reruns = in_processes(notify, call_in_a_transaction)

    assert (outcomes, reruns) == ([200, "answered"], 0), outcomes
    delivery = NotificationDelivery.objects.get()
    assert (delivery.outcome, delivery.error) == (DeliveryOutcome.PROCESSED, "")
    scenario.assert_moved_once()


@pytest.mark.parametrize("kind", KINDS)
def test_callers_in_several_processes_race_the_notifications_without_an_error(
    orderpay_emulator, kind
):
    """Eight callers (half inside their own transaction) repeat a call the provider made,
    while four processes post forty copies of its notification."""
    scenario = Scenario.make(kind, f"race-{kind}")
    notification = notified(orderpay_emulator, scenario, scenario.by_the_provider)

    def call() -> str:
        scenario.call()
        return "answered"

    def call_in_a_transaction() -> str:
        with transaction.atomic():
            scenario.call()
        return "answered"

    def notify() -> list[int]:
        client = Client()
        return [post_as_provider(client, notification).status_code for _ in range(10)]

    outcomes, reruns = in_processes(*[call, call_in_a_transaction] * 4, *[notify] * 4)

    assert (outcomes, reruns) == (["answered"] * 8 + [[200] * 10] * 4, 0), outcomes
    deliveries = NotificationDelivery.objects.values_list("outcome", flat=True)
    assert sorted(set(deliveries)) == [DeliveryOutcome.DUPLICATE, DeliveryOutcome.PROCESSED]
    assert NotificationDelivery.objects.filter(outcome=DeliveryOutcome.PROCESSED).count() == 1
    scenario.assert_moved_once()


def test_a_notification_failed_by_a_deadlock_with_the_shops_own_transaction_runs_again(
    orderpay_emulator,
):
    """The shop's code locks the charge and then the order (the other way round): PostgreSQL
    fails the notification, which had waited first; it runs once more and is applied."""
    scenario = Scenario.make("capture", "lock-foreign")
    notification = notified(orderpay_emulator, scenario, scenario.by_the_provider)

    def shop_locks_the_other_way() -> str:
        with transaction.atomic():
            Charge.objects.select_for_update().get(pk=scenario.charge.pk)
            wait_for_another("wait_event_type = 'Lock'")  # the notification waits for the charge
            Order.objects.select_for_update().get(pk=scenario.order.pk)
        return "committed"

    def notify() -> int:
        wait_for_another("state = 'idle in transaction'")  # the shop holds the charge
        return post_as_provider(Client(), notification).status_code

    outcomes, reruns = in_processes(shop_locks_the_other_way, notify)

    assert (outcomes, reruns) == (["committed", 200], 1), outcomes
    delivery = NotificationDelivery.objects.get()
    assert (delivery.outcome, delivery.error) == (DeliveryOutcome.PROCESSED, "")
    assert Charge.objects.get(pk=scenario.charge.pk).status == "PAID"


def test_an_operation_naming_a_locked_order_goes_in_without_waiting(orderpay_emulator):
    """The order is locked ``FOR NO KEY UPDATE``: a new operation naming it (a foreign
    key, checked with ``FOR KEY SHARE``) is recorded while a sync holds the order, so a
    service never waits for a notification's whole attempt, nor in a circle with it."""
    scenario = Scenario.make("refund", "lock-key-share")
    recorded = multiprocessing.get_context("fork").Event()

    def hold_the_order() -> str:
        with sync_transaction():
            lock_order(scenario.order.provider_id)
            recorded.wait(timeout=30)
        return "released"

    def record_an_operation() -> str:
        wait_for_another("state = 'idle in transaction'")  # the order is held
        try:
            with transaction.atomic():
                with connection.cursor() as cursor:
                    cursor.execute("SET LOCAL lock_timeout = '2s'")
                Operation.objects.create(
                    kind="cancel",
                    scope="cancel:probe",
                    target=scenario.charge.provider_id,
                    idempotency_key="probe-key",
                    body_digest="-",
                    order=scenario.order,
                    charge=scenario.charge,
                )  # its foreign keys are checked as it commits
        except DatabaseError as error:
            return f"waited: {error}"
        finally:
            recorded.set()
        return "recorded"

    outcomes, _ = in_processes(hold_the_order, record_an_operation)

    assert outcomes == ["released", "recorded"], outcomes
