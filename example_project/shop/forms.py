"""The shop's forms: the cart, and the customer and shipping data of a checkout.

The card is not here: it is django-orderpay's ``CardPaymentForm``, filled by
``checkout.js`` with the card encrypted in the browser.
"""

from __future__ import annotations

import re

from django import forms
from django.utils.translation import gettext_lazy as _

from django_orderpay import rules

from .cart import MAX_QUANTITY
from .models import Product, Purchase


def _digits(value: str) -> str:
    # ASCII digits only: \D would keep other scripts' digits (Arabic-Indic ٠١٢...).
    return re.sub(r"[^0-9]", "", value or "")


class QuantityForm(forms.Form):
    quantity = forms.IntegerField(
        label=_("Quantity"), min_value=0, max_value=MAX_QUANTITY, initial=1
    )


class CartLineForm(QuantityForm):
    """A cart line's new quantity (0 removes it); the product must be on sale."""

    product = forms.ModelChoiceField(
        label=_("Product"),
        queryset=Product.objects.filter(active=True),
        error_messages={"invalid_choice": _("That product is not on sale.")},
    )


class CheckoutForm(forms.ModelForm):
    """Who buys and where it goes, checked by the provider's rules before any order is made."""

    phone = forms.CharField(
        label=_("Mobile phone"),
        help_text=_("With the area code, e.g. (11) 99999-9999."),
        max_length=20,
    )
    # Punctuated input ("123.456.789-09", "01452-002") is welcome; the model keeps digits.
    customer_tax_id = forms.CharField(
        label=_("CPF or CNPJ"),
        max_length=18,
        help_text=_(
            "A CPF's 11 digits, or a CNPJ's 14 characters (newer ones have letters), with or "
            "without dots, dashes and slash."
        ),
    )
    postal_code = forms.CharField(label=_("CEP"), max_length=9)
    # No state preselected: a shopper who skips it is asked, not shipped to Acre.
    region_code = forms.ChoiceField(
        label=_("State"),
        choices=[("", "---------")] + [(code, code) for code in sorted(rules.BRAZILIAN_STATES)],
    )

    class Meta:
        model = Purchase
        fields = (
            "customer_name",
            "customer_email",
            "customer_tax_id",
            "phone",
            "postal_code",
            "street",
            "number",
            "complement",
            "locality",
            "city",
            "region_code",
        )
        labels = {"customer_name": _("Full name"), "customer_email": _("E-mail")}
        help_texts = {
            # PagBank takes 1-30 characters for a boleto's payer: the shop shortens it.
            "customer_name": _("A boleto prints the first 30 characters of the name."),
        }

    def clean_customer_email(self) -> str:
        email = self.cleaned_data["customer_email"]
        low, _high = rules.FIELD_LIMITS["email"]
        if len(email) < low:
            raise forms.ValidationError(
                _("The provider needs an e-mail of at least %(count)d characters."),
                params={"count": low},
            )
        return email

    def clean_customer_tax_id(self) -> str:
        # Letters too: a CNPJ issued from July 2026 has them in its first 12 places.
        tax_id = re.sub(r"[^0-9A-Za-z]", "", self.cleaned_data["customer_tax_id"] or "").upper()
        if not rules.valid_tax_id(tax_id):
            raise forms.ValidationError(_("Enter a valid CPF (11 digits) or CNPJ (14 characters)."))
        return tax_id

    def clean_phone(self) -> str:
        phone = _digits(self.cleaned_data["phone"])
        if phone.startswith("55") and len(phone) in (12, 13):
            phone = phone[2:]  # the country code is always Brazil's here
        if len(phone) not in (10, 11):
            raise forms.ValidationError(_("Enter the area code and the number: 10 or 11 digits."))
        return phone

    def clean_postal_code(self) -> str:
        postal_code = _digits(self.cleaned_data["postal_code"])
        if len(postal_code) != 8:
            raise forms.ValidationError(_("Enter the CEP: 8 digits."))
        return postal_code

    def save(self, commit: bool = True) -> Purchase:
        purchase: Purchase = super().save(commit=False)
        phone = self.cleaned_data["phone"]
        purchase.phone_area, purchase.phone_number = phone[:2], phone[2:]
        if commit:
            purchase.save()
        return purchase
