"""A checkout page that offers both the card form and the saved cards has unique HTML ids.

Both forms have ``installments``: with Django's default ids both were
``id_installments``, so a label pointed at the wrong select and the page was
invalid HTML. Checked on the library's forms and on the example shop's page.
"""

from __future__ import annotations

from collections import Counter
from html.parser import HTMLParser

import pytest
from django.template import Context, Template
from django.urls import reverse

from django_orderpay import services
from django_orderpay.cardcrypto import encrypt_card
from django_orderpay.forms import CardPaymentForm, SavedCardForm
from django_orderpay.models import CardToken
from example_project.shop.models import Product, Purchase

CUSTOMER = {
    "customer_name": "Jose da Silva",
    "customer_email": "jose@example.com",
    "customer_tax_id": "123.456.789-09",
    "phone": "(11) 99999-9999",
    "postal_code": "01452-002",
    "street": "Avenida Brigadeiro Faria Lima",
    "number": "1384",
    "locality": "Pinheiros",
    "city": "Sao Paulo",
    "region_code": "SP",
}


class _Ids(HTMLParser):
    """Every ``id`` of a page, and every ``for`` of its labels."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: Counter[str] = Counter()
        self.label_targets: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids[found["id"]] += 1
        if tag == "label" and found.get("for"):
            self.label_targets.append(found["for"])


def ids_of(html: str) -> _Ids:
    parser = _Ids()
    parser.feed(html)
    return parser


def assert_ids_unique_and_labels_point_at_them(html: str) -> _Ids:
    parsed = ids_of(html)
    assert [i for i, n in parsed.ids.items() if n > 1] == []
    assert [t for t in parsed.label_targets if t not in parsed.ids] == []
    return parsed


def test_the_card_form_and_the_saved_card_form_have_their_own_ids(django_user_model, db):
    user = django_user_model.objects.create_user("maria")
    page = Template(
        "{% load orderpay %}{% orderpay_card_form card_form %}"
        "{{ saved_form.card_token }}{{ saved_form.installments.label_tag }}"
        "{{ saved_form.installments }}"
    ).render(
        Context(
            {
                "card_form": CardPaymentForm(user=user, amount=10000, request=None),
                "saved_form": SavedCardForm(user=user, amount=10000, request=None),
            }
        )
    )

    parsed = assert_ids_unique_and_labels_point_at_them(page)
    assert {"id_orderpay_card_installments", "id_orderpay_saved_card_installments"} <= set(
        parsed.ids
    )
    assert 'name="installments"' in page  # what is posted is unchanged


def test_a_shop_can_still_choose_its_ids():
    form = CardPaymentForm(auto_id="pay_%s", amount=10000, request=None)
    assert 'id="pay_installments"' in str(form["installments"])
    assert 'id="id_orderpay_card_installments"' in str(
        CardPaymentForm(request=None)["installments"]
    )


def test_the_shops_payment_page_with_saved_cards_has_unique_ids(
    client, orderpay_emulator, django_user_model
):
    product = Product.objects.create(name="Camiseta", slug="camiseta", price=5990)
    client.force_login(django_user_model.objects.create_user("maria", email="m@example.com"))

    def buy() -> Purchase:
        client.post(reverse("shop:cart_add", args=[product.pk]), {"quantity": 1})
        assert client.post(reverse("shop:checkout"), CUSTOMER).status_code == 302
        return Purchase.objects.order_by("-pk").first()

    first = buy()
    client.post(
        reverse("shop:pay_card", args=[first.reference]),
        {
            "holder_name": "Jose da Silva",
            "encrypted_card": encrypt_card(
                services.get_public_key(),
                number="4111111111111111",
                security_code="123",
                exp_month="12",
                exp_year="2030",
                holder="Jose",
            ),
            "installments": "1",
            "save_card": "on",
        },
    )
    assert CardToken.objects.count() == 1  # a saved card, so the next page offers it

    page = client.get(reverse("shop:pay", args=[buy().reference])).content.decode()

    assert 'data-testid="saved-card-form"' in page and 'data-testid="card-form"' in page
    assert page.count('name="installments"') == 2
    assert_ids_unique_and_labels_point_at_them(page)


pytestmark = pytest.mark.django_db
