"""What a notification costs the database: statements per delivery, on SQLite and PostgreSQL.

A first-time transition is one transaction of three statements on PostgreSQL
(the delivery claimed and the order locked in one, its charges read, and the
charge, its history row and the order written in one), six on SQLite (the
claim and the lock apart, the three writes one by one); a copy of a delivery
already processed is two (the claim refused, the duplicate recorded).
Nothing runs after the commit: the ``payment_duplicated`` check of a newly
paid charge (what else holds money for the same purchase) reads the order's
charges the sync holds, for an order with no shop object (with one, it is a
query). Counted with Django's
``CaptureQueriesContext`` around the view, in real transactions
(``transaction=True``), so ``BEGIN`` and ``COMMIT`` are the view's own.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from django_orderpay.models import ChargeStatusChange, DeliveryOutcome, NotificationDelivery
from tests.test_notifications_processing import paid_notification, post_as_provider

pytestmark = pytest.mark.django_db(transaction=True)

#: The issue's targets: statements that read or write data.
FIRST_TIME = 6
DUPLICATE = 2
_CONTROL = {"BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE"}


def counted(client: Client, notification: dict) -> tuple[int, list[str], list[str], list[str]]:
    """Post ``notification``: its status, the data statements of its transaction, the
    transaction's own statements, and what ran after its commit (signals)."""
    with CaptureQueriesContext(connection) as captured:
        response = post_as_provider(client, notification)
    statements = [query["sql"] for query in captured.captured_queries]
    kinds = [sql.lstrip().split()[0].upper() for sql in statements]
    end = max((i for i, kind in enumerate(kinds) if kind == "COMMIT"), default=len(kinds) - 1)
    control = [sql for sql, kind in zip(statements, kinds, strict=True) if kind in _CONTROL]
    data = [sql for sql in statements[: end + 1] if sql not in control]
    return response.status_code, data, control, statements[end + 1 :]


@pytest.mark.parametrize("trust_body", [False, True], ids=["refetch", "trust-body"])
def test_a_transition_takes_three_statements_and_a_copy_two(
    orderpay_emulator, settings, trust_body
):
    settings.ORDERPAY = {**settings.ORDERPAY, "NOTIFICATION_TRUST_BODY": trust_body}
    order, paid = paid_notification(orderpay_emulator, f"queries-{trust_body}")
    client = Client()

    status, data, control, after = counted(client, paid)

    assert status == 200
    assert len(data) <= FIRST_TIME, "\n".join(data)
    assert len(data) == (3 if connection.vendor == "postgresql" else 6), "\n".join(data)
    assert [sql.split()[0].upper() for sql in control] == ["BEGIN", "COMMIT"]
    assert after == [], "\n".join(after)  # payment_duplicated's look: no query
    assert ChargeStatusChange.objects.filter(charge__order=order, new_status="PAID").count() == 1

    status, data, control, after = counted(client, paid)

    assert status == 200
    assert len(data) <= DUPLICATE, "\n".join(data)
    assert len(control) <= 2
    assert after == []
    first, copy = NotificationDelivery.objects.order_by("pk")
    assert (first.outcome, copy.outcome) == (DeliveryOutcome.PROCESSED, DeliveryOutcome.DUPLICATE)
    assert copy.error == f"a copy of delivery {first.pk}"
    assert (copy.attempts, first.attempts) == (1, 1)
    assert ChargeStatusChange.objects.filter(charge__order=order, new_status="PAID").count() == 1
