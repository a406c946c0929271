"""The validation toolkit: every bad field is the provider's error naming that field."""

from __future__ import annotations

import copy

import pytest

from django_orderpay.emulator.state import validation as v
from django_orderpay.emulator.state.errors import ProviderError
from django_orderpay.testing import samples

CUSTOMER = samples.customer()
ITEMS = samples.items()
SHIPPING = samples.shipping()


def error_of(call, *args, **kwargs) -> tuple[str, str | None]:
    with pytest.raises(ProviderError) as caught:
        call(*args, **kwargs)
    assert caught.value.status == 400
    return caught.value.code, caught.value.parameter_name


def changed(base, dotted: str, value):
    """A deep copy of ``base`` with the field at ``dotted`` (``phones.0.area``) set or deleted."""
    data = copy.deepcopy(base)
    *parents, last = dotted.split(".")
    target = data
    for part in parents:
        target = target[int(part)] if isinstance(target, list) else target[part]
    key = int(last) if isinstance(target, list) else last
    if value is DELETE:
        del target[key]
    else:
        target[key] = value
    return data


DELETE = object()


def test_the_samples_objects_are_valid():
    v.validate_customer(CUSTOMER, "customer")
    v.validate_items(ITEMS, "items")
    v.validate_shipping(SHIPPING, "shipping")
    assert v.validate_amount(samples.charge_request()["amount"], "charges[0].amount") == 500
    v.validate_holder(samples.card()["holder"], "holder")
    v.validate_notification_urls(samples.order_request()["notification_urls"])


@pytest.mark.parametrize(
    ("field", "value", "code", "parameter_name"),
    [
        ("name", DELETE, "40001", "customer.name"),
        ("name", None, "40001", "customer.name"),
        ("name", "", "40002", "customer.name"),
        ("name", "x" * 121, "40002", "customer.name"),
        ("name", 12, "40002", "customer.name"),
        ("name", ["Jose"], "40002", "customer.name"),
        ("email", "a@b.co", "40002", "customer.email"),
        ("email", "not-an-email-address", "40002", "customer.email"),
        ("tax_id", 12345678909, "40002", "customer.tax_id"),
        ("tax_id", "123.456.789-09", "40002", "customer.tax_id"),
        ("phones", {"area": "11"}, "40002", "customer.phones"),
        ("phones.0", "11999999999", "40002", "customer.phones[0]"),
        ("phones.0.area", "011", "40002", "customer.phones[0].area"),
        ("phones.0.number", "9999999", "40002", "customer.phones[0].number"),
        ("phones.0.number", 999999999, "40002", "customer.phones[0].number"),
        ("phones.0.type", "FAX", "40002", "customer.phones[0].type"),
        ("phones.0.country", DELETE, "40001", "customer.phones[0].country"),
        ("phones.0.extension", "12", "40003", "customer.phones[0].extension"),
        ("nickname", "Ze", "40003", "customer.nickname"),
    ],
)
def test_customer_errors_name_the_field(field, value, code, parameter_name):
    customer = changed(CUSTOMER, field, value)
    assert error_of(v.validate_customer, customer, "customer") == (code, parameter_name)


@pytest.mark.parametrize("value", [None, "Jose", [CUSTOMER], 7])
def test_customer_of_the_wrong_type(value):
    expected = "40001" if value is None else "40002"
    assert error_of(v.validate_customer, value, "customer") == (expected, "customer")


@pytest.mark.parametrize(
    ("field", "value", "code", "parameter_name"),
    [
        ("0.name", DELETE, "40001", "items[0].name"),
        ("0.name", "x" * 201, "40002", "items[0].name"),
        ("0.quantity", 0, "40002", "items[0].quantity"),
        ("0.quantity", 100000, "40002", "items[0].quantity"),
        ("0.quantity", "1", "40002", "items[0].quantity"),
        ("0.quantity", 1.0, "40002", "items[0].quantity"),
        ("0.quantity", True, "40002", "items[0].quantity"),
        ("0.unit_amount", 1_000_000_000, "40002", "items[0].unit_amount"),
        ("0.unit_amount", -5, "40002", "items[0].unit_amount"),
        ("0.reference_id", "r" * 256, "40002", "items[0].reference_id"),
        ("0.price", 5, "40003", "items[0].price"),
    ],
)
def test_item_errors_name_the_field(field, value, code, parameter_name):
    assert error_of(v.validate_items, changed(ITEMS, field, value), "items") == (
        code,
        parameter_name,
    )


def test_items_must_be_a_non_empty_list_and_reference_id_is_optional():
    assert error_of(v.validate_items, [], "items") == ("40002", "items")
    assert error_of(v.validate_items, ITEMS[0], "items") == ("40002", "items")
    assert error_of(v.validate_items, None, "items") == ("40001", "items")
    assert error_of(v.validate_items, [*ITEMS, "sku-2"], "items") == ("40002", "items[1]")
    v.validate_items([{"name": "Camiseta", "quantity": 2, "unit_amount": 750}], "items")


@pytest.mark.parametrize(
    ("field", "value", "code", "parameter_name"),
    [
        ("address", DELETE, "40001", "shipping.address"),
        ("address", "Rua A, 1", "40002", "shipping.address"),
        ("address.street", "s" * 161, "40002", "shipping.address.street"),
        ("address.number", DELETE, "40001", "shipping.address.number"),
        ("address.number", 1384, "40002", "shipping.address.number"),
        ("address.complement", "c" * 41, "40002", "shipping.address.complement"),
        ("address.locality", "l" * 61, "40002", "shipping.address.locality"),
        ("address.city", "", "40002", "shipping.address.city"),
        ("address.region_code", "XX", "40002", "shipping.address.region_code"),
        ("address.region_code", "sp", "40002", "shipping.address.region_code"),
        ("address.country", "BR", "40002", "shipping.address.country"),
        ("address.postal_code", "01452-002", "40002", "shipping.address.postal_code"),
        ("address.postal_code", 1452002, "40002", "shipping.address.postal_code"),
        ("address.zip", "01452002", "40003", "shipping.address.zip"),
        ("method", "PAC", "40003", "shipping.method"),
    ],
)
def test_shipping_errors_name_the_field(field, value, code, parameter_name):
    shipping = changed(SHIPPING, field, value)
    assert error_of(v.validate_shipping, shipping, "shipping") == (code, parameter_name)


@pytest.mark.parametrize(
    ("amount", "code", "parameter_name"),
    [
        (None, "40001", "charges[0].amount"),
        (500, "40002", "charges[0].amount"),
        ({}, "40001", "charges[0].amount.value"),
        ({"value": "500"}, "40002", "charges[0].amount.value"),
        ({"value": 0}, "40002", "charges[0].amount.value"),
        ({"value": 1_000_000_000}, "40002", "charges[0].amount.value"),
        ({"value": 500, "currency": "USD"}, "40002", "charges[0].amount.currency"),
        ({"value": 500, "summary": {}}, "40003", "charges[0].amount.summary"),
    ],
)
def test_amount_errors_name_the_field(amount, code, parameter_name):
    assert error_of(v.validate_amount, amount, "charges[0].amount") == (code, parameter_name)


def test_amount_without_currency_and_with_narrowed_bounds():
    assert v.validate_amount({"value": 999_999_999}, "amount") == 999_999_999
    assert error_of(v.validate_amount, {"value": 600}, "amount", maximum=500) == (
        "40002",
        "amount.value",
    )


@pytest.mark.parametrize(
    ("holder", "code", "parameter_name"),
    [
        ({"name": "J" * 31}, "40002", "card.holder.name"),
        ({"name": "Jose 2"}, "40002", "card.holder.name"),
        ({"name": "   "}, "40002", "card.holder.name"),
        ({"tax_id": "12345678909"}, "40001", "card.holder.name"),
        ({"name": "Jose", "tax_id": "1"}, "40002", "card.holder.tax_id"),
        ({"name": "Jose", "birth_date": "1990-01-01"}, "40003", "card.holder.birth_date"),
        ("Jose", "40002", "card.holder"),
    ],
)
def test_holder_errors_name_the_field(holder, code, parameter_name):
    assert error_of(v.validate_holder, holder, "card.holder") == (code, parameter_name)


def test_notification_urls():
    v.validate_notification_urls(None)
    v.validate_notification_urls([])
    assert error_of(v.validate_notification_urls, "https://a.example/") == (
        "40002",
        "notification_urls",
    )
    assert error_of(v.validate_notification_urls, ["ftp://b"]) == (
        "40002",
        "notification_urls[0]",
    )
    # One URL at most ("Este campo aceita apenas uma URL").
    assert error_of(v.validate_notification_urls, ["https://a.example/", "https://b.example/"]) == (
        "40002",
        "notification_urls",
    )
    assert error_of(v.validate_notification_urls, [{"url": "https://a.example/"}]) == (
        "40002",
        "notification_urls[0]",
    )


def test_generic_helpers():
    data = {"s": "abc", "i": 5, "d": "12", "b": False, "l": [1, 2], "o": {}}
    assert v.require_str(data, "s", "x", limit=(1, 3), pattern=r"[a-c]+") == "abc"
    assert error_of(v.require_str, data, "s", "x", limit=(1, 2)) == ("40002", "x.s")
    assert error_of(v.require_str, data, "s", "x", choices=("A",)) == ("40002", "x.s")
    assert v.require_str(data, "missing", "x", optional=True) is None
    assert error_of(v.require_str, data, "missing", "") == ("40001", "missing")
    assert v.require_int(data, "d", "x", digit_string=True) == 12
    assert error_of(v.require_int, data, "d", "x") == ("40002", "x.d")
    assert error_of(v.require_int, data, "i", "x", maximum=4) == ("40002", "x.i")
    assert v.require_bool(data, "b", "x") is False
    assert error_of(v.require_bool, data, "i", "x") == ("40002", "x.i")
    assert v.require_list(data, "l", "x", min_items=1, max_items=2) == [1, 2]
    assert error_of(v.require_list, data, "l", "x", max_items=1) == ("40002", "x.l")
    assert error_of(v.require_list, data, "o", "x") == ("40002", "x.o")
    assert v.require_object_field(data, "o", "x") == {}
    assert error_of(v.require_object_field, data, "l", "x") == ("40002", "x.l")
    assert error_of(v.reject_unknown, data, {"s"}, "x") == ("40003", "x.i")
    assert v.item_path(v.field_path("charges", "x"), 2) == "charges.x[2]"


@pytest.mark.parametrize("tax_id", ["65544332211", "12345678900", "12ABC34501DE36"])
def test_a_customers_or_card_holders_document_is_not_checked_for_check_digits(tax_id):
    """PagBank's card examples: the holder's CPF "65544332211" (wrong check digits), PAID."""
    customer = {"name": "Jose", "email": "jose@example.com", "tax_id": tax_id}
    v.validate_customer(customer)
    v.validate_holder({"name": "Jose", "tax_id": tax_id}, "card.holder")
