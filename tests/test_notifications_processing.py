"""Processing against the emulator: re-fetch, dedupe, late copies, failures.

The emulator (``orderpay_emulator``) queues each notification it sends;
``deliver_notifications`` posts them through the Django test client, signed
with the emulator's ``x-authenticity-token``. The helpers at the top are
shared with the other notification and command tests.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.db import connection

from django_orderpay import services, signals
from django_orderpay.cardcrypto import authenticity_token
from django_orderpay.models import (
    ChargeStatusChange,
    DeliveryOutcome,
    NotificationDelivery,
    Order,
)
from django_orderpay.notifications.processing import process_delivery
from django_orderpay.testing import samples
from django_orderpay.testing.samples import OMIT

pytestmark = pytest.mark.django_db

IN_ANALYSIS_CARD = "4000000000000044"  # the emulator holds it for analysis
NOTIFY_URL = "https://shop.example.com/orderpay/notifications/"
URL = "/orderpay/notifications/"


def order_payload(
    reference_id: str, card: str = IN_ANALYSIS_CARD, notify_url: str = NOTIFY_URL
) -> dict[str, Any]:
    """The samples' order, lean: no phone, item reference or shipping; the card not stored."""
    charge = samples.charge_request(
        reference_id=f"{reference_id}-c1",
        description="Camiseta",
        payment_method=samples.payment_method(
            card=samples.card(number=card, holder={"name": "Jose da Silva"}, store=OMIT)
        ),
    )
    return samples.order_request(
        reference_id=reference_id,
        customer=samples.customer(phones=OMIT),
        items=[{"name": "Camiseta", "quantity": 1, "unit_amount": 500}],
        shipping=OMIT,
        notification_urls=[notify_url],
        charges=[charge],
    )


def in_analysis_order(reference_id: str = "notif-1", notify_url: str = NOTIFY_URL) -> Order:
    """An order created through the services, its charge IN_ANALYSIS here and there."""
    order = services.create_order(order_payload(reference_id, notify_url=notify_url))
    assert order.charges.get().status == "IN_ANALYSIS"
    return order


def resolve_paid(emulator, order: Order) -> None:
    """The provider's analysis approves the charge (and queues a notification)."""
    emulator.resolve_charge(order.charges.get().provider_id, "PAID")


def queued(emulator) -> list[dict[str, Any]]:
    """The notifications the emulator queued, oldest first: body bytes and headers."""
    return [
        {"body": d["body"].encode(), "headers": d["headers"], "status": d["status"]}
        for d in emulator.notifications()
    ]


def paid_notification(emulator, reference_id: str = "notif-1") -> tuple[Order, dict[str, Any]]:
    """An order IN_ANALYSIS here whose charge the provider then paid; the PAID notification.

    The second the emulator queued (after the create's), not yet delivered.
    """
    order = in_analysis_order(reference_id)
    resolve_paid(emulator, order)
    _, paid = queued(emulator)
    return order, paid


def post_as_provider(client, notification: dict[str, Any]):
    """POST one notification the emulator made, exactly as it would."""
    headers = {k: v for k, v in notification["headers"].items() if k.lower() != "content-type"}
    return client.post(
        URL, data=notification["body"], content_type="application/json", headers=headers
    )


class Heard:
    """Every charge signal sent, from any thread."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.events: list[tuple[str, str, str]] = []

    def receiver(self, name: str):
        def receive(sender, charge, old_status="", source="", **kwargs):
            with self.lock:
                self.events.append((name, charge.provider_id, source))

        return receive

    def named(self, name: str) -> list[tuple[str, str, str]]:
        return [event for event in self.events if event[0] == name]


@contextmanager
def listening() -> Iterator[Heard]:
    """Record the charge signals sent while inside the block."""
    record = Heard()
    pairs = [
        (signals.charge_status_changed, record.receiver("changed")),
        (signals.charge_paid, record.receiver("paid")),
    ]
    for signal, receiver in pairs:
        signal.connect(receiver, weak=False)
    try:
        yield record
    finally:
        for signal, receiver in pairs:
            signal.disconnect(receiver)


@pytest.fixture
def heard() -> Iterator[Heard]:
    with listening() as record:
        yield record


def test_the_emulators_notification_is_verified_refetched_and_applied(
    orderpay_emulator, client, heard, django_capture_on_commit_callbacks
):
    order = in_analysis_order()
    resolve_paid(orderpay_emulator, order)

    with django_capture_on_commit_callbacks(execute=True):
        attempts = orderpay_emulator.deliver_notifications(client)

    # The create's notification (IN_ANALYSIS) and the resolution's (PAID).
    assert [a.status for a in attempts] == [200, 200]
    assert [a.response.json()["outcome"] for a in attempts] == ["processed", "processed"]
    order.refresh_from_db()
    assert order.status == "PAID"
    change = ChargeStatusChange.objects.get(new_status="PAID")
    assert (change.old_status, change.source) == ("IN_ANALYSIS", "notification")
    assert heard.named("paid") == [("paid", order.charges.get().provider_id, "notification")]
    assert len(heard.named("changed")) == 1
    deliveries = NotificationDelivery.objects.all()
    assert {d.valid for d in deliveries} == {True}
    assert {d.order_provider_id for d in deliveries} == {order.provider_id}


def test_refetching_ignores_a_forged_state_in_a_signed_body(orderpay_emulator, client):
    # Re-fetching is the default: even a correctly signed body is only a hint.
    order = in_analysis_order()
    [created] = queued(orderpay_emulator)
    forged = json.loads(created["body"])
    forged["charges"][0]["status"] = "PAID"
    body = json.dumps(forged).encode()

    response = client.post(
        URL,
        data=body,
        content_type="application/json",
        headers={"x-authenticity-token": authenticity_token(orderpay_emulator.token, body)},
    )

    assert response.status_code == 200
    order.refresh_from_db()
    assert order.status == "IN_ANALYSIS"  # what the provider says, not the body


@pytest.mark.parametrize("trust_body", [True, False], ids=["trust-body", "refetch"])
def test_paid_then_a_late_in_analysis_stays_paid(
    orderpay_emulator, client, orderpay, heard, django_capture_on_commit_callbacks, trust_body
):
    orderpay(NOTIFICATION_TRUST_BODY=trust_body)
    order = in_analysis_order()
    resolve_paid(orderpay_emulator, order)
    in_analysis, paid = queued(orderpay_emulator)
    assert json.loads(in_analysis["body"])["charges"][0]["status"] == "IN_ANALYSIS"
    assert json.loads(paid["body"])["charges"][0]["status"] == "PAID"

    with django_capture_on_commit_callbacks(execute=True):
        first = post_as_provider(client, paid)
        late = post_as_provider(client, in_analysis)

    assert (first.status_code, late.status_code) == (200, 200)
    assert late.json()["outcome"] == "processed"
    order.refresh_from_db()
    assert order.status == "PAID"
    assert order.charges.get().status == "PAID"
    assert len(heard.named("paid")) == 1
    assert ChargeStatusChange.objects.filter(charge__order=order).count() == 2  # "" and PAID


def test_a_duplicate_of_a_processed_delivery_is_not_refetched(orderpay_emulator, client):
    _, paid = paid_notification(orderpay_emulator)
    post_as_provider(client, paid)
    # Were the copy re-fetched, this fault would fail it.
    orderpay_emulator.inject_fault("http_500", count=10, path_prefix="/orders/")

    response = post_as_provider(client, paid)

    assert response.status_code == 200
    assert response.json()["outcome"] == "duplicate"
    assert orderpay_emulator.control("GET", "faults")["faults"][0]["remaining"] == 10


def test_processing_that_fails_answers_500_rolls_back_and_is_logged(
    orderpay_emulator, client, orderpay, heard, django_capture_on_commit_callbacks
):
    orderpay(RETRIES=0)
    order, paid = paid_notification(orderpay_emulator)
    orderpay_emulator.inject_fault("http_500", count=5, path_prefix="/orders/")

    with django_capture_on_commit_callbacks(execute=True):
        response = post_as_provider(client, paid)

    assert response.status_code == 500
    assert response.json() == {
        "outcome": "failed",
        "delivery": NotificationDelivery.objects.get().pk,
        "error": {"code": "processing_failed", "message": "the delivery is logged; retry later"},
    }
    assert b"Traceback" not in response.content
    delivery = NotificationDelivery.objects.get()
    assert delivery.outcome == DeliveryOutcome.FAILED
    assert delivery.valid is True
    assert delivery.error.startswith("ProviderUnavailable: ")
    assert "Traceback (most recent call last)" in delivery.traceback
    assert "ProviderUnavailable" in delivery.traceback
    assert delivery.attempts == 1
    assert orderpay_emulator.token not in delivery.error + delivery.traceback
    order.refresh_from_db()
    assert order.status == "IN_ANALYSIS"
    assert heard.events == []


def test_the_provider_retry_of_a_failed_delivery_applies_it(
    orderpay_emulator, client, orderpay, heard, django_capture_on_commit_callbacks
):
    orderpay(RETRIES=0)
    _, paid = paid_notification(orderpay_emulator)
    orderpay_emulator.inject_fault("http_500", count=1, path_prefix="/orders/")

    with django_capture_on_commit_callbacks(execute=True):
        failed = post_as_provider(client, paid)
        retried = post_as_provider(client, paid)

    assert (failed.status_code, retried.status_code) == (500, 200)
    assert retried.json()["outcome"] == "processed"  # a failed copy is no duplicate
    assert len(heard.named("paid")) == 1


def test_process_delivery_reprocesses_a_failed_row(orderpay_emulator, client, orderpay):
    orderpay(RETRIES=0)
    order, paid = paid_notification(orderpay_emulator)
    orderpay_emulator.inject_fault("http_500", count=1, path_prefix="/orders/")
    post_as_provider(client, paid)
    delivery = NotificationDelivery.objects.get()

    result = process_delivery(delivery)

    assert (result.outcome, result.http_status, result.ok) == ("processed", 200, True)
    delivery.refresh_from_db()
    assert (delivery.outcome, delivery.attempts, delivery.error) == ("processed", 2, "")
    assert delivery.traceback == ""
    order.refresh_from_db()
    assert order.status == "PAID"


def test_a_rejected_delivery_is_not_processed_again(client):
    client.post(URL, data=b"{}", content_type="application/json")  # no token: 401
    delivery = NotificationDelivery.objects.get()

    result = process_delivery(delivery)

    assert (result.outcome, result.http_status) == ("rejected", 400)
    delivery.refresh_from_db()
    assert delivery.attempts == 0


def test_an_order_the_provider_does_not_know_fails_visibly(orderpay_emulator, client):
    # Known here, unknown to the provider (another account's token, say):
    # not something a retry fixes by itself, but nothing to hide either.
    order = in_analysis_order()
    [created] = queued(orderpay_emulator)
    orderpay_emulator.reset()

    response = post_as_provider(client, created)

    assert response.status_code == 500
    delivery = NotificationDelivery.objects.get()
    assert delivery.error.startswith("NotFound: ")
    assert order.provider_id in delivery.order_provider_id


def test_atomic_requests_do_not_swallow_the_log(orderpay_emulator, client, orderpay, monkeypatch):
    monkeypatch.setitem(connection.settings_dict, "ATOMIC_REQUESTS", True)
    orderpay(RETRIES=0)
    _, paid = paid_notification(orderpay_emulator)
    orderpay_emulator.inject_fault("http_500", count=1, path_prefix="/orders/")

    failed = post_as_provider(client, paid)
    retried = post_as_provider(client, paid)

    assert (failed.status_code, retried.status_code) == (500, 200)
    outcomes = NotificationDelivery.objects.order_by("pk").values_list("outcome", flat=True)
    assert list(outcomes) == ["failed", "processed"]
