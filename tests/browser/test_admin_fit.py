"""The charge list fits a 1440 px screen (a laptop's), in both languages, with long values."""

from __future__ import annotations

import pytest

from django_orderpay.testing.factories import ChargeFactory, OrderFactory
from tests.browser.test_admin_screenshots import ARTIFACTS, staff_browser  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTH = 1440


@pytest.fixture
def wide_charges():
    """Charges with the longest values staff meet: long references, messages, big amounts."""
    order = OrderFactory(reference_id="loja-2026-11-000123456789", customer_name="Maria Souza")
    ChargeFactory(order=order, amount_value=999_999_999, amount_refunded=123_456_789)
    ChargeFactory(
        order=order,
        declined=True,
        amount_value=15000,
        card_brand="amex",
        card_last_digits="0005",
        payment_response_message="NAO AUTORIZADA PELO EMISSOR - CONTATE A CENTRAL DO CARTAO",
    )
    ChargeFactory(authorized=True, amount_value=2500, installments=12)
    ChargeFactory(in_analysis=True, amount_value=9990, card_brand="mastercard")


@pytest.mark.parametrize("locale", ["pt-BR", "en-US"])
def test_the_charge_list_fits_1440_pixels(staff_browser, live_server, wide_charges, locale):
    page = staff_browser(locale)
    page.set_viewport_size({"width": WIDTH, "height": 900})

    page.goto(f"{live_server.url}/admin/django_orderpay/charge/")

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"admin-charge-list-1440-{locale.lower()}.png", full_page=True)
    widths = page.evaluate(
        """() => ({
            page: document.documentElement.scrollWidth,
            table: document.querySelector('#result_list').getBoundingClientRect().right,
            results: document.querySelector('.results').scrollWidth,
            visible: document.querySelector('.results').clientWidth,
        })"""
    )
    assert widths["page"] <= WIDTH, widths
    assert widths["table"] <= WIDTH, widths
    assert widths["results"] <= widths["visible"], widths  # no scrolling inside the list either
