"""Money for display: integer cents in, the active locale's notation out."""

from __future__ import annotations

from decimal import Decimal

from django.utils.formats import number_format

CURRENCY_SYMBOLS = {"BRL": "R$"}


def format_cents(cents: int | None, currency: str = "BRL") -> str:
    """``150023`` -> ``"R$ 1.500,23"`` in pt-BR, ``"R$ 1,500.23"`` in English.

    Separators come from Django's locale formats, so the shop's active
    language decides them. ``None`` (an unknown amount) gives ``""``.
    """
    if cents is None:
        return ""
    if isinstance(cents, bool) or not isinstance(cents, int):
        raise TypeError(f"cents must be an integer, got {type(cents).__name__}")
    symbol = CURRENCY_SYMBOLS.get(currency, currency)
    amount = number_format(Decimal(abs(cents)) / 100, decimal_pos=2, force_grouping=True)
    sign = "-" if cents < 0 else ""
    return f"{sign}{symbol} {amount}"
