"""The delivery is recorded in its processing transaction, and its failure after the rollback.

Real transactions (``transaction=True``) with ``ATOMIC_REQUESTS`` on, and
processing that fails inside the database: a shop's own ``post_save``
receiver on ``Order`` runs a statement the database refuses, which on
PostgreSQL aborts the whole transaction it runs in.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator

import pytest
from django.core.management import call_command
from django.db import OperationalError, connection
from django.db.models.signals import post_save
from django.test import Client

from django_orderpay.models import ChargeStatusChange, DeliveryOutcome, NotificationDelivery, Order
from tests.test_notifications_processing import (
    Heard,
    listening,
    paid_notification,
    post_as_provider,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def heard() -> Iterator[Heard]:
    with listening() as record:
        yield record


@pytest.fixture
def atomic_requests(monkeypatch) -> None:
    """``ATOMIC_REQUESTS = True`` for the default database, as a shop may set it."""
    monkeypatch.setitem(connection.settings_dict, "ATOMIC_REQUESTS", True)


#: What another connection meets on SQLite while a transaction writes the log
#: (a shared-cache in-memory database locks the table): it is not committed.
LOCKED = "table locked by an uncommitted write"


def committed_outcomes() -> list[str]:
    """The delivery log as another connection sees it: only what is committed."""
    seen: list[str] = []

    def read() -> None:
        try:
            seen.extend(NotificationDelivery.objects.values_list("outcome", flat=True))
        except OperationalError as exc:
            if "locked" not in str(exc):
                raise
            seen.append(LOCKED)
        finally:
            connection.close()

    reader = threading.Thread(target=read)
    reader.start()
    reader.join()
    return seen


class BrokenReceiver:
    """A shop's ``post_save`` receiver that breaks the transaction it runs in.

    Before breaking it, it notes what another connection sees of the log:
    the delivery being processed is written in this very transaction, so
    nothing of it is committed yet.
    """

    def __init__(self) -> None:
        self.committed_while_processing: list[list[str]] = []

    def __call__(self, sender, instance, **kwargs) -> None:
        self.committed_while_processing.append(committed_outcomes())
        with connection.cursor() as cursor:
            cursor.execute("SELECT * FROM orderpay_no_such_table")


def test_a_database_error_rolls_processing_back_and_the_log_survives(
    orderpay_emulator, settings, atomic_requests, heard
):
    settings.ORDERPAY = {**settings.ORDERPAY, "RETRIES": 0}
    order, paid = paid_notification(orderpay_emulator, "tx-1")
    receiver = BrokenReceiver()
    post_save.connect(receiver, sender=Order, weak=False)
    try:
        response = post_as_provider(Client(), paid)
    finally:
        post_save.disconnect(receiver, sender=Order)

    assert response.status_code == 500
    assert response.json()["outcome"] == "failed"
    # Written in the processing transaction (not the request's, even under
    # ATOMIC_REQUESTS): invisible to others until it ends; after the rollback
    # the failure is committed on its own.
    uncommitted = [] if connection.vendor == "postgresql" else [LOCKED]
    assert receiver.committed_while_processing == [uncommitted]
    assert committed_outcomes() == ["failed"]
    delivery = NotificationDelivery.objects.get()
    assert delivery.outcome == DeliveryOutcome.FAILED
    assert "orderpay_no_such_table" in delivery.error
    assert "Traceback (most recent call last)" in delivery.traceback
    assert delivery.attempts == 1
    order.refresh_from_db()
    assert order.status == "IN_ANALYSIS"  # the whole attempt rolled back
    assert not ChargeStatusChange.objects.filter(new_status="PAID").exists()
    assert [event for event in heard.events if event[2] == "notification"] == []

    # The shop fixes its receiver; the failed delivery is applied by a replay.
    out = io.StringIO()
    call_command("orderpay_replay", stdout=out, stderr=io.StringIO())

    assert f"delivery {delivery.pk} ({order.provider_id}): processed" in out.getvalue()
    order.refresh_from_db()
    assert order.status == "PAID"
    assert heard.named("paid") == [("paid", order.charges.get().provider_id, "notification")]


def test_a_refused_request_is_committed_under_atomic_requests(atomic_requests):
    response = Client().post(
        "/orderpay/notifications/",
        data=b"{}",
        content_type="application/json",
        headers={"x-authenticity-token": "not-the-digest"},
    )

    assert response.status_code == 401
    assert committed_outcomes() == ["rejected"]
