"""Background processing through Django's tasks framework (``NOTIFICATION_BACKGROUND``).

``django.tasks`` on Django 6, the ``django-tasks`` backport (``django_tasks``)
on Django 5.2: the same API. The view records a delivery and enqueues
:func:`process_notification` with its id; the worker runs :func:`run_delivery`, which calls
:func:`~django_orderpay.notifications.processing.process_delivery`. The
task takes an id, not the row: arguments must be JSON, and the worker must
read the delivery as it is when it runs. A failure is in the delivery log
like any other, and also fails the task, so the backend's own result shows it.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from django_orderpay.exceptions import ConfigurationError, OrderPayError
from django_orderpay.models import DeliveryOutcome, NotificationDelivery


def _task_decorator() -> Any:
    """``django.tasks.task`` (Django 6), else the backport's, else None."""
    for module in ("django.tasks", "django_tasks"):
        try:
            return import_module(module).task
        except ImportError:
            continue
    return None


_task = _task_decorator()
TASKS_AVAILABLE = _task is not None


class DeliveryFailed(OrderPayError):
    """A delivery processed in the background failed (its error is in the delivery log)."""


#: Outcomes a worker leaves alone: the delivery was settled meanwhile (by a
#: replay, or by another run of the same task after a worker was lost).
SETTLED = frozenset(
    {
        DeliveryOutcome.PROCESSED,
        DeliveryOutcome.DUPLICATE,
        DeliveryOutcome.IGNORED,
        DeliveryOutcome.REJECTED,
    }
)


def run_delivery(delivery_id: int) -> str:
    """Process the recorded delivery ``delivery_id``; its outcome, or raise if it failed.

    A delivery already settled is left as it is (its outcome answered): a
    task may run after ``orderpay_replay`` got to its delivery first.
    """
    from .processing import process_delivery

    delivery = NotificationDelivery.objects.filter(pk=delivery_id).first()
    if delivery is None:
        return "missing"  # pruned before a worker got to it
    if delivery.outcome in SETTLED:
        return str(delivery.outcome)
    result = process_delivery(delivery)
    if result.outcome == DeliveryOutcome.FAILED:
        raise DeliveryFailed(
            f"notification delivery {delivery_id} failed: {delivery.error or result.detail}"
        )
    return result.outcome


def process_notification(delivery_id: int) -> str:
    """The task: :func:`run_delivery` in a worker."""
    return run_delivery(delivery_id)


if _task is not None:
    # Decorated at module level under its own name: a worker finds the task by
    # its dotted path (``django_orderpay.notifications.tasks.process_notification``).
    process_notification = _task(process_notification)


def enqueue_delivery(delivery: NotificationDelivery) -> Any:
    """Enqueue the processing of ``delivery``; the task framework's result.

    Raises :class:`~django_orderpay.exceptions.ConfigurationError` when neither
    ``django.tasks`` nor ``django_tasks`` can be imported.
    """
    if _task is None:
        raise ConfigurationError(
            "ORDERPAY['NOTIFICATION_BACKGROUND'] needs Django's tasks framework: Django 6, "
            "or the django-tasks package on Django 5.2 (pip install 'django-orderpay[tasks]')."
        )
    task: Any = process_notification  # a Task once decorated above
    return task.enqueue(delivery.pk)


def ran_outcome(task_result: Any) -> str | None:
    """The outcome of a task the backend ran at once (the immediate backend); None if queued."""
    status = str(getattr(task_result, "status", ""))
    if status == "SUCCESSFUL":
        return str(task_result.return_value)
    if status == "FAILED":
        return DeliveryOutcome.FAILED
    return None
