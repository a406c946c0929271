"""The installment choices a checkout offers: one source for a typed card and a saved one.

With fee plans (the shop passes its interest on past
``max_installments_no_interest``), the choices are the provider's plans for
the card's BIN (``services.installment_plans``): the typed number's first six
digits, or a saved card's. Without, the amount is split with no interest.
Either way a choice says what is charged, and its shares add up to it:
PagBank answers each plan's ``installment_value`` rounded to the cent and
its total (``amount.value``), so the cents that do not split evenly are
carried by one installment, the **first** (as issuers bill them), and the
label says so: ``6x: the first R$ 13,15 and 5x R$ 13,17 (no interest)``.
"""

from __future__ import annotations

import logging
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.utils.translation import gettext as _

from django_orderpay import rules
from django_orderpay.exceptions import OrderPayError
from django_orderpay.models import ConnectedAccount, format_cents
from django_orderpay.services.fees import InstallmentPlan, installment_plans, plan_for

logger = logging.getLogger("django_orderpay.checkout")

__all__ = [
    "InstallmentPlan",
    "first_installment",
    "interest_free_plans",
    "offered_plans",
    "plan_choices",
    "plan_for",
    "plan_label",
    "plans_or_one",
]


def interest_free_plans(amount: int, max_installments: int) -> list[InstallmentPlan]:
    """``amount`` in 1 to ``max_installments`` installments with no interest, each at
    least R$ 5,00 (PagBank refuses smaller ones); each installment rounded as PagBank's."""
    plans = []
    for count in range(1, max_installments + 1):
        if count > 1 and amount < count * rules.MIN_INSTALLMENT:
            break
        share = int((Decimal(amount) / count).to_integral_value(rounding=ROUND_HALF_UP))
        plans.append(InstallmentPlan(count, share, amount, 0))
    return plans


def offered_plans(
    amount: int,
    *,
    card_bin: str = "",
    fee_plans: bool = False,
    max_installments: int = rules.MAX_INSTALLMENTS,
    max_installments_no_interest: int = 0,
    account: ConnectedAccount | None = None,
) -> list[InstallmentPlan]:
    """The choices for ``amount`` on the card whose first digits are ``card_bin``.

    With ``fee_plans``, the provider's plans for that BIN (cached; raises the
    provider's refusal, ``OrderPayError``), as ``account`` is charged (a
    connected account; None: the settings' ``TOKEN``); without,
    :func:`interest_free_plans`.
    """
    if not fee_plans:
        return interest_free_plans(amount, max_installments)
    return installment_plans(
        amount,
        card_bin=card_bin,
        max_installments=max_installments,
        max_installments_no_interest=max_installments_no_interest,
        account=account,
    )


def plans_or_one(amount: int, **options: Any) -> list[InstallmentPlan]:
    """:func:`offered_plans`, or one installment alone when the provider can't price more
    now: a page still renders, and never quotes an installment it could not price."""
    try:
        return offered_plans(amount, **options)
    except OrderPayError as error:
        logger.warning("installment plans unavailable, offering one installment: %s", error)
        return [InstallmentPlan(1, amount, amount, 0)]


def first_installment(plan: InstallmentPlan) -> int:
    """Cents of the first installment: the total less the others (it carries the rounding)."""
    return plan.total - (plan.installments - 1) * plan.installment_value


def plan_label(plan: InstallmentPlan) -> str:
    """What a choice says, in the active language: each share, and the total or "no interest".

    ``3x R$ 35,00 (no interest)``, ``4x R$ 26,90 (total R$ 107,60)``, and where
    the shares differ ``6x: the first R$ 13,15 and 5x R$ 13,17 (no interest)``.
    """
    values = {
        "count": plan.installments,
        "share": format_cents(plan.installment_value),
        "first": format_cents(first_installment(plan)),
        "others": plan.installments - 1,
        "total": format_cents(plan.total),
    }
    even = first_installment(plan) == plan.installment_value
    if plan.interest_free and even:
        return _("%(count)sx %(share)s (no interest)") % values
    if even:
        return _("%(count)sx %(share)s (total %(total)s)") % values
    if plan.interest_free:
        return _("%(count)sx: the first %(first)s and %(others)sx %(share)s (no interest)") % values
    return _("%(count)sx: the first %(first)s and %(others)sx %(share)s (total %(total)s)") % values


def plan_choices(plans: list[InstallmentPlan]) -> list[dict[str, Any]]:
    """The plans as ``checkout.js`` shows them: count, label, total (cents) and the total as
    the page writes money (``total_display``), for the amount the pay button names."""
    return [
        {
            "installments": plan.installments,
            "label": plan_label(plan),
            "total": plan.total,
            "total_display": format_cents(plan.total),
        }
        for plan in plans
    ]
