"""Builders of the fields PagBank documents on a charge: ``sub_merchant``, the charge's own
``notification_urls``, ``card.network_token`` with ``token_data``, INAPP authentication and
``card.wallet``; each body as the use-case pages send it, each refusal naming its field."""

from __future__ import annotations

import pytest

from django_orderpay.exceptions import PayloadError
from django_orderpay.payloads import (
    Address,
    Amount,
    AuthenticationMethod,
    Card,
    ChargeRequest,
    Holder,
    PaymentMethod,
    Phone,
    SubMerchant,
    TokenData,
    Wallet,
    validate_pay_dict,
)
from django_orderpay.redaction import redact, without_card_secrets
from tests.pagbank_docs import docs_example

ADDRESS = Address(
    street="Avenida Brigadeiro Faria Lima",
    number="1384",
    locality="Pinheiros",
    city="Sao Paulo",
    region_code="SP",
    postal_code="01452002",
    complement="Apto 16",
)


def paths(built) -> list[str]:
    with pytest.raises(PayloadError) as caught:
        built.validate()
    return caught.value.paths


def card_charge(card: Card, **changes) -> ChargeRequest:
    method = PaymentMethod(card, **changes.pop("method", {}))
    return ChargeRequest(Amount(500), method, **changes)


def test_a_sub_merchant_and_the_charges_notification_url_as_the_docs_send_them():
    sub_merchant = SubMerchant(
        reference_id="MY-ID",
        name="Razão Social / Nome completo",
        tax_id="42167200803",
        mcc="155",
        address=ADDRESS,
        phones=[Phone(area="11", number="98877887788")],
    )
    charge = card_charge(
        Card.raw("4111111111111111", 3, 2031, "123", Holder("Jose da Silva", "65544332211")),
        sub_merchant=sub_merchant,
        notification_urls=["https://yourserver.com/nas_ecommerce/277be731/"],
    )
    assert charge.errors() == []
    sent = charge.to_dict()
    assert sent["sub_merchant"]["tax_id"] == "42167200803"
    assert sent["sub_merchant"]["phones"][0]["number"] == "98877887788"
    assert sent["notification_urls"] == ["https://yourserver.com/nas_ecommerce/277be731/"]
    docs_charge = docs_example("03-1")["request"]["charges"][0]
    assert (
        validate_pay_dict({"charges": [docs_charge]})["charges"][0]["sub_merchant"]
        == (docs_charge["sub_merchant"])
    )


@pytest.mark.parametrize(
    ("changes", "path"),
    [
        ({"tax_id": "42167200804"}, "sub_merchant.tax_id"),
        ({"name": "Lu"}, "sub_merchant.name"),
        ({"mcc": "51a9"}, "sub_merchant.mcc"),
        ({"reference_id": "R" * 16}, "sub_merchant.reference_id"),
    ],
)
def test_a_sub_merchant_follows_the_documented_rules(changes, path):
    fields = dict(reference_id="MY-ID", name="Loja", tax_id="42167200803", mcc="5199",
                  address=ADDRESS)  # fmt: skip
    charge = card_charge(Card.token("CARD_X1"), sub_merchant=SubMerchant(**{**fields, **changes}))
    assert paths(charge) == [path]


def test_a_charges_notification_url_is_one_https_url():
    card = Card.token("CARD_X1")
    assert paths(card_charge(card, notification_urls=["http://x.example.com/n"])) == [
        "notification_urls[0]"
    ]
    two = ["https://a.example.com", "https://b.example.com"]
    assert paths(card_charge(card, notification_urls=two)) == ["notification_urls"]


def test_a_network_token_with_its_token_data_as_the_docs_send_it():
    card = Card.from_network_token(
        "5454555555555555",
        12,
        2031,
        security_code="123",
        holder=Holder("Jose da Silva", "65544332211"),
        token_data=TokenData(
            requestor_id="12345678901",
            wallet="APPLE_PAY",
            cryptogram="BNQ1qJkmBYWiAAuzyDDhAoABFA==",
            ecommerce_domain="br.com.pagseguro",
            assurance_level=88,
        ),
    )
    charge = card_charge(card)
    assert charge.errors() == []
    sent = charge.to_dict()["payment_method"]["card"]
    assert sent["network_token"] == "5454555555555555"
    assert sent["token_data"]["cryptogram"] == "BNQ1qJkmBYWiAAuzyDDhAoABFA=="
    assert "5454555555555555" not in repr(card)
    docs_charge = docs_example("06-1")["request"]["charges"][0]
    assert validate_pay_dict({"charges": [docs_charge]})["charges"][0] == docs_charge
    # Never kept, logged or digested.
    body = {"card": sent}
    assert "network_token" not in without_card_secrets(body)["card"]
    assert "cryptogram" not in without_card_secrets(body)["card"]["token_data"]
    assert "BNQ1qJkm" not in str(redact(body))


def test_a_network_token_is_charged_at_once_and_never_stored():
    card = Card.from_network_token("5454555555555555", 12, 2031)
    assert paths(card_charge(card, method={"capture": False})) == ["payment_method.capture"]
    stored = Card.from_network_token("5454555555555555", 12, 2031, store=True)
    assert paths(card_charge(stored)) == ["payment_method.card.store"]


def test_inapp_authentication_of_an_elo_network_token():
    auth = AuthenticationMethod.in_app(cavv="BwABBylVaQAAAAFwllVpAAAAAAA=", eci="04")
    assert auth.to_dict() == {"type": "INAPP", "cavv": "BwABBylVaQAAAAFwllVpAAAAAAA=",
                              "eci": "04"}  # fmt: skip
    card = Card.from_network_token("6550000000000001", 12, 2031)
    debit = ChargeRequest(Amount(500), PaymentMethod.debit(card, auth))
    assert debit.errors() == []
    docs_charge = docs_example("06-4")["request"]["charges"][0]
    assert validate_pay_dict({"charges": [docs_charge]})["charges"][0] == docs_charge
    assert AuthenticationMethod(type="INAPP", eci="04").errors()  # cavv is required


@pytest.mark.parametrize(("name", "kind"), [("11-1", "GOOGLE_PAY"), ("12-1", "APPLE_PAY")])
def test_a_wallets_key_as_the_docs_send_it(name, kind):
    card = Card.from_wallet(kind, '{"signature": "..."}')
    assert card_charge(card).to_dict()["payment_method"]["card"] == {
        "wallet": {"type": kind, "key": '{"signature": "..."}'}
    }
    assert "signature" not in repr(card)
    assert (
        "key"
        not in without_card_secrets({"card": {"wallet": {"type": kind, "key": "k"}}})["card"][
            "wallet"
        ]
    )
    docs_charge = docs_example(name)["request"]["charges"][0]
    assert validate_pay_dict({"charges": [docs_charge]})["charges"][0] == docs_charge
    assert Wallet("SAMSUNG", "k").errors()
