"""Money and moments for display: the active locale's notation, the project's time zone."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from django.utils import formats, timezone
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


def short_datetime(value: dt.datetime | None) -> str | None:
    """A moment in the current time zone (the project's ``TIME_ZONE`` unless a view
    activated another), in the active language's short form (``21/11/2026 21:47``
    in pt-BR), as the admin's pages show every date: titles, confirmation pages
    and list columns agree. None stays None (the admin's "-").
    """
    if value is None:
        return None
    local = timezone.template_localtime(value)  # type: ignore[attr-defined]  # not in the stubs
    return formats.date_format(local, "SHORT_DATETIME_FORMAT")
