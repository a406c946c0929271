"""The purchase's page and the shopper's history list every payment and every refund.

A Pix QR code left open and paid after the card: the shop refunds the Pix at
once (``payment_duplicated``), and the shopper reads both payments, and why
the second was given back, in their language.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from django_orderpay import services
from django_orderpay.models import Charge, ChargeStatus, QrCode
from tests.test_example_shop import (  # noqa: F401 (fixtures)
    PT_BR,
    check_out,
    maria,
    pay_card,
    products,
    shop,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def paid_twice(client, products, shop, maria, django_capture_on_commit_callbacks):
    """Maria's purchase paid by card, then by the Pix she had left open (refunded)."""
    client.force_login(maria)
    purchase = check_out(client, products)
    client.post(reverse("shop:pay_pix", args=[purchase.reference]))  # left open
    with django_capture_on_commit_callbacks(execute=True):
        pay_card(client, purchase)
    with django_capture_on_commit_callbacks(execute=True):
        shop.pay_pix(QrCode.objects.get().provider_id)
        shop.deliver_notifications(client)
    pix = Charge.objects.get(payment_method="PIX")
    assert (pix.status, pix.amount_refunded) == (ChargeStatus.CANCELED, 15470)
    return purchase


def test_the_page_lists_both_payments_and_says_why_one_was_given_back(client, paid_twice):
    page = client.get(paid_twice.get_absolute_url()).content.decode()

    assert "Paid: R$ 154.70 with Visa •••• 1111." in page
    assert "Paid: R$ 154.70 by Pix. Refunded in full (R$ 154.70): the purchase had already " in (
        page
    )
    assert "so this second payment was given back." in page
    history = client.get(reverse("shop:purchases")).content.decode()
    assert "by Pix. Refunded in full (R$ 154.70)" in history
    assert "Paid: R$ 154.70 with Visa •••• 1111." in history


def test_the_same_in_brazilian_portuguese(client, paid_twice):
    page = client.get(paid_twice.get_absolute_url(), **PT_BR).content.decode()

    assert "Pago: R$ 154,70 com Visa •••• 1111." in page
    assert (
        "Pago: R$ 154,70 com Pix. Reembolsado por inteiro (R$ 154,70): a compra já estava paga, "
        "então este segundo pagamento foi devolvido."
    ) in page


def test_a_partial_refund_is_listed_with_what_was_given_back(client, products, shop, maria):
    client.force_login(maria)
    purchase = check_out(client, products)
    pay_card(client, purchase)
    services.cancel_charge(Charge.objects.get(), 3890)

    page = client.get(purchase.get_absolute_url()).content.decode()

    assert "Paid: R$ 154.70 with Visa •••• 1111. R$ 38.90 of it was refunded." in page
    assert "Partially refunded: R$ 38.90" in page
    # What the shopper now pays for the purchase is what was kept.
    assert "Total charged" in page and "R$ 115.80" in page
