"""Reading an answer: which failures deserve a retry, and which exception the rest become."""

from __future__ import annotations

import json
from typing import Any

import requests

from django_orderpay.exceptions import (
    AuthenticationError,
    ErrorMessage,
    Forbidden,
    IdempotencyConflict,
    NotFound,
    ProviderError,
    ProviderUnavailable,
    parse_error_messages,
)
from django_orderpay.redaction import redact_text

RATE_LIMIT_CODE = "40004"
#: The provider's names for "no such object for this account": ``NotFound`` whatever the
#: status. The Checkout API's error table lists ``checkout_not_found`` without a status, and
#: its get, activate and inactivate pages document only 200 and 400 (the emulator answers
#: 404, or 400 with its ``checkout_not_found_status`` option). The Orders API's tables name
#: none of their own (an unknown order, charge or split is a 404).
NOT_FOUND_ERRORS = frozenset({"checkout_not_found"})
GATEWAY_STATUSES = frozenset({502, 503, 504})


def json_body(response: requests.Response) -> Any:
    """The parsed JSON body, or None when it is empty or not JSON."""
    if not response.content:
        return None
    try:
        return json.loads(response.content)
    except ValueError:
        return None


def _is_html(response: requests.Response) -> bool:
    content_type = response.headers.get("Content-Type", "").lower()
    return "html" in content_type or response.content.lstrip()[:1] == b"<"


def _describe_page(response: requests.Response) -> str:
    if not response.content:
        return "with an empty body"
    return "with an HTML page" if _is_html(response) else "with a non-JSON body"


def retry_reason(response: requests.Response) -> str | None:
    """Why this answer is worth another try (with the same idempotency key), or None.

    Retried: 429 and ``40004`` (rate limit, in whatever status), 502/503/504,
    and a 500 with an empty body (the provider's "it broke before answering").
    Never another 4xx: sending the same request again gets the same refusal.
    """
    status = response.status_code
    if status == 429:
        return "rate limited (HTTP 429)"
    if status in GATEWAY_STATUSES:
        return f"HTTP {status} {response.reason or ''} {_describe_page(response)}".replace(
            "  ", " "
        )
    if status == 500 and not response.content.strip():
        return "HTTP 500 with an empty body"
    if 400 <= status < 500:
        codes = [m.code for m in parse_error_messages(json_body(response))]
        if RATE_LIMIT_CODE in codes:
            return f"rate limited ({RATE_LIMIT_CODE} rate_limit, HTTP {status})"
    return None


def may_have_acted(response: requests.Response) -> bool:
    """Whether a retried answer may hide work done: a 5xx may, a rate limit did nothing."""
    return response.status_code >= 500


def redacted_messages(
    response: requests.Response | None, secrets: tuple[str, ...]
) -> list[ErrorMessage]:
    """The answer's error entries, with anything secret-looking masked (they reach messages)."""
    if response is None:
        return []
    return [
        ErrorMessage(
            code=redact_text(m.code, secrets),
            description=redact_text(m.description, secrets),
            parameter_name=redact_text(m.parameter_name, secrets) if m.parameter_name else None,
            error=redact_text(m.error, secrets) if m.error else None,
        )
        for m in parse_error_messages(json_body(response))
    ]


def retry_after(response: requests.Response | None) -> float | None:
    """The ``Retry-After`` header in seconds, when it is a number."""
    if response is None:
        return None
    try:
        return max(0.0, float(response.headers.get("Retry-After", "")))
    except ValueError:
        return None


def error_for(
    response: requests.Response,
    *,
    method: str,
    path: str,
    idempotency_key: str | None,
    attempts: int,
    secrets: tuple[str, ...],
) -> ProviderError:
    """The exception for a non-2xx answer that is not retried (or no longer)."""
    status = response.status_code
    body = json_body(response)
    messages = redacted_messages(response, secrets)
    context: dict[str, Any] = {
        "status": status,
        "error_messages": messages,
        "method": method,
        "path": path,
        "idempotency_key": idempotency_key,
    }
    if body is None and (status == 403 or status >= 500):
        # Not the API speaking: a CDN/WAF page or a broken gateway.
        if status == 403 and _is_html(response):
            reason = (
                "HTTP 403 with an HTML page from the provider's CDN "
                "(blocked before it reached the API)"
            )
        else:
            reason = f"HTTP {status} {_describe_page(response)}"
        return unavailable(reason, [reason], attempts=attempts, **context)
    details = "; ".join(str(m) for m in messages) or _describe_page(response)
    message = f"{method} {path} answered HTTP {status}: {details}"
    if status == 401:
        return AuthenticationError(message + " (check ORDERPAY['TOKEN'])", **context)
    if status == 403:
        return Forbidden(message, **context)
    if status == 404 or any(
        name in NOT_FOUND_ERRORS for m in messages for name in (m.code, m.error)
    ):
        return NotFound(message, **context)
    if status == 409:
        # Whatever its code (40005 in the docs, IDEMPOTENCY_CONFLICT in
        # production): the provider holds this key, so it may have acted on it.
        return IdempotencyConflict(
            message + f" (idempotency key {idempotency_key} is already in use)", **context
        )
    return ProviderError(message, **context)


def unavailable(
    reason: str, history: list[str], *, attempts: int, method: str, path: str, **context: Any
) -> ProviderUnavailable:
    """``ProviderUnavailable`` whose message says what happened on each attempt."""
    tries = f"{attempts} attempt{'s' if attempts != 1 else ''}"
    earlier = history[:-1] if history and history[-1] == reason else history
    message = f"{method} {path}: the provider is unavailable after {tries}: {reason}"
    if earlier:
        message += " (before that: " + "; ".join(earlier) + ")"
    return ProviderUnavailable(
        message, reason=reason, attempts=attempts, method=method, path=path, **context
    )
