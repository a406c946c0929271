"""``GET /charges/fees/calculate`` and a charge that carries a plan's interest."""

from __future__ import annotations

import pytest

from tests.emulator.core_support import charge_payload, error_of, order_payload, raw_card
from tests.pagbank_docs import docs_example

PATH = "/charges/fees/calculate?payment_methods=CREDIT_CARD"


def plans(api, value=10000, **query):
    params = "".join(f"&{key}={value}" for key, value in query.items())
    response = api.get(f"{PATH}&value={value}{params}")
    assert response.status_code == 200, response.text
    return response.json()["payment_methods"]["credit_card"]


def test_plans_of_the_bin_brand_with_the_buyer_interest(api):
    by_brand = plans(api, 10000, max_installments=12, max_installments_no_interest=3,
                     credit_card_bin="411111")  # fmt: skip
    assert list(by_brand) == ["visa"]
    offered = by_brand["visa"]["installment_plans"]
    assert [p["installments"] for p in offered] == list(range(1, 13))
    free = offered[2]
    assert free == {
        "installments": 3,
        "installment_value": 3333,  # 3333.33..., to the nearest cent as PagBank's example
        "interest_free": True,
        "amount": {"value": 10000, "currency": "BRL"},
    }
    four = offered[3]
    # Interest on the one installment past the 3 free: 10000 * (1 + 3.49 %).
    assert four["installment_value"] == 2587  # 10349 / 4 = 2587.25
    assert four["amount"] == {
        "value": 10349,
        "fees": {"buyer": {"interest": {"total": 349, "installments": 1}}},
        "currency": "BRL",
    }
    assert four["interest_free"] is False


def test_no_bin_answers_every_brand_and_small_installments_are_left_out(api):
    by_brand = plans(api, 1500)  # R$ 15,00
    assert set(by_brand) == {"visa", "mastercard", "elo", "amex", "hipercard"}
    counts = [p["installments"] for p in by_brand["visa"]["installment_plans"]]
    assert counts == [1, 2, 3]  # 3x is R$ 5,35 with interest, 4x would be R$ 4,08
    free = plans(api, 1500, max_installments_no_interest=3)["visa"]["installment_plans"]
    assert [p["installment_value"] for p in free] == [1500, 750, 500]  # the third exactly R$ 5


@pytest.mark.parametrize(
    ("query", "code", "parameter"),
    [
        ("&value=100&max_installments_no_interest=1", "max_installments_no_interest_must_not_be_1",
         "max_installments_no_interest"),
        ("&value=100&max_installments_no_interest=13",
         "max_installments_no_interest_outside_range", "max_installments_no_interest"),
        ("&value=100&max_installments=13", "max_installments_outside_range", "max_installments"),
        ("&value=100&max_installments=0", "max_installments_outside_range", "max_installments"),
        ("&value=100&max_installments=x", "max_installments_is_invalid", "max_installments"),
        ("&value=100&credit_card_bin=41111", "credit_card_bin_invalid_length", "credit_card_bin"),
        ("&value=100&credit_card_bin=4111111", "credit_card_bin_invalid_length",
         "credit_card_bin"),
        ("&value=100&credit_card_bin=41111a", "credit_card_bin_is_invalid", "credit_card_bin"),
        ("&value=100&credit_card_bin=999999", "credit_card_bin_data_not_found",
         "credit_card_bin"),
        ("", "value_is_required", "value"),
        ("&value=0", "value_is_invalid", "value"),
    ],
)  # fmt: skip
def test_refuses_what_the_real_one_refuses(api, query, code, parameter):
    response = api.get(PATH + query)
    assert response.status_code == 400
    assert error_of(response) == {
        "code": code,
        "description": error_of(response)["description"],
        "parameter_name": parameter,
    }


def test_boundaries_accepted(api):
    assert plans(api, 100, max_installments=12, max_installments_no_interest=12)
    assert plans(api, 100, max_installments_no_interest=0, credit_card_bin="41111111")
    assert api.get("/charges/fees/calculate?value=100").json()["error_messages"][0]["code"] == (
        "payment_methods_is_required"
    )


def test_fees_not_configured_when_switched_off(api):
    api.post("/_emulator/options", {"fees_configured": False}, token=None)
    response = api.get(f"{PATH}&value=10000")
    assert error_of(response)["code"] == "fees_not_configured"
    api.post("/_emulator/reset", token=None, data=b"")
    assert api.get(f"{PATH}&value=10000").status_code == 200


def test_a_plan_amount_is_charged_and_echoed(api):
    plan = plans(api, 10000, credit_card_bin="411111")["visa"]["installment_plans"][3]
    charge = charge_payload(raw_card(), amount={**plan["amount"], "currency": "BRL"},
                            installments=4)  # fmt: skip
    answer = api.post("/orders", order_payload(charges=[charge])).json()["charges"][0]
    assert answer["amount"]["value"] == plan["amount"]["value"]
    assert answer["amount"]["fees"] == plan["amount"]["fees"]
    assert answer["amount"]["summary"]["paid"] == plan["amount"]["value"]


@pytest.mark.parametrize(
    ("interest", "field"),
    [
        ({"total": 764, "installments": 5}, "installments"),
        ({"total": 10764, "installments": 4}, "total"),
    ],
)
def test_a_plan_interest_must_fit_its_charge(api, interest, field):
    amount = {"value": 10764, "currency": "BRL", "fees": {"buyer": {"interest": interest}}}
    charge = charge_payload(raw_card(), amount=amount, installments=4)
    response = api.post("/orders", order_payload(charges=[charge]))
    assert error_of(response)["parameter_name"] == (
        f"charges[0].amount.fees.buyer.interest.{field}"
    )


# --- the docs' own example: "criar pedido com repasse de taxa ao comprador" --------------


def test_the_docs_fee_query_answers_the_docs_plans(api):
    """R$ 100,00 on a Mastercard, up to 10x, the merchant absorbing 4: the docs' answer, cent
    for cent (the buyer pays interest on the installments past the 4 interest-free ones)."""
    example = docs_example("04-1")
    response = api.get(example["path"])
    assert response.status_code == 200, response.text
    assert response.json() == example["response"]
    offered = response.json()["payment_methods"]["credit_card"]["mastercard"]["installment_plans"]
    five, eight = offered[4], offered[7]
    assert five["amount"]["fees"]["buyer"]["interest"] == {"total": 349, "installments": 1}
    assert eight["amount"]["fees"]["buyer"]["interest"] == {"total": 887, "installments": 4}


def test_without_interest_free_installments_the_buyer_pays_interest_on_all(api):
    offered = plans(api, 10000, credit_card_bin="552100")["mastercard"]["installment_plans"]
    assert offered[0]["interest_free"] is True  # one installment: no interest
    assert offered[1]["amount"]["fees"]["buyer"]["interest"]["installments"] == 2
    assert offered[4]["amount"]["fees"]["buyer"]["interest"]["installments"] == 5


def interest_charge(value, total, interest_installments, installments):
    fees = {"buyer": {"interest": {"total": total, "installments": interest_installments}}}
    amount = {"value": value, "currency": "BRL", "fees": fees}
    return charge_payload(raw_card(), amount=amount, installments=installments)


def test_the_docs_8x_with_4_interest_free_is_charged(api):
    """The docs' body: 8 installments, interest on 4 of them (``interest.installments: 4``)."""
    response = api.post("/orders", order_payload(charges=[interest_charge(10887, 887, 4, 8)]))
    assert response.status_code == 201, response.text
    charge = response.json()["charges"][0]
    assert charge["status"] == "PAID"
    assert charge["amount"]["fees"] == {"buyer": {"interest": {"total": 887, "installments": 4}}}
    assert charge["payment_method"]["installments"] == 8
    five = api.post("/orders", order_payload(charges=[interest_charge(10349, 349, 1, 5)]))
    assert five.status_code == 201, five.text


@pytest.mark.parametrize("interest_installments", [0, 9])
def test_interest_installments_within_the_charge(api, interest_installments):
    """At least one, at most the charge's installments (8 here)."""
    body = order_payload(charges=[interest_charge(10887, 887, interest_installments, 8)])
    response = api.post("/orders", body)
    assert error_of(response)["parameter_name"] == (
        "charges[0].amount.fees.buyer.interest.installments"
    )
    edge = order_payload(charges=[interest_charge(10887, 887, 8, 8)])
    assert api.post("/orders", edge).status_code == 201


def test_the_plans_limit_is_12_even_on_an_account_with_18_installments(api):
    """The endpoint's error says "between 1 and 12", and so does its limit."""
    api.post("/_emulator/options", {"installments_18x": True}, token=None)
    response = api.get(f"{PATH}&value=100000&max_installments=13")
    assert error_of(response)["code"] == "max_installments_outside_range"
    assert "between 1 and 12" in error_of(response)["description"]
    assert len(plans(api, 100000, max_installments=12)["visa"]["installment_plans"]) == 12
    over = api.get(f"{PATH}&value=100000&max_installments_no_interest=13")
    assert error_of(over)["code"] == "max_installments_no_interest_outside_range"
