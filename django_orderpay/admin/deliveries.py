"""The notification delivery log: what arrived, whether it was valid, what became of it."""

from __future__ import annotations

import json

from django.contrib import admin
from django.db import models
from django.db.models import OuterRef, Subquery
from django.http import HttpRequest
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from ..models import NotificationDelivery, Order
from .accounts import AccountColumn
from .actions import replay_deliveries
from .base import ReadOnlyAdmin
from .display import admin_url, outcome_badge, pretty_json, short_datetime


@admin.register(NotificationDelivery)
class NotificationDeliveryAdmin(AccountColumn, ReadOnlyAdmin):
    """Read-only; the replay action processes a delivery again (it re-fetches the order)."""

    account_fields = ("account", "signed_with")

    list_display = (
        "received",
        "order_link",
        "outcome_badge",
        "valid",
        "attempts",
        "processed",
        "remote_addr",
    )
    list_filter = ("outcome", "valid", "received_at")
    search_fields = ("order_provider_id",)
    search_help_text = _("The order's provider id (ORDE_..., or part of it).")
    date_hierarchy = "received_at"
    list_per_page = 50
    show_full_result_count = False
    actions = [replay_deliveries]
    fields = (
        "received_at",
        "order_link",
        "outcome_badge",
        "valid",
        "attempts",
        "processed_at",
        "error",
        "remote_addr",
        "content_type",
        "headers_text",
        "body_pretty",
        "dedupe_key",
        "traceback",
    )
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> models.QuerySet:
        # The local order's pk, for a link, without a query per row.
        order_pk = Order.objects.filter(provider_id=OuterRef("order_provider_id")).values("pk")
        return super().get_queryset(request).annotate(order_pk=Subquery(order_pk[:1]))

    @admin.display(description=_("received at"), ordering="received_at")
    def received(self, obj: NotificationDelivery) -> str | None:
        return short_datetime(obj.received_at)

    @admin.display(description=_("processed at"), ordering="processed_at")
    def processed(self, obj: NotificationDelivery) -> str | None:
        return short_datetime(obj.processed_at)

    @admin.display(description=_("order"), ordering="order_provider_id")
    def order_link(self, obj: NotificationDelivery) -> str:
        if not obj.order_provider_id:
            return "-"
        order_pk = obj.order_pk  # type: ignore[attr-defined]  # annotated by get_queryset
        if order_pk is None:
            return obj.order_provider_id
        url = admin_url(Order(pk=order_pk))
        return format_html('<a href="{}">{}</a>', url, obj.order_provider_id)

    @admin.display(description=_("outcome"), ordering="outcome")
    def outcome_badge(self, obj: NotificationDelivery) -> str:
        return outcome_badge(obj.outcome, obj.get_outcome_display())

    @admin.display(description=_("headers"))
    def headers_text(self, obj: NotificationDelivery) -> str:
        return format_html("<pre>{}</pre>", pretty_json(obj.headers))

    @admin.display(description=_("body"))
    def body_pretty(self, obj: NotificationDelivery) -> str:
        text = obj.body_text
        try:
            text = pretty_json(json.loads(text))
        except ValueError:
            pass
        return format_html('<pre class="orderpay-json">{}</pre>', text)
