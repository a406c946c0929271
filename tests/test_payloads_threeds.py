"""Builders for 3-D Secure (authentication_method), debit cards and a plan's buyer interest."""

from __future__ import annotations

import pytest

from django_orderpay import payloads
from django_orderpay.payloads import AuthenticationMethod, BuyerInterest, Card, PaymentMethod

AUTH_ID = "3DS_15CB7893-4D23-44FA-97B7-AC1BE516D418"
CARD = Card.from_encrypted("QUJD", holder="Jose da Silva")


def problems(builder) -> dict[str, str]:
    return {error.path: error.message for error in builder.errors()}


def test_debit_with_authentication_is_sent_as_pagbank_documents_it():
    method = PaymentMethod.debit(CARD, AuthenticationMethod.threeds(AUTH_ID))
    assert problems(method) == {}
    assert method.to_dict() == {
        "type": "DEBIT_CARD",
        "installments": 1,
        "capture": True,
        "card": {"encrypted": "QUJD", "holder": {"name": "Jose da Silva"}},
        "authentication_method": {"type": "THREEDS", "id": AUTH_ID},
    }


def test_debit_rules_name_their_fields():
    method = PaymentMethod(
        card=Card.from_encrypted("QUJD", holder="Jose da Silva", store=True),
        type="DEBIT_CARD",
        installments=2,
        capture=False,
    )
    assert set(problems(method)) == {
        "authentication_method",
        "installments",
        "capture",
        "card.store",
    }
    assert "type" in problems(PaymentMethod(card=CARD, type="PIX"))


def test_authentication_id_or_external_fields():
    assert problems(AuthenticationMethod.threeds("3DS_nope")) == {
        "id": "must be the 3DS_ id authenticate3DS answered"
    }
    external = AuthenticationMethod.external(cavv="BwABBylVaQAAAAFwllVpAAAAAAA=", eci="05",
                                             version="2.1.0")  # fmt: skip
    assert problems(external) == {}
    assert external.to_dict() == {
        "type": "THREEDS",
        "cavv": "BwABBylVaQAAAAFwllVpAAAAAAA=",
        "eci": "05",
        "version": "2.1.0",
    }
    assert set(problems(AuthenticationMethod(eci="5"))) == {"cavv", "eci"}
    both = AuthenticationMethod(id=AUTH_ID, eci="05")
    assert set(problems(both)) == {"eci"}


@pytest.mark.parametrize(("total", "ok"), [(9999, True), (10000, False)])
def test_a_plan_interest_is_part_of_its_amount(total, ok):
    amount = payloads.Amount(10000, fees=BuyerInterest(total, 4))
    assert (problems(amount) == {}) is ok
    assert amount.to_dict()["fees"] == {"buyer": {"interest": {"total": total, "installments": 4}}}


def test_a_dict_body_reads_the_same():
    body = {
        "charges": [
            {
                "amount": {
                    "value": 10760,
                    "currency": "BRL",
                    "fees": {"buyer": {"interest": {"total": 760, "installments": 4}}},
                },
                "payment_method": {
                    "type": "CREDIT_CARD",
                    "installments": 4,
                    "capture": True,
                    "card": {"id": "CARD_6E7F8091-A2B3-C4D5-E6F7-08192A3B4C5D"},
                    "authentication_method": {"type": "THREEDS", "id": AUTH_ID},
                },
            }
        ]
    }
    assert payloads.validate_pay_dict(body) == body
    body["charges"][0]["amount"]["fees"]["buyer"]["interest"]["installments"] = 5
    with pytest.raises(ValueError, match="installments"):
        payloads.validate_pay_dict(body)


def plan_charge(value: int, total: int, interest_installments: int, installments: int):
    return payloads.ChargeRequest(
        payloads.Amount(value, fees=BuyerInterest(total, interest_installments)),
        PaymentMethod(Card.token("CARD_6E7F8091-A2B3-C4D5-E6F7-08192A3B4C5D"), installments),
    )


def test_the_docs_8x_with_4_interest_free_is_a_valid_charge():
    """``interest.installments`` is how many installments bear interest: the docs' 8x plan with
    4 interest-free sends 4, its 5x plan 1."""
    assert problems(plan_charge(10887, 887, 4, 8)) == {}
    assert plan_charge(10887, 887, 4, 8).to_dict()["amount"] == {
        "value": 10887,
        "currency": "BRL",
        "fees": {"buyer": {"interest": {"total": 887, "installments": 4}}},
    }
    assert problems(plan_charge(10349, 349, 1, 5)) == {}
    assert problems(plan_charge(10887, 887, 8, 8)) == {}  # no interest-free installment


@pytest.mark.parametrize("interest_installments", [0, 9])
def test_interest_installments_between_1_and_the_charges(interest_installments):
    path = "amount.fees.buyer.interest.installments"
    assert path in problems(plan_charge(10887, 887, interest_installments, 8))


def test_a_debit_without_installments_as_pagbanks_examples_send_it():
    """The reference asks ``installments`` of credit cards only; the debit examples omit it."""
    body = {
        "charges": [
            {
                "amount": {"value": 500, "currency": "BRL"},
                "payment_method": {
                    "type": "DEBIT_CARD",
                    "card": {"encrypted": "QUJD"},
                    "authentication_method": {"type": "THREEDS", "id": AUTH_ID},
                },
            }
        ]
    }
    assert payloads.validate_pay_dict(body) == body
    method = PaymentMethod(CARD, installments=None, type="DEBIT_CARD",  # type: ignore[arg-type]
                           authentication_method=AuthenticationMethod.threeds(AUTH_ID))  # fmt: skip
    assert "installments" not in method.to_dict()
    assert problems(method) == {}
