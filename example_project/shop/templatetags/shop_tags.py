"""``{% load shop_tags %}``: money for display."""

from __future__ import annotations

from django import template
from django.utils.translation import gettext

from django_orderpay.models import format_cents

register = template.Library()


@register.filter
def cents(value: int | None) -> str:
    """``12990`` -> ``"R$ 129.90"`` (the active locale's separators)."""
    return format_cents(value)


@register.filter
def translated(text: str) -> str:
    """``text`` in the active language when the shop's catalogue has it (the seeded
    products' descriptions), else as it is."""
    return gettext(text) if text else text
