"""Request validation as the provider does it: each failure a 40001/40002/40003 naming its field.

The helpers take the parent object, the key and the parent's path, and raise
:mod:`errors` with the provider's ``parameter_name``
(``charges[0].payment_method.card.exp_year``). JSON ``null`` counts as
absent. A value of the wrong JSON type (a number where a string goes, a list
where an object goes) is a 40002 naming the field, never a crash. The object
validators below cover the shared parts of an order; the core builds charge
and card validation from the same helpers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Literal, overload

from django_orderpay import rules

from . import errors

Limit = tuple[int, int] | str | None
Pattern = re.Pattern[str] | str | None

# Keys the provider accepts in each object; anything else is a 40003.
CUSTOMER_KEYS = frozenset({"name", "email", "tax_id", "phones"})
PHONE_KEYS = frozenset({"country", "area", "number", "type"})
ITEM_KEYS = frozenset({"reference_id", "name", "quantity", "unit_amount"})
#: PagBank's own words for a name with a character it refuses.
FORBIDDEN_NAME_MESSAGE = "must not contains any of the characters [{}]".format(
    ", ".join(rules.FORBIDDEN_NAME_CHARACTERS)
)
#: ``metadata``: the merchant's own keys and values, echoed back.
METADATA_LIMITS = (1, 64)
SHIPPING_KEYS = frozenset({"address"})
AMOUNT_KEYS = frozenset({"value", "currency"})
HOLDER_KEYS = frozenset({"name", "tax_id"})

# Patterns run with fullmatch on whatever a client sends, so none may backtrack
# more than linearly (``[^\s/?#]+[^\s]*`` did: quadratic on a long URL).
# Digits are ``[0-9]``: ``\d`` would take Arabic-Indic and other Unicode digits.
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
_HTTP_URL = re.compile(r"https?://[^\s/?#]+(?:[/?#]\S*)?")
#: Longest string of digits taken as a number (split amounts arrive as strings).
MAX_DIGIT_STRING = 18


def field_path(path: str, key: str) -> str:
    """``path.key`` (just ``key`` at the top level)."""
    return f"{path}.{key}" if path else key


def item_path(path: str, index: int) -> str:
    """``path[index]``."""
    return f"{path}[{index}]"


def _get(data: Mapping[str, Any], key: str, path: str, optional: bool) -> Any:
    value = data.get(key)
    if value is None and not optional:
        raise errors.required(field_path(path, key))
    return value


def _bounds(limit: Limit) -> tuple[int, int] | None:
    if isinstance(limit, str):
        return rules.FIELD_LIMITS[limit]
    return limit


def require_object(value: Any, path: str) -> dict[str, Any]:
    """``value`` itself must be a JSON object (absent: 40001; another type: 40002)."""
    if value is None:
        raise errors.required(path)
    if not isinstance(value, dict):
        raise errors.invalid(path)
    return value


@overload
def require_object_field(
    data: Mapping[str, Any], key: str, path: str, *, optional: Literal[False] = False
) -> dict[str, Any]: ...
@overload
def require_object_field(
    data: Mapping[str, Any], key: str, path: str, *, optional: bool
) -> dict[str, Any] | None: ...


def require_object_field(
    data: Mapping[str, Any], key: str, path: str, *, optional: bool = False
) -> dict[str, Any] | None:
    """``data[key]`` must be a JSON object."""
    value = _get(data, key, path, optional)
    if value is None:
        return None
    return require_object(value, field_path(path, key))


def check_str(value: Any, path: str, *, limit: Limit = None, pattern: Pattern = None) -> str:
    """``value`` must be a string, ``limit`` (a (min, max) pair or a ``FIELD_LIMITS`` key)
    characters long and matching ``pattern`` in full; else 40002 naming ``path``."""
    if not isinstance(value, str):
        raise errors.invalid(path)
    bounds = _bounds(limit)
    if bounds is not None and not bounds[0] <= len(value) <= bounds[1]:
        raise errors.invalid(path)
    if pattern is not None and not re.fullmatch(pattern, value):
        raise errors.invalid(path)
    return value


@overload
def require_str(
    data: Mapping[str, Any],
    key: str,
    path: str,
    *,
    limit: Limit = None,
    pattern: Pattern = None,
    choices: Iterable[str] | None = None,
    optional: Literal[False] = False,
) -> str: ...
@overload
def require_str(
    data: Mapping[str, Any],
    key: str,
    path: str,
    *,
    limit: Limit = None,
    pattern: Pattern = None,
    choices: Iterable[str] | None = None,
    optional: bool,
) -> str | None: ...


def require_str(
    data: Mapping[str, Any],
    key: str,
    path: str,
    *,
    limit: Limit = None,
    pattern: Pattern = None,
    choices: Iterable[str] | None = None,
    optional: bool = False,
) -> str | None:
    """``data[key]`` must be a string within ``limit``, matching ``pattern``, one of ``choices``."""
    value = _get(data, key, path, optional)
    if value is None:
        return None
    where = field_path(path, key)
    text = check_str(value, where, limit=limit, pattern=pattern)
    if choices is not None and text not in choices:
        raise errors.invalid(where)
    return text


def check_int(
    value: Any,
    path: str,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    digit_string: bool = False,
) -> int:
    """``value`` must be a JSON integer (not a boolean, not 5.0) within the bounds.

    ``digit_string`` also accepts a string of digits (split receivers' amounts
    arrive as ``"7000"``).
    """
    if digit_string and isinstance(value, str) and rules.is_digits(value):
        if len(value) > MAX_DIGIT_STRING:  # int() refuses past 4300 digits; no amount is near
            raise errors.invalid(path)
        number = int(value)
    elif isinstance(value, int) and not isinstance(value, bool):
        number = value
    else:
        raise errors.invalid(path)
    if (minimum is not None and number < minimum) or (maximum is not None and number > maximum):
        raise errors.invalid(path)
    return number


def require_int(
    data: Mapping[str, Any],
    key: str,
    path: str,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    digit_string: bool = False,
    optional: bool = False,
) -> int | None:
    """``data[key]`` must be an integer within ``minimum``..``maximum``."""
    value = _get(data, key, path, optional)
    if value is None:
        return None
    return check_int(
        value, field_path(path, key), minimum=minimum, maximum=maximum, digit_string=digit_string
    )


def require_bool(
    data: Mapping[str, Any], key: str, path: str, *, optional: bool = False
) -> bool | None:
    """``data[key]`` must be ``true`` or ``false``."""
    value = _get(data, key, path, optional)
    if value is None:
        return None
    if not isinstance(value, bool):
        raise errors.invalid(field_path(path, key))
    return value


def require_list(
    data: Mapping[str, Any],
    key: str,
    path: str,
    *,
    min_items: int | None = None,
    max_items: int | None = None,
    optional: bool = False,
) -> list[Any] | None:
    """``data[key]`` must be a JSON array of ``min_items``..``max_items`` entries."""
    value = _get(data, key, path, optional)
    if value is None:
        return None
    where = field_path(path, key)
    if not isinstance(value, list):
        raise errors.invalid(where)
    if (min_items is not None and len(value) < min_items) or (
        max_items is not None and len(value) > max_items
    ):
        raise errors.invalid(where)
    return value


def reject_unknown(data: Mapping[str, Any], allowed_keys: Iterable[str], path: str) -> None:
    """40003 naming the first key of ``data`` not in ``allowed_keys``."""
    allowed = frozenset(allowed_keys)
    for key in data:
        if key not in allowed:
            raise errors.unknown(field_path(path, key))


#: A CPF (11 digits) or a CNPJ (14: 12 letters or digits, 2 digits), as written.
_TAX_ID = re.compile(r"[0-9]{11}|[0-9A-Z]{12}[0-9]{2}")


def require_tax_id(
    data: Mapping[str, Any],
    key: str,
    path: str,
    *,
    optional: bool = False,
    check_digits: bool = False,
) -> str | None:
    """A CPF (11 digits) or CNPJ (14: 12 letters or digits, 2 digits); with ``check_digits``
    (a sub-merchant's, documented; a boleto's payer, registered by a bank), right ones.

    A customer's or card holder's check digits are not checked: PagBank's card examples
    send the holder's CPF "65544332211" (wrong ones) and answer PAID.
    """
    value = require_str(data, key, path, optional=optional)
    if value is None:
        return None
    valid = rules.valid_tax_id(value) if check_digits else bool(_TAX_ID.fullmatch(value))
    if not valid:
        raise errors.invalid(field_path(path, key))
    return value


def validate_amount(
    amount: Any, path: str, *, minimum: int = 1, maximum: int = rules.MAX_AMOUNT
) -> int:
    """``{"value": cents, "currency": "BRL"?}``; answers the value.

    Currency may be left out (BRL is the only one); the bounds are the facts'
    (1 to 999999999 cents) unless the caller narrows them.
    """
    amount = require_object(amount, path)
    reject_unknown(amount, AMOUNT_KEYS, path)
    value = _get(amount, "value", path, optional=False)
    cents = check_int(value, field_path(path, "value"), minimum=minimum, maximum=maximum)
    require_str(amount, "currency", path, choices=rules.CURRENCIES, optional=True)
    return cents


def validate_phone(phone: Any, path: str) -> None:
    """``{"country", "area", "number", "type"}``, all required.

    ``country`` 1-3 digits (our choice: a dialling code), ``area`` 2 digits,
    ``number`` 8-9 digits, ``type`` MOBILE, BUSINESS or HOME.
    """
    phone = require_object(phone, path)
    reject_unknown(phone, PHONE_KEYS, path)
    require_str(phone, "country", path, pattern=r"[0-9]{1,3}")
    require_str(phone, "area", path, pattern=r"[0-9]{2}")
    require_str(phone, "number", path, pattern=r"[0-9]{8,9}")
    require_str(phone, "type", path, choices=rules.PHONE_TYPES)


#: A customer's ``tax_id`` as the wallet pages' examples send it ("123456789"), taken with the
#: option ``short_tax_ids``.
_SHORT_TAX_ID = re.compile(r"[0-9]{9,10}")


def validate_customer(
    customer: Any, path: str = "customer", *, short_tax_ids: bool = False
) -> None:
    """``name`` 1-120, ``email`` 10-255 and address-shaped, ``tax_id`` CPF/CNPJ (or, with
    ``short_tax_ids``, 9 or 10 digits as the wallet examples), ``phones``?"""
    customer = require_object(customer, path)
    reject_unknown(customer, CUSTOMER_KEYS, path)
    check_name(require_str(customer, "name", path, limit="customer.name"), field_path(path, "name"))
    require_str(customer, "email", path, limit="email", pattern=_EMAIL)
    tax_id = customer.get("tax_id")
    if not (short_tax_ids and isinstance(tax_id, str) and _SHORT_TAX_ID.fullmatch(tax_id)):
        require_tax_id(customer, "tax_id", path)
    phones = require_list(customer, "phones", path, optional=True)
    for index, phone in enumerate(phones or []):
        validate_phone(phone, item_path(field_path(path, "phones"), index))


def validate_item(item: Any, path: str) -> None:
    """``reference_id``? 1-64, ``name`` 1-200, ``quantity`` 1-99999, ``unit_amount`` cents.

    ``unit_amount`` must be positive (our choice, as every other amount).
    """
    item = require_object(item, path)
    reject_unknown(item, ITEM_KEYS, path)
    require_str(item, "reference_id", path, limit="item.reference_id", optional=True)
    require_str(item, "name", path, limit="item.name")
    require_int(item, "quantity", path, minimum=1, maximum=rules.MAX_QUANTITY)
    require_int(item, "unit_amount", path, minimum=1, maximum=rules.MAX_AMOUNT)


def validate_items(items: Any, path: str = "items") -> None:
    """A non-empty list of items."""
    if items is None:
        raise errors.required(path)
    if not isinstance(items, list) or not items:
        raise errors.invalid(path)
    for index, item in enumerate(items):
        validate_item(item, item_path(path, index))


def validate_address(address: Any, path: str, *, country_as_written: bool = False) -> None:
    """A Brazilian address: every field but ``complement`` and ``region`` (the state's name,
    1-50) required, limits per the facts. ``country`` is ``BRA``, or with
    ``country_as_written`` 1-50 characters (a boleto's payer: the docs' example writes
    "Brasil")."""
    address = require_object(address, path)
    reject_unknown(address, rules.ADDRESS_KEYS, path)
    require_str(address, "street", path, limit="street")
    require_str(address, "number", path, limit="address.number")
    require_str(address, "complement", path, limit="complement", optional=True)
    require_str(address, "locality", path, limit="locality")
    require_str(address, "city", path, limit="city")
    require_str(address, "region", path, limit="region", optional=True)
    require_str(address, "region_code", path, choices=rules.BRAZILIAN_STATES)
    if country_as_written:
        require_str(address, "country", path, limit="country")
    else:
        require_str(address, "country", path, choices=("BRA",))
    require_str(address, "postal_code", path, pattern=r"[0-9]{8}")


def validate_shipping(shipping: Any, path: str = "shipping") -> None:
    """``{"address": Address}``."""
    shipping = require_object(shipping, path)
    reject_unknown(shipping, SHIPPING_KEYS, path)
    validate_address(shipping.get("address"), field_path(path, "address"))


def validate_holder(holder: Any, path: str, *, name_required: bool = True) -> None:
    """``{"name": 1-30 characters without digits, "tax_id"?: CPF/CNPJ}``."""
    holder = require_object(holder, path)
    reject_unknown(holder, HOLDER_KEYS, path)
    name = require_str(holder, "name", path, limit="holder.name", optional=not name_required)
    if name is not None and (any(char.isdigit() for char in name) or not name.strip()):
        raise errors.invalid(field_path(path, "name"))
    check_name(name, field_path(path, "name"))
    require_tax_id(holder, "tax_id", path, optional=True)


def check_name(name: str | None, path: str) -> None:
    """40002 for a name with a character PagBank refuses (``FORBIDDEN_NAME_CHARACTERS``)."""
    if name is not None and rules.forbidden_name_characters(name):
        raise errors.invalid(path, FORBIDDEN_NAME_MESSAGE)


def validate_notification_urls(urls: Any, path: str = "notification_urls") -> None:
    """A list of at most one absolute http(s) URL ("Este campo aceita apenas uma URL")."""
    if urls is None:
        return
    if not isinstance(urls, list):
        raise errors.invalid(path)
    if len(urls) > 1:
        raise errors.invalid(path, "this field accepts only one URL")
    for index, url in enumerate(urls):
        check_str(url, item_path(path, index), pattern=_HTTP_URL)


def validate_metadata(metadata: Any, path: str = "metadata") -> dict[str, Any] | None:
    """The merchant's ``metadata``: an object of short keys and text or number values."""
    if metadata is None:
        return None
    metadata = require_object(metadata, path)
    for key, value in metadata.items():
        where = field_path(path, key)
        check_str(key, where, limit=METADATA_LIMITS)
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise errors.invalid(where)
        if isinstance(value, str) and len(value) > 255:
            raise errors.invalid(where)
    return dict(metadata)
