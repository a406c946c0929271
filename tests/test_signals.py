"""Signals fire once per real transition, only after commit; history is kept."""

from __future__ import annotations

import logging

import pytest
from django.db import transaction

from django_orderpay import signals
from django_orderpay.models import (
    AppendOnlyError,
    CardToken,
    ChangeSource,
    Charge,
    ChargeStatusChange,
)
from django_orderpay.sync import sync_charge, sync_order
from django_orderpay.testing.provider_json import card_json, charge_json, order_json, provider_id

pytestmark = pytest.mark.django_db


@pytest.fixture
def heard():
    """Every signal sent, as (name, kwargs)."""
    events: list[tuple[str, dict]] = []
    named = {
        "status_changed": signals.charge_status_changed,
        "paid": signals.charge_paid,
        "declined": signals.charge_declined,
        "canceled": signals.charge_canceled,
        "card_stored": signals.card_stored,
    }
    receivers = {}
    for name, signal in named.items():

        def receive(sender, signal=None, _name=name, **kwargs):
            events.append((_name, {"sender": sender, **kwargs}))

        receivers[name] = receive
        signal.connect(receive)
    yield events
    for name, signal in named.items():
        signal.disconnect(receivers[name])


def _names(events):
    return [name for name, _ in events]


def test_signals_wait_for_commit_then_fire_once(heard, django_capture_on_commit_callbacks):
    answer = order_json(
        charges=[charge_json(card=card_json(token_id=provider_id("CARD_"), store=True))]
    )
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        sync_order(answer, source="api")
    # Nothing is heard before the transaction commits...
    assert heard == []
    for callback in callbacks:
        callback()
    # ...then each signal once.
    assert sorted(_names(heard)) == ["card_stored", "paid", "status_changed"]
    charge = Charge.objects.get()
    kwargs = dict(heard)
    assert kwargs["status_changed"] == {
        "sender": Charge,
        "charge": charge,
        "old_status": "",
        "new_status": "PAID",
        "source": "api",
    }
    assert kwargs["paid"] == {"sender": Charge, "charge": charge, "old_status": "", "source": "api"}
    assert kwargs["card_stored"] == {"sender": CardToken, "card_token": CardToken.objects.get()}


def test_a_resync_sends_nothing_again(heard, django_capture_on_commit_callbacks):
    answer = order_json(charges=[charge_json()])
    with django_capture_on_commit_callbacks(execute=True):
        sync_order(answer, source="api")
    heard.clear()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        sync_order(answer, source="notification")
        sync_order(answer, source="sync")
    assert callbacks == []
    assert heard == []


def test_each_transition_is_heard_with_its_source(heard, django_capture_on_commit_callbacks):
    charge_id, order_id = provider_id("CHAR_"), provider_id("ORDE_")
    steps = [
        ("IN_ANALYSIS", "notification"),
        ("AUTHORIZED", "sync"),
        ("PAID", "api"),
        ("CANCELED", "api"),
    ]
    for status, source in steps:
        refunded = 500 if status == "CANCELED" else 0
        charge = charge_json(charge_id=charge_id, status=status, refunded=refunded)
        with django_capture_on_commit_callbacks(execute=True):
            sync_order(order_json(order_id=order_id, charges=[charge]), source=source)

    changes = [
        (kw["old_status"], kw["new_status"], kw["source"])
        for n, kw in heard
        if n == "status_changed"
    ]
    assert changes == [
        ("", "IN_ANALYSIS", "notification"),
        ("IN_ANALYSIS", "AUTHORIZED", "sync"),
        ("AUTHORIZED", "PAID", "api"),
        ("PAID", "CANCELED", "api"),
    ]
    assert _names(heard).count("paid") == 1
    assert _names(heard).count("canceled") == 1
    history = ChargeStatusChange.objects.filter(charge__provider_id=charge_id)
    assert list(history.values_list("old_status", "new_status", "source")) == changes


def test_declined_is_heard(heard, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        sync_order(order_json(charges=[charge_json(status="DECLINED")]), source="api")
    assert _names(heard) == ["status_changed", "declined"]


def test_a_rolled_back_sync_is_never_heard(heard, django_capture_on_commit_callbacks):
    class Boom(Exception):
        pass

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with pytest.raises(Boom), transaction.atomic():
            sync_order(order_json(charges=[charge_json()]), source="api")
            raise Boom
    assert callbacks == []
    assert heard == []
    assert not Charge.objects.exists()
    assert not ChargeStatusChange.objects.exists()


def test_a_stale_copy_is_not_heard(heard, django_capture_on_commit_callbacks):
    charge_id, order_id = provider_id("CHAR_"), provider_id("ORDE_")
    paid = order_json(order_id=order_id, charges=[charge_json(charge_id=charge_id)])
    late = order_json(
        order_id=order_id, charges=[charge_json(charge_id=charge_id, status="IN_ANALYSIS")]
    )
    with django_capture_on_commit_callbacks(execute=True):
        sync_order(paid, source="api")
    heard.clear()
    with django_capture_on_commit_callbacks(execute=True):
        sync_order(late, source="notification")
    assert heard == []
    assert ChargeStatusChange.objects.count() == 1


def test_sync_charge_transitions_are_heard(heard, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        order = sync_order(order_json(charges=[charge_json()]), source="api")
    heard.clear()
    charge = order.charges.get()
    cancel = charge_json(charge_id=charge.provider_id, status="CANCELED", refunded=500)
    with django_capture_on_commit_callbacks(execute=True):
        sync_charge(cancel, source="api")
    assert _names(heard) == ["status_changed", "canceled"]
    assert heard[1][1]["old_status"] == "PAID"


def test_a_failing_receiver_does_not_silence_the_others(
    heard, django_capture_on_commit_callbacks, caplog
):
    def broken(sender, **kwargs):
        raise RuntimeError("shop bug")

    signals.charge_status_changed.connect(broken)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            sync_order(order_json(charges=[charge_json()]), source="api")
    finally:
        signals.charge_status_changed.disconnect(broken)
    assert _names(heard) == ["status_changed", "paid"]
    failures = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert failures and "shop bug" in str(failures[0].exc_info[1])


def test_history_is_append_only():
    sync_order(order_json(charges=[charge_json()]), source="api")
    change = ChargeStatusChange.objects.get()
    assert change.source == ChangeSource.API

    change.new_status = "DECLINED"
    with pytest.raises(AppendOnlyError):
        change.save()
    with pytest.raises(AppendOnlyError):
        ChargeStatusChange.objects.update(new_status="DECLINED")
    with pytest.raises(AppendOnlyError):
        ChargeStatusChange.objects.bulk_update([change], ["new_status"])
    assert ChargeStatusChange.objects.get().new_status == "PAID"
