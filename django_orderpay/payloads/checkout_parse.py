"""A dict shaped as PagBank's create-checkout body -> :class:`~.checkout.CheckoutRequest`.

As for orders (:mod:`.parse`): objects where objects go, no field the
provider does not document (it would drop it silently: a typo must not
pass), then the builders' own rules; every problem at once, by path. The
enums may come in any case (PagBank's own example sends ``"credit_card"``);
a payment method listed twice, with different brands, is one method with
both, as the API answers it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django_orderpay import rules

from .checkout import (
    CardInstallments,
    CheckoutCustomer,
    CheckoutItem,
    CheckoutPaymentMethod,
    CheckoutPhone,
    CheckoutRequest,
    CheckoutShipping,
    RecurrencePlan,
    ShippingBox,
)
from .customer import Address
from .parse import ADDRESS_KEYS, _plain, _Reader, _top

CHECKOUT_KEYS = frozenset(
    {
        "reference_id",
        "expiration_date",
        "customer",
        "customer_modifiable",
        "items",
        "additional_amount",
        "discount_amount",
        "shipping",
        "payment_methods",
        "payment_methods_configs",
        "soft_descriptor",
        "redirect_url",
        "return_url",
        "notification_urls",
        "payment_notification_urls",
        "recurrence_plan",
    }
)
ITEM_KEYS = frozenset(
    {"reference_id", "name", "description", "quantity", "unit_amount", "image_url"}
)
CUSTOMER_KEYS = frozenset({"name", "email", "tax_id", "phone"})
PHONE_KEYS = frozenset({"country", "area", "number"})
SHIPPING_KEYS = frozenset(
    {"type", "service_type", "address_modifiable", "amount", "address", "box"}
)
BOX_KEYS = frozenset({"weight", "dimensions"})
DIMENSION_KEYS = frozenset(rules.BOX_DIMENSIONS)
METHOD_KEYS = frozenset({"type", "brands"})
CONFIG_KEYS = frozenset({"type", "config_options"})
OPTION_KEYS = frozenset({"option", "value"})
RECURRENCE_KEYS = frozenset({"name", "billing_cycles", "interval"})
INTERVAL_KEYS = frozenset({"unit", "length"})


def _customer(r: _Reader, data: Mapping[str, Any] | None) -> CheckoutCustomer | None:
    if data is None:
        return None
    phone = r.field(data, "phone", "customer", PHONE_KEYS)
    return CheckoutCustomer(
        name=data.get("name"),
        email=data.get("email"),
        tax_id=data.get("tax_id"),
        phone=_plain(CheckoutPhone, PHONE_KEYS, phone) if phone is not None else None,
    )


def _shipping(r: _Reader, data: Mapping[str, Any] | None) -> CheckoutShipping | None:
    if data is None:
        return None
    address = r.field(data, "address", "shipping", ADDRESS_KEYS)
    box = r.field(data, "box", "shipping", BOX_KEYS)
    built_box = None
    if box is not None:
        sides = r.field(box, "dimensions", "shipping.box", DIMENSION_KEYS) or {}
        built_box = ShippingBox(box.get("weight"), **{k: sides.get(k) for k in DIMENSION_KEYS})  # type: ignore[arg-type]
    return CheckoutShipping(
        type=data.get("type"),  # type: ignore[arg-type]
        amount=data.get("amount"),
        service_type=data.get("service_type"),
        address=_plain(Address, ADDRESS_KEYS, address) if address is not None else None,
        address_modifiable=data.get("address_modifiable"),
        box=built_box,
    )


def _methods(r: _Reader, body: Mapping[str, Any]) -> tuple[Any, ...]:
    """Each type once, the brands of its repeats merged (the API's answer)."""
    built = r.entries(
        body,
        "payment_methods",
        "",
        METHOD_KEYS,
        lambda entry, where: CheckoutPaymentMethod(
            entry.get("type"),  # type: ignore[arg-type]
            tuple(r.array(entry, "brands", where)),
        ),
    )
    merged: dict[str, CheckoutPaymentMethod] = {}
    order: list[Any] = []
    for method in built:
        if not isinstance(method, CheckoutPaymentMethod) or not isinstance(method.type, str):
            order.append(method)  # not an object: kept, for its error
            continue
        key = method.type.upper()
        if key in merged:
            seen = merged[key]
            extra = tuple(brand for brand in method.brands if brand not in seen.brands)
            merged[key] = CheckoutPaymentMethod(seen.type, seen.brands + extra)
        else:
            merged[key] = method
            order.append(key)
    return tuple(merged[key] if isinstance(key, str) else key for key in order)


def _config(r: _Reader, entry: Mapping[str, Any], where: str) -> Any:
    limit = free = None
    options = r.entries(entry, "config_options", where, OPTION_KEYS, lambda option, _: option)
    for position, option in enumerate(options):
        if not isinstance(option, Mapping):
            continue
        name = rules.canonical_enum(option.get("option"))
        value = option.get("value")
        if isinstance(value, str) and rules.is_digits(value, (1, 2)):
            value = int(value)
        spot = f"{where}.config_options[{position}].option"
        if name == "INSTALLMENTS_LIMIT" and limit is None:
            limit = value
        elif name == "INTEREST_FREE_INSTALLMENTS" and free is None:
            free = value
        elif name in rules.CHECKOUT_CONFIG_OPTIONS:
            r.problems.add(spot, "is repeated")
        else:
            r.problems.add(spot, "must be INSTALLMENTS_LIMIT or INTEREST_FREE_INSTALLMENTS")
    return CardInstallments(entry.get("type"), limit, free)  # type: ignore[arg-type]


def _recurrence(r: _Reader, data: Mapping[str, Any] | None) -> RecurrencePlan | None:
    if data is None:
        return None
    interval = r.field(data, "interval", "recurrence_plan", INTERVAL_KEYS) or {}
    return RecurrencePlan(
        name=data.get("name"),  # type: ignore[arg-type]
        billing_cycles=data.get("billing_cycles"),
        interval_unit=interval.get("unit", "MONTH"),
        interval_length=interval.get("length", 1),
    )


def checkout_from_dict(data: Any) -> CheckoutRequest:
    """A :class:`CheckoutRequest` from a create-checkout dict; raises ``PayloadError``."""
    r = _Reader()
    body = _top(r, data, CHECKOUT_KEYS)
    request = CheckoutRequest(
        items=r.entries(
            body, "items", "", ITEM_KEYS, lambda item, _: _plain(CheckoutItem, ITEM_KEYS, item)
        ),
        reference_id=body.get("reference_id"),
        expiration_date=body.get("expiration_date"),
        customer=_customer(r, r.field(body, "customer", "", CUSTOMER_KEYS)),
        customer_modifiable=body.get("customer_modifiable"),
        additional_amount=body.get("additional_amount"),
        discount_amount=body.get("discount_amount"),
        shipping=_shipping(r, r.field(body, "shipping", "", SHIPPING_KEYS)),
        payment_methods=_methods(r, body),
        payment_methods_configs=r.entries(
            body, "payment_methods_configs", "", CONFIG_KEYS, lambda e, w: _config(r, e, w)
        ),
        soft_descriptor=body.get("soft_descriptor"),
        redirect_url=body.get("redirect_url"),
        return_url=body.get("return_url"),
        notification_urls=tuple(r.array(body, "notification_urls", "")),
        payment_notification_urls=tuple(r.array(body, "payment_notification_urls", "")),
        recurrence_plan=_recurrence(r, r.field(body, "recurrence_plan", "", RECURRENCE_KEYS)),
    )
    return r.checked(request)


def validate_checkout_dict(data: Any) -> dict[str, Any]:
    """Validate a create-checkout dict as the builders would; answer the body to send."""
    return checkout_from_dict(data).body()
