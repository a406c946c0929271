"""Deeplink orders: created with their link, paid through the simulator, refreshed."""

from __future__ import annotations

import pytest

from django_orderpay.client import get_client
from django_orderpay.exceptions import ConfigurationError, PayloadError, ProviderError
from django_orderpay.models import DeepLink, deeplink_expiry
from django_orderpay.services import (
    create_order,
    refresh_order,
    simulate_deeplink_payment,
)
from tests.test_services_support import DECLINED_VISA, order_payload

pytestmark = pytest.mark.django_db


def _deeplink_order(reference_id: str = "app-1", amount: int = 1500):
    body = order_payload(
        reference_id,
        unit_amount=amount,
        deep_links=[
            {"amount": {"value": amount}, "redirect_url": f"myshop://orders/{reference_id}"}
        ],
    )
    for item in body["items"]:
        del item["reference_id"]  # the deeplink sample has none
    return create_order(body)


def test_a_deeplink_order_keeps_its_link_and_expiry(orderpay_emulator):
    order = _deeplink_order()

    assert order.status == "CREATED"
    deeplink = DeepLink.objects.get(order=order)
    answer = get_client().get_order(order.provider_id)["deep_links"][0]
    assert deeplink.url == answer["url"]
    assert f"r={deeplink.deeplink_id}" in deeplink.url
    assert deeplink.amount_value == 1500
    assert deeplink.redirect_url == "myshop://orders/app-1"
    assert deeplink.expires_at == deeplink_expiry(order.created_at)
    assert not deeplink.is_expired()


def test_one_deeplink_per_order(orderpay_emulator):
    body = order_payload("app-2", deep_links=[{"amount": {"value": 500}}] * 2)

    with pytest.raises(PayloadError) as caught:
        create_order(body)

    assert "deep_links" in caught.value.paths
    assert orderpay_emulator.order_ids() == []


def test_paid_with_balance_through_the_simulation_then_refreshed(orderpay_emulator):
    order = _deeplink_order()

    paid = simulate_deeplink_payment(order, status="PAID")

    assert paid.status == "PAID"
    row = paid.charges.get()
    assert (row.status, row.amount_paid) == ("PAID", 1500)
    assert row.data["payment_method"]["type"] == "ACCOUNT_BALANCE"
    assert DeepLink.objects.get(order=order).is_paid()
    refreshed = refresh_order(order)
    assert refreshed.status == "PAID"
    assert refreshed.charges.count() == 1
    assert list(row.status_changes.values_list("new_status", "source")) == [("PAID", "api")]

    with pytest.raises(ProviderError) as caught:  # one approved payment only
        simulate_deeplink_payment(order, card_number="4111111111111111")
    assert (caught.value.status, caught.value.codes) == (409, ["40901"])


def test_paid_with_a_card_through_the_simulation_then_refreshed(orderpay_emulator):
    order = _deeplink_order("app-3", 2500)

    declined = simulate_deeplink_payment(order, card_number=DECLINED_VISA)
    assert declined.status == "DECLINED"
    paid = simulate_deeplink_payment(order, card_number="4111111111111111")

    assert paid.status == "PAID"
    refreshed = refresh_order(order)
    assert sorted(refreshed.charges.values_list("status", flat=True)) == ["DECLINED", "PAID"]
    card = refreshed.charges.get(status="PAID").data["payment_method"]["card"]
    assert (card["brand"], card["last_digits"]) == ("visa", "1111")


def test_the_simulation_needs_a_deeplink_and_one_outcome(orderpay_emulator):
    plain = create_order(order_payload("no-link"))
    with pytest.raises(PayloadError) as caught:
        simulate_deeplink_payment(plain, status="PAID")
    assert caught.value.paths == ["deep_links"]

    order = _deeplink_order("app-4")
    with pytest.raises(PayloadError):
        simulate_deeplink_payment(order)
    with pytest.raises(PayloadError):
        simulate_deeplink_payment(order, status="PAID", card_number="4111111111111111")


def test_an_expired_deeplink_cannot_be_paid(orderpay_emulator):
    order = _deeplink_order("app-5")
    orderpay_emulator.control("POST", "clock", {"advance_seconds": 3 * 24 * 3600})

    with pytest.raises(ProviderError) as caught:
        simulate_deeplink_payment(order, status="PAID")

    assert (caught.value.status, caught.value.codes) == (410, ["41001"])
    assert refresh_order(order).status == "CREATED"


def test_there_is_no_simulation_in_production(orderpay_emulator, settings):
    order = _deeplink_order("app-6")
    settings.ORDERPAY = {**settings.ORDERPAY, "ENVIRONMENT": "production", "SIMULATION_URL": ""}

    with pytest.raises(ConfigurationError, match="sandbox"):
        simulate_deeplink_payment(order, status="PAID")

    assert get_client().get_order(order.provider_id)["charges"] == []
