"""End to end: the emulator's own notification delivery reaches the view.

Through the fixture's delivery to the Django test client, and over real
HTTP from the emulator's sender to a ``live_server``.
"""

from __future__ import annotations

import json

import pytest

from django_orderpay.models import ChargeStatusChange, DeliveryOutcome, NotificationDelivery
from tests.test_notifications_processing import (
    URL,
    in_analysis_order,
    post_as_provider,
    queued,
    resolve_paid,
)


@pytest.mark.django_db
def test_the_emulator_sees_every_delivery_answered_200(orderpay_emulator, client):
    order = in_analysis_order()
    resolve_paid(orderpay_emulator, order)

    orderpay_emulator.deliver_notifications(client)

    sent = orderpay_emulator.notifications()
    assert [(d["status"], d["delivered"], d["attempts"]) for d in sent] == [(200, True, 1)] * 2
    assert all(d["headers"]["x-authenticity-token"] for d in sent)
    order.refresh_from_db()
    assert order.status == "PAID"


@pytest.mark.django_db
def test_the_emulator_retries_a_500_and_the_retry_applies_it(orderpay_emulator, client, settings):
    settings.ORDERPAY = {**settings.ORDERPAY, "RETRIES": 0}
    order = in_analysis_order()
    orderpay_emulator.deliver_notifications(client)  # the create's, at once
    resolve_paid(orderpay_emulator, order)
    orderpay_emulator.inject_fault("http_500", count=1, path_prefix="/orders/")

    attempts = orderpay_emulator.deliver_notifications(client)

    assert [a.status for a in attempts] == [500, 200]
    outcomes = NotificationDelivery.objects.order_by("pk").values_list("outcome", flat=True)
    assert list(outcomes) == ["processed", "failed", "processed"]
    order.refresh_from_db()
    assert order.status == "PAID"


@pytest.mark.django_db
def test_unverified_sandbox_style_notifications_are_refetched(orderpay_emulator, client, settings):
    # The sandbox often omits the header: with verification off, the body is
    # only a hint, whatever NOTIFICATION_TRUST_BODY says.
    settings.ORDERPAY = {
        **settings.ORDERPAY,
        "NOTIFICATION_VERIFY": False,
        "NOTIFICATION_TRUST_BODY": True,
    }
    order = in_analysis_order()
    [created] = queued(orderpay_emulator)
    forged = json.loads(created["body"])
    forged["charges"][0]["status"] = "PAID"
    unsigned = {"body": json.dumps(forged).encode(), "headers": {}}

    response = post_as_provider(client, unsigned)

    assert response.status_code == 200
    assert response.json()["outcome"] == "processed"
    assert NotificationDelivery.objects.get().valid is None
    order.refresh_from_db()
    assert order.status == "IN_ANALYSIS"  # the provider's word, not the body's

    resolve_paid(orderpay_emulator, order)
    _, paid = queued(orderpay_emulator)
    post_as_provider(client, {**paid, "headers": {}})

    order.refresh_from_db()
    assert order.status == "PAID"


@pytest.mark.django_db(transaction=True)
def test_the_emulator_posts_to_a_live_server_over_http(orderpay_emulator, live_server):
    order = in_analysis_order("live-1", notify_url=live_server.url + URL)
    resolve_paid(orderpay_emulator, order)

    # No test client bound: the emulator's sender POSTs with requests, as the provider would.
    assert orderpay_emulator.emulator.notifier.flush(timeout=20)

    sent = orderpay_emulator.notifications()
    assert [(d["url"], d["status"]) for d in sent] == [(live_server.url + URL, 200)] * 2
    order.refresh_from_db()
    assert order.status == "PAID"
    change = ChargeStatusChange.objects.get(charge__order=order, new_status="PAID")
    assert change.source == "notification"
    deliveries = NotificationDelivery.objects.all()
    assert {(d.outcome, d.valid, d.remote_addr) for d in deliveries} == {
        (DeliveryOutcome.PROCESSED, True, "127.0.0.1")
    }
