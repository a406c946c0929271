"""Widgets of the checkout form."""

from __future__ import annotations

from typing import Any

from django import forms


class EncryptedCardInput(forms.HiddenInput):
    """The hidden field ``checkout.js`` fills with ``PagSeguro.encryptCard()``'s ``encryptedCard``.

    It never renders a value: an encrypted card must not reach a template
    (a form re-shown after an error asks for the card again, as it must,
    since the encryption is bound to the moment it was made).
    """

    def __init__(self, attrs: dict[str, Any] | None = None) -> None:
        super().__init__({"data-orderpay-encrypted": "", **(attrs or {})})

    def format_value(self, value: Any) -> None:
        return None
