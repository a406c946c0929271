"""PagBank's hosted Checkout in Chromium: the example shop's "Pay on PagBank", end to end.

The shopper leaves the shop for the emulator's checkout page, pays there (a
card through the emulator's 3-D Secure challenge, Pix through the stand-in
for the bank app, a boleto), is sent back to the shop's status page, and the
provider's notifications (the checkout's and the order's) mark the purchase
paid. English and Brazilian Portuguese, by the browser's language.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from django_orderpay.emulator import CHALLENGE_CODE
from django_orderpay.models import Checkout, Order, OrderStatus
from example_project.shop.models import Purchase
from tests.browser.test_checkout import (  # noqa: F401 (fixtures)
    POLLED,
    SECURITY_CODE,
    Shop,
    screenshot,
    shop,
    shopper,
    status_label,
    traffic,
)
from tests.browser.test_pix_boleto import brazilian_payer, payer  # noqa: F401 (fixtures)
from tests.test_example_shop import guest_purchase

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CHALLENGED = "4000000000002503"  # the sandbox's 3DS card that asks for the bank's code


def to_pagbank(page: Page, shop: Shop, bought: Purchase) -> None:
    page.goto(f"{shop.url}/orders/{bought.reference}/pay/")
    page.get_by_test_id("pay-pagbank").click()
    expect(page.get_by_test_id("total")).to_be_visible()
    assert page.url == Checkout.objects.get().pay_url


def back_paid(page: Page, shop: Shop, bought: Purchase, label: str) -> None:
    """Back on the shop's status page; once notified, it says ``label``."""
    page.wait_for_url(f"**/shop/orders/{bought.reference}/")
    shop.flush_notifications()
    expect(status_label(page)).to_have_text(label, timeout=POLLED)
    order = Order.objects.get(status=OrderStatus.PAID)
    assert order.checkout == Checkout.objects.get()
    assert order.shop_object == bought


def test_a_card_through_the_3ds_challenge_on_pagbanks_page(shopper, shop, traffic):
    bought = guest_purchase()
    to_pagbank(shopper, shop, bought)
    expect(shopper.get_by_test_id("total")).to_have_text("R$ 94.80")
    expect(shopper.get_by_label("Full name")).to_have_value("Jose da Silva")
    shopper.get_by_label("Name on the card").fill("Jose da Silva")
    shopper.get_by_label("Card number").fill(CHALLENGED)
    shopper.get_by_label("Expiry month").fill("12")
    shopper.get_by_label("Expiry year").fill("2030")
    shopper.get_by_label("Security code").fill(SECURITY_CODE)
    shopper.get_by_label("Installments").select_option("2")
    screenshot(shopper, "hosted-checkout-card")
    shopper.get_by_test_id("pay").click()

    bank = shopper.frame_locator("[data-orderpay-3ds-challenge] iframe")
    bank.get_by_label("Code sent to your phone").fill(CHALLENGE_CODE)
    bank.get_by_role("button", name="Confirm").click()

    back_paid(shopper, shop, bought, "Paid")
    charge = Order.objects.get().charges.get()
    assert charge.installments == 2
    assert charge.data["payment_method"]["authentication_method"]["status"] == "AUTHENTICATED"
    # Only PagBank's 3-D Secure saw the number (as its SDK sends it); the page posted the
    # card encrypted, and the shop's server never saw it at all.
    for _, url, body in traffic.browser:
        if "/checkout-sdk/" not in url:
            assert CHALLENGED not in (body or "")
    for _, _, body in traffic.server:
        assert CHALLENGED.encode() not in body


def test_pix_in_portuguese_paid_with_the_bank_app(brazilian_payer, shop):
    page = brazilian_payer
    bought = guest_purchase()
    to_pagbank(page, shop, bought)
    expect(page.get_by_role("heading", name="Pague com PagBank")).to_be_visible()
    expect(page.get_by_test_id("total")).to_have_text("R$ 94,80")
    page.get_by_test_id("method-PIX").check()
    expect(page.get_by_test_id("pay")).to_have_text("Pagar R$ 94,80")
    page.get_by_test_id("pay").click()

    expect(page.get_by_role("heading", name="Pague com Pix")).to_be_visible()
    expect(page.locator("#pix-text")).to_have_value(re.compile(r"^000201"))
    screenshot(page, "hosted-checkout-pix-pt-br")
    page.get_by_test_id("pix-pay").click()

    back_paid(page, shop, bought, "Pago")


def test_a_boleto_waits_then_is_paid(payer, shop):
    bought = guest_purchase()
    to_pagbank(payer, shop, bought)
    payer.get_by_test_id("method-BOLETO").check()
    expect(payer.get_by_label("CEP")).to_have_value("01452002")  # the purchase's address
    payer.get_by_test_id("pay").click()

    line = payer.get_by_test_id("boleto-line")
    expect(line).to_have_text(re.compile(r"^29\d"))
    payer.get_by_test_id("back").click()
    payer.wait_for_url(f"**/shop/orders/{bought.reference}/")
    shop.flush_notifications()
    expect(status_label(payer)).to_have_text("Waiting for the boleto to be paid", timeout=POLLED)

    charge = Order.objects.get().charges.get()
    shop.provider.pay_boleto(charge.provider_id)
    back_paid(payer, shop, bought, "Paid")
