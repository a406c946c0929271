"""``NOTIFICATION_BACKGROUND``: the view records and wakes a worker, a drain task processes.

Through Django's tasks framework (``django.tasks`` on Django 6, the
``django_tasks`` backport on 5.2) with its own backends: the dummy backend
keeps what was enqueued (a queue no worker has reached yet), the immediate
backend runs it at once.
"""

from __future__ import annotations

import datetime as dt
import io
import time

import pytest
from django.core.management import call_command
from django.utils import timezone

from django_orderpay.models import DeliveryOutcome, NotificationDelivery, Order
from django_orderpay.notifications import tasks
from django_orderpay.notifications.tasks import (
    DeliveryFailed,
    drain,
    drain_notifications,
    process_notification,
    run_delivery,
)
from tests.test_notifications_processing import (
    in_analysis_order,
    paid_notification,
    post_as_provider,
    queued,
    resolve_paid,
)

try:  # the same framework the package picked
    import django.tasks as tasks_framework
except ImportError:
    import django_tasks as tasks_framework

pytestmark = pytest.mark.django_db

FRAMEWORK = tasks_framework.__name__
DUMMY = f"{FRAMEWORK}.backends.dummy.DummyBackend"
IMMEDIATE = f"{FRAMEWORK}.backends.immediate.ImmediateBackend"


@pytest.fixture
def background(settings):
    """Background processing on, through the backend the test names."""

    def use(backend: str) -> None:
        settings.ORDERPAY = {**settings.ORDERPAY, "NOTIFICATION_BACKGROUND": True, "RETRIES": 0}
        settings.TASKS = {"default": {"BACKEND": backend}}

    tasks.forget_drain()  # a drain enqueued by an earlier test is not this test's
    yield use
    tasks.forget_drain()


def enqueued() -> list:
    return list(tasks_framework.task_backends["default"].results)


def test_the_tasks_are_found_by_their_dotted_paths():
    assert drain_notifications.module_path == (
        "django_orderpay.notifications.tasks.drain_notifications"
    )
    assert process_notification.module_path == (
        "django_orderpay.notifications.tasks.process_notification"
    )


def test_the_view_records_and_wakes_a_drain_that_processes(orderpay_emulator, client, background):
    background(DUMMY)
    order, paid = paid_notification(orderpay_emulator)
    before = timezone.now()

    response = post_as_provider(client, paid)

    assert response.status_code == 200
    delivery = NotificationDelivery.objects.get()
    assert response.json() == {"outcome": "received", "delivery": delivery.pk}
    assert delivery.outcome == DeliveryOutcome.RECEIVED
    order.refresh_from_db()
    assert order.status == "IN_ANALYSIS"  # nothing processed in the request
    [result] = enqueued()
    assert result.task.module_path == drain_notifications.module_path
    assert list(result.args) == []
    # It starts once the delivery is committed, DRAIN_DELAY after the request.
    delay = dt.timedelta(seconds=tasks.DRAIN_DELAY)
    assert before + delay <= result.task.run_after <= timezone.now() + delay

    assert drain_notifications.call() == {"processed": 1}  # what a worker does

    delivery.refresh_from_db()
    assert (delivery.outcome, delivery.attempts) == (DeliveryOutcome.PROCESSED, 1)
    order.refresh_from_db()
    assert order.status == "PAID"
    assert drain() == {}  # nothing left: the next drain finds nothing to do


def paid_orders(emulator, count: int) -> tuple[list[Order], list[dict]]:
    """``count`` orders the provider paid after analysis, and every notification it sent."""
    orders = [in_analysis_order(f"drain-{n}") for n in range(count)]
    for order in orders:
        resolve_paid(emulator, order)
    return orders, queued(emulator)


def test_a_burst_rides_on_one_drain_until_it_starts(orderpay_emulator, client, background):
    background(DUMMY)
    _, notifications = paid_orders(orderpay_emulator, 3)

    for notification in notifications:
        assert post_as_provider(client, notification).json()["outcome"] == "received"

    [result] = enqueued()  # one drain for the burst: it starts after all of them
    assert NotificationDelivery.objects.filter(outcome="received").count() == len(notifications)
    assert result.task.run_after > timezone.now()

    # Once it is due, the next delivery can't count on it: a drain of its own.
    time.sleep(max(0.0, (result.task.run_after - timezone.now()).total_seconds()) + 0.01)
    post_as_provider(client, notifications[0])
    assert len(enqueued()) == 2

    assert drain() == {"processed": len(notifications), "duplicate": 1}
    assert set(Order.objects.values_list("status", flat=True)) == {"PAID"}
    processed = NotificationDelivery.objects.filter(outcome="processed").order_by("pk")
    assert [d.processed_at for d in processed] == sorted(d.processed_at for d in processed)


def test_a_failing_delivery_fails_the_drain_and_replay_applies_it(
    orderpay_emulator, client, background
):
    background(DUMMY)
    order, paid = paid_notification(orderpay_emulator)
    post_as_provider(client, paid)
    orderpay_emulator.inject_fault("http_500", count=1, path_prefix="/orders/")
    delivery = NotificationDelivery.objects.get()

    with pytest.raises(DeliveryFailed, match=rf"deliveries {delivery.pk} failed"):
        drain()

    delivery = NotificationDelivery.objects.get()
    assert delivery.outcome == DeliveryOutcome.FAILED
    assert delivery.error.startswith("ProviderUnavailable: ")
    assert "Traceback" in delivery.traceback
    order.refresh_from_db()
    assert order.status == "IN_ANALYSIS"

    out = io.StringIO()
    call_command("orderpay_replay", stdout=out)

    assert f"delivery {delivery.pk} ({order.provider_id}): processed" in out.getvalue()

    delivery.refresh_from_db()
    assert delivery.outcome == DeliveryOutcome.PROCESSED
    order.refresh_from_db()
    assert order.status == "PAID"


def test_the_immediate_backend_processes_in_the_request(orderpay_emulator, client, background):
    background(IMMEDIATE)
    order, paid = paid_notification(orderpay_emulator)

    response = post_as_provider(client, paid)

    assert response.status_code == 200
    assert response.json()["outcome"] == "processed"
    order.refresh_from_db()
    assert order.status == "PAID"


def test_the_immediate_backend_answers_a_failure_with_500(orderpay_emulator, client, background):
    background(IMMEDIATE)
    _, paid = paid_notification(orderpay_emulator)
    orderpay_emulator.inject_fault("http_500", count=1, path_prefix="/orders/")

    response = post_as_provider(client, paid)

    assert response.status_code == 500
    assert response.json()["outcome"] == "failed"
    assert NotificationDelivery.objects.get().outcome == DeliveryOutcome.FAILED


def test_a_broken_task_backend_fails_the_delivery_visibly(orderpay_emulator, client, background):
    background("no.such.Backend")
    _, paid = paid_notification(orderpay_emulator)

    response = post_as_provider(client, paid)

    assert response.status_code == 500
    delivery = NotificationDelivery.objects.get()
    assert delivery.outcome == DeliveryOutcome.FAILED
    assert "no.such.Backend" in delivery.error


def test_a_task_of_an_earlier_version_still_processes_its_delivery(
    orderpay_emulator, client, background
):
    """Earlier versions enqueued process_notification(delivery id): still run after an upgrade."""
    background(DUMMY)
    order, paid = paid_notification(orderpay_emulator)
    post_as_provider(client, paid)
    delivery = NotificationDelivery.objects.get()

    assert process_notification.call(delivery.pk) == "processed"
    assert run_delivery(delivery.pk) == "processed"  # settled: left alone

    delivery.refresh_from_db()
    assert (delivery.outcome, delivery.attempts) == (DeliveryOutcome.PROCESSED, 1)
    order.refresh_from_db()
    assert order.status == "PAID"


def test_a_delivery_pruned_before_the_worker_ran_is_skipped(background):
    background(DUMMY)
    assert run_delivery(123456) == "missing"
