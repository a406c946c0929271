"""3. Notification receipt: the notifications view against a bare Django view, via the test Client.

Each notification is a real transition: the order was mirrored with its
charge AUTHORIZED (untimed), and the body, signed with the merchant's token
as the provider signs it, says PAID. With ``NOTIFICATION_TRUST_BODY`` on,
ours reads the raw body, checks size, content type and the authenticity
token, writes the delivery log, then locks the order, checks for a duplicate,
syncs the body (charge update, history row) and marks the delivery
processed; no HTTP. The bare view only reads the body and answers 200. Both
are served by this module's URLconf (``ROOT_URLCONF`` overridden) through
the same middleware, and get bodies of the same size.
"""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.test import Client, override_settings
from django.urls import include, path
from django.views.decorators.csrf import csrf_exempt

from django_orderpay.cardcrypto import authenticity_token
from django_orderpay.models import ChangeSource, Charge, ChargeStatus, NotificationDelivery
from django_orderpay.sync import sync_order

from .bodies import TOKEN, authorized_then_paid, next_reference_id
from .harness import Case, Comparison, compare, expect

ITERATIONS = 400
WARMUP = 40
NOTIFICATION_PATH = "/orderpay/notifications/"
BARE_PATH = "/bare/"


@csrf_exempt
def bare_view(request: HttpRequest) -> HttpResponse:
    """The least a notification endpoint can do: read the body, answer 200."""
    _ = request.body  # reading the body is the work being measured
    return HttpResponse(status=200)


urlpatterns = [
    path("bare/", bare_view),
    path("orderpay/", include("django_orderpay.urls")),
]


def _notification() -> tuple[bytes, str]:
    """Mirror an order with an AUTHORIZED charge; a signed body in which it is PAID."""
    authorized, paid = authorized_then_paid(next_reference_id("bench-notify"))
    sync_order(authorized, source=ChangeSource.API)
    body = json.dumps(paid, separators=(",", ":")).encode()
    return body, authenticity_token(TOKEN, body)


def run() -> list[Comparison]:
    client = Client()
    settings = override_settings(
        ROOT_URLCONF=__name__,
        ORDERPAY={
            "ENVIRONMENT": "emulator",
            "TOKEN": TOKEN,
            # Nothing listens here: a notification that tried to re-fetch would fail, not pass.
            "BASE_URL": "http://127.0.0.1:9",
            "RETRIES": 0,
            "NOTIFICATION_TOKENS": [TOKEN],
            "NOTIFICATION_VERIFY": True,
            "NOTIFICATION_TRUST_BODY": True,
        },
    )

    def post(to: str) -> Any:
        def send(given: tuple[bytes, str]) -> Any:
            body, signature = given
            return client.post(
                to,
                data=body,
                content_type="application/json",
                headers={"x-authenticity-token": signature},
            )

        return send

    def check_processed(response: Any) -> None:
        expect(response.status_code == 200, f"the view answered {response.status_code}")
        outcome = response.json()["outcome"]
        expect(outcome == "processed", f"the delivery was {outcome}, not processed")
        delivery = NotificationDelivery.objects.get(pk=response.json()["delivery"])
        charge = Charge.objects.get(order__provider_id=delivery.order_provider_id)
        expect(charge.status == ChargeStatus.PAID, f"the charge is {charge.status}, not PAID")

    def check_answered(response: Any) -> None:
        expect(response.status_code == 200, f"the bare view answered {response.status_code}")

    with settings:
        return [
            compare(
                "Receive a notification (trusted body)",
                Case(
                    "NotificationView",
                    post(NOTIFICATION_PATH),
                    prepare=_notification,
                    check=check_processed,
                ),
                Case(
                    "bare view (read body, 200)",
                    post(BARE_PATH),
                    prepare=_notification,
                    check=check_answered,
                ),
                iterations=ITERATIONS,
                warmup=WARMUP,
            )
        ]
