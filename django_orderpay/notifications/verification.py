"""Is this request a notification from the provider? Small checks that run in order.

Each check looks at the :class:`Incoming` request and either passes or
raises :class:`Rejected` with the HTTP status to answer and the field at
fault, the way django-anymail's webhook validators do: a shop can add its
own (an IP allow-list, say) by extending :data:`DEFAULT_CHECKS` on a
subclass of the view. :func:`verify` runs them, then reads the body as an
Order and names the order it is about (or, for a body without the order's
id, the charges it names), or as a hosted Checkout, naming it. :func:`decode_body` undoes a gzip
``Content-Encoding`` first.

Nothing here touches the database or the network.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from django_orderpay import cardcrypto, rules
from django_orderpay.conf import get_settings

logger = logging.getLogger("django_orderpay.notifications")

AUTHENTICITY_HEADER: Final = "x-authenticity-token"
JSON_MEDIA_TYPE: Final = "application/json"
#: The provider's notifications are a few kilobytes; anything near this is not one.
DEFAULT_MAX_BODY_SIZE: Final = rules.MAX_BODY_SIZE
_ORDER_ID = rules.ORDER_ID_PATTERN
_CHARGE_ID = rules.CHARGE_ID_PATTERN
_CHECKOUT_ID = rules.CHECKOUT_ID_PATTERN
#: ``Content-Encoding`` values :func:`decode_body` undoes ("identity" is no encoding).
GZIP_ENCODINGS: Final = frozenset({"gzip", "x-gzip"})


class Rejected(Exception):
    """The request is not a notification we process; answer ``status``.

    ``code`` is a stable machine-readable reason, ``field`` the header or
    body field at fault, ``valid`` what the authenticity check concluded
    (``None`` when it did not run or is configured off). ``outcome`` is what
    the delivery log says: ``rejected``, or ``ignored`` for a request that
    is not ours to process but must not be retried (a 2xx).
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        field: str = "",
        valid: bool | None = None,
        outcome: str = "rejected",
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.valid = valid
        self.outcome = outcome

    def as_dict(self) -> dict[str, str]:
        """The answer's ``error`` object."""
        error = {"code": self.code, "message": self.message}
        if self.field:
            error["field"] = self.field
        return error


@dataclass(frozen=True)
class Policy:
    """What the checks enforce, read from ``ORDERPAY`` (tokens never in a repr)."""

    tokens: tuple[str, ...] = field(repr=False)
    verify: bool = True
    max_body_size: int = DEFAULT_MAX_BODY_SIZE

    @classmethod
    def from_settings(cls, *, max_body_size: int = DEFAULT_MAX_BODY_SIZE) -> Policy:
        conf = get_settings()
        return cls(
            tokens=conf.notification_tokens,
            verify=conf.notification_verify,
            max_body_size=max_body_size,
        )


@dataclass(frozen=True)
class Incoming:
    """A request as it arrived: the raw body bytes and the headers (names in any case).

    ``body`` is the body with any ``Content-Encoding`` undone; ``received``
    the bytes as they came over the wire when they differ (a gzip'd body),
    else None. ``remote_addr`` is the client's address (``REMOTE_ADDR``, None
    when it is not an IP address) and ``meta`` the request's whole WSGI
    environ, for a shop's own checks (an IP allow-list behind a proxy reads
    its forwarded header there).
    """

    body: bytes = field(repr=False)
    headers: Mapping[str, str] = field(repr=False)
    content_type: str = ""
    received: bytes | None = field(default=None, repr=False)
    remote_addr: str | None = None
    meta: Mapping[str, Any] = field(default_factory=dict, repr=False)

    def header(self, name: str) -> str | None:
        wanted = name.lower()
        return next((v for k, v in self.headers.items() if k.lower() == wanted), None)

    @property
    def dedupe_key(self) -> str:
        """The same bytes are the same delivery: hex SHA-256 of the raw body."""
        return hashlib.sha256(self.body).hexdigest()


@dataclass(frozen=True)
class Verified:
    """A request that passed every check: its body as JSON and the order it names.

    ``valid`` is True when the ``x-authenticity-token`` matched a configured
    token, None when verification is configured off (so the body must not
    be trusted).
    """

    payload: dict[str, Any] = field(repr=False)
    order_id: str
    valid: bool | None
    #: The ``CHAR_`` ids a body without an order id names ("" ``order_id``).
    charge_ids: tuple[str, ...] = ()


Check = Callable[[Incoming, Policy], None]


def too_large(size: int, policy: Policy) -> Rejected:
    return Rejected(
        413,
        "body_too_large",
        f"the body of {size} bytes is larger than the {policy.max_body_size}-byte limit",
        field="body",
    )


def check_declared_size(content_length: int | None, policy: Policy) -> None:
    """Refuse a body whose ``Content-Length`` is over the limit, before reading it."""
    if content_length is not None and content_length > policy.max_body_size:
        raise too_large(content_length, policy)


def decode_body(body: bytes, content_encoding: str, policy: Policy) -> bytes:
    """``body`` with its ``Content-Encoding`` undone: none, ``identity`` or gzip.

    The decoded size is bounded by the policy's limit (a small gzip can
    inflate to gigabytes); any other encoding is a 415 naming the header,
    a corrupt or truncated gzip a 400.
    """
    codings = [c.strip().lower() for c in content_encoding.split(",")]
    codings = [c for c in codings if c and c != "identity"]
    if not codings:
        return body
    if len(codings) > 1 or codings[0] not in GZIP_ENCODINGS:
        raise Rejected(
            415,
            "unsupported_content_encoding",
            f"Content-Encoding must be gzip or none, not {', '.join(codings)}",
            field="Content-Encoding",
        )
    decompressor = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)  # gzip framing only
    try:
        decoded = decompressor.decompress(body, policy.max_body_size + 1)
    except zlib.error:
        decoded, broken = b"", True
    else:
        broken = False
    if len(decoded) > policy.max_body_size:
        raise Rejected(
            413,
            "body_too_large",
            f"the gzip'd body inflates past the {policy.max_body_size}-byte limit",
            field="body",
        )
    if broken or not decompressor.eof or decompressor.unused_data:
        raise Rejected(
            400, "invalid_gzip", "the body is not one complete gzip stream", field="body"
        )
    return decoded


def check_body_size(incoming: Incoming, policy: Policy) -> None:
    """Refuse a body over the limit (one that arrived without a ``Content-Length``)."""
    if len(incoming.body) > policy.max_body_size:
        raise too_large(len(incoming.body), policy)


def check_content_type(incoming: Incoming, policy: Policy) -> None:
    """The provider posts ``application/json``; anything else is not a notification.

    It is answered 200 ``ignored``, not refused: the legacy API's
    ``notificationCode`` form posts still reach shops' URLs, and a refusal
    only makes the sender retry (the official plugin moved to 200 for that).
    """
    media_type = incoming.content_type.split(";", 1)[0].strip().lower()
    if media_type != JSON_MEDIA_TYPE:
        shown = media_type or "none"
        raise Rejected(
            200,
            "not_json",
            f"not a notification of this API: Content-Type is {shown}, not {JSON_MEDIA_TYPE}",
            field="Content-Type",
            outcome="ignored",
        )


def token_matches(tokens: Sequence[str], body: bytes, given: str) -> bool:
    """Whether ``given`` is the authenticity token of ``body`` for any of ``tokens``.

    Compared in constant time, and against every token (no early exit), so the
    answer's timing says nothing about which token or how much of it matched.
    """
    given_bytes = given.strip().lower().encode("utf-8", "replace")
    matched = False
    for token in tokens:
        expected = cardcrypto.authenticity_token(token, body).encode()
        matched |= hmac.compare_digest(expected, given_bytes)
    return matched


def _signed_bodies(incoming: Incoming) -> tuple[bytes, ...]:
    """The bytes a token may have been computed over: the body, and as sent if encoded.

    The facts say "the raw body"; for a gzip'd request nobody documents
    whether that is before or after compression, and either digest needs
    the token, so both are accepted.
    """
    if incoming.received is None or incoming.received == incoming.body:
        return (incoming.body,)
    return (incoming.body, incoming.received)


def is_signed(incoming: Incoming) -> bool:
    """Whether the request carries an ``x-authenticity-token`` at all."""
    return bool((incoming.header(AUTHENTICITY_HEADER) or "").strip())


def check_authenticity(incoming: Incoming, policy: Policy) -> None:
    """``x-authenticity-token``, when present, is sha256(token + "-" + body) for a configured token.

    A request without the header passes *unverified*: the sandbox often
    omits it. Its body is never trusted (``valid`` is None): processing
    re-fetches the order with the shop's own token, which proves it is the
    shop's. A header that does not match is refused (401).
    """
    if not policy.verify or not is_signed(incoming):
        return
    given = incoming.header(AUTHENTICITY_HEADER) or ""
    if not policy.tokens:
        logger.error(
            "notification refused: NOTIFICATION_VERIFY is on but no NOTIFICATION_TOKENS "
            "(nor TOKEN) is configured"
        )
    matches = [token_matches(policy.tokens, body, given) for body in _signed_bodies(incoming)]
    if not any(matches):
        raise Rejected(
            401,
            "invalid_authenticity_token",
            f"the {AUTHENTICITY_HEADER} header does not match the body",
            field=AUTHENTICITY_HEADER,
            valid=False,
        )


#: Run in this order; the first to fail decides the answer. Authenticity comes
#: before the body is parsed, so nobody without a token learns how we parse.
DEFAULT_CHECKS: tuple[Check, ...] = (check_body_size, check_content_type, check_authenticity)


def named_charges(payload: Mapping[str, Any]) -> tuple[str, ...]:
    """The ``CHAR_`` ids a body names: its own ``id`` (a Charge) and its ``charges[].id``."""
    found: list[str] = []
    candidates = [payload.get("id")]
    charges = payload.get("charges")
    if isinstance(charges, list):
        candidates += [charge.get("id") for charge in charges if isinstance(charge, dict)]
    for candidate in candidates:
        if isinstance(candidate, str) and _CHARGE_ID.fullmatch(candidate):
            if candidate not in found:
                found.append(candidate)
    return tuple(found)


def is_checkout(provider_id: str) -> bool:
    """Whether ``provider_id`` names a hosted checkout (``CHEC_``) rather than an order."""
    return provider_id.startswith("CHEC_")


def read_order(body: bytes, *, valid: bool | None = None) -> tuple[dict[str, Any], str]:
    """The body as a JSON object and the ``ORDE_`` id it names; :class:`Rejected` (400) if not.

    A hosted checkout's own notification names its ``CHEC_`` id instead
    (:func:`is_checkout`). The id is "" for a body that names no order but names charges
    (:func:`named_charges`): an Order without its ``id``, or a Charge. Such a
    body is not what the provider documents sending, so it is never
    trusted; the order of a charge known here is re-fetched.
    """
    try:
        payload = json.loads(body)
    except (ValueError, RecursionError):
        raise Rejected(
            400, "invalid_json", "the body is not valid JSON", field="body", valid=valid
        ) from None
    if not isinstance(payload, dict):
        raise Rejected(
            400,
            "invalid_body",
            "the body must be a JSON object (an Order)",
            field="body",
            valid=valid,
        )
    order_id = payload.get("id")
    if isinstance(order_id, str) and (
        _ORDER_ID.fullmatch(order_id) or _CHECKOUT_ID.fullmatch(order_id)
    ):
        return payload, order_id
    names_charges = order_id is None or (
        isinstance(order_id, str) and _CHARGE_ID.fullmatch(order_id)
    )
    if names_charges and named_charges(payload):
        return payload, ""
    raise Rejected(
        400,
        "invalid_order_id",
        "must be the order's ORDE_ id, a checkout's CHEC_ id, or the body must name its "
        "charges' CHAR_ ids",
        field="id",
        valid=valid,
    )


def verify(
    incoming: Incoming, policy: Policy, checks: Sequence[Check] = DEFAULT_CHECKS
) -> Verified:
    """Run ``checks``, then read the body; :class:`Rejected` at the first problem."""
    for check in checks:
        check(incoming, policy)
    valid = True if policy.verify and is_signed(incoming) else None
    payload, order_id = read_order(incoming.body, valid=valid)
    charge_ids = () if order_id else named_charges(payload)
    return Verified(payload=payload, order_id=order_id, valid=valid, charge_ids=charge_ids)
