"""PagBank's hosted Checkout: create one for a purchase, switch it off and on, refresh it.

A checkout moves no money itself: the shopper pays on PagBank's page, and
each payment is an order the checkout lists (and notifies). So these calls
are not recorded operations; :func:`create_checkout` for a shop object sends
a key derived from the body and the object's latest checkout, so a repeat
(a double click, a retry after a lost answer) gets the same checkout back,
while a new checkout for the same purchase, once the last one is mirrored,
is new. Without a shop object each call is a new checkout (the client's
own retries reuse their key), unless the caller gives ``idempotency_key``.
Every answer is mirrored through :func:`~django_orderpay.sync.sync_checkout`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.db import models

from django_orderpay import payloads, rules
from django_orderpay.client import OrderPayClient
from django_orderpay.client.api import CHECKOUT_ORDERS_PAGE
from django_orderpay.conf import get_settings
from django_orderpay.connect.routing import longest_notification_url, notification_url_limit
from django_orderpay.exceptions import ConfigurationError, FieldError, PayloadError
from django_orderpay.models import ChangeSource, Checkout, ConnectedAccount
from django_orderpay.sync import sync_checkout

from . import idempotency
from ._bodies import notification_url_for
from ._common import (
    check_account,
    check_mirror,
    check_shop_object,
    check_user,
    client_or_default,
    order_account,
)


def checkout_body(
    checkout: payloads.CheckoutRequest | Mapping[str, Any], account: ConnectedAccount | None = None
) -> dict[str, Any]:
    """The validated ``POST /checkouts`` body.

    ``ORDERPAY['NOTIFICATION_URL']`` becomes its ``notification_urls`` and
    ``payment_notification_urls`` where it names none, so the provider tells
    this shop of the checkout's expiry and of every payment made through it
    (with ``?account=<its pk>`` for a connected account's: see docs/connect.md).
    Where that URL is longer than the 100 characters PagBank takes,
    ``ConfigurationError`` says so before any call (``orderpay.E009``).
    """
    url = _checkout_notification_url(account)
    if isinstance(checkout, payloads.CheckoutRequest):
        if url and not checkout.notification_urls:
            checkout = dataclasses.replace(checkout, notification_urls=(url,))
        if url and not checkout.payment_notification_urls:
            checkout = dataclasses.replace(checkout, payment_notification_urls=(url,))
        return checkout.to_dict()
    if isinstance(checkout, Mapping):
        data = dict(checkout)
        for name in ("notification_urls", "payment_notification_urls"):
            if url and not data.get(name):
                data[name] = [url]
        return payloads.validate_checkout_dict(data)
    raise PayloadError(
        [FieldError("", "the checkout must be a payloads.CheckoutRequest or a dict")]
    )


def _checkout_notification_url(account: ConnectedAccount | None) -> str | None:
    url = notification_url_for(account)
    limit = notification_url_limit()
    if url is None or account is None or len(url) <= limit:
        return url
    setting = get_settings().notification_url or ""
    raise ConfigurationError(
        f"ORDERPAY['NOTIFICATION_URL'] is {len(setting)} characters: with "
        f"connected account {account.account_id}'s ?account={account.pk} it is {len(url)}, "
        f"over the {limit} PagBank's Checkout API takes for a notification URL "
        "(orderpay.E009). Shorten NOTIFICATION_URL to at most "
        f"{longest_notification_url(setting)} characters."
    )


def latest_checkout(shop_object: models.Model) -> Checkout | None:
    """The newest checkout mirrored for ``shop_object``."""
    return (
        Checkout.objects.filter(
            content_type=ContentType.objects.get_for_model(shop_object),
            object_id=str(shop_object.pk),
        )
        .order_by("-created_at", "-pk")
        .first()
    )


def payable_checkout(shop_object: models.Model) -> Checkout | None:
    """The shop object's newest checkout, if its page still takes payments (by the mirror)."""
    latest = latest_checkout(shop_object)
    return latest if latest is not None and latest.is_payable() else None


def create_checkout(
    checkout: payloads.CheckoutRequest | Mapping[str, Any],
    *,
    user: Any = None,
    shop_object: models.Model | None = None,
    idempotency_key: str | None = None,
    client: OrderPayClient | None = None,
    account: ConnectedAccount | None = None,
) -> Checkout:
    """``POST /checkouts`` and mirror the answer: the local ``models.Checkout``.

    ``checkout`` is a :class:`payloads.CheckoutRequest` or a dict shaped as
    PagBank's create body. ``user`` and ``shop_object`` (a saved model
    instance) are attached to the checkout and, as they are made, to the
    orders its page makes (so a purchase paid twice, here and elsewhere, is
    a ``payment_duplicated``). Send the shopper to ``checkout.pay_url``
    (or the ``orderpay:checkout-pay`` view).

    Raises :class:`~django_orderpay.exceptions.PayloadError` naming each
    field before any network call, and the client's ``ProviderError``
    family when the provider refuses. ``account``: the connected account the
    checkout is made for, with its token (None: the settings' ``TOKEN``).
    """
    owner = check_user(user)
    check_shop_object(shop_object)
    account = check_account(account)
    body = checkout_body(checkout, account)
    if idempotency_key is not None:
        idempotency.check_explicit_key(idempotency_key)
    elif shop_object is not None:
        latest = latest_checkout(shop_object)
        idempotency_key = idempotency.stable_key(
            "checkout",
            owner.pk if owner is not None else "-",
            ContentType.objects.get_for_model(shop_object).pk,
            shop_object.pk,
            latest.provider_id if latest is not None else "-",
            idempotency.digest(body),
            *([account.account_id] if account is not None else []),
        )
    answer = client_or_default(client, account).create_checkout(
        body, idempotency_key=idempotency_key
    )
    return sync_checkout(
        answer, source=ChangeSource.API, user=owner, shop_object=shop_object, account=account
    )


def _checkout_id(checkout: Checkout | str) -> str:
    if isinstance(checkout, str):
        if not rules.CHECKOUT_ID_PATTERN.fullmatch(checkout):
            raise PayloadError([FieldError("checkout", "must be a CHEC_ id or a Checkout")])
        return checkout
    check_mirror(checkout, Checkout, "checkout")
    return checkout.provider_id


def _account_of(checkout: Checkout | str, account: Any) -> ConnectedAccount | None:
    """The account a call about ``checkout`` acts for: the row's own, or ``account`` for an id."""
    if isinstance(checkout, Checkout):
        return order_account(checkout, account)
    return check_account(account)


def activate_checkout(
    checkout: Checkout,
    *,
    client: OrderPayClient | None = None,
    account: ConnectedAccount | None = None,
) -> Checkout:
    """``POST /checkouts/{id}/activate``: an inactive checkout takes payments again.

    An EXPIRED checkout can't be (the provider answers ``checkout_expired``).
    It acts for the checkout's account.
    """
    checkout_id = _checkout_id(checkout)
    acting = _account_of(checkout, account)
    answer = client_or_default(client, acting).activate_checkout(checkout_id)
    return sync_checkout(answer, source=ChangeSource.API, account=acting)


def inactivate_checkout(
    checkout: Checkout,
    *,
    client: OrderPayClient | None = None,
    account: ConnectedAccount | None = None,
) -> Checkout:
    """``POST /checkouts/{id}/inactivate``: its page stops taking payments until activated.

    Payments already made stay as they are (refund them with
    ``services.cancel_charge``). It acts for the checkout's account.
    """
    checkout_id = _checkout_id(checkout)
    acting = _account_of(checkout, account)
    answer = client_or_default(client, acting).inactivate_checkout(checkout_id)
    return sync_checkout(answer, source=ChangeSource.API, account=acting)


def refresh_checkout(
    checkout: Checkout | str,
    *,
    source: str = ChangeSource.SYNC,
    client: OrderPayClient | None = None,
    account: ConnectedAccount | None = None,
) -> Checkout:
    """Fetch the checkout (``GET /checkouts/{id}``) with every order made on its page; mirror.

    ``checkout`` is a local checkout (fetched for its own account) or a
    ``CHEC_`` id (for ``account``; mirrored now if it was not). Orders are
    read 100 at a time; an order the answer lists by id only is fetched
    (``GET /orders/{id}``).
    """
    checkout_id = _checkout_id(checkout)
    acting = _account_of(checkout, account)
    api = client_or_default(client, acting)
    answer = api.get_checkout(checkout_id)
    listed = list(answer.get("orders") or ())
    while len(listed) % CHECKOUT_ORDERS_PAGE == 0 and listed:
        page = api.get_checkout(checkout_id, offset=len(listed)).get("orders") or []
        listed.extend(page)
        if len(page) < CHECKOUT_ORDERS_PAGE:
            break
    orders = [
        entry if _is_whole_order(entry) else api.get_order(str(entry.get("id")))
        for entry in listed
        if isinstance(entry, Mapping)
    ]
    return sync_checkout({**answer, "orders": orders}, source=source, account=acting)


def _is_whole_order(entry: Mapping[str, Any]) -> bool:
    """An order as ``GET /orders/{id}`` answers it (not a summary naming its id)."""
    return "created_at" in entry and "items" in entry
