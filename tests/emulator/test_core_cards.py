"""Cards through HTTP: raw, encrypted, token; outcomes by number; store; Elo recurrence."""

from __future__ import annotations

import base64
from datetime import datetime, timedelta

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.hazmat.primitives.serialization import load_der_public_key

from django_orderpay.cardcrypto import encrypt_card
from django_orderpay.emulator import ANTIFRAUD_DECLINED_CARD, IN_ANALYSIS_CARD
from tests.emulator.core_support import (
    CARD_ID,
    TIMESTAMP,
    TOKEN_B,
    charge_payload,
    error_of,
    order_payload,
    raw_card,
)

APPROVED = [
    ("4539620659922097", "visa"),
    ("5240082975622454", "mastercard"),
    ("345817690311361", "amex"),
    ("4514161122113757", "elo"),
    ("6062828598919021", "hipercard"),
    ("4111111111111111", "visa"),
    ("5555555555554444", "mastercard"),  # any other Luhn-valid number
]
DECLINED = [
    ("4929291898380766", "visa"),
    ("5530062640663264", "mastercard"),
    ("372938001199778", "amex"),
    ("4389350446134811", "elo"),
    ("6062822916014409", "hipercard"),
]


def pay(api, card, **charge_overrides):
    """Create an order with one charge paid by ``card``; the charge."""
    response = api.post(
        "/orders", order_payload(charges=[charge_payload(card, **charge_overrides)])
    )
    assert response.status_code == 201, response.text
    return response.json()["charges"][0]


#: PagBank asks for the holder's name beside an encrypted card.
HOLDER = {"name": "Jose da Silva"}


def encrypted(api, number="4111111111111111", security_code="123", holder="Jose da Silva"):
    public_key = api.post("/public-keys", {"type": "card"}).json()["public_key"]
    return encrypt_card(
        public_key,
        number=number,
        security_code=security_code,
        exp_month="12",
        exp_year="2030",
        holder=holder,
    )


@pytest.mark.parametrize(("number", "brand"), APPROVED)
def test_approved_cards_are_paid_with_their_brand(api, number, brand):
    security_code = "1234" if brand == "amex" else "123"
    charge = pay(api, raw_card(number, security_code=security_code))

    assert charge["status"] == "PAID"
    assert charge["payment_response"]["code"] == "20000"
    card = charge["payment_method"]["card"]
    assert card["brand"] == brand
    assert card["first_digits"] == number[:6] and card["last_digits"] == number[-4:]
    assert "id" not in card and card["store"] is False


@pytest.mark.parametrize(("number", "brand"), DECLINED)
def test_declined_sandbox_cards_are_declined_by_the_issuer(api, number, brand):
    charge = pay(api, raw_card(number, security_code="123"))

    assert charge["status"] == "DECLINED"
    assert "paid_at" not in charge
    assert charge["amount"]["summary"] == {"total": 500, "paid": 0, "refunded": 0}
    response = charge["payment_response"]
    assert (response["code"], response["message"]) == ("20003", "NAO AUTORIZADA")
    # As PagBank shows an issuer's decline: the NSU, the reason, the brand's advice.
    assert response["raw_data"] == {
        "authorization_code": None,
        "nsu": response["reference"],
        "reason_code": "51",
        "merchant_advice_code": "02",
    }
    assert response["reference"].isdigit()
    assert [link["rel"] for link in charge["links"]] == ["SELF"]
    assert charge["payment_method"]["card"]["brand"] == brand


@pytest.mark.parametrize("where", ["payment_method", "card"])
def test_declined_card_with_store_still_returns_a_token_wherever_store_is(api, where):
    if where == "card":
        charge = pay(api, raw_card("4929291898380766", store=True))
    else:
        charge = pay(api, raw_card("4929291898380766"), store=True)

    assert charge["status"] == "DECLINED"
    card = charge["payment_method"]["card"]
    assert CARD_ID.match(card["id"]) and card["store"] is True


@pytest.mark.parametrize("where", ["payment_method", "card"])
def test_a_two_step_declined_pay_with_store_returns_a_token(api, where):
    order = api.create_order()
    store = {"store": True}
    card = raw_card("5530062640663264", **(store if where == "card" else {}))
    extra = store if where == "payment_method" else {}

    response = api.post(f"/orders/{order['id']}/pay", {"charges": [charge_payload(card, **extra)]})

    assert response.status_code == 201
    [charge] = response.json()["charges"]
    assert charge["status"] == "DECLINED"
    assert CARD_ID.match(charge["payment_method"]["card"]["id"])


def test_a_declined_charge_answers_the_samples_fields(api):
    charge = pay(api, raw_card("4929291898380766"))

    assert list(charge) == [
        "id",
        "reference_id",
        "status",
        "created_at",
        "description",
        "amount",
        "payment_response",
        "payment_method",
        "links",
    ]
    response = charge["payment_response"]
    assert list(response) == ["code", "message", "reference", "raw_data"]
    assert all(isinstance(response[key], str) for key in ("code", "message", "reference"))
    assert len(response["reference"]) == 12


def test_anti_fraud_card_is_refused_by_the_provider(api):
    charge = pay(api, raw_card(ANTIFRAUD_DECLINED_CARD))

    assert charge["status"] == "DECLINED"
    response = charge["payment_response"]
    assert (response["code"], response["message"]) == ("10000", "NAO AUTORIZADO PELO PAGSEGURO")
    assert "raw_data" not in response


def test_the_in_analysis_card_waits_for_the_control_plane(api):
    charge = pay(api, raw_card(IN_ANALYSIS_CARD))

    assert charge["status"] == "IN_ANALYSIS"
    # Not 10002: that is a decline code in PagBank's table.
    assert charge["payment_response"]["code"] == "99000"
    assert [link["rel"] for link in charge["links"]] == ["SELF"]
    assert "paid_at" not in charge


def test_expired_card_is_declined_with_reason_54(api):
    charge = pay(api, raw_card(exp_month="01", exp_year="2020"))

    assert charge["status"] == "DECLINED"
    raw_data = charge["payment_response"]["raw_data"]
    assert (raw_data["reason_code"], raw_data["merchant_advice_code"]) == ("54", "01")


@pytest.mark.parametrize(
    ("number", "days"),
    [
        ("4111111111111111", 29),  # Visa
        ("5240082975622454", 29),  # Mastercard
        ("4514161122113757", 29),  # Elo
        ("345817690311361", 6),  # Amex
        ("6062828598919021", 6),  # Hipercard
    ],
)
def test_an_authorisation_may_be_captured_for_its_brands_window(api, number, days):
    cvv = "1234" if number.startswith("3") else "123"
    charge = pay(api, raw_card(number, security_code=cvv), capture=False)

    created = datetime.fromisoformat(charge["created_at"])
    deadline = datetime.fromisoformat(charge["payment_method"]["capture_before"])
    assert abs(deadline - created - timedelta(days=days)) < timedelta(seconds=2)


def test_capture_false_is_authorized_with_capture_before_later(api):
    charge = pay(api, raw_card(), capture=False)

    assert charge["status"] == "AUTHORIZED"
    assert "paid_at" not in charge
    assert charge["amount"]["summary"] == {"total": 500, "paid": 0, "refunded": 0}
    method = charge["payment_method"]
    assert list(method) == [
        "type",
        "installments",
        "capture",
        "capture_before",
        "card",
        "soft_descriptor",
    ]
    assert method["capture"] is False and TIMESTAMP.match(method["capture_before"])
    assert method["capture_before"][:10] > charge["created_at"][:10]
    assert [link["rel"] for link in charge["links"]] == ["SELF", "CHARGE.CANCEL", "CHARGE.CAPTURE"]
    assert charge["links"][2] == {
        "rel": "CHARGE.CAPTURE",
        "href": charge["links"][0]["href"] + "/capture",
        "media": "application/json",
        "type": "POST",
    }


def test_encrypted_card_is_decrypted_and_paid(api):
    charge = pay(api, {"encrypted": encrypted(api), "store": True, "holder": HOLDER})

    assert charge["status"] == "PAID"
    card = charge["payment_method"]["card"]
    assert card["brand"] == "visa" and card["last_digits"] == "1111"
    assert card["exp_month"] == "12" and card["exp_year"] == "2030"
    assert card["holder"] == {"name": "Jose da Silva"}
    assert CARD_ID.match(card["id"])


def test_encrypted_declined_card_follows_the_same_table(api):
    charge = pay(api, {"encrypted": encrypted(api, "4929291898380766"), "holder": HOLDER})

    assert charge["status"] == "DECLINED"


def test_encrypted_card_with_a_holder_beside_it_uses_that_holder(api):
    card = {"encrypted": encrypted(api, security_code=""), "security_code": "123", "holder": HOLDER}
    card["holder"] = {"name": "Maria Souza"}

    charge = pay(api, card)

    assert charge["payment_method"]["card"]["holder"] == {"name": "Maria Souza"}


@pytest.mark.parametrize("blob", ["not base64!", "QUJD", "A" * 344])
def test_a_bad_encrypted_blob_is_40002_naming_it(api, blob):
    response = api.post(
        "/orders", order_payload(charges=[charge_payload({"encrypted": blob, "holder": HOLDER})])
    )

    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "40002"
    assert error["parameter_name"] == "charges[0].payment_method.card.encrypted"


@pytest.mark.parametrize("digest", [hashes.SHA1, hashes.SHA256], ids=["sha1", "sha256"])
def test_an_oaep_encrypted_card_is_decrypted_after_pkcs1_v15_fails(api, digest):
    """The facts: two SDK ports use PKCS#1 v1.5, one official note says OAEP; both are taken."""
    der = base64.b64decode(api.post("/public-keys", {"type": "card"}).json()["public_key"])
    key = load_der_public_key(der)
    oaep = padding.OAEP(mgf=padding.MGF1(digest()), algorithm=digest(), label=None)
    plaintext = b"5240082975622454;123;12;2030;Jose da Silva;1700000000000"
    blob = base64.b64encode(key.encrypt(plaintext, oaep)).decode()

    charge = pay(api, {"encrypted": blob, "store": True, "holder": HOLDER})

    assert charge["status"] == "PAID"
    card = charge["payment_method"]["card"]
    assert (card["brand"], card["first_digits"], card["last_digits"]) == (
        "mastercard",
        "524008",
        "2454",
    )
    assert card["holder"] == {"name": "Jose da Silva"}
    assert CARD_ID.match(card["id"])


def test_a_blob_whose_plaintext_is_not_the_sdks_is_40002(api):
    der = base64.b64decode(api.post("/public-keys", {"type": "card"}).json()["public_key"])
    blob = base64.b64encode(
        load_der_public_key(der).encrypt(b"4111111111111111;123", padding.PKCS1v15())
    ).decode()

    response = api.post(
        "/orders", order_payload(charges=[charge_payload({"encrypted": blob, "holder": HOLDER})])
    )

    assert response.status_code == 400
    assert error_of(response) == {
        "code": "40002",
        "description": "invalid_encrypted_card",
        "parameter_name": "charges[0].payment_method.card.encrypted",
    }
    assert "4111111111111111" not in response.text


def test_a_blob_encrypted_for_another_key_is_40002(api):
    from django_orderpay.emulator import Emulator

    other = Emulator()
    try:
        blob = encrypt_card(
            other.public_key,
            number="4111111111111111",
            security_code="123",
            exp_month="12",
            exp_year="2030",
            holder="Jose",
        )
    finally:
        other.close()

    response = api.post(
        "/orders", order_payload(charges=[charge_payload({"encrypted": blob, "holder": HOLDER})])
    )

    assert error_of(response)["parameter_name"] == "charges[0].payment_method.card.encrypted"


def test_token_charges_the_stored_card_without_security_code(api):
    stored = pay(api, raw_card(store=True))["payment_method"]["card"]

    charge = pay(api, {"id": stored["id"]})

    assert charge["status"] == "PAID"
    card = charge["payment_method"]["card"]
    assert card["id"] == stored["id"]
    assert card["last_digits"] == "1111" and card["brand"] == "visa"
    assert card["exp_month"] == "12" and card["holder"] == {"name": "Jose da Silva"}


def test_token_with_security_code_and_holder_as_the_sample(api):
    stored = pay(api, raw_card(store=True))["payment_method"]["card"]

    charge = pay(api, {"id": stored["id"], "security_code": "123", "holder": {"name": "Jose"}})

    assert charge["status"] == "PAID"
    assert charge["payment_method"]["card"]["holder"] == {"name": "Jose"}


def test_token_with_a_holder_of_only_a_tax_id_keeps_the_stored_name(api):
    stored = pay(api, raw_card(store=True))["payment_method"]["card"]

    charge = pay(api, {"id": stored["id"], "holder": {"tax_id": "12345678909"}})

    assert charge["status"] == "PAID"
    # The holder's tax id is echoed, as PagBank's answers show it.
    assert charge["payment_method"]["card"]["holder"] == {
        "name": "Jose da Silva",
        "tax_id": "12345678909",
    }


def test_a_declined_stored_card_stays_declined_by_token(api):
    stored = pay(api, raw_card("4929291898380766", store=True))["payment_method"]["card"]

    assert pay(api, {"id": stored["id"]})["status"] == "DECLINED"


def test_a_token_works_only_for_the_merchant_that_created_it(api):
    token = pay(api, raw_card(store=True))["payment_method"]["card"]["id"]
    body = order_payload(charges=[charge_payload({"id": token})])

    response = api.post("/orders", body, token=TOKEN_B)

    assert response.status_code == 400
    assert error_of(response) == {
        "code": "40002",
        "description": "card_token_not_found",
        "parameter_name": "charges[0].payment_method.card.id",
    }


def test_an_unknown_token_answers_as_a_foreign_one(api):
    body = order_payload(
        charges=[charge_payload({"id": "CARD_00000000-0000-0000-0000-000000000000"})]
    )

    response = api.post("/orders", body)

    assert error_of(response)["description"] == "card_token_not_found"


@pytest.mark.parametrize("where", ["payment_method", "card"])
def test_store_is_honoured_wherever_it_is_placed(api, where):
    if where == "card":
        charge = pay(api, raw_card(store=True))
    else:
        charge = pay(api, raw_card(), store=True)

    card = charge["payment_method"]["card"]
    assert CARD_ID.match(card["id"]) and card["store"] is True


def test_soft_descriptor_is_echoed(api):
    charge = pay(api, raw_card(), soft_descriptor="MINHALOJA")

    assert charge["payment_method"]["soft_descriptor"] == "MINHALOJA"


def test_installments_are_echoed(api):
    charge = pay(api, raw_card(), installments=3, amount={"value": 1500, "currency": "BRL"})

    assert charge["payment_method"]["installments"] == 3


def test_elo_initial_recurrence_returns_a_15_digit_brand_reference_id_and_a_token(api):
    card = {"encrypted": encrypted(api, "4514161122113757"), "store": True, "holder": HOLDER}

    charge = pay(api, card, recurring={"type": "INITIAL"})

    response = charge["payment_response"]
    assert list(response) == ["code", "message", "reference", "brand_reference_id", "raw_data"]
    assert len(response["brand_reference_id"]) == 15 and response["brand_reference_id"].isdigit()
    assert charge["recurring"] == {"type": "INITIAL"}
    assert CARD_ID.match(charge["payment_method"]["card"]["id"])


def test_a_visa_initial_recurrence_has_no_brand_reference_id(api):
    charge = pay(api, raw_card(), recurring={"type": "INITIAL"})

    assert "brand_reference_id" not in charge["payment_response"]
    assert charge["recurring"] == {"type": "INITIAL"}


def test_elo_subsequent_recurrence_is_echoed_and_paid(api):
    first = pay(api, raw_card("4514161122113757", store=True), recurring={"type": "INITIAL"})
    recurring = {
        "type": "SUBSEQUENT",
        "recurrence_id": first["payment_response"]["brand_reference_id"],
        "original_amount": 500,
    }

    charge = pay(api, {"id": first["payment_method"]["card"]["id"]}, recurring=recurring)

    assert charge["status"] == "PAID"
    assert charge["recurring"] == recurring


def test_subsequent_without_recurrence_id_or_original_amount_is_not_blocked(api):
    charge = pay(api, raw_card("4514161122113757"), recurring={"type": "SUBSEQUENT"})

    assert charge["status"] == "PAID"
    assert charge["recurring"] == {"type": "SUBSEQUENT"}


@pytest.mark.parametrize(
    ("card", "parameter_name", "code"),
    [
        (raw_card("4111111111111112"), "card.number", "40002"),
        (raw_card("41111111"), "card.number", "40002"),
        (raw_card(4111111111111111), "card.number", "40002"),
        (raw_card("6011111111111117"), "card.number", "40002"),
        (raw_card(exp_month="13"), "card.exp_month", "40002"),
        (raw_card(exp_year="30"), "card.exp_year", "40002"),
        (raw_card(exp_year=None), "card.exp_year", "40001"),
        (raw_card(security_code="12"), "card.security_code", "40002"),
        (raw_card(security_code=None), "card.security_code", "40001"),
        (raw_card(holder=None), "card.holder.name", "40001"),
        ({"encrypted": "QUJD"}, "card.encrypted", "40002"),  # no holder needed; not a blob
        (raw_card(holder={"name": "J0se"}), "card.holder.name", "40002"),
        (raw_card(holder={"name": "Jose", "tax_id": "123"}), "card.holder.tax_id", "40002"),
        (raw_card(store="yes"), "card.store", "40002"),
        (raw_card(brand="visa"), "card.brand", "40003"),
        ({}, "card", "40002"),
        ({**raw_card(), "id": "CARD_00000000-0000-0000-0000-000000000000"}, "card", "40002"),
        ({"id": "not-a-token"}, "card.id", "40002"),
        ({"encrypted": 12, "holder": HOLDER}, "card.encrypted", "40002"),
        ({"encrypted": "QUJD", "exp_month": "12", "holder": HOLDER}, "card.exp_month", "40002"),
        ("4111111111111111", "card", "40002"),
    ],
)
def test_malformed_cards_are_errors_naming_the_field(api, card, parameter_name, code):
    response = api.post("/orders", order_payload(charges=[charge_payload(card)]))

    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == code
    assert error["parameter_name"] == f"charges[0].payment_method.{parameter_name}"
    assert "4111111111111111" not in response.text


def test_exp_month_and_year_may_be_integers_and_answer_as_strings(api):
    charge = pay(api, raw_card(exp_month=3, exp_year=2031))

    card = charge["payment_method"]["card"]
    assert (card["exp_month"], card["exp_year"]) == ("03", "2031")


def test_an_encrypted_card_without_a_holder_beside_it_is_paid(api):
    """The official plugin sends ``card.encrypted`` with ``payment_method.holder{name, tax_id}``
    and no ``card.holder``, in production; PagBank's encrypted-card example does too."""
    blob = encrypted(api)
    charge = charge_payload({"encrypted": blob, "store": False})
    charge["payment_method"]["holder"] = {"name": "Jose da Silva", "tax_id": "12345678909"}
    response = api.post("/orders", order_payload(charges=[charge]))
    assert response.status_code == 201, response.text
    answered = response.json()["charges"][0]
    assert answered["status"] == "PAID"
    assert answered["payment_method"]["card"]["holder"]["name"] == "Jose da Silva"  # the blob's
    bare = pay(api, {"encrypted": encrypted(api)})
    assert bare["status"] == "PAID"
    tax_id_only = charge_payload({"encrypted": encrypted(api)})
    tax_id_only["payment_method"]["holder"] = {"tax_id": "12345678909"}
    assert api.post("/orders", order_payload(charges=[tax_id_only])).status_code == 201


def test_a_stored_card_with_its_cvv_as_the_official_plugin_sends_it(api):
    """The official plugin's subscriptions send ``card: {id, cvv}``."""
    stored = pay(api, raw_card(store=True))["payment_method"]["card"]

    charge = pay(api, {"id": stored["id"], "cvv": "123"})

    assert charge["status"] == "PAID" and charge["payment_method"]["card"]["id"] == stored["id"]
    bad = api.post("/orders", order_payload(charges=[charge_payload({"id": stored["id"],
                                                                     "cvv": "12"})]))  # fmt: skip
    assert error_of(bad)["parameter_name"] == "charges[0].payment_method.card.cvv"
    both = {"id": stored["id"], "cvv": "123", "security_code": "123"}
    response = api.post("/orders", order_payload(charges=[charge_payload(both)]))
    assert error_of(response)["parameter_name"] == "charges[0].payment_method.card.cvv"


@pytest.mark.parametrize("kind", ["UNSCHEDULED", "STANDING ORDER"])
def test_every_documented_recurrence_type_is_taken(api, kind):
    """The charge object's ``recurring.type``: INITIAL, SUBSEQUENT, UNSCHEDULED,
    "STANDING ORDER"."""
    charge = pay(api, raw_card(), recurring={"type": kind})
    assert charge["recurring"] == {"type": kind}
    wrong = api.post("/orders", order_payload(charges=[charge_payload(recurring={"type": "X"})]))
    assert error_of(wrong)["parameter_name"] == "charges[0].recurring.type"
