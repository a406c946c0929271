"""``GET /charges/fees/calculate``: the installment plans a buyer may choose, with their interest.

The provider answers from the merchant's negotiated fees; the emulator from a
table of its own (``docs/emulator.md``): up to ``max_installments_no_interest``
installments the merchant absorbs the fee (``interest_free``, the buyer pays
the value); past them the buyer pays :data:`MONTHLY_INTEREST` a month, by the
Price table (equal installments, rounded up to the cent). Plans whose
installment would be under R$ 5,00 are left out, as PagBank refuses them.
Refusals use the endpoint's own codes (``max_installments_no_interest_must_not_be_1``...).
"""

from __future__ import annotations

from decimal import ROUND_CEILING, Decimal
from typing import Any
from urllib.parse import parse_qs

from django_orderpay import rules

from ..serving.http import Response
from ..state.errors import ProviderError
from ..state.store import Call, State

#: The emulator's buyer interest: 2.99 % a month, compounded (the Price table).
MONTHLY_INTEREST = Decimal("0.0299")
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


def installment_plan(value: int, installments: int, interest_free: bool) -> dict[str, Any]:
    """One plan: ``installments`` equal payments of ``value`` (plus the buyer's interest)."""
    if interest_free or installments == 1:
        share = -(-value // installments)
        return {
            "installments": installments,
            "installment_value": share,
            "interest_free": True,
            "amount": {"value": value},
        }
    rate = MONTHLY_INTEREST
    factor = rate / (1 - (1 + rate) ** -installments)
    share = int((Decimal(value) * factor).to_integral_value(rounding=ROUND_CEILING))
    total = share * installments
    interest = {"total": total - value, "installments": installments}
    return {
        "installments": installments,
        "installment_value": share,
        "interest_free": False,
        "amount": {"value": total, "fees": {"buyer": {"interest": interest}}},
    }


def plans(value: int, max_installments: int, no_interest: int) -> list[dict[str, Any]]:
    """Every plan from 1 to ``max_installments`` whose installment is at least R$ 5,00."""
    answer = []
    for count in range(1, max_installments + 1):
        plan = installment_plan(value, count, count <= no_interest)
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
    limit = state.options.max_installments
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
