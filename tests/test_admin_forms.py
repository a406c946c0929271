"""The partial refund amount: money typed by staff, integer cents out, never above refundable."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from django_orderpay.admin.forms import RefundAmountForm, parse_money
from django_orderpay.models import Charge
from django_orderpay.testing.factories import ChargeFactory
from tests.admin_support import client_for, confirmation_fields, make_user, post_action


@pytest.mark.parametrize(
    ("typed", "cents"),
    [
        ("12,34", 1234),
        ("12.34", 1234),
        ("12", 1200),
        ("12,3", 1230),
        ("0,01", 1),
        ("1.234,56", 123456),
        ("1,234.56", 123456),
        ("1.234", 123400),
        ("1.234.567,89", 123456789),
        ("R$ 12,34", 1234),
        ("R$\u00a012,34", 1234),
        ("  7,50 ", 750),
        ("0.29", 29),  # 0.29 * 100 is 28.999... as a float
        ("1.15", 115),
    ],
)
def test_money_typed_either_way_becomes_integer_cents(typed, cents):
    result = parse_money(typed)
    assert result == cents
    assert type(result) is int


@pytest.mark.parametrize(
    ("typed", "code"),
    [
        ("", "required"),
        ("abc", "invalid_amount"),
        ("12,345,6", "invalid_amount"),
        ("1.234.56", "invalid_amount"),
        ("1,2.34", "invalid_amount"),
        ("12.3.4", "invalid_amount"),
        ("12,34 reais", "invalid_amount"),
        ("1e3", "invalid_amount"),
        ("-5", "not_positive"),
        ("- 5,00", "not_positive"),
        ("0,00", "not_positive"),
        ("0", "not_positive"),
        ("NaN", "invalid_amount"),
        ("١٢", "invalid_amount"),  # Arabic-Indic digits are not money here
    ],
)
def test_garbage_and_non_positive_amounts_are_refused_with_a_reason(typed, code):
    with pytest.raises(ValidationError) as raised:
        parse_money(typed)
    assert raised.value.code == code


def test_form_refuses_more_than_refundable_and_names_the_maximum():
    form = RefundAmountForm(
        {"amount": "12,35", "confirmation": "a" * 32}, maximum=1234, currency="BRL"
    )

    assert not form.is_valid()
    assert form.errors["amount"] == ["Enter at most R$ 12.34: the most that can still be refunded."]


def test_form_accepts_up_to_refundable():
    form = RefundAmountForm({"amount": "12.34", "confirmation": "a" * 32}, maximum=1234)

    assert form.is_valid(), form.errors
    assert form.cleaned_data["amount"] == 1234


def test_form_needs_the_confirmation_id_of_its_page():
    form = RefundAmountForm({"amount": "1,00", "confirmation": "<script>"}, maximum=1234)

    assert not form.is_valid()
    assert "confirmation" in form.errors


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("50,01", "Enter at most R$ 50.00: the most that can still be refunded."),
        ("-1", "Enter an amount greater than zero."),
        ("cinco reais", "Enter an amount of money such as 12,34 or 12.34."),
        ("", "Enter an amount."),
    ],
)
def test_partial_refund_page_shows_the_error_and_refunds_nothing(typed, message):
    # 80.00 paid, 30.00 refunded already: 50.00 is what remains refundable.
    charge = ChargeFactory(amount_value=8000, amount_refunded=3000)
    client = client_for(make_user("refunder", "view_charge", "cancel_charge"))
    page = post_action(client, "charge", "refund_charges_partially", [charge])

    response = post_action(
        client,
        "charge",
        "refund_charges_partially",
        [charge],
        confirm={**confirmation_fields(page), "amount": typed},
    )

    assert response.status_code == 200  # the page again, not a redirect
    assert response.context["form"].errors["amount"] == [message]
    assert message in response.content.decode()
    charge.refresh_from_db()
    assert (charge.status, charge.amount_refunded, charge.data) == (
        "PAID",
        3000,
        Charge.objects.get(pk=charge.pk).data,
    )


@pytest.mark.django_db
def test_partial_refund_of_several_charges_fits_the_smallest_refundable():
    big = ChargeFactory(amount_value=10000)
    small = ChargeFactory(amount_value=2000, amount_refunded=500)
    client = client_for(make_user("refunder", "view_charge", "cancel_charge"))
    page = post_action(client, "charge", "refund_charges_partially", [big, small])

    response = post_action(
        client,
        "charge",
        "refund_charges_partially",
        [big, small],
        confirm={**confirmation_fields(page), "amount": "15,01"},
    )

    assert response.context["form"].errors["amount"] == [
        "Enter at most R$ 15.00: the most that can still be refunded."
    ]
