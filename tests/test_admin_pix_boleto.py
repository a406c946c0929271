"""No card-only assumption: every admin page and management command over Pix and boleto.

A Pix order (paid), a Pix order still waiting, a boleto waiting and a boleto
paid, all made through the services on the emulator; then staff walk every
page of every django_orderpay admin (lists, searches, filters, each object,
its provider JSON, each action's confirmation page) and run every management
command. Nothing may fail; the Pix and boleto specifics must show; a paid Pix
and a paid boleto are refunded from the admin.
"""

from __future__ import annotations

import io

import pytest
from django.contrib import admin
from django.core.management import call_command
from django.urls import NoReverseMatch, reverse

from django_orderpay.models import Charge, ChargeStatus, Order
from django_orderpay.payloads import (
    QrCode,
)
from django_orderpay.services import create_order, simulate_pix_payment
from tests.admin_support import (
    action_names,
    changelist,
    client_for,
    confirmation_fields,
    make_user,
    messages_of,
    post_action,
)
from tests.payloads_support import boleto_charge, order

pytestmark = pytest.mark.django_db


def _boleto(reference_id: str) -> Order:
    charge = boleto_charge(2500, days=2, reference_id=reference_id)
    return create_order(order(reference_id=reference_id, charges=[charge]))


@pytest.fixture
def payments(orderpay_emulator, client):
    """Two Pix orders (one paid) and two boletos (one paid), mirrored with their deliveries."""
    paid_pix = simulate_pix_payment(
        create_order(order(reference_id="pix-paid", charges=(), qr_codes=[QrCode(1990)]))
    )
    waiting_pix = create_order(order(reference_id="pix-open", charges=(), qr_codes=[QrCode(990)]))
    waiting_boleto = _boleto("bol-open")
    paid_boleto = _boleto("bol-paid")
    orderpay_emulator.pay_boleto(paid_boleto.charges.get().provider_id)
    orderpay_emulator.deliver_notifications(client)
    return {
        "paid_pix": paid_pix.charges.get(),
        "waiting_pix": waiting_pix,
        "waiting_boleto": waiting_boleto.charges.get(),
        "paid_boleto": Charge.objects.get(order=paid_boleto),
    }


@pytest.fixture
def boss(db):
    return client_for(make_user("boss", superuser=True))


def _admins():
    return [
        (model, model_admin)
        for model, model_admin in admin.site._registry.items()
        if model._meta.app_label == "django_orderpay"
    ]


def _get(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


def test_every_admin_page_opens_over_pix_and_boleto(payments, boss):
    pages = 0
    for model, model_admin in _admins():
        name = model._meta.model_name
        listing = _get(boss, changelist(name))
        pages += 1
        for query in ("?q=QRCO", "?q=BOLETO", "?o=-1"):
            _get(boss, changelist(name) + query)
            pages += 1
        for spec in model_admin.list_filter:
            field = spec if isinstance(spec, str) else None
            if field:
                _get(boss, changelist(name) + f"?{field}__isnull=False")
        for obj in model.objects.all():
            _get(boss, reverse(f"admin:django_orderpay_{name}_change", args=[obj.pk]))
            pages += 1
            try:
                url = reverse(f"admin:django_orderpay_{name}_provider_json", args=[obj.pk])
            except NoReverseMatch:
                continue
            _get(boss, url)
            pages += 1
        assert listing  # the list rendered
    assert pages > 20


def test_the_charge_pages_show_pix_and_boleto(payments, boss):
    paid_pix, boleto = payments["paid_pix"], payments["waiting_boleto"]

    listing = _get(boss, changelist("charge"))
    pix_page = _get(boss, reverse("admin:django_orderpay_charge_change", args=[paid_pix.pk]))
    boleto_page = _get(boss, reverse("admin:django_orderpay_charge_change", args=[boleto.pk]))

    assert "Pix" in listing and "Boleto" in listing
    assert paid_pix.pix["end_to_end_id"] in pix_page
    assert boleto.boleto["formatted_barcode"] in boleto_page
    assert boleto.pdf_url in boleto_page
    assert boleto.due_date.strftime("%Y") in boleto_page


def test_the_order_page_shows_its_pix_qr_code(payments, boss):
    waiting = payments["waiting_pix"]
    qr_code = waiting.qr_codes.get()

    page = _get(boss, reverse("admin:django_orderpay_order_change", args=[waiting.pk]))

    assert qr_code.provider_id in page
    assert qr_code.text in page
    assert qr_code.image_url in page


def test_every_charge_action_opens_its_confirmation_over_pix_and_boleto(payments, boss):
    selected = [payments[key] for key in ("paid_pix", "waiting_boleto", "paid_boleto")]

    for action in action_names(boss, "charge"):
        response = post_action(boss, "charge", action, selected)
        assert response.status_code in (200, 302), (action, response.status_code)


@pytest.mark.parametrize("key", ["paid_pix", "paid_boleto"])
def test_staff_refund_a_paid_pix_or_boleto_from_the_admin(payments, boss, key):
    charge = payments[key]
    page = post_action(boss, "charge", "cancel_charges", [charge])
    assert page.status_code == 200

    response = post_action(
        boss, "charge", "cancel_charges", [charge], confirm=confirmation_fields(page)
    )

    assert response.status_code == 302
    charge.refresh_from_db()
    assert (charge.status, charge.amount_refunded) == (ChargeStatus.CANCELED, charge.amount_paid)
    [(level, _text)] = messages_of(response)
    assert level == "success"


def test_a_waiting_boleto_is_not_refunded_but_said_why(payments, boss):
    boleto = payments["waiting_boleto"]
    page = post_action(boss, "charge", "cancel_charges", [boleto])

    response = post_action(
        boss, "charge", "cancel_charges", [boleto], confirm=confirmation_fields(page)
    )

    boleto.refresh_from_db()
    assert boleto.status == ChargeStatus.WAITING
    assert messages_of(response) == [
        ("warning", f"{boleto}: skipped, it is waiting for payment"),
        ("warning", "Nothing was done."),
    ]


def test_every_management_command_runs_over_pix_and_boleto(payments):
    for command, args in [
        ("orderpay_sync", []),
        ("orderpay_sync", [payments["waiting_pix"].provider_id]),
        ("orderpay_expire", []),
        ("orderpay_replay", []),
        ("orderpay_prune", ["--days", "30"]),
    ]:
        out, err = io.StringIO(), io.StringIO()
        call_command(command, *args, stdout=out, stderr=err)
        assert "Traceback" not in out.getvalue() + err.getvalue(), command

    # Nothing moved: the waiting ones still wait, the paid ones are still paid.
    statuses = dict(Charge.objects.values_list("provider_id", "status"))
    assert statuses[payments["waiting_boleto"].provider_id] == ChargeStatus.WAITING
    assert statuses[payments["paid_pix"].provider_id] == ChargeStatus.PAID
    assert Order.objects.get(pk=payments["waiting_pix"].pk).status == "WAITING"
