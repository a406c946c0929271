"""3-D Secure can't be skipped on the browser's word: the attack through the example shop.

A card tester posts ``authentication_status=AUTH_NOT_SUPPORTED`` with no
authentication id, for a card whose 3-D Secure would ask for a challenge. By
default the shop refuses it before any charge; a shop that opts in
(``THREEDS_ALLOW_NOT_SUPPORTED``) charges it, and its admin says the charge
was not authenticated.
"""

from __future__ import annotations

import pytest
from django.contrib import messages
from django.urls import reverse

from django_orderpay.models import Charge, Order
from tests.test_example_shop import check_out, pay_card, products, shop

__all__ = ["products", "shop"]

pytestmark = pytest.mark.django_db

CHALLENGED = "4000000000002503"  # its 3-D Secure asks the bank's code
NOT_SUPPORTED_CLAIM = {"authentication_status": "AUTH_NOT_SUPPORTED", "authentication_id": ""}


@pytest.fixture
def always(orderpay):
    """The package's default: every credit card authenticated."""
    orderpay(THREEDS="always")


def test_a_forged_not_supported_status_charges_nothing(client, products, shop, always):
    purchase = check_out(client, products)
    response = pay_card(client, purchase, CHALLENGED, **NOT_SUPPORTED_CLAIM)
    assert response.status_code == 302
    said = [str(m) for m in messages.get_messages(response.wsgi_request)]
    assert any("does not authenticate this card" in text for text in said), said
    assert not Charge.objects.exists()
    assert not Order.objects.exists()  # refused before the provider was asked anything


def test_an_opted_in_shop_charges_it_and_its_admin_says_unauthenticated(
    client, admin_client, products, shop, always, orderpay
):
    orderpay(THREEDS_ALLOW_NOT_SUPPORTED=True)
    purchase = check_out(client, products)
    response = pay_card(client, purchase, CHALLENGED, **NOT_SUPPORTED_CLAIM)
    assert response.status_code == 302
    charge = Charge.objects.get()
    assert charge.status == "PAID"
    page = admin_client.get(reverse("admin:django_orderpay_charge_change", args=[charge.pk]))
    assert "not authenticated: sent without 3-D Secure" in page.content.decode()


def test_the_card_form_tells_the_script_whether_not_supported_may_post(
    client, products, shop, always, orderpay
):
    purchase = check_out(client, products)
    page = client.get(reverse("shop:pay", args=[purchase.reference])).content.decode()
    assert "&quot;allowNotSupported&quot;: false" in page
    orderpay(THREEDS_ALLOW_NOT_SUPPORTED=True)
    page = client.get(reverse("shop:pay", args=[purchase.reference])).content.decode()
    assert "&quot;allowNotSupported&quot;: true" in page
