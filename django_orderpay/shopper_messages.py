"""What to tell a shopper when a card is declined or the provider refuses a payment.

Short sentences in the shopper's language, saying what they can do, never a
code or a field path: those are for staff, who find them on the charge
(``payment_response``), in the admin and in the log. Where PagBank's decline
codes allow another try (the partner plugin retries these), the message says
so.

A decline has two codes. ``payment_response.code`` is PagBank's: every code
of its "motivos de compra negada" (the ABECS norm's words, which PagBank's
own partner plugin shows its shoppers) has its sentence in :data:`DECLINES`.
The most common of them, ``20003`` ("NAO AUTORIZADA"), is the issuer's
refusal, whose reason the issuer gives in ``payment_response.raw_data.reason_code``
(the ABECS reason: ``51`` no limit, ``54`` an expired card...): those with
something the shopper can act on have a sentence of their own
(:data:`ISSUER_REASONS`). Anything else is :data:`GENERIC_DECLINE`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from .exceptions import (
    AccountNeedsAuthorization,
    AuthenticationError,
    ConfigurationError,
    ErrorMessage,
    Forbidden,
    PaymentInProgress,
    ProviderError,
    ProviderUnavailable,
    TooManyCardAttempts,
)

logger = logging.getLogger(__name__)

#: Decline codes after which the same card may be tried again: PagBank's
#: anti-fraud (10000), an unexpected decline (10002), and the issuer's
#: transient refusals the partner plugin retries (20001, 20119, 20158, 20159),
#: and a network that did not answer (20019).
RETRYABLE_DECLINES = frozenset({"10000", "10002", "20001", "20019", "20119", "20158", "20159"})


@dataclass(frozen=True)
class Decline:
    """A decline's sentence; ``with_hint``: whether the retry / other-card hint follows it
    (False where the sentence already says what to do)."""

    text: Promise
    with_hint: bool = True


CONTACT_ISSUER = Decline(
    _(
        "Your card's issuer asks you to contact them (their number is on the back of the card) "
        "before this payment can be made."
    )
)
NOT_ALLOWED = Decline(_("This card does not allow this payment."))
WRONG_PASSWORD = Decline(_("The card's password was refused."))
NOT_PROCESSED = Decline(_("The payment could not be processed with this card."))

#: Every decline code of PagBank's "motivos de compra negada" (``payment_response.code``).
DECLINES: dict[str, Decline] = {
    "10000": Decline(_("PagBank's security checks did not approve this payment.")),
    "10001": Decline(
        _("There were too many attempts with this card. Please pay another way."), with_hint=False
    ),
    "10002": Decline(_("The payment was not approved this time.")),
    "10003": NOT_PROCESSED,
    "10004": NOT_ALLOWED,
    "20001": CONTACT_ISSUER,
    "20003": Decline(_("Your card's issuer did not authorise this payment.")),
    "20007": Decline(
        _("Check the card's number, expiry date and security code, and try again."), with_hint=False
    ),
    "20008": Decline(
        _("This card does not take installments: pay in one installment, or with another card."),
        with_hint=False,
    ),
    "20012": Decline(_("This card does not allow this amount.")),
    "20016": WRONG_PASSWORD,
    "20017": NOT_ALLOWED,
    "20018": CONTACT_ISSUER,
    "20019": Decline(_("The card's network did not answer in time.")),
    "20039": NOT_ALLOWED,
    "20101": WRONG_PASSWORD,
    "20102": Decline(
        _("The card's password was refused: if the card is new, use its new password.")
    ),
    "20103": Decline(
        _("There were too many attempts with this card: contact its issuer, or pay another way."),
        with_hint=False,
    ),
    "20104": Decline(
        _("This payment is over the card's limit: contact its issuer, or use another card."),
        with_hint=False,
    ),
    "20105": Decline(_("This card has reached the number of payments it allows.")),
    "20110": NOT_PROCESSED,
    "20111": NOT_PROCESSED,
    "20112": NOT_PROCESSED,
    "20113": Decline(_("This card must be used as a credit card here.")),
    "20114": Decline(_("This card must be used as a debit card here.")),
    "20115": NOT_ALLOWED,
    "20116": Decline(
        _("The card's details are not valid: check them all and try again."), with_hint=False
    ),
    "20117": Decline(_("There is a problem with this card.")),
    "20118": Decline(_("Recurring payments with this card are suspended.")),
    "20119": Decline(_("The payment was interrupted before it was decided.")),
    "20158": Decline(_("Your card's issuer did not authorise this payment right now.")),
    "20159": Decline(_("Your card's issuer asks for an extra check of this payment.")),
    "20169": Decline(_("This card does not allow payments to shops abroad.")),
    "20301": Decline(
        _(
            "This card is blocked: contact its issuer (their number is on the back of the "
            "card), or pay another way."
        ),
        with_hint=False,
    ),
    "20999": Decline(
        _("The shop must settle something with PagBank before this card can be charged.")
    ),
}
#: An expired card: the issuer's reason 54, and what ``checkout.js`` says before any call.
EXPIRED_CARD = _("This card has expired: check its expiry date, or use another card.")
#: The issuer's reason (``raw_data.reason_code``, ABECS) behind a ``20003`` refusal,
#: where the shopper can act on it.
ISSUER_REASONS: dict[str, Decline] = {
    "14": Decline(
        _("The card number is not valid: check it, or use another card."), with_hint=False
    ),
    "51": Decline(_("The card does not have enough available limit for this payment.")),
    "54": Decline(EXPIRED_CARD, with_hint=False),
    "55": WRONG_PASSWORD,
    "57": NOT_ALLOWED,
    "61": Decline(_("This payment is over the card's limit.")),
    "65": Decline(_("This card has reached the number of payments it allows.")),
    "78": Decline(
        _("This card is blocked: if it is new, unlock it with its issuer first."), with_hint=False
    ),
    "82": Decline(
        _("The security code is not the card's: check it and try again."), with_hint=False
    ),
    "N7": Decline(
        _("The security code is not the card's: check it and try again."), with_hint=False
    ),
    "91": Decline(_("Your card's issuer did not answer in time.")),
    "96": Decline(_("The card's network failed while deciding this payment.")),
}
#: Reasons after which the same card may be tried again (the issuer or network was down).
RETRYABLE_REASONS = frozenset({"91", "96"})
GENERIC_DECLINE = Decline(_("Your card's issuer declined this payment."))
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
#: Another payment of the same purchase has no outcome yet (``PaymentInProgress``).
IN_PROGRESS = _(
    "A payment for this purchase is already in progress. Wait for its outcome before paying "
    "again: this page shows it once it is confirmed."
)
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
    #: Whether a hint follows (False where the sentence already says what to do).
    with_hint: bool = True
    #: The shop's own setup failed: another card would not help, so no hint.
    shop_side: bool = False
    #: What to do, when neither "try again" nor "another card" is it.
    hint: str | None = None

    def __str__(self) -> str:
        if self.shop_side or not self.with_hint:
            return self.text
        hint = self.hint or (RETRY_HINT if self.may_retry else OTHER_CARD_HINT)
        return f"{self.text} {hint}"


def decline_message(code: str | None, reason_code: str | None = None) -> ShopperMessage:
    """What to say of a charge DECLINED with ``payment_response.code`` ``code`` (and the
    issuer's ``raw_data.reason_code``, which refines PagBank's ``20003``)."""
    code, reason_code = code or "", reason_code or ""
    decline = DECLINES.get(code)
    may_retry = code in RETRYABLE_DECLINES
    if decline is None or code == "20003":
        reason = ISSUER_REASONS.get(reason_code)
        if reason is not None:
            decline, may_retry = reason, reason_code in RETRYABLE_REASONS
    decline = decline or GENERIC_DECLINE
    return ShopperMessage(str(decline.text), may_retry, with_hint=decline.with_hint)


def charge_decline_message(charge: Any) -> ShopperMessage:
    """:func:`decline_message` of a declined ``Charge`` (both its codes)."""
    response = getattr(charge, "payment_response", None) or {}
    raw = response.get("raw_data") if isinstance(response, Mapping) else None
    reason = raw.get("reason_code") if isinstance(raw, Mapping) else None
    return decline_message(
        charge.payment_response_code, reason if isinstance(reason, str) else None
    )


def is_shop_side(error: Any) -> bool:
    """Whether ``error`` is the merchant's to fix (token, account, settings), not the shopper's."""
    return isinstance(error, SHOP_SIDE_ERRORS)


def refusal_message(error: Any) -> ShopperMessage:
    """What to say when a payment request raised ``error`` (one of the package's own).

    A merchant-side error (:data:`SHOP_SIDE_ERRORS`) says the shop can't take
    payments right now, and is logged as an error for staff: every payment
    fails until someone fixes the token, the account or the settings.
    """
    if isinstance(error, PaymentInProgress):
        return ShopperMessage(str(IN_PROGRESS), with_hint=False)
    if is_shop_side(error):
        # A connected account's errors, and settings' errors, say what to fix themselves.
        said = isinstance(error, AccountNeedsAuthorization | ConfigurationError)
        logger.error(
            "the shop cannot take payments: %s: %s%s",
            type(error).__name__,
            error,
            ""
            if said
            else " (check ORDERPAY['TOKEN'], the ENVIRONMENT it belongs to, and what the "
            "PagBank account is allowed to do)",
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
