"""The shop's admin: products, and purchases with their lines and payment status.

Payments themselves (orders, charges, stored cards, notifications) are in
django-orderpay's own admin screens.
"""

from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from .models import Product, Purchase, PurchaseLine
from .payments import payment_state


@admin.register(Product)
class ProductAdmin(admin.ModelAdmin):
    list_display = ("name", "price_display", "active")
    list_filter = ("active",)
    prepopulated_fields = {"slug": ("name",)}
    search_fields = ("name",)

    @admin.display(description=_("price"))
    def price_display(self, obj: Product) -> str:
        return obj.price_display


class PurchaseLineInline(admin.TabularInline):
    model = PurchaseLine
    extra = 0
    fields = ("name", "unit_amount", "quantity")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False


@admin.register(Purchase)
class PurchaseAdmin(admin.ModelAdmin):
    list_display = (
        "__str__",
        "customer_name",
        "customer_email",
        "total_display",
        "payment",
        "created_at",
    )
    search_fields = ("customer_name", "customer_email", "reference")
    readonly_fields = ("reference", "user", "created_at", "payment")
    inlines = (PurchaseLineInline,)

    @admin.display(description=_("payment"))
    def payment(self, obj: Purchase) -> str:
        return payment_state(obj).label

    @admin.display(description=_("total"))
    def total_display(self, obj: Purchase) -> str:
        return obj.total_display
