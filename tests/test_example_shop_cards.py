"""The example shop's card extras through the Django test client: "add a card", debit,
and the pay page's 3-D Secure and installment plans (the browser's part: tests/browser)."""

from __future__ import annotations

import html
import json

import pytest
import requests
from django.urls import reverse

from django_orderpay import services
from django_orderpay.models import CardToken, Order
from tests.test_example_shop import (  # noqa: F401 (fixtures)
    check_out,
    encrypted,
    maria,
    products,
    shop,
)

pytestmark = pytest.mark.django_db

FRICTIONLESS = "4000000000002701"


def test_add_a_card_without_a_charge_then_it_pays(client, products, shop, maria):
    url = reverse("shop:add_card")
    assert client.get(url).status_code == 302  # a stored card needs its owner logged in
    client.force_login(maria)
    page = html.unescape(client.get(url).content.decode())
    assert "Nothing is charged now." in page and 'name="encrypted_card"' in page

    response = client.post(
        url, {"holder_name": "Maria Souza", "encrypted_card": encrypted("5240082975622454")}
    )
    assert response.status_code == 302 and response.url == reverse("shop:cards")
    token = CardToken.objects.get()
    assert (token.user, token.brand, token.last_digits) == (maria, "mastercard", "2454")
    assert not Order.objects.exists()
    assert "Mastercard" in html.unescape(client.get(reverse("shop:cards")).content.decode())

    purchase = check_out(client, products)
    paid = client.post(
        reverse("shop:pay_saved_card", args=[purchase.reference]),
        {"card_token": token.pk, "installments": "1"},
    )
    assert paid.status_code == 302
    assert Order.objects.get().charges.get().card_token == token


def test_add_a_card_refused_says_why_and_stores_nothing(client, shop, maria):
    client.force_login(maria)
    response = client.post(
        reverse("shop:add_card"),
        {"holder_name": "Maria Souza", "encrypted_card": encrypted("4929291898380766")},
    )
    assert response.status_code == 200
    assert response.context["form"].non_field_errors()
    assert not CardToken.objects.exists()


def test_pay_page_runs_3ds_and_debit_pays_authenticated(client, products, shop, settings):
    settings.ORDERPAY = {**settings.ORDERPAY, "THREEDS": "always"}
    settings.SHOP_DEBIT_CARDS = True
    purchase = check_out(client, products)
    raw = client.get(reverse("shop:pay", args=[purchase.reference])).content.decode()
    assert raw.count("data-orderpay-3ds=") == 2  # the credit and the debit card forms
    assert shop.token not in raw
    attribute = raw.split('data-orderpay-3ds="', 1)[1].split('"', 1)[0]
    config = json.loads(html.unescape(attribute))
    assert config["billingAddress"]["postalCode"] == "01452002"

    session = services.create_3ds_session()
    data = {
        "customer": {"name": "Jose da Silva", "email": "jose@example.com"},
        "paymentMethod": {
            "type": "DEBIT_CARD",
            "installments": 1,
            "card": {"number": FRICTIONLESS, "expMonth": "12", "expYear": "2030"},
        },
        "amount": {"value": purchase.total, "currency": "BRL"},
        "billingAddress": config["billingAddress"],
    }
    answer = requests.post(
        shop.base_url + "/checkout-sdk/authentications",
        json={"session": session.session, "data": data},
        timeout=5,
    ).json()
    url = reverse("shop:pay_debit", args=[purchase.reference])
    refused = client.post(
        url, {"debit-holder_name": "Jose da Silva", "debit-encrypted_card": encrypted(FRICTIONLESS)}
    )
    assert refused.status_code == 302 and not Order.objects.exists()
    paid = client.post(
        url,
        {
            "debit-holder_name": "Jose da Silva",
            "debit-encrypted_card": encrypted(FRICTIONLESS),
            "debit-authentication_id": answer["id"],
            "debit-authentication_status": "AUTH_FLOW_COMPLETED",
        },
    )
    assert paid.status_code == 302
    charge = Order.objects.get().charges.get()
    assert (charge.status, charge.payment_method) == ("PAID", "DEBIT_CARD")


def test_debit_is_not_offered_when_the_shop_says_so(client, products, shop, settings):
    settings.SHOP_DEBIT_CARDS = False
    purchase = check_out(client, products)
    page = client.get(reverse("shop:pay", args=[purchase.reference])).content.decode()
    assert "pay-debit" not in page
    response = client.post(reverse("shop:pay_debit", args=[purchase.reference]), {})
    assert response.status_code == 404
