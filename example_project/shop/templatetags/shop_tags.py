"""``{% load shop_tags %}``: money for display."""

from __future__ import annotations

from django import template

from django_orderpay.models import format_cents

register = template.Library()


@register.filter
def cents(value: int | None) -> str:
    """``12990`` -> ``"R$ 129.90"`` (the active locale's separators)."""
    return format_cents(value)
