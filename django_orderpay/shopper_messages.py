"""What to tell a shopper when a card is declined or the provider refuses a payment.

Short sentences in the shopper's language, saying what they can do, never a
code or a field path: those are for staff, who find them on the charge
(``payment_response``), in the admin and in the log. Where PagBank's decline
codes allow another try (the partner plugin retries these), the message says
so.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from .exceptions import (
    AuthenticationError,
    ConfigurationError,
    ErrorMessage,
    Forbidden,
    ProviderError,
    ProviderUnavailable,
    TooManyCardAttempts,
)

logger = logging.getLogger(__name__)

#: Decline codes after which the same card may be tried again: PagBank's
#: anti-fraud (10000), an unexpected decline (10002), and the issuer's
#: transient refusals the partner plugin retries (20001, 20119, 20158, 20159).
RETRYABLE_DECLINES = frozenset({"10000", "10002", "20001", "20119", "20158", "20159"})

#: The decline codes whose meaning PagBank documents; others get the generic message.
DECLINES: dict[str, Promise] = {
    "10000": _("PagBank's security checks did not approve this payment."),
    "10002": _("The payment was not approved this time."),
    "20003": _("Your card's issuer did not authorise this payment."),
    "20159": _("Your card's issuer asks for an extra check of this payment."),
}
GENERIC_DECLINE = _("Your card's issuer declined this payment.")
RETRY_HINT = _("Trying again may work.")
OTHER_CARD_HINT = _("You may try another card or another way to pay.")

#: Refusals of the request (``error_messages``), by the field they name.
REFUSALS: tuple[tuple[tuple[str, ...], Promise], ...] = (
    (("installments",), _("Choose fewer installments for this amount.")),
    (
        ("card", "card_brand"),
        _("This card can't be used here. Check its details, or try another card."),
    ),
    (("tax_id",), _("Check the CPF or CNPJ of the purchase.")),
    (("customer", "holder"), _("Check the name and e-mail of the purchase.")),
    (("shipping", "address"), _("Check the delivery address.")),
)
GENERIC_REFUSAL = _("The payment could not be processed. Try again, or pay another way.")
#: The card-testing limits refused the attempt (``TooManyCardAttempts``).
TOO_MANY_CARD_ATTEMPTS = _("For your security, paying by card is paused after too many attempts.")
TOO_MANY_CARD_ATTEMPTS_HINT = _("Please try again later, or choose another way to pay.")
BUSY = _("The payment service is busy right now. Try again in a moment.")
#: The shop's own side failed (its token, its account, its settings): no card helps.
SHOP_UNAVAILABLE = _(
    "This shop can't take payments right now. Please try again later, or contact the shop."
)
#: Errors that are the merchant's, never the shopper's: a wrong or revoked token (401),
#: an account not allowed to do this (403), settings missing or wrong.
SHOP_SIDE_ERRORS = (AuthenticationError, Forbidden, ConfigurationError)


@dataclass(frozen=True)
class ShopperMessage:
    """A sentence for the shopper, and whether trying the same way again may work."""

    text: str
    may_retry: bool = False
    #: The shop's own setup failed: another card would not help, so no hint.
    shop_side: bool = False
    #: What to do, when neither "try again" nor "another card" is it.
    hint: str | None = None

    def __str__(self) -> str:
        if self.shop_side:
            return self.text
        hint = self.hint or (RETRY_HINT if self.may_retry else OTHER_CARD_HINT)
        return f"{self.text} {hint}"


def decline_message(code: str | None) -> ShopperMessage:
    """What to say of a charge DECLINED with ``payment_response.code`` ``code``."""
    text = DECLINES.get(code or "", GENERIC_DECLINE)
    return ShopperMessage(str(text), (code or "") in RETRYABLE_DECLINES)


def is_shop_side(error: Any) -> bool:
    """Whether ``error`` is the merchant's to fix (token, account, settings), not the shopper's."""
    return isinstance(error, SHOP_SIDE_ERRORS)


def refusal_message(error: Any) -> ShopperMessage:
    """What to say when a payment request raised ``error`` (one of the package's own).

    A merchant-side error (:data:`SHOP_SIDE_ERRORS`) says the shop can't take
    payments right now, and is logged as an error for staff: every payment
    fails until someone fixes the token, the account or the settings.
    """
    if is_shop_side(error):
        logger.error(
            "the shop cannot take payments: %s: %s (check ORDERPAY['TOKEN'], the "
            "ENVIRONMENT it belongs to, and what the PagBank account is allowed to do)",
            type(error).__name__,
            error,
        )
        return ShopperMessage(str(SHOP_UNAVAILABLE), shop_side=True)
    if isinstance(error, TooManyCardAttempts):
        return ShopperMessage(str(TOO_MANY_CARD_ATTEMPTS), hint=str(TOO_MANY_CARD_ATTEMPTS_HINT))
    if isinstance(error, ProviderUnavailable):  # rate limits and outages included
        return ShopperMessage(str(BUSY), may_retry=True)
    if isinstance(error, ProviderError):
        for entry in error.error_messages:
            text = _for_entry(entry)
            if text is not None:
                return ShopperMessage(str(text))
    return ShopperMessage(str(GENERIC_REFUSAL))


def _for_entry(entry: ErrorMessage) -> Promise | None:
    words = " ".join(filter(None, [entry.parameter_name, entry.description])).lower()
    for needles, text in REFUSALS:
        if any(needle in words for needle in needles):
            return text
    return None
