"""What an unverified notification may make the shop fetch: a budget, kept in the cache.

A post without ``x-authenticity-token`` (the sandbox often omits it) is never
trusted: its order is fetched with the merchant's token. Anyone who reaches
the URL can post one, naming any ``ORDE_`` id, and each fetch spends the
merchant's rate limit at the provider. So, for unverified posts only:

- an id the provider answered 404 for is remembered for
  :data:`NOT_FOUND_KEPT` seconds: asked again, it is ``ignored`` (200) with no
  fetch;
- an order (or a charge, for a body naming only charges) is fetched at most
  :data:`FETCHES_PER_ORDER` times per :data:`FETCH_INTERVAL` seconds (a real
  order's creation, payment and capture may be notified within a minute):
  another post meanwhile is refused with 429, and the provider, which
  retries any non-2xx, sends it again later;
- at most :data:`FETCHES_PER_MINUTE` fetches in all, per minute (another 429).

A verified notification is not counted and never refused here. The counters
are :mod:`django_orderpay.throttling`'s (one process's memory unless the
shop's ``default`` cache is shared).
"""

from __future__ import annotations

from typing import Final

from django_orderpay import throttling

from .verification import Rejected

#: Fetches of one order for unverified posts, per interval (seconds).
FETCHES_PER_ORDER: Final = 3
FETCH_INTERVAL: Final = 60
#: Fetches for unverified posts, in all, per minute.
FETCHES_PER_MINUTE: Final = 60
#: Seconds a 404 for an id is remembered.
NOT_FOUND_KEPT: Final = 60 * 60


def _not_found_key(order_id: str) -> str:
    return throttling.key("notification-404", order_id)


def refusal(subject: str) -> Rejected | None:
    """Why an unverified post about ``subject`` (an ``ORDE_`` or ``CHAR_`` id) may not
    make a fetch now, or None (and then that fetch is counted)."""
    if throttling.recall(_not_found_key(subject)) is not None:
        return Rejected(
            200,
            "not_found",
            f"order {subject} is not known to this account (the provider said so "
            f"less than {NOT_FOUND_KEPT // 60} minutes ago)",
            outcome="ignored",
        )
    retry = f"retry after {FETCH_INTERVAL} seconds, or send x-authenticity-token"
    fetches = throttling.hit(throttling.key("notification-fetch", subject), FETCH_INTERVAL)
    if fetches > FETCHES_PER_ORDER:
        return Rejected(
            429,
            "fetched_recently",
            f"{subject} was fetched {FETCHES_PER_ORDER} times for unverified notifications "
            f"in the last {FETCH_INTERVAL} seconds: {retry}",
        )
    if throttling.hit(throttling.key("notification-fetches"), 60) > FETCHES_PER_MINUTE:
        return Rejected(
            429,
            "too_many_unverified",
            f"more than {FETCHES_PER_MINUTE} unverified notifications this minute: {retry}",
        )
    return None


def not_found(order_id: str) -> None:
    """The provider answered 404 for ``order_id``: unverified posts of it fetch nothing more."""
    throttling.remember(_not_found_key(order_id), 1, NOT_FOUND_KEPT)
