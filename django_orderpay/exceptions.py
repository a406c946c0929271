"""One hierarchy of errors for callers to catch.

``OrderPayError`` is the root. A declined charge is *not* an error: it is a
charge with status ``DECLINED`` in a successful answer. No message here ever
carries a card number, security code, encrypted card or API token: builders
name the field, never its value, and provider errors carry only what the
provider said (passed through :func:`django_orderpay.redaction.redact_text`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ImproperlyConfigured, PermissionDenied, SuspiciousOperation

from ._deprecation import deprecated_getattr


def _rebuild(cls: type[OrderPayError], args: tuple[Any, ...], state: dict[str, Any]) -> Any:
    error = cls.__new__(cls)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    return error


class OrderPayError(Exception):
    """The root of every error this package raises on purpose."""

    def __reduce__(self) -> tuple[Any, ...]:
        # Keyword-only attributes survive pickling (a task queue, a process pool).
        return (_rebuild, (type(self), self.args, dict(self.__dict__)))


class ConfigurationError(OrderPayError, ImproperlyConfigured):
    """The ``ORDERPAY`` settings (or their environment variables) are wrong or missing."""


@dataclass(frozen=True)
class FieldError:
    """One invalid field of a request, named by its path as the provider names it."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class PayloadError(OrderPayError, ValueError):
    """A request body failed validation before any network call (formerly ``ValidationError``).

    ``errors`` lists every problem found, each with the field's path
    (``charges[0].payment_method.card.exp_year``).
    """

    def __init__(self, errors: Iterable[FieldError]) -> None:
        self.errors: list[FieldError] = list(errors)
        super().__init__("invalid request: " + "; ".join(str(e) for e in self.errors))

    @property
    def paths(self) -> list[str]:
        """The paths of the invalid fields, in the order found."""
        return [error.path for error in self.errors]


@dataclass(frozen=True)
class ErrorMessage:
    """One entry of the provider's ``error_messages``.

    ``code`` (``"40002"``, ``"UNAUTHORIZED"``; "" when the entry has none) and
    ``error``, the name PagBank's error table documents beside it
    (``"invalid_parameter"``, or production's ``"SELLER_ACCOUNT_REQUIRED"``; some
    answers carry ``error`` and no ``code``): branch on either.
    """

    code: str
    description: str
    parameter_name: str | None = None
    error: str | None = None

    def __str__(self) -> str:
        said = (self.code, self.description)
        named = self.error if self.error and self.error not in said else None
        text = " ".join(part for part in (self.code, named, self.description) if part)
        return f"{text} ({self.parameter_name})" if self.parameter_name else text


def parse_error_messages(body: Any) -> list[ErrorMessage]:
    """The error entries of any of the provider's error shapes.

    The provider answers ``{"error_messages": [...]}`` on most endpoints,
    ``{"error": ..., "description": ..., "parameter_name": ...}`` on some,
    ``{"errors": [{"code", "message"}]}`` on the deeplink simulator, and a
    bare ``{"message": "Forbidden"}`` from its gateway (403s).
    """
    if not isinstance(body, Mapping):
        return []
    entries: list[Any]
    if isinstance(body.get("error_messages"), list):
        entries = body["error_messages"]
    elif isinstance(body.get("errors"), list):
        entries = body["errors"]
    elif "error" in body:
        entries = [{"code": body.get("error"), **body}]  # the name is its only code
    elif isinstance(body.get("message"), str):
        entries = [{"code": "", "description": body["message"]}]
    else:
        return []
    messages = []
    for entry in entries:
        if not isinstance(entry, Mapping):
            continue
        description = entry.get("description", entry.get("message", ""))
        parameter = entry.get("parameter_name")
        error = entry.get("error")
        messages.append(
            ErrorMessage(
                code=str(entry.get("code") or ""),
                description=str(description or ""),
                parameter_name=str(parameter) if parameter else None,
                error=str(error) if error else None,
            )
        )
    return messages


class ProviderError(OrderPayError):
    """The provider refused a request (or could not be reached: see subclasses).

    ``status`` is the HTTP status (``None`` when no answer arrived),
    ``error_messages`` the provider's entries, ``method`` and ``path`` the
    request, ``idempotency_key`` the key sent with a POST.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        error_messages: Iterable[ErrorMessage] = (),
        method: str | None = None,
        path: str | None = None,
        idempotency_key: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.error_messages: list[ErrorMessage] = list(error_messages)
        self.method = method
        self.path = path
        self.idempotency_key = idempotency_key

    @property
    def codes(self) -> list[str]:
        """The ``code`` of every error entry (``["40002"]``)."""
        return [message.code for message in self.error_messages]

    @property
    def error_names(self) -> list[str]:
        """The ``error`` of every entry that has one (``["invalid_parameter"]``,
        ``["SELLER_ACCOUNT_REQUIRED"]``): PagBank's names beside the codes."""
        return [message.error for message in self.error_messages if message.error]

    @property
    def parameter_names(self) -> list[str]:
        """The ``parameter_name`` of every entry that names one."""
        return [m.parameter_name for m in self.error_messages if m.parameter_name]

    def has(self, code_or_error: str) -> bool:
        """Whether an entry's ``code`` or ``error`` is ``code_or_error`` (``"40002"``,
        ``"SELLER_ACCOUNT_REQUIRED"``, ``"incomplete_configuration"``)."""
        return any(
            code_or_error in (message.code, message.error) for message in self.error_messages
        )


class AuthenticationError(ProviderError):
    """401: the bearer token is missing, wrong or revoked."""


class AccountNeedsAuthorization(AuthenticationError):
    """A connected account (PagBank Connect) can't be acted for until its seller authorises again.

    PagBank refused its tokens (the refresh token expired or was revoked by
    the seller), or the platform disconnected it. The account's ``state``
    says which (``needs_authorization`` or ``revoked``); ``account_id`` is its
    ``ACCO_`` id. Raised before any call once the account is marked, so a
    shop can catch it to show "reconnect your PagBank account". Nothing was
    sent for the call that raised it.
    """

    def __init__(self, message: str, *, account_id: str = "", **kwargs: Any) -> None:
        kwargs.setdefault("status", 401)
        super().__init__(message, **kwargs)
        self.account_id = account_id


class ConnectApplicationRefused(AuthenticationError, ConfigurationError):
    """PagBank refused the Connect *application* on one of its token calls (``/oauth2/*``).

    ``41003 invalid_client``, ``41006 unauthorized_client``, ``41008
    invalid_token`` (the ``Authorization`` those calls send is the
    application's), or a 401/403 without a seller's code: ``CONNECT_CLIENT_ID``
    or ``CONNECT_CLIENT_SECRET`` is wrong (or, with ``CONNECT_AUTH`` ``bearer``,
    ``TOKEN``). A configuration error, not a seller's: no account is marked
    for it, and a token that still works goes on being used. Its message names
    the settings, never their values; ``status`` is 401 (nothing was done for
    the call it stood for), the token call's own answer is in
    ``error_messages`` and the message.
    """


class Forbidden(ProviderError):
    """403 with a JSON body: not allowed (an HTML 403 from the CDN is ``ProviderUnavailable``)."""


class NotFound(ProviderError):
    """404: no such order, charge, split or deeplink for this account; also an answer
    naming ``checkout_not_found`` in any status (the Checkout API documents 400 for it)."""


class IdempotencyConflict(ProviderError):
    """409: the idempotency key is already in use (with another body, or still in flight).

    Any 409 on a POST, whatever its code: the docs say ``40005``
    ``idempotency_key_in_use``, production has answered ``IDEMPOTENCY_CONFLICT``.
    The provider holds the key, so the earlier request with it may have acted.
    """


class ProviderUnavailable(ProviderError):
    """The provider could not give an answer, after the retries the client allows.

    ``reason`` says what happened (a timeout, a reset connection, an empty 500,
    a 502, an HTML 403 page from the CDN, a rate limit) and ``attempts`` how
    many requests were sent. ``sent`` is False when no attempt left this
    machine (every connection was refused, timed out before it was made, or
    the host was not found): the provider cannot have acted.
    """

    def __init__(
        self,
        message: str,
        *,
        reason: str = "",
        attempts: int = 1,
        sent: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(message, **kwargs)
        self.reason = reason
        self.attempts = attempts
        self.sent = sent


class OutcomeUnknown(ProviderUnavailable):
    """A money-moving call ended without an answer: the provider may have acted.

    Raised by the services (never for a GET) after a timeout, a reset
    connection, a 5xx, a 409, or a refusal that came after such an attempt.
    ``operation`` is the :class:`~django_orderpay.models.Operation` that
    recorded the call: it keeps its idempotency key until the outcome is
    known, so calling the same service again for the same operation is safe
    (it is sent with the same key and acts at most once). It is settled by
    that repeat, by the provider's notification, by ``refresh_order`` or by
    ``manage.py orderpay_sync``. The original error is ``__cause__``.
    """

    def __init__(self, message: str, *, operation: Any = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.operation = operation


class PaymentInProgress(OrderPayError):
    """Another money-moving call for the same shop object is in flight: nothing was sent.

    A shop object (the purchase an order was created for) has at most one
    at a time: a payment (a create or a pay) is refused while a payment,
    capture or refund of it has no outcome yet. ``operation`` is the one in
    flight; tell the shopper to wait for its outcome (``shopper_messages``
    says so), don't start another. Calling again with the first call's key
    joins it instead.
    """

    def __init__(self, message: str, *, operation: Any = None) -> None:
        super().__init__(message)
        self.operation = operation


class CardTokenNotOwned(OrderPayError, PermissionDenied):
    """A stored card was offered by someone other than its owner.

    A ``PermissionDenied``, so a Django or DRF view that lets it through
    answers 403. Raised before any call to the provider.
    """


class TooManyCardAttempts(OrderPayError):
    """A card attempt refused by the card-testing limits; nothing was sent.

    ``scope`` is what was counted (``order``: the purchase, ``shopper``,
    ``address``), ``kind`` what (``attempts`` or ``declines``), ``limit``
    the limit reached and ``retry_after`` the window in seconds (at most that
    long until the counters start again).
    ``django_orderpay.shopper_messages.refusal_message`` says it to a shopper.
    """

    def __init__(
        self,
        message: str,
        *,
        scope: str = "",
        kind: str = "",
        limit: int = 0,
        retry_after: int = 0,
    ) -> None:
        super().__init__(message)
        self.scope = scope
        self.kind = kind
        self.limit = limit
        self.retry_after = retry_after


class UnsafeURL(OrderPayError, SuspiciousOperation):
    """A URL handed to a template tag (for a script to fetch or go to) is not this site's.

    Only a relative URL, or an absolute one on the request's own host and
    scheme, may reach ``payment.js``: anything else (``javascript:``, another
    host) is refused when the page renders. A ``SuspiciousOperation``, so
    Django answers 400 and logs it to ``django.security``.
    """


#: Old names, still answered with a DeprecationWarning (docs/names.md).
_DEPRECATED = {
    # Django's and DRF's share the name: ``except ValidationError`` caught the wrong one.
    "ValidationError": ("PayloadError", "Django and DRF have their own ValidationError"),
}
__getattr__ = deprecated_getattr(__name__, _DEPRECATED, globals())
