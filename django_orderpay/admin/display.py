"""How the admin shows provider state: status badges, money, provider JSON, links."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin
from django.db import models
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _

from ..models import ChargeStatus, CheckoutStatus, DeliveryOutcome, OrderStatus, format_cents
from ..models.base import known_values
from ..models.money import short_datetime as short_datetime  # the admin's columns use it
from ..rules import card_brand_name

#: Statuses that have a badge colour in ``admin.css`` (charge and order statuses).
BADGE_STATUSES = (
    known_values(ChargeStatus) | known_values(OrderStatus) | known_values(CheckoutStatus)
)

#: A split's statuses as seen so far (PagBank publishes no list): the rest are shown as sent.
SPLIT_STATUS_LABELS = {
    "PENDING": _("Pending"),
    "PROCESSING": _("Processing"),
    "COMPLETED": _("Completed"),
    "CANCELED": _("Canceled"),
}


def status_label(status: str) -> str:
    """A provider status in the active language (``IN_ANALYSIS`` -> "In analysis").

    Charge statuses first, then the order's own (``CREATED``, ``EXPIRED``) and a
    split's; a status this version does not know is shown as the provider spells it.
    """
    for choices in (ChargeStatus, OrderStatus, CheckoutStatus):
        if status in known_values(choices):
            return str(choices(status).label)
    return str(SPLIT_STATUS_LABELS.get(status, status))


#: Loaded by every ModelAdmin of the package and every confirmation page.
ADMIN_CSS = "django_orderpay/admin.css"


def status_badge(status: str, label: str | None = None) -> SafeString:
    """A coloured badge for a charge or order status (``PAID`` -> green "Paid").

    ``label`` defaults to the status in words (:func:`status_label`); the
    provider's own spelling is kept in the ``title`` so staff can match it
    against provider documents.
    """
    if not status:
        return format_html('<span class="orderpay-badge">{}</span>', "-")
    css = status.lower().replace("_", "-") if status in BADGE_STATUSES else "unknown"
    return format_html(
        '<span class="orderpay-badge orderpay-badge-{}" title="{}">{}</span>',
        css,
        status,
        label or status_label(status),
    )


def outcome_badge(outcome: str, label: str) -> SafeString:
    """A coloured badge for a notification delivery's outcome (``failed`` -> red)."""
    return format_html(
        '<span class="orderpay-badge orderpay-outcome-{}" title="{}">{}</span>',
        outcome if outcome in known_values(DeliveryOutcome) else "unknown",
        outcome,
        label,
    )


def money(cents: int | None, currency: str = "BRL") -> str:
    """Integer cents as money in the active language (``R$ 1.234,56`` in pt-BR)."""
    return format_cents(cents, currency)


def money_cell(cents: int | None, currency: str = "BRL") -> SafeString:
    """Money for a list or table cell: kept on one line (``R$`` never parted from its amount)."""
    return format_html('<span class="orderpay-money">{}</span>', money(cents, currency))


def card_summary(brand: str, first_digits: str, last_digits: str) -> str:
    """``Visa 411111******1111``; an empty string when nothing is known."""
    if not (brand or first_digits or last_digits):
        return ""
    middle = "******" if first_digits else "**** "
    return f"{card_brand_name(brand)} {first_digits}{middle}{last_digits}".strip()


def card_short(brand: str, last_digits: str) -> SafeString | str:
    """``Visa •••• 1111`` for a list column (a narrow one puts the digits under the
    brand); ``""`` when nothing is known."""
    if not (brand or last_digits):
        return ""
    return format_html(
        '<span class="orderpay-card"><span class="orderpay-brand">{}</span> '
        '<span class="orderpay-digits">&bull;&bull;&bull;&bull;&nbsp;{}</span></span>',
        card_brand_name(brand),
        last_digits or "????",
    )


def short_id(provider_id: str) -> str:
    """``CHAR_62783AF0-8700-...`` -> ``CHAR_62783AF0…``: enough to tell rows apart and to
    search by (part of an id finds it); the whole id is in the link's title and on its page."""
    head, _dash, rest = provider_id.partition("-")
    return f"{head}…" if rest else provider_id


class CardBrandFilter(admin.SimpleListFilter):
    """The card brands present, by name (``Visa``), for a model's ``card_brand`` column."""

    title = _("card brand")
    parameter_name = "card_brand"
    #: The column holding the provider's lower-case brand.
    field = "card_brand"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, Any]]:
        brands = model_admin.model._default_manager.values_list(self.field, flat=True)
        found = sorted(set(brands) - {""})
        return [(brand, card_brand_name(brand)) for brand in found]

    def queryset(self, request: HttpRequest, queryset: models.QuerySet) -> models.QuerySet:
        return queryset.filter(**{self.field: self.value()}) if self.value() else queryset


def pretty_json(data: Any) -> str:
    """``data`` indented and key-sorted, non-ASCII kept readable, for a ``<pre>``."""
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False, default=str)


def admin_url(obj: models.Model, view: str = "change") -> str:
    """The URL of ``obj``'s admin page ``view`` (``change``, ``provider_json``)."""
    opts = obj._meta
    return reverse(f"admin:{opts.app_label}_{opts.model_name}_{view}", args=[obj.pk])


def admin_link(obj: models.Model | None, text: Any = None) -> SafeString | str:
    """A link to ``obj``'s change page, or ``""`` for no object."""
    if obj is None:
        return ""
    return format_html('<a href="{}">{}</a>', admin_url(obj), text if text is not None else obj)


def provider_json_link(obj: models.Model) -> SafeString | str:
    """A link to the read-only view of ``obj.data`` (unsaved objects have none)."""
    if obj.pk is None:
        return ""
    return format_html(
        '<a href="{}" class="orderpay-json-link">{}</a>',
        admin_url(obj, "provider_json"),
        _("Provider JSON"),
    )
