"""Provider JSON -> frozen, validated values (no database here).

Every problem is a :class:`SyncError` naming the field path the way the
provider names it (``charges[0].amount.value``), never a ``KeyError``.
"""

from __future__ import annotations

import copy
import datetime as dt
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from django.utils.dateparse import parse_datetime

from ..models import ChargeStatus, RecurringType, SplitMethod, effective_charge_status
from ..models.orders import PROVIDER_TIMEZONE, deeplink_expiry
from ..redaction import CARD_SECRET_KEYS

logger = logging.getLogger("django_orderpay.sync")

#: The columns that hold the provider's enumerations (statuses, types, methods).
ENUM_LENGTH = 32
#: What no database text column (PostgreSQL's NUL) or UTF-8 (a lone surrogate) can hold.
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def storable(value: Any) -> Any:
    """``value`` with every character the database can't store replaced by U+FFFD.

    The provider's text is mirrored whatever it holds: a NUL in a customer's
    name must not fail every sync of the order (a notification retried
    forever, an order charged and never mirrored).
    """
    if isinstance(value, str):
        return UNSTORABLE.sub(REPLACEMENT, value) if UNSTORABLE.search(value) else value
    if isinstance(value, Mapping):
        return {storable(key): storable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [storable(item) for item in value]
    return value


class SyncError(ValueError):
    """Provider JSON that cannot be mirrored; ``field`` is the offending path."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}" if field else message)


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _object(value: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise SyncError(path or "body", "must be a JSON object")
    return value


def _optional_object(parent: Mapping[str, Any], key: str, path: str) -> Mapping[str, Any]:
    value = parent.get(key)
    return {} if value is None else _object(value, _join(path, key))


def _text(
    parent: Mapping[str, Any], key: str, path: str, *, max_length: int = 255, strict: bool = False
) -> str:
    """A text field; longer than its column, it is cut there (``data`` keeps it whole).

    ``strict``: too long is a :class:`SyncError` instead (an id cut short would
    name another object). A provider that sends more than we expected must
    not make an order unmirrorable (a notification retried forever).
    """
    value = parent.get(key)
    if value is None:
        return ""
    if not isinstance(value, str | int) or isinstance(value, bool):
        raise SyncError(_join(path, key), "must be a string")
    text = str(value)
    if len(text) > max_length:
        if strict:
            raise SyncError(_join(path, key), f"longer than {max_length} characters")
        logger.warning("sync: %s is longer than %d characters; cut", _join(path, key), max_length)
        text = text[:max_length]
    return text


def _provider_id(parent: Mapping[str, Any], key: str, path: str, prefix: str) -> str:
    value = _text(parent, key, path, max_length=64, strict=True)
    if not value.startswith(prefix):
        raise SyncError(_join(path, key), f"must be a provider id starting with {prefix}")
    return value


def _cents(parent: Mapping[str, Any], key: str, path: str, default: int | None = None) -> int:
    value = parent.get(key)
    if value is None and default is not None:
        return default
    # The provider sends integers; receivers' amounts arrive as digit strings.
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise SyncError(_join(path, key), "must be a non-negative integer amount in cents")
    return value


def _timestamp(parent: Mapping[str, Any], key: str, path: str) -> dt.datetime | None:
    value = parent.get(key)
    if value in (None, ""):
        return None
    try:
        parsed = parse_datetime(value) if isinstance(value, str) else None
    except ValueError:  # well formed but impossible, e.g. month 13
        parsed = None
    if parsed is None:
        raise SyncError(_join(path, key), "must be an ISO 8601 timestamp")
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=PROVIDER_TIMEZONE)
    return parsed


def _choice(parent: Mapping[str, Any], key: str, path: str, choices: Any) -> str:
    """One of ``choices``, or a value this version does not know yet, kept as text.

    The provider documents more values than we model (``recurring.type``
    ``UNSCHEDULED`` and ``STANDING ORDER``) and will add more: an unknown one
    is stored as it is, with a warning, never refused.
    """
    value = _text(parent, key, path, max_length=ENUM_LENGTH)
    if value and value not in choices.values:
        logger.warning(
            "sync: %s is a value this version does not know: %r", _join(path, key), value
        )
    return value


def _scrubbed(charge: Mapping[str, Any]) -> dict[str, Any]:
    data = copy.deepcopy(dict(charge))
    card = (data.get("payment_method") or {}).get("card")
    if isinstance(card, dict):
        for key in CARD_SECRET_KEYS:
            card.pop(key, None)
    return data


@dataclass(frozen=True)
class CardState:
    """``payment_method.card`` of a charge answer."""

    token_id: str
    store: bool
    brand: str
    first_digits: str
    last_digits: str
    exp_month: str
    exp_year: str
    holder_name: str
    data: dict[str, Any]


@dataclass(frozen=True)
class ChargeState:
    """One charge as the provider answered it; ``columns`` maps to ``Charge``."""

    provider_id: str
    status: str
    columns: dict[str, Any]
    card: CardState | None
    split_id: str
    data: dict[str, Any] = field(repr=False)

    @property
    def amount_paid(self) -> int:
        return self.columns["amount_paid"]

    @property
    def amount_refunded(self) -> int:
        return self.columns["amount_refunded"]

    @property
    def effective_status(self) -> str:
        return effective_charge_status(self.status, self.amount_paid, self.amount_refunded)


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


def _parse_card(method: Mapping[str, Any], path: str) -> CardState | None:
    card = _optional_object(method, "card", path)
    if not card:
        return None
    card_path = _join(path, "card")
    token_id = _text(card, "id", card_path, max_length=64)
    if token_id and not token_id.startswith("CARD_"):
        raise SyncError(_join(card_path, "id"), "must be a provider id starting with CARD_")
    holder = _optional_object(card, "holder", card_path)
    data = {k: v for k, v in card.items() if k not in CARD_SECRET_KEYS}
    return CardState(
        token_id=token_id,
        store=card.get("store") is True or method.get("store") is True,
        brand=_text(card, "brand", card_path, max_length=20).lower(),
        first_digits=_text(card, "first_digits", card_path, max_length=6),
        last_digits=_text(card, "last_digits", card_path, max_length=4),
        exp_month=_text(card, "exp_month", card_path, max_length=2),
        exp_year=_text(card, "exp_year", card_path, max_length=4),
        holder_name=_text(holder, "name", _join(card_path, "holder"), max_length=120),
        data=data,
    )


def _split_id(charge: Mapping[str, Any], path: str) -> str:
    for index, link in enumerate(charge.get("links") or ()):
        if isinstance(link, Mapping) and link.get("rel") == "SPLIT":
            href = _text(link, "href", _join(_join(path, "links"), index), max_length=1000)
            split_id = href.rstrip("/").rsplit("/", 1)[-1]
            if not split_id.startswith("SPLI_"):
                raise SyncError(_join(_join(path, "links"), index), "SPLIT href has no SPLI_ id")
            return split_id
    return ""


def parse_charge(payload: Any, path: str = "") -> ChargeState:
    """Validate one charge object of an answer."""
    charge = _object(payload if path else storable(payload), path)
    status = _choice(charge, "status", path, ChargeStatus)
    if not status:
        raise SyncError(_join(path, "status"), "is required")
    amount = _object(charge.get("amount"), _join(path, "amount"))
    amount_path = _join(path, "amount")
    value = _cents(amount, "value", amount_path)
    summary = _optional_object(amount, "summary", amount_path)
    summary_path = _join(amount_path, "summary")
    # The spec: a PAID charge carries summary.paid equal to its amount; use
    # that if an answer ever omits the summary.
    paid_default = value if status == ChargeStatus.PAID else 0
    method = _optional_object(charge, "payment_method", path)
    method_path = _join(path, "payment_method")
    response = _optional_object(charge, "payment_response", path)
    response_path = _join(path, "payment_response")
    recurring = _optional_object(charge, "recurring", path)
    splits = _optional_object(charge, "splits", path)
    card = _parse_card(method, method_path)
    # Free text of unknown length: the column gets its start, data keeps it all.
    message = _text(response, "message", response_path, max_length=4096)
    installments = method.get("installments", 1)
    if not isinstance(installments, int) or isinstance(installments, bool) or installments < 1:
        raise SyncError(_join(method_path, "installments"), "must be a positive integer")
    columns = {
        "reference_id": _text(charge, "reference_id", path, max_length=64),
        "status": status,
        "amount_value": value,
        "amount_paid": _cents(summary, "paid", summary_path, default=paid_default),
        "amount_refunded": _cents(summary, "refunded", summary_path, default=0),
        "currency": _text(amount, "currency", amount_path, max_length=3) or "BRL",
        "installments": installments,
        "capture": method.get("capture") is not False,
        "capture_before": _timestamp(method, "capture_before", method_path),
        "payment_response_code": _text(response, "code", response_path, max_length=16),
        "payment_response_message": message[:255],
        "card_brand": card.brand if card else "",
        "card_first_digits": card.first_digits if card else "",
        "card_last_digits": card.last_digits if card else "",
        "recurring_type": _choice(recurring, "type", _join(path, "recurring"), RecurringType),
        "brand_reference_id": _text(response, "brand_reference_id", response_path, max_length=64),
        "split_method": _choice(splits, "method", _join(path, "splits"), SplitMethod),
        "paid_at": _timestamp(charge, "paid_at", path),
        "created_at": _timestamp(charge, "created_at", path),
    }
    return ChargeState(
        provider_id=_provider_id(charge, "id", path, "CHAR_"),
        status=status,
        columns=columns,
        card=card,
        split_id=_split_id(charge, path),
        data=_scrubbed(charge),
    )


def _parse_deeplink(
    order: Mapping[str, Any], created_at: dt.datetime | None
) -> DeeplinkState | None:
    links = order.get("deep_links")
    if not links:
        return None
    if not isinstance(links, list):
        raise SyncError("deep_links", "must be a list")
    path = "deep_links[0]"
    link = _object(links[0], path)
    url = _text(link, "url", path, max_length=1000)
    deeplink_id = (parse_qs(urlsplit(url).query).get("r") or [""])[0]
    if not deeplink_id:
        raise SyncError(_join(path, "url"), "has no r= deeplink id")
    amount = _object(link.get("amount"), _join(path, "amount"))
    columns = {
        "url": url,
        "amount_value": _cents(amount, "value", _join(path, "amount")),
        "redirect_url": _text(link, "redirect_url", path, max_length=1000),
        # No creation time on the link itself: it is created with the order.
        "expires_at": deeplink_expiry(created_at or dt.datetime.now(PROVIDER_TIMEZONE)),
        "data": dict(link),
    }
    return DeeplinkState(deeplink_id=deeplink_id, columns=columns)


def parse_order(payload: Any) -> OrderState:
    """Validate an Order answer (create, pay, GET or a notification body)."""
    order = _object(storable(payload), "")
    charges = order.get("charges") or []
    if not isinstance(charges, list):
        raise SyncError("charges", "must be a list")
    customer = _optional_object(order, "customer", "")
    created_at = _timestamp(order, "created_at", "")
    parsed = tuple(parse_charge(charge, f"charges[{i}]") for i, charge in enumerate(charges))
    ids = [charge.provider_id for charge in parsed]
    if len(set(ids)) != len(ids):
        raise SyncError("charges", "the same charge id appears twice")
    columns = {
        "reference_id": _text(order, "reference_id", "", max_length=64),
        "customer_name": _text(customer, "name", "customer", max_length=120),
        "customer_email": _text(customer, "email", "customer", max_length=255),
        "customer_tax_id": _text(customer, "tax_id", "customer", max_length=14),
        "created_at": created_at,
    }
    data = dict(order)
    data["charges"] = [charge.data for charge in parsed]
    return OrderState(
        provider_id=_provider_id(order, "id", "", "ORDE_"),
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
    split = _object(storable(payload), "")
    columns = {
        "method": _choice(split, "method", "", SplitMethod),
        "status": _text(split, "status", "", max_length=32),
        "created_at": _timestamp(split, "created_at", ""),
        "data": dict(split),
    }
    return SplitState(provider_id=_provider_id(split, "id", "", "SPLI_"), columns=columns)
