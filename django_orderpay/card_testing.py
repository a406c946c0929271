"""Limits on card attempts: a card tester is refused before the provider is asked.

Card testing is a bot posting stolen card numbers through a checkout to
find the live ones; every attempt costs the merchant fees and risk score.
Each service that sends a card (``create_order`` or ``pay_order`` with a card
charge, ``pay_with_card_token``, ``store_card``) counts it here first, for
three things at once, within ``CARD_ATTEMPTS_WINDOW`` seconds:

- the **purchase** (the order's shop object, else the order; for a new order,
  the shop object or its ``reference_id``);
- the **shopper**: the user, else the session (:class:`Shopper`);
- the **client address** (:func:`~django_orderpay.throttling.client_address`).

For each, two limits: cards sent (``CARD_ATTEMPTS_PER_*``) and cards
declined (``CARD_DECLINES_PER_*``). Past either, the attempt is refused
before any call with :class:`~django_orderpay.exceptions.TooManyCardAttempts`
(its ``shopper_message`` says what to do), the refusal is written down for
the admin (:class:`~django_orderpay.models.CardAttemptRefusal`) and
``signals.card_attempts_refused`` is sent, for the shop to alert staff, block
or ask for a CAPTCHA. A shopper who mistyped once is far inside every limit.

The counters live in Django's cache (:mod:`django_orderpay.throttling`): a
cache shared by every process (Redis, Memcached) when the shop runs more
than one. ``CARD_TESTING_LIMITS = False`` turns the whole module off.

Before the limits, a CAPTCHA: with ``CARD_CAPTCHA_AFTER_DECLINES`` set, once
a shopper or their address has had that many cards declined, the package's
card forms add a CAPTCHA field (:func:`captcha_field`: django-simple-captcha's
by default, the ``captcha`` extra, or any package's set in
``CARD_CAPTCHA_FIELD``), so a bot is stopped where a person can go on.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.db.models import F
from django.utils import timezone
from django.utils.crypto import salted_hmac
from django.utils.module_loading import import_string

from django_orderpay import throttling
from django_orderpay.conf import OrderPaySettings, get_settings
from django_orderpay.exceptions import TooManyCardAttempts
from django_orderpay.models import CardAttemptRefusal, LimitKind, LimitScope, Order
from django_orderpay.models.card_testing import REFUSALS_KEPT

__all__ = [
    "Attempt",
    "Shopper",
    "begin",
    "captcha_field",
    "captcha_required",
    "check",
    "declined_in",
    "purchase_of_order",
    "purchase_of_request",
    "sends_a_card",
]

#: Salt of the digest that stands for a session key in counters and rows.
SESSION_SALT = "django_orderpay.card_testing.session"


@dataclass(frozen=True)
class Shopper:
    """Who is paying, as the limits count: a user id, a session key, a client address.

    Build it from the request (:meth:`from_request`) and hand it to the
    services (``shopper=``); the package's card forms do it when given
    ``request=``. Without one, a service counts only the user it is given.
    """

    user_id: int | None = None
    session_key: str | None = field(default=None, repr=False)
    address: str | None = None

    @classmethod
    def from_request(cls, request: Any) -> Shopper:
        """The request's user (if logged in), session and client address."""
        user = getattr(request, "user", None)
        session = getattr(request, "session", None)
        trusted = get_settings(strict=False).trusted_proxies
        return cls(
            user_id=user.pk if user is not None and user.is_authenticated else None,
            session_key=getattr(session, "session_key", None) or None,
            address=throttling.client_address(request.META, trusted),
        )

    @classmethod
    def of_user(cls, user: Any) -> Shopper:
        """Only the user (a service called without a request)."""
        authenticated = user is not None and getattr(user, "is_authenticated", True)
        return cls(user_id=user.pk if authenticated else None)

    @property
    def identity(self) -> str:
        """What the shopper limits count: ``user:<id>``, ``session:<digest>``, or ""."""
        if self.user_id is not None:
            return f"user:{self.user_id}"
        if self.session_key:
            # SHA-1 named, not left to Django's default (which Django 6.1 says will
            # change): the attempts counted for a session before an upgrade go on counting.
            digest = salted_hmac(SESSION_SALT, self.session_key, algorithm="sha1").hexdigest()[:24]
            return f"session:{digest}"
        return ""


def purchase_of_order(order: Order) -> str:
    """The purchase an order pays: its shop object (``shop:<type>:<pk>``), else the order."""
    if order.content_type_id is not None and order.object_id:
        return f"shop:{order.content_type_id}:{order.object_id}"
    return f"order:{order.provider_id}"


def purchase_of_request(body: Mapping[str, Any], shop_object: Any = None) -> str:
    """The purchase a new order pays: its shop object, else its ``reference_id`` ("" if none)."""
    if shop_object is not None:
        from django.contrib.contenttypes.models import ContentType

        content_type = ContentType.objects.get_for_model(shop_object)
        return f"shop:{content_type.pk}:{shop_object.pk}"
    reference = body.get("reference_id") or ""
    return f"reference:{reference}" if reference else ""


def sends_a_card(body: Mapping[str, Any]) -> bool:
    """Whether a request body charges a card (typed, encrypted or stored)."""
    for charge in body.get("charges") or ():
        method = charge.get("payment_method") or {} if isinstance(charge, Mapping) else {}
        if isinstance(method, Mapping) and method.get("card"):
            return True
    return False


@dataclass(frozen=True)
class _Limit:
    scope: str
    kind: str
    counted: str
    limit: int

    @property
    def key(self) -> str:
        return _counter(self.kind, self.scope, self.counted)


def _counter(kind: str, scope: str, counted: str) -> str:
    """The cache key of one counter: cards ``kind`` (attempts, declines) per ``scope``."""
    return throttling.key("card", kind, scope, counted)


@dataclass(frozen=True)
class Attempt:
    """A card attempt counted (:func:`begin`): tell it how the provider answered."""

    shopper: Shopper
    purchase: str
    window: int
    declines: tuple[_Limit, ...] = ()

    def declined(self, cards: int = 1) -> None:
        """``cards`` of this attempt were declined: count them against the decline limits."""
        for _ in range(max(cards, 0)):
            for limit in self.declines:
                throttling.hit(limit.key, self.window)


def _limits(conf: OrderPaySettings, shopper: Shopper, purchase: str) -> list[_Limit]:
    values = conf.card_limits
    counted = {
        LimitScope.ORDER: purchase,
        LimitScope.SHOPPER: shopper.identity,
        LimitScope.ADDRESS: shopper.address or "",
    }
    limits = []
    for scope, what in counted.items():
        if not what:
            continue
        for kind in (LimitKind.ATTEMPTS, LimitKind.DECLINES):
            limit = values[f"card_{kind}_per_{scope}"]
            if limit > 0:
                limits.append(_Limit(str(scope), str(kind), what, limit))
    return limits


def check(shopper: Shopper, purchase: str = "") -> None:
    """Refuse now if a limit is already reached (nothing counted): a form's early check.

    A view can then refuse before it makes an order at all.
    """
    conf = get_settings(strict=False)
    if not conf.card_testing_limits:
        return
    limits = _limits(conf, shopper, purchase)
    counts = throttling.count_many([limit.key for limit in limits])
    for limit in limits:
        if counts[limit.key] >= limit.limit:
            _refuse(limit, counts[limit.key], shopper, purchase, conf)


def captcha_required(shopper: Shopper) -> bool:
    """Whether the shopper's card form must ask for a CAPTCHA: they (or their address)
    have had ``CARD_CAPTCHA_AFTER_DECLINES`` cards declined in the window."""
    conf = get_settings(strict=False)
    after = conf.card_captcha_after_declines
    if not conf.card_testing_limits or after <= 0:
        return False
    who = {LimitScope.SHOPPER: shopper.identity, LimitScope.ADDRESS: shopper.address}
    counted = [_counter(LimitKind.DECLINES, scope, what) for scope, what in who.items() if what]
    return any(count >= after for count in throttling.count_many(counted).values())


def captcha_field() -> forms.Field:
    """A new CAPTCHA form field of ``CARD_CAPTCHA_FIELD``'s class."""
    field: forms.Field = import_string(get_settings(strict=False).card_captcha_field)()
    return field


def begin(shopper: Shopper | None, purchase: str = "") -> Attempt | None:
    """Count one card attempt, or refuse it (:class:`TooManyCardAttempts`) before any call.

    Refused when a decline limit is reached, or when this attempt passes an
    attempts limit. None when the limits are off.
    """
    conf = get_settings(strict=False)
    if not conf.card_testing_limits:
        return None
    shopper = shopper or Shopper()
    limits = _limits(conf, shopper, purchase)
    window = conf.card_limits["card_attempts_window"]
    declines = [limit for limit in limits if limit.kind == LimitKind.DECLINES]
    counts = throttling.count_many([limit.key for limit in declines])
    for limit in declines:
        if counts[limit.key] >= limit.limit:
            _refuse(limit, counts[limit.key], shopper, purchase, conf)
    for limit in limits:
        if limit.kind == LimitKind.ATTEMPTS:
            sent = throttling.hit(limit.key, window)
            if sent > limit.limit:
                _refuse(limit, sent - 1, shopper, purchase, conf)
    return Attempt(shopper, purchase, window, tuple(declines))


def _refuse(
    limit: _Limit, count: int, shopper: Shopper, purchase: str, conf: OrderPaySettings
) -> None:
    """Write the refusal down, tell the shop (the signal), raise."""
    window = conf.card_limits["card_attempts_window"]
    refusal = _record(limit, shopper, purchase, window)
    from django_orderpay.signals import announce_card_attempts_refused

    announce_card_attempts_refused(
        refusal=refusal,
        shopper=shopper,
        scope=limit.scope,
        kind=limit.kind,
        limit=limit.limit,
        count=count,
    )
    raise TooManyCardAttempts(
        f"card attempts refused: {count} {limit.kind} for this {limit.scope} within "
        f"{window} s (limit {limit.limit})",
        scope=limit.scope,
        kind=limit.kind,
        limit=limit.limit,
        retry_after=window,
    )


def _record(limit: _Limit, shopper: Shopper, purchase: str, window: int) -> CardAttemptRefusal:
    """One row per counter and window; later refusals of the window count on it."""
    marker = throttling.key("card-refusal", limit.kind, limit.scope, limit.counted)
    row_id = throttling.recall(marker)
    now = timezone.now()
    if row_id is not None:
        updated = CardAttemptRefusal.objects.filter(pk=row_id).update(
            refusals=F("refusals") + 1, last_refused_at=now
        )
        if updated:
            return CardAttemptRefusal(pk=row_id, scope=limit.scope, kind=limit.kind)
    refusal = CardAttemptRefusal.objects.create(
        first_refused_at=now,
        last_refused_at=now,
        scope=limit.scope,
        kind=limit.kind,
        limit=limit.limit,
        counted=limit.counted[:100],
        user_id=shopper.user_id,
        address=(shopper.address or "")[:64],
        purchase=purchase[:100],
    )
    throttling.remember(marker, refusal.pk, window)
    _keep_the_newest(refusal.pk)
    return refusal


def _keep_the_newest(newest_pk: int) -> None:
    """Bound the table: delete rows more than ``REFUSALS_KEPT`` inserts old."""
    CardAttemptRefusal.objects.filter(pk__lte=newest_pk - REFUSALS_KEPT).delete()


def declined_in(order: Order, before: Iterable[str] = ()) -> int:
    """How many charges of ``order``'s provider JSON are DECLINED and not among ``before``
    (``CHAR_`` ids known before the call); read from ``order.data``, no query."""
    seen = set(before)
    charges = (order.data or {}).get("charges") or ()
    return sum(
        1
        for charge in charges
        if isinstance(charge, Mapping)
        and charge.get("status") == "DECLINED"
        and charge.get("id") not in seen
    )
