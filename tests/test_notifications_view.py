"""The notifications view through Django's test client: every bad input, each logged.

These tests trust a verified body (``NOTIFICATION_TRUST_BODY``) or name
orders unknown here, so no provider is needed; the re-fetching path runs
against the emulator in ``test_notifications_processing.py``.
"""

from __future__ import annotations

import hashlib
import json

import pytest
from django.urls import resolve, reverse

from django_orderpay.cardcrypto import authenticity_token
from django_orderpay.models import (
    ChargeStatus,
    ChargeStatusChange,
    DeliveryOutcome,
    NotificationDelivery,
    Order,
)
from django_orderpay.notifications.verification import Incoming, Policy, Rejected, verify
from django_orderpay.services import create_order
from django_orderpay.sync import sync_order
from django_orderpay.testing.provider_json import charge_json, order_json
from tests.test_services_support import charge, order_payload, raw_card

IN_ANALYSIS_CARD = raw_card("4000000000000044")

pytestmark = pytest.mark.django_db

TOKEN = "test-token-merchant-a"  # tests/settings.py
URL = "/orderpay/notifications/"
JSON = "application/json"


def post(client, body: bytes, *, token: str | None = TOKEN, **kwargs):
    headers = kwargs.pop("headers", {})
    if token is not None:
        headers["x-authenticity-token"] = authenticity_token(token, body)
    kwargs.setdefault("content_type", "application/json")
    return client.post(URL, data=body, headers=headers, **kwargs)


def in_analysis_order() -> tuple[Order, dict]:
    """An order mirrored with its charge IN_ANALYSIS; and the JSON of it once PAID."""
    charge = charge_json(status=ChargeStatus.IN_ANALYSIS)
    order = sync_order(order_json(charges=[charge]), source="api")
    paid = order_json(
        order_id=order.provider_id,
        charges=[charge_json(status=ChargeStatus.PAID, charge_id=charge["id"])],
    )
    return order, paid


def only_delivery() -> NotificationDelivery:
    [delivery] = NotificationDelivery.objects.all()
    return delivery


def test_the_url_is_named_and_outside_request_transactions():
    assert reverse("orderpay:notifications") == URL
    # Under ATOMIC_REQUESTS the log must still commit on its own.
    assert resolve(URL).func._non_atomic_requests == {"default"}


def test_a_signed_notification_is_applied_and_logged(client, trusting):
    order, paid = in_analysis_order()
    body = json.dumps(paid).encode()

    response = post(client, body, REMOTE_ADDR="203.0.113.7")

    assert response.status_code == 200
    delivery = only_delivery()
    assert response.json() == {"outcome": "processed", "delivery": delivery.pk}
    order.refresh_from_db()
    assert order.status == "PAID"
    change = ChargeStatusChange.objects.get(new_status="PAID")
    assert (change.old_status, change.source) == ("IN_ANALYSIS", "notification")
    assert bytes(delivery.body) == body
    assert delivery.valid is True
    assert delivery.outcome == DeliveryOutcome.PROCESSED
    assert delivery.order_provider_id == order.provider_id
    assert delivery.dedupe_key == hashlib.sha256(body).hexdigest()
    assert delivery.remote_addr == "203.0.113.7"
    assert delivery.content_type == "application/json"
    assert delivery.attempts == 1
    assert delivery.processed_at is not None
    assert (delivery.error, delivery.traceback) == ("", "")


def test_the_log_keeps_headers_without_their_secrets(client, trusting):
    _order, paid = in_analysis_order()
    body = json.dumps(paid).encode()

    post(client, body, headers={"Authorization": "Bearer abc", "X-Request-Id": "r-1"})

    headers = only_delivery().headers
    assert headers["X-Authenticity-Token"] == "[removed]"
    assert headers["Authorization"] == "[removed]"
    assert headers["X-Request-Id"] == "r-1"
    row = NotificationDelivery.objects.values().get()
    assert TOKEN not in json.dumps({k: str(v) for k, v in row.items()})
    assert authenticity_token(TOKEN, body) not in json.dumps(headers)


def test_a_wrong_signature_is_refused_with_401_and_logged(client, trusting):
    order, paid = in_analysis_order()
    body = json.dumps(paid).encode()

    response = post(client, body, token="somebody-elses-token")

    assert response.status_code == 401
    assert response.json()["error"] == {
        "code": "invalid_authenticity_token",
        "message": "the x-authenticity-token header does not match the body",
        "field": "x-authenticity-token",
    }
    delivery = only_delivery()
    assert delivery.outcome == DeliveryOutcome.REJECTED
    assert delivery.valid is False
    assert "x-authenticity-token" in delivery.error
    assert bytes(delivery.body) == body
    assert delivery.order_provider_id == order.provider_id  # a clue, not trusted
    order.refresh_from_db()
    assert order.status == "IN_ANALYSIS"


@pytest.mark.parametrize("forged_with", ["", TOKEN], ids=["empty-token", "a-guessed-token"])
def test_a_signed_request_is_refused_when_no_token_is_configured(
    client, orderpay, forged_with, caplog
):
    # Verification on (the default) with nothing to verify against (check W004): no
    # signature can match, so none is let through, and a trusted body is never applied.
    orderpay(NOTIFICATION_TOKENS=[], NOTIFICATION_TRUST_BODY=True)
    order, paid = in_analysis_order()
    body = json.dumps(paid).encode()

    with caplog.at_level("ERROR", logger="django_orderpay.notifications"):
        response = post(client, body, token=forged_with)

    assert "no NOTIFICATION_TOKENS (nor TOKEN) is configured" in caplog.text
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_authenticity_token"
    delivery = only_delivery()
    assert (delivery.outcome, delivery.valid) == (DeliveryOutcome.REJECTED, False)
    order.refresh_from_db()
    assert order.status == "IN_ANALYSIS"
    # verify() itself: refused, never a Verified marked valid.
    signed = Incoming(
        body=body,
        headers={"x-authenticity-token": authenticity_token(forged_with, body)},
        content_type="application/json",
    )
    with pytest.raises(Rejected) as caught:
        verify(signed, Policy(tokens=()))
    assert (caught.value.status, caught.value.valid) == (401, False)


def test_a_signature_header_that_is_not_text_is_refused_not_an_error():
    # A shop's own view may build Incoming from headers of any origin.
    body = b'{"id": "ORDE_X"}'
    odd = Incoming(body=body, headers={"x-authenticity-token": "\ud800"}, content_type=JSON)

    with pytest.raises(Rejected) as caught:
        verify(odd, Policy(tokens=(TOKEN,)))

    assert (caught.value.status, caught.value.valid) == (401, False)


def test_a_body_changed_after_signing_is_refused(client, trusting):
    _order, paid = in_analysis_order()
    body = json.dumps(paid).encode()
    signature = authenticity_token(TOKEN, body)
    tampered = body.replace(b'"value": 500', b'"value": 5')

    response = client.post(
        URL,
        data=tampered,
        content_type="application/json",
        headers={"x-authenticity-token": signature},
    )

    assert response.status_code == 401
    assert only_delivery().valid is False


def test_a_missing_signature_is_accepted_unverified_and_the_order_refetched(
    client, trusting, orderpay_emulator
):
    # The sandbox often omits the header: the body is recorded, never trusted,
    # and the order is fetched with the shop's own token (which proves it is ours).
    order = create_order(order_payload("unsigned-1", charges=[charge(500, IN_ANALYSIS_CARD)]))
    orderpay_emulator.resolve_charge(order.charges.get().provider_id, "PAID")
    forged = json.dumps({**order.data, "charges": []}).encode()  # says nothing is paid

    response = post(client, forged, token=None)

    assert response.status_code == 200
    assert response.json()["outcome"] == "processed"
    delivery = NotificationDelivery.objects.get()
    assert (delivery.outcome, delivery.valid) == (DeliveryOutcome.PROCESSED, None)
    order.refresh_from_db()
    assert order.status == "PAID"  # the provider's state, not the body's


def test_a_wrong_signature_is_still_refused_with_401_and_logged(client, trusting):
    order, paid = in_analysis_order()

    response = post(client, json.dumps(paid).encode(), token="not-the-token")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_authenticity_token"
    delivery = only_delivery()
    assert (delivery.outcome, delivery.valid) == (DeliveryOutcome.REJECTED, False)
    assert delivery.error == (
        "x-authenticity-token: the x-authenticity-token header does not match the body "
        f"(order {order.provider_id} is this shop's; "
        "is the API token that created it in NOTIFICATION_TOKENS?)"
    )


def test_every_configured_token_is_accepted_for_rotation(client, orderpay):
    orderpay(NOTIFICATION_TOKENS=["old-token", "new-token"], NOTIFICATION_TRUST_BODY=True)
    _order, paid = in_analysis_order()
    body = json.dumps(paid).encode()

    old = post(client, body, token="old-token")
    new = post(client, body, token="new-token")
    other = post(client, body, token=TOKEN)  # no longer listed

    assert [old.status_code, new.status_code, other.status_code] == [200, 200, 401]
    assert [old.json()["outcome"], new.json()["outcome"]] == ["processed", "duplicate"]


def test_a_signature_in_upper_case_hex_is_accepted(client, trusting):
    _order, paid = in_analysis_order()
    body = json.dumps(paid).encode()

    response = client.post(
        URL,
        data=body,
        content_type="application/json",
        headers={"x-authenticity-token": authenticity_token(TOKEN, body).upper()},
    )

    assert response.status_code == 200


@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/x-www-form-urlencoded", "application/xml"]
)
def test_a_post_that_is_not_json_is_ignored_with_200_and_logged(client, trusting, content_type):
    _order, paid = in_analysis_order()

    response = post(client, json.dumps(paid).encode(), content_type=content_type)

    # Not a notification of this API (the legacy form posts still arrive): a 2xx,
    # or its sender would retry it forever.
    assert response.status_code == 200
    assert response.json()["outcome"] == "ignored"
    assert response.json()["error"]["field"] == "Content-Type"
    delivery = only_delivery()
    assert delivery.outcome == DeliveryOutcome.IGNORED
    assert delivery.content_type == content_type
    assert delivery.valid is None  # not a notification: never got as far as the token
    assert ChargeStatusChange.objects.filter(new_status="PAID").count() == 0


def test_the_legacy_notification_code_form_post_is_ignored(client):
    response = client.post(
        URL,
        {
            "notificationCode": "766B9C-AD4B044B04DA-77742F5FA653-E1AB24",
            "notificationType": "transaction",
        },
    )

    assert response.status_code == 200
    assert only_delivery().outcome == DeliveryOutcome.IGNORED


def test_a_refused_body_keeps_only_its_start_with_its_size_and_digest(client):
    body = b'{"id": "ORDE_1", "pad": "' + b"x" * 100_000 + b'"}'

    response = post(client, body, token="wrong")

    assert response.status_code == 401
    delivery = only_delivery()
    assert bytes(delivery.body) == body[: 16 * 1024]
    assert delivery.body_size == len(body)
    assert delivery.dedupe_key == hashlib.sha256(body).hexdigest()


def test_json_with_a_charset_is_accepted(client, trusting):
    _order, paid = in_analysis_order()

    response = post(
        client, json.dumps(paid).encode(), content_type="application/json; charset=utf-8"
    )

    assert response.status_code == 200


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        (b'{"id": "ORDE_1", "charges": [', "invalid_json", "body"),
        (b"\xff\xfe not utf-8", "invalid_json", "body"),
        (b"  ", "invalid_json", "body"),
        (b'["ORDE_1"]', "invalid_body", "body"),
        (b'{"charges": []}', "invalid_order_id", "id"),
        (b'{"charges": [{"id": 5}, "CHAR_0B1C2D3E"]}', "invalid_order_id", "id"),
        (
            b'{"id": "ACCO_0B1C2D3E", "charges": [{"id": "CHAR_0B1C2D3E"}]}',
            "invalid_order_id",
            "id",
        ),
        (b'{"id": 12}', "invalid_order_id", "id"),
    ],
)
def test_a_signed_body_that_is_not_an_order_is_refused_with_400(client, body, code, field):
    response = post(client, body)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == code
    assert response.json()["error"]["field"] == field
    delivery = only_delivery()
    assert delivery.outcome == DeliveryOutcome.REJECTED
    assert delivery.valid is True
    assert bytes(delivery.body) == body
    assert delivery.error.startswith(f"{field}: ")


def test_an_order_unknown_here_is_ignored_with_200_and_logged(client, orderpay_emulator):
    body = json.dumps(order_json(charges=[charge_json()])).encode()

    response = post(client, body, token=orderpay_emulator.token)

    assert response.status_code == 200
    assert response.json()["outcome"] == "ignored"
    delivery = only_delivery()
    assert delivery.outcome == DeliveryOutcome.IGNORED
    # Fetched with our token, the provider does not have it for this account.
    assert delivery.error.endswith("is not known to this account")
    assert not Order.objects.exists()


def test_a_copy_of_a_processed_notification_is_a_duplicate(client, trusting):
    _order, paid = in_analysis_order()
    body = json.dumps(paid).encode()

    first = post(client, body)
    second = post(client, body)

    assert [first.json()["outcome"], second.json()["outcome"]] == ["processed", "duplicate"]
    assert second.status_code == 200
    assert ChargeStatusChange.objects.filter(new_status="PAID").count() == 1
    first_row, second_row = NotificationDelivery.objects.order_by("pk")
    assert (first_row.outcome, second_row.outcome) == ("processed", "duplicate")
    assert second_row.error == f"a copy of delivery {first_row.pk}"


def test_a_state_already_applied_answers_200(client, trusting):
    _order, paid = in_analysis_order()
    post(client, json.dumps(paid).encode())
    # The same state again, serialised differently: not a copy, nothing to change.
    again = json.dumps(paid, indent=2).encode()

    response = post(client, again)

    assert response.status_code == 200
    assert response.json()["outcome"] == "processed"
    assert ChargeStatusChange.objects.filter(new_status="PAID").count() == 1


def test_a_late_in_analysis_after_paid_leaves_the_charge_paid(client, trusting):
    order, paid = in_analysis_order()
    late = order_json(
        order_id=order.provider_id,
        charges=[charge_json(status=ChargeStatus.IN_ANALYSIS, charge_id=paid["charges"][0]["id"])],
    )
    post(client, json.dumps(paid).encode())

    response = post(client, json.dumps(late).encode())

    assert response.status_code == 200
    order.refresh_from_db()
    assert order.status == "PAID"
    assert order.charges.get().status == "PAID"


def test_a_signed_body_sync_refuses_is_a_400_naming_the_field(client, trusting):
    order, paid = in_analysis_order()
    paid["charges"][0]["amount"]["value"] = -5
    body = json.dumps(paid).encode()

    response = post(client, body)

    assert response.status_code == 400
    assert "charges[0].amount.value" in response.json()["error"]["message"]
    delivery = only_delivery()
    assert delivery.outcome == DeliveryOutcome.REJECTED
    assert "charges[0].amount.value" in delivery.error
    order.refresh_from_db()
    assert order.status == "IN_ANALYSIS"


def test_an_accept_header_asking_for_html_still_gets_json(client, orderpay_emulator):
    body = json.dumps(order_json()).encode()

    response = post(client, body, token=orderpay_emulator.token, headers={"Accept": "text/html"})

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"


@pytest.mark.parametrize("method", ["get", "head", "options", "put", "patch", "delete"])
def test_other_methods_are_405_and_not_recorded(client, method):
    # Not a delivery: a browser or a crawler checking the URL must not fill the log
    # (Django's request logger still logs each 405).
    response = getattr(client, method)(URL)

    assert response.status_code == 405
    assert response["Allow"] == "POST"
    assert b"Receive, verify" not in response.content  # OPTIONS describes nothing
    assert not NotificationDelivery.objects.exists()


def test_verification_off_accepts_an_unsigned_request_without_trusting_it(
    client, orderpay, orderpay_emulator
):
    orderpay(NOTIFICATION_VERIFY=False, NOTIFICATION_TRUST_BODY=True)
    body = json.dumps(order_json()).encode()

    response = post(client, body, token=None)

    assert response.status_code == 200
    delivery = only_delivery()
    assert delivery.valid is None
    assert delivery.outcome == DeliveryOutcome.IGNORED


def test_a_refused_request_is_cheap(client, django_assert_max_num_queries):
    # One SELECT (is the order it names ours?) and one INSERT, plus the
    # savepoint pair of a test transaction.
    body = json.dumps(order_json()).encode()
    with django_assert_max_num_queries(4):
        response = post(client, body, token="wrong")
    assert response.status_code == 401


def test_broken_settings_answer_a_clean_500_and_are_logged(client, settings, monkeypatch):
    monkeypatch.delenv("ORDERPAY_TOKEN", raising=False)
    settings.ORDERPAY = {"ENVIRONMENT": "emulator"}  # no TOKEN
    body = json.dumps(order_json()).encode()

    response = post(client, body)

    assert response.status_code == 500
    assert response.json()["error"] == {"code": "internal_error", "message": "retry later"}
    delivery = only_delivery()
    assert delivery.outcome == DeliveryOutcome.FAILED
    assert delivery.error.startswith("ConfigurationError: ORDERPAY['TOKEN']")
    assert "Traceback" in delivery.traceback
    assert bytes(delivery.body) == body
