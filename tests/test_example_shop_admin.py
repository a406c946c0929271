"""The example shop's own admin: prices as money, and a purchase's charges linked to their pages."""

from __future__ import annotations

import pytest
from django.urls import reverse

from django_orderpay import services
from django_orderpay.cardcrypto import encrypt_card
from django_orderpay.models import Charge
from example_project.shop.models import Product, Purchase
from tests.admin_support import client_for, make_user
from tests.test_checkout_html_ids import CUSTOMER

pytestmark = pytest.mark.django_db


def pay(client, purchase: Purchase, number: str) -> None:
    client.post(
        reverse("shop:pay_card", args=[purchase.reference]),
        {
            "holder_name": "Jose da Silva",
            "encrypted_card": encrypt_card(
                services.get_public_key(),
                number=number,
                security_code="123",
                exp_month="12",
                exp_year="2030",
                holder="Jose da Silva",
            ),
            "installments": "1",
        },
    )


@pytest.fixture
def purchase(client, orderpay_emulator) -> Purchase:
    """Two shirts bought, a declined card then an approved one."""
    shirt = Product.objects.create(name="Camiseta", slug="camiseta", price=5990)
    client.post(reverse("shop:cart_add", args=[shirt.pk]), {"quantity": 2})
    assert client.post(reverse("shop:checkout"), CUSTOMER).status_code == 302
    bought = Purchase.objects.get()
    pay(client, bought, "4929291898380766")
    pay(client, bought, "4111111111111111")
    return bought


@pytest.fixture
def staff():
    return client_for(make_user("boss", superuser=True))


def test_a_purchase_page_shows_money_and_links_each_charge(staff, purchase):
    page = staff.get(reverse("admin:shop_purchase_change", args=[purchase.pk])).content.decode()

    assert "R$ 59.90" in page  # the unit price, not 5990 cents
    assert "R$ 119.80" in page  # the line's subtotal and the purchase's total
    assert ">5990<" not in page
    charges = list(Charge.objects.order_by("-created_at", "-pk"))
    assert [c.status for c in charges] == ["PAID", "DECLINED"]
    for charge in charges:
        url = reverse("admin:django_orderpay_charge_change", args=[charge.pk])
        assert f'<a href="{url}">{charge.provider_id}</a>' in page
        assert staff.get(url).status_code == 200
    assert page.index(charges[0].provider_id) < page.index(charges[1].provider_id)  # newest first


def test_the_purchase_page_in_portuguese(staff, purchase):
    url = reverse("admin:shop_purchase_change", args=[purchase.pk])
    page = staff.get(url, HTTP_ACCEPT_LANGUAGE="pt-br").content.decode()

    assert "R$ 59,90" in page and "R$ 119,80" in page
    assert "Preço unitário" in page
    assert "Recusado (R$ 119,80)" in page and "Pago (R$ 119,80)" in page  # statuses in words


def test_the_lists_show_prices_and_totals_as_money(staff, purchase):
    purchases = staff.get(reverse("admin:shop_purchase_changelist")).content.decode()
    products = staff.get(reverse("admin:shop_product_changelist")).content.decode()

    assert "R$ 119.80" in purchases
    assert "R$ 59.90" in products


def test_a_purchase_without_payments_says_so(staff, client, orderpay_emulator):
    shirt = Product.objects.create(name="Camiseta", slug="camiseta", price=5990)
    client.post(reverse("shop:cart_add", args=[shirt.pk]), {"quantity": 1})
    client.post(reverse("shop:checkout"), CUSTOMER)

    response = staff.get(reverse("admin:shop_purchase_change", args=[Purchase.objects.get().pk]))

    assert response.status_code == 200
    field = response.content.decode().split("field-charges")[1].split("</fieldset>")[0]
    assert '<div class="readonly">-</div>' in field  # no charges yet
    assert "<a href" not in field
