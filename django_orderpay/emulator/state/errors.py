"""The provider's error answers, as exceptions the core raises and turns into responses.

Two body shapes exist. The Orders API answers
``{"error_messages": [{"code", "message", "description", "parameter_name"?,
"error"}]}`` (codes are strings: ``"40002"``, ``"UNAUTHORIZED"``; real answers
carry ``message`` and ``error`` beside the documented ``description``); the
deeplink pay simulator answers ``{"errors": [{"code", "message"}]}``. Messages name fields, never
their values, so no card number or token ever lands in an error.
"""

from __future__ import annotations

from typing import Any

from ..serving.http import Response

REQUIRED = "40001"
INVALID = "40002"
UNKNOWN = "40003"
RATE_LIMIT = "40004"
IDEMPOTENCY_KEY_IN_USE = "40005"
UNABLE_CAPTURE = "40006"
UNABLE_REFUND = "40007"
REFUND_TEMPORARILY_UNAVAILABLE = "40008"
WALLET_KEY_ALREADY_USED = "40009"
#: The error table's name for each code (an entry's ``error``).
ERROR_NAMES = {
    REQUIRED: "required_parameter",
    INVALID: "invalid_parameter",
    UNKNOWN: "parameter_unknown",
    RATE_LIMIT: "rate_limit",
    IDEMPOTENCY_KEY_IN_USE: "idempotency_key_in_use",
    UNABLE_CAPTURE: "unable_capture",
    UNABLE_REFUND: "unable_refund",
    REFUND_TEMPORARILY_UNAVAILABLE: "refund_temporarily_unavailable",
    WALLET_KEY_ALREADY_USED: "wallet_key_already_used",
}
#: PagBank Connect's error table (``connect/api/01-codigos-erro.md``): code -> description.
CONNECT_ERRORS = {
    "41001": "invalid_request",
    "41002": "invalid_redirect_uri",
    "41003": "invalid_client",
    "41004": "invalid_grant",
    "41005": "unsupported_grant_type",
    "41006": "unauthorized_client",
    "41007": "unsupported_token_type",
    "41008": "invalid_token",
    "41012": "token_is_no_longer_active",
}
ERROR_NAMES.update(CONNECT_ERRORS)


def answered_entry(entry: dict[str, str]) -> dict[str, str]:
    """An error entry as the API answers it: ``message`` and ``error`` beside the rest."""
    description = entry.get("description", "")
    message = description.replace("_", " ").capitalize() if "_" in description else description
    answered = {"code": entry["code"], "message": message}
    answered.update({k: v for k, v in entry.items() if k != "code"})
    answered["error"] = ERROR_NAMES.get(entry["code"], entry["code"].lower())
    return answered


class ProviderError(Exception):
    """An error answer of the Orders API: HTTP ``status`` and its ``error_messages``."""

    def __init__(
        self,
        status: int,
        error_messages: list[dict[str, str]],
        *,
        headers: list[tuple[str, str]] | None = None,
    ) -> None:
        self.status = status
        self.error_messages = error_messages
        self.headers = list(headers or [])
        first = error_messages[0] if error_messages else {}
        where = f" ({first['parameter_name']})" if "parameter_name" in first else ""
        super().__init__(f"{status} {first.get('code', '')} {first.get('description', '')}{where}")

    @property
    def code(self) -> str:
        """The first message's code (the one tests usually check)."""
        return self.error_messages[0]["code"] if self.error_messages else ""

    @property
    def parameter_name(self) -> str | None:
        """The first message's ``parameter_name``, if it names one."""
        return self.error_messages[0].get("parameter_name") if self.error_messages else None

    def to_response(self) -> Response:
        entries = [answered_entry(entry) for entry in self.error_messages]
        response = Response.json(self.status, {"error_messages": entries})
        response.headers.extend(self.headers)
        return response


def _error(
    status: int, code: str, description: str, parameter_name: str | None = None, **kwargs: Any
) -> ProviderError:
    message = {"code": code, "description": description}
    if parameter_name is not None:
        message["parameter_name"] = parameter_name
    return ProviderError(status, [message], **kwargs)


def required(parameter_name: str) -> ProviderError:
    """40001: a required field is missing (or null)."""
    return _error(400, REQUIRED, "required_parameter", parameter_name)


def invalid(parameter_name: str, description: str = "invalid_parameter") -> ProviderError:
    """40002: a field has the wrong type, format, length or value."""
    return _error(400, INVALID, description, parameter_name)


def unknown(parameter_name: str) -> ProviderError:
    """40003: a field the provider does not know."""
    return _error(400, UNKNOWN, "parameter_unknown", parameter_name)


def rate_limited(retry_after: int = 1) -> ProviderError:
    """40004 with HTTP 429.

    The facts' table lists 40004 under HTTP 400, but a rate limit is what 429
    means and what HTTP clients (``urllib3.Retry``, proxies) recognise; our
    client must treat 40004 as a rate limit whatever the status, and the
    emulator picks the status that exercises the standard path. ``Retry-After``
    is sent for the same reason.
    """
    return _error(429, RATE_LIMIT, "rate_limit", headers=[("Retry-After", str(retry_after))])


def idempotency_conflict(shape: str = "production") -> ProviderError:
    """409: the idempotency key was used with a different body.

    ``production`` answers as PagBank was seen answering in 2026
    (``IDEMPOTENCY_CONFLICT``, "request body must be the same as the original
    request"); ``docs`` as its error table says (``40005 idempotency_key_in_use``).
    """
    if shape == "docs":
        return _error(409, IDEMPOTENCY_KEY_IN_USE, "idempotency_key_in_use")
    return _error(
        409, "IDEMPOTENCY_CONFLICT", "request body must be the same as the original request"
    )


def unable_capture(reason: str | None = None) -> ProviderError:
    """40006: the charge cannot be captured (already captured, expired, wrong status)."""
    return _error(400, UNABLE_CAPTURE, f"unable_capture: {reason}" if reason else "unable_capture")


def unable_refund(reason: str | None = None) -> ProviderError:
    """40007: the charge cannot be refunded (already refunded, amount too high, wrong status)."""
    return _error(400, UNABLE_REFUND, f"unable_refund: {reason}" if reason else "unable_refund")


def refund_temporarily_unavailable() -> ProviderError:
    """40008: refunds are unavailable for now."""
    return _error(400, REFUND_TEMPORARILY_UNAVAILABLE, "refund_temporarily_unavailable")


def wallet_key_already_used(parameter_name: str) -> ProviderError:
    """40009, HTTP 409: a wallet's key was used in another transaction (the error table)."""
    return _error(409, WALLET_KEY_ALREADY_USED, "wallet_key_already_used", parameter_name)


def unauthorized() -> ProviderError:
    """401: missing or unknown bearer token (the provider's exact wording)."""
    return _error(401, "UNAUTHORIZED", "Invalid credential. Review AUTHORIZATION header")


def connect_error(code: str, status: int = 400, parameter_name: str | None = None) -> ProviderError:
    """A Connect error (``41004`` ``invalid_grant``...), in the API's error shape."""
    return _error(status, code, CONNECT_ERRORS[code], parameter_name)


def forbidden(description: str = "Access denied to this resource") -> ProviderError:
    """403: the token is valid but may not touch this resource (e.g. another merchant's card)."""
    return _error(403, "FORBIDDEN", description)


def not_found(resource: str) -> ProviderError:
    """404: no such ``resource`` (``"order"``, ``"charge"``, ``"split"``) for this merchant."""
    return _error(404, "NOT_FOUND", f"{resource} not found")


class SimulationError(Exception):
    """An error of the deeplink pay simulator: ``{"errors": [{"code", "message"}]}``."""

    def __init__(self, status: int, code: str, message: str) -> None:
        self.status = status
        self.code = code
        self.message = message
        super().__init__(f"{status} {code} {message}")

    @classmethod
    def not_found(cls) -> SimulationError:
        return cls(404, "40401", "deeplink not found")

    @classmethod
    def already_paid(cls) -> SimulationError:
        return cls(409, "40901", "deeplink already paid")

    @classmethod
    def expired(cls) -> SimulationError:
        return cls(410, "41001", "deeplink expired")

    @classmethod
    def bad_request(cls, message: str) -> SimulationError:
        """400 for a malformed body or an amount outside R$1.00..R$1,500.00."""
        return cls(400, "40002", message)

    def to_response(self) -> Response:
        body = {"errors": [{"code": self.code, "message": self.message}]}
        return Response.json(self.status, body)


def internal_error() -> Response:
    """A 500 in the provider's error shape (a bug of ours, or an injected fault)."""
    return Response.json(
        500, {"error_messages": [{"code": "50000", "description": "internal_server_error"}]}
    )
