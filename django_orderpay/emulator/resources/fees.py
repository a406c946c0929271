"""``GET /charges/fees/calculate``: the installment plans a buyer may choose, with their interest.

The provider answers from the merchant's negotiated fees; the emulator from a
table of its own (``docs/emulator.md``) that reproduces PagBank's documented
example cent for cent: up to ``max_installments_no_interest`` installments the
merchant absorbs the fee (``interest_free``, the buyer pays the value); past
them the buyer pays interest on the installments **beyond** the interest-free
ones only (``interest.installments``, 1 for a 5x plan with 4 free), at
:data:`MONTHLY_INTEREST` a month by the Price table over those installments,
the total rounded to the cent; ``installment_value`` is the total split in
equal parts, rounded to the cent. Plans whose installment would be under
R$ 5,00 are left out, as PagBank refuses them. Refusals use the endpoint's
own codes (``max_installments_no_interest_must_not_be_1``...); its limits
are 1 to 12 installments whatever the account's (its error says so).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any
from urllib.parse import parse_qs

from django_orderpay import rules

from ..serving.http import Response
from ..state.errors import ProviderError
from ..state.store import Call, State

#: The emulator's buyer interest: 3.49 % a month, compounded (the Price table) over the
#: installments the buyer pays interest on. With it, R$ 100,00 in 5 to 10 installments, 4 of
#: them interest-free, answers the docs' 10349, 10526, 10706, 10887, 11071 and 11256.
MONTHLY_INTEREST = Decimal("0.0349")
#: The endpoint's own limit (``max_installments_outside_range``: "between 1 and 12"), also
#: on an account with 18 installments: its plans stop at 12.
MAX_PLAN_INSTALLMENTS = rules.MAX_INSTALLMENTS
#: Brands answered when no BIN narrows them.
BRANDS = ("visa", "mastercard", "elo", "amex", "hipercard")
QUERY_KEYS = frozenset(
    {
        "payment_methods",
        "value",
        "max_installments",
        "max_installments_no_interest",
        "credit_card_bin",
    }
)
#: The provider's descriptions for each code (its error table).
DESCRIPTIONS = {
    "payment_methods_is_required": "Parameter payment_methods is a required parameter.",
    "payment_methods_is_invalid": (
        "Parameter payment_methods with invalid value, see documentation."
    ),
    "value_is_required": "Parameter value is a required parameter.",
    "value_is_invalid": "Parameter value has an invalid value, see documentation.",
    "max_installments_outside_range": "Parameter max_installments should be between 1 and 12.",
    "max_installments_is_invalid": (
        "Parameter max_installments with invalid value, see documentation."
    ),
    "max_installments_no_interest_must_not_be_1": (
        "Parameter max_installments_no_interest should be equal 0 or greater then 1."
    ),
    "max_installments_no_interest_outside_range": (
        "Parameter max_installments_no_interest should be between 0 and 12."
    ),
    "max_installments_no_interest_is_invalid": (
        "Parameter max_installments_no_interest has an invalid value, see documentation."
    ),
    "credit_card_bin_invalid_length": "Parameter credit_card_bin should have 6 or 8 digits.",
    "credit_card_bin_is_invalid": (
        "Parameter credit_card_bin should be as disposed on the credit card, see documentation."
    ),
    "credit_card_bin_data_not_found": "credit_card_bin data not found.",
    "fees_not_configured": (
        "User does not have configured fees for these parameters, contact your account manager."
    ),
}


def fee_error(code: str, parameter_name: str | None = None) -> ProviderError:
    """A 400 of this endpoint: its own ``code`` (not the Orders API's 4000x) and description."""
    entry = {"code": code, "description": DESCRIPTIONS[code]}
    if parameter_name is not None:
        entry["parameter_name"] = parameter_name
    return ProviderError(400, [entry])


def _integer(query: dict[str, str], key: str) -> int | None:
    text = query.get(key)
    if text is None or text == "":
        return None
    if not rules.is_digits(text, range(1, 10)):
        raise fee_error(f"{key}_is_invalid", key)
    return int(text)


def _cents(value: Decimal) -> int:
    return int(value.to_integral_value(rounding=ROUND_HALF_UP))


def installment_plan(value: int, installments: int, no_interest: int) -> dict[str, Any]:
    """One plan: ``installments`` equal payments of ``value``, plus the buyer's interest on
    the installments past the ``no_interest`` ones the merchant absorbs."""
    charged = installments - no_interest if installments > 1 else 0
    if charged <= 0:
        return {
            "installments": installments,
            "installment_value": _cents(Decimal(value) / installments),
            "interest_free": True,
            "amount": {"value": value, "currency": "BRL"},
        }
    rate = MONTHLY_INTEREST
    total = _cents(Decimal(value) * charged * rate / (1 - (1 + rate) ** -charged))
    interest = {"total": total - value, "installments": charged}
    return {
        "installments": installments,
        "installment_value": _cents(Decimal(total) / installments),
        "interest_free": False,
        "amount": {"value": total, "fees": {"buyer": {"interest": interest}}, "currency": "BRL"},
    }


def plans(value: int, max_installments: int, no_interest: int) -> list[dict[str, Any]]:
    """Every plan from 1 to ``max_installments`` whose installment is at least R$ 5,00."""
    answer = []
    for count in range(1, max_installments + 1):
        plan = installment_plan(value, count, no_interest)
        if count > 1 and plan["installment_value"] < rules.MIN_INSTALLMENT:
            break
        answer.append(plan)
    return answer


def calculate_fees(state: State, call: Call) -> Response:
    """``GET /charges/fees/calculate?payment_methods=CREDIT_CARD&value=...``: 200, the plans."""
    parsed = parse_qs(call.request.query, keep_blank_values=True)
    query = {key: values[-1] for key, values in parsed.items() if key in QUERY_KEYS}
    methods = query.get("payment_methods")
    if not methods:
        raise fee_error("payment_methods_is_required", "payment_methods")
    if methods.upper() != "CREDIT_CARD":
        raise fee_error("payment_methods_is_invalid", "payment_methods")
    value = _integer(query, "value")
    if value is None:
        raise fee_error("value_is_required", "value")
    if not 1 <= value <= rules.MAX_AMOUNT:
        raise fee_error("value_is_invalid", "value")
    limit = MAX_PLAN_INSTALLMENTS
    max_installments = _integer(query, "max_installments")
    if max_installments is None:
        max_installments = rules.MAX_INSTALLMENTS
    if not 1 <= max_installments <= limit:
        raise fee_error("max_installments_outside_range", "max_installments")
    no_interest = _integer(query, "max_installments_no_interest") or 0
    if no_interest == 1:
        raise fee_error(
            "max_installments_no_interest_must_not_be_1", "max_installments_no_interest"
        )
    if no_interest > limit:
        raise fee_error(
            "max_installments_no_interest_outside_range", "max_installments_no_interest"
        )
    brands: tuple[str, ...] = BRANDS
    bin_text = query.get("credit_card_bin")
    if bin_text:
        if len(bin_text) not in (6, 8):
            raise fee_error("credit_card_bin_invalid_length", "credit_card_bin")
        if not rules.is_digits(bin_text):
            raise fee_error("credit_card_bin_is_invalid", "credit_card_bin")
        brand = rules.card_brand(bin_text + "0" * (16 - len(bin_text)))
        if brand is None:
            raise fee_error("credit_card_bin_data_not_found", "credit_card_bin")
        brands = (brand,)
    if not state.options.fees_configured:
        raise fee_error("fees_not_configured")
    offered = plans(value, max_installments, no_interest)
    credit_card = {brand: {"installment_plans": offered} for brand in brands}
    return Response.json(200, {"payment_methods": {"credit_card": credit_card}})
