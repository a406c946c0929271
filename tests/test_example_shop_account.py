"""The example shop for a logged-in shopper: their purchases, their saved cards, their pages.

A purchase made logged in is seen by its buyer only; a guest's by its link.
Saved cards are the approved ones, each once, and the shopper removes them.
"""

from __future__ import annotations

import html

import pytest
from django.urls import reverse

from django_orderpay import services
from django_orderpay.models import CardToken, Order
from example_project.shop.models import Purchase
from tests.test_example_shop import (  # noqa: F401 (fixtures)
    APPROVED,
    CUSTOMER,
    DECLINED,
    add,
    check_out,
    maria,
    pay_card,
    products,
    shop,
)

pytestmark = pytest.mark.django_db


def page_of(client, url) -> str:
    response = client.get(url)
    assert response.status_code == 200, response.status_code
    return html.unescape(response.content.decode())


def second_purchase(client, products):
    add(client, products["caneca"])
    response = client.post(reverse("shop:checkout"), CUSTOMER)
    assert response.status_code == 302
    return Purchase.objects.latest("pk")


def test_a_logged_in_purchase_is_its_buyers_only(client, products, shop, maria, django_user_model):
    client.force_login(maria)
    purchase = check_out(client, products)
    urls = [
        purchase.get_absolute_url(),
        reverse("shop:status_json", args=[purchase.reference]),
        reverse("shop:pay", args=[purchase.reference]),
    ]
    assert all(client.get(url).status_code == 200 for url in urls)

    client.force_login(django_user_model.objects.create_user("joao"))
    assert [client.get(url).status_code for url in urls] == [404, 404, 404]
    assert client.post(reverse("shop:pay_pix", args=[purchase.reference])).status_code == 404

    client.logout()
    anonymous = client.get(purchase.get_absolute_url())
    assert anonymous.status_code == 302
    assert anonymous["Location"].startswith(reverse("shop:login") + "?next=")
    assert not Order.objects.exists()


def test_a_guest_purchase_is_reached_by_its_link(client, products, shop, django_user_model):
    purchase = check_out(client, products)  # no one logged in

    client.force_login(django_user_model.objects.create_user("joao"))

    assert client.get(purchase.get_absolute_url()).status_code == 200


def test_the_purchase_history_lists_the_shoppers_purchases_only(
    client, products, shop, maria, django_user_model
):
    client.force_login(maria)
    first = check_out(client, products)
    pay_card(client, first)
    second = second_purchase(client, products)

    page = page_of(client, reverse("shop:purchases"))

    assert f"#{first.pk}" in page and f"#{second.pk}" in page
    assert "Paid" in page and "Not paid yet" in page
    client.force_login(django_user_model.objects.create_user("joao"))
    assert f"#{first.pk}" not in page_of(client, reverse("shop:purchases"))


def test_account_pages_need_a_login(client, db):
    for name in ("shop:purchases", "shop:cards"):
        response = client.get(reverse(name))
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("shop:login"))


def test_refunds_are_shown_on_the_purchase_page(client, products, shop, maria):
    client.force_login(maria)
    purchase = check_out(client, products)
    pay_card(client, purchase)
    charge = Order.objects.get().charges.get()

    services.cancel_charge(charge, 3890)
    partly = page_of(client, purchase.get_absolute_url())
    services.cancel_charge(Order.objects.get().charges.get())
    whole = page_of(client, purchase.get_absolute_url())

    assert "Partially refunded: R$ 38.90" in partly
    assert "Refunded: R$ 154.70" in whole
    assert "Refunded: R$ 154.70" in page_of(client, reverse("shop:purchases"))


def test_saved_cards_are_listed_once_and_removed_by_their_owner(client, products, shop, maria):
    client.force_login(maria)
    pay_card(client, check_out(client, products), DECLINED, save_card="on")
    assert "You have no saved cards" in page_of(client, reverse("shop:cards"))  # declined
    pay_card(client, second_purchase(client, products), APPROVED, save_card="on")
    pay_card(client, second_purchase(client, products), APPROVED, save_card="on")

    page = page_of(client, reverse("shop:cards"))
    assert page.count('data-testid="remove-card"') == 1  # the same card saved twice
    token = CardToken.objects.active().get()

    response = client.post(reverse("shop:cards"), {"remove": token.pk}, follow=True)

    assert "was removed from your saved cards" in html.unescape(response.content.decode())
    assert not CardToken.objects.active().exists()
    pay_page = page_of(
        client, reverse("shop:pay", args=[second_purchase(client, products).reference])
    )
    assert "Pay with a saved card" not in pay_page


def test_a_card_that_is_not_yours_is_not_removed(client, products, shop, maria, django_user_model):
    client.force_login(maria)
    pay_card(client, check_out(client, products), APPROVED, save_card="on")
    token = CardToken.objects.get()
    client.force_login(django_user_model.objects.create_user("joao"))

    for value in (str(token.pk), "abc", "9" * 40, ""):
        response = client.post(reverse("shop:cards"), {"remove": value}, follow=True)
        assert "That card is not among your saved cards." in html.unescape(
            response.content.decode()
        )

    token.refresh_from_db()
    assert token.is_active
