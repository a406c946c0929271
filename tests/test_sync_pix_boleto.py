"""Pix QR codes and boleto charges mirrored from the provider's answers.

A Pix order has no charge until its QR code is paid: its status is WAITING
while the QR may be paid (whatever attempts were declined), EXPIRED once it
cannot be, PAID once a PIX charge is. A boleto charge is WAITING until its
payer pays it, with its due date, barcode and PDF kept.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from django_orderpay.models import Charge, OrderStatus, QrCode
from django_orderpay.sync import sync_order
from django_orderpay.testing.provider_json import (
    boleto_charge_json,
    charge_json,
    order_json,
    pix_charge_json,
    provider_id,
    qr_code_json,
)

pytestmark = pytest.mark.django_db


def test_a_pix_order_waits_with_its_qr_code_mirrored():
    qr = qr_code_json(amount=1990)

    order = sync_order(order_json(qr_code=qr), source="api")

    assert order.status == OrderStatus.WAITING
    row = order.qr_codes.get()
    assert (row.provider_id, row.amount_value) == (qr["id"], 1990)
    assert row.text == qr["text"]
    assert row.image_url == qr["links"][0]["href"]
    assert row.base64_url == qr["links"][1]["href"]
    assert row.arrangements == ["PIX"]
    assert not row.is_expired()
    assert abs(row.expires_at - (timezone.now() + dt.timedelta(days=1))) < dt.timedelta(seconds=5)


def test_paying_the_qr_code_makes_the_order_paid():
    order_id, qr = provider_id("ORDE_"), qr_code_json()
    sync_order(order_json(order_id=order_id, qr_code=qr), source="api")

    order = sync_order(
        order_json(order_id=order_id, qr_code=qr, charges=[pix_charge_json()]),
        source="notification",
    )

    assert order.status == OrderStatus.PAID
    charge = order.charges.get()
    assert (charge.payment_method, charge.status) == ("PIX", "PAID")
    assert charge.pix["end_to_end_id"].startswith("E")
    assert QrCode.objects.count() == 1  # the same QR, updated in place


def test_an_open_qr_code_with_declined_attempts_is_still_payable():
    declined = charge_json(status="DECLINED")

    order = sync_order(order_json(qr_code=qr_code_json(), charges=[declined]), source="api")

    assert order.status == OrderStatus.WAITING


def test_an_expired_unpaid_qr_code_makes_the_order_expired():
    past = timezone.now() - dt.timedelta(minutes=1)

    order = sync_order(order_json(qr_code=qr_code_json(expires_at=past)), source="sync")

    assert order.status == OrderStatus.EXPIRED
    assert order.qr_codes.get().is_expired()


def test_a_boleto_waits_with_its_due_date_barcode_and_pdf():
    due = timezone.localdate() + dt.timedelta(days=3)

    order = sync_order(order_json(charges=[boleto_charge_json(due_date=due)]), source="api")

    charge = order.charges.get()
    assert (order.status, charge.status) == (OrderStatus.WAITING, "WAITING")
    assert (charge.payment_method, charge.due_date) == ("BOLETO", due)
    assert len(charge.boleto["barcode"]) == 47
    assert charge.pdf_url.endswith(".pdf")
    assert charge.image_url.endswith(".png")
    assert charge.refundable_amount == 0


def test_a_paid_boleto_then_its_refund():
    charge_id, order_id = provider_id("CHAR_"), provider_id("ORDE_")
    waiting = boleto_charge_json(charge_id=charge_id, amount=15000)
    sync_order(order_json(order_id=order_id, charges=[waiting]), source="api")

    paid = boleto_charge_json(charge_id=charge_id, amount=15000, status="PAID")
    order = sync_order(order_json(order_id=order_id, charges=[paid]), source="notification")
    assert order.status == OrderStatus.PAID
    assert Charge.objects.get().refundable_amount == 15000


def test_a_boleto_past_due_is_canceled_by_the_provider():
    charge_id, order_id = provider_id("CHAR_"), provider_id("ORDE_")
    sync_order(
        order_json(order_id=order_id, charges=[boleto_charge_json(charge_id=charge_id)]),
        source="api",
    )

    expired = boleto_charge_json(charge_id=charge_id, status="CANCELED", paid=0)
    order = sync_order(order_json(order_id=order_id, charges=[expired]), source="notification")

    assert order.status == OrderStatus.CANCELED
    assert order.charges.get().effective_status == "CANCELED"


def test_a_due_date_that_is_not_a_date_is_left_empty_with_a_warning(caplog):
    charge = boleto_charge_json()
    charge["payment_method"]["boleto"]["due_date"] = "tomorrow"

    order = sync_order(order_json(charges=[charge]), source="api")

    assert order.charges.get().due_date is None
    assert "is not a date" in caplog.text
