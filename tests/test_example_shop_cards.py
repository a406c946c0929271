"""The example shop's card extras through the Django test client: "add a card", debit,
and the pay page's 3-D Secure and installment plans (the browser's part: tests/browser)."""

from __future__ import annotations

import html
import json

import pytest
from django.urls import reverse

from django_orderpay.models import CardToken, Order
from tests.test_example_shop import (  # noqa: F401 (fixtures)
    PT_BR,
    check_out,
    encrypted,
    maria,
    pay_card,
    products,
    shop,
)

pytestmark = pytest.mark.django_db

FRICTIONLESS = "4000000000002701"
CHALLENGED = "4000000000002503"


@pytest.mark.parametrize(("card", "challenged"), [(CHALLENGED, True), (FRICTIONLESS, False)])
def test_the_testing_kit_authenticates_a_card_the_shop_then_charges(
    client, products, shop, settings, card, challenged
):
    """A shop's own test with THREEDS "always": the kit's helper plays the page's SDK."""
    settings.ORDERPAY = {**settings.ORDERPAY, "THREEDS": "always"}
    purchase = check_out(client, products)

    refused = pay_card(client, purchase, card)  # no authentication: nothing is charged
    assert refused.status_code == 302 and not Order.objects.exists()

    authenticated = shop.authenticate_3ds(card, purchase.total)
    assert authenticated.challenged is challenged
    assert authenticated.id.startswith("3DS_") and authenticated.status == "AUTH_FLOW_COMPLETED"
    paid = pay_card(client, purchase, card, **authenticated.form_data())

    assert paid.status_code == 302
    charge = Order.objects.get().charges.get()
    assert charge.status == "PAID"
    method = charge.data["payment_method"]["authentication_method"]
    assert (method["id"], method["status"]) == (authenticated.id, "AUTHENTICATED")


def test_the_testing_kit_fails_a_challenge_answered_with_the_wrong_code(shop, settings):
    settings.ORDERPAY = {**settings.ORDERPAY, "THREEDS": "always"}
    failed = shop.authenticate_3ds(CHALLENGED, 5990, challenge_code="0000")
    assert (failed.id, failed.status, failed.challenged) == (None, "CHANGE_PAYMENT_METHOD", True)
    assert failed.form_data() == {
        "authentication_id": "",
        "authentication_status": "CHANGE_PAYMENT_METHOD",
    }
    # The page posts the card encrypted, as the kit accepts it too.
    encrypted_card = shop.authenticate_3ds(encrypted(CHALLENGED), 5990)
    assert encrypted_card.challenged and encrypted_card.id


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

    authenticated = shop.authenticate_3ds(
        FRICTIONLESS,
        purchase.total,
        payment_type="DEBIT_CARD",
        billing_address=config["billingAddress"],
    )
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
            **{f"debit-{name}": value for name, value in authenticated.form_data().items()},
        },
    )
    assert paid.status_code == 302
    charge = Order.objects.get().charges.get()
    assert (charge.status, charge.payment_method) == ("PAID", "DEBIT_CARD")
    # The status page says it was the debit card, in the shopper's language.
    page = client.get(purchase.get_absolute_url()).content.decode()
    assert "with the Visa debit card •••• 2701" in page
    assert "with Visa •••• 2701" not in page
    page = client.get(purchase.get_absolute_url(), **PT_BR).content.decode()
    assert "com o cartão de débito Visa •••• 2701" in page


def test_debit_is_not_offered_when_the_shop_says_so(client, products, shop, settings):
    settings.SHOP_DEBIT_CARDS = False
    purchase = check_out(client, products)
    page = client.get(reverse("shop:pay", args=[purchase.reference])).content.decode()
    assert "pay-debit" not in page
    response = client.post(reverse("shop:pay_debit", args=[purchase.reference]), {})
    assert response.status_code == 404
