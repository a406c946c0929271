"""The provider's rules as code: field limits, check digits, card brands.

Pure data and functions (no Django, no I/O), shared by the request builders
(``payloads``) and the emulator, so both enforce the same documented facts
(``provider-facts.md``). Where a rule is our own choice it says so.
"""

from __future__ import annotations

import re
from typing import Final

CHARGE_STATUSES: Final = ("AUTHORIZED", "PAID", "IN_ANALYSIS", "DECLINED", "CANCELED", "WAITING")
PHONE_TYPES: Final = ("MOBILE", "BUSINESS", "HOME")
SPLIT_METHODS: Final = ("FIXED", "PERCENTAGE")
RECURRING_TYPES: Final = ("INITIAL", "SUBSEQUENT")
CURRENCIES: Final = ("BRL",)

#: ``redirect_url`` of a deeplink: a universal link or an app URL scheme.
REDIRECT_URL_PATTERN: Final = re.compile(r"^([a-zA-Z0-9]+://)(.*)$")

MAX_AMOUNT: Final = 999_999_999
MAX_QUANTITY: Final = 99_999
MAX_INSTALLMENTS: Final = 12
SPLIT_RECEIVERS: Final = (2, 15)
#: Deeplink simulation bounds (R$1.00 to R$1,500.00).
DEEPLINK_PAY_AMOUNT: Final = (100, 150_000)

#: Length bounds (inclusive) of string fields, by the field's name in the
#: provider's JSON (the last segment of its path).
FIELD_LIMITS: Final[dict[str, tuple[int, int]]] = {
    "reference_id": (1, 64),
    "item.name": (1, 200),
    "customer.name": (1, 120),
    "email": (10, 255),
    "description": (1, 64),
    "holder.name": (1, 30),
    "street": (1, 160),
    "address.number": (1, 20),
    "complement": (1, 40),
    "locality": (1, 60),
    "city": (1, 90),
    "soft_descriptor": (1, 17),
}

BRAZILIAN_STATES: Final = frozenset(
    "AC AL AP AM BA CE DF ES GO MA MT MS MG PA PB PR PE PI RJ RN RS RO RR SC SP SE TO".split()
)

_DIGITS = re.compile(r"^[0-9]+\Z")  # ASCII only, no trailing newline


def is_digits(value: object, lengths: tuple[int, ...] | range | None = None) -> bool:
    """True when ``value`` is a string of ASCII digits of one of ``lengths``."""
    if not isinstance(value, str) or not _DIGITS.match(value):
        return False
    return lengths is None or len(value) in lengths


def luhn_valid(number: str) -> bool:
    """The Luhn check every card number passes."""
    if not is_digits(number):
        return False
    total = 0
    for index, char in enumerate(reversed(number)):
        digit = int(char)
        if index % 2:
            digit *= 2
            if digit > 9:
                digit -= 9
        total += digit
    return total % 10 == 0


def _check_digit(digits: str, weights: range | list[int]) -> int:
    remainder = sum(int(d) * w for d, w in zip(digits, weights, strict=False)) % 11
    return 0 if remainder < 2 else 11 - remainder


def valid_cpf(value: str) -> bool:
    """An 11-digit CPF with both check digits right (not all one digit)."""
    if not is_digits(value, (11,)) or len(set(value)) == 1:
        return False
    first = _check_digit(value[:9], range(10, 1, -1))
    second = _check_digit(value[:10], range(11, 1, -1))
    return value[9:] == f"{first}{second}"


def valid_cnpj(value: str) -> bool:
    """A 14-digit CNPJ with both check digits right (not all one digit)."""
    if not is_digits(value, (14,)) or len(set(value)) == 1:
        return False
    weights = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]
    first = _check_digit(value[:12], weights)
    second = _check_digit(value[:13], [6, *weights])
    return value[12:] == f"{first}{second}"


def valid_tax_id(value: str) -> bool:
    """A CPF (11 digits) or a CNPJ (14 digits), digits only."""
    return valid_cpf(value) or valid_cnpj(value)


def _ranges(*spans: tuple[int, int] | int) -> tuple[tuple[int, int], ...]:
    return tuple((s, s) if isinstance(s, int) else s for s in spans)


# Six-digit BIN ranges, checked before the shorter prefixes: several Elo BINs
# start with 4 and would otherwise pass for Visa (the sandbox Elo cards do).
_ELO_BINS: Final = _ranges(
    401178, 401179, 431274, 438935, 451416, 457393, 457631, 457632, 504175,
    (506699, 506778), (509000, 509999), 627780, 636297, 636368, (650031, 650033),
    (650035, 650051), (650405, 650439), (650485, 650538), (650541, 650598),
    (650700, 650718), (650720, 650727), (650901, 650920), (651652, 651679),
    (655000, 655019), (655021, 655058),
)  # fmt: skip
_PREFIX_BRANDS: Final = (
    ("hipercard", ("606282", "3841")),
    ("amex", ("34", "37")),
    ("diners", ("36", "38", "300", "301", "302", "303", "304", "305")),
)


def card_brand(number: str) -> str | None:
    """The lower-case brand the provider reports for ``number``, from its BIN."""
    if not is_digits(number) or len(number) < 6:
        return None
    bin6 = int(number[:6])
    if any(low <= bin6 <= high for low, high in _ELO_BINS):
        return "elo"
    for brand, prefixes in _PREFIX_BRANDS:
        if number.startswith(prefixes):
            return brand
    if 51 <= int(number[:2]) <= 55 or 2221 <= int(number[:4]) <= 2720:
        return "mastercard"
    if number.startswith("4"):
        return "visa"
    return None
