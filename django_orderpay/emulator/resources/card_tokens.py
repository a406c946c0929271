"""``POST /tokens/cards``: a card checked and stored without a charge; answers its ``CARD_`` id.

The body is the SDK's ``encrypted`` card (``holder`` optional beside it) or,
for a PCI-certified merchant, the raw card. Refusals use the endpoint's own
codes (``card_cannot_be_stored``, ``card_brand_not_supported``,
``number_invalid_length``...). The emulator refuses to store a card its issuer
would decline: the sandbox's declined cards, the anti-fraud card and an
expired card (``card_cannot_be_stored``).
"""

from __future__ import annotations

from typing import Any

from django_orderpay import rules
from django_orderpay.cardcrypto import CardDecryptionError

from ..serving.http import Response
from ..state import errors, ids
from ..state.errors import ProviderError
from ..state.store import Call, State, StoredCard
from ..state.validation import reject_unknown, validate_holder
from .cards import APPROVED, Card, outcome_for

TOKEN_KEYS = frozenset({"encrypted", "number", "exp_month", "exp_year", "security_code", "holder"})
DESCRIPTIONS = {
    "card_cannot_be_stored": "Card cannot be stored.",
    "card_brand_not_supported": "Card brand is not supported.",
    "number_is_required": "Parameter `number` is a required parameter.",
    "number_is_invalid": "Parameter `number` has an invalid value, see documentation.",
    "number_invalid_length": "Parameter `number` should have between 14 and 19 digits.",
    "exp_month_is_required": "Parameter `exp_month` is a required parameter.",
    "exp_month_is_invalid": "Parameter `exp_month` has an invalid value, see documentation.",
    "exp_year_is_required": "Parameter `exp_year` is a required parameter.",
    "exp_year_is_invalid": "Parameter `exp_year` has an invalid value, see documentation.",
    "exp_year_invalid_length": "Parameter `exp_year` should have 4 digits.",
    "security_code_is_required": "Parameter `security_code` is a required parameter.",
    "security_code_invalid_length": "Parameter `security_code` should have 3 or 4 digits.",
}


def token_error(code: str, parameter_name: str | None = None) -> ProviderError:
    entry = {"code": code, "description": DESCRIPTIONS[code]}
    if parameter_name is not None:
        entry["parameter_name"] = parameter_name
    return ProviderError(400, [entry])


def _text(body: dict[str, Any], key: str) -> str:
    value = body.get(key)
    if value is None or value == "":
        raise token_error(f"{key}_is_required", key)
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise token_error(f"{key}_is_invalid" if key != "security_code" else
                          "security_code_invalid_length", key)  # fmt: skip
    return value


def _raw(body: dict[str, Any]) -> tuple[str, str, str, str | None]:
    number = _text(body, "number")
    if not rules.is_digits(number):
        raise token_error("number_is_invalid", "number")
    if not 14 <= len(number) <= 19:
        raise token_error("number_invalid_length", "number")
    month = _text(body, "exp_month")
    if not rules.is_digits(month, (1, 2)) or not 1 <= int(month) <= 12:
        raise token_error("exp_month_is_invalid", "exp_month")
    year = _text(body, "exp_year")
    if not rules.is_digits(year):
        raise token_error("exp_year_is_invalid", "exp_year")
    if len(year) != 4:
        raise token_error("exp_year_invalid_length", "exp_year")
    if not rules.is_digits(_text(body, "security_code"), (3, 4)):
        raise token_error("security_code_invalid_length", "security_code")
    name = None
    if body.get("holder") is not None:
        validate_holder(body["holder"], "holder")
        name = body["holder"].get("name")
    return number, f"{int(month):02d}", year, name


def _encrypted(state: State, body: dict[str, Any]) -> tuple[str, str, str, str | None]:
    for key in ("number", "exp_month", "exp_year", "security_code"):
        if body.get(key) is not None:  # "nenhum outro parâmetro deverá ser enviado"
            raise errors.invalid(key, "not_allowed_with_encrypted")
    blob = body["encrypted"]
    if not isinstance(blob, str):
        raise errors.invalid("encrypted", "invalid_encrypted_card")
    try:
        data = state.keys.decrypt(blob)
    except CardDecryptionError:
        raise errors.invalid("encrypted", "invalid_encrypted_card") from None
    name = data.holder or None
    if body.get("holder") is not None:
        validate_holder(body["holder"], "holder", name_required=False)
        name = body["holder"].get("name") or name
    if not 1 <= int(data.exp_month) <= 12:
        raise token_error("exp_month_is_invalid", "encrypted")
    return data.number, data.exp_month, data.exp_year, name


def store_card(state: State, call: Call) -> Response:
    """``POST /tokens/cards``: 200 ``{id, brand, first_digits, last_digits, exp_month, exp_year,
    holder}`` (never the number or the security code)."""
    body = call.payload
    reject_unknown(body, TOKEN_KEYS, "")
    if body.get("encrypted") is not None:
        number, month, year, name = _encrypted(state, body)
    else:
        number, month, year, name = _raw(body)
    if not rules.luhn_valid(number):
        raise token_error("number_is_invalid", "number")
    if rules.card_brand(number) is None:
        raise token_error("card_brand_not_supported", "number")
    if outcome_for(number, month, year, call.now).result != APPROVED:
        raise token_error("card_cannot_be_stored")
    stored = StoredCard(ids.new_id("CARD_"), call.merchant, number, month, year, name)
    state.cards[stored.id] = stored
    answer = Card(number, month, year, name).to_response(token_id=stored.id, store=True)
    del answer["store"]
    return Response.json(200, answer)
