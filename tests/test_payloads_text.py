"""Text the builders refuse before any call, and what they normalise as PagBank needs.

A NUL or a lone surrogate would be charged by the provider and then fail
our own database's save (an order charged and never mirrored); names with
the characters PagBank refuses, and upper-case e-mails, fail only live.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from django_orderpay import rules
from django_orderpay.exceptions import PayloadError
from django_orderpay.payloads import validate_order_dict, validate_pay_dict
from django_orderpay.testing import samples
from tests.payloads_support import customer, order

CARD = "charges[0].payment_method.card"


def refused(body) -> list[str]:
    with pytest.raises(PayloadError) as caught:
        validate_order_dict(body)
    return caught.value.paths


@pytest.mark.parametrize("bad", ["\x00", "\ud800", "\udfff"], ids=["NUL", "high", "low"])
@pytest.mark.parametrize(
    ("where", "path"),
    [
        (lambda b, v: b["customer"].update(name=f"Jose{v}"), "customer.name"),
        (lambda b, v: b["customer"].update(email=f"jose{v}@example.com"), "customer.email"),
        (lambda b, v: b["items"][0].update(name=f"Camiseta{v}"), "items[0].name"),
        (lambda b, v: b["charges"][0].update(description=f"Pedido{v}"), "charges[0].description"),
        (
            lambda b, v: b["charges"][0]["payment_method"]["card"]["holder"].update(name=f"J{v}"),
            f"{CARD}.holder.name",
        ),
        (
            lambda b, v: b["shipping"]["address"].update(street=f"Rua{v}"),
            "shipping.address.street",
        ),
    ],
)
def test_text_the_database_cant_store_is_refused_naming_the_field(where, path, bad):
    body = samples.order_request()
    where(body, bad)

    assert refused(body) == [path]


def test_a_pay_body_is_checked_the_same_way():
    charge = samples.charge_request(description="Pedido\x00")
    with pytest.raises(PayloadError) as caught:
        validate_pay_dict({"charges": [charge]})
    assert caught.value.paths == ["charges[0].description"]
    assert "can't be stored" in str(caught.value)


def test_an_emoji_is_storable_text():
    body = samples.order_request()
    body["items"][0]["name"] = "Camiseta 👕"
    assert validate_order_dict(body)["items"][0]["name"] == "Camiseta 👕"


@pytest.mark.parametrize("char", list(rules.FORBIDDEN_NAME_CHARACTERS))
def test_names_with_a_character_pagbank_refuses_are_refused_naming_it(char):
    body = samples.order_request()
    body["customer"]["name"] = f"Jose {char} Silva"

    with pytest.raises(PayloadError) as caught:
        validate_order_dict(body)

    assert caught.value.paths == ["customer.name"]
    assert f"must not contain {char} " in str(caught.value)


def test_a_holders_name_is_checked_the_same_way():
    body = samples.order_request()
    body["charges"][0]["payment_method"]["card"]["holder"]["name"] = "Jose (Silva)"
    assert refused(body) == [f"{CARD}.holder.name"]


def test_accents_apostrophes_and_hyphens_are_fine():
    built = order(
        customer=customer().__class__("José D'Ávila-Souza", "jose@example.com", "12345678909")
    )
    assert built.to_dict()["customer"]["name"] == "José D'Ávila-Souza"


def test_the_email_is_sent_in_lower_case():
    body = samples.order_request()
    body["customer"]["email"] = "Jose.Silva@Example.COM"

    assert validate_order_dict(body)["customer"]["email"] == "jose.silva@example.com"


# --- CPF and CNPJ, the alphanumeric CNPJ (July 2026) included ------------------------------------


@pytest.mark.parametrize(
    ("tax_id", "sent"),
    [
        ("12345678909", "12345678909"),  # CPF
        ("11222333000181", "11222333000181"),  # CNPJ, digits
        ("12ABC34501DE35", "12ABC34501DE35"),  # the Receita's alphanumeric example
        ("12abc34501de35", "12ABC34501DE35"),  # sent upper-case
    ],
)
def test_a_cpf_or_a_cnpj_is_taken(tax_id, sent):
    body = samples.order_request()
    body["customer"]["tax_id"] = tax_id

    assert validate_order_dict(body)["customer"]["tax_id"] == sent


@pytest.mark.parametrize(
    "tax_id",
    [
        "12ABC34501DE3A",  # check digits are digits
        "12.ABC.345/01DE-35",  # punctuation
        "1234567890",  # ten digits
    ],
)
def test_a_malformed_cpf_or_cnpj_is_refused(tax_id):
    body = samples.order_request()
    body["customer"]["tax_id"] = tax_id

    assert refused(body) == ["customer.tax_id"]


WRONG_CHECK_DIGITS = ["65544332211", "12ABC34501DE36", "11111111111", "12345678900"]


@pytest.mark.parametrize("tax_id", WRONG_CHECK_DIGITS)
def test_check_digits_are_not_the_builders_to_refuse_where_pagbank_takes_them(tax_id):
    """PagBank's card examples send the holder's CPF "65544332211" (wrong check digits) and
    answer PAID; only ``sub_merchant.tax_id`` (and a boleto's payer, whom a bank registers)
    is documented as checked. A shop's form may still check what a shopper types."""
    body = samples.order_request()
    body["customer"]["tax_id"] = tax_id
    card = body["charges"][0]["payment_method"]["card"]
    card["holder"]["tax_id"] = tax_id
    body["charges"][0]["payment_method"]["holder"] = {"name": "Jose da Silva", "tax_id": tax_id}

    sent = validate_order_dict(body)
    assert sent["customer"]["tax_id"] == tax_id.upper()
    assert sent["charges"][0]["payment_method"]["card"]["holder"]["tax_id"] == tax_id.upper()


@pytest.mark.parametrize("tax_id", WRONG_CHECK_DIGITS)
def test_a_boleto_payers_document_keeps_its_check_digits(tax_id):
    due = (rules.provider_today() + timedelta(days=3)).isoformat()
    charge = samples.boleto_charge_request(due)
    charge["payment_method"]["boleto"]["holder"]["tax_id"] = tax_id
    body = samples.order_request(charges=[charge])

    assert refused(body) == ["charges[0].payment_method.boleto.holder.tax_id"]


def test_the_rules_agree_with_the_receitas_example():
    assert rules.valid_cnpj("12ABC34501DE35")
    assert not rules.valid_cnpj("12abc34501de35")  # the builders upper-case first
    assert rules.valid_tax_id("11222333000181")
    assert not rules.valid_tax_id("12ABC34501DE34")
