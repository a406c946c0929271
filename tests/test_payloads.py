"""Payload builders: the samples' request bodies field for field, and every validation path."""

from __future__ import annotations

import copy
import dataclasses
from decimal import Decimal

import pytest

from django_orderpay.exceptions import PayloadError
from django_orderpay.payloads import (
    Amount,
    AuthenticationMethod,
    Card,
    ChargeRequest,
    DeepLink,
    Holder,
    Item,
    PaymentMethod,
    PayRequest,
    Phone,
    Receiver,
    Recurring,
    Shipping,
    Splits,
    order_from_dict,
    pay_request_from_dict,
    validate_order_dict,
    validate_pay_dict,
)
from django_orderpay.testing import samples
from tests.payloads_support import CARD_NUMBER, address, charge, customer, order, raw_card

SANDBOX_VISA = "4539620659922097"
ENCRYPTED = "V2lkZ2V0cyBhcmUgbm90IGNhcmRz" + "A" * 300 + "=="
ACCOUNT_A = "ACCO_11111111-2222-3333-4444-555555555555"
ACCOUNT_B = "ACCO_66666666-7777-8888-9999-AAAAAAAAAAAA"

# samples.md, "Pay with a split": the request body (receivers' amounts as strings).
SAMPLE_SPLIT_PAY = {
    "charges": [
        {
            "reference_id": "ch-2",
            "description": "Marketplace",
            "amount": {"value": 10000, "currency": "BRL"},
            "payment_method": {
                "type": "CREDIT_CARD",
                "installments": 1,
                "capture": True,
                # The sample, and the holder's name PagBank asks for beside an encrypted card.
                "card": {"encrypted": ENCRYPTED, "holder": {"name": "Jose da Silva"}},
            },
            "splits": {
                "method": "FIXED",
                "receivers": [
                    {"account": {"id": ACCOUNT_A}, "amount": {"value": "7000"}},
                    {"account": {"id": ACCOUNT_B}, "amount": {"value": "3000"}},
                ],
            },
        }
    ]
}


def encrypted_card(**changes) -> Card:
    """The SDK's blob and the holder's name typed beside it (PagBank asks for both)."""
    return Card.from_encrypted(ENCRYPTED, holder="Jose da Silva", **changes)


def paths_of(call) -> list[str]:
    with pytest.raises(PayloadError) as caught:
        call()
    return caught.value.paths


# --- the samples, field for field ---------------------------------------------------


def test_create_order_one_step_raw_card_store_matches_the_sample():
    assert order().to_dict() == samples.order_request()


def test_pay_with_a_fixed_split_matches_the_sample():
    pay = PayRequest(
        [
            ChargeRequest(
                reference_id="ch-2",
                description="Marketplace",
                amount=Amount(10000),
                payment_method=PaymentMethod(card=encrypted_card()),
                splits=Splits.fixed(
                    Receiver.fixed(ACCOUNT_A, 7000), Receiver.fixed(ACCOUNT_B, 3000)
                ),
            )
        ]
    )
    assert pay.to_dict() == SAMPLE_SPLIT_PAY


def test_card_and_recurring_parts_match_the_sample():
    token = "CARD_6E7F8091-A2B3-C4D5-E6F7-08192A3B4C5D"
    assert Card.token(token, security_code="123").to_dict() == {
        "id": token,
        "security_code": "123",
    }
    assert Card.from_encrypted(ENCRYPTED, store=True).to_dict() == {
        "encrypted": ENCRYPTED,
        "store": True,
    }
    assert Recurring.initial().to_dict() == {"type": "INITIAL"}
    assert Recurring.subsequent("158762300000712", 500).to_dict() == {
        "type": "SUBSEQUENT",
        "recurrence_id": "158762300000712",
        "original_amount": 500,
    }


def test_deeplink_order_matches_the_sample():
    body = order(charges=(), deep_links=[DeepLink(1500, "myshop://orders/ex-00002")]).to_dict()
    assert body["deep_links"] == [
        {"amount": {"value": 1500}, "redirect_url": "myshop://orders/ex-00002"}
    ]
    assert "charges" not in body


def test_two_step_order_has_no_charges_and_pays_later():
    body = order(charges=()).to_dict()
    assert "charges" not in body
    pay = PayRequest([charge(card=encrypted_card())]).to_dict()
    assert pay["charges"][0]["payment_method"]["card"] == {
        "encrypted": ENCRYPTED,
        "holder": {"name": "Jose da Silva"},
    }


def test_an_encrypted_card_with_its_holder_on_the_payment_method_is_sent():
    """As the official plugin sends it in production, and PagBank's encrypted-card example:
    ``card.encrypted`` alone, the holder in ``payment_method.holder``."""
    method = PaymentMethod(
        Card.from_encrypted(ENCRYPTED), holder=Holder("Jose da Silva", "12345678909")
    )
    body = PayRequest([charge(payment_method=method)]).to_dict()
    sent = body["charges"][0]["payment_method"]
    assert sent["card"] == {"encrypted": ENCRYPTED}
    assert sent["holder"] == {"name": "Jose da Silva", "tax_id": "12345678909"}
    PayRequest([charge(card=Card.from_encrypted(ENCRYPTED))]).validate()  # no holder at all
    dict_body = {"charges": [{**body["charges"][0]}]}
    assert validate_pay_dict(dict_body) == dict_body
    tax_id_only = PaymentMethod(Card.from_encrypted(ENCRYPTED), holder=Holder(tax_id="12345678909"))
    PayRequest([charge(payment_method=tax_id_only)]).validate()


def test_store_on_the_payment_method_is_sent_inside_card_with_a_warning():
    # PagBank documents store only as payment_method.card.store.
    with pytest.warns(DeprecationWarning, match="give Card"):
        method = PaymentMethod(card=Card.from_encrypted(ENCRYPTED), store=True, capture=False)
    assert method.to_dict() == {
        "type": "CREDIT_CARD",
        "installments": 1,
        "capture": False,
        "card": {"encrypted": ENCRYPTED, "store": True},
    }
    assert method.stores_card


def test_store_given_twice_and_differently_is_refused_naming_it():
    with pytest.warns(DeprecationWarning):
        method = PaymentMethod(raw_card(store=True), store=False)

    assert paths_of(lambda: order(charges=[charge(payment_method=method)]).to_dict()) == [
        "charges[0].payment_method.store"
    ]


def test_store_in_a_dicts_payment_method_moves_into_card():
    body = samples.order_request()
    method = body["charges"][0]["payment_method"]
    method["store"] = method["card"].pop("store")

    sent = validate_order_dict(body)["charges"][0]["payment_method"]

    assert "store" not in sent
    assert sent["card"]["store"] is True
    assert PaymentMethod(card=raw_card()).stores_card


def test_percentage_split_and_a_liable_receiver():
    splits = Splits.percentage(
        Receiver.percentage(ACCOUNT_A, 80, liable=True), Receiver.percentage(ACCOUNT_B, 20)
    )
    built = charge(amount=Amount(10000), splits=splits)
    built.validate("charges[0]")
    assert built.to_dict()["splits"]["receivers"][0] == {
        "account": {"id": ACCOUNT_A},
        "amount": {"value": "80"},
        "configurations": {"liable": True},
    }


def test_card_builders_coerce_month_and_year():
    card = Card.raw(CARD_NUMBER, 3, 2031, "123", "Jose da Silva")
    assert (card.exp_month, card.exp_year) == ("03", "2031")
    assert Card.raw(CARD_NUMBER, "7", "2031", "123", "Ana").exp_month == "07"
    assert card.kind == "raw"
    assert Card.from_encrypted(ENCRYPTED).kind == "encrypted"
    assert Card.token("CARD_X").kind == "token"


def test_builders_are_immutable():
    with pytest.raises(dataclasses.FrozenInstanceError):
        order().reference_id = "other"  # type: ignore[misc]
    assert isinstance(order().items, tuple)


# --- secrets stay out of reprs and messages -----------------------------------------


def test_a_card_repr_shows_no_number_code_or_blob():
    for built in (
        raw_card(),
        Card.from_encrypted(ENCRYPTED, security_code="987"),
        PaymentMethod(card=raw_card()),
        order(),
    ):
        text = repr(built)
        assert CARD_NUMBER not in text
        assert "'123'" not in text and "987" not in text
        assert ENCRYPTED[:40] not in text
    assert "last_digits='1111'" in repr(raw_card())


def test_validation_messages_never_carry_the_card_data():
    bad = raw_card(number=CARD_NUMBER[:-1] + "2", security_code="12")
    with pytest.raises(PayloadError) as caught:
        order(charges=[charge(bad)]).validate()
    text = str(caught.value)
    assert CARD_NUMBER[:-1] not in text
    assert caught.value.paths == [
        "charges[0].payment_method.card.number",
        "charges[0].payment_method.card.security_code",
    ]


# --- every validation error, named by the provider's path ---------------------------

CARD = "charges[0].payment_method.card"


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (dict(reference_id=""), "reference_id"),
        (dict(reference_id="x" * 65), "reference_id"),
        (dict(customer=None), "customer"),
        (dict(customer=dataclasses.replace(customer(), name="")), "customer.name"),
        (dict(customer=dataclasses.replace(customer(), name="n" * 121)), "customer.name"),
        (dict(customer=dataclasses.replace(customer(), email="a@b.c")), "customer.email"),
        (
            dict(customer=dataclasses.replace(customer(), email="not-an-email-at-all")),
            "customer.email",
        ),
        (
            dict(customer=dataclasses.replace(customer(), tax_id="123.456.789-09")),
            "customer.tax_id",
        ),
        (dict(customer=dataclasses.replace(customer(), tax_id="1234567890")), "customer.tax_id"),
        (
            dict(customer=dataclasses.replace(customer(), tax_id="1122233300018")),
            "customer.tax_id",
        ),
        (
            dict(customer=dataclasses.replace(customer(), phones=[Phone("1", "999999999")])),
            "customer.phones[0].area",
        ),
        (
            dict(customer=dataclasses.replace(customer(), phones=[Phone("11", "9999")])),
            "customer.phones[0].number",
        ),
        (
            dict(
                customer=dataclasses.replace(
                    customer(), phones=[Phone("11", "999999999", type="FAX")]
                )
            ),
            "customer.phones[0].type",
        ),
        (dict(items=[]), "items"),
        (dict(items=[Item("", 1, 500)]), "items[0].name"),
        (dict(items=[Item("x" * 201, 1, 500)]), "items[0].name"),
        (dict(items=[Item("Camiseta", 0, 500)]), "items[0].quantity"),
        (dict(items=[Item("Camiseta", 100_000, 500)]), "items[0].quantity"),
        (dict(items=[Item("Camiseta", 1, 0)]), "items[0].unit_amount"),
        (dict(items=[Item("Camiseta", 1, 1_000_000_000)]), "items[0].unit_amount"),
        (dict(items=[Item("Camiseta", 1, 5.0)]), "items[0].unit_amount"),
        (
            dict(shipping=Shipping(dataclasses.replace(address(), street=""))),
            "shipping.address.street",
        ),
        (
            dict(shipping=Shipping(dataclasses.replace(address(), number="1" * 21))),
            "shipping.address.number",
        ),
        (
            dict(shipping=Shipping(dataclasses.replace(address(), complement="c" * 41))),
            "shipping.address.complement",
        ),
        (
            dict(shipping=Shipping(dataclasses.replace(address(), locality="l" * 61))),
            "shipping.address.locality",
        ),
        (
            dict(shipping=Shipping(dataclasses.replace(address(), city="c" * 91))),
            "shipping.address.city",
        ),
        (
            dict(shipping=Shipping(dataclasses.replace(address(), region_code="XX"))),
            "shipping.address.region_code",
        ),
        (
            dict(shipping=Shipping(dataclasses.replace(address(), country="BR"))),
            "shipping.address.country",
        ),
        (
            dict(shipping=Shipping(dataclasses.replace(address(), postal_code="01452-002"))),
            "shipping.address.postal_code",
        ),
        (dict(notification_urls=["shop.example.com/notify"]), "notification_urls[0]"),
        (dict(charges=[charge(reference_id="r" * 65)]), "charges[0].reference_id"),
        (dict(charges=[charge(description="d" * 65)]), "charges[0].description"),
        (dict(charges=[charge(amount=0)]), "charges[0].amount.value"),
        (dict(charges=[charge(amount=1_000_000_000)]), "charges[0].amount.value"),
        (dict(charges=[charge(amount=Amount(500, "USD"))]), "charges[0].amount.currency"),
        (
            dict(charges=[charge(payment_method=PaymentMethod(raw_card(), installments=0))]),
            "charges[0].payment_method.installments",
        ),
        (
            dict(charges=[charge(payment_method=PaymentMethod(raw_card(), installments=13))]),
            "charges[0].payment_method.installments",
        ),
        (
            dict(charges=[charge(payment_method=PaymentMethod(raw_card(), type="PIX"))]),
            "charges[0].payment_method.type",
        ),
        (
            dict(
                charges=[charge(payment_method=PaymentMethod(raw_card(), soft_descriptor="s" * 23))]
            ),
            "charges[0].payment_method.soft_descriptor",
        ),
        (dict(charges=[charge(raw_card(number="4111111111111112"))]), f"{CARD}.number"),
        (dict(charges=[charge(raw_card(number="41111111"))]), f"{CARD}.number"),
        (dict(charges=[charge(raw_card(exp_month="13"))]), f"{CARD}.exp_month"),
        (dict(charges=[charge(raw_card(exp_year="30"))]), f"{CARD}.exp_year"),
        (dict(charges=[charge(raw_card(security_code="12345"))]), f"{CARD}.security_code"),
        (dict(charges=[charge(raw_card(holder=None))]), f"{CARD}.holder"),
        (dict(charges=[charge(raw_card(holder=Holder("J" * 31)))]), f"{CARD}.holder.name"),
        (dict(charges=[charge(raw_card(holder=Holder("Jose 2")))]), f"{CARD}.holder.name"),
        (dict(charges=[charge(raw_card(holder=Holder("Jose", "1")))]), f"{CARD}.holder.tax_id"),
        (dict(charges=[charge(Card())]), CARD),
        (dict(charges=[charge(raw_card(id="CARD_X"))]), CARD),
        (
            dict(charges=[charge(Card.from_encrypted("not base64!", holder="Jose"))]),
            f"{CARD}.encrypted",
        ),
        (
            dict(charges=[charge(dataclasses.replace(encrypted_card(), exp_year="2030"))]),
            f"{CARD}.exp_year",
        ),
        (dict(charges=[charge(Card.token("TOKEN_X"))]), f"{CARD}.id"),
        (dict(charges=[charge(Card.token("CARD_X", security_code="1"))]), f"{CARD}.security_code"),
        (dict(charges=[charge(recurring=Recurring("SOMETIMES"))]), "charges[0].recurring.type"),
        (
            dict(charges=[charge(recurring=Recurring("INITIAL", "158762300000712"))]),
            "charges[0].recurring.recurrence_id",
        ),
        (
            dict(charges=[charge(recurring=Recurring("SUBSEQUENT", "1", 0))]),
            "charges[0].recurring.original_amount",
        ),
        (dict(charges=[charge(), charge(amount="5")]), "charges[1].amount.value"),
        (dict(charges=[charge()], deep_links=[DeepLink(500)]), "deep_links"),
        (dict(charges=(), deep_links=[DeepLink(500), DeepLink(600)]), "deep_links"),
        (dict(charges=(), deep_links=[DeepLink(0)]), "deep_links[0].amount.value"),
        (
            dict(charges=(), deep_links=[DeepLink(500, "myshop:/orders/1")]),
            "deep_links[0].redirect_url",
        ),
        (dict(charges=(), deep_links=[DeepLink(500, "https//shop")]), "deep_links[0].redirect_url"),
    ],
)
def test_an_invalid_field_is_named_by_its_path(change, path):
    assert paths_of(lambda: order(**change).to_dict()) == [path]


def split_charge(splits: Splits, **changes) -> ChargeRequest:
    changes.setdefault("amount", 10000)
    return charge(card=encrypted_card(), splits=splits, **changes)


RECEIVERS = "charges[0].splits.receivers"
ACCOUNT_C = "ACCO_AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE"


@pytest.mark.parametrize(
    ("splits", "changes", "paths"),
    [
        (
            Splits.fixed(Receiver.fixed(ACCOUNT_A, 7000), Receiver.fixed(ACCOUNT_B, 2000)),
            {},
            [f"{RECEIVERS}.amount.value"],
        ),
        (
            Splits.percentage(
                Receiver.percentage(ACCOUNT_A, 70), Receiver.percentage(ACCOUNT_B, 20)
            ),
            {},
            [f"{RECEIVERS}.amount.value"],
        ),
        (
            Splits.percentage(
                Receiver.percentage(ACCOUNT_A, 101), Receiver.percentage(ACCOUNT_B, 20)
            ),
            {},
            [f"{RECEIVERS}[0].amount.value", f"{RECEIVERS}.amount.value"],
        ),
        (Splits.fixed(Receiver.fixed(ACCOUNT_A, 10000)), {}, [RECEIVERS]),
        (
            Splits(
                "FIXED",
                [
                    Receiver.fixed(f"ACCO_{i:08X}-0000-0000-0000-000000000000", 625)
                    for i in range(16)
                ],
            ),
            {},
            [RECEIVERS],
        ),
        (
            Splits("HALF", (Receiver.fixed(ACCOUNT_A, 1), Receiver.fixed(ACCOUNT_B, 1))),
            {},
            ["charges[0].splits.method"],
        ),
        (
            Splits.fixed(Receiver.fixed(ACCOUNT_A, 5000), Receiver.fixed(ACCOUNT_A, 5000)),
            {},
            [f"{RECEIVERS}[1].account.id"],
        ),
        (
            Splits.fixed(Receiver.fixed("acct-1", 5000), Receiver.fixed(ACCOUNT_B, 5000)),
            {},
            [f"{RECEIVERS}[0].account.id"],
        ),
        (
            Splits.fixed(Receiver.fixed(ACCOUNT_A, "50.5"), Receiver.fixed(ACCOUNT_B, 5000)),
            {},
            [f"{RECEIVERS}[0].amount.value"],
        ),
        (
            Splits.fixed(Receiver.fixed(ACCOUNT_A, 10001), Receiver.fixed(ACCOUNT_B, -1)),
            {},
            [f"{RECEIVERS}[0].amount.value", f"{RECEIVERS}[1].amount.value"],
        ),
        (
            Splits.fixed(
                Receiver.fixed(ACCOUNT_A, 4000, liable=True),
                Receiver.fixed(ACCOUNT_B, 3000, liable=True),
                Receiver.fixed(ACCOUNT_C, 3000),
            ),
            {},
            [f"{RECEIVERS}[1].configurations.liable"],
        ),
        (
            Splits.fixed(
                Receiver.fixed(ACCOUNT_A, 7000, liable=True), Receiver.fixed(ACCOUNT_B, 3000)
            ),
            {"recurring": Recurring.initial()},
            [f"{RECEIVERS}[0].configurations.liable"],
        ),
    ],
)
def test_split_rules(splits, changes, paths):
    pay = PayRequest([split_charge(splits, **changes)])
    assert paths_of(pay.to_dict) == paths


def test_a_valid_split_of_fifteen_receivers_passes():
    receivers = [
        Receiver.fixed(f"ACCO_{i:08X}-0000-0000-0000-000000000000", 1000) for i in range(15)
    ]
    body = PayRequest([split_charge(Splits("FIXED", receivers), amount=15000)]).to_dict()
    assert len(body["charges"][0]["splits"]["receivers"]) == 15


def test_every_error_is_reported_at_once_and_named_in_the_message():
    bad = order(
        customer=dataclasses.replace(customer(), tax_id="000"),
        charges=[charge(raw_card(exp_year="99"), amount=0)],
    )
    with pytest.raises(PayloadError) as caught:
        bad.to_dict()
    assert caught.value.paths == [
        "customer.tax_id",
        "charges[0].amount.value",
        f"{CARD}.exp_year",
    ]
    for path in caught.value.paths:
        assert path in str(caught.value)


MONEY = [5.0, 19.9, Decimal("5.00"), Decimal("19.90")]


@pytest.mark.parametrize("money", MONEY)
def test_money_as_float_or_decimal_is_refused_naming_the_field_never_rounded(money):
    kind = type(money).__name__
    cases = [
        (lambda: order(charges=[charge(amount=money)]).to_dict(), "charges[0].amount.value"),
        (
            lambda: order(charges=[charge(amount=Amount(money))]).to_dict(),
            "charges[0].amount.value",
        ),
        (
            lambda: order(items=[Item("Camiseta", 1, money)], charges=[]).to_dict(),
            "items[0].unit_amount",
        ),
        (
            lambda: order(charges=[], deep_links=[DeepLink(money)]).to_dict(),
            "deep_links[0].amount.value",
        ),
        (
            lambda: order(
                charges=[charge(recurring=Recurring("SUBSEQUENT", "158762300000712", money))]
            ).to_dict(),
            "charges[0].recurring.original_amount",
        ),
    ]
    for build, path in cases:
        with pytest.raises(PayloadError) as caught:
            build()
        [error] = caught.value.errors
        assert error.path == path
        assert f"not a {kind}" in error.message
        assert "cents" in error.message


@pytest.mark.parametrize("money", MONEY)
def test_money_as_float_or_decimal_in_a_dict_is_refused_too(money):
    body = samples.order_request()
    body["charges"][0]["amount"]["value"] = money
    body["items"][0]["unit_amount"] = money

    with pytest.raises(PayloadError) as caught:
        validate_order_dict(body)

    assert caught.value.paths == ["items[0].unit_amount", "charges[0].amount.value"]
    assert f"not a {type(money).__name__}" in str(caught.value)


def test_a_split_receiver_amount_as_float_is_refused():
    splits = Splits("FIXED", [Receiver.fixed(ACCOUNT_A, 70.0), Receiver.fixed(ACCOUNT_B, 3000)])
    with pytest.raises(PayloadError) as caught:
        PayRequest([split_charge(splits)]).to_dict()
    [error] = caught.value.errors
    assert error.path == "charges[0].splits.receivers[0].amount.value"
    assert "not a float" in error.message


def test_a_pay_request_needs_a_charge():
    assert paths_of(PayRequest([]).to_dict) == ["charges"]


def test_a_token_card_needs_no_holder_or_code():
    PayRequest([charge(Card.token("CARD_6E7F8091-A2B3-C4D5-E6F7-08192A3B4C5D"))]).validate()


def test_a_subsequent_charge_without_its_reference_is_not_blocked():
    # The provider sends it on to the card network (spec: "the call is not blocked").
    PayRequest([charge(recurring=Recurring("SUBSEQUENT"))]).validate()


# --- plain dicts ----------------------------------------------------------------------


def test_the_sample_dicts_validate_and_round_trip():
    assert validate_order_dict(samples.order_request()) == samples.order_request()
    assert validate_pay_dict(copy.deepcopy(SAMPLE_SPLIT_PAY)) == SAMPLE_SPLIT_PAY
    assert order_from_dict(samples.order_request()) == order()


def test_a_deeplink_order_dict():
    body = samples.order_request()
    del body["charges"]
    body["deep_links"] = [{"amount": {"value": 1500}, "redirect_url": "myshop://orders/ex-00002"}]
    assert validate_order_dict(body) == body
    body["deep_links"][0]["redirect_url"] = "myshop:/orders"
    assert paths_of(lambda: validate_order_dict(body)) == ["deep_links[0].redirect_url"]


def test_dict_shape_errors_are_named():
    body = samples.order_request()
    body["customer"]["phones"] = {"area": "11"}
    body["items"][0]["price"] = 5
    body["charges"][0]["payment_method"]["card"]["brand"] = "visa"
    body["charges"][0]["payment_method"]["card"]["holder"] = "Jose"
    body["charges"][0]["amount"]["value"] = "500"
    body["shipping"] = []
    assert sorted(paths_of(lambda: validate_order_dict(body))) == sorted(
        [
            "customer.phones",
            "items[0].price",
            f"{CARD}.brand",
            f"{CARD}.holder",
            "charges[0].amount.value",
            "shipping",
        ]
    )


def test_dict_missing_fields_are_required():
    body = {
        "customer": {"name": "Jose da Silva", "email": "jose@example.com"},
        "items": [{"name": "Camiseta", "quantity": 1}],
        "charges": [
            {"amount": {"value": 500}, "payment_method": {"type": "CREDIT_CARD", "card": {}}}
        ],
    }
    assert paths_of(lambda: validate_order_dict(body)) == [
        "customer.tax_id",
        "items[0].unit_amount",
        CARD,
    ]


def test_not_a_dict_at_all():
    assert paths_of(lambda: order_from_dict(["not", "an", "order"])) == [""]
    assert paths_of(lambda: pay_request_from_dict({"charges": "x"})) == ["charges"]


def test_a_dict_receiver_amount_may_be_an_integer():
    body = copy.deepcopy(SAMPLE_SPLIT_PAY)
    for receiver in body["charges"][0]["splits"]["receivers"]:
        receiver["amount"]["value"] = int(receiver["amount"]["value"])
    assert validate_pay_dict(body) == SAMPLE_SPLIT_PAY


def test_a_dict_with_a_raw_sandbox_card_keeps_it_out_of_errors():
    body = samples.order_request()
    body["charges"][0]["payment_method"]["card"]["number"] = SANDBOX_VISA
    body["charges"][0]["payment_method"]["card"]["exp_month"] = 12
    with pytest.raises(PayloadError) as caught:
        validate_order_dict(body)
    assert caught.value.paths == [f"{CARD}.exp_month"]
    assert SANDBOX_VISA not in str(caught.value)


def test_a_validation_error_survives_pickling():
    import pickle

    with pytest.raises(PayloadError) as caught:
        PayRequest([]).to_dict()
    copy = pickle.loads(pickle.dumps(caught.value))
    assert copy.errors == caught.value.errors
    assert str(copy) == str(caught.value)


@pytest.mark.parametrize("account_id", [["ACCO_X"], {"id": "ACCO_X"}, 7])
def test_a_dict_receiver_account_id_of_the_wrong_type_is_named(account_id):
    body = copy.deepcopy(SAMPLE_SPLIT_PAY)
    body["charges"][0]["splits"]["receivers"][0]["account"]["id"] = account_id
    with pytest.raises(PayloadError) as caught:
        validate_pay_dict(body)
    assert caught.value.paths == ["charges[0].splits.receivers[0].account.id"]


LIABLE = Splits.percentage(
    Receiver.percentage(ACCOUNT_A, 80), Receiver.percentage(ACCOUNT_B, 20, liable=True)
)
THREEDS = AuthenticationMethod.external(cavv="BwABBylVaQAAAAFwllVpAAAAAAA=", eci="05")


def test_a_liable_receiver_with_3ds_is_refused_as_pagbank_does():
    """ "3DS authentication is not valid method for split transactions with liable
    configuration": named where PagBank names it."""
    method = PaymentMethod(card=raw_card(), authentication_method=THREEDS)
    built = charge(amount=Amount(10000), payment_method=method, splits=LIABLE)
    with pytest.raises(PayloadError) as caught:
        built.validate("charges[0]")
    assert caught.value.paths == ["charges[0].payment_method.authentication_method.type"]
    not_liable = Splits.percentage(
        Receiver.percentage(ACCOUNT_A, 80), Receiver.percentage(ACCOUNT_B, 20)
    )
    charge(amount=Amount(10000), payment_method=method, splits=not_liable).validate()
    charge(amount=Amount(10000), splits=LIABLE).validate()


def test_a_liable_receiver_on_a_debit_card_is_refused():
    """ "The liable configuration can only be applied for credit card payments"."""
    method = PaymentMethod.debit(raw_card(store=None), THREEDS)
    built = charge(amount=Amount(10000), payment_method=method, splits=LIABLE)
    with pytest.raises(PayloadError) as caught:
        built.validate()
    assert caught.value.paths == ["splits.receivers[1].configurations.liable"]


def test_every_documented_recurrence_type_and_a_cvv_in_a_dict():
    for kind in ("INITIAL", "SUBSEQUENT", "UNSCHEDULED", "STANDING ORDER"):
        assert Recurring(kind).errors() == []
    assert Recurring("MONTHLY").errors()
    body = {
        "charges": [
            {
                "amount": {"value": 500},
                "payment_method": {
                    "type": "CREDIT_CARD",
                    "installments": 1,
                    "card": {"id": "CARD_6E7F8091-A2B3-C4D5-E6F7-08192A3B4C5D", "cvv": "123"},
                },
                "recurring": {"type": "UNSCHEDULED"},
            }
        ]
    }
    sent = validate_pay_dict(body)["charges"][0]
    assert sent["payment_method"]["card"] == {
        "id": "CARD_6E7F8091-A2B3-C4D5-E6F7-08192A3B4C5D",
        "security_code": "123",  # the documented name
    }
    assert sent["recurring"] == {"type": "UNSCHEDULED"}
