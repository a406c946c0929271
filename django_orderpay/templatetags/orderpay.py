"""``{% load orderpay %}``: browser card encryption in a checkout template.

- ``{% orderpay_sdk %}`` (before ``</body>``): the provider's SDK script for the
  configured environment (the emulator's in emulator mode), then
  ``django_orderpay/checkout.js``; ``{% orderpay_sdk checkout=False %}`` for
  the SDK alone.
- ``{% orderpay_public_key %}``: the merchant's public key (configured, else
  fetched from the provider and cached).
- ``{% orderpay_amount cents %}``: an amount (the pay button's) that follows the
  chosen installments: the plan's total, the buyer's interest included.
- ``{% orderpay_card_form form %}`` inside a ``<form method="post">``: the card
  inputs (holder, number, expiry month and year, security code) *without*
  ``name`` attributes, so the raw card cannot be posted, plus the fields of a
  :class:`~django_orderpay.forms.CardPaymentForm` (the hidden encrypted card,
  installments, "save this card") and their errors.
- ``{% orderpay_card_form form order=order %}`` with a
  :class:`~django_orderpay.checkout.CardCheckoutForm` (or ``DebitCardForm``):
  the same, plus 3-D Secure (a checkout-SDK session made here, on the
  server, and the order's customer and address for ``authenticate3DS``) and
  installment plans priced by the card's BIN. See ``docs/3ds.md``.
- ``{% orderpay_pix qr_code %}``: a Pix QR code to scan, its "copia e cola" code
  with a copy button, and the time left until it expires.
- ``{% orderpay_boleto charge %}``: a boleto's typeable line with a copy button,
  its due date, barcode and PDF link.
- ``{% orderpay_checkout_url checkout %}``: the shop's link that sends the
  shopper to a hosted checkout's page (``hosted_checkout.checkout_link``).

Both take ``poll_url`` (a URL answering JSON with a ``"status"``), ``status``
(the one shown now) and ``next_url``: the page then asks every two seconds and
moves on (to ``next_url``, else a reload) once the status differs, as when the
payer has paid. ``django_orderpay/payment.js`` does it, and the copying. Both
URLs must be relative or on the request's own host (``javascript:``, another
site: :class:`~django_orderpay.exceptions.UnsafeURL` when the page renders),
and the script checks again before it fetches or goes anywhere.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from django import forms, template
from django.templatetags.static import static
from django.urls import reverse
from django.utils.html import format_html
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from django_orderpay import services
from django_orderpay.conf import get_settings, misconfigured
from django_orderpay.exceptions import OrderPayError, UnsafeURL
from django_orderpay.forms import CAPTCHA_FIELD
from django_orderpay.hosted_checkout import checkout_link
from django_orderpay.models import Charge, Checkout, Order, QrCode, format_cents
from django_orderpay.shopper_messages import EXPIRED_CARD

from ._threeds import threeds_config

register = template.Library()
logger = logging.getLogger("django_orderpay.templatetags")

CHECKOUT_SCRIPT = "django_orderpay/checkout.js"

#: The card inputs: (field, label, input attributes). The field names are the
#: SDK's error targets in checkout.js; none becomes an HTML ``name``.
CARD_INPUTS: tuple[tuple[str, Any, dict[str, Any]], ...] = (
    (
        "holder",
        gettext_lazy("Name on the card"),
        {"type": "text", "autocomplete": "cc-name", "maxlength": "30", "spellcheck": "false"},
    ),
    (
        "number",
        gettext_lazy("Card number"),
        {"type": "text", "inputmode": "numeric", "autocomplete": "cc-number", "maxlength": "23"},
    ),
    (
        "exp_month",
        gettext_lazy("Expiry month (MM)"),
        {
            "type": "text",
            "inputmode": "numeric",
            "autocomplete": "cc-exp-month",
            "maxlength": "2",
            "placeholder": pgettext_lazy("expiry month, as printed on a card", "MM"),
        },
    ),
    (
        "exp_year",
        gettext_lazy("Expiry year (YYYY)"),
        {
            "type": "text",
            "inputmode": "numeric",
            "autocomplete": "cc-exp-year",
            "maxlength": "4",
            "placeholder": pgettext_lazy("expiry year, as printed on a card", "YYYY"),
        },
    ),
    (
        "security_code",
        gettext_lazy("Security code"),
        {"type": "text", "inputmode": "numeric", "autocomplete": "cc-csc", "maxlength": "4"},
    ),
)


def error_messages() -> dict[str, str]:
    """What checkout.js shows for each SDK error code (and its own), in the active language."""
    return {
        "INVALID_NUMBER": _("Check the card number: 13 to 19 digits."),
        "NUMBER_CHECK_DIGIT": _("Check the card number: one of its digits is wrong."),
        "CARD_EXPIRED": str(EXPIRED_CARD),
        "INVALID_SECURITY_CODE": _("Check the security code: 3 or 4 digits."),
        "INVALID_EXPIRATION_MONTH": _("Check the expiry month: 01 to 12."),
        "INVALID_EXPIRATION_YEAR": _("Check the expiry year: four digits, such as 2030."),
        "INVALID_HOLDER": _("Type the name as printed on the card, letters only."),
        "INVALID_PUBLIC_KEY": _("Card payments are unavailable right now; please try later."),
        "SDK_MISSING": _("The card encryption script did not load; reload the page."),
        "RESEND": _(
            "Your last payment is being confirmed. Pressing pay sends it again exactly as it "
            "was, with the card you typed then: it is charged at most once."
        ),
        "RESEND_OTHER": _("Type another card instead"),
        "ENCRYPTION_FAILED": _("The card could not be encrypted; check the details."),
    }


def _public_key_or_empty(account: Any = None) -> str:
    """The public key (``account``'s, a connected account's), or "" when it cannot be had
    now (the page must still render)."""
    try:
        return services.get_public_key(account=account)
    except OrderPayError as error:
        # checkout.js then shows INVALID_PUBLIC_KEY; the cause goes to the log.
        logger.warning("no card public key for the checkout page: %s", error)
        return ""


@register.simple_tag
def orderpay_sdk(checkout: bool = True) -> SafeString:
    """``<script>`` tags: the SDK of the configured environment, then checkout.js."""
    # The script URL needs no token: a page renders even before TOKEN is configured.
    tags = format_html('<script src="{}"></script>', get_settings(strict=False).sdk_url)
    if checkout:
        tags += format_html('\n<script src="{}"></script>', static(CHECKOUT_SCRIPT))
    return tags


@register.simple_tag
def orderpay_amount(cents: int) -> SafeString:
    """``<span data-orderpay-total>R$ 154,70</span>``: an amount inside a card form that
    follows the chosen installments (``checkout.js`` writes the plan's total, interest
    included). ``{% orderpay_amount purchase.total as amount %}`` for a translated button."""
    return format_html("<span data-orderpay-total>{}</span>", format_cents(cents))


@register.simple_tag
def orderpay_public_key(account: Any = None) -> str:
    """The merchant's public key for ``PagSeguro.encryptCard`` (autoescaped; base64);
    ``account``: a connected account's (PagBank Connect), for a payment made with it."""
    return _public_key_or_empty(account)


class _Input:
    """One card input as the template renders it."""

    def __init__(self, field: str, label: str, attrs: dict[str, str], prefix: str) -> None:
        self.field = field
        self.label = label
        self.id = f"{prefix}-{field.replace('_', '-')}"
        self.error_id = self.id + "-error"
        self.attrs = attrs
        self.errors: list[str] = []

    def tag(self) -> SafeString:
        attributes = " ".join(
            format_html('{}="{}"', name, value) for name, value in self.attrs.items()
        )
        return format_html(
            '<input id="{}" {} data-orderpay-field="{}" aria-describedby="{}">',
            self.id,
            SafeString(attributes),
            self.field,
            self.error_id,
        )


@register.inclusion_tag("django_orderpay/card_form.html", takes_context=True)
def orderpay_card_form(
    context: template.Context,
    form: forms.Form | None = None,
    prefix: str = "orderpay-card",
    order: Order | None = None,
    customer: Any = None,
    address: Any = None,
    account: Any = None,
) -> dict[str, Any]:
    """The card inputs and the fields of ``form`` (a ``CardPaymentForm``).

    No card input has a ``name`` (nothing typed is posted) but the holder's,
    when ``form`` has a ``holder_name`` field: the name is not a secret, and
    PagBank asks for it beside the encrypted card. With a form that runs 3-D
    Secure, ``authenticate3DS`` gets the shopper from ``order`` (its customer
    and shipping address), or from ``customer`` and ``address`` (builders or
    dicts in the Orders API's words) before any order exists.

    A payment made for a connected account (PagBank Connect) encrypts the card
    with that account's key, authenticates it with sessions of its own and
    offers its installment plans: ``account``, else ``order``'s account, else
    the form's (``CardCheckoutForm(account=...)``).
    """
    if account is None and order is not None and order.account_id is not None:
        account = order.account
    if account is None:
        account = getattr(form, "account", None)
    inputs = [_Input(field, str(label), dict(attrs), prefix) for field, label, attrs in CARD_INPUTS]
    if form is not None and "holder_name" in form.fields:
        bound = form["holder_name"]
        inputs[0].attrs["name"] = bound.html_name
        inputs[0].attrs["value"] = bound.value() or ""
        inputs[0].errors = [str(error) for error in bound.errors]
    hidden = [
        "intent",
        *(("authentication_id", "authentication_status") if _runs_threeds(form) else ()),
        *(("card_bin",) if getattr(form, "fee_plans", False) else ()),
    ]
    return {
        "form": form,
        "prefix": prefix,
        "inputs": inputs,
        "public_key": _public_key_or_empty(account),
        "messages_json": json.dumps(error_messages()),
        "extra_fields": [
            form[name]
            for name in ("installments", "save_card", CAPTCHA_FIELD)
            if form and name in form.fields
        ],
        "hidden_fields": [form[name] for name in hidden if form and name in form.fields],
        "threeds_json": (
            json.dumps(
                threeds_config(form, order, customer=customer, address=address, account=account)
            )
            if _runs_threeds(form)
            else ""
        ),
        "plans": _plans_attributes(form, context.get("request"), account),
    }


def _runs_threeds(form: forms.Form | None) -> bool:
    return bool(getattr(form, "threeds", False))


def _plans_attributes(form: forms.Form | None, request: Any, account: Any) -> dict[str, str] | None:
    if not getattr(form, "fee_plans", False):
        return None
    _check_plans_account(form, account)
    # The token is good for this visitor's session only (one is made if need be).
    token = form.plans_token(request)  # type: ignore[union-attr]
    return {"url": reverse("orderpay:installment_plans"), "token": token}


def _check_plans_account(form: forms.Form | None, account: Any) -> None:
    """A page paying a connected account whose form prices another account's plans would
    show, and charge, plans that are not the account's: say so (as a shopper missing)."""
    priced = getattr(form, "account", None)
    if getattr(priced, "pk", None) == getattr(account, "pk", None):
        return

    def named(who: Any) -> str:
        return who.account_id if who is not None else "the settings' TOKEN account"

    misconfigured(
        f"{{% orderpay_card_form %}} pays {named(account)} but its form prices the "
        f"installments of {named(priced)}: the page would offer one account's plans and the "
        "order charge another. Give the form the same account: CardCheckoutForm(..., "
        "account=...).",
        logger=logger,
    )


def same_origin(context: template.Context, url: str, name: str) -> str:
    """``url`` if it is relative or on this request's host and scheme; else :class:`UnsafeURL`.

    Without a request in the context only a relative URL passes. The name of
    the tag's parameter is in the error, never the URL (it may be a visitor's).
    """
    if not url:
        return ""
    request = context.get("request")
    hosts = {request.get_host()} if request is not None else None
    secure = request is not None and request.is_secure()
    if not url_has_allowed_host_and_scheme(url, allowed_hosts=hosts, require_https=secure):
        raise UnsafeURL(f"{name} must be a relative URL or one of this site's")
    return url


def _follow(context: template.Context, poll_url: str, status: str, next_url: str) -> dict[str, str]:
    return {
        "poll_url": same_origin(context, poll_url, "poll_url"),
        "status": status,
        "next_url": same_origin(context, next_url, "next_url"),
    }


def _web_url(url: str | None) -> str:
    """A provider link (an image, a PDF) if it is http(s), else "": never a ``javascript:``."""
    return url if url and url.lower().startswith(("https://", "http://")) else ""


@register.inclusion_tag("django_orderpay/pix.html", takes_context=True)
def orderpay_pix(
    context: template.Context,
    qr_code: QrCode,
    poll_url: str = "",
    status: str = "",
    next_url: str = "",
    prefix: str = "orderpay-pix",
) -> dict[str, Any]:
    """A Pix QR code: its image, its code to copy (``PIX``) and a countdown to its expiry.

    A QR of the ``PAGBANK`` arrangement alone is shown without the code, and
    named for the app: only the PagBank app pays it. Once expired (here, or as
    the countdown reaches zero) only "has expired" is shown. ``status``
    defaults to the order's.
    """
    return {
        "qr_code": qr_code,
        "image_url": _web_url(qr_code.image_url),
        "amount": format_cents(qr_code.amount_value),
        "pagbank_only": qr_code.arrangements == ["PAGBANK"],
        # Past its expiry nothing of it may be paid: no image, no code to copy.
        "expired": qr_code.is_expired(),
        "prefix": prefix,
        **_follow(context, poll_url, status or qr_code.order.status, next_url),
    }


@register.inclusion_tag("django_orderpay/boleto.html", takes_context=True)
def orderpay_boleto(
    context: template.Context,
    charge: Charge,
    poll_url: str = "",
    status: str = "",
    next_url: str = "",
    prefix: str = "orderpay-boleto",
) -> dict[str, Any]:
    """A boleto charge: its typeable line to copy, due date, barcode image and PDF link."""
    boleto = charge.boleto
    return {
        "charge": charge,
        "image_url": _web_url(charge.image_url),
        "pdf_url": _web_url(charge.pdf_url),
        "amount": format_cents(charge.amount_value, charge.currency),
        "line": boleto.get("formatted_barcode") or boleto.get("barcode") or "",
        "prefix": prefix,
        **_follow(context, poll_url, status or charge.status, next_url),
    }


@register.simple_tag
def orderpay_checkout_url(checkout: Checkout) -> str:
    """The shop's path that redirects to ``checkout``'s PagBank page (see ``hosted_checkout``)."""
    return checkout_link(checkout)
