"""Values this version does not know, arriving by a verified notification: kept, never a 500.

``test_sync_future_values`` pins each reader through ``sync``; here the
notification endpoint, where a value ``sync`` refused would be answered
"retry later" forever: a payment method or status added by the provider, or
an enum longer than its column, is mirrored with a warning and answered 200.
"""

from __future__ import annotations

import json

import pytest

from django_orderpay.cardcrypto import authenticity_token
from django_orderpay.models import Charge, ChargeStatus, DeliveryOutcome, NotificationDelivery
from django_orderpay.sync import sync_order
from django_orderpay.sync.parse import ENUM_LENGTH
from django_orderpay.testing.provider_json import charge_json, order_json

pytestmark = pytest.mark.django_db

TOKEN = "test-token-merchant-a"  # tests/settings.py
URL = "/orderpay/notifications/"


def notify(client, payload: dict):
    body = json.dumps(payload).encode()
    headers = {"x-authenticity-token": authenticity_token(TOKEN, body)}
    return client.post(URL, data=body, headers=headers, content_type="application/json")


def known_order() -> tuple[str, str]:
    """An order mirrored with one charge in analysis: its id and its charge's."""
    charge = charge_json(status=ChargeStatus.IN_ANALYSIS)
    order = sync_order(order_json(charges=[charge]), source="api")
    return order.provider_id, charge["id"]


@pytest.mark.parametrize(
    ("where", "value"),
    [
        ("payment_method.type", "PIX_AUTOMATICO"),
        ("status", "CHARGEBACK_DISPUTED"),
        ("payment_method.type", "X" * (ENUM_LENGTH + 8)),
    ],
    ids=["new method", "new status", "longer than its column"],
)
def test_a_notification_with_a_value_this_version_does_not_know_is_mirrored(
    client, trusting, caplog, where, value
):
    order_id, charge_id = known_order()
    if where == "status":
        charge = charge_json(charge_id=charge_id)
    else:  # a charge's method is read when the charge is first seen: a new charge
        charge = charge_json(status=ChargeStatus.IN_ANALYSIS)
        charge_id = charge["id"]
    target = charge["payment_method"] if where == "payment_method.type" else charge
    target[where.rsplit(".", 1)[-1]] = value

    response = notify(client, order_json(order_id=order_id, charges=[charge]))

    assert response.status_code == 200, response.content
    assert NotificationDelivery.objects.get().outcome == DeliveryOutcome.PROCESSED
    row = Charge.objects.get(provider_id=charge_id)
    kept = row.payment_method if where == "payment_method.type" else row.status
    assert kept == value[:ENUM_LENGTH]
    assert (row.data["payment_method"] if where == "payment_method.type" else row.data)[
        where.rsplit(".", 1)[-1]
    ] == value
    assert "does not know" in caplog.text
