"""capture_charge and cancel_charge against the emulator over HTTP."""

from __future__ import annotations

from decimal import Decimal

import pytest

from django_orderpay.client import get_client
from django_orderpay.exceptions import PayloadError, ProviderError
from django_orderpay.services import cancel_charge, capture_charge, create_order
from tests.test_services_support import DECLINED_VISA, charge, order_payload, raw_card

pytestmark = pytest.mark.django_db


def _authorised(amount: int = 1000):
    order = create_order(order_payload(charges=[charge(amount, capture=False)]))
    row = order.charges.get()
    assert row.status == "AUTHORIZED"
    assert row.capture_before is not None
    assert row.link("CHARGE.CAPTURE")
    return row


def _paid(amount: int = 1000):
    row = create_order(order_payload(charges=[charge(amount)])).charges.get()
    assert row.status == "PAID"
    return row


def test_authorise_then_capture(orderpay_emulator):
    row = _authorised(1000)

    captured = capture_charge(row)

    assert captured.pk == row.pk
    assert (captured.status, captured.amount_paid) == ("PAID", 1000)
    assert captured.paid_at is not None
    assert captured.order.status == "PAID"
    assert captured.data == get_client().get_charge(row.provider_id)
    history = list(captured.status_changes.values_list("old_status", "new_status", "source"))
    assert history == [("", "AUTHORIZED", "api"), ("AUTHORIZED", "PAID", "api")]


def test_capture_part_of_an_authorisation(orderpay_emulator):
    captured = capture_charge(_authorised(1000), 600)

    assert (captured.status, captured.amount_value, captured.amount_paid) == ("PAID", 1000, 600)


def test_capture_of_a_paid_charge_is_refused_by_the_provider(orderpay_emulator):
    with pytest.raises(ProviderError) as caught:
        capture_charge(_paid())
    assert caught.value.codes == ["40006"]


def test_cancel_an_authorisation_voids_it(orderpay_emulator):
    cancelled = cancel_charge(_authorised(1000))

    assert cancelled.status == "CANCELED"
    assert cancelled.order.status == "CANCELED"


def test_full_cancel_of_a_paid_charge(orderpay_emulator):
    cancelled = cancel_charge(_paid(1000))

    assert (cancelled.status, cancelled.amount_paid, cancelled.amount_refunded) == (
        "CANCELED",
        1000,
        1000,
    )
    assert cancelled.refundable_amount == 0


def test_partial_refunds_of_the_same_amount_then_the_rest(orderpay_emulator):
    row = _paid(1000)

    first = cancel_charge(row, 300)
    assert (first.status, first.amount_refunded) == ("PAID", 300)
    # The same amount again is a second refund, not a repeat of the first.
    second = cancel_charge(first, 300)
    assert (second.status, second.amount_refunded) == ("PAID", 600)
    rest = cancel_charge(second)

    assert (rest.status, rest.amount_refunded) == ("CANCELED", 1000)
    summary = get_client().get_charge(row.provider_id)["amount"]["summary"]
    assert summary == {"total": 1000, "paid": 1000, "refunded": 1000}
    history = list(rest.status_changes.values_list("old_status", "new_status"))
    assert history == [("", "PAID"), ("PAID", "CANCELED")]


def test_nothing_left_to_cancel_is_refused_before_any_call(orderpay_emulator):
    declined = create_order(
        order_payload(charges=[charge(500, raw_card(DECLINED_VISA))])
    ).charges.get()

    with pytest.raises(PayloadError) as caught:
        cancel_charge(declined)

    assert caught.value.paths == ["amount"]
    assert declined.provider_id in str(caught.value)


def test_refund_above_what_was_paid_is_refused_by_the_provider(orderpay_emulator):
    row = _paid(1000)
    with pytest.raises(ProviderError) as caught:
        cancel_charge(row, 1500)
    assert caught.value.codes == ["40007"]
    row.refresh_from_db()
    assert (row.status, row.amount_refunded) == ("PAID", 0)


@pytest.mark.parametrize("amount", [4.0, Decimal("4.00"), "400", 0, -100, True])
def test_an_amount_that_is_not_whole_cents_is_refused_naming_it(orderpay_emulator, amount):
    authorised = _authorised(1000)
    paid = _paid(1000)

    for call, row in ((capture_charge, authorised), (cancel_charge, paid)):
        with pytest.raises(PayloadError) as caught:
            call(row, amount)
        assert caught.value.paths == ["amount"]

    # Nothing was sent: both charges are as they were at the provider.
    assert get_client().get_charge(authorised.provider_id)["status"] == "AUTHORIZED"
    summary = get_client().get_charge(paid.provider_id)["amount"]["summary"]
    assert summary["refunded"] == 0


@pytest.mark.parametrize(
    ("amount", "message"),
    [
        (4.0, "must be an integer number of cents, not a float (money is never rounded)"),
        (
            Decimal("4.00"),
            "must be an integer number of cents, not a Decimal (money is never rounded)",
        ),
        ("400", "must be an integer number of cents"),
        (0, "must be between 1 and 999999999 cents"),
        (1_000_000_000, "must be between 1 and 999999999 cents"),
    ],
)
def test_a_refused_amount_says_what_whole_cents_are(orderpay_emulator, amount, message):
    with pytest.raises(PayloadError) as caught:
        cancel_charge(_paid(1000), amount)

    assert [str(error) for error in caught.value.errors] == [f"amount: {message}"]


def test_one_cent_is_the_smallest_amount_moved(orderpay_emulator):
    row = cancel_charge(_paid(1000), 1)

    assert (row.status, row.amount_refunded) == ("PAID", 1)
    captured = capture_charge(_authorised(1000), 1)
    assert (captured.status, captured.amount_paid) == ("PAID", 1)


def test_the_largest_amount_is_sent_the_next_is_refused_before_any_call(orderpay_emulator):
    row = _paid(1000)

    with pytest.raises(ProviderError) as caught:  # more than was paid: the provider says so
        cancel_charge(row, 999_999_999)

    assert not isinstance(caught.value, PayloadError)
    assert caught.value.codes == ["40007"]
