"""The wire protocol through HTTP: auth, routing, bodies, idempotency, public keys, the SDK."""

from __future__ import annotations

import base64
import json
import logging
from datetime import datetime

import pytest
import requests
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import load_der_public_key

from django_orderpay.cardcrypto import decrypt_card, encrypt_card
from django_orderpay.emulator import DEFAULT_TOKEN, Emulator, account_for
from django_orderpay.emulator.serving.transport import mount
from django_orderpay.emulator.state.clock import Clock
from tests.emulator.core_support import (
    ACCOUNT_A,
    ACCOUNT_B,
    ACCOUNT_ID,
    TOKEN_A,
    TOKEN_B,
    charge_payload,
    documented,
    error_of,
    order_payload,
    refusal,
)

UNAUTHORIZED = {
    "error_messages": [
        {"code": "UNAUTHORIZED", "description": "Invalid credential. Review AUTHORIZATION header"}
    ]
}


def order_count(api):
    return len(api.get("/_emulator/orders").json()["orders"])


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic token-merchant-a"}],
)
def test_provider_endpoints_need_a_valid_bearer_token(api, headers):
    create = api.session.post(api.url("/orders"), json=order_payload(), headers=headers)
    get = api.session.get(api.url("/orders/ORDE_X"), headers=headers)
    key = api.session.get(api.url("/public-keys/card"), headers=headers)

    for response in (create, get, key):
        assert response.status_code == 401
        assert documented(response.json()) == UNAUTHORIZED
    assert order_count(api) == 0


def test_the_orders_api_takes_the_token_without_bearer_too(api):
    # PagBank's fee example and the official WooCommerce plugin send Authorization: <token>.
    bare = {"Authorization": TOKEN_A}
    payload = order_payload(charges=[charge_payload()])
    created = api.session.post(api.url("/orders"), json=payload, headers=bare)
    assert created.status_code == 201, created.text
    order = created.json()
    charge_id = order["charges"][0]["id"]
    calls = [
        ("GET", f"/orders/{order['id']}", None, 200),
        ("GET", f"/charges/{charge_id}", None, 200),
        ("GET", "/charges/fees/calculate?payment_methods=CREDIT_CARD&value=10000", None, 200),
        ("POST", "/public-keys", {"type": "card"}, 201),
        ("GET", "/public-keys/card", None, 200),
        ("POST", f"/charges/{charge_id}/cancel", {"amount": {"value": 500}}, 201),
    ]
    for method, path, body, status in calls:
        answer = api.session.request(method, api.url(path), json=body, headers=bare)
        assert answer.status_code == status, (path, answer.text)
    session = api.session.post(api.url("/checkout-sdk/sessions"), headers=bare)
    assert session.ok, session.text
    for header in (TOKEN_A + "x", f"{TOKEN_A} extra", "Bearer", f"Basic {TOKEN_A}"):
        refused = api.session.get(api.url("/public-keys/card"), headers={"Authorization": header})
        assert refused.status_code == 401, header


def test_the_checkout_api_and_the_connect_registry_take_bearer_only(api):
    # Documented as Bearer <token>, and sent so by the same plugins that send a bare one
    # elsewhere: nothing shows a bare token taken there.
    bare = {"Authorization": TOKEN_A}
    body = {"items": [{"quantity": 1, "unit_amount": 500}]}
    application = {"name": "Loja", "redirect_uri": "https://shop.example/callback/"}
    for path, payload in (("/checkouts", body), ("/oauth2/application", application)):
        refused = api.session.post(api.url(path), json=payload, headers=bare)
        assert refused.status_code == 401, path
        assert documented(refused.json()) == UNAUTHORIZED
        assert api.post(path, payload).status_code == 201, path
    made = api.post("/checkouts", body).json()
    assert api.session.get(api.url(f"/checkouts/{made['id']}"), headers=bare).status_code == 401


def test_each_token_is_its_own_merchant(api):
    order = api.create_order()

    assert api.get(f"/orders/{order['id']}", token=TOKEN_B).status_code == 404
    accounts = api.get("/_emulator/accounts").json()["accounts"]
    assert [account["id"] for account in accounts] == [ACCOUNT_A, ACCOUNT_B]
    assert accounts[0]["token_hint"] == "...nt-a"


def test_tokens_without_accounts_get_stable_generated_ones():
    emulator = Emulator(["shop-one", "shop-two"])
    default = Emulator()
    try:
        session = requests.Session()
        base = mount(session, emulator)
        accounts = session.get(f"{base}/_emulator/accounts").json()["accounts"]
        ids = [account["id"] for account in accounts]
        assert ids == [account_for("shop-one"), account_for("shop-two")]
        assert all(ACCOUNT_ID.match(account) for account in ids)
        assert len(set(ids)) == 2
        assert default.accounts == {DEFAULT_TOKEN: account_for(DEFAULT_TOKEN)}
        mount(session, default, "http://default.test")
        response = session.get(
            "http://default.test/public-keys/card",
            headers={"Authorization": f"Bearer {DEFAULT_TOKEN}"},
        )
        assert response.status_code == 200
    finally:
        emulator.close()
        default.close()


def test_unknown_path_is_404_in_the_provider_shape(api):
    response = api.get("/nothing/here")

    assert response.status_code == 404
    assert error_of(response) == {"code": "NOT_FOUND", "description": "resource not found"}


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("DELETE", "/orders", "GET, POST"),
        ("DELETE", "/orders/ORDE_X", "GET"),
        ("GET", "/charges/CHAR_X/capture", "POST"),
        ("PUT", "/_emulator/clock", "GET, POST"),
    ],
)
def test_wrong_method_is_405_in_the_provider_shape(api, method, path, allowed):
    response = api.request(method, path)

    assert response.status_code == 405
    assert error_of(response)["code"] == "METHOD_NOT_ALLOWED"
    assert response.headers["Allow"] == allowed


def test_a_trailing_slash_is_tolerated(api):
    order = api.create_order()

    assert api.get(f"/orders/{order['id']}/").status_code == 200


@pytest.mark.parametrize(
    ("data", "content_type", "description"),
    [
        (b'{"reference_id": "x"}', "text/plain", "content_type_must_be_application_json"),
        (b'{"reference_id": "x"}', None, "content_type_must_be_application_json"),
        (b"{not json", "application/json", "body_must_be_json"),
        (b"\xff\xfe", "application/json", "body_must_be_json"),
        (b"[1, 2]", "application/json", "body_must_be_a_json_object"),
        (b'"order"', "application/json", "body_must_be_a_json_object"),
        (b"null", "application/json", "body_must_be_a_json_object"),
        (b"", "application/json", "body_must_be_json"),
        (b"[" * 100_000, "application/json", "body_must_be_json"),
    ],
)
def test_a_body_that_is_not_a_json_object_is_40002_naming_the_body(
    api, data, content_type, description
):
    headers = {"Content-Type": content_type} if content_type else {}

    response = api.post("/orders", data=data, headers=headers)

    assert response.status_code == 400
    assert error_of(response) == {
        "code": "40002",
        "description": description,
        "parameter_name": "body",
    }


def test_json_with_a_charset_is_accepted(api):
    body = json.dumps(order_payload()).encode()

    response = api.post(
        "/orders", data=body, headers={"Content-Type": "application/json; charset=utf-8"}
    )

    assert response.status_code == 201


@pytest.mark.parametrize(
    ("overrides", "parameter_name", "code"),
    [
        ({"customer": None}, "customer", "40001"),
        ({"customer": ["Jose"]}, "customer", "40002"),
        ({"customer": {"name": "Jose", "email": "jose@example.com"}}, "customer.tax_id", "40001"),
        ({"items": None}, "items", "40001"),
        ({"items": "Camiseta"}, "items", "40002"),
        (
            {"items": [{"name": "x", "quantity": 1.5, "unit_amount": 1}]},
            "items[0].quantity",
            "40002",
        ),
        (
            {"items": [{"name": "x", "quantity": 1, "unit_amount": True}]},
            "items[0].unit_amount",
            "40002",
        ),
        ({"shipping": {"address": {}}}, "shipping.address.street", "40001"),
        ({"shipping": []}, "shipping", "40002"),
        ({"notification_urls": "https://x.example.com"}, "notification_urls", "40002"),
        ({"notification_urls": ["ftp://x"]}, "notification_urls[0]", "40002"),
        ({"reference_id": 12}, "reference_id", "40002"),
        ({"reference_id": "x" * 65}, "reference_id", "40002"),
        ({"status": "PAID"}, "status", "40003"),
        ({"charges": []}, "charges", "40002"),
        ({"charges": {}}, "charges", "40002"),
        ({"charges": ["card"]}, "charges[0]", "40002"),
        ({"charges": [charge_payload(amount={"value": 5.5})]}, "charges[0].amount.value", "40002"),
        ({"charges": [charge_payload(amount=None)]}, "charges[0].amount", "40001"),
        ({"charges": [charge_payload(amount={"value": 0})]}, "charges[0].amount.value", "40002"),
        (
            {"charges": [charge_payload(amount={"value": 1_000_000_000})]},
            "charges[0].amount.value",
            "40002",
        ),
        (
            {"charges": [charge_payload(type="CASH")]},
            "charges[0].payment_method.type",
            "40002",
        ),
        (
            {"charges": [charge_payload(installments=13)]},
            "charges[0].payment_method.installments",
            "40002",
        ),
        (
            {"charges": [charge_payload(capture="true")]},
            "charges[0].payment_method.capture",
            "40002",
        ),
        (
            {"charges": [charge_payload(soft_descriptor="X" * 23)]},
            "charges[0].payment_method.soft_descriptor",
            "40002",
        ),
        (
            {"charges": [charge_payload(recurring={"type": "FIRST"})]},
            "charges[0].recurring.type",
            "40002",
        ),
        ({"charges": [charge_payload(recurring=[])]}, "charges[0].recurring", "40002"),
        ({"charges": [charge_payload(payment_method=None)]}, "charges[0].payment_method", "40001"),
        ({"charges": [charge_payload(metadata=[])]}, "charges[0].metadata", "40002"),
    ],
)
def test_malformed_orders_are_4xx_naming_the_field_never_500(api, overrides, parameter_name, code):
    response = api.post("/orders", order_payload(**overrides))

    assert response.status_code == 400
    error = error_of(response)
    assert (error["code"], error["parameter_name"]) == (code, parameter_name)
    assert order_count(api) == 0


def test_same_idempotency_key_and_body_answers_the_first_response_and_does_nothing_again(api):
    body = order_payload(charges=[charge_payload()])
    headers = {"x-idempotency-key": "order-ex-00001"}

    first = api.post("/orders", body, headers=headers)
    reordered = json.dumps(dict(reversed(list(body.items())))).encode()
    second = api.post(
        "/orders", data=reordered, headers={**headers, "Content-Type": "application/json"}
    )

    assert first.status_code == second.status_code == 201
    assert second.content == first.content
    assert order_count(api) == 1


@pytest.mark.parametrize(
    ("shape", "entry"),
    [
        (
            None,  # the default: as production answered in 2026
            {
                "code": "IDEMPOTENCY_CONFLICT",
                "description": "request body must be the same as the original request",
            },
        ),
        ("docs", {"code": "40005", "description": "idempotency_key_in_use"}),
        (
            "production",
            {
                "code": "IDEMPOTENCY_CONFLICT",
                "description": "request body must be the same as the original request",
            },
        ),
    ],
)
def test_same_idempotency_key_with_another_body_is_a_409_in_the_shape_chosen(api, shape, entry):
    if shape is not None:
        api.post("/_emulator/options", {"idempotency_conflict": shape})
    headers = {"x-idempotency-key": "order-ex-00001"}
    api.post("/orders", order_payload(), headers=headers)

    response = api.post("/orders", order_payload(reference_id="ex-00002"), headers=headers)
    other_path = api.post("/public-keys", {"type": "card"}, headers=headers)

    assert response.status_code == other_path.status_code == 409
    assert documented(response.json()) == {"error_messages": [entry]}
    assert order_count(api) == 1


def test_options_are_read_changed_refused_by_name_and_reset(api):
    assert api.get("/_emulator/options").json()["options"] == {
        "idempotency_conflict": "production",
        "partial_refund_status": "PAID",
        "installments_18x": False,
        "fees_configured": True,
        "debit_not_authenticated": "PAID",
        "created_statuses": "docs",
        "short_tax_ids": False,
        "recurrent_checkout": False,
        "checkout_not_found_status": 404,
    }
    changed = api.post("/_emulator/options", {"partial_refund_status": "CANCELED"})
    assert changed.json()["options"]["partial_refund_status"] == "CANCELED"

    unknown = api.post("/_emulator/options", {"partial_refunds": "CANCELED"})
    wrong = api.post("/_emulator/options", {"partial_refund_status": "REFUNDED"})
    assert unknown.status_code == wrong.status_code == 400
    assert "unknown option 'partial_refunds'" in unknown.text
    assert "partial_refund_status must be one of PAID, CANCELED" in wrong.text

    api.post("/_emulator/reset")
    assert api.get("/_emulator/options").json()["options"]["partial_refund_status"] == "PAID"


def test_idempotency_keys_belong_to_one_merchant(api):
    headers = {"x-idempotency-key": "shared-key"}

    first = api.post("/orders", order_payload(), headers=headers)
    second = api.post("/orders", order_payload(), headers=headers, token=TOKEN_B)

    assert first.status_code == second.status_code == 201
    assert first.json()["id"] != second.json()["id"]
    assert order_count(api) == 2


def test_without_a_key_each_call_acts(api):
    api.post("/orders", order_payload())
    api.post("/orders", order_payload())

    assert order_count(api) == 2


def test_a_repeated_capture_with_its_key_answers_the_capture_again(api):
    order = api.create_order(charges=[charge_payload(capture=False)])
    capture = f"/charges/{order['charges'][0]['id']}/capture"
    headers = {"x-idempotency-key": "capture-1"}

    first = api.post(capture, {"amount": {"value": 500}}, headers=headers)
    second = api.post(capture, {"amount": {"value": 500}}, headers=headers)

    assert first.status_code == second.status_code == 201
    assert second.json() == first.json()


def test_an_error_answer_is_remembered_too(api):
    headers = {"x-idempotency-key": "bad-order"}

    first = api.post("/orders", order_payload(customer=None), headers=headers)
    second = api.post("/orders", order_payload(customer=None), headers=headers)

    assert first.status_code == second.status_code == 400
    assert second.content == first.content


def test_public_key_is_an_rsa_2048_der_spki_in_base64(api, emulator):
    created = api.post("/public-keys", {"type": "card"})
    fetched = api.get("/public-keys/card")

    assert (created.status_code, fetched.status_code) == (201, 200)  # as the docs say
    assert created.json() == fetched.json()
    body = created.json()
    assert list(body) == ["public_key", "created_at"]
    assert body["public_key"] == emulator.public_key
    key = load_der_public_key(base64.b64decode(body["public_key"], validate=True))
    assert isinstance(key, rsa.RSAPublicKey) and key.key_size == 2048
    assert isinstance(body["created_at"], int) and body["created_at"] > 1_600_000_000_000


def test_private_key_is_the_half_that_decrypts_what_the_public_key_encrypts(api, emulator):
    public_key = api.post("/public-keys", {"type": "card"}).json()["public_key"]
    blob = encrypt_card(
        public_key,
        number="4539620659922097",
        security_code="123",
        exp_month="7",
        exp_year="2031",
        holder="Maria Souza",
    )

    card = decrypt_card(emulator.private_key, blob)

    assert (card.number, card.security_code, card.exp_month, card.exp_year, card.holder) == (
        "4539620659922097",
        "123",
        "07",
        "2031",
        "Maria Souza",
    )
    assert emulator.private_key.key_size == 2048
    assert "PRIVATE" not in repr(emulator._state.keys)


@pytest.mark.parametrize(
    ("body", "code", "parameter_name"),
    [
        ({}, "40001", "type"),
        ({"type": "boleto"}, "40002", "type"),
        ({"kind": "card"}, "40003", "kind"),
    ],
)
def test_public_key_type_is_checked(api, body, code, parameter_name):
    response = api.post("/public-keys", body)

    assert refusal(response) == (code, parameter_name)


def test_the_sdk_script_is_served_as_javascript_without_a_token(api):
    response = api.get("/sdk/pagseguro.js", token=None)

    assert response.status_code == 200
    assert response.headers["Content-Type"] == "application/javascript"
    assert b"encryptCard" in response.content


class NaiveClock(Clock):
    """A clock that breaks the emulator's contract (naive datetimes): a bug, not bad input."""

    def now(self):
        return datetime(2030, 1, 1, 12, 0)


def test_a_bug_of_ours_is_a_logged_500_in_the_error_shape_without_request_data(caplog):
    emulator = Emulator([DEFAULT_TOKEN], clock=NaiveClock())
    try:
        session = requests.Session()
        base = mount(session, emulator)
        body = order_payload(charges=[charge_payload()])
        with caplog.at_level(logging.ERROR, logger="django_orderpay.emulator"):
            response = session.post(
                f"{base}/orders", json=body, headers={"Authorization": f"Bearer {DEFAULT_TOKEN}"}
            )
    finally:
        emulator.close()

    assert response.status_code == 500
    assert response.json() == {
        "error_messages": [{"code": "50000", "description": "internal_server_error"}]
    }
    assert "emulator failed on POST /orders" in caplog.text
    assert "4111111111111111" not in caplog.text and DEFAULT_TOKEN not in caplog.text


def test_created_statuses_as_the_docs_or_as_the_official_plugin_expects(api):
    """The docs: ``POST /public-keys`` 201, the 3-D Secure session 200; the official plugin
    requires 201 of the session. The option ``created_statuses: "plugin"`` answers so."""
    assert api.post("/public-keys", {"type": "card"}).status_code == 201
    assert api.post("/checkout-sdk/sessions", data=b"").status_code == 200
    api.post("/_emulator/options", {"created_statuses": "plugin"}, token=None)
    assert api.post("/public-keys", {"type": "card"}).status_code == 200
    assert api.post("/checkout-sdk/sessions", data=b"").status_code == 201
