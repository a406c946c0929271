"""The partial refund form: an amount typed as money, checked against what is refundable."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.utils.translation import gettext_lazy as _

from ..models import format_cents

#: Digits with optional ``.``/``,`` separators; sign and currency are handled before.
_AMOUNT = re.compile(r"[0-9][0-9.,]{0,19}")
_GROUPED = re.compile(r"[0-9]{1,3}(?:[.,][0-9]{3})*")
_CURRENCY_PREFIX = re.compile(r"^(?:R\$|BRL)", re.IGNORECASE)


def _invalid() -> ValidationError:
    return ValidationError(
        _("Enter an amount of money such as 12,34 or 12.34."), code="invalid_amount"
    )


def _integer_part(text: str, decimal_separator: str | None) -> str:
    """The digits of ``text`` once its thousands separators are checked and dropped."""
    separators = set(re.sub(r"[0-9]", "", text))
    if not separators:
        return text
    if len(separators) > 1 or decimal_separator in separators or not _GROUPED.fullmatch(text):
        raise _invalid()
    return re.sub(r"[^0-9]", "", text)


def parse_money(text: str) -> int:
    """Money typed by a person -> integer cents, without ever using a float.

    Accepts ``12,34``, ``12.34``, ``12``, ``1.234,56``, ``1,234.56`` and a
    leading ``R$``. A separator followed by one or two digits at the end is
    the decimal separator; any other separator groups thousands (so
    ``1.234`` is one thousand two hundred and thirty-four reais).
    """
    text = _CURRENCY_PREFIX.sub("", (text or "").strip()).strip().replace("\u00a0", "")
    text = text.replace(" ", "")
    if not text:
        raise ValidationError(_("Enter an amount."), code="required")
    if text.startswith("-"):
        raise ValidationError(_("Enter an amount greater than zero."), code="not_positive")
    if not _AMOUNT.fullmatch(text):
        raise _invalid()
    match = re.search(r"[.,]([0-9]{1,2})$", text)
    if match:
        integer = _integer_part(text[: match.start()], text[match.start()])
        fraction = match.group(1).ljust(2, "0")
    else:
        integer, fraction = _integer_part(text, None), "00"
    cents = int(Decimal(f"{integer or '0'}.{fraction}") * 100)
    if cents <= 0:
        raise ValidationError(_("Enter an amount greater than zero."), code="not_positive")
    return cents


class MoneyField(forms.Field):
    """A text input whose cleaned value is integer cents (see :func:`parse_money`)."""

    widget = forms.TextInput(
        attrs={"inputmode": "decimal", "autocomplete": "off", "maxlength": "32"}
    )
    default_error_messages = {"required": _("Enter an amount.")}

    def to_python(self, value: Any) -> int | None:
        text = str(value).strip() if value is not None else ""
        if not text:
            return None
        return parse_money(text)


class ConfirmationForm(forms.Form):
    """What a confirmation page posts back besides the selection.

    ``confirmation`` is a random id minted when the page is shown; the
    idempotency key of each provider call derives from it, so a page posted
    twice (a double click, a resent form) acts once at the provider.
    """

    confirmation = forms.CharField(
        widget=forms.HiddenInput,
        validators=[RegexValidator(r"^[0-9a-f]{32}$", _("This page has expired: start again."))],
        error_messages={"required": _("This page has expired: start again.")},
    )


class RefundAmountForm(ConfirmationForm):
    """How much to give back of each selected charge; at most ``maximum`` cents."""

    amount = MoneyField(
        label=_("Amount to refund"),
        help_text=_("In reais, for example 12,34 or 12.34."),
    )

    def __init__(self, *args: Any, maximum: int, currency: str = "BRL", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.maximum = maximum
        self.currency = currency
        self.fields["amount"].widget.attrs["placeholder"] = format_cents(maximum, currency)

    def clean_amount(self) -> int:
        cents: int = self.cleaned_data["amount"]
        if cents > self.maximum:
            raise ValidationError(
                _("Enter at most %(maximum)s: the most that can still be refunded."),
                code="above_refundable",
                params={"maximum": format_cents(self.maximum, self.currency)},
            )
        return cents
