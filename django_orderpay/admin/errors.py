"""Provider errors told to staff in words, never as a 500."""

from __future__ import annotations

from django.utils.translation import gettext as _

from ..exceptions import (
    AccountNeedsAuthorization,
    AuthenticationError,
    ConnectApplicationRefused,
    Forbidden,
    IdempotencyConflict,
    NotFound,
    OrderPayError,
    OutcomeUnknown,
    PayloadError,
    ProviderError,
    ProviderUnavailable,
)


def _code_meanings() -> dict[str, str]:
    # Built per call so the words follow the active language.
    return {
        "40004": _("the provider is limiting the rate of calls: wait a minute and try again"),
        "40006": _("the charge cannot be captured (already captured, expired or not authorised)"),
        "40007": _("the charge cannot be refunded (already refunded, or the amount is too high)"),
        "40008": _("refunds are temporarily unavailable at the provider: try again later"),
    }


def _provider_words(error: ProviderError) -> str:
    said = "; ".join(str(message) for message in error.error_messages)
    return _(" (the provider said: %(said)s)") % {"said": said} if said else ""


def describe_error(error: OrderPayError, *, changes_state: bool) -> str:
    """One sentence for staff about ``error``.

    ``changes_state`` says whether the call could have acted at the provider
    (capture, cancel): when no answer arrived, staff must check before trying
    again, since the provider may have done it.
    """
    if isinstance(error, OutcomeUnknown):
        return _(
            "the provider did not answer (%(reason)s): it may have acted. This operation keeps "
            "its idempotency key, so confirming it again acts at most once; the provider's "
            "notification or orderpay_sync will also settle it"
        ) % {"reason": error.reason or _("no answer")}
    if isinstance(error, ProviderUnavailable):
        if changes_state:
            text = _(
                "the provider did not answer (%(reason)s) after %(attempts)d attempts; it may "
                "or may not have acted: refresh the order to see its state before trying again"
            )
        else:
            text = _(
                "the provider did not answer (%(reason)s) after %(attempts)d attempts; "
                "nothing was changed: try again later"
            )
        return text % {"reason": error.reason or _("no answer"), "attempts": error.attempts}
    if isinstance(error, ConnectApplicationRefused):
        return _(
            "PagBank refused the Connect application's credentials: check the ORDERPAY "
            "CONNECT_CLIENT_ID and CONNECT_CLIENT_SECRET settings (the account was left as "
            "it was)"
        ) + _provider_words(error)
    if isinstance(error, AccountNeedsAuthorization):
        return _(
            "the connected account needs its seller to authorise the platform again "
            "(PagBank refused its tokens, or it was disconnected): use its Re-authorise link"
        )
    if isinstance(error, AuthenticationError):
        return _("the provider refused the API token: check the ORDERPAY TOKEN setting")
    if isinstance(error, Forbidden):
        return _("the provider does not allow this call for this account") + _provider_words(error)
    if isinstance(error, NotFound):
        return _("the provider does not know this object") + _provider_words(error)
    if isinstance(error, IdempotencyConflict):
        return _("this confirmation page was already used for another request: start again")
    if isinstance(error, ProviderError):
        meanings = _code_meanings()
        for code in error.codes:
            if code in meanings:
                return meanings[code] + _provider_words(error)
        return _("the provider refused the request") + _provider_words(error)
    if isinstance(error, PayloadError):
        return _("the request is not valid: %(errors)s") % {
            "errors": "; ".join(str(e) for e in error.errors)
        }
    return str(error)
