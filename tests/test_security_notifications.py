"""Strangers posting to the notification URL: bounded storage, bounded fetches, over HTTP.

The attack (issue 26): a POST without ``x-authenticity-token`` naming any
``ORDE_`` id, even a made-up one, was stored whole (up to 1 MiB a row: 40
posts, +45 MiB), its headers whole even when refused (90 headers of 60 KB: a
5.4 MB row), and each cost one ``GET /orders/{id}`` with the merchant's token.
Now an unverified body keeps its first 16 KiB, headers are capped at 8 KiB,
a 404 is remembered, an order is fetched at most three times a minute for
unverified posts and such fetches are bounded per minute; verified
notifications are as before (tests/test_notifications_queries.py counts
their statements).
"""

from __future__ import annotations

import json

import pytest
from django.test import Client

from django_orderpay.cardcrypto import authenticity_token
from django_orderpay.models import DeliveryOutcome, NotificationDelivery
from django_orderpay.models.notifications import (
    HEADER_VALUE_KEPT,
    HEADERS_KEPT,
    HEADERS_LEFT_OUT,
    UNVERIFIED_BODY_KEPT,
)
from django_orderpay.notifications import unverified
from django_orderpay.notifications.processing import process_delivery
from tests.test_notifications_processing import (
    URL,
    in_analysis_order,
    paid_notification,
    post_as_provider,
    queued,
    resolve_paid,
)

pytestmark = pytest.mark.django_db

MEBIBYTE = 1024 * 1024


@pytest.fixture
def fetches(orderpay_emulator, monkeypatch) -> list[str]:
    """The orders the shop fetched from the provider (``GET /orders/{id}``)."""
    seen: list[str] = []
    serve = orderpay_emulator.emulator.handle

    def counting(request):
        if request.method == "GET" and request.path.startswith("/orders/"):
            seen.append(request.path.rsplit("/", 1)[-1])
        return serve(request)

    monkeypatch.setattr(orderpay_emulator.emulator, "handle", counting)
    return seen


def stranger_post(client: Client, order_id: str, size: int = 0, **headers: str):
    """What a stranger posts: JSON naming ``order_id``, padded to ``size`` bytes, no token."""
    body = {"id": order_id, "padding": ""}
    raw = json.dumps(body).encode()
    body["padding"] = "x" * max(size - len(raw), 0)
    return client.post(URL, data=json.dumps(body), content_type="application/json", headers=headers)


def test_forty_one_mebibyte_posts_store_sixteen_kibibytes_each(client, fetches):
    for n in range(40):
        answer = stranger_post(client, f"ORDE_MADE_UP_{n:03d}", MEBIBYTE - 100)
        assert answer.status_code == 200  # the provider does not know it: ignored
    rows = list(NotificationDelivery.objects.all())
    assert len(rows) == 40
    assert all(len(bytes(row.body)) == UNVERIFIED_BODY_KEPT for row in rows)
    assert all(row.body_size > MEBIBYTE - 200 for row in rows)
    assert sum(len(bytes(row.body)) for row in rows) == 40 * 16 * 1024
    assert {row.outcome for row in rows} == {DeliveryOutcome.IGNORED}
    assert len(fetches) == 40

    # The same made-up ids again: the provider's 404 is remembered, nothing fetched.
    for n in range(40):
        assert stranger_post(client, f"ORDE_MADE_UP_{n:03d}").status_code == 200
    assert len(fetches) == 40


def test_fetches_for_strangers_are_bounded_per_minute(client, fetches):
    answers = [stranger_post(client, f"ORDE_RANDOM_{n:04d}") for n in range(100)]
    assert len(fetches) == unverified.FETCHES_PER_MINUTE
    refused = [a for a in answers if a.status_code == 429]
    assert len(refused) == 100 - unverified.FETCHES_PER_MINUTE
    assert refused[0].json()["error"]["code"] == "too_many_unverified"


def test_one_order_is_fetched_three_times_a_minute_for_unverified_posts(
    orderpay_emulator, client, fetches
):
    order = in_analysis_order("unverified-1")
    # Each body different (a copy of one would be a duplicate, fetched once).
    answers = [stranger_post(client, order.provider_id, 100 + n) for n in range(40)]
    allowed = unverified.FETCHES_PER_ORDER
    assert [a.status_code for a in answers] == [200] * allowed + [429] * (40 - allowed)
    assert fetches == [order.provider_id] * allowed
    assert answers[allowed].json()["error"]["code"] == "fetched_recently"

    # The provider's own (verified) notifications of that order are never held back.
    resolve_paid(orderpay_emulator, order)
    paid = queued(orderpay_emulator)[-1]
    assert post_as_provider(client, paid).status_code == 200
    order.refresh_from_db()
    assert order.status == "PAID"
    assert fetches == [order.provider_id] * (allowed + 1)


def test_refused_requests_keep_their_headers_capped(client):
    headers = {f"x-junk-{n:02d}": "h" * 60_000 for n in range(90)}
    answer = client.post(URL, data=b"not json", content_type="text/plain", headers=headers)
    assert answer.status_code == 200  # not JSON: ignored at the door
    stored = NotificationDelivery.objects.get().headers
    size = sum(len(name) + len(value) for name, value in stored.items())
    assert size <= HEADERS_KEPT + 64
    assert all(len(value) <= HEADER_VALUE_KEPT for value in stored.values())
    assert int(stored[HEADERS_LEFT_OUT]) > 80


def test_a_verified_body_is_kept_whole(orderpay_emulator, client):
    order, paid = paid_notification(orderpay_emulator, "verified-big")
    body = json.loads(paid["body"])
    body["metadata_padding"] = "p" * (40 * 1024)  # a verified order, larger than 16 KiB
    raw = json.dumps(body).encode()
    token = authenticity_token(orderpay_emulator.token, raw)
    answer = client.post(
        URL, data=raw, content_type="application/json", headers={"x-authenticity-token": token}
    )
    assert answer.status_code == 200
    delivery = NotificationDelivery.objects.get()
    assert delivery.valid is True
    assert bytes(delivery.body) == raw
    order.refresh_from_db()
    assert order.status == "PAID"


def test_a_cut_unverified_body_is_processed_in_the_background_by_its_order_id(
    orderpay_emulator, client, settings
):
    from django_orderpay.notifications import tasks

    order = in_analysis_order("unverified-bg")
    resolve_paid(orderpay_emulator, order)
    settings.ORDERPAY = {**settings.ORDERPAY, "NOTIFICATION_BACKGROUND": True}
    settings.TASKS = {"default": {"BACKEND": tasks_dummy_backend()}}
    tasks.forget_drain()
    try:
        answer = stranger_post(client, order.provider_id, 100 * 1024)
    finally:
        tasks.forget_drain()
    assert answer.json()["outcome"] == "received"
    delivery = NotificationDelivery.objects.get()
    assert len(bytes(delivery.body)) == UNVERIFIED_BODY_KEPT
    result = process_delivery(delivery)
    assert result.outcome == DeliveryOutcome.PROCESSED
    order.refresh_from_db()
    assert order.status == "PAID"


def tasks_dummy_backend() -> str:
    try:
        import django.tasks as framework
    except ImportError:
        import django_tasks as framework
    return f"{framework.__name__}.backends.dummy.DummyBackend"
