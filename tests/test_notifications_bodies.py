"""Bodies a shop's staff may meet: huge, gzip'd, naming only charges, another merchant's.

- Over the limit (``NOTIFICATION_MAX_BODY``, the view's ``max_body_size``,
  Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE``): a 413, the body never read.
- ``Content-Encoding: gzip`` is undone (bounded by the body limit) before
  the checks; the token may be over either the decoded or the sent bytes.
- A body without the order's ``id`` that names charges (an Order missing its
  id, or a Charge) is never trusted: the order of a charge known here is
  re-fetched; charges unknown here are ignored.
- Another merchant's notification sent to this shop's URL: 401 when its
  token is not ours (logged as not ours), ignored when it verifies.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import logging

import pytest

from django_orderpay.cardcrypto import authenticity_token
from django_orderpay.emulator import Emulator, Request
from django_orderpay.models import ChargeStatusChange, DeliveryOutcome, NotificationDelivery
from django_orderpay.notifications.views import NotificationView
from django_orderpay.testing.provider_json import charge_json, order_json
from tests.test_notifications_processing import (
    URL,
    in_analysis_order,
    order_payload,
    paid_notification,
    post_as_provider,
    queued,
)
from tests.test_notifications_view import TOKEN, only_delivery, post
from tests.test_notifications_view import in_analysis_order as mirrored_in_analysis

pytestmark = pytest.mark.django_db


def post_encoded(client, sent: bytes, *, signed: bytes, encoding: str = "gzip", token=TOKEN):
    headers = {"Content-Encoding": encoding}
    if token is not None:
        headers["x-authenticity-token"] = authenticity_token(token, signed)
    return client.post(URL, data=sent, content_type="application/json", headers=headers)


# --- size ----------------------------------------------------------------------


def test_a_huge_body_is_refused_with_413_unread_and_logged(client):
    body = b'{"id": "ORDE_1", "pad": "' + b"x" * (1024 * 1024) + b'"}'

    response = post(client, body)

    assert response.status_code == 413
    assert response.json()["error"]["code"] == "body_too_large"
    delivery = only_delivery()
    assert delivery.outcome == DeliveryOutcome.REJECTED
    assert bytes(delivery.body) == b""  # never read, never stored
    assert f"{len(body)} bytes" in delivery.error


def test_the_body_limit_is_configurable_on_the_view(rf):
    view = NotificationView.as_view(max_body_size=64)
    body = json.dumps(order_json()).encode()
    request = rf.post(
        URL,
        data=body,
        content_type="application/json",
        headers={"x-authenticity-token": authenticity_token(TOKEN, body)},
    )

    response = view(request)

    assert response.status_code == 413
    assert "64-byte limit" in only_delivery().error


def test_djangos_own_upload_limit_is_a_413_too(client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    body = json.dumps(order_json()).encode()

    response = post(client, body)

    assert response.status_code == 413
    assert only_delivery().outcome == DeliveryOutcome.REJECTED


# --- gzip --------------------------------------------------------------------------


def test_a_gzipped_notification_is_decoded_verified_and_applied(client, trusting):
    order, paid = mirrored_in_analysis()
    body = json.dumps(paid).encode()

    response = post_encoded(client, gzip.compress(body), signed=body)

    assert response.status_code == 200
    assert response.json()["outcome"] == "processed"
    order.refresh_from_db()
    assert order.status == "PAID"
    delivery = only_delivery()
    assert bytes(delivery.body) == body  # decoded, as processing and replay read it
    assert delivery.headers["Content-Encoding"] == "gzip"
    assert delivery.dedupe_key == hashlib.sha256(body).hexdigest()


def test_a_token_over_the_compressed_bytes_is_accepted_too(client, trusting):
    _order, paid = mirrored_in_analysis()
    sent = gzip.compress(json.dumps(paid).encode())

    response = post_encoded(client, sent, signed=sent, encoding="x-gzip")

    assert response.status_code == 200
    assert only_delivery().valid is True


def test_a_gzipped_copy_of_a_plain_notification_is_a_duplicate(client, trusting):
    _order, paid = mirrored_in_analysis()
    body = json.dumps(paid).encode()
    client.post(
        URL,
        data=body,
        content_type="application/json",
        headers={"x-authenticity-token": authenticity_token(TOKEN, body)},
    )

    response = post_encoded(client, gzip.compress(body), signed=body)

    assert response.json()["outcome"] == "duplicate"
    assert ChargeStatusChange.objects.filter(new_status="PAID").count() == 1


def test_a_gzipped_body_with_a_wrong_token_is_refused_and_logged_decoded(client, trusting):
    order, paid = mirrored_in_analysis()
    body = json.dumps(paid).encode()

    response = post_encoded(client, gzip.compress(body), signed=body, token="not-ours")

    assert response.status_code == 401
    delivery = only_delivery()
    assert bytes(delivery.body) == body
    assert delivery.order_provider_id == order.provider_id


def test_a_gzip_that_inflates_past_the_limit_is_a_413(client, settings):
    settings.ORDERPAY = {**settings.ORDERPAY, "NOTIFICATION_MAX_BODY": 4096}
    body = b'{"id": "ORDE_1", "pad": "' + b" " * 100_000 + b'"}'
    sent = gzip.compress(body)
    assert len(sent) < 4096

    response = post_encoded(client, sent, signed=body)

    assert response.status_code == 413
    assert response.json()["error"]["code"] == "body_too_large"
    delivery = only_delivery()
    assert delivery.outcome == DeliveryOutcome.REJECTED
    assert "inflates past the 4096-byte limit" in delivery.error


@pytest.mark.parametrize(
    "sent",
    [b"not gzip at all", gzip.compress(b'{"id": "ORDE_1"}')[:-6], gzip.compress(b"{}") + b"x"],
    ids=["garbage", "truncated", "trailing-bytes"],
)
def test_a_broken_gzip_is_a_400_naming_the_body(client, sent):
    response = post_encoded(client, sent, signed=sent)

    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": "invalid_gzip",
        "message": "the body is not one complete gzip stream",
        "field": "body",
    }
    assert bytes(only_delivery().body) == sent  # what arrived


@pytest.mark.parametrize("encoding", ["br", "deflate", "gzip, gzip"])
def test_another_content_encoding_is_a_415_naming_the_header(client, encoding):
    body = json.dumps(order_json()).encode()

    response = post_encoded(client, body, signed=body, encoding=encoding)

    assert response.status_code == 415
    assert response.json()["error"]["field"] == "Content-Encoding"
    assert only_delivery().outcome == DeliveryOutcome.REJECTED


def test_identity_is_no_encoding(client, orderpay_emulator):
    body = json.dumps(order_json()).encode()

    response = post_encoded(
        client, body, signed=body, encoding="identity", token=orderpay_emulator.token
    )

    assert response.status_code == 200
    assert response.json()["outcome"] == "ignored"


# --- bodies that name only charges -------------------------------------------------


def sign_as_provider(token: str, payload: dict) -> dict:
    """``payload`` as a notification signed with ``token``, for ``post_as_provider``."""
    body = json.dumps(payload).encode()
    return {"body": body, "headers": {"x-authenticity-token": authenticity_token(token, body)}}


@pytest.mark.parametrize("trust_body", [False, True], ids=["refetch", "trust-body"])
def test_an_order_body_without_its_id_refetches_the_order_of_its_charge(
    orderpay_emulator, client, orderpay, trust_body
):
    orderpay(NOTIFICATION_TRUST_BODY=trust_body)
    order, paid = paid_notification(orderpay_emulator)
    without_id = json.loads(paid["body"])
    del without_id["id"]

    response = post_as_provider(client, sign_as_provider(orderpay_emulator.token, without_id))

    assert response.status_code == 200
    assert response.json()["outcome"] == "processed"
    order.refresh_from_db()
    assert order.status == "PAID"
    delivery = NotificationDelivery.objects.get()
    assert delivery.order_provider_id == order.provider_id  # found through the charge
    change = ChargeStatusChange.objects.get(new_status="PAID")
    assert change.source == "notification"


def test_a_body_without_an_order_id_is_never_trusted(orderpay_emulator, client, orderpay):
    orderpay(NOTIFICATION_TRUST_BODY=True)
    order = in_analysis_order()
    [created] = queued(orderpay_emulator)
    forged = json.loads(created["body"])
    del forged["id"]
    forged["charges"][0]["status"] = "PAID"

    response = post_as_provider(client, sign_as_provider(orderpay_emulator.token, forged))

    assert response.status_code == 200
    order.refresh_from_db()
    assert order.status == "IN_ANALYSIS"  # the provider's word, fetched


def test_a_charge_body_refetches_its_order(orderpay_emulator, client):
    order, paid = paid_notification(orderpay_emulator)
    [charge] = json.loads(paid["body"])["charges"]

    response = post_as_provider(client, sign_as_provider(orderpay_emulator.token, charge))

    assert response.status_code == 200
    order.refresh_from_db()
    assert order.status == "PAID"


def test_charges_unknown_here_and_to_the_provider_are_ignored_with_200_and_logged(
    client, orderpay_emulator
):
    charge = charge_json()
    body = json.dumps({"charges": [charge]}).encode()

    response = client.post(
        URL,
        data=body,
        content_type="application/json",
        headers={"x-authenticity-token": authenticity_token(orderpay_emulator.token, body)},
    )

    assert response.status_code == 200
    assert response.json()["outcome"] == "ignored"
    delivery = only_delivery()
    assert delivery.error == f"no order of this account has charge {charge['id']}"
    assert delivery.order_provider_id == ""


def test_a_charge_of_an_order_not_mirrored_here_adopts_its_order(client, orderpay_emulator):
    """A body naming only a charge this shop has never mirrored (its create's answer lost):
    its order is found with ``GET /orders?charge_id=`` and our own token, and mirrored."""
    from django_orderpay.client import get_client
    from django_orderpay.models import Order

    answer = get_client().create_order(order_payload("lost-1", card="4111111111111111"))
    assert not Order.objects.exists()
    charge = answer["charges"][0]
    body = json.dumps(charge).encode()

    response = client.post(
        URL,
        data=body,
        content_type="application/json",
        headers={"x-authenticity-token": authenticity_token(orderpay_emulator.token, body)},
    )

    assert response.status_code == 200 and response.json()["outcome"] == "processed"
    order = Order.objects.get()
    assert (order.provider_id, order.status) == (answer["id"], "PAID")
    assert only_delivery().order_provider_id == answer["id"]


# --- another merchant's notifications ----------------------------------------------

OTHER_TOKEN = "another-merchants-token"


@pytest.fixture
def other_merchant(client, orderpay_emulator):
    """Another merchant's provider account, whose order notifies this shop's URL.

    Its own emulator, delivering through this test's Django client.
    """

    def send(url: str, body: bytes, headers: dict[str, str]) -> int:
        return post_as_provider(client, {"body": body, "headers": headers}).status_code

    emulator = Emulator([OTHER_TOKEN], notification_sender=send, notify_in_background=False)
    created = emulator.handle(
        Request(
            "POST",
            "/orders",
            json.dumps(order_payload("theirs-1", card="4111111111111111")).encode(),
            {"Authorization": f"Bearer {OTHER_TOKEN}", "Content-Type": "application/json"},
        )
    )
    assert created.status == 201, created.body
    try:
        yield emulator, json.loads(created.body)["id"]
    finally:
        emulator.close()


def test_another_merchants_notification_is_refused_and_logged_as_not_ours(other_merchant, caplog):
    emulator, order_id = other_merchant

    with caplog.at_level(logging.INFO, logger="django_orderpay.notifications"):
        assert emulator.notifier.flush()

    statuses = [d["status"] for d in emulator.notifier.deliveries()]
    assert statuses == [401]  # it gave up after its retries
    deliveries = NotificationDelivery.objects.all()
    assert {(d.outcome, d.valid, d.order_provider_id) for d in deliveries} == {
        (DeliveryOutcome.REJECTED, False, order_id)
    }
    assert all(
        f"order {order_id} is unknown here: another merchant's or environment's notification?"
        in d.error
        for d in deliveries
    )
    refusals = [r for r in caplog.records if "refused" in r.getMessage()]
    assert refusals and {r.levelno for r in refusals} == {logging.INFO}


def test_our_own_order_refused_for_its_token_is_a_warning(client, caplog):
    order, paid = mirrored_in_analysis()
    body = json.dumps(paid).encode()

    with caplog.at_level(logging.INFO, logger="django_orderpay.notifications"):
        response = client.post(
            URL,
            data=body,
            content_type="application/json",
            headers={"x-authenticity-token": authenticity_token("a-rotated-token", body)},
        )

    assert response.status_code == 401
    # The answer says nothing about which orders exist here; the log does.
    assert order.provider_id not in response.content.decode()
    assert only_delivery().error.endswith(
        f"(order {order.provider_id} is this shop's; "
        "is the API token that created it in NOTIFICATION_TOKENS?)"
    )
    [record] = [r for r in caplog.records if "refused" in r.getMessage()]
    assert record.levelno == logging.WARNING


def test_another_merchants_verified_notification_is_ignored(other_merchant, orderpay):
    # A shop that lists both accounts' tokens: verified, but not an order of this shop.
    orderpay(NOTIFICATION_TOKENS=[TOKEN, OTHER_TOKEN])
    emulator, order_id = other_merchant

    assert emulator.notifier.flush()

    assert [d["status"] for d in emulator.notifier.deliveries()] == [200]
    delivery = NotificationDelivery.objects.get()
    assert (delivery.outcome, delivery.valid) == (DeliveryOutcome.IGNORED, True)
    # Fetched with this shop's token, the order is not there: not ours to adopt.
    assert delivery.error == f"order {order_id} is not known to this account"


def test_another_merchants_notification_without_verification_is_ignored(other_merchant, orderpay):
    orderpay(NOTIFICATION_VERIFY=False)
    emulator, order_id = other_merchant

    assert emulator.notifier.flush()

    delivery = NotificationDelivery.objects.get()
    assert (delivery.outcome, delivery.valid) == (DeliveryOutcome.IGNORED, None)
    assert delivery.order_provider_id == order_id
