"""An order answer (with its charges and deeplink), and a split record."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ...models import SplitMethod
from ...models.orders import PROVIDER_TIMEZONE, deeplink_expiry
from .charges import ChargeState, parse_charge
from .fields import (
    SyncError,
    cents,
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
class DeeplinkState:
    deeplink_id: str
    columns: dict[str, Any]


@dataclass(frozen=True)
class OrderState:
    provider_id: str
    columns: dict[str, Any]
    charges: tuple[ChargeState, ...]
    deeplink: DeeplinkState | None
    data: dict[str, Any] = field(repr=False)


def _parse_deeplink(
    order: Mapping[str, Any], created_at: dt.datetime | None
) -> DeeplinkState | None:
    links = order.get("deep_links")
    if not links:
        return None
    if not isinstance(links, list):
        raise SyncError("deep_links", "must be a list")
    path = "deep_links[0]"
    link = object_at(links[0], path)
    url = text(link, "url", path, max_length=1000)
    deeplink_id = (parse_qs(urlsplit(url).query).get("r") or [""])[0]
    if not deeplink_id:
        raise SyncError(join(path, "url"), "has no r= deeplink id")
    amount = object_at(link.get("amount"), join(path, "amount"))
    columns = {
        "url": url,
        "amount_value": cents(amount, "value", join(path, "amount")),
        "redirect_url": text(link, "redirect_url", path, max_length=1000),
        # No creation time on the link itself: it is created with the order.
        "expires_at": deeplink_expiry(created_at or dt.datetime.now(PROVIDER_TIMEZONE)),
        "data": dict(link),
    }
    return DeeplinkState(deeplink_id=deeplink_id, columns=columns)


def parse_order(payload: Any) -> OrderState:
    """Validate an Order answer (create, pay, GET or a notification body)."""
    order = object_at(storable(payload), "")
    charges = order.get("charges") or []
    if not isinstance(charges, list):
        raise SyncError("charges", "must be a list")
    customer = optional_object(order, "customer", "")
    created_at = timestamp(order, "created_at", "")
    parsed = tuple(parse_charge(charge, f"charges[{i}]") for i, charge in enumerate(charges))
    ids = [charge.provider_id for charge in parsed]
    if len(set(ids)) != len(ids):
        raise SyncError("charges", "the same charge id appears twice")
    columns = {
        "reference_id": text(order, "reference_id", "", max_length=64),
        "customer_name": text(customer, "name", "customer", max_length=120),
        "customer_email": text(customer, "email", "customer", max_length=255),
        "customer_tax_id": text(customer, "tax_id", "customer", max_length=14),
        "created_at": created_at,
    }
    data = dict(order)
    data["charges"] = [charge.data for charge in parsed]
    return OrderState(
        provider_id=provider_id(order, "id", "", "ORDE_"),
        columns=columns,
        charges=parsed,
        deeplink=_parse_deeplink(order, created_at),
        data=data,
    )


@dataclass(frozen=True)
class SplitState:
    provider_id: str
    columns: dict[str, Any]


def parse_split(payload: Any) -> SplitState:
    """Validate a Split answer (``GET /splits/{id}``)."""
    split = object_at(storable(payload), "")
    columns = {
        "method": choice(split, "method", "", SplitMethod),
        "status": text(split, "status", "", max_length=32),
        "created_at": timestamp(split, "created_at", ""),
        "data": dict(split),
    }
    return SplitState(provider_id=provider_id(split, "id", "", "SPLI_"), columns=columns)
