"""Pix and boleto end to end: created through the services, paid by the payer at the
emulator (the notification mirrors it), expired, refunded.

The payer is the emulator's control plane (as a banking app would pay); the
notifications are delivered through the Django test client to the shop's
view, as the provider posts them.
"""

from __future__ import annotations

import dataclasses
import io
import threading
import time
from datetime import datetime, timedelta

import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from django_orderpay import rules, signals
from django_orderpay.exceptions import PayloadError
from django_orderpay.models import Charge, ChargeStatus, Order, OrderStatus
from django_orderpay.payloads import (
    BoletoPayment,
    Discount,
    PaymentInstructions,
    Penalty,
    QrCode,
    Receiver,
    Splits,
)
from django_orderpay.services import (
    cancel_charge,
    create_order,
    refresh_order,
    simulate_pix_payment,
)
from tests.payloads_support import boleto_charge, order

pytestmark = pytest.mark.django_db


def pix_order(reference_id: str = "pix-1", amount: int = 500, **qr) -> Order:
    body = order(reference_id=reference_id, charges=(), qr_codes=[QrCode(amount, **qr)])
    return create_order(body)


def boleto_order(reference_id: str = "bol-1", days: int = 3) -> Order:
    charge = boleto_charge(days=days)
    return create_order(order(reference_id=reference_id, charges=[charge]))


@pytest.fixture
def paid_signals():
    received = []

    def receiver(sender, charge, **kwargs):
        received.append(charge.provider_id)

    signals.charge_paid.connect(receiver)
    yield received
    signals.charge_paid.disconnect(receiver)


@pytest.fixture
def expired_signals():
    received = []

    def receiver(sender, order, **kwargs):
        received.append(order.provider_id)

    signals.order_expired.connect(receiver)
    yield received
    signals.order_expired.disconnect(receiver)


# --- Pix ------------------------------------------------------------------------------


def test_a_pix_order_waits_with_its_qr_code_and_no_charge(orderpay_emulator):
    created = pix_order(amount=1990)

    assert created.status == OrderStatus.WAITING
    assert created.charges.count() == 0
    qr_code = created.qr_codes.get()
    answer = orderpay_emulator.control("GET", "orders")  # the emulator holds it
    assert created.provider_id in answer["orders"]
    assert qr_code.provider_id.startswith("QRCO_")
    assert qr_code.amount_value == 1990
    assert qr_code.text.startswith("000201") and qr_code.text[-8:-4] == "6304"
    assert qr_code.image_url.endswith(f"/qrcode/{qr_code.provider_id}/png")
    assert qr_code.expires_at > timezone.now()


def test_a_payer_pays_the_qr_code_and_the_notification_makes_it_paid(
    orderpay_emulator, client, paid_signals, django_capture_on_commit_callbacks
):
    created = pix_order()
    qr_code = created.qr_codes.get()

    orderpay_emulator.pay_pix(qr_code.provider_id)
    with django_capture_on_commit_callbacks(execute=True):
        deliveries = orderpay_emulator.deliver_notifications(client)

    assert [delivery.status for delivery in deliveries] == [200]
    paid = Order.objects.get(pk=created.pk)
    charge = paid.charges.get()
    assert (paid.status, charge.status, charge.payment_method) == ("PAID", "PAID", "PIX")
    assert charge.amount_paid == 500
    assert charge.pix["end_to_end_id"]
    assert list(charge.status_changes.values_list("new_status", "source")) == [
        ("PAID", "notification")
    ]
    assert paid_signals == [charge.provider_id]


def test_simulate_pix_payment_pays_and_mirrors_at_once(orderpay_emulator):
    created = pix_order()

    paid = simulate_pix_payment(created)

    assert paid.status == OrderStatus.PAID
    assert paid.charges.get().payment_method == "PIX"


def test_a_paid_pix_is_refunded_in_part_then_whole(orderpay_emulator):
    paid = simulate_pix_payment(pix_order(amount=2000))
    charge = paid.charges.get()

    cancel_charge(charge, 500)
    partly = Charge.objects.get(pk=charge.pk)
    assert (partly.amount_refunded, partly.refundable_amount) == (500, 1500)
    assert partly.is_partially_refunded

    cancel_charge(partly)
    whole = Charge.objects.get(pk=charge.pk)
    assert (whole.status, whole.amount_refunded) == (ChargeStatus.CANCELED, 2000)


def test_an_unpaid_qr_code_is_closed_after_asking_the_provider(
    orderpay_emulator, expired_signals, django_capture_on_commit_callbacks
):
    soon = timezone.now().replace(microsecond=0) + timedelta(seconds=2)
    created = pix_order(expiration_date=soon)
    time.sleep((soon - timezone.now()).total_seconds() + 0.2)

    with django_capture_on_commit_callbacks(execute=True):
        call_command("orderpay_expire", verbosity=0)
        call_command("orderpay_expire", verbosity=0)  # a second run finds nothing to do

    assert Order.objects.get(pk=created.pk).status == OrderStatus.EXPIRED
    assert expired_signals == [created.provider_id]


def test_a_qr_code_paid_at_the_last_minute_is_not_closed(
    orderpay_emulator, expired_signals, django_capture_on_commit_callbacks
):
    soon = timezone.now().replace(microsecond=0) + timedelta(seconds=2)
    created = pix_order(expiration_date=soon)
    orderpay_emulator.pay_pix(created.qr_codes.get().provider_id)  # its notification is late
    time.sleep((soon - timezone.now()).total_seconds() + 0.2)

    with django_capture_on_commit_callbacks(execute=True):
        call_command("orderpay_expire", verbosity=0)

    assert Order.objects.get(pk=created.pk).status == OrderStatus.PAID
    assert expired_signals == []


def test_orderpay_expire_leaves_open_qr_codes_and_boletos_alone(orderpay_emulator):
    pix, boleto = pix_order(), boleto_order(days=0)
    out = io.StringIO()

    call_command("orderpay_expire", stdout=out)

    assert "0 of 0 orders past their window checked" in out.getvalue()
    statuses = Order.objects.filter(pk__in=[pix.pk, boleto.pk]).values_list("status", flat=True)
    assert list(statuses) == [OrderStatus.WAITING] * 2


# --- boleto ---------------------------------------------------------------------------


def test_a_boleto_waits_with_its_due_date_barcode_and_links(orderpay_emulator):
    created = boleto_order(days=3)

    charge = created.charges.get()
    assert (created.status, charge.status, charge.payment_method) == (
        "WAITING",
        "WAITING",
        "BOLETO",
    )
    assert charge.due_date == rules.provider_today() + timedelta(days=3)
    # PagBank's ``barcode`` is the 47-digit typeable line; ``formatted_barcode`` spaces it.
    assert len(charge.boleto["barcode"]) == 47
    assert (
        charge.boleto["formatted_barcode"].replace(".", "").replace(" ", "")
        == (charge.boleto["barcode"])
    )
    assert charge.pdf_url.endswith("/pdf") and charge.image_url.endswith("/png")
    assert not charge.can_cancel() and charge.refundable_amount == 0


def test_the_payer_pays_the_boleto_and_the_notification_makes_it_paid(
    orderpay_emulator, client, paid_signals, django_capture_on_commit_callbacks
):
    charge = boleto_order().charges.get()

    orderpay_emulator.pay_boleto(charge.provider_id)
    with django_capture_on_commit_callbacks(execute=True):
        orderpay_emulator.deliver_notifications(client)

    paid = Charge.objects.get(pk=charge.pk)
    assert (paid.status, paid.amount_paid, paid.order.status) == ("PAID", 500, "PAID")
    assert paid_signals == [charge.provider_id]


def test_a_paid_boleto_is_refunded(orderpay_emulator, client):
    charge = boleto_order().charges.get()
    orderpay_emulator.pay_boleto(charge.provider_id)
    orderpay_emulator.deliver_notifications(client)

    cancel_charge(Charge.objects.get(pk=charge.pk))

    refunded = Charge.objects.get(pk=charge.pk)
    assert (refunded.status, refunded.amount_refunded) == (ChargeStatus.CANCELED, 500)


def test_an_unpaid_boleto_is_canceled_by_the_provider_after_its_due_date(orderpay_emulator, client):
    created = boleto_order(days=0)

    orderpay_emulator.advance_clock(timedelta(days=1, hours=1).total_seconds())
    orderpay_emulator.control("GET", "clock")  # the provider's next call cancels it
    orderpay_emulator.deliver_notifications(client)

    expired = Order.objects.get(pk=created.pk)
    assert expired.status == OrderStatus.CANCELED
    assert expired.charges.get().amount_paid == 0


def test_orderpay_expire_asks_the_provider_about_a_boleto_past_due(orderpay_emulator):
    created = boleto_order(days=0)
    orderpay_emulator.control("POST", "notifications/drop", {"count": 1})  # the next is lost
    orderpay_emulator.advance_clock(timedelta(days=1, hours=1).total_seconds())
    # A day later here too: the row's due date is yesterday's.
    yesterday = rules.provider_today() - timedelta(days=1)
    Charge.objects.filter(order=created).update(due_date=yesterday)

    call_command("orderpay_expire", verbosity=0)

    assert Order.objects.get(pk=created.pk).status == OrderStatus.CANCELED


def test_refresh_finds_a_boleto_paid_while_the_notification_was_lost(orderpay_emulator):
    charge = boleto_order().charges.get()
    orderpay_emulator.control("POST", "notifications/drop", {"count": 1})
    orderpay_emulator.pay_boleto(charge.provider_id)

    refreshed = refresh_order(charge.order)

    assert refreshed.status == OrderStatus.PAID


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_orderpay_expire_run_twice_at_once_closes_and_signals_once(
    orderpay_emulator, expired_signals
):
    if connection.vendor != "postgresql":
        pytest.skip("concurrent runs need PostgreSQL's row locks")
    soon = timezone.now().replace(microsecond=0) + timedelta(seconds=2)
    created = pix_order(expiration_date=soon)
    time.sleep((soon - timezone.now()).total_seconds() + 0.2)
    barrier = threading.Barrier(2)

    def run():
        barrier.wait()
        try:
            call_command("orderpay_expire", verbosity=0)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert Order.objects.get(pk=created.pk).status == OrderStatus.EXPIRED
    assert expired_signals == [created.provider_id]


def test_the_builders_refuse_a_qr_code_beside_charges_before_any_call(orderpay_emulator):
    body = dataclasses.replace(order(), qr_codes=(QrCode(500),))

    with pytest.raises(PayloadError) as caught:
        create_order(body)

    assert caught.value.paths == ["qr_codes"]
    assert orderpay_emulator.order_ids() == []


def test_a_boleto_with_the_docs_fine_interest_and_discount_is_created(orderpay_emulator):
    """2,00 % fine and interest from the day after the due date, 5,00 % off until it: sent as
    PagBank's ``payment_instructions{fine, interest, discounts[]}`` with template COBRANCA,
    and mirrored with the charge."""
    charge = boleto_charge(34343, days=3)
    method = charge.payment_method
    assert isinstance(method, BoletoPayment)
    due, after = method.due_date, method.due_date + timedelta(days=1)
    instructions = PaymentInstructions(
        fine=Penalty(after, percentage=200),
        interest=Penalty(after, percentage=200),
        discounts=[Discount(due, 500)],
    )
    created = create_order(
        order(charges=[dataclasses.replace(charge, payment_instructions=instructions)])
    )
    mirrored = created.charges.get()
    assert mirrored.status == "WAITING"
    assert mirrored.data["payment_instructions"] == {
        "fine": {"date": after.isoformat(), "value": 200},
        "interest": {"date": after.isoformat(), "value": 200},
        "discounts": [{"due_date": due.isoformat(), "value": 500}],
    }


def test_a_split_pix_is_mirrored_with_its_split_and_shown_in_the_admin(orderpay_emulator):
    """A marketplace's Pix: ``qr_codes[].splits``; once paid, the charge's split is mirrored
    and fetched as a card charge's, and the admin links it."""
    from django_orderpay.services import get_split
    from tests.admin_support import change, client_for, make_user

    seller = "ACCO_66666666-7777-8888-9999-AAAAAAAAAAAA"
    splits = Splits.percentage(
        Receiver.percentage(orderpay_emulator.account_id, 90),
        Receiver.percentage(seller, 10),
    )
    created = create_order(
        order(reference_id="pix-split", charges=(), qr_codes=[QrCode(2000, splits=splits)])
    )
    qr_code = created.qr_codes.get()
    assert qr_code.data["splits"]["method"] == "PERCENTAGE"

    charge = simulate_pix_payment(created).charges.get()
    assert charge.status == "PAID" and charge.link("SPLIT")
    split = get_split(charge)
    assert split.status == "COMPLETED"
    assert {r["account"]["id"] for r in split.receivers} == {orderpay_emulator.account_id, seller}
    page = client_for(make_user("boss", superuser=True)).get(change("charge", charge.pk))
    assert split.provider_id in page.content.decode()


def test_a_split_boleto_is_mirrored_with_its_split_pending_then_completed_once_paid(
    orderpay_emulator, client, django_capture_on_commit_callbacks
):
    """A marketplace's boleto: ``charges[].splits`` as on a card; its split waits while the
    boleto does, and is completed by the payment the notification mirrors; the admin links it."""
    from django_orderpay.models import Split
    from django_orderpay.services import get_split
    from tests.admin_support import change, client_for, make_user

    seller = "ACCO_66666666-7777-8888-9999-AAAAAAAAAAAA"
    splits = Splits.percentage(
        Receiver.percentage(orderpay_emulator.account_id, 80),
        Receiver.percentage(seller, 20),
    )
    split_boleto = dataclasses.replace(boleto_charge(10000), splits=splits)
    created = create_order(order(reference_id="bol-split", charges=[split_boleto]))
    charge = created.charges.get()
    assert charge.status == "WAITING" and charge.link("SPLIT")
    waiting = get_split(charge)
    assert (waiting.method, waiting.status) == ("PERCENTAGE", "PENDING")

    orderpay_emulator.pay_boleto(charge.provider_id)
    with django_capture_on_commit_callbacks(execute=True):
        orderpay_emulator.deliver_notifications(client)

    paid = Charge.objects.get(pk=charge.pk)
    assert (paid.status, paid.amount_paid, paid.split_method) == ("PAID", 10000, "PERCENTAGE")
    split = get_split(paid)
    assert (split.pk, split.status) == (waiting.pk, "COMPLETED")
    assert Split.objects.filter(charge=paid).count() == 1
    percentages = {r["account"]["id"]: int(r["amount"]["value"]) for r in split.receivers}
    assert percentages == {orderpay_emulator.account_id: 80, seller: 20}
    page = client_for(make_user("boss", superuser=True)).get(change("charge", paid.pk))
    assert split.provider_id in page.content.decode()


def test_a_boleto_declined_by_risk_analysis_is_mirrored_declined(orderpay_emulator):
    """The emulator's ``BOLETO_DECLINED_TAX_ID``: PagBank's risk analysis refuses the boleto
    (``10000``), as its docs' DECLINED answer shows; nothing is payable."""
    from django_orderpay.emulator import BOLETO_DECLINED_TAX_ID
    from django_orderpay.shopper_messages import decline_message

    charge = boleto_charge(days=3)
    method = charge.payment_method
    assert isinstance(method, BoletoPayment)
    payer = dataclasses.replace(method.holder, tax_id=BOLETO_DECLINED_TAX_ID)
    refused = dataclasses.replace(charge, payment_method=dataclasses.replace(method, holder=payer))
    created = create_order(order(reference_id="bol-risk", charges=[refused]))
    mirrored = created.charges.get()
    assert (created.status, mirrored.status) == ("DECLINED", "DECLINED")
    assert mirrored.payment_response_code == "10000"
    assert mirrored.boleto == {} and mirrored.pdf_url is None
    assert decline_message(mirrored)


# --- one clock for the shop and the emulator (the testing kit's travel) ------------------


def test_travel_moves_the_shop_and_the_emulator_together_for_orderpay_expire(
    orderpay_emulator, expired_signals, django_capture_on_commit_callbacks
):
    created = pix_order(expiration_date=timezone.now() + timedelta(hours=1))
    before = timezone.now()

    with orderpay_emulator.travel(timedelta(hours=2).total_seconds()):
        moved = orderpay_emulator.control("GET", "clock")
        assert timezone.now() - before >= timedelta(hours=2)
        with django_capture_on_commit_callbacks(execute=True):
            call_command("orderpay_expire", verbosity=0)

    # The emulator answers its clock to the millisecond (cut, not rounded): "before" may be
    # up to 1 ms later than the instant it shows.
    provider_now = datetime.fromisoformat(moved["now"])
    moved_by = provider_now - before
    assert moved_by >= timedelta(hours=2, milliseconds=-1)  # the emulator read the moved clock
    assert timezone.now() - before < timedelta(hours=1)  # and the block put it back
    assert Order.objects.get(pk=created.pk).status == OrderStatus.EXPIRED
    assert expired_signals == [created.provider_id]


def test_advance_clock_alone_moves_only_the_provider(orderpay_emulator):
    created = pix_order(expiration_date=timezone.now() + timedelta(hours=1))
    orderpay_emulator.advance_clock(timedelta(hours=2).total_seconds())

    call_command("orderpay_expire", verbosity=0)  # by the shop's clock, nothing has expired

    assert Order.objects.get(pk=created.pk).status == OrderStatus.WAITING


def test_travel_past_a_boleto_due_date_cancels_it_after_asking(orderpay_emulator):
    created = boleto_order(days=0)
    orderpay_emulator.control("POST", "notifications/drop", {"count": 1})  # the next is lost

    with orderpay_emulator.travel(timedelta(days=2).total_seconds()):
        call_command("orderpay_expire", verbosity=0)

    assert Order.objects.get(pk=created.pk).status == OrderStatus.CANCELED
