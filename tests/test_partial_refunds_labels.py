"""How a partial refund reads to the shop, whichever status the provider answers it with.

``test_partial_refunds`` follows the money; here, what the shop shows and
hears: the label "Partially refunded" and ``charge_refunded``'s ``partial``
only while part of the payment is kept, "Canceled" once all of it is given back.
"""

from __future__ import annotations

import pytest

from django_orderpay import signals
from django_orderpay.models import Charge
from django_orderpay.services import cancel_charge, create_order
from tests.test_services_support import charge, order_payload

pytestmark = pytest.mark.django_db


@pytest.fixture(params=["PAID", "CANCELED"])
def partial_status(request, orderpay_emulator):
    orderpay_emulator.control("POST", "options", {"partial_refund_status": request.param})
    return request.param


def test_partially_refunded_until_the_last_cent_is_given_back(
    orderpay_emulator, partial_status, django_capture_on_commit_callbacks
):
    row = create_order(order_payload("label-1", charges=[charge(2000)])).charges.get()
    assert (row.is_partially_refunded, row.status_label) == (False, "Paid")
    heard: list[tuple[int, int, bool]] = []

    def on_refund(sender, charge, amount, refunded, partial, **kwargs):
        heard.append((amount, refunded, partial))

    signals.charge_refunded.connect(on_refund)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            part = cancel_charge(row, 1999)
        assert (part.status, part.is_partially_refunded) == (partial_status, True)
        assert part.status_label == "Partially refunded"

        with django_capture_on_commit_callbacks(execute=True):
            rest = cancel_charge(Charge.objects.get(pk=row.pk))
    finally:
        signals.charge_refunded.disconnect(on_refund)

    assert (rest.status, rest.amount_refunded, rest.is_partially_refunded) == (
        "CANCELED",
        2000,
        False,
    )
    assert rest.status_label == "Canceled"
    assert heard == [(1999, 1999, True), (1, 2000, False)]
