"""Counting what strangers do, in Django's cache: the one home of the package's rate limits.

The card-testing limits (:mod:`django_orderpay.card_testing`), the installment
plans view and the notification view's re-fetches for unverified posts all
count here: a counter per key that lives for a window from its first hit (a
fixed window, simple and cheap: one ``add`` and one ``incr``).

The counters are in the ``default`` cache, whatever its backend. Django's
default, ``LocMemCache``, is one process's memory: with several processes
or servers each counts on its own, and the limits multiply by their number.
A shop served by more than one process points ``CACHES["default"]`` at a
shared cache (Redis, Memcached); ``incr`` is atomic on those and on
``LocMemCache`` (the database cache's is not, so under races it can count
a few hits short).

:func:`client_address` says who a request comes from: ``REMOTE_ADDR``, or,
behind ``ORDERPAY["TRUSTED_PROXIES"]`` proxies, the address the nearest of
them saw (``X-Forwarded-For`` from the right: entries further left are
whatever the client wrote). IPv6 addresses count by their /64, the block a
single subscriber is given.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any, Final

from django.core.cache import cache

#: Every key of this package's counters starts so (and names its purpose next).
PREFIX: Final = "orderpay:limit:"
#: IPv6 clients count by this prefix length: one subscriber's block.
IPV6_BLOCK: Final = 64
#: Part of every key: :func:`reset` moves it on, so every counter starts again (a
#: cache backend cannot delete by prefix). Every process starts at the same one.
_generation = [0]


def reset() -> None:
    """Forget every counter of this process (tests: each starts with none counted)."""
    _generation[0] += 1


def key(*parts: object) -> str:
    """``orderpay:limit:<generation>:<part>:<part>``: a counter's key (no spaces)."""
    return PREFIX + ":".join(str(part).replace(" ", "_") for part in (_generation[0], *parts))


def hit(name: str, window: int) -> int:
    """Count one more under ``name``: the count now (1 starts a window of ``window`` seconds)."""
    cache.add(name, 0, timeout=window)
    try:
        return int(cache.incr(name))
    except ValueError:
        # The counter expired between add and incr: this hit starts the next window.
        cache.add(name, 1, timeout=window)
        return 1


def count(name: str) -> int:
    """How many hits ``name`` has in its current window (0 when none, or expired)."""
    value: Any = cache.get(name, 0)
    return int(value) if isinstance(value, int) else 0


def count_many(names: list[str]) -> dict[str, int]:
    """:func:`count` of several counters in one cache round trip."""
    found = cache.get_many(names)
    return {name: int(found.get(name) or 0) for name in names}


def remember(name: str, value: Any, window: int) -> bool:
    """Set ``name`` for ``window`` seconds unless it is set: whether this call set it."""
    return bool(cache.add(name, value, timeout=window))


def recall(name: str) -> Any:
    """What :func:`remember` set under ``name`` (None once expired)."""
    return cache.get(name)


def client_address(meta: Mapping[str, Any], trusted_proxies: int = 0) -> str | None:
    """The client's address for counting: ``REMOTE_ADDR``, or the address the nearest of
    ``trusted_proxies`` proxies saw; IPv6 as its /64 network. None when there is none."""
    address = str(meta.get("REMOTE_ADDR") or "").strip()
    if trusted_proxies > 0:
        forwarded = [
            part.strip()
            for part in str(meta.get("HTTP_X_FORWARDED_FOR") or "").split(",")
            if part.strip()
        ]
        if len(forwarded) >= trusted_proxies:
            address = forwarded[-trusted_proxies]
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return None
    if parsed.version == 6 and parsed.ipv4_mapped is None:
        return str(ipaddress.ip_network(f"{parsed}/{IPV6_BLOCK}", strict=False))
    if parsed.version == 6 and parsed.ipv4_mapped is not None:
        return str(parsed.ipv4_mapped)
    return str(parsed)
