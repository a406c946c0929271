"""What every service shares: which client (and account) to use, and the checks before any call."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from django.contrib.auth import get_user_model
from django.db import models

from django_orderpay import rules
from django_orderpay.client import OrderPayClient, get_client
from django_orderpay.conf import OrderPaySettings
from django_orderpay.exceptions import CardTokenNotOwned, FieldError, PayloadError
from django_orderpay.models import CardToken, Checkout, ConnectedAccount, Order
from django_orderpay.payloads._problems import is_int, not_an_integer

#: ``Order.object_id`` holds the shop object's primary key as text.
SHOP_OBJECT_ID_LENGTH = 64


def account_key(conf: OrderPaySettings, account: ConnectedAccount | None = None) -> str:
    """Which merchant account (and host) a cached answer belongs to.

    The base URL and a digest of the token: the token itself must not sit in
    a cache or a long-lived structure. A connected account is its ``ACCO_``
    id (its token changes as it is refreshed; the account does not).
    """
    if account is not None:
        return f"{conf.base_url}:{account.account_id}"
    return f"{conf.base_url}:{hashlib.sha256((conf.token or '').encode()).hexdigest()}"


def client_or_default(
    client: OrderPayClient | None, account: ConnectedAccount | None = None
) -> OrderPayClient:
    """``client``, else this thread's client acting for ``account`` (None: the
    settings' ``TOKEN``)."""
    if client is not None:
        return client
    if account is None:
        return get_client()
    from django_orderpay.connect.clients import client_for

    return client_for(account)


def check_account(account: Any) -> ConnectedAccount | None:
    """The account a call acts for: None (the settings' ``TOKEN``) or a saved
    :class:`~django_orderpay.models.ConnectedAccount`."""
    if account is None:
        return None
    if not isinstance(account, ConnectedAccount) or account.pk is None:
        shown = type(account).__name__
        message = f"must be a saved django_orderpay ConnectedAccount (or None), not {shown}"
        raise PayloadError([FieldError("account", message)])
    return account


def order_account(order: Order | Checkout, account: Any = None) -> ConnectedAccount | None:
    """The account ``order`` (or a checkout) belongs to, which every call about it acts for.

    ``account``, when given, must be that one: a call for one account never
    touches another's order.
    """
    given = check_account(account)
    if given is not None and given.pk != order.account_id:
        message = f"{order.provider_id} belongs to another account than {given.account_id}"
        raise PayloadError([FieldError("account", message)])
    return given if given is not None else order.account


def check_mirror(value: Any, model: type[models.Model], field: str) -> None:
    """``value`` is a saved row of ``model`` (not its ``provider_id``, not a dict)."""
    if not isinstance(value, model) or value.pk is None:
        name = model._meta.object_name
        shown = type(value).__name__
        message = f"must be a saved django_orderpay {name}, not {shown}"
        if isinstance(value, str):
            message += f" (look it up: {name}.objects.get(provider_id=...))"
        raise PayloadError([FieldError(field, message)])


def check_user(user: Any) -> Any:
    """The user who owns an order and its stored cards, or None for nobody.

    ``None`` and an anonymous user (``request.user`` before login) own
    nothing; anything else must be a saved instance of the user model (not
    its id).
    """
    if user is None or not getattr(user, "is_authenticated", True):
        return None
    if not isinstance(user, get_user_model()) or user.pk is None:
        shown = type(user).__name__
        raise PayloadError(
            [FieldError("user", f"must be a saved user (or None or AnonymousUser), not {shown}")]
        )
    return user


def check_shop_object(shop_object: Any) -> None:
    """The shop's own object of an order: None, or a saved model instance."""
    if shop_object is None:
        return
    if not isinstance(shop_object, models.Model) or shop_object.pk is None:
        raise PayloadError([FieldError("shop_object", "must be a saved model instance (or None)")])
    if len(str(shop_object.pk)) > SHOP_OBJECT_ID_LENGTH:
        message = f"its primary key must be at most {SHOP_OBJECT_ID_LENGTH} characters as text"
        raise PayloadError([FieldError("shop_object", message)])


def check_amount(amount: Any, field: str = "amount") -> int:
    """An amount argument in integer cents, 1 to 999999999; floats and Decimals refused."""
    if not is_int(amount):
        raise PayloadError([FieldError(field, not_an_integer(amount, money=True))])
    if not 1 <= amount <= rules.MAX_AMOUNT:
        message = f"must be between 1 and {rules.MAX_AMOUNT} cents"
        raise PayloadError([FieldError(field, message)])
    return amount


def _stored_cards(body: Mapping[str, Any]) -> dict[str, str]:
    """``card.id`` -> its field path, for every charge of a validated body."""
    found: dict[str, str] = {}
    for position, charge in enumerate(body.get("charges") or ()):
        card = (charge.get("payment_method") or {}).get("card") or {}
        if isinstance(card, Mapping) and isinstance(card.get("id"), str):
            found.setdefault(card["id"], f"charges[{position}].payment_method.card.id")
    return found


def check_card_owners(
    body: Mapping[str, Any], owner: Any, account: ConnectedAccount | None = None
) -> None:
    """Every stored card (``card.id``) a body charges is one of ``owner``'s tokens,
    stored with ``account``."""
    check_owned(_stored_cards(body), owner, account)


def check_owned(
    cards: Mapping[str, str], owner: Any, account: ConnectedAccount | None = None
) -> None:
    """Each token of ``cards`` (token id -> the field naming it) belongs to ``owner``
    and was stored with ``account`` (None: the settings' ``TOKEN``).

    Every path that charges a stored card goes through here before the
    call: nobody (``None``) owns any, and a token not mirrored here, removed,
    or stored with another account (a PagBank card token is its account's)
    is no one's either. The message names the field and the token, never whose it is.
    """
    if not cards:
        return
    owned: set[str] = set()
    if owner is not None:
        owned = set(
            CardToken.objects.payable(owner_id=owner.pk, account=account)
            .filter(provider_id__in=cards)
            .values_list("provider_id", flat=True)
        )
    for card_id, path in cards.items():
        if card_id not in owned:
            raise CardTokenNotOwned(f"{path}: card {card_id} is not this user's stored card")
