"""How a charge was (or is to be) paid, in the admin: a card, a Pix, a boleto.

One place for what the charge list, the order's charge rows and the charge
page show of each method, so a new method is added here once.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _

from ..models import Charge, PaymentMethodType, QrCode
from .base import ReadOnlyInline
from .display import card_short, card_summary, money

#: The charge page's fieldset of each method (a card's is the default).
METHOD_FIELDSETS: dict[str, tuple[Any, dict[str, Any]]] = {
    PaymentMethodType.PIX: (_("Pix"), {"fields": ("pix_end_to_end_id", "pix_payer")}),
    PaymentMethodType.BOLETO: (
        _("Boleto"),
        {"fields": ("due_date", "boleto_line", "boleto_files")},
    ),
}
METHOD_FIELDS = ("pix_end_to_end_id", "pix_payer", "due_date", "boleto_line", "boleto_files")


def payment_short(charge: Charge) -> SafeString | str:
    """A list cell: ``Visa •••• 1111``, ``Pix``, ``Boleto`` over its due date."""
    if charge.payment_method == PaymentMethodType.BOLETO:
        due = date_format(charge.due_date, "SHORT_DATE_FORMAT") if charge.due_date else ""
        return format_html(
            '{}<div class="orderpay-sub">{}</div>', charge.get_payment_method_display(), due
        )
    if charge.payment_method == PaymentMethodType.PIX:
        return str(charge.get_payment_method_display())
    return card_short(charge.card_brand, charge.card_last_digits)


def payment_summary(charge: Charge) -> str:
    """One line: ``Visa 411111******1111``, ``Pix``, ``Boleto, due 27/11/2026``."""
    if charge.payment_method == PaymentMethodType.BOLETO and charge.due_date:
        due = date_format(charge.due_date, "SHORT_DATE_FORMAT")
        return str(_("Boleto, due %(date)s") % {"date": due})
    if charge.payment_method in (PaymentMethodType.PIX, PaymentMethodType.BOLETO):
        return str(charge.get_payment_method_display())
    return card_summary(charge.card_brand, charge.card_first_digits, charge.card_last_digits)


class MethodFields:
    """The charge page's Pix and boleto fields (mixed into the charge admin)."""

    @admin.display(description=_("end-to-end id"))
    def pix_end_to_end_id(self, obj: Charge) -> str:
        return str(obj.pix.get("end_to_end_id") or "")

    @admin.display(description=_("payer"))
    def pix_payer(self, obj: Charge) -> str:
        holder = obj.pix.get("holder") or {}
        return " · ".join(str(holder[key]) for key in ("name", "tax_id") if holder.get(key))

    @admin.display(description=_("typeable line"))
    def boleto_line(self, obj: Charge) -> str:
        boleto = obj.boleto
        return str(boleto.get("formatted_barcode") or boleto.get("barcode") or "")

    @admin.display(description=_("files"))
    def boleto_files(self, obj: Charge) -> SafeString | str:
        files = ((obj.pdf_url, "PDF"), (obj.image_url, "PNG"))
        links = [(url, label) for url, label in files if url]
        return SafeString(
            " · ".join(
                format_html('<a href="{}" target="_blank" rel="noopener">{}</a>', url, label)
                for url, label in links
            )
        )


class QrCodeInline(ReadOnlyInline, admin.StackedInline):
    """An order's Pix QR code: its code, image and expiry."""

    model = QrCode
    fields = ("provider_id", "amount", "arrangements_shown", "expires_at", "text", "image")
    readonly_fields = fields

    @admin.display(description=_("amount"))
    def amount(self, obj: QrCode) -> str:
        return money(obj.amount_value)

    @admin.display(description=_("paid with"))
    def arrangements_shown(self, obj: QrCode) -> str:
        names = {"PIX": _("any bank's Pix"), "PAGBANK": _("the PagBank app")}
        return ", ".join(str(names.get(name, name)) for name in obj.arrangements)

    @admin.display(description=_("image"))
    def image(self, obj: QrCode) -> SafeString | str:
        if not obj.image_url:
            return ""
        return format_html(
            '<a href="{0}" target="_blank" rel="noopener"><img src="{0}" alt="" width="120" '
            'height="120" loading="lazy"></a>',
            obj.image_url,
        )
