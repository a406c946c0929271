"""The stored-card admin: what identifies a card, never the card itself."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from ..models import CardToken
from ..rules import card_brand_name
from .accounts import AccountColumn
from .base import ReadOnlyAdmin
from .display import CardBrandFilter


class TokenBrandFilter(CardBrandFilter):
    title = _("brand")
    parameter_name = "brand"
    field = "brand"


@admin.register(CardToken)
class CardTokenAdmin(AccountColumn, ReadOnlyAdmin):
    """Brand, first 6, last 4, expiry, holder and owner; ``data`` is not shown.

    A stored card can be deleted (a customer asks to forget it); the token
    then no longer reaches the provider from this shop. ``removed at`` says
    when its owner removed it (``services.remove_card_token``) or a newer token
    of the same card replaced it.
    """

    list_display = (
        "provider_id",
        "brand_name",
        "first_digits",
        "last_digits",
        "expiry",
        "holder_name",
        "user",
        "has_recurrence",
        "created_at",
        "removed_at",
    )
    list_select_related = ("user",)
    list_filter = (TokenBrandFilter, "removed_at", "created_at")
    fields = (
        "provider_id",
        "user",
        "brand_name",
        "first_digits",
        "last_digits",
        "expiry",
        "holder_name",
        "has_recurrence",
        "created_at",
        "removed_at",
        "synced_at",
    )
    readonly_fields = fields
    list_per_page = 50

    def get_search_fields(self, request: HttpRequest) -> tuple[str, ...]:
        username = get_user_model().USERNAME_FIELD
        return ("provider_id", "=last_digits", "holder_name", f"user__{username}")

    def has_delete_permission(self, request: HttpRequest, obj: CardToken | None = None) -> bool:
        return admin.ModelAdmin.has_delete_permission(self, request, obj)

    @admin.display(description=_("brand"), ordering="brand")
    def brand_name(self, obj: CardToken) -> str:
        return card_brand_name(obj.brand)

    @admin.display(description=_("expiry"))
    def expiry(self, obj: CardToken) -> str:
        return f"{obj.exp_month}/{obj.exp_year}" if obj.exp_month else ""

    @admin.display(description=_("Elo recurrence"), boolean=True)
    def has_recurrence(self, obj: CardToken) -> bool:
        return obj.has_recurrence
