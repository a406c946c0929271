"""Installment plans with their interest (``GET /charges/fees/calculate``), cached by BIN.

The plans depend on the amount, the card's BIN (its brand) and the merchant's
choices, and change rarely: like the official plugins, the answer is kept 15
minutes in Django's cache, keyed by those and by the account, so a checkout
that asks again as the shopper types does not call the provider each time.
A refusal for a BIN (``ProviderError``: an unknown BIN, fees not configured)
is kept as long: asking again would only be refused again, and anyone can
make the checkout ask. An unreachable provider is not kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.cache import cache

from django_orderpay import payloads, rules
from django_orderpay.client import OrderPayClient
from django_orderpay.conf import get_settings
from django_orderpay.exceptions import (
    FieldError,
    PayloadError,
    ProviderError,
    ProviderUnavailable,
)
from django_orderpay.models import ConnectedAccount

from ._common import account_key, check_account, check_amount, client_or_default

#: How long plans are reused (the official WooCommerce plugin's 15 minutes).
PLANS_TTL = 15 * 60
#: Part of every key: :func:`clear_installment_plans_cache` moves it on, so older
#: entries are never read again (a cache backend cannot delete by prefix).
_generation = [0]


def clear_installment_plans_cache() -> None:
    """Forget the cached plans of this process (tests; or after the fees changed)."""
    _generation[0] += 1


@dataclass(frozen=True)
class InstallmentPlan:
    """One choice: ``installments`` of ``installment_value`` cents; ``total`` includes
    ``interest`` (0 when the merchant absorbs it), which the buyer pays on
    ``interest_installments`` of them: those past the ones the merchant absorbs (PagBank's
    example, 8x with 4 interest-free: 4; its 5x plan: 1)."""

    installments: int
    installment_value: int
    total: int
    interest: int
    interest_installments: int = 0

    @property
    def interest_free(self) -> bool:
        return self.interest == 0

    def amount(self) -> payloads.Amount:
        """The charge's ``amount`` for this plan: the total, with the buyer's interest and the
        installments it is paid on, as the plan said (``amount.fees.buyer.interest``)."""
        if not self.interest:
            return payloads.Amount(self.total)
        fees = payloads.BuyerInterest(self.interest, self.interest_installments)
        return payloads.Amount(self.total, fees=fees)


def _plans(answer: Any, no_interest: int) -> list[InstallmentPlan]:
    credit = (answer or {}).get("payment_methods", {}).get("credit_card", {})
    brand: dict[str, Any] = next(iter(credit.values()), {}) if isinstance(credit, dict) else {}
    plans = []
    for entry in brand.get("installment_plans") or []:
        amount = entry.get("amount") or {}
        interest = ((amount.get("fees") or {}).get("buyer") or {}).get("interest") or {}
        installments = int(entry["installments"])
        total = int(interest.get("total") or 0)
        # A plan that does not say on how many installments (none seen) bears interest on
        # those the merchant does not absorb, as the documented plans do.
        default = max(installments - no_interest, 1) if total else 0
        plans.append(
            InstallmentPlan(
                installments=installments,
                installment_value=int(entry["installment_value"]),
                total=int(amount.get("value", 0)),
                interest=total,
                interest_installments=int(interest.get("installments") or default),
            )
        )
    if not plans:
        raise ProviderError(
            "the provider's fee answer has no installment plans",
            method="GET",
            path="/charges/fees/calculate",
        )
    return plans


def installment_plans(
    value: int,
    *,
    card_bin: str,
    max_installments: int = rules.MAX_INSTALLMENTS,
    max_installments_no_interest: int = 0,
    client: OrderPayClient | None = None,
    account: ConnectedAccount | None = None,
) -> list[InstallmentPlan]:
    """The plans for ``value`` cents on the card whose first 6 (or 8) digits are ``card_bin``.

    ``max_installments_no_interest`` (0, or 2 to 12) is how many installments
    the merchant absorbs the fee for. Raises ``PayloadError`` for bad
    arguments and ``ProviderError`` for the provider's refusals (such as
    ``fees_not_configured``). Cached :data:`PLANS_TTL` seconds, per account
    (``account``: the connected account the payment is for; None: ``TOKEN``'s).
    """
    check_amount(value, "value")
    if not rules.is_digits(card_bin, (6, 8)):
        raise PayloadError([FieldError("card_bin", "must be the card's first 6 or 8 digits")])
    conf = get_settings()
    account = check_account(account)
    # "v2": plans cached before interest_installments existed are never read back.
    key = (
        f"orderpay:fees:v2:{_generation[0]}:{account_key(conf, account)}:{value}:{card_bin}:"
        f"{max_installments}:{max_installments_no_interest}"
    )
    if client is None:
        cached = cache.get(key)
        if isinstance(cached, ProviderError):
            raise cached
        if cached is not None:
            return [InstallmentPlan(**plan) for plan in cached]
    try:
        answer = client_or_default(client, account).calculate_fees(
            value,
            credit_card_bin=card_bin,
            max_installments=max_installments,
            max_installments_no_interest=max_installments_no_interest,
        )
        plans = _plans(answer, max_installments_no_interest)
    except ProviderUnavailable:
        raise
    except ProviderError as refused:
        cache.set(key, refused, PLANS_TTL)
        raise
    cache.set(key, [plan.__dict__ for plan in plans], PLANS_TTL)
    return plans


def plan_for(plans: list[InstallmentPlan], installments: int) -> InstallmentPlan | None:
    """The plan of ``installments`` among ``plans`` (None when not offered)."""
    return next((plan for plan in plans if plan.installments == installments), None)
