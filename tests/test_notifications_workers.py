"""Background notifications on a real queue: django-tasks-db, worker processes, one database.

The view records each delivery and wakes the workers (one drain task, a row
of django-tasks-db's table, for a burst of deliveries); ``manage.py
db_worker`` processes, started here as separate processes on this test's
database (``tests/worker_settings.py``), run them and reach the emulator
this test serves over HTTP. PostgreSQL only: other processes can't open
SQLite's in-memory test database.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import DatabaseError, connection, transaction
from django.test import Client
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from django_orderpay.models import ChargeStatusChange, DeliveryOutcome, NotificationDelivery, Order
from django_orderpay.notifications import tasks
from django_orderpay.notifications.processing import process_next_received
from django_orderpay.notifications.tasks import drain
from tests.test_notifications_processing import (
    in_analysis_order,
    post_as_provider,
    queued,
    resolve_paid,
)

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parent.parent
#: How long a worker may take before the test gives up on it (it normally takes seconds).
PATIENCE = 90


@pytest.fixture(autouse=True)
def postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip("worker processes need PostgreSQL (DATABASE_URL=postgres://...)")


@pytest.fixture
def queue(orderpay_emulator, settings):
    """Background processing through the database queue, for this process and its workers."""
    settings.ORDERPAY = {**settings.ORDERPAY, "NOTIFICATION_BACKGROUND": True}
    settings.TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    tasks.forget_drain()
    yield settings
    tasks.forget_drain()


def until_due() -> None:
    """Wait until every drain enqueued may start (a worker in --batch mode leaves early ones)."""
    latest = max(DBTaskResult.objects.values_list("run_after", flat=True))
    time.sleep(max(0.0, (latest - timezone.now()).total_seconds()) + 0.05)


def start_worker(settings, *options: str) -> subprocess.Popen:
    """``manage.py db_worker`` in a process of its own, on this test's database."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.worker_settings",
        "ORDERPAY_TEST_DATABASE": connection.settings_dict["NAME"],
        "ORDERPAY_TEST_SETTINGS": json.dumps(settings.ORDERPAY),
    }
    command = [sys.executable, "-m", "django", "db_worker", "--no-reload", "--no-startup-delay"]
    return subprocess.Popen(
        [*command, "--interval", "0.05", "--verbosity", "0", *options],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )


def finish(worker: subprocess.Popen) -> str:
    output, _ = worker.communicate(timeout=PATIENCE)
    assert worker.returncode == 0, output.decode()
    return output.decode()


def paid_orders(emulator, count: int, prefix: str = "worker") -> tuple[list[Order], list[dict]]:
    """``count`` orders the provider paid after analysis, and every notification it sent."""
    orders = [in_analysis_order(f"{prefix}-{n}") for n in range(count)]
    for order in orders:
        resolve_paid(emulator, order)
    return orders, queued(emulator)


def test_two_workers_drain_a_backlog_and_apply_each_transition_once(orderpay_emulator, queue):
    orders, notifications = paid_orders(orderpay_emulator, 8)
    client = Client()
    for notification in [*notifications, *notifications]:  # every one delivered twice
        response = post_as_provider(client, notification)
        assert response.status_code == 200
        assert response.json()["outcome"] == "received"
    # A drain per burst, not a task per delivery.
    assert 1 <= DBTaskResult.objects.count() < 2 * len(notifications)
    assert set(Order.objects.values_list("status", flat=True)) == {"IN_ANALYSIS"}
    until_due()

    workers = [start_worker(queue, "--batch") for _ in range(2)]
    for worker in workers:
        finish(worker)

    outcomes = Counter(NotificationDelivery.objects.values_list("outcome", flat=True))
    assert outcomes == {
        DeliveryOutcome.PROCESSED: len(notifications),
        DeliveryOutcome.DUPLICATE: len(notifications),
    }
    assert set(DBTaskResult.objects.values_list("status", flat=True)) == {"SUCCESSFUL"}
    assert set(Order.objects.values_list("status", flat=True)) == {"PAID"}
    paid = ChargeStatusChange.objects.filter(new_status="PAID")
    assert sorted(paid.values_list("charge__order_id", flat=True)) == sorted(o.pk for o in orders)
    assert {change.source for change in paid} == {"notification"}


def held_by_another_transaction(delivery: NotificationDelivery) -> bool:
    """Whether some transaction (a worker's claim) holds the delivery's row right now."""
    try:
        with transaction.atomic():
            list(
                NotificationDelivery.objects.select_for_update(nowait=True)
                .filter(pk=delivery.pk)
                .values_list("pk")
            )
    except DatabaseError:
        return True
    return False


def test_a_worker_skips_the_delivery_another_worker_holds(orderpay_emulator, queue):
    """Workers share a backlog without waiting on each other (SKIP LOCKED)."""
    _, notifications = paid_orders(orderpay_emulator, 2)
    client = Client()
    for notification in notifications:
        post_as_provider(client, notification)
    first, *rest = NotificationDelivery.objects.order_by("pk")
    held, release = threading.Event(), threading.Event()

    def other_worker() -> None:
        try:
            with transaction.atomic():
                NotificationDelivery.objects.select_for_update().get(pk=first.pk)
                held.set()
                release.wait(PATIENCE)
        finally:
            connection.close()

    holder = threading.Thread(target=other_worker)
    holder.start()
    try:
        assert held.wait(PATIENCE)
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '5s'")  # waiting on the holder fails the test
        taken = [process_next_received()[0].pk for _ in rest]
    finally:
        release.set()
        holder.join(PATIENCE)

    assert taken == [delivery.pk for delivery in rest]  # the held one skipped, none waited on
    first.refresh_from_db()
    assert first.outcome == DeliveryOutcome.RECEIVED
    assert process_next_received()[0].pk == first.pk  # released: the next call takes it
    assert process_next_received() is None
    assert set(Order.objects.values_list("status", flat=True)) == {"PAID"}


def test_a_worker_killed_mid_task_loses_nothing(orderpay_emulator, queue):
    [order], notifications = paid_orders(orderpay_emulator, 1)
    paid = notifications[-1]
    post_as_provider(Client(), paid)
    delivery = NotificationDelivery.objects.get()
    # The worker's re-fetch of the order will hang, its claim held, until it is killed.
    orderpay_emulator.control("POST", "latency", {"seconds": 30, "path_prefix": "/orders/"})
    worker = start_worker(queue)
    try:
        deadline = time.monotonic() + PATIENCE
        while not held_by_another_transaction(delivery):
            assert worker.poll() is None, worker.communicate()[0].decode()
            assert time.monotonic() < deadline, "the worker never claimed the delivery"
            time.sleep(0.05)
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=PATIENCE)
    finally:
        orderpay_emulator.control("POST", "latency", {"seconds": 0})
        if worker.poll() is None:
            worker.kill()
            worker.wait()

    # Its transaction died with it: nothing applied, the delivery still waits.
    delivery.refresh_from_db()
    assert delivery.outcome == DeliveryOutcome.RECEIVED
    order.refresh_from_db()
    assert order.status == "IN_ANALYSIS"
    assert not ChargeStatusChange.objects.filter(new_status="PAID").exists()

    # The next notification wakes the workers again (the lost drain's start is
    # long past): a new drain processes the stranded delivery with it.
    [other], others = paid_orders(orderpay_emulator, 1, prefix="after-kill")
    post_as_provider(Client(), others[-1])
    until_due()
    finish(start_worker(queue, "--batch"))

    delivery.refresh_from_db()
    assert (delivery.outcome, delivery.attempts) == (DeliveryOutcome.PROCESSED, 1)
    for paid_order in (order, other):
        paid_order.refresh_from_db()
        assert paid_order.status == "PAID"
    assert ChargeStatusChange.objects.filter(new_status="PAID").count() == 2
    # The queue still shows the lost run (django-tasks-db never retries it); were it
    # run again, it would find nothing left to do.
    assert drain() == {}
    delivery.refresh_from_db()
    assert delivery.attempts == 1


def test_replay_processes_what_a_killed_worker_left(orderpay_emulator, queue):
    """Without a next notification, ``orderpay_replay --received`` (from cron) does it."""
    [order], notifications = paid_orders(orderpay_emulator, 1)
    post_as_provider(Client(), notifications[-1])
    delivery = NotificationDelivery.objects.get()
    DBTaskResult.objects.all().delete()  # the drain, lost with its worker

    out = io.StringIO()
    call_command("orderpay_replay", "--received", stdout=out, stderr=io.StringIO())

    assert f"delivery {delivery.pk} ({order.provider_id}): processed" in out.getvalue()
    delivery.refresh_from_db()
    assert (delivery.outcome, delivery.attempts) == (DeliveryOutcome.PROCESSED, 1)
    order.refresh_from_db()
    assert order.status == "PAID"
