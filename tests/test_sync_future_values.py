"""Sync never fails on a documented or future value, and reads partial refunds right.

A notification that can't be mirrored is retried by the provider forever, so
``sync`` keeps what it does not know as text (with a warning) instead of
refusing it: recurrence types the spec did not list, statuses and split
methods added later, text longer than its column. And whether the provider
answers a partial refund with PAID or with CANCELED, the mirror means the
same: partially refunded, still paid, more refunds allowed.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from django_orderpay import signals
from django_orderpay.models import Charge, ChargeStatusChange, Order, OrderStatus
from django_orderpay.sync import sync_charge, sync_order
from django_orderpay.testing.provider_json import charge_json, order_json, provider_id

pytestmark = pytest.mark.django_db


@contextmanager
def heard() -> Iterator[list[tuple]]:
    """Every charge signal sent inside the block, in order: (name, kwargs without charge)."""
    events: list[tuple] = []
    names = {
        "changed": signals.charge_status_changed,
        "paid": signals.charge_paid,
        "declined": signals.charge_declined,
        "canceled": signals.charge_canceled,
        "refunded": signals.charge_refunded,
    }
    receivers = []
    for name, signal in names.items():

        def receive(sender, charge, _name=name, **kwargs):
            events.append((_name, {k: v for k, v in kwargs.items() if k != "signal"}))

        signal.connect(receive, weak=False)
        receivers.append((signal, receive))
    try:
        yield events
    finally:
        for signal, receive in receivers:
            signal.disconnect(receive)


# --- values this version does not know ------------------------------------------------


@pytest.mark.parametrize("kind", ["UNSCHEDULED", "STANDING ORDER", "SOMETHING_NEW_2027"])
def test_a_recurrence_type_is_kept_whatever_it_is(kind, caplog):
    charge = charge_json(recurring={"type": kind})

    order = sync_order(order_json(charges=[charge]), source="notification")

    assert order.charges.get().recurring_type == kind
    known = kind in ("UNSCHEDULED", "STANDING ORDER")
    assert any("does not know" in r.getMessage() for r in caplog.records) is not known


def test_an_unknown_status_is_kept_and_later_statuses_still_apply(caplog):
    charge_id, order_id = provider_id("CHAR_"), provider_id("ORDE_")
    first = charge_json(charge_id=charge_id, status="PENDING_REVIEW_BY_BANK")

    order = sync_order(order_json(order_id=order_id, charges=[first]), source="notification")

    row = order.charges.get()
    assert row.status == "PENDING_REVIEW_BY_BANK"  # longer than the old 16-character column
    assert order.status == OrderStatus.CREATED  # nothing known to derive from
    assert "does not know" in caplog.text

    paid = charge_json(charge_id=charge_id)
    order = sync_order(order_json(order_id=order_id, charges=[paid]), source="notification")

    assert order.charges.get().status == "PAID"
    assert order.status == OrderStatus.PAID
    assert list(ChargeStatusChange.objects.values_list("new_status", flat=True)) == [
        "PENDING_REVIEW_BY_BANK",
        "PAID",
    ]


def test_an_unknown_status_never_reopens_a_final_charge():
    charge_id, order_id = provider_id("CHAR_"), provider_id("ORDE_")
    declined = charge_json(charge_id=charge_id, status="DECLINED")
    sync_order(order_json(order_id=order_id, charges=[declined]), source="api")

    late = charge_json(charge_id=charge_id, status="SOMETHING_ELSE")
    sync_order(order_json(order_id=order_id, charges=[late]), source="notification")

    assert Charge.objects.get().status == "DECLINED"


def test_an_unknown_split_method_is_kept():
    charge = charge_json(split_id=provider_id("SPLI_"), split_method="PROPORTIONAL")

    order = sync_order(order_json(charges=[charge]), source="notification")

    row = order.charges.get()
    assert row.split_method == "PROPORTIONAL"
    assert row.split.method == "PROPORTIONAL"


def test_text_longer_than_its_column_is_cut_and_kept_whole_in_the_json(caplog):
    answer = order_json(charges=[charge_json()])
    answer["customer"]["name"] = "N" * 300
    answer["charges"][0]["payment_response"]["code"] = "2" * 40

    order = sync_order(answer, source="notification")

    assert order.customer_name == "N" * 120
    assert order.data["customer"]["name"] == "N" * 300
    assert order.charges.get().payment_response_code == "2" * 16
    assert "longer than 120 characters; cut" in caplog.text


def test_an_id_too_long_is_still_refused():
    from django_orderpay.sync import SyncError

    with pytest.raises(SyncError) as caught:
        sync_order(order_json(order_id="ORDE_" + "X" * 80), source="notification")
    assert caught.value.field == "id"
    assert not Order.objects.exists()


# --- partial refunds, whichever status the provider answers ----------------------------------


def paid(amount: int = 2000) -> tuple[str, str]:
    charge_id, order_id = provider_id("CHAR_"), provider_id("ORDE_")
    charge = charge_json(charge_id=charge_id, amount=amount)
    sync_order(order_json(order_id=order_id, charges=[charge]), source="api")
    return charge_id, order_id


@pytest.mark.parametrize("status", ["PAID", "CANCELED"])
def test_a_partial_refund_leaves_a_paid_charge_partially_refunded(
    status, django_capture_on_commit_callbacks
):
    charge_id, _ = paid()
    answer = charge_json(charge_id=charge_id, amount=2000, status=status, refunded=300)

    with heard() as events, django_capture_on_commit_callbacks(execute=True):
        row = sync_charge(answer, source="api")

    assert row.status == status  # the provider's word, kept as it said it
    assert (row.effective_status, row.is_partially_refunded) == ("PAID", True)
    assert row.refundable_amount == 1700
    assert row.can_cancel()
    assert str(row.status_label) == "Partially refunded"
    assert row.order.status == OrderStatus.PAID
    assert "canceled" not in [name for name, _ in events]
    assert (
        "refunded",
        {"amount": 300, "refunded": 300, "partial": True, "source": "api"},
    ) in events


def test_the_refund_of_the_rest_after_a_canceled_partial_refund_cancels_once(
    django_capture_on_commit_callbacks,
):
    charge_id, _ = paid()
    partial = charge_json(charge_id=charge_id, amount=2000, status="CANCELED", refunded=300)
    rest = charge_json(charge_id=charge_id, amount=2000, status="CANCELED", refunded=2000)

    with heard() as events, django_capture_on_commit_callbacks(execute=True):
        sync_charge(partial, source="api")
        row = sync_charge(rest, source="notification")
        sync_charge(rest, source="notification")  # a copy: nothing more

    assert (row.status, row.effective_status, row.refundable_amount) == ("CANCELED", "CANCELED", 0)
    assert row.order.status == OrderStatus.CANCELED
    names = [name for name, _ in events]
    assert names == ["changed", "refunded", "canceled", "refunded"]
    assert events[3][1]["amount"] == 1700
    assert events[3][1]["partial"] is False
    # The provider's status moved once: one history row for PAID -> CANCELED.
    assert list(ChargeStatusChange.objects.values_list("old_status", "new_status")) == [
        ("", "PAID"),
        ("PAID", "CANCELED"),
    ]


def test_a_voided_authorisation_is_canceled_not_partially_refunded(
    django_capture_on_commit_callbacks,
):
    charge_id, order_id = provider_id("CHAR_"), provider_id("ORDE_")
    authorised = charge_json(charge_id=charge_id, status="AUTHORIZED")
    sync_order(order_json(order_id=order_id, charges=[authorised]), source="api")

    with heard() as events, django_capture_on_commit_callbacks(execute=True):
        row = sync_charge(charge_json(charge_id=charge_id, status="CANCELED"), source="api")

    assert (row.effective_status, row.is_partially_refunded) == ("CANCELED", False)
    assert [name for name, _ in events] == ["changed", "canceled"]


def test_a_full_refund_cancels(django_capture_on_commit_callbacks):
    charge_id, _ = paid()

    with heard() as events, django_capture_on_commit_callbacks(execute=True):
        row = sync_charge(
            charge_json(charge_id=charge_id, amount=2000, status="CANCELED", refunded=2000),
            source="api",
        )

    assert (row.effective_status, row.refundable_amount) == ("CANCELED", 0)
    assert [name for name, _ in events] == ["changed", "canceled", "refunded"]


def test_a_stale_paid_copy_never_undoes_a_canceled_partial_refund():
    charge_id, _ = paid()
    sync_charge(
        charge_json(charge_id=charge_id, amount=2000, status="CANCELED", refunded=300),
        source="api",
    )
    row = sync_charge(charge_json(charge_id=charge_id, amount=2000), source="notification")

    assert (row.status, row.amount_refunded) == ("CANCELED", 300)
