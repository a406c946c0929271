"""The HTTP client that acts for a connected account, kept per thread as the default one is."""

from __future__ import annotations

import threading
from typing import Any

from django_orderpay.client import OrderPayClient, get_client
from django_orderpay.conf import get_settings
from django_orderpay.models import ConnectedAccount

from .tokens import AccountTokens, needs_authorization

_local = threading.local()


def client_for(account: ConnectedAccount | None, *, retries: int | None = None) -> OrderPayClient:
    """This thread's client acting for ``account`` (None: the settings' ``TOKEN``).

    Its token comes from :class:`~.tokens.AccountTokens`: refreshed before it
    expires and once on a 401. An account the platform may not act for
    (``needs_authorization``, ``revoked``) raises
    :class:`~django_orderpay.exceptions.AccountNeedsAuthorization` here, before
    anything is sent. ``retries`` as :func:`~django_orderpay.client.get_client`'s.
    """
    if account is None:
        return get_client(retries=retries)
    if not account.is_active:
        raise needs_authorization(account)
    conf = get_settings()
    retries = conf.retries if retries is None else retries
    key = (conf.base_url, conf.timeout, retries, conf.simulation_url, conf.threeds_url)
    clients: dict[tuple[int, int], tuple[Any, OrderPayClient]] = _local.__dict__.setdefault(
        "clients", {}
    )
    cached = clients.get((account.pk, retries))
    if cached is None or cached[0] != key:
        if cached is not None:
            cached[1].close()
        client = OrderPayClient(
            conf.base_url,
            AccountTokens(account.pk),
            timeout=conf.timeout,
            retries=retries,
            simulation_url=conf.simulation_url,
            threeds_url=conf.threeds_url,
        )
        clients[(account.pk, retries)] = cached = (key, client)
    return cached[1]


def reset_clients() -> None:
    """Close and forget this thread's account clients (tests; after re-authorising in bulk)."""
    for _key, client in _local.__dict__.pop("clients", {}).values():
        client.close()
