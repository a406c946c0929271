"""The order admin's view of a purchase paid twice (see ``django_orderpay.duplicates``)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Exists, OuterRef, QuerySet
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _

from ..duplicates import HOLDS_MONEY, other_payments
from ..models import Charge, Order
from .display import admin_url, money


class PaidTwiceFilter(admin.SimpleListFilter):
    """Orders holding money for a shop object another order holds money for too."""

    title = _("paid more than once")
    parameter_name = "paid_twice"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, Any]]:
        return [("yes", _("Yes"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Order]) -> QuerySet[Order]:
        if self.value() != "yes":
            return queryset
        holding = Charge.objects.filter(HOLDS_MONEY)
        mine = holding.filter(order=OuterRef("pk"))
        elsewhere = holding.filter(
            order__content_type=OuterRef("content_type"),
            order__object_id=OuterRef("object_id"),
        ).exclude(order=OuterRef("pk"))
        return queryset.filter(Exists(mine), Exists(elsewhere), content_type__isnull=False)


class DuplicatePaymentsField:
    """The order page's "also paid by": the other charges holding money for its purchase."""

    @admin.display(description=_("also paid by"))
    def other_payments(self, obj: Order) -> SafeString | str:
        seen: dict[int, Charge] = {}
        for charge in obj.charges.all():
            for other in other_payments(charge):
                if other.order_id != obj.pk:
                    seen[other.pk] = other
        if not seen:
            return "-"
        return format_html(
            '<ul class="orderpay-duplicates">{}</ul>',
            format_html_join(
                "",
                '<li><a href="{}">{}</a> {} ({})</li>',
                (
                    (admin_url(other), other.provider_id, money(other.amount_paid), other.status)
                    for other in seen.values()
                ),
            ),
        )
