"""When the checkout runs 3-D Secure (``ORDERPAY['THREEDS']``): ``after_decline`` asks for
it only once the issuer declined a card of the order with a code that asks for
authentication (20159), never for a plain decline, an order not saved yet or no order.
The declines come from the emulator's sandbox cards, paid through the services.
"""

from __future__ import annotations

from typing import Any

import pytest

from django_orderpay import services
from django_orderpay.checkout import declined_for_authentication, threeds_required
from django_orderpay.models import Order
from tests.test_services_support import DECLINED_VISA, charge, order_payload, raw_card

pytestmark = pytest.mark.django_db

NEEDS_AUTHENTICATION = "4000000000003204"  # declined with 20159


def after_decline(orderpay) -> None:
    orderpay(THREEDS="after_decline")


def declined_with(number: str) -> Order:
    order = services.create_order(order_payload(charges=None))
    paid = services.pay_order(order, [charge(500, raw_card(number))])
    assert paid.charges.get().status == "DECLINED"
    return paid


def test_a_decline_asking_for_authentication_turns_it_on(orderpay_emulator, orderpay):
    after_decline(orderpay)
    order = declined_with(NEEDS_AUTHENTICATION)

    assert order.charges.get().payment_response_code == "20159"
    assert declined_for_authentication(order)
    assert threeds_required(order)


def test_a_plain_decline_does_not(orderpay_emulator, orderpay):
    after_decline(orderpay)
    order = declined_with(DECLINED_VISA)

    assert order.charges.get().payment_response_code != "20159"
    assert not declined_for_authentication(order)
    assert not threeds_required(order)


@pytest.mark.parametrize(
    "order", [None, Order(provider_id="ORDE_NOT_SAVED")], ids=["none", "unsaved"]
)
def test_no_order_or_one_not_saved_has_no_decline(orderpay, order: Any):
    after_decline(orderpay)

    assert not declined_for_authentication(order)
    assert not threeds_required(order)


def test_the_mode_is_read_without_needing_the_api_token(settings):
    # The checkout's page asks before anything is sent: a missing TOKEN is the
    # system checks' to report, not a reason for the page to fail.
    settings.ORDERPAY = {"THREEDS": "always"}

    assert threeds_required() is True
    assert threeds_required(mode="never") is False
