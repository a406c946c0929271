"""The example shop's Pix and boleto, through Django's test client and the emulator over HTTP.

The shopper picks Pix (or the PagBank QR, or a boleto) on the payment page;
the status page shows what to pay and follows the payment to its end. The
browser half (the QR visible, copying, the page moving on) is in
tests/browser/test_pix_boleto.py.
"""

from __future__ import annotations

import html
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from django_orderpay import rules
from django_orderpay.models import Order, QrCode
from example_project.shop.payments import BOLETO_DAYS, PIX_MINUTES
from tests.test_example_shop import (  # noqa: F401 (fixtures)
    add,
    check_out,
    pay_card,
    products,
    shop,
    status_json,
)

pytestmark = pytest.mark.django_db


def pay_pix(client, purchase, **data):
    return client.post(reverse("shop:pay_pix", args=[purchase.reference]), data)


def pay_boleto(client, purchase):
    return client.post(reverse("shop:pay_boleto", args=[purchase.reference]))


def status_page(client, purchase) -> str:
    return html.unescape(client.get(purchase.get_absolute_url()).content.decode())


def test_the_payment_page_offers_pix_and_boleto(client, products, shop):
    purchase = check_out(client, products)

    page = client.get(reverse("shop:pay", args=[purchase.reference])).content.decode()

    assert 'data-testid="pay-pix"' in page
    assert 'data-testid="pay-boleto"' in page
    assert 'data-testid="pay-pagbank-qr"' in page  # a computer: the app's QR, not its link


def test_pix_shows_the_qr_code_its_code_and_the_time_left(client, products, shop):
    purchase = check_out(client, products)

    response = pay_pix(client, purchase)

    assert response.status_code == 302 and response.url == purchase.get_absolute_url()
    order = Order.objects.get()
    qr_code = order.qr_codes.get()
    assert qr_code.amount_value == purchase.total == 15470
    assert qr_code.arrangements == ["PIX"]
    minutes = (qr_code.expires_at - order.created_at).total_seconds() / 60
    assert PIX_MINUTES - 1 < minutes <= PIX_MINUTES
    page = status_page(client, purchase)
    assert f'src="{qr_code.image_url}"' in page
    assert f'value="{qr_code.text}"' in page
    assert "data-orderpay-countdown" in page and "data-orderpay-copy" in page
    assert status_json(client, purchase) == {
        "status": "WAITING_PIX",
        "label": "Waiting for the Pix payment",
        "detail": "Scan the QR code or copy the code to pay; this page updates when it is paid.",
        "settled": False,
    }


def test_pix_twice_reuses_the_open_qr_code(client, products, shop):
    purchase = check_out(client, products)

    pay_pix(client, purchase)
    pay_pix(client, purchase)

    assert QrCode.objects.count() == 1
    assert len(shop.order_ids()) == 1


def test_the_pagbank_qr_is_shown_without_a_code_to_copy(client, products, shop):
    purchase = check_out(client, products)

    pay_pix(client, purchase, arrangement="PAGBANK")

    assert QrCode.objects.get().arrangements == ["PAGBANK"]
    page = status_page(client, purchase)
    assert 'data-testid="pix-qr-code"' in page
    assert 'data-testid="pix-text"' not in page
    assert "Scan it with the PagBank app." in page
    # Named for the app, not as a Pix.
    assert "Waiting for payment in the PagBank app" in page
    assert "Pay R$ 154.70 with the PagBank app" in page and "by Pix" not in page


def test_an_expired_pix_shows_no_code_to_pay(client, products, shop):
    purchase = check_out(client, products)
    pay_pix(client, purchase)
    QrCode.objects.update(expires_at=timezone.now() - timedelta(seconds=1))

    page = status_page(client, purchase)

    assert "This Pix code has expired." in page
    assert 'data-testid="pix-qr-code"' not in page and 'data-testid="pix-text"' not in page


def test_pix_paid_by_the_payer_makes_the_purchase_paid(client, products, shop):
    purchase = check_out(client, products)
    pay_pix(client, purchase)

    shop.pay_pix(QrCode.objects.get().provider_id)
    shop.deliver_notifications(client)

    assert status_json(client, purchase)["status"] == "PAID"
    assert status_json(client, purchase)["detail"] == "Paid: R$ 154.70 by Pix."
    assert status_json(client, purchase)["settled"] is True


def test_pix_simulated_from_the_status_page(client, products, shop):
    purchase = check_out(client, products)
    pay_pix(client, purchase)
    assert 'data-testid="simulate-pix-payment"' in status_page(client, purchase)

    response = client.post(reverse("shop:simulate_pix_payment", args=[purchase.reference]))

    assert response.status_code == 302
    assert status_json(client, purchase)["status"] == "PAID"


def test_a_pix_that_expired_unpaid_may_be_paid_again(client, products, shop):
    purchase = check_out(client, products)
    pay_pix(client, purchase)
    order = Order.objects.get()
    # Its time ran out (the provider answers the same: nothing was paid).
    order.qr_codes.update(expires_at=order.created_at)
    Order.objects.filter(pk=order.pk).update(status="EXPIRED")

    state = status_json(client, purchase)

    assert (state["status"], state["settled"]) == ("EXPIRED", True)
    assert "You may pay again" in state["detail"]
    pay_pix(client, purchase)
    assert QrCode.objects.count() == 2
    assert status_json(client, purchase)["status"] == "WAITING_PIX"


def test_boleto_shows_its_line_due_date_and_pdf(client, products, shop):
    purchase = check_out(client, products)

    response = pay_boleto(client, purchase)

    assert response.status_code == 302
    charge = Order.objects.get().charges.get()
    assert charge.payment_method == "BOLETO"
    assert charge.amount_value == purchase.total
    assert charge.due_date == rules.provider_today() + timedelta(days=BOLETO_DAYS)
    holder = charge.data["payment_method"]["boleto"]["holder"]
    assert (holder["name"], holder["tax_id"]) == ("Jose da Silva", "12345678909")
    page = status_page(client, purchase)
    assert f'value="{charge.boleto["formatted_barcode"]}"' in page
    assert f'href="{charge.pdf_url}"' in page
    assert 'data-testid="emulator-bank"' in page
    assert status_json(client, purchase)["status"] == "WAITING_BOLETO"


def test_boleto_twice_reuses_the_waiting_one(client, products, shop):
    purchase = check_out(client, products)

    pay_boleto(client, purchase)
    pay_boleto(client, purchase)

    assert len(shop.order_ids()) == 1


def test_boleto_paid_by_the_payer_makes_the_purchase_paid(client, products, shop):
    purchase = check_out(client, products)
    pay_boleto(client, purchase)

    shop.pay_boleto(Order.objects.get().charges.get().provider_id)
    shop.deliver_notifications(client)

    assert status_json(client, purchase)["status"] == "PAID"
    assert status_json(client, purchase)["detail"] == "Paid: R$ 154.70 by boleto."


def test_a_boleto_cancelled_unpaid_after_its_due_date_may_be_paid_again(client, products, shop):
    purchase = check_out(client, products)
    pay_boleto(client, purchase)
    shop.advance_clock((BOLETO_DAYS + 1) * 86400 + 3600)
    shop.control("GET", "clock")  # the provider's next call cancels it, and notifies
    shop.deliver_notifications(client)

    state = status_json(client, purchase)

    assert (state["status"], state["settled"]) == ("EXPIRED", True)
    assert 'data-testid="pay-link"' in status_page(client, purchase)


def test_a_card_after_a_pix_goes_to_an_order_of_its_own(client, products, shop):
    purchase = check_out(client, products)
    pay_pix(client, purchase)

    pay_card(client, purchase)

    orders = Order.objects.order_by("pk")
    assert [order.qr_codes.exists() for order in orders] == [True, False]
    assert status_json(client, purchase)["status"] == "PAID"


def test_the_status_page_follows_with_the_librarys_poller(client, products, shop):
    purchase = check_out(client, products)

    page = status_page(client, purchase)

    assert f'data-orderpay-poll="{reverse("shop:status_json", args=[purchase.reference])}"' in page
    assert "django_orderpay/payment.js" in page


def test_a_long_name_is_shortened_to_the_30_characters_a_boleto_prints(client, products, shop):
    """PagBank takes a boleto payer's name of 1 to 30 characters (the charge object's table);
    the shop's form says so, and its boleto carries the name cut at a word."""
    add(client, products["caneca"])
    form = client.get(reverse("shop:checkout")).content.decode()
    assert "A boleto prints the first 30 characters of the name." in html.unescape(form)
    long_name = "Maria Aparecida dos Santos Oliveira Ferreira"  # 44 characters
    purchase = check_out(client, products, customer_name=long_name)

    assert pay_boleto(client, purchase).status_code == 302
    charge = Order.objects.get().charges.get()
    assert charge.boleto["holder"]["name"] == "Maria Aparecida dos Santos"
    assert Order.objects.get().data["customer"]["name"] == long_name
