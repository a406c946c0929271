"""An order answer (with its charges and deeplink), and a split record."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ...models import SplitMethod
from ...models.base import link_href
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
class QrCodeState:
    """One of ``qr_codes`` (a Pix QR code); ``columns`` maps to ``QrCode``."""

    provider_id: str
    columns: dict[str, Any]


@dataclass(frozen=True)
class OrderState:
    provider_id: str
    columns: dict[str, Any]
    charges: tuple[ChargeState, ...]
    deeplink: DeeplinkState | None
    data: dict[str, Any] = field(repr=False)
    qr_codes: tuple[QrCodeState, ...] = ()


def _parse_qr_codes(order: Mapping[str, Any]) -> tuple[QrCodeState, ...]:
    entries = order.get("qr_codes") or []
    if not isinstance(entries, list):
        raise SyncError("qr_codes", "must be a list")
    found = []
    for position, entry in enumerate(entries):
        path = f"qr_codes[{position}]"
        qr_code = object_at(entry, path)
        amount = object_at(qr_code.get("amount"), join(path, "amount"))
        columns = {
            "amount_value": cents(amount, "value", join(path, "amount")),
            # The BR Code is a few hundred characters: the column holds it whole.
            "text": text(qr_code, "text", path, max_length=100_000),
            "image_url": link_href(dict(qr_code), rel="QRCODE.PNG") or "",
            "expires_at": timestamp(qr_code, "expiration_date", path),
            "data": dict(qr_code),
        }
        found.append(QrCodeState(provider_id(qr_code, "id", path, "QRCO_"), columns))
    return tuple(found)


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
        qr_codes=_parse_qr_codes(order),
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
