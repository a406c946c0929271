"""The split admin: who receives what of a charge paid with ``splits``. Read-only."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db import models
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from ..models import Split
from .base import ProviderJSONMixin, ReadOnlyAdmin
from .display import (
    admin_link,
    money,
    provider_json_link,
    short_datetime,
    status_badge,
    status_label,
)


def _receiver_amount(receiver: dict, method: str) -> str:
    value = (receiver.get("amount") or {}).get("value")
    if not isinstance(value, int) or isinstance(value, bool):
        return ""
    return f"{value} %" if method == "PERCENTAGE" else money(value)


class SplitStatusFilter(admin.SimpleListFilter):
    """The statuses splits have here, in words (the field has no choices: PagBank lists none)."""

    title = _("status")
    parameter_name = "status"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, Any]]:
        statuses = Split.objects.exclude(status="").values_list("status", flat=True)
        return [(status, status_label(status)) for status in sorted(set(statuses))]

    def queryset(self, request: HttpRequest, queryset: models.QuerySet) -> models.QuerySet:
        return queryset.filter(status=self.value()) if self.value() else queryset


@admin.register(Split)
class SplitAdmin(ProviderJSONMixin, ReadOnlyAdmin):
    list_display = (
        "provider_id",
        "charge_link",
        "order_link",
        "method",
        "status_badge",
        "created",
    )
    list_select_related = ("charge", "charge__order")
    ordering = ("-created_at", "-pk")
    list_filter = ("method", SplitStatusFilter)
    search_fields = ("provider_id", "charge__provider_id", "charge__order__provider_id")
    fields = (
        "provider_id",
        "charge_link",
        "order_link",
        "method",
        "status_badge",
        "receivers_table",
        "json_link",
        "created_at",
        "synced_at",
    )
    readonly_fields = fields
    list_per_page = 50

    def get_queryset(self, request: HttpRequest) -> models.QuerySet:
        return super().get_queryset(request).select_related("charge", "charge__order")

    @admin.display(description=_("status"), ordering="status")
    def status_badge(self, obj: Split) -> str:
        return status_badge(obj.status)

    @admin.display(description=_("created at"), ordering="created_at")
    def created(self, obj: Split) -> str | None:
        return short_datetime(obj.created_at)

    @admin.display(description=_("charge"), ordering="charge__provider_id")
    def charge_link(self, obj: Split) -> str:
        return admin_link(obj.charge, obj.charge.provider_id)

    @admin.display(description=_("order"))
    def order_link(self, obj: Split) -> str:
        return admin_link(obj.charge.order, obj.charge.order.provider_id)

    @admin.display(description=_("receivers"))
    def receivers_table(self, obj: Split) -> str:
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    (receiver.get("account") or {}).get("id", ""),
                    receiver.get("type", ""),
                    _receiver_amount(receiver, obj.method),
                    receiver.get("reason", ""),
                )
                for receiver in obj.receivers
            ),
        )
        return format_html(
            '<table class="orderpay-receivers"><thead><tr><th>{}</th><th>{}</th><th>{}</th>'
            "<th>{}</th></tr></thead><tbody>{}</tbody></table>",
            _("account"),
            _("type"),
            _("amount"),
            _("reason"),
            rows,
        )

    @admin.display(description=_("provider JSON"))
    def json_link(self, obj: Split) -> str:
        return provider_json_link(obj)
