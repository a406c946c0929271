"""Split payments: FIXED and PERCENTAGE, the split record fetched through the SPLIT link."""

from __future__ import annotations

import pytest

from django_orderpay import payloads
from django_orderpay.exceptions import PayloadError
from django_orderpay.models import Split
from django_orderpay.services import create_order, get_split, pay_order
from tests.test_services_support import APPROVED_VISA, CVV, OTHER_ACCOUNT, charge, order_payload

pytestmark = pytest.mark.django_db


def _receivers(primary: str, first: int, second: int) -> list[dict]:
    return [
        {"account": {"id": primary}, "amount": {"value": str(first)}},
        {"account": {"id": OTHER_ACCOUNT}, "amount": {"value": str(second)}},
    ]


def test_fixed_split_on_pay_and_its_record(orderpay_emulator):
    order = create_order(order_payload("split-fixed", unit_amount=10000))
    splits = {"method": "FIXED", "receivers": _receivers(orderpay_emulator.account_id, 7000, 3000)}

    paid = pay_order(order, [charge(10000, splits=splits)])

    row = paid.charges.get()
    assert row.status == "PAID"
    href = row.link("SPLIT")
    assert href.startswith(orderpay_emulator.base_url + "/splits/SPLI_")
    placeholder = Split.objects.get(charge=row)  # made from the link by sync
    assert placeholder.provider_id == href.rsplit("/", 1)[-1]

    split = get_split(row)

    assert split.pk == placeholder.pk
    assert (split.method, split.status) == ("FIXED", "COMPLETED")
    row.refresh_from_db()
    assert row.split_method == "FIXED"  # learnt from the split record
    assert split.created_at is not None
    amounts = {r["account"]["id"]: int(r["amount"]["value"]) for r in split.receivers}
    assert amounts == {orderpay_emulator.account_id: 7000, OTHER_ACCOUNT: 3000}


def test_percentage_split_on_create_with_builders(orderpay_emulator):
    order = payloads.OrderRequest(
        reference_id="split-pct",
        customer=payloads.Customer("Jose da Silva", "jose@example.com", "12345678909"),
        items=(payloads.Item("Servico", 1, 5000),),
        charges=(
            payloads.ChargeRequest(
                amount=5000,
                payment_method=payloads.PaymentMethod(
                    card=payloads.Card.raw(APPROVED_VISA, 12, 2030, CVV, "Jose da Silva")
                ),
                splits=payloads.Splits.percentage(
                    payloads.Receiver.percentage(orderpay_emulator.account_id, 70),
                    payloads.Receiver.percentage(OTHER_ACCOUNT, 30),
                ),
            ),
        ),
    )

    row = create_order(order).charges.get()
    split = get_split(row)
    row.refresh_from_db()

    assert (row.split_method, split.method, split.status) == (
        "PERCENTAGE",
        "PERCENTAGE",
        "COMPLETED",
    )
    percentages = {r["account"]["id"]: int(r["amount"]["value"]) for r in split.receivers}
    assert percentages == {orderpay_emulator.account_id: 70, OTHER_ACCOUNT: 30}


def test_split_sums_are_checked_before_any_call(orderpay_emulator):
    order = create_order(order_payload("split-bad", unit_amount=10000))
    splits = {"method": "FIXED", "receivers": _receivers(orderpay_emulator.account_id, 7000, 2000)}

    with pytest.raises(PayloadError) as caught:
        pay_order(order, [charge(10000, splits=splits)])

    assert caught.value.paths == ["charges[0].splits.receivers.amount.value"]
    assert not order.charges.exists()


def test_a_charge_without_a_split_has_no_split_to_fetch(orderpay_emulator):
    row = create_order(order_payload("no-split", charges=[charge(500)])).charges.get()

    with pytest.raises(PayloadError) as caught:
        get_split(row)

    assert caught.value.paths == ["links"]
