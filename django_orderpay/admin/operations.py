"""The operation record: every money-moving call, and those whose outcome is still unknown."""

from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from ..models import Operation
from .accounts import AccountColumn
from .base import ReadOnlyAdmin, ReadOnlyInline
from .display import admin_link, money, pretty_json, short_datetime


class OperationColumns:
    """Columns shared by the operation list and the order page's inline."""

    @admin.display(description=_("created"), ordering="created_at")
    def created(self, obj: Operation) -> str | None:
        return short_datetime(obj.created_at)

    @admin.display(description=_("amount"))
    def amount_text(self, obj: Operation) -> str:
        return money(obj.amount) if obj.amount is not None else ""


@admin.register(Operation)
class OperationAdmin(AccountColumn, OperationColumns, ReadOnlyAdmin):
    """Read-only: operations are written by the services and settled by sync.

    The ``Outcome unknown`` filter lists what may have acted at the provider
    unheard: ``manage.py orderpay_sync`` settles what it can; the rest waits
    for the provider's notification.
    """

    list_display = (
        "created",
        "kind",
        "target",
        "amount_text",
        "state",
        "reported",
        "calls",
        "order_link",
    )
    list_filter = ("state", "kind", "created_at")
    search_fields = ("target", "=idempotency_key", "order__provider_id")
    search_help_text = _(
        "Target (reference id, ORDE_..., CHAR_..., or part of one), idempotency key or order."
    )
    date_hierarchy = "created_at"
    list_per_page = 50
    show_full_result_count = False
    list_select_related = ("order",)
    fields = (
        "kind",
        "state",
        "target",
        "amount_text",
        "order_link",
        "charge_link",
        "idempotency_key",
        "scope",
        "sequence",
        "calls",
        "reported",
        "unheard_calls",
        "unheard_until",
        "error",
        "created_at",
        "updated_at",
        "resolved_at",
        "replayable",
        "body_pretty",
        "basis",
    )
    readonly_fields = fields

    @admin.display(description=_("order"))
    def order_link(self, obj: Operation) -> str:
        return admin_link(obj.order, obj.order.provider_id) if obj.order else ""

    @admin.display(description=_("charge"))
    def charge_link(self, obj: Operation) -> str:
        return admin_link(obj.charge, obj.charge.provider_id) if obj.charge else ""

    @admin.display(description=_("request body (no card secrets)"))
    def body_pretty(self, obj: Operation) -> str:
        return pretty_json(obj.body)


class OperationInline(OperationColumns, ReadOnlyInline, admin.TabularInline):
    """An order's operations, newest first, on its page."""

    model = Operation
    fk_name = "order"
    fields = ("created", "kind", "target", "amount_text", "state", "calls", "error")
    readonly_fields = fields
    show_change_link = True
