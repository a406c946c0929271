"""Partial refunds, whichever status the provider answers them with (PAID or CANCELED).

The real API's status after a partial refund is not settled; the emulator
answers either (its ``partial_refund_status`` option). The mirror must mean
the same under both: partially refunded, the order still paid, the rest
refundable, and ``charge_canceled`` only once everything is given back.
"""

from __future__ import annotations

import pytest

from django_orderpay import signals
from django_orderpay.client import get_client
from django_orderpay.models import Charge, OrderStatus
from django_orderpay.services import cancel_charge, create_order
from tests.test_services_support import charge, order_payload

pytestmark = pytest.mark.django_db


@pytest.fixture(params=["PAID", "CANCELED"])
def partial_status(request, orderpay_emulator):
    orderpay_emulator.control("POST", "options", {"partial_refund_status": request.param})
    return request.param


def test_refunds_in_parts_until_nothing_is_left(
    orderpay_emulator, partial_status, django_capture_on_commit_callbacks
):
    row = create_order(order_payload("part-1", charges=[charge(2000)])).charges.get()
    canceled: list[str] = []

    def on_cancel(sender, charge, **kwargs):
        canceled.append(charge.provider_id)

    signals.charge_canceled.connect(on_cancel)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            first = cancel_charge(row, 300)
            assert first.status == partial_status  # the provider's word
            assert (first.effective_status, first.refundable_amount) == ("PAID", 1700)
            assert first.order.status == OrderStatus.PAID
            assert canceled == []

            second = cancel_charge(Charge.objects.get(pk=row.pk), 200)
            assert (second.status, second.amount_refunded) == (partial_status, 500)

            rest = cancel_charge(Charge.objects.get(pk=row.pk))
    finally:
        signals.charge_canceled.disconnect(on_cancel)

    assert (rest.status, rest.amount_refunded, rest.refundable_amount) == ("CANCELED", 2000, 0)
    assert rest.order.status == OrderStatus.CANCELED
    assert canceled == [row.provider_id]
    assert get_client().get_charge(row.provider_id)["amount"]["summary"]["refunded"] == 2000


def test_a_refund_past_what_is_left_is_refused_by_the_provider(orderpay_emulator, partial_status):
    from django_orderpay.exceptions import ProviderError

    row = create_order(order_payload("part-2", charges=[charge(1000)])).charges.get()
    cancel_charge(row, 600)

    with pytest.raises(ProviderError) as caught:
        cancel_charge(Charge.objects.get(pk=row.pk), 600)

    assert caught.value.codes == ["40007"]
    assert Charge.objects.get(pk=row.pk).amount_refunded == 600
