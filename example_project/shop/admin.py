"""The shop's admin: products, and purchases with their lines and payment status.

Payments themselves (orders, charges, stored cards, notifications) are in
django-orderpay's own admin screens: a purchase's page links to each of its
charges there.
"""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _

from django_orderpay.admin import create_payment_link
from django_orderpay.models import Charge, format_cents

from .models import Product, Purchase, PurchaseLine, Seller
from .payments import payment_state


@admin.register(Seller)
class SellerAdmin(admin.ModelAdmin):
    """The marketplace's sellers (their PagBank accounts: django-orderpay's connected ones)."""

    list_display = ("name", "user", "commission", "pagbank_account")
    search_fields = ("name",)

    @admin.display(description=_("PagBank account"))
    def pagbank_account(self, obj: Seller) -> SafeString | str:
        account = obj.account
        if account is None:
            return _("not connected")
        url = reverse("admin:django_orderpay_connectedaccount_change", args=[account.pk])
        return format_html(
            '<a href="{}">{} ({})</a>', url, account.account_id, account.get_state_display()
        )


@admin.register(Product)
class ProductAdmin(admin.ModelAdmin):
    list_display = ("name", "price_display", "seller", "active")
    list_filter = ("active", "seller")
    prepopulated_fields = {"slug": ("name",)}
    search_fields = ("name",)

    @admin.display(description=_("price"), ordering="price")
    def price_display(self, obj: Product) -> str:
        return obj.price_display


class PurchaseLineInline(admin.TabularInline):
    model = PurchaseLine
    extra = 0
    fields = ("name", "unit_price", "quantity", "subtotal")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False

    @admin.display(description=_("unit price"))
    def unit_price(self, obj: PurchaseLine) -> str:
        return format_cents(obj.unit_amount)

    @admin.display(description=_("subtotal"))
    def subtotal(self, obj: PurchaseLine) -> str:
        return obj.subtotal_display


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
    readonly_fields = ("reference", "user", "created_at", "total_display", "payment", "charges")
    inlines = (PurchaseLineInline,)
    # Staff send a PagBank payment link (a hosted checkout) for a purchase.
    actions = (create_payment_link,)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Purchase]:
        return super().get_queryset(request).prefetch_related("lines")  # the totals

    @admin.display(description=_("payment"))
    def payment(self, obj: Purchase) -> str:
        return payment_state(obj).label

    @admin.display(description=_("total"))
    def total_display(self, obj: Purchase) -> str:
        return obj.total_display

    @admin.display(description=_("charges"))
    def charges(self, obj: Purchase) -> SafeString | str:
        """Each charge of the purchase's provider orders, linked to its page in the payments
        admin (where staff refund or capture it), newest first."""
        found = Charge.objects.filter(order__in=obj.payment_orders()).order_by("-created_at", "-pk")
        if not found:
            return self.get_empty_value_display()
        return format_html_join(
            "",
            '<div><a href="{}">{}</a> {} {}</div>',
            (
                (
                    reverse("admin:django_orderpay_charge_change", args=[charge.pk]),
                    charge.provider_id,
                    charge.status_label,
                    format_html("({})", format_cents(charge.amount_value, charge.currency)),
                )
                for charge in found
            ),
        )
