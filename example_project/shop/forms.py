"""The shop's forms: the cart, and the customer and shipping data of a checkout.

The card is not here: it is django-orderpay's ``CardPaymentForm``, filled by
``checkout.js`` with the card encrypted in the browser.
"""

from __future__ import annotations

import re

from django import forms

from django_orderpay import rules

from .cart import MAX_QUANTITY
from .models import Purchase


def _digits(value: str) -> str:
    return re.sub(r"\D", "", value or "")


class QuantityForm(forms.Form):
    quantity = forms.IntegerField(min_value=0, max_value=MAX_QUANTITY, initial=1)


class CheckoutForm(forms.ModelForm):
    """Who buys and where it goes, checked by the provider's rules before any order is made."""

    phone = forms.CharField(
        label="Mobile phone",
        help_text="With the area code, e.g. (11) 99999-9999.",
        max_length=20,
    )
    # Punctuated input ("123.456.789-09", "01452-002") is welcome; the model keeps digits.
    customer_tax_id = forms.CharField(
        label="CPF or CNPJ", max_length=18, help_text="Digits, with or without dots and dashes."
    )
    postal_code = forms.CharField(label="CEP", max_length=9)
    region_code = forms.ChoiceField(
        label="State", choices=[(code, code) for code in sorted(rules.BRAZILIAN_STATES)]
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
        labels = {"customer_name": "Full name", "customer_email": "E-mail"}

    def clean_customer_email(self) -> str:
        email = self.cleaned_data["customer_email"]
        low, _high = rules.FIELD_LIMITS["email"]
        if len(email) < low:
            raise forms.ValidationError(
                f"The provider needs an e-mail of at least {low} characters."
            )
        return email

    def clean_customer_tax_id(self) -> str:
        tax_id = _digits(self.cleaned_data["customer_tax_id"])
        if not rules.valid_tax_id(tax_id):
            raise forms.ValidationError("Enter a valid CPF (11 digits) or CNPJ (14 digits).")
        return tax_id

    def clean_phone(self) -> str:
        phone = _digits(self.cleaned_data["phone"])
        if phone.startswith("55") and len(phone) in (12, 13):
            phone = phone[2:]  # the country code is always Brazil's here
        if len(phone) not in (10, 11):
            raise forms.ValidationError("Enter the area code and the number: 10 or 11 digits.")
        return phone

    def clean_postal_code(self) -> str:
        postal_code = _digits(self.cleaned_data["postal_code"])
        if len(postal_code) != 8:
            raise forms.ValidationError("Enter the CEP: 8 digits.")
        return postal_code

    def save(self, commit: bool = True) -> Purchase:
        purchase: Purchase = super().save(commit=False)
        phone = self.cleaned_data["phone"]
        purchase.phone_area, purchase.phone_number = phone[:2], phone[2:]
        if commit:
            purchase.save()
        return purchase
