"""Deeplinks: an order paid in the provider's app, and the sandbox's pay simulator rules.

One deeplink per order, valid until the end of the day after its creation
(in the provider's -03:00 day), one approved payment only; the simulator
accepts amounts from R$1.00 to R$1,500.00.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from typing import Any

from django_orderpay import rules

from ..state import errors
from ..state.clock import PROVIDER_TZ
from ..state.errors import SimulationError
from ..state.validation import (
    field_path,
    item_path,
    reject_unknown,
    require_object,
    require_str,
    validate_amount,
)

DEEPLINK_KEYS = frozenset({"amount", "redirect_url"})
#: Our prefix for deeplink ids: the provider's is undocumented (the id only
#: appears as ``r=`` in the URL and in the simulator's path).
SIMULATED_STATUSES = ("PAID", "DECLINED")


def validate_deep_links(deep_links: Any, path: str = "deep_links") -> None:
    """A list of exactly one ``{"amount": {"value": 1..999999999}, "redirect_url"?}``."""
    if deep_links is None:
        raise errors.required(path)
    if not isinstance(deep_links, list) or len(deep_links) != 1:
        raise errors.invalid(path)
    where = item_path(path, 0)
    entry = require_object(deep_links[0], where)
    reject_unknown(entry, DEEPLINK_KEYS, where)
    validate_amount(entry.get("amount"), field_path(where, "amount"))
    require_str(entry, "redirect_url", where, pattern=rules.REDIRECT_URL_PATTERN, optional=True)


@dataclass
class Deeplink:
    """A deeplink's state (mutable: ``paid`` flips on the first approved payment)."""

    id: str
    order_id: str
    amount: int
    redirect_url: str | None
    created_at: datetime
    url: str
    paid: bool = False

    @property
    def expires_at(self) -> datetime:
        """23:59:59.999 of the day after creation, in the provider's -03:00 day."""
        next_day = self.created_at.astimezone(PROVIDER_TZ).date() + timedelta(days=1)
        return datetime.combine(next_day, time(23, 59, 59, 999_000), tzinfo=PROVIDER_TZ)

    def is_expired(self, now: datetime) -> bool:
        return now > self.expires_at

    def to_response(self) -> dict[str, Any]:
        """The order's ``deep_links[]`` entry: ``url``, ``amount`` and ``redirect_url`` if sent."""
        answer: dict[str, Any] = {"url": self.url, "amount": {"value": self.amount}}
        if self.redirect_url is not None:
            answer["redirect_url"] = self.redirect_url
        return answer


def build_deeplink(
    request_entry: dict[str, Any], *, order_id: str, created_at: datetime, base_url: str
) -> Deeplink:
    """A new deeplink from a validated ``deep_links[0]`` request entry."""
    # A plain lower-case UUID, as the real deeplink's r= parameter.
    deeplink_id = str(uuid.uuid4())
    return Deeplink(
        id=deeplink_id,
        order_id=order_id,
        amount=int(request_entry["amount"]["value"]),
        redirect_url=request_entry.get("redirect_url"),
        created_at=created_at,
        url=f"{base_url}/pagpay/download?f=order&r={deeplink_id}",
    )


def check_simulation(deeplink: Deeplink, now: datetime, amount: int) -> None:
    """May the simulator pay ``deeplink`` now? 409 paid, 410 expired, 400 amount out of range.

    Paid is checked first: a paid link that later expired still says why it
    cannot be paid again.
    """
    if deeplink.paid:
        raise SimulationError.already_paid()
    if deeplink.is_expired(now):
        raise SimulationError.expired()
    low, high = rules.DEEPLINK_PAY_AMOUNT
    if not low <= amount <= high:
        raise SimulationError.bad_request("amount must be between R$1.00 and R$1,500.00")


def _simulation_body(payload: Any, key: str) -> str:
    if not isinstance(payload, dict):
        raise SimulationError.bad_request("body must be a JSON object")
    value = payload.get(key)
    if not isinstance(value, str):
        raise SimulationError.bad_request(f"{key} is required and must be a string")
    return value


def parse_balance_simulation(payload: Any) -> str:
    """``POST /pagpay/balance/{id}`` body ``{"status": "PAID" | "DECLINED"}``: the status."""
    status = _simulation_body(payload, "status")
    if status not in SIMULATED_STATUSES:
        raise SimulationError.bad_request("status must be PAID or DECLINED")
    return status


def parse_card_simulation(payload: Any) -> str:
    """``POST /pagpay/credit-card/{id}`` body ``{"card_number": "..."}``: the card number."""
    number = _simulation_body(payload, "card_number")
    if not rules.is_digits(number, range(13, 20)) or not rules.luhn_valid(number):
        raise SimulationError.bad_request("card_number is not a valid card number")
    return number
