"""The checkout admin: PagBank's hosted pages (and payment links), their orders, and staff's
payment links for a shop object.

Staff see each checkout's status, link and the orders its page made;
switch it off (and on) and refresh it, behind confirmation and the
``inactivate_checkout`` / ``refresh_checkout`` permissions; and, with
``add_checkout``, create a payment link for one of the shop's objects (the
"Add" button, or :data:`create_payment_link`, an action a shop lists on its
own ModelAdmin) to send by e-mail or WhatsApp.
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.contrib import admin, messages
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied
from django.db import models
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .. import payloads, rules, services
from ..exceptions import OrderPayError, PayloadError
from ..hosted_checkout import checkout_link
from ..models import Checkout, CheckoutStatus, Order
from .accounts import AccountColumn
from .base import ProviderJSONMixin, ReadOnlyAdmin, ReadOnlyInline
from .confirm import ConfirmedAction, Outcome, Step
from .display import admin_link, money, money_cell, provider_json_link, short_datetime, status_badge
from .forms import MoneyField
from .object_actions import ObjectActionsMixin

#: How long staff may make a link last (our bound: PagBank documents none).
LONGEST_LINK_DAYS = 30


def _step(checkout: Checkout, text: str, *, skipped: bool = False) -> Step:
    badge = status_badge(checkout.status, checkout.get_status_display())
    detail = ", ".join(filter(None, [checkout.reference_id, money(checkout.amount_value)]))
    return Step(checkout, text, skipped=skipped, badge=badge, detail=detail)


class InactivateCheckouts(ConfirmedAction):
    """Switch a checkout's page off: it takes no payment until activated (or expired)."""

    name = "inactivate_checkouts"
    description = gettext_lazy("Inactivate selected checkouts")
    button_label = gettext_lazy("Inactivate")
    permission = "inactivate_checkout"
    submit_label = gettext_lazy("Yes, inactivate them")

    def plan(self, obj: Checkout) -> Step:
        if obj.status != CheckoutStatus.ACTIVE or obj.is_expired():
            return _step(obj, _("it takes no payments already"), skipped=True)
        return _step(obj, _("its page stops taking payments (payments made stay as they are)"))

    def perform(self, obj: Checkout, cleaned_data: dict[str, Any], idempotency_key: str) -> Outcome:
        checkout = services.inactivate_checkout(obj)
        return Outcome(_("now %(status)s") % {"status": checkout.get_status_display()})


class ActivateCheckouts(ConfirmedAction):
    """Switch an inactive checkout's page on again (not once it has expired)."""

    name = "activate_checkouts"
    description = gettext_lazy("Activate selected checkouts")
    button_label = gettext_lazy("Activate")
    permission = "inactivate_checkout"
    submit_label = gettext_lazy("Yes, activate them")

    def plan(self, obj: Checkout) -> Step:
        if obj.is_expired():
            return _step(obj, _("it has expired: a checkout can't be activated then"), skipped=True)
        if obj.status != CheckoutStatus.INACTIVE:
            return _step(obj, _("it takes payments already"), skipped=True)
        return _step(obj, _("its page takes payments again"))

    def perform(self, obj: Checkout, cleaned_data: dict[str, Any], idempotency_key: str) -> Outcome:
        checkout = services.activate_checkout(obj)
        return Outcome(_("now %(status)s") % {"status": checkout.get_status_display()})


class RefreshCheckouts(ConfirmedAction):
    """Fetch checkouts again, with the orders made on their pages."""

    name = "refresh_checkouts"
    description = gettext_lazy("Refresh selected checkouts from the provider")
    button_label = gettext_lazy("Refresh from the provider")
    permission = "refresh_checkout"
    changes_state = False
    submit_label = gettext_lazy("Yes, refresh them")

    def plan(self, obj: Checkout) -> Step:
        return _step(obj, _("fetch it and the orders made on its page from the provider"))

    def perform(self, obj: Checkout, cleaned_data: dict[str, Any], idempotency_key: str) -> Outcome:
        checkout = services.refresh_checkout(obj)
        text = _("refreshed, status %(status)s, %(count)d orders") % {
            "status": checkout.get_status_display(),
            "count": checkout.orders.count(),
        }
        return Outcome(text)


INACTIVATE_CHECKOUTS = InactivateCheckouts()
ACTIVATE_CHECKOUTS = ActivateCheckouts()
REFRESH_CHECKOUTS = RefreshCheckouts()


class CheckoutOrderInline(ReadOnlyInline, admin.TabularInline):
    """The orders made on the checkout's page (each payment, or attempt, is one)."""

    model = Order
    fk_name = "checkout"
    fields = ("order_link", "status_badge", "customer_name", "created_at")
    readonly_fields = fields
    verbose_name = gettext_lazy("order made on its page")
    verbose_name_plural = gettext_lazy("orders made on its page")

    @admin.display(description=gettext_lazy("order"))
    def order_link(self, obj: Order) -> str:
        return admin_link(obj, obj.provider_id)

    @admin.display(description=gettext_lazy("status"))
    def status_badge(self, obj: Order) -> str:
        return status_badge(obj.status, obj.get_status_display())


class PaymentLinkForm(forms.Form):
    """What staff say about a payment link: whose, for what, how much, until when."""

    content_type = forms.ModelChoiceField(
        ContentType.objects.all(), label=gettext_lazy("shop object type")
    )
    object_id = forms.CharField(label=gettext_lazy("shop object id"), max_length=64)
    description = forms.CharField(
        label=gettext_lazy("what is paid for"),
        max_length=rules.CHECKOUT_FIELD_LIMITS["items.name"][1],
    )
    amount = MoneyField(label=gettext_lazy("amount"))
    hours = forms.IntegerField(
        label=gettext_lazy("valid for (hours)"),
        min_value=1,
        max_value=LONGEST_LINK_DAYS * 24,
        initial=48,
    )
    payment_methods = forms.MultipleChoiceField(
        label=gettext_lazy("payment methods"),
        choices=[
            ("CREDIT_CARD", gettext_lazy("Credit card")),
            ("DEBIT_CARD", gettext_lazy("Debit card")),
            ("PIX", gettext_lazy("Pix")),
            ("BOLETO", gettext_lazy("Boleto")),
        ],
        initial=["CREDIT_CARD", "PIX", "BOLETO"],
        widget=forms.CheckboxSelectMultiple,
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        content_type, object_id = data.get("content_type"), data.get("object_id")
        if content_type is not None and object_id:
            model = content_type.model_class()
            found = model._default_manager.filter(pk=object_id).first() if model else None
            if found is None:
                self.add_error("object_id", _("No such object of that type."))
            data["shop_object"] = found
        amount = data.get("amount")
        if amount is not None and amount > rules.CHECKOUT_MAX_AMOUNT:
            self.add_error("amount", _("The amount is larger than PagBank takes."))
        return data

    def checkout_request(self) -> payloads.CheckoutRequest:
        data = self.cleaned_data
        item = payloads.CheckoutItem(
            quantity=1, unit_amount=data["amount"], name=data["description"]
        )
        return payloads.CheckoutRequest(
            items=(item,),
            reference_id=f"link-{data['content_type'].pk}-{data['object_id']}"[:64],
            expiration_date=timezone.now().replace(microsecond=0)
            + dt.timedelta(hours=data["hours"]),
            payment_methods=tuple(
                payloads.CheckoutPaymentMethod(kind) for kind in data["payment_methods"]
            ),
        )


@admin.register(Checkout)
class CheckoutAdmin(AccountColumn, ObjectActionsMixin, ProviderJSONMixin, ReadOnlyAdmin):
    list_display = (
        "provider_id",
        "reference_id",
        "status_badge",
        "amount",
        "shop",
        "expires",
        "paid_at",
    )
    list_filter = ("status", "created_at")
    search_fields = ("provider_id", "reference_id", "orders__provider_id")
    search_help_text = gettext_lazy("Checkout or order id (CHEC_..., ORDE_...), or reference id.")
    date_hierarchy = "created_at"
    list_per_page = 50
    show_full_result_count = False
    actions = [
        INACTIVATE_CHECKOUTS.as_admin_action(),
        ACTIVATE_CHECKOUTS.as_admin_action(),
        REFRESH_CHECKOUTS.as_admin_action(),
    ]
    object_actions = [INACTIVATE_CHECKOUTS, ACTIVATE_CHECKOUTS, REFRESH_CHECKOUTS]
    inlines = [CheckoutOrderInline]
    fieldsets = (
        (None, {"fields": ("provider_id", "reference_id", "status_badge", "json_link")}),
        (
            gettext_lazy("Payment page"),
            {"fields": ("amount", "pay_link", "shop_link", "expires_at", "paid_at")},
        ),
        (gettext_lazy("Shop"), {"fields": ("user", "shop")}),
        (gettext_lazy("Provider"), {"fields": ("created_at", "synced_at")}),
    )
    readonly_fields = (
        "provider_id",
        "reference_id",
        "status_badge",
        "json_link",
        "amount",
        "pay_link",
        "shop_link",
        "expires_at",
        "paid_at",
        "user",
        "shop",
        "created_at",
        "synced_at",
    )

    def has_inactivate_checkout_permission(self, request: HttpRequest) -> bool:
        return self._has_orderpay_perm(request, "inactivate_checkout")

    def has_refresh_checkout_permission(self, request: HttpRequest) -> bool:
        return self._has_orderpay_perm(request, "refresh_checkout")

    def has_add_permission(self, request: HttpRequest) -> bool:
        # "Add" is the payment-link form: staff never type a checkout's fields by hand.
        return self._has_orderpay_perm(request, "add_checkout")

    def add_view(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        return HttpResponseRedirect(reverse("admin:django_orderpay_checkout_payment_link"))

    def get_urls(self) -> list[URLPattern]:
        view = self.admin_site.admin_view(self.payment_link_view)
        own = [path("payment-link/", view, name="django_orderpay_checkout_payment_link")]
        return own + super().get_urls()

    def payment_link_view(self, request: HttpRequest) -> HttpResponse:
        """The form of a payment link for a shop object; then the link, to send."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        form = PaymentLinkForm(request.POST or None, initial=request.GET.dict() or None)
        created = None
        if request.method == "POST" and form.is_valid():
            try:
                created = services.create_checkout(
                    form.checkout_request(), shop_object=form.cleaned_data["shop_object"]
                )
            except PayloadError as exc:
                for error in exc.errors:
                    form.add_error(None, f"{error.path}: {error.message}")
            except OrderPayError as exc:
                self.message_user(
                    request, _("PagBank refused it: %(error)s") % {"error": exc}, messages.ERROR
                )
        context = {
            **self.admin_site.each_context(request),
            "title": _("Create a payment link"),
            "opts": self.model._meta,
            "form": form,
            "checkout": created,
            "shop_url": request.build_absolute_uri(checkout_link(created)) if created else "",
            "media": self.media + form.media,
        }
        return TemplateResponse(request, "admin/django_orderpay/payment_link.html", context)

    @admin.display(description=gettext_lazy("status"), ordering="status")
    def status_badge(self, obj: Checkout) -> str:
        label = obj.get_status_display()
        if obj.status != CheckoutStatus.EXPIRED and obj.is_expired():
            return status_badge(CheckoutStatus.EXPIRED, _("Expired (not confirmed yet)"))
        return status_badge(obj.status, label)

    @admin.display(description=gettext_lazy("amount"), ordering="amount_value")
    def amount(self, obj: Checkout) -> str:
        return money_cell(obj.amount_value)

    @admin.display(description=gettext_lazy("expires at"), ordering="expires_at")
    def expires(self, obj: Checkout) -> str | None:
        return short_datetime(obj.expires_at)

    @admin.display(description=gettext_lazy("provider JSON"))
    def json_link(self, obj: Checkout) -> str:
        return provider_json_link(obj)

    @admin.display(description=gettext_lazy("PagBank's page"))
    def pay_link(self, obj: Checkout) -> str:
        if not obj.pay_url:
            return self.get_empty_value_display()
        return format_html(
            '<a href="{}" target="_blank" rel="noopener">{}</a>', obj.pay_url, obj.pay_url
        )

    @admin.display(description=gettext_lazy("the shop's link (to send)"))
    def shop_link(self, obj: Checkout) -> str:
        return checkout_link(obj)

    @admin.display(description=gettext_lazy("shop object"))
    def shop(self, obj: Checkout) -> str:
        if not obj.content_type_id:
            return self.get_empty_value_display()
        return f"{obj.content_type} #{obj.object_id}"


@admin.action(description=gettext_lazy("Create a PagBank payment link"))
def create_payment_link(
    modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: models.QuerySet
) -> HttpResponse | None:
    """For a shop's own ModelAdmin: the payment-link form, started for the one object selected.

    The amount starts from the object's ``total`` (integer cents) when it has
    one, the description from ``str(obj)``.
    """
    if not request.user.has_perm("django_orderpay.add_checkout"):
        raise PermissionDenied
    chosen = list(queryset[:2])
    if len(chosen) != 1:
        modeladmin.message_user(
            request, _("Select one object for a payment link."), messages.WARNING
        )
        return None
    obj = chosen[0]
    query = {
        "content_type": ContentType.objects.get_for_model(obj).pk,
        "object_id": obj.pk,
        "description": str(obj)[:100],
    }
    total = getattr(obj, "total", None)
    if isinstance(total, int) and not isinstance(total, bool) and total > 0:
        query["amount"] = f"{total // 100},{total % 100:02d}"
    url = reverse("admin:django_orderpay_checkout_payment_link")
    return HttpResponseRedirect(f"{url}?{urlencode(query)}")
