"""The card-encryption public key: configured, or fetched once and cached."""

from __future__ import annotations

import threading
import time

from django_orderpay.client import OrderPayClient
from django_orderpay.conf import get_settings
from django_orderpay.exceptions import ProviderError
from django_orderpay.models import ConnectedAccount

from ._common import account_key, check_account, client_or_default

#: How long a fetched key is reused. The provider keeps one key per merchant;
#: a day bounds how long a rotated key could go unnoticed.
PUBLIC_KEY_TTL = 24 * 60 * 60.0

_lock = threading.Lock()
_cache: dict[str, tuple[str, float]] = {}


def get_public_key(
    *, client: OrderPayClient | None = None, account: ConnectedAccount | None = None
) -> str:
    """The merchant's public key (base64 DER) for ``PagSeguro.encryptCard``.

    ``ORDERPAY['PUBLIC_KEY']`` when set; otherwise fetched from
    ``/public-keys`` and cached per base URL and token for
    :data:`PUBLIC_KEY_TTL` seconds. An explicit ``client`` always fetches.
    ``account``: a connected account's key (each PagBank account has its own:
    a card encrypted with another's can't be charged); always fetched with
    its token (and cached), never ``PUBLIC_KEY``.
    """
    if client is not None:
        return _fetch(client)
    conf = get_settings()
    account = check_account(account)
    if conf.public_key and account is None:
        return conf.public_key
    cache_key = account_key(conf, account)
    now = time.monotonic()
    with _lock:
        cached = _cache.get(cache_key)
    if cached is not None and cached[1] > now:
        return cached[0]
    key = _fetch(client_or_default(None, account))
    with _lock:
        _cache[cache_key] = (key, now + PUBLIC_KEY_TTL)
    return key


def _fetch(client: OrderPayClient) -> str:
    answer = client.get_public_key()
    key = answer.get("public_key") if isinstance(answer, dict) else None
    if not isinstance(key, str) or not key:
        raise ProviderError(
            "the provider's public key answer has no public_key", method="POST", path="/public-keys"
        )
    return key


def clear_public_key_cache() -> None:
    """Forget every fetched key (tests; or after the provider rotated the key)."""
    with _lock:
        _cache.clear()
