"""Split rules from the facts, and the split record."""

from __future__ import annotations

import copy
from datetime import UTC, datetime

import pytest

from django_orderpay.emulator.resources.splits import build_split_record, validate_splits
from django_orderpay.emulator.state.errors import ProviderError

MERCHANT = "ACCO_11111111-2222-3333-4444-555555555555"
PARTNER = "ACCO_66666666-7777-8888-9999-AAAAAAAAAAAA"
THIRD = "ACCO_BBBBBBBB-CCCC-DDDD-EEEE-FFFFFFFFFFFF"
PATH = "charges[0].splits"
# The sample's split: values as strings.
FIXED = {
    "method": "FIXED",
    "receivers": [
        {"account": {"id": MERCHANT}, "amount": {"value": "7000"}},
        {"account": {"id": PARTNER}, "amount": {"value": "3000"}},
    ],
}


def check(splits, *, amount=10000, recurring=False):
    validate_splits(
        splits, charge_amount=amount, merchant_account=MERCHANT, recurring=recurring, path=PATH
    )


def failure(splits, **kwargs) -> tuple[str, str | None]:
    with pytest.raises(ProviderError) as caught:
        check(splits, **kwargs)
    assert caught.value.status == 400
    return caught.value.code, caught.value.parameter_name


def percentage(*values, accounts=(MERCHANT, PARTNER, THIRD)):
    receivers = [
        {"account": {"id": account}, "amount": {"value": value}}
        for account, value in zip(accounts, values, strict=False)
    ]
    return {"method": "PERCENTAGE", "receivers": receivers}


def test_percentage_split_sums_to_100_whatever_the_amount():
    check(percentage(60, 30, 10), amount=12345)
    assert failure(percentage(60, 30, 9)) == ("40002", f"{PATH}.receivers.amount.value")


def test_fixed_must_sum_to_the_charge_amount():
    assert failure(FIXED, amount=10001) == ("40002", f"{PATH}.receivers.amount.value")


@pytest.mark.parametrize(
    ("value", "code"),
    [("0", "40002"), (0, "40002"), (-1, "40002"), ("7k", "40002"), (7.5, "40002"),
     ("", "40002"), (None, "40001"), ("10001", "40002"), (True, "40002")],
)  # fmt: skip
def test_each_value_positive_integer_within_the_charge(value, code):
    splits = copy.deepcopy(FIXED)
    splits["receivers"][1]["amount"]["value"] = value
    assert failure(splits) == (code, f"{PATH}.receivers[1].amount.value")


def test_percentage_value_above_100_names_the_receiver():
    assert failure(percentage(101, 1)) == ("40002", f"{PATH}.receivers[0].amount.value")


@pytest.mark.parametrize("method", ["fixed", "SHARE", 1, None])
def test_method_fixed_or_percentage(method):
    splits = {**FIXED, "method": method}
    code = "40001" if method is None else "40002"
    assert failure(splits) == (code, f"{PATH}.method")


def test_two_to_fifteen_receivers():
    one = {"method": "FIXED", "receivers": [{"account": {"id": MERCHANT}, "amount": {"value": 1}}]}
    assert failure(one, amount=1) == ("40002", f"{PATH}.receivers")
    accounts = [MERCHANT] + [f"ACCO_00000000-0000-0000-0000-{n:012X}" for n in range(15)]
    many = percentage(*([6] * 16), accounts=accounts)
    assert failure(many) == ("40002", f"{PATH}.receivers")
    fifteen = percentage(*([6] * 14 + [16]), accounts=accounts[:15])
    check(fifteen)
    assert failure({"method": "FIXED", "receivers": {"a": 1}}) == ("40002", f"{PATH}.receivers")


@pytest.mark.parametrize(
    "account_id",
    [
        "11111111-2222-3333-4444-555555555555",
        "ACCO_abc",
        "acco_66666666-7777-8888-9999-aaaaaaaaaaaa",
        5,
    ],
)
def test_account_ids_are_acco_ids(account_id):
    splits = copy.deepcopy(FIXED)
    splits["receivers"][1]["account"]["id"] = account_id
    assert failure(splits) == ("40002", f"{PATH}.receivers[1].account.id")


def test_each_account_once():
    assert failure(percentage(50, 50, accounts=(MERCHANT, MERCHANT))) == (
        "40002",
        f"{PATH}.receivers[1].account.id",
    )


def test_the_merchant_must_be_a_receiver():
    assert failure(percentage(50, 50, accounts=(PARTNER, THIRD))) == ("40002", f"{PATH}.receivers")


def test_one_liable_at_most_and_none_with_recurring():
    splits = percentage(50, 30, 20)
    splits["receivers"][0]["configurations"] = {"liable": True}
    check(splits)
    splits["receivers"][2]["configurations"] = {"liable": True}
    assert failure(splits) == ("40002", f"{PATH}.receivers[2].configurations.liable")
    splits["receivers"][2]["configurations"] = {"liable": False}
    assert failure(splits, recurring=True) == (
        "40002",
        f"{PATH}.receivers[0].configurations.liable",
    )
    splits["receivers"][0]["configurations"] = {"liable": "yes"}
    assert failure(splits) == ("40002", f"{PATH}.receivers[0].configurations.liable")


@pytest.mark.parametrize(
    ("splits", "parameter_name"),
    [
        ("FIXED", PATH),
        ({**FIXED, "currency": "BRL"}, f"{PATH}.currency"),
        ({**FIXED, "receivers": [*FIXED["receivers"][:1], "ACCO_x"]}, f"{PATH}.receivers[1]"),
        (
            {**FIXED, "receivers": [FIXED["receivers"][0], {**FIXED["receivers"][1], "x": 1}]},
            f"{PATH}.receivers[1].x",
        ),
        (
            {**FIXED, "receivers": [FIXED["receivers"][0], {"account": PARTNER, "amount": {}}]},
            f"{PATH}.receivers[1].account",
        ),
    ],
)
def test_wrong_shapes_name_the_field(splits, parameter_name):
    assert failure(splits)[1] == parameter_name


def test_split_record():
    splits = copy.deepcopy(FIXED)
    splits["receivers"][1]["configurations"] = {"liable": True}
    created = datetime(2026, 11, 21, 17, 5, 31, 482000, tzinfo=UTC)
    record = build_split_record(
        splits,
        split_id="SPLI_0B1C2D3E-4F50-6172-8394-A5B6C7D8E9F0",
        created_at=created,
        merchant_account=MERCHANT,
        base_url="http://emulator.test/api",
    )
    assert record == {
        "id": "SPLI_0B1C2D3E-4F50-6172-8394-A5B6C7D8E9F0",
        "method": "FIXED",
        "status": "COMPLETED",
        "created_at": "2026-11-21T14:05:31.482-03:00",
        "receivers": [
            {"type": "PRIMARY", "account": {"id": MERCHANT}, "amount": {"value": 7000}},
            {
                "type": "SECONDARY",
                "account": {"id": PARTNER},
                "amount": {"value": 3000},
                "configurations": {"liable": True},
            },
        ],
        "links": [
            {
                "rel": "SELF",
                "href": "http://emulator.test/api/splits/SPLI_0B1C2D3E-4F50-6172-8394-A5B6C7D8E9F0",
                "media": "application/json",
                "type": "GET",
            }
        ],
    }
