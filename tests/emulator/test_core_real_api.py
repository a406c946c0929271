"""The emulator as strict and as loose as the real PagBank API (real-api study, 2026).

Strict: what the real API refuses and a loose emulator would let a shop ship
(names with the characters PagBank refuses, several notification URLs,
installments under R$ 5,00). Loose: what real integrations send and the
real API takes (metadata, the payment method's holder, split custody and
its release, receiver type, decimal percentages, 18 installments where
enabled, long item references, 22-character soft descriptors, splits on
cancel). Unknown keys stay a 40003.
"""

from __future__ import annotations

import pytest

from tests.emulator.core_support import (
    ACCOUNT_A,
    ACCOUNT_B,
    ACCOUNT_C,
    charge_payload,
    error_of,
    order_payload,
    raw_card,
    refusal,
)


def create(api, **body):
    return api.post("/orders", order_payload(**body))


def one_charge(api, **charge):
    response = create(api, charges=[charge_payload(**charge)])
    return response


def amount(value):
    return {"value": value, "currency": "BRL"}


# --- strict ------------------------------------------------------------------------


@pytest.mark.parametrize("char", list('!@#$%¨*()"”\\|{}[]<>;'))
def test_a_customer_name_with_a_character_pagbank_refuses_is_40002(api, char):
    customer = order_payload()["customer"]
    customer["name"] = f"Jose {char} Silva"

    response = create(api, customer=customer)

    assert refusal(response) == ("40002", "customer.name")
    assert "must not contains any of the characters" in error_of(response)["description"]


def test_accented_names_and_apostrophes_are_taken(api):
    customer = order_payload()["customer"]
    customer["name"] = "José D'Ávila-Souza"

    assert create(api, customer=customer).status_code == 201


def test_a_card_holder_name_with_a_refused_character_is_40002(api):
    card = raw_card(holder={"name": "Jose <Silva>"})

    response = one_charge(api, card=card)

    assert refusal(response) == ("40002", "charges[0].payment_method.card.holder.name")


def test_more_than_one_notification_url_is_40002(api):
    urls = ["https://shop.example.com/n/", "https://other.example.com/n/"]

    response = create(api, notification_urls=urls)

    assert refusal(response) == ("40002", "notification_urls")
    assert create(api, notification_urls=urls[:1]).status_code == 201


@pytest.mark.parametrize(
    ("value", "installments", "accepted"),
    [
        (1500, 3, True),
        (1499, 3, False),
        (6000, 12, True),
        (5999, 12, False),
        (100, 1, True),
        # Two installments: the smallest count the minimum applies to.
        (1000, 2, True),
        (999, 2, False),
    ],
)
def test_each_installment_is_at_least_five_reais(api, value, installments, accepted):
    response = one_charge(api, installments=installments, amount=amount(value))

    if accepted:
        assert response.status_code == 201, response.text
    else:
        assert refusal(response) == ("40002", "charges[0].payment_method.installments")


def test_eighteen_installments_only_where_enabled(api):
    refused = one_charge(api, installments=13, amount=amount(100_000))
    assert refusal(refused) == ("40002", "charges[0].payment_method.installments")

    api.post("/_emulator/options", {"installments_18x": True})
    eighteen = one_charge(api, installments=18, amount=amount(100_000))
    nineteen = one_charge(api, installments=19, amount=amount(100_000))

    assert eighteen.json()["charges"][0]["payment_method"]["installments"] == 18
    assert refusal(nineteen) == ("40002", "charges[0].payment_method.installments")


# --- loose --------------------------------------------------------------------------


def test_metadata_is_taken_and_echoed_on_order_and_charge(api):
    charge = charge_payload(metadata={"cart": "c-77", "attempt": 2})

    response = create(api, metadata={"store": "loja-1"}, charges=[charge])

    order = response.json()
    assert order["metadata"] == {"store": "loja-1"}
    assert order["charges"][0]["metadata"] == {"cart": "c-77", "attempt": 2}
    fetched = api.get(f"/charges/{order['charges'][0]['id']}").json()
    assert fetched["metadata"] == {"cart": "c-77", "attempt": 2}
    # A GET charge also carries its order's notification URLs, as PagBank's does.
    assert fetched["notification_urls"] == order["notification_urls"]


def test_metadata_of_the_wrong_shape_is_40002_naming_the_key(api):
    response = create(api, metadata={"nested": {"no": "objects"}})

    assert refusal(response) == ("40002", "metadata.nested")


def test_the_payment_methods_holder_is_taken_and_echoed(api):
    charge = charge_payload()
    charge["payment_method"]["holder"] = {"name": "Jose da Silva", "tax_id": "12345678909"}

    response = create(api, charges=[charge])

    method = response.json()["charges"][0]["payment_method"]
    assert method["holder"] == {"name": "Jose da Silva", "tax_id": "12345678909"}


def test_an_item_reference_is_taken_up_to_255_characters(api):
    items = order_payload()["items"]
    items[0]["reference_id"] = "r" * 255
    assert create(api, items=items).status_code == 201

    items[0]["reference_id"] = "r" * 256
    assert refusal(create(api, items=items)) == ("40002", "items[0].reference_id")


def test_a_soft_descriptor_up_to_22_characters_has_its_specials_stripped(api):
    response = one_charge(api, soft_descriptor="LOJA*EXEMPLO (SP) 2026")

    assert response.json()["charges"][0]["payment_method"]["soft_descriptor"] == (
        "LOJAEXEMPLOSP2026"
    )
    too_long = one_charge(api, soft_descriptor="L" * 23)
    assert refusal(too_long) == ("40002", "charges[0].payment_method.soft_descriptor")


def test_unknown_keys_are_still_40003(api):
    charge = charge_payload()
    charge["payment_method"]["stored"] = True

    assert refusal(create(api, charges=[charge])) == (
        "40003",
        "charges[0].payment_method.stored",
    )


# --- splits -------------------------------------------------------------------------


def split_charge(splits, value=10000):
    charge = charge_payload(splits=splits)
    charge["amount"] = amount(value)
    return charge


def test_decimal_percentages_and_receiver_types_are_taken(api):
    splits = {
        "method": "PERCENTAGE",
        "receivers": [
            {"type": "PRIMARY", "account": {"id": ACCOUNT_A}, "amount": {"value": 33.34}},
            {"type": "SECONDARY", "account": {"id": ACCOUNT_B}, "amount": {"value": 33.33}},
            {"account": {"id": ACCOUNT_C}, "amount": {"value": "33.33"}},
        ],
    }

    response = create(api, charges=[split_charge(splits)])

    assert response.status_code == 201, response.text


@pytest.mark.parametrize("shares", [(33.33, 33.33, 33.33), (50.005, 49.995, 0.0)])
def test_decimal_percentages_must_sum_to_100_with_two_decimals(api, shares):
    accounts = (ACCOUNT_A, ACCOUNT_B, ACCOUNT_C)
    splits = {
        "method": "PERCENTAGE",
        "receivers": [
            {"account": {"id": a}, "amount": {"value": v}} for a, v in zip(accounts, shares)
        ],
    }

    response = create(api, charges=[split_charge(splits)])

    assert response.status_code == 400
    assert error_of(response)["code"] == "40002"


def custody_splits():
    return {
        "method": "FIXED",
        "receivers": [
            {"account": {"id": ACCOUNT_A}, "amount": {"value": 7000}},
            {
                "account": {"id": ACCOUNT_B},
                "amount": {"value": 3000},
                "configurations": {
                    "custody": {"apply": True, "release": {"scheduled": "2026-12-24"}},
                    "statement": {"amount": {"show_full_value": True}},
                },
            },
        ],
    }


def test_split_custody_is_taken_and_released_on_request(api):
    response = create(api, charges=[split_charge(custody_splits())])
    split_href = response.json()["charges"][0]["links"][-1]["href"]
    split_id = split_href.rsplit("/", 1)[1]

    released = api.post(
        f"/splits/{split_id}/custody/release", {"receivers": [{"account": {"id": ACCOUNT_B}}]}
    )

    assert released.status_code == 200
    receiver = released.json()["receivers"][1]
    assert receiver["configurations"]["custody"]["released_at"]
    not_held = api.post(
        f"/splits/{split_id}/custody/release", {"receivers": [{"account": {"id": ACCOUNT_A}}]}
    )
    assert refusal(not_held) == ("40002", "receivers[0].account.id")


CUSTODY = "charges[0].splits.receivers[1].configurations.custody"


@pytest.mark.parametrize(
    ("custody", "expected"),
    [
        ({"apply": "yes"}, ("40002", f"{CUSTODY}.apply")),
        (
            {"apply": True, "release": {"scheduled": "24/12/2026"}},
            ("40002", f"{CUSTODY}.release.scheduled"),
        ),
        ({"apply": True, "hold_days": 3}, ("40003", f"{CUSTODY}.hold_days")),
    ],
    ids=["apply not a boolean", "release date malformed", "unknown key"],
)
def test_a_malformed_custody_is_refused_naming_the_field(api, custody, expected):
    splits = custody_splits()
    splits["receivers"][1]["configurations"]["custody"] = custody

    assert refusal(create(api, charges=[split_charge(splits)])) == expected


def test_a_cancel_may_say_how_a_split_refund_is_shared(api):
    response = create(api, charges=[split_charge(custody_splits())])
    charge_id = response.json()["charges"][0]["id"]
    splits = {
        "method": "FIXED",
        "receivers": [
            {
                "account": {"id": ACCOUNT_A},
                "amount": {"value": 700},
                "configurations": {
                    "refund": {"rounding_liable": {"apply": True}},
                    "fee_liable": {"percentage": 100},
                },
            },
            {"account": {"id": ACCOUNT_B}, "amount": {"value": 300}},
        ],
    }

    refunded = api.post(
        f"/charges/{charge_id}/cancel", {"amount": {"value": 1000}, "splits": splits}
    )

    assert refunded.status_code == 201, refunded.text
    assert refunded.json()["amount"]["summary"]["refunded"] == 1000
    wrong_sum = {**splits, "receivers": splits["receivers"][:1]}
    again = api.post(
        f"/charges/{charge_id}/cancel", {"amount": {"value": 1000}, "splits": wrong_sum}
    )
    assert refusal(again)[0] == "40002"


@pytest.mark.parametrize(
    ("sent", "answered"), [("Loja do meu teste", "Lojadomeuteste"), ("My Store", "MyStore")]
)
def test_a_soft_descriptor_is_answered_without_its_spaces_as_pagbanks_examples(api, sent, answered):
    """The docs' answers: "Loja do meu teste" comes back "Lojadomeuteste"."""
    response = one_charge(api, soft_descriptor=sent)
    assert response.json()["charges"][0]["payment_method"]["soft_descriptor"] == answered
