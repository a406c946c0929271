"""HTTP to the provider: ``OrderPayClient`` and the factories that build it from settings.

A package of four ideas: ``http`` (one request: auth, idempotency, retries,
logging), ``errors`` (answers -> retry decisions and exceptions), ``api``
(one method per endpoint), ``connect`` (the Connect application's own token
calls). Knows nothing of models; settings only in the factories below.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import requests

from .api import OrderPayClient
from .connect import ConnectClient, TokenAnswer
from .http import USER_AGENT, BearerAuth, TokenSource

_local = threading.local()


def client_from_settings(
    *, session: requests.Session | None = None, **overrides: Any
) -> OrderPayClient:
    """A new client configured from ``ORDERPAY`` (``overrides`` win: e.g. ``retries=0``)."""
    from django_orderpay.conf import get_settings

    conf = get_settings()
    options: dict[str, Any] = {
        "timeout": conf.timeout,
        "retries": conf.retries,
        "simulation_url": conf.simulation_url,
        "threeds_url": conf.threeds_url,
        "session": session,
    }
    options.update(overrides)
    return OrderPayClient(conf.base_url, conf.token or "", **options)


def get_client(*, retries: int | None = None) -> OrderPayClient:
    """This thread's client for the current settings, reused so connections are too.

    Keyed by the settings it was built from, so ``override_settings`` gets a
    fresh one; one per thread because a ``requests.Session`` is not
    guaranteed thread-safe. ``retries`` overrides ``ORDERPAY['RETRIES']``
    (the notification view makes one bounded attempt: ``retries=0``). A
    process forked after the client was made (a worker, a task pool) makes
    its own: two processes writing to one inherited connection garble each
    other's requests.
    """
    from django_orderpay.conf import get_settings

    conf = get_settings()
    retries = conf.retries if retries is None else retries
    key = (
        os.getpid(),
        conf.base_url,
        conf.token,
        conf.timeout,
        retries,
        conf.simulation_url,
        conf.threeds_url,
    )
    clients: dict[int, tuple[Any, OrderPayClient]] = _local.__dict__.setdefault("clients", {})
    cached = clients.get(retries)
    if cached is None or cached[0] != key:
        # The parent's connection is the parent's: a forked process leaves it open.
        if cached is not None and cached[0][0] == key[0]:
            cached[1].close()
        clients[retries] = (key, client_from_settings(retries=retries))
    return clients[retries][1]


def reset_client() -> None:
    """Close and forget this thread's cached client; the next :func:`get_client` builds anew.

    For tests (a fixture pointing ``ORDERPAY`` elsewhere) and after rotating
    credentials outside the settings. Other threads keep their own client.
    """
    for _key, client in _local.__dict__.pop("clients", {}).values():
        client.close()


__all__ = [
    "USER_AGENT",
    "BearerAuth",
    "ConnectClient",
    "OrderPayClient",
    "TokenAnswer",
    "TokenSource",
    "client_from_settings",
    "get_client",
    "reset_client",
]
