"""What the card form's 3-D Secure needs in the page (not a tag library: a helper of ``orderpay``).

The session is made on the server with the merchant's token
(``services.create_3ds_session``); only the session, the ``env`` and the
shopper's data for ``authenticate3DS`` (name, e-mail, phones, address) reach
the page, with the messages ``checkout.js`` shows for each outcome.
"""

from __future__ import annotations

import logging
from typing import Any

from django import forms
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext as _

from django_orderpay import services
from django_orderpay.checkout import (
    CREDIT_NOT_AUTHENTICATED,
    DEBIT_NOT_AUTHENTICATED,
    sign_threeds_session,
)
from django_orderpay.conf import misconfigured
from django_orderpay.exceptions import OrderPayError
from django_orderpay.models import Order
from django_orderpay.shopper_messages import is_shop_side

logger = logging.getLogger("django_orderpay.templatetags")


def _address(address: dict[str, Any]) -> dict[str, str]:
    """An Orders API address in the SDK's words (``regionCode``, ``postalCode``)."""
    names = {
        "street": "street",
        "number": "number",
        "complement": "complement",
        "region_code": "regionCode",
        "country": "country",
        "city": "city",
        "postal_code": "postalCode",
    }
    return {ours: str(address[theirs]) for theirs, ours in names.items() if address.get(theirs)}


def threeds_messages() -> dict[str, str]:
    """What checkout.js says for each way 3-D Secure can end, in the active language."""
    return {
        "CHANGE_PAYMENT_METHOD": _(
            "Your bank did not authenticate this card. Choose another card or payment method."
        ),
        "AUTH_NOT_SUPPORTED": str(CREDIT_NOT_AUTHENTICATED),
        "AUTH_NOT_SUPPORTED_DEBIT": str(DEBIT_NOT_AUTHENTICATED),
        "THREEDS_FAILED": _(
            "The card could not be authenticated right now. Please try again in a moment."
        ),
        "THREEDS_UNAVAILABLE": _(
            "Card authentication is unavailable right now; please reload the page."
        ),
    }


def _as_dict(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    return value.to_dict() if hasattr(value, "to_dict") else dict(value)


def _session_url() -> str:
    """Where checkout.js asks for a fresh session ("" when the shop has not included
    ``django_orderpay.urls``: then the page's own session is used, for its 30 minutes)."""
    try:
        return reverse("orderpay:threeds_session")
    except NoReverseMatch:
        return ""


def missing_shopper(customer: dict[str, Any], address: dict[str, Any]) -> list[str]:
    """What ``authenticate3DS`` requires and the card form was not given."""
    missing = [f"customer {key}" for key in ("name", "email") if not customer.get(key)]
    if not address:
        missing.append("billing address")
    return missing


def _check_shopper(customer: dict[str, Any], address: dict[str, Any]) -> None:
    """A card form that runs 3-D Secure without the shopper fails every payment: say so.

    PagBank's ``authenticate3DS`` refuses a request without the customer's name
    and e-mail or a billing address, and the shopper would only read "could not
    be authenticated". In DEBUG the page fails to render (ImproperlyConfigured,
    at once, for the developer); in production it renders, and an error is
    logged for staff on every render.
    """
    missing = missing_shopper(customer, address)
    if not missing:
        return
    misconfigured(
        "{% orderpay_card_form %} runs 3-D Secure but has no "
        + ", ".join(missing)
        + ": every card payment on this page would fail authentication. Pass order=<an Order "
        "whose customer and shipping address are known>, or customer=... and address=... "
        "(payloads.Customer and payloads.Address, or dicts in the Orders API's words).",
        logger=logger,
    )


def threeds_config(
    form: forms.Form | None,
    order: Order | None,
    *,
    customer: Any = None,
    address: Any = None,
    account: Any = None,
) -> dict[str, Any]:
    """``data-orderpay-3ds`` of the card form: session, env, type, amount and shopper data,
    and where to ask for a fresh session (``sessionUrl``, with its signed ``sessionToken``);
    the sessions made for ``account`` (a connected account; None: the settings' ``TOKEN``),
    which the token names."""
    try:
        session = services.create_3ds_session(account=account)
    except OrderPayError as error:
        # The page still renders; checkout.js then says 3-D Secure is unavailable.
        # A wrong token fails every payment until staff fix it: an error, not a warning.
        log = logger.error if is_shop_side(error) else logger.warning
        log("no 3-D Secure session for the checkout page: %s", error)
        session = None
    data = (order.data if order is not None else None) or {}
    customer = _as_dict(customer) or data.get("customer") or {}
    address = _as_dict(address) or ((data.get("shipping") or {}).get("address")) or {}
    session_url = _session_url()
    _check_shopper(customer, address)
    return {
        "session": session.session if session else "",
        "env": session.env if session else "",
        "sessionUrl": session_url,
        "sessionToken": sign_threeds_session(account) if session_url else "",
        "type": getattr(form, "payment_type", "CREDIT_CARD"),
        "amount": getattr(form, "amount", None) or 0,
        # Whether a credit card its issuer does not authenticate may still be posted.
        "allowNotSupported": bool(getattr(form, "allow_not_supported", False)),
        "customer": {
            "name": customer.get("name", ""),
            "email": customer.get("email", ""),
            "phones": customer.get("phones") or [],
        },
        "billingAddress": _address(address),
        "messages": threeds_messages(),
    }
