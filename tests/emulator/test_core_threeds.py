"""3-D Secure and debit cards through HTTP: the session, the SDK's authentications,
the challenge, and the charge that uses an authentication once."""

from __future__ import annotations

from typing import Any

import pytest

from django_orderpay.emulator import (
    AUTHENTICATION_REQUIRED_CARD,
    CHALLENGE_CODE,
    SANDBOX_3DS_CARDS,
    THREEDS_CHANGE_PAYMENT_METHOD_CARD,
    THREEDS_NOT_SUPPORTED_CARD,
)
from tests.emulator.core_support import (
    TOKEN_B,
    charge_payload,
    error_of,
    order_payload,
    raw_card,
    refusal,
)

FRICTIONLESS = "4000000000002701"
CHALLENGED = "4000000000002503"
NOT_AUTHENTICATED_CARD = "4000000000002925"
METHOD = "charges[0].payment_method"


def session(api, token: str | None = None) -> str:
    response = api.post("/checkout-sdk/sessions", data=b"", **({"token": token} if token else {}))
    assert response.status_code == 200, response.text
    return response.json()["session"]


def sdk_data(number: str, amount: int, *, kind: str = "CREDIT_CARD", **extra: Any) -> dict:
    """``data`` of ``authenticate3DS`` as the official plugin builds it."""
    return {
        "customer": {"name": "Jose da Silva", "email": "jose@example.com", "phones": []},
        "paymentMethod": {
            "type": kind,
            "installments": 1,
            "card": {
                "number": number,
                "expMonth": "12",
                "expYear": "2030",
                "holder": {"name": "Jose da Silva"},
            },
        },
        "amount": {"value": amount, "currency": "BRL"},
        "billingAddress": {
            "street": "Av. Paulista",
            "number": "2073",
            "regionCode": "SP",
            "country": "BRA",
            "city": "Sao Paulo",
            "postalCode": "01311300",
        },
        "dataOnly": False,
        **extra,
    }


def authenticate(api, number: str, amount: int = 500, **kwargs: Any) -> dict[str, Any]:
    """What ``authenticate3DS`` gets back from the emulator (no token: the browser calls it)."""
    body = {"session": session(api), "data": sdk_data(number, amount, **kwargs)}
    response = api.post("/checkout-sdk/authentications", body, token=None)
    assert response.status_code == 200, response.text
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    return response.json()


def pay(api, number: str, amount: int = 500, auth: dict | None = None, **method: Any):
    charge = charge_payload(raw_card(number), amount={"value": amount, "currency": "BRL"}, **method)
    if auth is not None:
        charge["payment_method"]["authentication_method"] = auth
    return api.post("/orders", order_payload(charges=[charge]))


def threeds(auth_id: str) -> dict[str, str]:
    return {"type": "THREEDS", "id": auth_id}


def test_session_lasts_thirty_minutes_and_needs_the_merchant_token(api, emulator):
    response = api.post("/checkout-sdk/sessions", data=b"")
    assert response.status_code == 200  # the docs' status (the official plugin expects 201)
    body = response.json()
    assert set(body) == {"session", "expires_at"}
    now_ms = emulator.clock.now().timestamp() * 1000
    assert body["expires_at"] - now_ms == pytest.approx(30 * 60 * 1000, abs=2000)
    assert api.post("/checkout-sdk/sessions", data=b"", token=None).status_code == 401


def test_frictionless_card_completes_and_its_id_pays_once(api):
    result = authenticate(api, FRICTIONLESS)
    assert result["status"] == "AUTH_FLOW_COMPLETED"
    assert result["id"].startswith("3DS_")

    response = pay(api, FRICTIONLESS, auth=threeds(result["id"]))
    assert response.status_code == 201, response.text
    charge = response.json()["charges"][0]
    assert charge["status"] == "PAID"
    assert charge["payment_method"]["authentication_method"] == {
        "type": "THREEDS",
        "id": result["id"],
        "status": "AUTHENTICATED",
    }
    # One use: a second charge with the same id is refused, naming it.
    again = pay(api, FRICTIONLESS, auth=threeds(result["id"]))
    assert refusal(again) == ("40002", f"{METHOD}.authentication_method.id")
    assert error_of(again)["description"] == "authentication_already_used"


@pytest.mark.parametrize(
    ("card", "amount", "problem"),
    [
        ("4111111111111111", 500, "authentication_card_mismatch"),
        (FRICTIONLESS, 501, "authentication_amount_mismatch"),
    ],
)
def test_an_id_pays_only_its_card_and_amount(api, card, amount, problem):
    result = authenticate(api, FRICTIONLESS, 500)
    response = pay(api, card, amount, auth=threeds(result["id"]))
    assert refusal(response) == ("40002", f"{METHOD}.authentication_method.id")
    assert error_of(response)["description"] == problem
    # The refused charge did not use it up: the right card and amount still pay.
    assert pay(api, FRICTIONLESS, 500, auth=threeds(result["id"])).status_code == 201


def test_an_id_expires_and_belongs_to_its_merchant(api, emulator):
    result = authenticate(api, FRICTIONLESS)
    other = api.post(
        "/orders",
        order_payload(charges=[charge_payload(raw_card(FRICTIONLESS))]),
        token=TOKEN_B,
    )
    assert other.status_code == 201  # B's plain charge works; now with A's id:
    charge = charge_payload(raw_card(FRICTIONLESS))
    charge["payment_method"]["authentication_method"] = threeds(result["id"])
    refused = api.post("/orders", order_payload(charges=[charge]), token=TOKEN_B)
    assert error_of(refused)["description"] == "authentication_not_found"

    # Fifteen minutes: the last second still pays, the next one does not.
    second = authenticate(api, FRICTIONLESS)
    emulator.clock.advance(15 * 60 - 1)
    assert pay(api, FRICTIONLESS, auth=threeds(result["id"])).status_code == 201
    emulator.clock.advance(1)
    expired = pay(api, FRICTIONLESS, auth=threeds(second["id"]))
    assert error_of(expired)["description"] == "authentication_expired"


def test_challenge_passed_with_the_code_then_pays(api):
    result = authenticate(api, CHALLENGED)
    assert result["status"] == "REQUIRE_CHALLENGE"
    assert result["challenge"]["brand"] == "visa"
    page = api.get(result["challenge"]["url"], token=None)
    assert page.status_code == 200
    assert "R$ 5.00" in page.text and CHALLENGE_CODE in page.text
    # Framed by the shop's page, whatever its origin (and whatever X-Frame-Options a host adds).
    assert page.headers["Content-Security-Policy"] == "frame-ancestors *"
    # Not answered yet: the id pays nothing.
    early = pay(api, CHALLENGED, auth=threeds(result["id"]))
    assert error_of(early)["description"] == "authentication_not_completed"

    answered = api.post(result["challenge"]["url"], {"code": CHALLENGE_CODE}, token=None)
    assert answered.json() == {
        "id": result["id"],
        "status": "AUTH_FLOW_COMPLETED",
        "authenticationStatus": "AUTHENTICATED",
    }
    again = api.post(result["challenge"]["url"], {"code": CHALLENGE_CODE}, token=None)
    assert error_of(again)["description"] == "challenge_already_answered"
    charge = pay(api, CHALLENGED, auth=threeds(result["id"])).json()["charges"][0]
    assert (charge["status"], charge["payment_method"]["authentication_method"]["status"]) == (
        "PAID",
        "AUTHENTICATED",
    )


@pytest.mark.parametrize("answer", [{"code": "9999"}, {"cancel": True}])
def test_challenge_failed_asks_for_another_method_and_its_id_pays_nothing(api, answer):
    result = authenticate(api, CHALLENGED)
    answered = api.post(result["challenge"]["url"], answer, token=None)
    assert answered.json() == {"status": "CHANGE_PAYMENT_METHOD"}
    response = pay(api, CHALLENGED, auth=threeds(result["id"]))
    assert error_of(response)["description"] == "authentication_not_completed"


@pytest.mark.parametrize(
    ("card", "status"),
    [
        (THREEDS_NOT_SUPPORTED_CARD, "AUTH_NOT_SUPPORTED"),
        (THREEDS_CHANGE_PAYMENT_METHOD_CARD, "CHANGE_PAYMENT_METHOD"),
    ],
)
def test_cards_without_an_authentication(api, card, status):
    assert authenticate(api, card) == {"status": status}


def test_sandbox_table_not_authenticated_still_pays_and_its_amount_declines(api):
    result = authenticate(api, NOT_AUTHENTICATED_CARD, 500)
    charge = pay(api, NOT_AUTHENTICATED_CARD, 500, auth=threeds(result["id"])).json()["charges"][0]
    assert charge["status"] == "PAID"
    assert charge["payment_method"]["authentication_method"]["status"] == "NOT_AUTHENTICATED"
    declining = SANDBOX_3DS_CARDS[NOT_AUTHENTICATED_CARD].declined_amount
    result = authenticate(api, NOT_AUTHENTICATED_CARD, declining)
    charge = pay(api, NOT_AUTHENTICATED_CARD, declining, auth=threeds(result["id"]))
    assert charge.json()["charges"][0]["status"] == "DECLINED"


def test_data_only_never_challenges(api):
    result = authenticate(api, CHALLENGED, dataOnly=True)
    assert result["status"] == "AUTH_FLOW_COMPLETED"
    charge = pay(api, CHALLENGED, auth=threeds(result["id"])).json()["charges"][0]
    assert charge["payment_method"]["authentication_method"]["status"] == "NOT_AUTHENTICATED"


def test_20159_decline_without_authentication_then_paid_with_it(api):
    declined = pay(api, AUTHENTICATION_REQUIRED_CARD).json()["charges"][0]
    assert declined["status"] == "DECLINED"
    assert declined["payment_response"]["code"] == "20159"
    result = authenticate(api, AUTHENTICATION_REQUIRED_CARD)
    paid = pay(api, AUTHENTICATION_REQUIRED_CARD, auth=threeds(result["id"])).json()
    assert paid["charges"][0]["status"] == "PAID"


def test_external_authentication_is_echoed_with_its_status(api):
    external = {
        "type": "THREEDS",
        "cavv": "BwABBylVaQAAAAFwllVpAAAAAAA=",
        "xid": "BwABBylVaQAAAAFwllVpAAAAAAA=",
        "eci": "05",
        "version": "2.1.0",
        "dstrans_id": "DIR_SERVER_TID",
    }
    charge = pay(api, "4111111111111111", auth=external).json()["charges"][0]
    assert charge["payment_method"]["authentication_method"] == {
        **external,
        "status": "AUTHENTICATED",
    }
    attempted = pay(api, "4111111111111111", auth={**external, "eci": "06"}).json()
    method = attempted["charges"][0]["payment_method"]
    assert method["authentication_method"]["status"] == "NOT_AUTHENTICATED"
    missing = pay(api, "4111111111111111", auth={"type": "THREEDS", "eci": "05"})
    assert refusal(missing) == ("40001", f"{METHOD}.authentication_method.cavv")


def test_authentication_refuses_a_bad_session_and_names_fields(api):
    body = {"session": "nope", "data": sdk_data(FRICTIONLESS, 500)}
    response = api.post("/checkout-sdk/authentications", body, token=None)
    assert error_of(response)["parameter_name"] == "session"
    data = sdk_data("4111111111111112", 500)
    response = api.post(
        "/checkout-sdk/authentications", {"session": session(api), "data": data}, token=None
    )
    assert refusal(response) == ("40002", "data.paymentMethod.card.number")
    preflight = api.session.options(api.url("/checkout-sdk/authentications"), timeout=5)
    assert preflight.status_code == 204
    assert "Content-Type" in preflight.headers["Access-Control-Allow-Headers"]


# --- debit -------------------------------------------------------------------------------


def test_debit_without_authentication_is_refused_as_pagbank_words_it(api):
    response = pay(api, FRICTIONLESS, type="DEBIT_CARD")
    assert refusal(response) == ("40002", f"{METHOD}.authentication_method")
    assert error_of(response)["description"] == (
        "Authentication is required for debit card transaction"
    )


def test_debit_authenticated_is_paid_as_debit(api):
    result = authenticate(api, FRICTIONLESS, kind="DEBIT_CARD")
    response = pay(api, FRICTIONLESS, type="DEBIT_CARD", auth=threeds(result["id"]))
    charge = response.json()["charges"][0]
    assert (charge["status"], charge["payment_method"]["type"]) == ("PAID", "DEBIT_CARD")
    # A debit authentication does not pay a credit charge.
    other = authenticate(api, FRICTIONLESS, kind="DEBIT_CARD")
    credit = pay(api, FRICTIONLESS, auth=threeds(other["id"]))
    assert error_of(credit)["description"] == "authentication_payment_method_mismatch"


def test_debit_not_authenticated_is_paid_as_the_sandbox_table_says(api):
    """PagBank's sandbox table: a NOT_AUTHENTICATED card's charge is PAID, debit or credit;
    the option ``debit_not_authenticated: "DECLINED"`` declines it instead."""
    result = authenticate(api, NOT_AUTHENTICATED_CARD, kind="DEBIT_CARD")
    assert result["authenticationStatus"] == "NOT_AUTHENTICATED"
    response = pay(api, NOT_AUTHENTICATED_CARD, type="DEBIT_CARD", auth=threeds(result["id"]))
    assert response.json()["charges"][0]["status"] == "PAID"

    api.post("/_emulator/options", {"debit_not_authenticated": "DECLINED"}, token=None)
    result = authenticate(api, NOT_AUTHENTICATED_CARD, kind="DEBIT_CARD")
    response = pay(api, NOT_AUTHENTICATED_CARD, type="DEBIT_CARD", auth=threeds(result["id"]))
    charge = response.json()["charges"][0]
    assert (charge["status"], charge["payment_response"]["code"]) == ("DECLINED", "20003")


def test_the_sdk_result_says_how_the_issuer_decided(api):
    """``authenticationStatus`` beside ``status``, as the official plugin's type file has it
    (the partner plugin pays only when it is AUTHENTICATED)."""
    frictionless = authenticate(api, FRICTIONLESS)
    assert frictionless["authenticationStatus"] == "AUTHENTICATED"
    data_only = authenticate(api, CHALLENGED, dataOnly=True)
    assert data_only["authenticationStatus"] == "NOT_AUTHENTICATED"
    challenged = authenticate(api, CHALLENGED)
    assert "authenticationStatus" not in challenged  # not decided until answered
    answered = api.post(challenged["challenge"]["url"], {"code": CHALLENGE_CODE}, token=None)
    assert answered.json()["authenticationStatus"] == "AUTHENTICATED"


@pytest.mark.parametrize(
    ("method", "field"),
    [
        ({"installments": 2}, "installments"),
        ({"capture": False}, "capture"),
        ({"store": True}, "card.store"),
    ],
)
def test_debit_takes_no_installments_no_capture_step_no_storing(api, method, field):
    result = authenticate(api, FRICTIONLESS, 1000, kind="DEBIT_CARD")
    response = pay(api, FRICTIONLESS, 1000, type="DEBIT_CARD", auth=threeds(result["id"]), **method)
    assert refusal(response) == ("40002", f"{METHOD}.{field}")
