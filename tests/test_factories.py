"""The testing kit's factories make rows that agree with their provider JSON."""

from __future__ import annotations

import json
import re

import pytest
from django.contrib.auth.models import User

from django_orderpay.models import ChargeStatus, OrderStatus
from django_orderpay.sync import parse_charge, parse_order, parse_split
from django_orderpay.testing.factories import (
    CardTokenFactory,
    ChargeFactory,
    ChargeStatusChangeFactory,
    DeepLinkFactory,
    NotificationDeliveryFactory,
    OrderFactory,
    SplitFactory,
)

pytestmark = pytest.mark.django_db

UUID = "[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}"


@pytest.mark.parametrize(
    ("factory_class", "prefix"),
    [
        (OrderFactory, "ORDE_"),
        (ChargeFactory, "CHAR_"),
        (CardTokenFactory, "CARD_"),
        (SplitFactory, "SPLI_"),
    ],
)
def test_provider_ids_have_the_provider_format(factory_class, prefix):
    first, second = factory_class(), factory_class()
    assert re.fullmatch(prefix + UUID, first.provider_id)
    assert first.provider_id != second.provider_id
    assert first.data.get("id", first.provider_id) == first.provider_id


@pytest.mark.parametrize(
    "trait", ["", "authorized", "in_analysis", "declined", "canceled", "stored_card"]
)
def test_charge_columns_agree_with_their_json(trait):
    charge = ChargeFactory(**({trait: True} if trait else {}))
    parsed = parse_charge(charge.data)
    for name, value in parsed.columns.items():
        assert getattr(charge, name) == value, name
    if trait == "stored_card":
        assert parsed.card.token_id == charge.card_token.provider_id


def test_a_charge_updates_its_orders_status_and_json():
    order = OrderFactory()
    assert order.status == OrderStatus.CREATED
    ChargeFactory(order=order, declined=True)
    paid = ChargeFactory(order=order)
    order.refresh_from_db()
    assert order.status == OrderStatus.PAID
    assert [c["id"] for c in order.data["charges"]][-1] == paid.provider_id
    state = parse_order(order.data)
    assert state.provider_id == order.provider_id
    assert state.columns["reference_id"] == order.reference_id


def test_stored_card_belongs_to_the_orders_user():
    user = User.objects.create_user("ana")
    charge = ChargeFactory(order__user=user, stored_card=True)
    assert charge.card_token.user == user
    assert charge.card_token.data["id"] == charge.card_token.provider_id


def test_card_token_recurrence_trait():
    token = CardTokenFactory(recurrence=True)
    assert token.brand == "elo" and token.has_recurrence and token.initial_amount == 500
    assert "number" not in token.data and "security_code" not in token.data


def test_split_and_deeplink_factories():
    split = SplitFactory()
    assert split.charge.split_method == split.method == "FIXED"
    assert parse_split(split.data).provider_id == split.provider_id

    deeplink = DeepLinkFactory(redirect_url="myshop://orders/1")
    assert deeplink.url.endswith(f"r={deeplink.deeplink_id}")
    assert deeplink.data["redirect_url"] == "myshop://orders/1"
    assert not deeplink.is_expired(now=deeplink.order.created_at)


def test_history_and_delivery_factories():
    change = ChargeStatusChangeFactory(charge__declined=True)
    assert (change.old_status, change.new_status) == ("", ChargeStatus.DECLINED)

    delivery = NotificationDeliveryFactory()
    body = json.loads(bytes(delivery.body))
    assert body["id"] == delivery.order_provider_id
    assert delivery.headers["X-Authenticity-Token"] == "[removed]"
    assert len(delivery.dedupe_key) == 64
