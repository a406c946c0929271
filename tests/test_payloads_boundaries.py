"""The boundaries of the card rules that money depends on: the last accepted, the first refused.

A wrong comparison here (``0[0-9]`` for the month, ``<`` for ``<=`` on the
installments) would send the provider a request it refuses after the
customer typed everything, or accept one that charges wrongly.
"""

from __future__ import annotations

import pytest

from django_orderpay import rules
from django_orderpay.exceptions import PayloadError
from django_orderpay.payloads import (
    CardInstallments,
    CheckoutItem,
    CheckoutRequest,
    CheckoutShipping,
    PaymentMethod,
    validate_order_dict,
)
from django_orderpay.testing import samples
from tests.payloads_support import charge, order, raw_card

CARD_MONTH = "charges[0].payment_method.card.exp_month"
INSTALLMENTS = "charges[0].payment_method.installments"


def refused_paths(build) -> list[str]:
    try:
        build()
    except PayloadError as error:
        return error.paths
    return []


@pytest.mark.parametrize(
    ("month", "accepted"),
    [("00", False), ("01", True), ("09", True), ("10", True), ("12", True), ("13", False)],
)
def test_a_card_month_is_01_to_12(month, accepted):
    body = samples.order_request()
    body["charges"][0]["payment_method"]["card"]["exp_month"] = month

    paths = refused_paths(lambda: validate_order_dict(body))

    assert (paths == []) is accepted
    assert accepted or paths == [CARD_MONTH]


@pytest.mark.parametrize(
    ("installments", "accepted"),
    [
        (0, False),
        (1, True),
        (rules.MAX_INSTALLMENTS, True),
        # 13-18 where the account has them enabled: the provider decides.
        (rules.MAX_INSTALLMENTS_ENABLED, True),
        (rules.MAX_INSTALLMENTS_ENABLED + 1, False),
    ],
)
def test_installments_up_to_the_most_allowed(installments, accepted):
    method = PaymentMethod(raw_card(), installments=installments)
    # An amount whose every installment stays above the provider's minimum.
    big = charge(payment_method=method, amount=100_000)
    paths = refused_paths(lambda: order(charges=[big]).to_dict())

    assert (paths == []) is accepted, paths
    assert accepted or paths == [INSTALLMENTS]


@pytest.mark.parametrize(
    ("value", "installments", "accepted"),
    [(1500, 3, True), (1499, 3, False), (100, 1, True), (999, 2, False), (1000, 2, True)],
)
def test_each_installment_is_at_least_five_reais(value, installments, accepted):
    method = PaymentMethod(raw_card(), installments=installments)
    paths = refused_paths(
        lambda: order(charges=[charge(payment_method=method, amount=value)]).to_dict()
    )

    assert (paths == []) is accepted, paths
    assert accepted or paths == [INSTALLMENTS]


@pytest.mark.parametrize(
    ("quantity", "message"),
    [
        (0, "must be between 1 and 99999"),
        (rules.MAX_QUANTITY + 1, "must be between 1 and 99999"),
        (1.5, "must be an integer"),  # a count, not money: no word of cents
        (samples.OMIT, "is required"),
    ],
)
def test_an_integer_outside_its_limits_is_refused_saying_which(quantity, message):
    body = samples.order_request(
        items=[
            {"reference_id": "sku-1", "name": "Camiseta", "quantity": quantity, "unit_amount": 500}
        ],
        charges=samples.OMIT,
    )
    if quantity is samples.OMIT:
        del body["items"][0]["quantity"]

    with pytest.raises(PayloadError) as caught:
        validate_order_dict(body)

    assert [str(error) for error in caught.value.errors] == [f"items[0].quantity: {message}"]


@pytest.mark.parametrize("quantity", [1, rules.MAX_QUANTITY])
def test_an_integer_at_its_limits_is_accepted(quantity):
    body = samples.order_request(
        items=[
            {"reference_id": "sku-1", "name": "Camiseta", "quantity": quantity, "unit_amount": 500}
        ],
        charges=samples.OMIT,
    )

    assert validate_order_dict(body)["items"][0]["quantity"] == quantity


@pytest.mark.parametrize(
    ("limit", "free", "expected"),
    [
        (3, 3, []),
        (3, 4, ["config_options: interest-free installments can't exceed the limit"]),
        # Out of range, or not a number: that one error, never a comparison with it.
        (0, 2, ["config_options.INSTALLMENTS_LIMIT: must be between 1 and 18"]),
        ("3", 2, ["config_options.INSTALLMENTS_LIMIT: must be an integer"]),
        (None, 2, []),
    ],
)
def test_a_hosted_checkouts_interest_free_installments_stay_within_its_limit(limit, free, expected):
    config = CardInstallments(
        "CREDIT_CARD", installments_limit=limit, interest_free_installments=free
    )

    assert [str(error) for error in config.errors()] == expected


@pytest.mark.parametrize(("discount", "refused"), [(12_000, False), (12_001, True)])
def test_a_checkouts_discount_may_equal_the_items_plus_the_additional_amount(discount, refused):
    # PagBank's create page: the discount "não deve superar" the items plus the additional
    # amount; the shipping is no part of that sum.
    checkout = CheckoutRequest(
        items=(CheckoutItem(quantity=2, unit_amount=5990),),  # 11 980
        additional_amount=20,
        discount_amount=discount,
        shipping=CheckoutShipping("FIXED", amount=1500),
    )

    if not refused:
        assert checkout.to_dict()["discount_amount"] == discount
        return
    with pytest.raises(PayloadError) as caught:
        checkout.to_dict()
    assert [str(error) for error in caught.value.errors] == [
        "discount_amount: can't exceed the items plus the additional amount"
    ]


@pytest.mark.parametrize(("discount", "refused"), [(11_999, False), (12_000, True)])
def test_a_checkouts_total_is_at_least_a_cent(discount, refused):
    # The emulator, as the provider, refuses a total of 0 (invalid_cart_total_value): a
    # discount as large as the items plus the additional amount, with no shipping.
    checkout = CheckoutRequest(
        items=(CheckoutItem(quantity=2, unit_amount=5990),),  # 11 980
        additional_amount=20,
        discount_amount=discount,
    )

    if not refused:
        assert checkout.to_dict()["discount_amount"] == discount
        return
    with pytest.raises(PayloadError) as caught:
        checkout.to_dict()
    assert [str(error) for error in caught.value.errors] == [
        "items: the total (items, additional amount and fixed shipping, less the discount) "
        f"must be from 1 to {rules.MAX_AMOUNT} cents"
    ]
