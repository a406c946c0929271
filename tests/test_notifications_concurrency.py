"""50 copies of one notification from 8 threads at once: one transition, one signal, no error.

Real transactions (``transaction=True``): each thread posts through its own
Django test client on its own database connection, and signals fire on real
commits. On PostgreSQL the order row's lock serialises the copies; on
SQLite ``sync_transaction`` makes the process's writers take turns.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator

import pytest
from django.db import connection
from django.test import Client

from django_orderpay.models import ChargeStatusChange, DeliveryOutcome, NotificationDelivery
from tests.test_notifications_processing import (
    Heard,
    listening,
    paid_notification,
    post_as_provider,
)

COPIES = 50
THREADS = 8


@pytest.fixture
def heard() -> Iterator[Heard]:
    with listening() as record:
        yield record


def send_copies(notification: dict, copies: int, threads: int) -> tuple[list[int], list[str]]:
    """Post ``copies`` copies from ``threads`` threads released together; statuses, errors."""
    statuses: list[int] = []
    errors: list[str] = []
    lock = threading.Lock()
    start = threading.Barrier(threads)
    shares = [copies // threads + (1 if i < copies % threads else 0) for i in range(threads)]

    def run(share: int) -> None:
        client = Client()
        try:
            start.wait()
            for _ in range(share):
                response = post_as_provider(client, notification)
                with lock:
                    statuses.append(response.status_code)
        except Exception as exc:
            with lock:
                errors.append(f"{type(exc).__name__}: {exc}")
        finally:
            connection.close()

    workers = [threading.Thread(target=run, args=(share,)) for share in shares]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return statuses, errors


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("trust_body", [False, True], ids=["refetch", "trust-body"])
def test_fifty_copies_from_eight_threads_make_one_transition(
    orderpay_emulator, settings, heard, trust_body
):
    settings.ORDERPAY = {**settings.ORDERPAY, "NOTIFICATION_TRUST_BODY": trust_body}
    order, paid = paid_notification(orderpay_emulator, "concurrent-1")

    statuses, errors = send_copies(paid, COPIES, THREADS)

    assert errors == []
    assert statuses == [200] * COPIES
    outcomes = Counter(NotificationDelivery.objects.values_list("outcome", flat=True))
    assert outcomes == {DeliveryOutcome.PROCESSED: 1, DeliveryOutcome.DUPLICATE: COPIES - 1}
    order.refresh_from_db()
    assert order.status == "PAID"
    paid_changes = ChargeStatusChange.objects.filter(charge__order=order, new_status="PAID")
    assert [(c.old_status, c.source) for c in paid_changes] == [("IN_ANALYSIS", "notification")]
    assert heard.named("paid") == [("paid", order.charges.get().provider_id, "notification")]
    from_notifications = [e for e in heard.named("changed") if e[2] == "notification"]
    assert len(from_notifications) == 1
    assert (
        not NotificationDelivery.objects.exclude(error="")
        .exclude(outcome=DeliveryOutcome.DUPLICATE)
        .exists()
    )
