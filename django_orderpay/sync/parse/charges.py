"""A charge answer: its status, sums, card, recurrence, split and method."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...models import (
    ChargeStatus,
    PaymentMethodType,
    RecurringType,
    SplitMethod,
    effective_charge_status,
)
from ...redaction import CARD_SECRET_KEYS
from .fields import (
    SyncError,
    cents,
    choice,
    day,
    join,
    object_at,
    optional_object,
    provider_id,
    storable,
    text,
    timestamp,
)


def _scrubbed(charge: Mapping[str, Any]) -> dict[str, Any]:
    """``charge`` without the card's secrets: copied along that path only, the answer untouched."""
    data = dict(charge)
    method = data.get("payment_method")
    card = method.get("card") if isinstance(method, Mapping) else None
    if isinstance(card, Mapping) and any(key in card for key in CARD_SECRET_KEYS):
        kept = {key: value for key, value in card.items() if key not in CARD_SECRET_KEYS}
        data["payment_method"] = {**method, "card": kept}  # type: ignore[dict-item]
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


def parse_stored_card(answer: Mapping[str, Any]) -> CardState:
    """The answer of ``POST /tokens/cards`` (a card object with its ``id``), as a stored card."""
    card = _parse_card({"card": {**answer, "store": True}}, "")
    if card is None or not card.token_id:
        raise SyncError("id", "the stored card's answer has no CARD_ id")
    return card


def _parse_card(method: Mapping[str, Any], path: str) -> CardState | None:
    card = optional_object(method, "card", path)
    if not card:
        return None
    card_path = join(path, "card")
    token_id = text(card, "id", card_path, max_length=64)
    if token_id and not token_id.startswith("CARD_"):
        raise SyncError(join(card_path, "id"), "must be a provider id starting with CARD_")
    holder = optional_object(card, "holder", card_path)
    data = {k: v for k, v in card.items() if k not in CARD_SECRET_KEYS}
    return CardState(
        token_id=token_id,
        store=card.get("store") is True or method.get("store") is True,
        brand=text(card, "brand", card_path, max_length=20).lower(),
        first_digits=text(card, "first_digits", card_path, max_length=6),
        last_digits=text(card, "last_digits", card_path, max_length=4),
        exp_month=text(card, "exp_month", card_path, max_length=2),
        exp_year=text(card, "exp_year", card_path, max_length=4),
        holder_name=text(holder, "name", join(card_path, "holder"), max_length=120),
        data=data,
    )


def _split_id(charge: Mapping[str, Any], path: str) -> str:
    for index, link in enumerate(charge.get("links") or ()):
        if isinstance(link, Mapping) and link.get("rel") == "SPLIT":
            href = text(link, "href", join(join(path, "links"), index), max_length=1000)
            split_id = href.rstrip("/").rsplit("/", 1)[-1]
            if not split_id.startswith("SPLI_"):
                raise SyncError(join(join(path, "links"), index), "SPLIT href has no SPLI_ id")
            return split_id
    return ""


def parse_charge(payload: Any, path: str = "") -> ChargeState:
    """Validate one charge object of an answer."""
    charge = object_at(payload if path else storable(payload), path)
    status = choice(charge, "status", path, ChargeStatus)
    if not status:
        raise SyncError(join(path, "status"), "is required")
    amount = object_at(charge.get("amount"), join(path, "amount"))
    amount_path = join(path, "amount")
    value = cents(amount, "value", amount_path)
    summary = optional_object(amount, "summary", amount_path)
    summary_path = join(amount_path, "summary")
    # The spec: a PAID charge carries summary.paid equal to its amount; use
    # that if an answer ever omits the summary.
    paid_default = value if status == ChargeStatus.PAID else 0
    method = optional_object(charge, "payment_method", path)
    method_path = join(path, "payment_method")
    response = optional_object(charge, "payment_response", path)
    response_path = join(path, "payment_response")
    recurring = optional_object(charge, "recurring", path)
    splits = optional_object(charge, "splits", path)
    card = _parse_card(method, method_path)
    boleto = optional_object(method, "boleto", method_path)
    # Free text of unknown length: the column gets its start, data keeps it all.
    message = text(response, "message", response_path, max_length=4096)
    installments = method.get("installments", 1)
    if not isinstance(installments, int) or isinstance(installments, bool) or installments < 1:
        raise SyncError(join(method_path, "installments"), "must be a positive integer")
    columns = {
        "reference_id": text(charge, "reference_id", path, max_length=64),
        "status": status,
        "amount_value": value,
        "amount_paid": cents(summary, "paid", summary_path, default=paid_default),
        "amount_refunded": cents(summary, "refunded", summary_path, default=0),
        "currency": text(amount, "currency", amount_path, max_length=3) or "BRL",
        "installments": installments,
        "payment_method": choice(method, "type", method_path, PaymentMethodType),
        "due_date": day(boleto, "due_date", join(method_path, "boleto")),
        "capture": method.get("capture") is not False,
        "capture_before": timestamp(method, "capture_before", method_path),
        "payment_response_code": text(response, "code", response_path, max_length=16),
        "payment_response_message": message[:255],
        "card_brand": card.brand if card else "",
        "card_first_digits": card.first_digits if card else "",
        "card_last_digits": card.last_digits if card else "",
        "recurring_type": choice(recurring, "type", join(path, "recurring"), RecurringType),
        "brand_reference_id": text(response, "brand_reference_id", response_path, max_length=64),
        "split_method": choice(splits, "method", join(path, "splits"), SplitMethod),
        "paid_at": timestamp(charge, "paid_at", path),
        "created_at": timestamp(charge, "created_at", path),
    }
    return ChargeState(
        provider_id=provider_id(charge, "id", path, "CHAR_"),
        status=status,
        columns=columns,
        card=card,
        split_id=_split_id(charge, path),
        data=_scrubbed(charge),
    )
