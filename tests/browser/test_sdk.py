"""The browser SDK served by the emulator: ``PagSeguro.encryptCard()`` in headless Chromium.

The script comes from the emulator over HTTP into a checkout page on the
emulator's origin; what it encrypts is decrypted in Python with the emulator's
key and must equal what ``cardcrypto`` would have encrypted; its validation
must give exactly ``cardcrypto.validate_card_fields``'s errors.
"""

from __future__ import annotations

import base64
import re
from typing import Any

import pytest
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa

from django_orderpay import cardcrypto
from django_orderpay.emulator import DEFAULT_TOKEN
from django_orderpay.testing import samples
from django_orderpay.testing.samples import OMIT

pytestmark = pytest.mark.browser

CHECKOUT_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>Checkout</title></head>
<body><form id="card"></form><script src="/sdk/pagseguro.js"></script></body></html>"""

BASE64_2048 = re.compile(r"^[A-Za-z0-9+/]{342}==$")

# (brand, number, security code, approved?) from provider-facts.md, plus the docs' 4111...
SANDBOX_CARDS = [
    ("visa", "4539620659922097", "123", True),
    ("visa", "4929291898380766", "123", False),
    ("mastercard", "5240082975622454", "123", True),
    ("mastercard", "5530062640663264", "123", False),
    ("amex", "345817690311361", "1234", True),
    ("amex", "372938001199778", "1234", False),
    ("elo", "4514161122113757", "123", True),
    ("elo", "4389350446134811", "123", False),
    ("hipercard", "6062828598919021", "123", True),
    ("hipercard", "6062822916014409", "123", False),
    ("visa", "4111111111111111", "123", True),
]


@pytest.fixture
def checkout(page, emulator_server):
    """A checkout page on the emulator's origin that loads the SDK from the emulator."""
    page_url = emulator_server.url("/checkout.html")
    page.route(page_url, lambda route: route.fulfill(content_type="text/html", body=CHECKOUT_PAGE))
    page.goto(page_url)
    page.wait_for_function("typeof PagSeguro !== 'undefined'")
    return page


def encrypt(page: Any, **card: Any) -> dict[str, Any]:
    """``PagSeguro.encryptCard(card)`` in the page, with the time just before and after."""
    return page.evaluate(
        """(card) => {
            const before = Date.now();
            const result = PagSeguro.encryptCard(card);
            return {result, before, after: Date.now()};
        }""",
        card,
    )


def private_key(emulator: Any) -> rsa.RSAPrivateKey:
    # The test plays the provider's side with the emulator's key.
    return emulator.private_key


def card_input(public_key: str, **overrides: Any) -> dict[str, Any]:
    card = {
        "publicKey": public_key,
        "holder": "Jose da Silva",
        "number": "4111111111111111",
        "expMonth": "12",
        "expYear": "2030",
        "securityCode": "123",
    }
    card.update(overrides)
    return card


def python_errors(card: dict[str, Any]) -> list[dict[str, str]]:
    errors = cardcrypto.validate_card_fields(
        card["publicKey"],
        card["number"],
        card["securityCode"],
        card["expMonth"],
        card["expYear"],
        card["holder"],
    )
    return [{"code": code, "message": message} for code, message in errors]


def test_the_sdk_defines_the_global_pagseguro(checkout):
    assert checkout.evaluate("typeof PagSeguro.encryptCard") == "function"


@pytest.mark.parametrize(("brand", "number", "security_code", "approved"), SANDBOX_CARDS)
def test_sandbox_cards_decrypt_to_what_cardcrypto_would_encrypt(
    checkout, emulator_server, brand, number, security_code, approved
):
    emulator = emulator_server.emulator
    holder = "José da Silva"

    run = encrypt(
        checkout,
        **card_input(
            emulator.public_key,
            holder=holder,
            number=number,
            securityCode=security_code,
            expMonth="3",
        ),
    )

    result = run["result"]
    assert result["hasErrors"] is False
    assert result["errors"] == []
    assert BASE64_2048.match(result["encryptedCard"])
    card = cardcrypto.decrypt_card(private_key(emulator), result["encryptedCard"])
    assert (card.number, card.security_code, card.exp_month, card.exp_year) == (
        number,
        security_code,
        "03",
        "2030",
    )
    assert card.holder == "Jose da Silva"
    assert run["before"] <= card.epoch_ms <= run["after"]
    # byte for byte the plaintext the Python encrypter builds for the same fields
    plaintext = private_key(emulator).decrypt(
        base64.b64decode(result["encryptedCard"]),
        padding.PKCS1v15(),
    )
    assert plaintext == cardcrypto.card_plaintext(
        number, security_code, "3", "2030", holder, card.epoch_ms
    )


def test_each_encryption_is_different(checkout, emulator_server):
    card = card_input(emulator_server.emulator.public_key)

    first = encrypt(checkout, **card)["result"]["encryptedCard"]
    second = encrypt(checkout, **card)["result"]["encryptedCard"]

    assert first != second


def test_the_holder_is_reduced_to_30_ascii_letters_and_spaces(checkout, emulator_server):
    emulator = emulator_server.emulator
    holder = "Maria Conceição d'Ávila-Gonçalves Brandão"

    result = encrypt(checkout, **card_input(emulator.public_key, holder=holder))["result"]

    card = cardcrypto.decrypt_card(private_key(emulator), result["encryptedCard"])
    assert card.holder == cardcrypto.normalize_holder(holder)
    assert card.holder == "Maria Conceicao dAvilaGoncalve"
    assert len(card.holder) == 30


def test_an_empty_security_code_is_allowed(checkout, emulator_server):
    emulator = emulator_server.emulator

    result = encrypt(checkout, **card_input(emulator.public_key, securityCode=""))["result"]

    assert result["hasErrors"] is False
    assert (
        cardcrypto.decrypt_card(private_key(emulator), result["encryptedCard"]).security_code == ""
    )


def test_numbers_given_as_numbers_are_accepted(checkout, emulator_server):
    emulator = emulator_server.emulator

    result = encrypt(
        checkout, **card_input(emulator.public_key, expMonth=7, expYear=2031, securityCode=123)
    )["result"]

    card = cardcrypto.decrypt_card(private_key(emulator), result["encryptedCard"])
    assert (card.exp_month, card.exp_year, card.security_code) == ("07", "2031", "123")


@pytest.mark.parametrize(
    ("code", "overrides"),
    [
        ("INVALID_NUMBER", {"number": "411111111111"}),
        ("INVALID_SECURITY_CODE", {"securityCode": "12"}),
        ("INVALID_EXPIRATION_MONTH", {"expMonth": "13"}),
        ("INVALID_EXPIRATION_YEAR", {"expYear": "30"}),
        ("INVALID_PUBLIC_KEY", {"publicKey": "not-a-key"}),
        ("INVALID_HOLDER", {"holder": "Jose 2nd"}),
    ],
)
def test_each_validation_error_code(checkout, emulator_server, code, overrides):
    card = card_input(emulator_server.emulator.public_key, **overrides)

    result = encrypt(checkout, **card)["result"]

    assert result["hasErrors"] is True
    assert result["encryptedCard"] is None
    assert [error["code"] for error in result["errors"]] == [code]
    assert result["errors"] == python_errors(card)


def _ec_public_key() -> str:
    key = ec.generate_private_key(ec.SECP256R1()).public_key()
    der = key.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return base64.b64encode(der).decode()


EDGE_CASES = [
    {"number": "4111 1111 1111 1111"},
    {"number": "4" * 19},
    {"number": "4" * 20},
    {"number": ""},
    {"securityCode": "12345"},
    {"securityCode": "12a"},
    {"expMonth": "0"},
    {"expMonth": "1"},
    {"expMonth": "012"},
    {"expMonth": "ab"},
    {"expYear": "1899"},
    {"expYear": "1900"},
    {"expYear": "2099"},
    {"expYear": "2100"},
    {"holder": ""},
    {"holder": "   "},
    {"holder": "!!!"},
    {"holder": "Ávila Ñandú"},
    {"holder": "Jose ٣"},
    {"publicKey": ""},
    {"publicKey": "QUJD"},
    {"publicKey": "PUBLIC KEY"},
    {"number": "1", "securityCode": "1", "expMonth": "99", "expYear": "1", "holder": "9"},
]


@pytest.mark.parametrize(
    "overrides", EDGE_CASES, ids=lambda o: ",".join(f"{k}={v!r}" for k, v in o.items())
)
def test_validation_matches_cardcrypto_exactly(checkout, emulator_server, overrides):
    card = card_input(emulator_server.emulator.public_key, **overrides)

    result = encrypt(checkout, **card)["result"]

    assert result["errors"] == python_errors(card)
    assert result["hasErrors"] is bool(result["errors"])
    assert (result["encryptedCard"] is None) is result["hasErrors"]


def test_a_non_rsa_public_key_is_invalid_in_both(checkout):
    card = card_input(_ec_public_key())

    result = encrypt(checkout, **card)["result"]

    assert [error["code"] for error in result["errors"]] == ["INVALID_PUBLIC_KEY"]
    assert result["errors"] == python_errors(card)


def test_missing_fields_are_errors_not_exceptions(checkout):
    result = checkout.evaluate("PagSeguro.encryptCard({})")

    assert result["hasErrors"] is True
    assert [error["code"] for error in result["errors"]] == [
        "INVALID_PUBLIC_KEY",
        "INVALID_NUMBER",
        "INVALID_EXPIRATION_MONTH",
        "INVALID_EXPIRATION_YEAR",
        "INVALID_HOLDER",
    ]


@pytest.mark.parametrize(
    ("number", "status", "code"),
    [("4539620659922097", "PAID", "20000"), ("4929291898380766", "DECLINED", "20003")],
)
def test_an_order_paid_with_the_browser_encrypted_card(
    checkout, emulator_server, number, status, code
):
    emulator = emulator_server.emulator
    public_key = requests.post(
        emulator_server.url("/public-keys"),
        json={"type": "card"},
        headers={"Authorization": f"Bearer {DEFAULT_TOKEN}"},
        timeout=10,
    ).json()["public_key"]
    encrypted = encrypt(checkout, **card_input(public_key, number=number))["result"]
    charge = samples.charge_request(
        reference_id="ch-browser-1",
        description="Pedido ex-browser-1",
        payment_method=samples.payment_method(
            card={
                "encrypted": encrypted["encryptedCard"],
                "store": True,
                "holder": {"name": "Jose da Silva"},
            }
        ),
    )
    order = samples.order_request(
        reference_id="ex-browser-1", shipping=OMIT, notification_urls=OMIT, charges=[charge]
    )

    response = requests.post(
        emulator_server.url("/orders"),
        json=order,
        headers={"Authorization": f"Bearer {DEFAULT_TOKEN}"},
        timeout=10,
    )

    assert response.status_code == 201, response.text
    [charge] = response.json()["charges"]
    assert charge["status"] == status
    assert charge["payment_response"]["code"] == code
    card = charge["payment_method"]["card"]
    assert (card["brand"], card["first_digits"], card["last_digits"]) == (
        "visa",
        number[:6],
        number[-4:],
    )
    assert (card["exp_month"], card["exp_year"]) == ("12", "2030")
    assert card["id"].startswith("CARD_")
    assert emulator.public_key == public_key
