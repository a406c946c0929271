"""Card attempts the card-testing limits refused: who, what was counted, how often."""

from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from ..models import CardAttemptRefusal
from .base import ReadOnlyAdmin
from .display import short_datetime


@admin.register(CardAttemptRefusal)
class CardAttemptRefusalAdmin(ReadOnlyAdmin):
    """Read-only: the package writes a row per counter and window, and bounds the table.

    Staff read it to see an attack (one address, one session, one purchase
    refused again and again) and to answer a shopper who was refused.
    """

    list_display = (
        "first_refused",
        "last_refused",
        "scope",
        "kind",
        "limit",
        "refusals",
        "user",
        "address",
        "purchase",
    )
    list_filter = ("scope", "kind", "first_refused_at")
    search_fields = ("address", "counted", "purchase", "user__username")
    search_help_text = _("An address, a purchase or a username.")
    date_hierarchy = "first_refused_at"
    list_select_related = ("user",)
    list_per_page = 50
    show_full_result_count = False
    fields = (
        "first_refused_at",
        "last_refused_at",
        "scope",
        "kind",
        "limit",
        "refusals",
        "counted",
        "user",
        "address",
        "purchase",
    )
    readonly_fields = fields

    @admin.display(description=_("first refused"), ordering="first_refused_at")
    def first_refused(self, obj: CardAttemptRefusal) -> str | None:
        return short_datetime(obj.first_refused_at)

    @admin.display(description=_("last refused"), ordering="last_refused_at")
    def last_refused(self, obj: CardAttemptRefusal) -> str | None:
        return short_datetime(obj.last_refused_at)
