"""The delivery log's indexes, as migrated: only what something reads, and the exactly-once rule.

Every notification is an insert into this table, and every index costs each
insert; migration 0005 dropped the ones nothing read. Django's own
``AlterField`` would also have dropped the partial unique index that
applies a body once (it takes it for a plain index on ``dedupe_key``): this
checks the migrated database, not the model.
"""

from __future__ import annotations

import pytest
from django.db import connection

from django_orderpay.models import NotificationDelivery

pytestmark = pytest.mark.django_db


def indexes() -> dict[str, dict]:
    table = NotificationDelivery._meta.db_table
    with connection.cursor() as cursor:
        found = connection.introspection.get_constraints(cursor, table)
    return {
        name: info
        for name, info in found.items()
        if (info["index"] or info["unique"]) and not info["primary_key"]
    }


def test_a_body_is_still_processed_once_by_a_unique_index():
    once = indexes()["orderpay_delivery_processed_once"]
    assert once["unique"] and once["columns"] == ["dedupe_key"]


def test_only_the_indexes_something_reads_are_left():
    by_columns = sorted(tuple(info["columns"]) for info in indexes().values())
    assert by_columns == sorted(
        [
            ("id",),  # orderpay_delivery_waiting: received and failed deliveries, oldest first
            ("received_at",),  # orderpay_prune and the admin's order
            ("order_provider_id",),  # an order's deliveries
            ("dedupe_key",),  # orderpay_delivery_processed_once
        ]
    )
