"""The example shop when a card payment's answer is lost and the shopper pays again.

The shopper's browser encrypts the card again on every submit; the shop
calls the same service each time. Whatever the shopper does, the provider
charges once, and the purchase shows paid once its notification arrives.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from django_orderpay.client import get_client
from django_orderpay.models import Operation, Order
from tests.test_example_shop import check_out, pay_card, products, shop, status_json

__all__ = ["products", "shop"]


@pytest.mark.parametrize("fault", ["timeout", "lost_response"])
def test_paying_again_after_a_lost_answer_charges_once(client, products, shop, settings, fault):
    settings.ORDERPAY = {**settings.ORDERPAY, "RETRIES": 0, "TIMEOUT": 0.3}
    purchase = check_out(client, products)
    client.get(reverse("shop:pay", args=[purchase.reference]))
    # The charge goes through at the provider; its answer never reaches the shop.
    shop.inject_fault(fault, delay=1, path_prefix="/orders/")
    first = pay_card(client, purchase)
    assert first["Location"] == purchase.get_absolute_url()

    # The shopper goes back and pays again, twice (the card encrypted anew each time).
    for _ in range(2):
        again = pay_card(client, purchase)
        assert again.status_code == 302

    order = Order.objects.get()
    [charge_at_provider] = get_client().get_order(order.provider_id)["charges"]
    assert charge_at_provider["status"] == "PAID"
    shop.deliver_notifications()
    order.refresh_from_db()
    assert order.status == "PAID"
    assert [c.provider_id for c in order.charges.all()] == [charge_at_provider["id"]]
    assert not Operation.objects.open().exists()
    assert status_json(client, purchase)["status"] == "PAID"
