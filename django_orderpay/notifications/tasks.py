"""Background processing through Django's tasks framework (``NOTIFICATION_BACKGROUND``).

``django.tasks`` on Django 6, the ``django-tasks`` backport (``django_tasks``)
on Django 5.2: the same API.

The delivery log is the queue: the view records a delivery (``received``,
committed) and calls :func:`wake_workers`, which enqueues
:func:`drain_notifications` to start :data:`DRAIN_DELAY` later, unless a drain
this process enqueued has yet to start: that one will find the delivery
(it starts after the delivery was committed). So a burst of notifications
costs one task, not one per delivery, and the request's path is one
``INSERT`` most of the time. A worker running the drain processes every
``received`` delivery, oldest first, each locked with ``SKIP LOCKED`` so
that workers share a backlog, until none is left; a worker killed mid-way
leaves its delivery ``received`` (its transaction dies with it) for the
next drain, or for ``orderpay_replay --received``.

A failure is in the delivery log like any other, and also fails the task,
so the backend's own result shows it. :func:`process_notification` (one
delivery by id) is what earlier versions enqueued; it still runs them.
"""

from __future__ import annotations

import datetime as dt
import time
from collections import Counter
from importlib import import_module
from typing import Any

from django_orderpay.exceptions import ConfigurationError, OrderPayError
from django_orderpay.models import DeliveryOutcome, NotificationDelivery

#: Seconds between a delivery's record and the start of the drain that wakes
#: for it: every delivery this process records meanwhile rides on that drain.
#: A worker's own polling interval comes on top (1 s by default for
#: django-tasks-db), so a quarter of a second costs little latency and keeps
#: the task rows (about 1 ms each to enqueue) to four a second per web
#: process. The web processes' and the workers' clocks must agree to well
#: within it (NTP): a worker whose clock runs ahead could start the drain
#: before a delivery of its last instants is committed, which then waits for
#: the next drain (or a replay).
DRAIN_DELAY = 0.25
#: Failed delivery ids named in a drain's failure (the log has them all).
FAILURES_NAMED = 20


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


def drain() -> dict[str, int]:
    """Process ``received`` deliveries until none is left; how many ended in each outcome.

    Raises :class:`DeliveryFailed` at the end, naming them, if any failed
    (each is ``failed`` in the log, with its error, for a replay).
    """
    from .processing import process_next_received

    outcomes: Counter[str] = Counter()
    failed: list[int] = []
    while (attempt := process_next_received()) is not None:
        delivery, result = attempt
        outcomes[str(result.outcome)] += 1
        if result.outcome == DeliveryOutcome.FAILED:
            failed.append(delivery.pk)
    if failed:
        named = ", ".join(map(str, failed[:FAILURES_NAMED]))
        more = f" and {len(failed) - FAILURES_NAMED} more" if len(failed) > FAILURES_NAMED else ""
        raise DeliveryFailed(
            f"notification deliveries {named}{more} failed (see their errors); "
            f"this run: {dict(outcomes)}"
        )
    return dict(outcomes)


def process_notification(delivery_id: int) -> str:
    """The task earlier versions enqueued, one per delivery: :func:`run_delivery` in a worker."""
    return run_delivery(delivery_id)


def drain_notifications() -> dict[str, int]:
    """The task :func:`wake_workers` enqueues: :func:`drain` in a worker."""
    return drain()


if _task is not None:
    # Decorated at module level under their own names: a worker finds a task by
    # its dotted path (``django_orderpay.notifications.tasks.drain_notifications``).
    process_notification = _task(process_notification)
    drain_notifications = _task(drain_notifications)

#: When the drain this process enqueued last starts (``time.time()``): until
#: then, a delivery recorded here needs no task of its own.
_drain_starts = 0.0


def wake_workers() -> Any | None:
    """Make sure a worker will process the deliveries recorded so far (call after the commit).

    The task framework's result of the drain enqueued, or None when the
    drain this process enqueued earlier has yet to start (it will see them).
    A backend that can't defer a task (the immediate one runs it at once)
    gets a drain each time. Raises
    :class:`~django_orderpay.exceptions.ConfigurationError` when neither
    ``django.tasks`` nor ``django_tasks`` can be imported.
    """
    global _drain_starts
    if _task is None:
        raise ConfigurationError(
            "ORDERPAY['NOTIFICATION_BACKGROUND'] needs Django's tasks framework: Django 6, "
            "or the django-tasks package on Django 5.2 (pip install 'django-orderpay[tasks]')."
        )
    now = time.time()
    if now < _drain_starts:
        return None
    task: Any = drain_notifications  # a Task once decorated above
    if not task.get_backend().supports_defer:
        return task.enqueue()
    starts = now + DRAIN_DELAY
    result = task.using(run_after=dt.datetime.fromtimestamp(starts, tz=dt.UTC)).enqueue()
    _drain_starts = starts
    return result


def forget_drain() -> None:
    """Forget the drain this process enqueued (tests: the next delivery enqueues one)."""
    global _drain_starts
    _drain_starts = 0.0


def ran(task_result: Any) -> bool:
    """Whether the backend ran the task at once (the immediate backend), successfully or not."""
    return str(getattr(task_result, "status", "")) in ("SUCCESSFUL", "FAILED")
