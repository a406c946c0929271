"""The order admin: find the order a customer calls about and see its charges and money."""

from __future__ import annotations

import re
from typing import Any

from django.contrib import admin
from django.db import models
from django.db.models import Exists, OuterRef, Subquery, Sum, Value
from django.db.models.functions import Coalesce
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from ..models import Charge, ChargeStatus, DeepLink, Operation, Order, QrCode, Split
from ..models.base import known_values
from .accounts import AccountColumn
from .actions import REFRESH_ORDERS, refresh_orders
from .base import ProviderJSONMixin, ReadOnlyAdmin, ReadOnlyInline
from .display import (
    admin_link,
    money,
    money_cell,
    provider_json_link,
    short_datetime,
    status_badge,
    status_label,
)
from .duplicates import DuplicatePaymentsField, PaidTwiceFilter
from .methods import QrCodeInline, payment_summary
from .object_actions import ObjectActionsMixin
from .operations import OperationInline

#: A CPF or CNPJ typed with its punctuation (123.456.789-09, 12.345.678/0001-95).
_FORMATTED_TAX_ID = re.compile(r"[\d.\-/ ]{11,18}")


def _charge_total(column: str) -> Coalesce:
    """Sum of ``column`` over an order's charges, as one correlated subquery."""
    per_order = (
        Charge.objects.filter(order=OuterRef("pk"))
        .order_by()
        .values("order")
        .annotate(total=Sum(column))
        .values("total")
    )
    return Coalesce(Subquery(per_order, output_field=models.IntegerField()), Value(0))


class ChargeStatusFilter(admin.SimpleListFilter):
    """Orders holding at least one charge in the chosen status."""

    title = _("charge status")
    parameter_name = "charge_status"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, Any]]:
        return list(ChargeStatus.choices)

    def queryset(self, request: HttpRequest, queryset: models.QuerySet) -> models.QuerySet:
        if self.value() not in known_values(ChargeStatus):
            return queryset
        charges = Charge.objects.filter(order=OuterRef("pk"), status=self.value())
        return queryset.filter(Exists(charges))


class ChargeInline(ReadOnlyInline, admin.TabularInline):
    model = Charge
    fk_name = "order"
    fields = (
        "charge_link",
        "status_badge",
        "amount",
        "paid",
        "refunded",
        "payment",
        "installments",
        "payment_response",
        "split_link",
        "created_at",
    )
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> models.QuerySet:
        return super().get_queryset(request).select_related("split")

    @admin.display(description=_("charge"))
    def charge_link(self, obj: Charge) -> str:
        return admin_link(obj, obj.provider_id)

    @admin.display(description=_("status"))
    def status_badge(self, obj: Charge) -> str:
        return status_badge(obj.status, obj.get_status_display())

    @admin.display(description=_("amount"))
    def amount(self, obj: Charge) -> str:
        return money_cell(obj.amount_value, obj.currency)

    @admin.display(description=_("paid"))
    def paid(self, obj: Charge) -> str:
        return money_cell(obj.amount_paid, obj.currency)

    @admin.display(description=_("refunded"))
    def refunded(self, obj: Charge) -> str:
        return money_cell(obj.amount_refunded, obj.currency)

    @admin.display(description=_("payment"))
    def payment(self, obj: Charge) -> str:
        return payment_summary(obj)

    @admin.display(description=_("payment response"))
    def payment_response(self, obj: Charge) -> str:
        return " ".join(filter(None, [obj.payment_response_code, obj.payment_response_message]))

    @admin.display(description=_("split"))
    def split_link(self, obj: Charge) -> str:
        try:
            split = obj.split
        except Split.DoesNotExist:
            return ""
        return admin_link(split, split.provider_id)


class DeepLinkInline(ReadOnlyInline, admin.StackedInline):
    model = DeepLink
    fields = ("deeplink_id", "url", "amount", "redirect_url", "expires_at")
    readonly_fields = fields

    @admin.display(description=_("amount"))
    def amount(self, obj: DeepLink) -> str:
        return money(obj.amount_value)


@admin.register(Order)
class OrderAdmin(
    AccountColumn, DuplicatePaymentsField, ObjectActionsMixin, ProviderJSONMixin, ReadOnlyAdmin
):
    list_display = (
        "provider_id",
        "reference_id",
        "status_badge",
        "customer_name",
        "customer_email",
        "total_paid",
        "total_refunded",
        "created",
    )
    list_filter = ("status", ChargeStatusFilter, PaidTwiceFilter, "created_at")
    search_fields = (
        "provider_id",  # part of an id finds it, the id of one of its charges too
        "charges__provider_id",
        "reference_id",
        "customer_name",
        "customer_email",
        "customer_tax_id",
    )
    search_help_text = _(
        "Order or charge id (ORDE_..., CHAR_..., or part of one), reference id, customer name, "
        "e-mail or CPF/CNPJ."
    )
    date_hierarchy = "created_at"
    list_per_page = 50
    show_full_result_count = False
    actions = [refresh_orders]
    object_actions = [REFRESH_ORDERS]
    inlines = [ChargeInline, QrCodeInline, DeepLinkInline, OperationInline]
    fieldsets = (
        (None, {"fields": ("provider_id", "reference_id", "status_badge", "json_link")}),
        (
            _("Customer"),
            {"fields": ("customer_name", "customer_email", "customer_tax_id", "user", "shop")},
        ),
        (
            _("Money"),
            {
                "fields": (
                    "items_total",
                    "total_paid",
                    "total_refunded",
                    "other_payments",
                    "splits",
                )
            },
        ),
        (_("Provider"), {"fields": ("notification_urls", "created_at", "synced_at")}),
    )
    readonly_fields = (
        "provider_id",
        "reference_id",
        "status_badge",
        "json_link",
        "customer_name",
        "customer_email",
        "customer_tax_id",
        "user",
        "shop",
        "items_total",
        "total_paid",
        "total_refunded",
        "other_payments",
        "splits",
        "notification_urls",
        "created_at",
        "synced_at",
    )

    def get_queryset(self, request: HttpRequest) -> models.QuerySet:
        # Totals as subqueries: one query for the page however many charges.
        return (
            super()
            .get_queryset(request)
            .annotate(
                paid_cents=_charge_total("amount_paid"),
                refunded_cents=_charge_total("amount_refunded"),
            )
        )

    def get_search_results(
        self, request: HttpRequest, queryset: models.QuerySet, search_term: str
    ) -> tuple[models.QuerySet, bool]:
        term = search_term.strip()
        # Staff paste a tax id as printed (123.456.789-09); the column holds digits.
        if _FORMATTED_TAX_ID.fullmatch(term) and len(re.sub(r"\D", "", term)) in (11, 14):
            search_term = re.sub(r"\D", "", term)
        return super().get_search_results(request, queryset, search_term)

    @admin.display(description=_("status"), ordering="status")
    def status_badge(self, obj: Order) -> str:
        return status_badge(obj.status, obj.get_status_display())

    @admin.display(description=_("created at"), ordering="created_at")
    def created(self, obj: Order) -> str | None:
        return short_datetime(obj.created_at)

    @admin.display(description=_("provider JSON"))
    def json_link(self, obj: Order) -> str:
        return provider_json_link(obj)

    @admin.display(description=_("paid"), ordering="paid_cents")
    def total_paid(self, obj: Order) -> str:
        return money_cell(obj.paid_cents)  # type: ignore[attr-defined]  # get_queryset's

    @admin.display(description=_("refunded"), ordering="refunded_cents")
    def total_refunded(self, obj: Order) -> str:
        return money_cell(obj.refunded_cents)  # type: ignore[attr-defined]  # get_queryset's

    @admin.display(description=_("items total"))
    def items_total(self, obj: Order) -> str:
        return money(obj.items_total)

    def get_inlines(self, request: HttpRequest, obj: Order | None) -> list[type]:
        # An order without a QR code, a deeplink (or operations) would show an empty box.
        inlines: list[type] = [ChargeInline]
        if obj is None or QrCode.objects.filter(order=obj).exists():
            inlines.append(QrCodeInline)
        if obj is None or DeepLink.objects.filter(order=obj).exists():
            inlines.append(DeepLinkInline)
        if obj is None or Operation.objects.filter(order=obj).exists():
            inlines.append(OperationInline)
        return inlines

    @admin.display(description=_("shop object"))
    def shop(self, obj: Order) -> str:
        if not obj.content_type_id:
            return self.get_empty_value_display()
        return f"{obj.content_type} #{obj.object_id}"

    @admin.display(description=_("notification URLs"))
    def notification_urls(self, obj: Order) -> str:
        return format_html_join("", "<div>{}</div>", ((url,) for url in obj.notification_urls))

    @admin.display(description=_("splits"))
    def splits(self, obj: Order) -> str:
        splits = list(Split.objects.filter(charge__order=obj).select_related("charge"))
        if not splits:
            return self.get_empty_value_display()
        return format_html_join(
            "",
            "<div>{}</div>",
            (
                (
                    format_html(
                        "{} ({}, {})",
                        admin_link(s, s.provider_id),
                        s.charge,
                        status_label(s.status),
                    ),
                )
                for s in splits
            ),
        )
