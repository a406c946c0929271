"""A Checkout answer (create, GET, activate, inactivate, a notification) -> its columns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...models.base import link_href
from ...models.checkouts import CheckoutStatus
from .fields import (
    SyncError,
    choice,
    join,
    object_at,
    optional_object,
    provider_id,
    storable,
    text,
    timestamp,
)


@dataclass(frozen=True)
class CheckoutState:
    """A checked checkout: its columns, its JSON (without the orders), and its orders."""

    provider_id: str
    columns: dict[str, Any]
    data: dict[str, Any]
    #: The orders it lists (``GET``), as the provider wrote them.
    orders: tuple[Mapping[str, Any], ...]


def _whole(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def amount_of(checkout: Mapping[str, Any]) -> int:
    """What its page charges before card interest: items, additional amount and shipping,
    less the discount (a value that is not a whole number counts as nothing)."""
    items = 0
    for item in checkout.get("items") or ():
        if isinstance(item, Mapping):
            items += _whole(item.get("quantity")) * _whole(item.get("unit_amount"))
    shipping = optional_object(checkout, "shipping", "")
    total = (
        items
        + _whole(checkout.get("additional_amount"))
        + _whole(shipping.get("amount"))
        - _whole(checkout.get("discount_amount"))
    )
    return max(total, 0)


def parse_checkout(payload: Any) -> CheckoutState:
    """Validate a Checkout answer; :class:`SyncError` naming the field that is wrong."""
    checkout = object_at(storable(payload), "")
    orders = checkout.get("orders") or []
    if not isinstance(orders, list):
        raise SyncError("orders", "must be a list")
    for position, order in enumerate(orders):
        provider_id(
            object_at(order, join("orders", position)), "id", join("orders", position), "ORDE_"
        )
    columns = {
        "reference_id": text(checkout, "reference_id", "", max_length=64),
        "status": choice(checkout, "status", "", CheckoutStatus),
        "pay_url": text(
            {"href": link_href(dict(checkout), rel="PAY") or ""}, "href", "links", max_length=1000
        ),
        "amount_value": amount_of(checkout),
        "expires_at": timestamp(checkout, "expiration_date", ""),
        "created_at": timestamp(checkout, "created_at", ""),
    }
    data = {key: value for key, value in checkout.items() if key != "orders"}
    return CheckoutState(
        provider_id=provider_id(checkout, "id", "", "CHEC_"),
        columns=columns,
        data=data,
        orders=tuple(orders),
    )
