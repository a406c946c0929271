"""``GET /charges/fees/calculate`` and a charge that carries a plan's interest."""

from __future__ import annotations

import pytest

from tests.emulator.core_support import charge_payload, error_of, order_payload, raw_card

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
        "installment_value": 3334,
        "interest_free": True,
        "amount": {"value": 10000},
    }
    four = offered[3]
    # Price table at 2.99 % a month: 10000 * i / (1 - (1 + i) ** -4), rounded up.
    assert four["installment_value"] == 2690  # 2689.3...
    assert four["amount"] == {
        "value": 2690 * 4,
        "fees": {"buyer": {"interest": {"total": 2690 * 4 - 10000, "installments": 4}}},
    }
    assert four["interest_free"] is False


def test_no_bin_answers_every_brand_and_small_installments_are_left_out(api):
    by_brand = plans(api, 1500)  # R$ 15,00
    assert set(by_brand) == {"visa", "mastercard", "elo", "amex", "hipercard"}
    counts = [p["installments"] for p in by_brand["visa"]["installment_plans"]]
    assert counts == [1, 2, 3]  # 3x is R$ 5,30 with interest, 4x would be R$ 4,03
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
        ({"total": 764, "installments": 3}, "installments"),
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
