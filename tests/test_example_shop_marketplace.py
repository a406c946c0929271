"""The example shop as a marketplace: a seller connects their PagBank account through PagBank
Connect, their products go on sale, and a purchase of them is paid split between the shop
(primary receiver) and the seller. Through the Django test client and the emulator."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from django_orderpay import services
from django_orderpay.emulator.state.oauth import seller_account
from django_orderpay.models import AccountState, ConnectedAccount
from example_project.shop.models import Product, Seller
from tests.test_example_shop import CUSTOMER, add, pay_card, products, shop, status_json

__all__ = ["products", "shop"]

pytestmark = pytest.mark.django_db

ANA = "ana@example.com"


@pytest.fixture
def marketplace(shop, orderpay_connect, orderpay, products):
    """The shop's own account as ACCOUNT_ID; the marketplace's seller seeded."""
    orderpay(ACCOUNT_ID=shop.account_id)
    call_command("seed_marketplace", stdout=StringIO())
    return Seller.objects.get()


def _connect_seller(orderpay_connect, client, seller):
    client.force_login(seller.user)
    return orderpay_connect.authorize(
        client, ANA, start_url=reverse("shop:seller_connect"), next=reverse("shop:seller")
    )


def test_a_sellers_products_go_on_sale_once_they_connect(marketplace, orderpay_connect, client):
    listing = client.get(reverse("shop:products")).content.decode()
    assert "Bolsa de crochê" not in listing
    page = client.get(reverse("shop:seller"))
    assert page.status_code == 302  # log in first
    client.force_login(marketplace.user)
    assert 'data-testid="seller-connect"' in client.get(reverse("shop:seller")).content.decode()

    back = _connect_seller(orderpay_connect, client, marketplace)

    assert back.status_code == 302 and back["Location"] == reverse("shop:seller")
    account = ConnectedAccount.objects.get()
    assert (account.account_id, account.owner) == (seller_account(ANA), marketplace)
    assert marketplace.account == account
    assert 'data-testid="seller-connected"' in client.get(reverse("shop:seller")).content.decode()
    listing = client.get(reverse("shop:products")).content.decode()
    assert "Bolsa de crochê" in listing and "Ateliê da Ana" in listing


def test_a_seller_connects_only_their_own_account(
    marketplace, orderpay_connect, client, django_user_model
):
    _connect_seller(orderpay_connect, client, marketplace)
    account = ConnectedAccount.objects.get()
    # Connected: a second new account is refused; the same one may be authorised again.
    assert client.get(reverse("shop:seller_connect")).status_code == 403
    assert client.get(reverse("shop:seller_connect"), {"account": account.pk}).status_code == 302
    other = django_user_model.objects.create_user("bruno")
    Seller.objects.create(user=other, name="Bruno")
    client.force_login(other)
    assert client.get(reverse("shop:seller_connect"), {"account": account.pk}).status_code == 403
    shopper = django_user_model.objects.create_user("shopper")
    client.force_login(shopper)
    assert client.get(reverse("shop:seller")).status_code == 404
    assert client.get(reverse("shop:seller_connect")).status_code == 403


def _check_out_with_ana(client, products):
    client.logout()
    add(client, products["camiseta"])
    add(client, Product.objects.get(slug="bolsa-croche"), 2)
    response = client.post(reverse("shop:checkout"), CUSTOMER)
    assert response.status_code == 302
    from example_project.shop.models import Purchase

    return Purchase.objects.get()


def test_a_purchase_of_a_sellers_products_is_paid_split(
    marketplace, orderpay_connect, client, products
):
    _connect_seller(orderpay_connect, client, marketplace)
    purchase = _check_out_with_ana(client, products)
    pay_page = client.get(reverse("shop:pay", args=[purchase.reference])).content.decode()
    assert 'data-testid="marketplace-note"' in pay_page
    assert 'data-testid="pay-card"' in pay_page
    for other in ("pay-pix", "pay-boleto", "pay-pagbank-qr", "pay-app", "pay-pagbank"):
        assert f'data-testid="{other}"' not in pay_page

    pay_card(client, purchase)

    assert status_json(client, purchase)["status"] == "PAID"
    charge = purchase.payment_orders().get().charges.get()
    split = services.get_split(charge)
    parts = {r["account"]["id"]: (r["type"], int(r["amount"]["value"])) for r in split.receivers}
    ana = 2 * 8900 * 90 // 100  # her lines, less the shop's 10 %
    assert parts == {
        orderpay_connect.emulator.account_id: ("PRIMARY", 5990 + 2 * 8900 - ana),
        seller_account(ANA): ("SECONDARY", ana),
    }


def test_a_purchase_of_a_sellers_products_is_not_paid_unsplit(
    marketplace, orderpay_connect, client, products
):
    _connect_seller(orderpay_connect, client, marketplace)
    purchase = _check_out_with_ana(client, products)
    for name in ("shop:pay_pix", "shop:pay_in_app", "shop:pay_boleto", "shop:pay_on_pagbank"):
        response = client.post(reverse(name, args=[purchase.reference]), follow=True)
        assert "paid by card" in response.content.decode()
    assert not purchase.payment_orders().exists()


def test_a_seller_who_must_authorise_again_sells_nothing(marketplace, orderpay_connect, client):
    _connect_seller(orderpay_connect, client, marketplace)
    ConnectedAccount.objects.update(state=AccountState.NEEDS_AUTHORIZATION)
    assert "Bolsa de crochê" not in client.get(reverse("shop:products")).content.decode()
    page = client.get(reverse("shop:seller")).content.decode()
    assert 'data-testid="seller-reauthorize"' in page
