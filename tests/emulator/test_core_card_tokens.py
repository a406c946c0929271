"""``POST /tokens/cards``: a card stored without a charge, then paid with by its token."""

from __future__ import annotations

import pytest

from django_orderpay.cardcrypto import encrypt_card
from tests.emulator.core_support import CARD_ID, TOKEN_B, charge_payload, error_of, order_payload


def encrypted(api, number="4111111111111111", year="2030"):
    key = api.post("/public-keys", {"type": "card"}).json()["public_key"]
    return encrypt_card(
        key,
        number=number,
        security_code="123",
        exp_month="12",
        exp_year=year,
        holder="Jose da Silva",
    )


def test_encrypted_card_is_stored_and_its_token_pays_for_its_merchant_only(api):
    response = api.post("/tokens/cards", {"encrypted": encrypted(api)})
    assert response.status_code == 200, response.text
    card = response.json()
    assert CARD_ID.match(card["id"])
    assert {k: card[k] for k in ("brand", "first_digits", "last_digits", "exp_month")} == {
        "brand": "visa",
        "first_digits": "411111",
        "last_digits": "1111",
        "exp_month": "12",
    }
    assert card["holder"] == {"name": "Jose da Silva"}
    assert "4111111111111111" not in response.text

    paid = api.post("/orders", order_payload(charges=[charge_payload({"id": card["id"]})]))
    assert paid.json()["charges"][0]["status"] == "PAID"
    other = api.post(
        "/orders", order_payload(charges=[charge_payload({"id": card["id"]})]), token=TOKEN_B
    )
    assert error_of(other)["description"] == "card_token_not_found"


def test_raw_card_is_stored(api):
    body = {
        "number": "5240082975622454",
        "exp_month": "3",
        "exp_year": "2031",
        "security_code": "123",
        "holder": {"name": "Maria Souza"},
    }
    card = api.post("/tokens/cards", body).json()
    assert (card["brand"], card["exp_month"], card["holder"]["name"]) == (
        "mastercard",
        "03",
        "Maria Souza",
    )


@pytest.mark.parametrize(
    ("body", "code", "parameter"),
    [
        ({"number": "4929291898380766"}, "card_cannot_be_stored", None),
        ({"number": "6011111111111117"}, "card_brand_not_supported", "number"),
        ({"number": None}, "number_is_required", "number"),
        ({"number": "411111111111"}, "number_invalid_length", "number"),
        ({"number": "4111111111111112"}, "number_is_invalid", "number"),
        ({"exp_year": "30"}, "exp_year_invalid_length", "exp_year"),
        ({"exp_month": "13"}, "exp_month_is_invalid", "exp_month"),
        ({"security_code": "12"}, "security_code_invalid_length", "security_code"),
        ({"exp_year": "2020"}, "card_cannot_be_stored", None),  # expired
    ],
)
def test_refusals_use_the_endpoint_codes(api, body, code, parameter):
    card = {"number": "4111111111111111", "exp_month": "12", "exp_year": "2030",
            "security_code": "123", "holder": {"name": "Jose da Silva"}}  # fmt: skip
    response = api.post("/tokens/cards", {**card, **body})
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == code
    assert error.get("parameter_name") == parameter
    assert "4111111111111111" not in response.text


def test_encrypted_with_other_fields_or_bad_blob_is_refused(api):
    both = api.post("/tokens/cards", {"encrypted": encrypted(api), "number": "4111111111111111"})
    assert error_of(both)["parameter_name"] == "number"
    bad = api.post("/tokens/cards", {"encrypted": "bm90IGEgY2FyZA=="})
    assert error_of(bad)["description"] == "invalid_encrypted_card"
    declined = api.post("/tokens/cards", {"encrypted": encrypted(api, "4929291898380766")})
    assert error_of(declined)["code"] == "card_cannot_be_stored"
