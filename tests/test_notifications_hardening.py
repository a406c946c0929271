"""The notification endpoint against what real deliveries (and strangers) send.

Each case was seen failing against the real API's habits: a chunked body,
a NUL in a verified body, an unverified body stored whole, a shop's own
check unable to see the client's address, and the provider's request held
open while we retried our fetch.
"""

from __future__ import annotations

import io
import json

import pytest
from django.test import Client
from django.urls import path
from rest_framework.permissions import BasePermission

from django_orderpay.models import DeliveryOutcome, NotificationDelivery, Order
from django_orderpay.notifications.verification import DEFAULT_CHECKS, Incoming, Policy, Rejected
from django_orderpay.notifications.views import NotificationView
from tests.test_notifications_processing import URL, paid_notification

pytestmark = pytest.mark.django_db


def post_chunked(client: Client, notification: dict, url: str = URL):
    """As gunicorn hands a chunked request to Django: no Content-Length, the decoded stream."""
    body = notification["body"]
    headers = {
        "HTTP_" + k.upper().replace("-", "_"): v
        for k, v in notification["headers"].items()
        if k.lower() != "content-type"
    }
    return client.generic(
        "POST",
        url,
        data=b"",
        CONTENT_TYPE="application/json",
        CONTENT_LENGTH="",
        HTTP_TRANSFER_ENCODING="chunked",
        # A server's stream: it ends where the body ends (Django's own stops at 0 bytes).
        **{"wsgi.input": io.BytesIO(body)},
        **headers,
    )


def test_a_signed_notification_sent_chunked_is_read_verified_and_applied(orderpay_emulator, client):
    order, paid = paid_notification(orderpay_emulator)

    response = post_chunked(client, paid)

    assert response.status_code == 200, response.content
    delivery = NotificationDelivery.objects.get()
    assert (delivery.outcome, delivery.valid) == (DeliveryOutcome.PROCESSED, True)
    assert bytes(delivery.body) == paid["body"]
    order.refresh_from_db()
    assert order.status == "PAID"


def test_a_chunked_body_over_the_limit_is_a_413(orderpay_emulator, client, orderpay):
    orderpay(NOTIFICATION_MAX_BODY=1024)
    _order, paid = paid_notification(orderpay_emulator)
    padded = {**paid, "body": paid["body"][:-1] + b', "pad": "' + b"x" * 2048 + b'"}'}

    response = post_chunked(client, padded)

    assert response.status_code == 413
    delivery = NotificationDelivery.objects.get()
    assert delivery.outcome == DeliveryOutcome.REJECTED
    assert len(bytes(delivery.body)) <= 16 * 1024


@pytest.mark.parametrize("trust_body", [True, False], ids=["trusted body", "re-fetched"])
def test_a_verified_body_with_a_nul_is_applied_not_a_500_forever(
    orderpay_emulator, client, orderpay, trust_body
):
    from django_orderpay.cardcrypto import authenticity_token

    orderpay(NOTIFICATION_TRUST_BODY=trust_body)
    order, paid = paid_notification(orderpay_emulator)
    body = json.loads(paid["body"])
    body["customer"]["name"] = "Jose\x00da Silva"
    raw = json.dumps(body).encode()

    response = client.post(
        URL,
        data=raw,
        content_type="application/json",
        headers={"x-authenticity-token": authenticity_token(orderpay_emulator.token, raw)},
    )

    assert response.status_code == 200
    order.refresh_from_db()
    assert order.status == "PAID"
    assert "\x00" not in order.customer_name


# --- a shop's own checks see the client --------------------------------------------------

ALLOWED = "203.0.113.7"


def from_the_provider_only(incoming: Incoming, policy: Policy) -> None:
    """An IP allow-list, behind a proxy that names the client in X-Forwarded-For."""
    forwarded = incoming.meta.get("HTTP_X_FORWARDED_FOR", "")
    client_ip = forwarded.split(",")[0].strip() or incoming.remote_addr
    if client_ip != ALLOWED:
        raise Rejected(403, "not_the_provider", f"{client_ip} may not post here")


class AllowListView(NotificationView):
    checks = (from_the_provider_only, *DEFAULT_CHECKS)


urlpatterns = [path("allow-listed/", AllowListView.as_view())]


@pytest.mark.urls("tests.test_notifications_hardening")
@pytest.mark.parametrize(
    ("meta", "allowed"),
    [
        ({"REMOTE_ADDR": ALLOWED}, True),
        ({"REMOTE_ADDR": "10.0.0.2", "HTTP_X_FORWARDED_FOR": f"{ALLOWED}, 10.0.0.1"}, True),
        ({"REMOTE_ADDR": "198.51.100.9"}, False),
    ],
)
def test_a_custom_check_sees_the_client_address(orderpay_emulator, client, meta, allowed):
    _order, paid = paid_notification(orderpay_emulator)
    headers = {k: v for k, v in paid["headers"].items() if k.lower() != "content-type"}

    response = client.post(
        "/allow-listed/",
        data=paid["body"],
        content_type="application/json",
        headers=headers,
        **meta,
    )

    assert response.status_code == (200 if allowed else 403)
    delivery = NotificationDelivery.objects.get()
    assert delivery.remote_addr == meta["REMOTE_ADDR"]
    assert delivery.outcome == ("processed" if allowed else "rejected")


# --- one bounded fetch ---------------------------------------------------------------------


def test_the_view_makes_one_fetch_and_answers_500_at_once_for_the_provider_to_retry(
    orderpay_emulator, client, orderpay
):
    orderpay(RETRIES=3)  # the shop's retries are for its own calls, not the provider's wait
    order, paid = paid_notification(orderpay_emulator)
    orderpay_emulator.inject_fault("http_502", count=2, path_prefix="/orders/")
    headers = {k: v for k, v in paid["headers"].items() if k.lower() != "content-type"}

    first = client.post(URL, data=paid["body"], content_type="application/json", headers=headers)

    assert first.status_code == 500
    delivery = NotificationDelivery.objects.get()
    assert "after 1 attempt" in delivery.error
    # The provider's retry meets the second fault, its next one the provider itself.
    second = client.post(URL, data=paid["body"], content_type="application/json", headers=headers)
    third = client.post(URL, data=paid["body"], content_type="application/json", headers=headers)
    assert (second.status_code, third.status_code) == (500, 200)
    order.refresh_from_db()
    assert order.status == "PAID"
    assert Order.objects.count() == 1


class Refusing(BasePermission):
    def has_permission(self, request, view) -> bool:
        return False


class PermissionView(NotificationView):
    """A subclass with a DRF permission: DRF's own dispatch applies it."""

    permission_classes = (Refusing,)


def test_a_subclass_with_a_drf_permission_gets_drfs_dispatch(rf, orderpay_emulator):
    _, paid = paid_notification(orderpay_emulator)
    headers = {k: v for k, v in paid["headers"].items() if k.lower() != "content-type"}
    request = rf.post(
        "/notifications/", data=paid["body"], content_type="application/json", headers=headers
    )

    refused = PermissionView.as_view()(request)

    assert refused.status_code == 403  # DRF's permission check ran
    assert not NotificationDelivery.objects.exists()  # refused before the view recorded it
    answered = NotificationView.as_view()(request)
    assert answered.status_code == 200
    assert NotificationDelivery.objects.get().outcome == "processed"
