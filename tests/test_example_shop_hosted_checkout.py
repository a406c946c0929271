"""The example shop's "Pay on PagBank": the purchase's hosted checkout, end to end on the emulator.

The shopper is sent to PagBank's page, pays there (the emulator's control
plane stands in for the page; tests/browser/test_hosted_checkout.py uses the
page itself), comes back to the status page, and the notifications mark the
purchase paid.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from django_orderpay.models import Checkout, OrderStatus
from tests.test_example_shop import check_out, products, shop, status_json  # noqa: F401

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(client):
    """The shop at a host name a URL validator takes (``testserver`` has no dot)."""
    client.defaults["SERVER_NAME"] = "shop.example.com"
    return client


def go_to_pagbank(client, purchase):
    return client.post(reverse("shop:pay_on_pagbank", args=[purchase.reference]))


def test_pay_on_pagbank_sends_the_shopper_to_the_purchases_page(client, products, shop):
    purchase = check_out(client, products)
    page = client.get(reverse("shop:pay", args=[purchase.reference])).content.decode()
    assert "Pay on PagBank" in page

    answer = go_to_pagbank(client, purchase)

    checkout = Checkout.objects.get()
    assert answer.status_code == 302
    assert answer["Location"] == checkout.pay_url
    assert checkout.shop_object == purchase
    assert checkout.amount_value == purchase.total
    assert checkout.redirect_url == f"http://shop.example.com{purchase.get_absolute_url()}"
    assert [item["name"] for item in checkout.data["items"]] == ["Camiseta", "Caneca"]
    assert checkout.data["shipping"]["address"]["postal_code"] == purchase.postal_code
    # Back from PagBank before any notification: the page says what it waits for.
    assert status_json(client, purchase)["status"] == "WAITING_CHECKOUT"
    # Going again reuses the page while it takes payments.
    assert go_to_pagbank(client, purchase)["Location"] == checkout.pay_url
    assert Checkout.objects.count() == 1


def test_paid_on_pagbanks_page_the_purchase_is_paid(
    client, products, shop, django_capture_on_commit_callbacks
):
    purchase = check_out(client, products)
    go_to_pagbank(client, purchase)
    checkout = Checkout.objects.get()

    shop.control("POST", f"checkouts/{checkout.provider_id}/pay", {"method": "PIX"})
    with django_capture_on_commit_callbacks(execute=True):
        shop.deliver_notifications(client)

    state = status_json(client, purchase)
    assert state["status"] == OrderStatus.PAID
    assert state["label"] == "Paid"
    (order,) = purchase.payment_orders()
    assert order.checkout == checkout
    page = client.get(reverse("shop:pay", args=[purchase.reference]), follow=True)
    assert "This purchase is paid already: there is nothing left to pay." in page.content.decode()


def test_a_second_payment_on_pagbank_is_refunded_by_the_shop(
    client, products, shop, django_capture_on_commit_callbacks
):
    purchase = check_out(client, products)
    go_to_pagbank(client, purchase)
    checkout = Checkout.objects.get()
    for method in ("CREDIT_CARD", "PIX"):
        shop.control("POST", f"checkouts/{checkout.provider_id}/pay", {"method": method})
        with django_capture_on_commit_callbacks(execute=True):
            shop.deliver_notifications(client)

    statuses = sorted(
        order.charges.get().status for order in purchase.payment_orders().order_by("pk")
    )
    assert statuses == ["CANCELED", "PAID"]
    assert status_json(client, purchase)["status"] == OrderStatus.PAID
