"""``charges[].sub_merchant``: the sub-merchant a payment facilitator charges for.

PagBank's use case "criar pedido com cartão (facilitadores de pagamento)"
lists the rules, and its example shows what they allow: ``tax_id`` 11 or 14
digits (with or without its mask) whose check digits are validated;
``name`` at least 3 characters (60 at most); ``reference_id`` (15) and
``mcc`` (digits: the table says 4, the example sends "155"); the address;
``phones`` (the example's list, of an 11-digit number and type ``MOBILE``)
or ``phone`` (the object of the charge object's table). Card charges only
("apenas as operações com cartão de crédito e débito"). Echoed as sent.
"""

from __future__ import annotations

import re
from typing import Any

from ..state import errors
from ..state.validation import (
    field_path,
    item_path,
    reject_unknown,
    require_list,
    require_object,
    require_str,
    require_tax_id,
    validate_address,
)

SUB_MERCHANT_KEYS = frozenset(
    {"reference_id", "name", "tax_id", "mcc", "address", "phones", "phone"}
)
PHONE_KEYS = frozenset({"country", "area", "number", "type"})
#: The charge object's types, and the use case table's ``CELLPHONE``.
PHONE_TYPES = ("MOBILE", "BUSINESS", "HOME", "CELLPHONE")
_MASK = re.compile(r"[./-]")


def _phone(phone: Any, path: str) -> None:
    phone = require_object(phone, path)
    reject_unknown(phone, PHONE_KEYS, path)
    require_str(phone, "country", path, pattern=r"[0-9]{1,3}")
    require_str(phone, "area", path, pattern=r"[0-9]{2}")
    # The table: 8-9 digits; the example: "98877887788", 11 (answered PAID).
    require_str(phone, "number", path, pattern=r"[0-9]{8,11}")
    require_str(phone, "type", path, choices=PHONE_TYPES)


def validate_sub_merchant(value: Any, path: str, *, payment_type: str) -> dict[str, Any]:
    """``charges[i].sub_merchant`` of a card charge; 40001/40002 naming the field."""
    sub_merchant = require_object(value, path)
    if payment_type not in ("CREDIT_CARD", "DEBIT_CARD"):
        raise errors.invalid(path, "sub_merchant_only_for_card_payments")
    reject_unknown(sub_merchant, SUB_MERCHANT_KEYS, path)
    require_str(sub_merchant, "reference_id", path, limit=(1, 15))
    require_str(sub_merchant, "name", path, limit=(3, 60))
    tax_id = require_str(sub_merchant, "tax_id", path)
    unmasked = {"tax_id": _MASK.sub("", tax_id or "")}
    if not re.fullmatch(r"[0-9]{11}|[0-9]{14}", unmasked["tax_id"]):
        raise errors.invalid(field_path(path, "tax_id"))
    require_tax_id(unmasked, "tax_id", path, check_digits=True)
    require_str(sub_merchant, "mcc", path, pattern=r"[0-9]{1,4}")
    validate_address(
        sub_merchant.get("address"), field_path(path, "address"), country_as_written=True
    )
    phones = require_list(sub_merchant, "phones", path, optional=True)
    for index, phone in enumerate(phones or []):
        _phone(phone, item_path(field_path(path, "phones"), index))
    if sub_merchant.get("phone") is not None:
        _phone(sub_merchant["phone"], field_path(path, "phone"))
    return dict(sub_merchant)
