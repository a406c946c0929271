"""Signals fire once per real transition of a service call, with history rows of source api."""

from __future__ import annotations

import pytest

from django_orderpay import signals
from django_orderpay.models import ChargeStatusChange
from django_orderpay.services import cancel_charge, capture_charge, create_order, refresh_order
from tests.test_services_support import DECLINED_VISA, buyer, charge, order_payload, raw_card

__all__ = ["buyer"]

pytestmark = pytest.mark.django_db


@pytest.fixture
def heard():
    """Every signal sent, as (signal name, charge provider id or token id, details)."""
    events: list[tuple] = []

    def on_change(sender, charge, old_status, new_status, source, **kwargs):
        events.append(("changed", charge.provider_id, old_status, new_status, source))

    def on_status(name):
        def receiver(sender, charge, old_status, source, **kwargs):
            events.append((name, charge.provider_id, old_status, source))

        return receiver

    def on_card(sender, card_token, **kwargs):
        events.append(("card_stored", card_token.provider_id))

    receivers = [
        (signals.charge_status_changed, on_change),
        (signals.charge_paid, on_status("paid")),
        (signals.charge_declined, on_status("declined")),
        (signals.charge_canceled, on_status("canceled")),
        (signals.card_stored, on_card),
    ]
    for signal, receiver in receivers:
        signal.connect(receiver, weak=False)
    yield events
    for signal, receiver in receivers:
        signal.disconnect(receiver)


def test_authorise_capture_refund_each_signalled_once(
    orderpay_emulator, buyer, heard, django_capture_on_commit_callbacks
):
    body = order_payload(charges=[charge(1000, raw_card(store=True), capture=False)])
    with django_capture_on_commit_callbacks(execute=True):
        order = create_order(body, user=buyer)
    row = order.charges.get()
    token_id = row.card_token.provider_id
    assert heard == [
        ("card_stored", token_id),
        ("changed", row.provider_id, "", "AUTHORIZED", "api"),
    ]
    heard.clear()

    with django_capture_on_commit_callbacks(execute=True):
        row = capture_charge(row)
        refresh_order(order)  # the same state again: no transition, no signal
    assert heard == [
        ("changed", row.provider_id, "AUTHORIZED", "PAID", "api"),
        ("paid", row.provider_id, "AUTHORIZED", "api"),
    ]
    heard.clear()

    with django_capture_on_commit_callbacks(execute=True):
        row = cancel_charge(row, 400)  # partial: still PAID
    assert heard == []
    with django_capture_on_commit_callbacks(execute=True):
        cancel_charge(row)
    assert heard == [
        ("changed", row.provider_id, "PAID", "CANCELED", "api"),
        ("canceled", row.provider_id, "PAID", "api"),
    ]

    history = ChargeStatusChange.objects.filter(charge=row)
    assert list(history.values_list("old_status", "new_status", "source")) == [
        ("", "AUTHORIZED", "api"),
        ("AUTHORIZED", "PAID", "api"),
        ("PAID", "CANCELED", "api"),
    ]


def test_a_decline_is_signalled_once(orderpay_emulator, heard, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        order = create_order(order_payload(charges=[charge(500, raw_card(DECLINED_VISA))]))
        refresh_order(order)
    row = order.charges.get()

    assert heard == [
        ("changed", row.provider_id, "", "DECLINED", "api"),
        ("declined", row.provider_id, "", "api"),
    ]


def test_nothing_is_signalled_before_commit(
    orderpay_emulator, heard, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        create_order(order_payload(charges=[charge(500)]))

    assert heard == []
    assert len(callbacks) == 1
