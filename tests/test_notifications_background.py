"""``NOTIFICATION_BACKGROUND``: the view records and enqueues, a task processes.

Through Django's tasks framework (``django.tasks`` on Django 6, the
``django_tasks`` backport on 5.2) with its own backends: the dummy backend
keeps what was enqueued (a queue no worker has reached yet), the immediate
backend runs it at once.
"""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from django_orderpay.models import DeliveryOutcome, NotificationDelivery
from django_orderpay.notifications.tasks import (
    DeliveryFailed,
    process_notification,
    run_delivery,
)
from tests.test_notifications_processing import (
    paid_notification,
    post_as_provider,
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

    return use


def enqueued() -> list:
    return list(tasks_framework.task_backends["default"].results)


def test_the_task_is_found_by_its_dotted_path():
    assert process_notification.module_path == (
        "django_orderpay.notifications.tasks.process_notification"
    )


def test_the_view_records_and_enqueues_then_the_task_processes(
    orderpay_emulator, client, background
):
    background(DUMMY)
    order, paid = paid_notification(orderpay_emulator)

    response = post_as_provider(client, paid)

    assert response.status_code == 200
    delivery = NotificationDelivery.objects.get()
    assert response.json() == {"outcome": "received", "delivery": delivery.pk}
    assert delivery.outcome == DeliveryOutcome.RECEIVED
    order.refresh_from_db()
    assert order.status == "IN_ANALYSIS"  # nothing processed in the request
    [result] = enqueued()
    assert result.task.module_path == process_notification.module_path
    assert list(result.args) == [delivery.pk]

    assert run_delivery(*result.args) == "processed"  # what a worker does

    delivery.refresh_from_db()
    assert delivery.outcome == DeliveryOutcome.PROCESSED
    order.refresh_from_db()
    assert order.status == "PAID"


def test_a_failing_task_is_in_the_log_and_replay_applies_it(orderpay_emulator, client, background):
    background(DUMMY)
    order, paid = paid_notification(orderpay_emulator)
    post_as_provider(client, paid)
    [result] = enqueued()
    orderpay_emulator.inject_fault("http_500", count=1, path_prefix="/orders/")

    with pytest.raises(DeliveryFailed, match="ProviderUnavailable"):
        run_delivery(*result.args)

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


def test_a_delivery_pruned_before_the_worker_ran_is_skipped(background):
    background(DUMMY)
    assert run_delivery(123456) == "missing"
