"""Repeats of a money-moving call: what they send, what answers them, what refuses them.

A refund of everything repeated once its notification has settled it, a
call repeated with the caller's own idempotency key, the last cent of a
charge, and the keys a caller may name. Through the services, on the
emulator over HTTP, its faults making the outcomes unknown.
"""

from __future__ import annotations

import pytest

from django_orderpay.client import get_client
from django_orderpay.exceptions import OutcomeUnknown, PayloadError
from django_orderpay.models import Charge, Operation
from django_orderpay.services import cancel_charge, capture_charge, create_order
from tests.test_services_support import charge, no_retries, order_payload

__all__ = ["no_retries"]

pytestmark = pytest.mark.django_db


def at_provider(row: Charge) -> dict:
    return get_client().get_charge(row.provider_id)


def test_a_refund_of_everything_repeated_after_its_notification_is_answered(
    orderpay_emulator, no_retries
):
    row = create_order(order_payload("rep-1", charges=[charge(2000)])).charges.get()
    orderpay_emulator.inject_fault("timeout", delay=1.0, path_prefix="/charges/")
    with pytest.raises(OutcomeUnknown):
        cancel_charge(row)  # refunded at the provider; the answer lost
    orderpay_emulator.deliver_notifications()  # settles it: nothing is left to refund here
    assert Charge.objects.get(pk=row.pk).refundable_amount == 0

    # The caller's repeat hears its refund; it is not "nothing left to cancel".
    answered = cancel_charge(Charge.objects.get(pk=row.pk))

    assert (answered.status, answered.amount_refunded) == ("CANCELED", 2000)
    assert Operation.objects.get(kind="cancel").reported is True
    assert at_provider(row)["amount"]["summary"]["refunded"] == 2000


def test_everything_refunds_the_last_cent_and_then_nothing_is_left(orderpay_emulator):
    row = create_order(order_payload("rep-2", charges=[charge(2000)])).charges.get()
    cancel_charge(row, 1999)

    last = cancel_charge(Charge.objects.get(pk=row.pk))  # 1 cent left: it is refunded

    assert (last.status, last.amount_refunded) == ("CANCELED", 2000)
    with pytest.raises(PayloadError, match="nothing left to cancel"):
        cancel_charge(last)
    assert at_provider(row)["amount"]["summary"]["refunded"] == 2000


def test_a_repeat_with_the_callers_key_of_an_open_capture_sends_it(orderpay_emulator, no_retries):
    row = create_order(order_payload("rep-3", charges=[charge(800, capture=False)])).charges.get()
    orderpay_emulator.inject_fault("reset", path_prefix="/charges/")  # it never arrived
    with pytest.raises(OutcomeUnknown):
        capture_charge(row, idempotency_key="capture-rep-3")

    # Open, not succeeded: the key is sent again, not answered from the mirror.
    captured = capture_charge(Charge.objects.get(pk=row.pk), idempotency_key="capture-rep-3")

    assert (captured.status, captured.amount_paid) == ("PAID", 800)
    assert at_provider(row)["amount"]["summary"]["paid"] == 800
    operation = Operation.objects.get(kind="capture")
    assert (operation.idempotency_key, operation.state) == ("capture-rep-3", "succeeded")


def test_a_callers_key_is_1_to_255_printable_characters(orderpay_emulator):
    longest = "k" * 255
    assert create_order(order_payload("rep-4"), idempotency_key=longest).provider_id

    for refused in ("k" * 256, "", "two words", "chave-não-ascii"):
        with pytest.raises(PayloadError) as caught:
            create_order(order_payload("rep-5"), idempotency_key=refused)
        [error] = caught.value.errors
        assert str(error) == (
            "idempotency_key: must be 1 to 255 printable ASCII characters without spaces"
        )
    assert len(orderpay_emulator.order_ids()) == 1
