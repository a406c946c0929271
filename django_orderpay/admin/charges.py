"""The charge admin: why a card was declined, what was paid and refunded, and the actions."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db import models
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from ..models import Charge, ChargeStatusChange, Split
from .actions import (
    CANCEL_CHARGES,
    CAPTURE_CHARGES,
    REFRESH_ORDERS_OF_CHARGES,
    REFUND_CHARGES_PARTIALLY,
    cancel_charges,
    capture_charges,
    refresh_orders_of_charges,
    refund_charges_partially,
)
from .base import ProviderJSONMixin, ReadOnlyAdmin, ReadOnlyInline
from .display import (
    CardBrandFilter,
    admin_link,
    admin_url,
    card_summary,
    money,
    money_cell,
    provider_json_link,
    short_datetime,
    short_id,
    status_badge,
)
from .methods import METHOD_FIELDS, METHOD_FIELDSETS, MethodFields, payment_short
from .object_actions import ObjectActionsMixin
from .threeds import interest_summary, threeds_summary


class ChargeStatusChangeInline(ReadOnlyInline, admin.TabularInline):
    """The append-only history: shown, never added to, changed or deleted here."""

    model = ChargeStatusChange
    fields = ("created_at", "old_status_badge", "new_status_badge", "source")
    readonly_fields = fields
    ordering = ("created_at", "pk")

    @admin.display(description=_("from"))
    def old_status_badge(self, obj: ChargeStatusChange) -> str:
        return status_badge(obj.old_status) if obj.old_status else "-"

    @admin.display(description=_("to"))
    def new_status_badge(self, obj: ChargeStatusChange) -> str:
        return status_badge(obj.new_status)


@admin.register(Charge)
class ChargeAdmin(MethodFields, ObjectActionsMixin, ProviderJSONMixin, ReadOnlyAdmin):
    # Six columns, some of two lines, so the list fits a 1440 px screen beside the
    # admin's sidebars: the id over its order, the amount over what was paid,
    # refunded and in how many installments, the brand over the digits (or Pix, or a
    # boleto over its due date).
    list_display = (
        "charge_cell",
        "status_badge",
        "money_cell",
        "card_column",
        "payment_response",
        "created",
    )
    list_display_links = None  # the first cell links the charge and its order itself
    list_select_related = ("order",)
    ordering = ("-created_at", "-pk")  # newest first, whatever the model's own order
    list_filter = (
        "status",
        "payment_method",
        CardBrandFilter,
        "capture",
        "recurring_type",
        "created_at",
    )
    search_fields = (
        "provider_id",  # part of an id finds it: staff paste what they have
        "reference_id",
        "order__provider_id",
        "order__reference_id",
        "order__customer_name",
        "order__customer_email",
        "=card_last_digits",
        "=payment_method",
    )
    search_help_text = _(
        "Charge or order id (or part of one), reference id, customer name or e-mail, "
        "card's last 4 digits, PIX or BOLETO."
    )
    date_hierarchy = "created_at"
    list_per_page = 50
    show_full_result_count = False
    actions = [cancel_charges, refund_charges_partially, capture_charges, refresh_orders_of_charges]
    object_actions = [
        CAPTURE_CHARGES,
        REFUND_CHARGES_PARTIALLY,
        CANCEL_CHARGES,
        REFRESH_ORDERS_OF_CHARGES,
    ]
    inlines = [ChargeStatusChangeInline]
    fieldsets = (
        (None, {"fields": ("provider_id", "order_link", "reference_id", "status_badge")}),
        (
            _("Money"),
            {
                "fields": (
                    "amount",
                    "paid",
                    "refunded",
                    "refundable",
                    "installments",
                    "buyer_interest",
                    "capture",
                    "capture_before",
                    "paid_at",
                )
            },
        ),
        (
            _("Payment response"),
            {
                "fields": (
                    "payment_response_code",
                    "payment_response_message",
                    "payment_response_reference",
                )
            },
        ),
        (_("Card"), {"fields": ("payment_method", "card", "threeds", "card_token_link")}),
        (_("Recurrence"), {"fields": ("recurring_type", "brand_reference_id")}),
        (_("Split"), {"fields": ("split_method", "split_link")}),
        (_("Provider"), {"fields": ("json_link", "created_at", "synced_at")}),
    )
    readonly_fields = (
        "provider_id",
        "order_link",
        "reference_id",
        "status_badge",
        "amount",
        "paid",
        "refunded",
        "refundable",
        "installments",
        "capture",
        "capture_before",
        "paid_at",
        "payment_response_code",
        "payment_response_message",
        "payment_response_reference",
        "payment_method",
        "card",
        "threeds",
        "buyer_interest",
        "card_token_link",
        "recurring_type",
        "brand_reference_id",
        "split_method",
        "split_link",
        "json_link",
        "created_at",
        "synced_at",
        *METHOD_FIELDS,
    )

    def get_fieldsets(self, request: HttpRequest, obj: Charge | None = None) -> Any:
        """A card's fields for a card charge; a Pix's or a boleto's in their place."""
        fieldsets = super().get_fieldsets(request, obj)
        method = METHOD_FIELDSETS.get(obj.payment_method) if obj is not None else None
        if method is None:
            return fieldsets
        shown: list[Any] = []
        for name, options in fieldsets:
            if "card" in options["fields"]:
                shown.append(method)
            elif "recurring_type" not in options["fields"]:  # a card's recurrence
                shown.append((name, options))
        return shown

    def get_queryset(self, request: HttpRequest) -> models.QuerySet:
        return super().get_queryset(request).select_related("order")

    @admin.display(description=_("order"), ordering="order__reference_id")
    def order_link(self, obj: Charge) -> str:
        # The shop's own reference is what staff know an order by; the id is in the title.
        order = obj.order
        return format_html(
            '<a href="{}" title="{}">{}</a>',
            admin_url(order),
            order.provider_id,
            order.reference_id or order.provider_id,
        )

    @admin.display(description=_("charge"), ordering="provider_id")
    def charge_cell(self, obj: Charge) -> str:
        order = obj.order
        return format_html(
            '<a href="{}" class="orderpay-id" title="{}">{}</a>'
            '<div class="orderpay-sub">{} <a href="{}" title="{}">{}</a></div>',
            admin_url(obj),
            obj.provider_id,
            short_id(obj.provider_id),
            _("order"),
            admin_url(order),
            order.provider_id,
            order.reference_id or short_id(order.provider_id),
        )

    @admin.display(description=_("amount"), ordering="amount_value")
    def money_cell(self, obj: Charge) -> str:
        lines = []
        if obj.installments > 1:
            lines.append(_("in %(count)dx") % {"count": obj.installments})
        if obj.amount_paid and obj.amount_paid != obj.amount_value:
            lines.append(format_html("{} {}", _("paid"), money_cell(obj.amount_paid, obj.currency)))
        if obj.amount_refunded:
            refunded = money_cell(obj.amount_refunded, obj.currency)
            lines.append(format_html("{} {}", _("refunded"), refunded))
        return format_html(
            "{}{}",
            money_cell(obj.amount_value, obj.currency),
            format_html_join("", '<div class="orderpay-sub">{}</div>', ((line,) for line in lines)),
        )

    @admin.display(description=_("status"), ordering="status")
    def status_badge(self, obj: Charge) -> str:
        return status_badge(obj.status, obj.get_status_display())

    @admin.display(description=_("amount"), ordering="amount_value")
    def amount(self, obj: Charge) -> str:
        return money_cell(obj.amount_value, obj.currency)

    @admin.display(description=_("paid"), ordering="amount_paid")
    def paid(self, obj: Charge) -> str:
        return money_cell(obj.amount_paid, obj.currency)

    @admin.display(description=_("refunded"), ordering="amount_refunded")
    def refunded(self, obj: Charge) -> str:
        return money_cell(obj.amount_refunded, obj.currency)

    @admin.display(description=_("refundable"))
    def refundable(self, obj: Charge) -> str:
        return money(obj.refundable_amount, obj.currency)

    @admin.display(description=_("payment"), ordering="payment_method")
    def card_column(self, obj: Charge) -> str:
        return payment_short(obj)

    @admin.display(description=_("card"))
    def card(self, obj: Charge) -> str:
        return card_summary(obj.card_brand, obj.card_first_digits, obj.card_last_digits)

    @admin.display(description=_("3-D Secure"))
    def threeds(self, obj: Charge) -> str:
        return threeds_summary(obj)

    @admin.display(description=_("buyer's interest"))
    def buyer_interest(self, obj: Charge) -> str:
        return interest_summary(obj)

    @admin.display(description=_("payment response"), ordering="payment_response_code")
    def payment_response(self, obj: Charge) -> str:
        return " ".join(filter(None, [obj.payment_response_code, obj.payment_response_message]))

    @admin.display(description=_("payment response reference"))
    def payment_response_reference(self, obj: Charge) -> str:
        return str(obj.payment_response.get("reference") or "")

    @admin.display(description=_("created at"), ordering="created_at")
    def created(self, obj: Charge) -> str | None:
        return short_datetime(obj.created_at)

    @admin.display(description=_("card token"))
    def card_token_link(self, obj: Charge) -> str:
        return admin_link(obj.card_token)

    @admin.display(description=_("split"))
    def split_link(self, obj: Charge) -> str:
        try:
            split = obj.split
        except Split.DoesNotExist:
            return ""
        return admin_link(split, split.provider_id)

    @admin.display(description=_("provider JSON"))
    def json_link(self, obj: Charge) -> str:
        return provider_json_link(obj)
