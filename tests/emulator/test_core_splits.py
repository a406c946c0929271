"""Splits through HTTP: pay with FIXED and PERCENTAGE splits, the SPLIT link and the record."""

from __future__ import annotations

import pytest

from django_orderpay.cardcrypto import encrypt_card
from tests.emulator.core_support import (
    ACCOUNT_A,
    ACCOUNT_B,
    ACCOUNT_C,
    BASE_URL,
    SPLIT_ID,
    TIMESTAMP,
    TOKEN_B,
    charge_payload,
    error_of,
    order_payload,
    raw_card,
    refusal,
)


def receivers(*pairs):
    return [{"account": {"id": account}, "amount": {"value": value}} for account, value in pairs]


SAMPLE_SPLITS = {
    "method": "FIXED",
    "receivers": receivers((ACCOUNT_A, "7000"), (ACCOUNT_B, "3000")),
}


def split_charge(splits, card=None):
    charge = charge_payload(card, splits=splits)
    charge["amount"] = {"value": 10000, "currency": "BRL"}
    charge["reference_id"], charge["description"] = "ch-2", "Marketplace"
    return charge


def pay_split(api, splits, card=None):
    order = api.create_order()
    return api.post(f"/orders/{order['id']}/pay", {"charges": [split_charge(splits, card)]})


def test_pay_with_a_fixed_split_links_the_split_record(api):
    # The sample: an encrypted card, receivers' values as strings.
    public_key = api.post("/public-keys", {"type": "card"}).json()["public_key"]
    blob = encrypt_card(
        public_key,
        number="4111111111111111",
        security_code="123",
        exp_month="12",
        exp_year="2030",
        holder="Jose",
    )
    card = {"encrypted": blob, "holder": {"name": "Jose"}}

    response = pay_split(api, SAMPLE_SPLITS, card)

    assert response.status_code == 201
    charge = response.json()["charges"][0]
    assert charge["status"] == "PAID"
    split_link = charge["links"][-1]
    assert [link["rel"] for link in charge["links"]] == ["SELF", "CHARGE.CANCEL", "SPLIT"]
    split_id = split_link["href"].rsplit("/", 1)[1]
    assert SPLIT_ID.match(split_id)
    assert split_link == {
        "rel": "SPLIT",
        "href": f"{BASE_URL}/splits/{split_id}",
        "media": "application/json",
        "type": "GET",
    }

    record = api.get(split_link["href"])

    assert record.status_code == 200
    split = record.json()
    assert split["id"] == split_id
    assert split["method"] == "FIXED"
    assert split["status"] == "COMPLETED"
    assert TIMESTAMP.match(split["created_at"])
    assert split["receivers"] == [
        {"type": "PRIMARY", "account": {"id": ACCOUNT_A}, "amount": {"value": 7000}},
        {"type": "SECONDARY", "account": {"id": ACCOUNT_B}, "amount": {"value": 3000}},
    ]
    assert split["links"] == [
        {
            "rel": "SELF",
            "href": f"{BASE_URL}/splits/{split_id}",
            "media": "application/json",
            "type": "GET",
        }
    ]


def test_percentage_split_with_integer_values(api):
    splits = {
        "method": "PERCENTAGE",
        "receivers": receivers((ACCOUNT_A, 50), (ACCOUNT_B, 30), (ACCOUNT_C, 20)),
    }

    charge = pay_split(api, splits).json()["charges"][0]
    split = api.get(charge["links"][-1]["href"]).json()

    assert split["method"] == "PERCENTAGE"
    assert [r["amount"]["value"] for r in split["receivers"]] == [50, 30, 20]


def test_split_on_a_one_step_create(api):
    response = api.post("/orders", order_payload(charges=[split_charge(SAMPLE_SPLITS)]))

    assert response.status_code == 201
    assert response.json()["charges"][0]["links"][-1]["rel"] == "SPLIT"


def test_split_of_a_refunded_charge_is_canceled_and_of_a_declined_one_too(api):
    paid = pay_split(api, SAMPLE_SPLITS).json()["charges"][0]
    api.post(f"/charges/{paid['id']}/cancel", {"amount": {"value": 10000}})
    declined = pay_split(api, SAMPLE_SPLITS, raw_card("4929291898380766")).json()["charges"][0]

    assert api.get(paid["links"][-1]["href"]).json()["status"] == "CANCELED"
    assert declined["links"][-1]["rel"] == "SPLIT"
    assert api.get(declined["links"][-1]["href"]).json()["status"] == "CANCELED"


def test_splits_are_private_to_their_merchant(api):
    charge = pay_split(api, SAMPLE_SPLITS).json()["charges"][0]

    response = api.get(charge["links"][-1]["href"], token=TOKEN_B)

    assert response.status_code == 404
    assert error_of(response) == {"code": "NOT_FOUND", "description": "split not found"}


def test_unknown_split_is_404(api):
    assert api.get("/splits/SPLI_00000000-0000-0000-0000-000000000000").status_code == 404


@pytest.mark.parametrize(
    ("splits", "parameter_name"),
    [
        ({**SAMPLE_SPLITS, "method": "EQUAL"}, "splits.method"),
        (
            {"method": "FIXED", "receivers": receivers((ACCOUNT_A, "7000"), (ACCOUNT_B, "2000"))},
            "splits.receivers.amount.value",
        ),
        (
            {"method": "PERCENTAGE", "receivers": receivers((ACCOUNT_A, 50), (ACCOUNT_B, 40))},
            "splits.receivers.amount.value",
        ),
        ({"method": "FIXED", "receivers": receivers((ACCOUNT_A, "10000"))}, "splits.receivers"),
        (
            {"method": "FIXED", "receivers": receivers((ACCOUNT_B, "7000"), (ACCOUNT_C, "3000"))},
            "splits.receivers",
        ),
        (
            {"method": "FIXED", "receivers": receivers((ACCOUNT_A, "7000"), (ACCOUNT_A, "3000"))},
            "splits.receivers[1].account.id",
        ),
        (
            {"method": "FIXED", "receivers": receivers((ACCOUNT_A, "7000"), ("ACCO_x", "3000"))},
            "splits.receivers[1].account.id",
        ),
        ("FIXED", "splits"),
        (
            {"method": "FIXED", "receivers": receivers((ACCOUNT_A, "10000"), (ACCOUNT_B, "0"))},
            "splits.receivers[1].amount.value",
        ),
        (
            {"method": "FIXED", "receivers": receivers((ACCOUNT_A, 10001), (ACCOUNT_B, -1))},
            "splits.receivers[0].amount.value",
        ),
        (
            {"method": "PERCENTAGE", "receivers": receivers((ACCOUNT_A, 101), (ACCOUNT_B, 1))},
            "splits.receivers[0].amount.value",
        ),
        (
            {"method": "FIXED", "receivers": receivers((ACCOUNT_A, "70.00"), (ACCOUNT_B, "3000"))},
            "splits.receivers[0].amount.value",
        ),
        (
            {"method": "FIXED", "receivers": receivers((ACCOUNT_A, "9" * 5000), (ACCOUNT_B, "1"))},
            "splits.receivers[0].amount.value",
        ),
        (
            {
                "method": "PERCENTAGE",
                "receivers": receivers(
                    (ACCOUNT_A, 85),
                    *((f"ACCO_{index:08d}-0000-0000-0000-000000000000", 1) for index in range(15)),
                ),
            },
            "splits.receivers",
        ),
        (
            {
                "method": "FIXED",
                "receivers": [
                    {
                        "account": {"id": ACCOUNT_A},
                        "amount": {"value": "7000"},
                        "configurations": {"liable": True},
                    },
                    {
                        "account": {"id": ACCOUNT_B},
                        "amount": {"value": "3000"},
                        "configurations": {"liable": True},
                    },
                ],
            },
            "splits.receivers[1].configurations.liable",
        ),
    ],
)
def test_invalid_splits_are_40002_naming_the_field(api, splits, parameter_name):
    response = pay_split(api, splits)

    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "40002"
    assert error["parameter_name"] == f"charges[0].{parameter_name}"


def test_fifteen_receivers_and_one_liable_are_accepted(api):
    others = [(f"ACCO_{index:08d}-0000-0000-0000-000000000000", 1) for index in range(14)]
    splits = {"method": "PERCENTAGE", "receivers": receivers((ACCOUNT_A, 86), *others)}
    splits["receivers"][0]["configurations"] = {"liable": True}

    charge = pay_split(api, splits).json()["charges"][0]
    split = api.get(charge["links"][-1]["href"]).json()

    assert len(split["receivers"]) == 15
    assert [r["type"] for r in split["receivers"]] == ["PRIMARY"] + ["SECONDARY"] * 14
    assert split["receivers"][0]["configurations"] == {"liable": True}


def chargeback(*percentages):
    """SAMPLE_SPLITS with ``configurations.chargeback.charge_transfer.percentage`` per receiver."""
    splits = {"method": "FIXED", "receivers": receivers((ACCOUNT_A, 6000), (ACCOUNT_B, 4000))}
    for receiver, percentage in zip(splits["receivers"], percentages, strict=False):
        if percentage is not None:
            transfer = {"charge_transfer": {"percentage": percentage}}
            receiver["configurations"] = {"chargeback": transfer}
    return splits


def test_a_chargeback_transfer_to_one_receiver_is_recorded(api):
    charge = pay_split(api, chargeback(0, 100)).json()["charges"][0]

    split = api.get(charge["links"][-1]["href"]).json()

    assert [r["configurations"] for r in split["receivers"]] == [
        {"chargeback": {"charge_transfer": {"percentage": 0}}},
        {"chargeback": {"charge_transfer": {"percentage": 100}}},
    ]


RECEIVER = "charges[0].splits.receivers"


@pytest.mark.parametrize(
    ("splits", "code", "parameter_name"),
    [
        (
            chargeback(100, None),
            "40001",
            f"{RECEIVER}[1].configurations.chargeback",
        ),
        (
            chargeback(100, 100),
            "40002",
            f"{RECEIVER}[1].configurations.chargeback.charge_transfer.percentage",
        ),
        (
            chargeback(0, 0),
            "40002",
            f"{RECEIVER}[0].configurations.chargeback.charge_transfer.percentage",
        ),
        (
            chargeback(50, 50),
            "40002",
            f"{RECEIVER}[0].configurations.chargeback.charge_transfer.percentage",
        ),
        (
            {
                "method": "FIXED",
                "receivers": [
                    {
                        "account": {"id": ACCOUNT_A},
                        "amount": {"value": 6000},
                        "configurations": {"chargeback": {"a": {"b": {"c": 1}}}},
                    },
                    {"account": {"id": ACCOUNT_B}, "amount": {"value": 4000}},
                ],
            },
            "40003",
            f"{RECEIVER}[0].configurations.chargeback.a",
        ),
    ],
)
def test_chargeback_transfers_follow_the_providers_rule(api, splits, code, parameter_name):
    response = pay_split(api, splits)

    assert refusal(response) == (code, parameter_name)


def test_a_liable_receiver_is_refused_with_recurring(api):
    splits = {
        "method": "FIXED",
        "receivers": receivers((ACCOUNT_A, "7000"), (ACCOUNT_B, "3000")),
    }
    splits["receivers"][1]["configurations"] = {"liable": True}
    charge = split_charge(splits)
    charge["recurring"] = {"type": "INITIAL"}
    order = api.create_order()

    response = api.post(f"/orders/{order['id']}/pay", {"charges": [charge]})

    assert error_of(response)["parameter_name"] == (
        "charges[0].splits.receivers[1].configurations.liable"
    )


EXTERNAL_3DS = {"type": "THREEDS", "cavv": "BwABBylVaQAAAAFwllVpAAAAAAA=", "eci": "05"}


def liable_splits(liable=True):
    splits = {"method": "FIXED", "receivers": receivers((ACCOUNT_A, "7000"), (ACCOUNT_B, "3000"))}
    splits["receivers"][1]["configurations"] = {"liable": liable}
    return splits


def test_a_liable_receiver_is_refused_with_3ds(api):
    """The error table: "3DS authentication is not valid method for split transactions with
    liable configuration", on ``payment_method.authentication_method.type``."""
    charge = split_charge(liable_splits())
    charge["payment_method"]["authentication_method"] = EXTERNAL_3DS
    response = pay_split_charge(api, charge)
    assert refusal(response) == (
        "40002",
        "charges[0].payment_method.authentication_method.type",
    )
    assert "liable" in error_of(response)["description"]
    not_liable = split_charge(liable_splits(False))
    not_liable["payment_method"]["authentication_method"] = EXTERNAL_3DS
    assert pay_split_charge(api, not_liable).status_code == 201
    without_3ds = pay_split_charge(api, split_charge(liable_splits()))
    assert without_3ds.status_code == 201, without_3ds.text


def test_a_liable_receiver_is_refused_on_a_debit_card(api):
    """ "The liable configuration can only be applied for credit card payments": a debit,
    always 3-D Secure, can never pass with one."""
    charge = split_charge(liable_splits())
    method = charge["payment_method"]
    method.update(type="DEBIT_CARD", authentication_method=EXTERNAL_3DS)
    method.pop("capture", None)
    response = pay_split_charge(api, charge)
    assert refusal(response) == ("40002", "charges[0].splits.receivers[1].configurations.liable")
    assert "credit card" in error_of(response)["description"]


def pay_split_charge(api, charge):
    order = api.create_order()
    return api.post(f"/orders/{order['id']}/pay", {"charges": [charge]})


# --- splits on a Pix QR code (the order object's qr_codes[].splits) and on a boleto ---------


def qr_with_splits(api, splits, value=10000):
    return api.post(
        "/orders",
        order_payload(qr_codes=[{"amount": {"value": value}, "splits": splits}]),
    )


def test_a_pix_qr_code_with_a_split_splits_its_payment(api):
    splits = {"method": "FIXED", "receivers": receivers((ACCOUNT_A, 7000), (ACCOUNT_B, 3000))}
    created = qr_with_splits(api, splits)
    assert created.status_code == 201, created.text
    qr_code = created.json()["qr_codes"][0]
    assert qr_code["splits"] == splits

    paid = api.post(f"/_emulator/qr_codes/{qr_code['id']}/pay", token=None)
    assert paid.status_code == 200, paid.text
    link = next(link for link in paid.json()["links"] if link["rel"] == "SPLIT")
    split = api.get(link["href"]).json()
    assert split["status"] == "COMPLETED"
    assert [(r["account"]["id"], r["amount"]["value"]) for r in split["receivers"]] == [
        (ACCOUNT_A, 7000),
        (ACCOUNT_B, 3000),
    ]


@pytest.mark.parametrize(
    ("receiver_values", "liable", "parameter_name"),
    [
        ((7000, 2000), False, "qr_codes[0].splits.receivers.amount.value"),
        ((7000, 3000), True, "qr_codes[0].splits.receivers[1].configurations.liable"),
    ],
)
def test_a_pix_split_follows_the_split_rules(api, receiver_values, liable, parameter_name):
    pairs = zip((ACCOUNT_A, ACCOUNT_B), receiver_values, strict=True)
    splits = {"method": "FIXED", "receivers": receivers(*pairs)}
    if liable:
        splits["receivers"][1]["configurations"] = {"liable": True}
    assert refusal(qr_with_splits(api, splits)) == ("40002", parameter_name)


def test_a_boleto_with_a_split_waits_then_splits_its_payment(api):
    """The partner plugin sends splits on boleto charges."""
    from datetime import timedelta

    from django_orderpay import rules
    from django_orderpay.testing import samples

    due = (rules.provider_today() + timedelta(days=3)).isoformat()
    charge = samples.boleto_charge_request(due, amount={"value": 10000, "currency": "BRL"})
    charge["splits"] = {
        "method": "PERCENTAGE",
        "receivers": receivers((ACCOUNT_A, 80), (ACCOUNT_B, 20)),
    }
    created = api.post("/orders", order_payload(charges=[charge]))
    assert created.status_code == 201, created.text
    boleto = created.json()["charges"][0]
    split_href = next(link["href"] for link in boleto["links"] if link["rel"] == "SPLIT")
    assert api.get(split_href).json()["status"] == "PENDING"
    api.post(f"/_emulator/boletos/{boleto['id']}/pay", token=None)
    assert api.get(split_href).json()["status"] == "COMPLETED"
