"""Orders: create (one step or two), pay, refresh.

Each call validates its body, records it as an operation, sends it, and
mirrors the answer through ``sync`` with source ``api`` before returning, so
the local copy is right before any notification arrives. A declined charge
is not an exception: the returned order (and its charge) has status
``DECLINED``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from django.db import models

from django_orderpay import card_testing, payloads
from django_orderpay.card_testing import Shopper
from django_orderpay.client import OrderPayClient
from django_orderpay.models import ChangeSource, ConnectedAccount, OperationKind, Order
from django_orderpay.sync import requested_total, sync_order

from . import idempotency, operations
from ._bodies import order_body, pay_body
from ._common import (
    check_account,
    check_card_owners,
    check_mirror,
    check_shop_object,
    check_user,
    client_or_default,
    order_account,
)


def create_order(
    order: payloads.OrderRequest | Mapping[str, Any],
    *,
    user: Any = None,
    shop_object: models.Model | None = None,
    shopper: Shopper | None = None,
    idempotency_key: str | None = None,
    client: OrderPayClient | None = None,
    account: ConnectedAccount | None = None,
) -> Order:
    """``POST /orders`` and mirror the answer; the local :class:`~django_orderpay.models.Order`.

    ``order`` is a :class:`payloads.OrderRequest` or a dict shaped as the spec
    shows; with ``charges`` it is paid at once, with ``deep_links`` it gets
    its deeplink, with neither it waits for :func:`pay_order`. ``user`` and
    ``shop_object`` (a saved model instance) are attached to the local order;
    cards stored by its charges belong to ``user`` (``None`` or an anonymous
    user: nobody's), and a stored card it pays with (``card.id``) must be
    ``user``'s.

    The call runs as an :class:`~django_orderpay.models.Operation` scoped by
    ``user`` and ``reference_id``: calling again while an earlier create of
    that reference has an unknown outcome sends the earlier key (see
    ``docs/services.md``, "When the network fails"). ``idempotency_key``
    names a new operation's key instead of the derived one.

    ``account`` is the connected account (PagBank Connect) the order is made
    for, with its token; None is the settings' ``TOKEN``. The order, its
    cards and its operation are that account's.

    Raises :class:`~django_orderpay.exceptions.PayloadError` (naming each
    field, ``user`` and ``shop_object`` included) and ``CardTokenNotOwned``
    before any network call, the client's ``ProviderError`` family when the
    provider refuses, and ``OutcomeUnknown`` when it may have acted unheard.
    """
    # The owner and the shop object are checked before the card is charged:
    # a mistake found only while mirroring would leave a paid order unmirrored.
    owner = check_user(user)
    check_shop_object(shop_object)
    account = check_account(account)
    body = order_body(order, account)
    check_card_owners(body, owner, account)
    reference_id = body.get("reference_id") or ""
    owner_part = owner.pk if owner is not None else "-"
    what = reference_id or "#" + idempotency.digest(body)[:40]
    intent = operations.Intent(
        kind=OperationKind.CREATE,
        scope=operations.scope(OperationKind.CREATE, owner_part, what, account=account),
        target=reference_id,
        body=body,
        basis={"amount": requested_total(body)},
        user=owner,
        shop_object=shop_object,
        account=account,
    )
    attempt = None
    if card_testing.sends_a_card(body):
        purchase = card_testing.purchase_of_request(body, shop_object)
        attempt = card_testing.begin(shopper or Shopper.of_user(owner), purchase)
    created = cast(Order, operations.run(intent, idempotency_key=idempotency_key, client=client))
    if attempt is not None:
        attempt.declined(card_testing.declined_in(created))
    return created


def pay_order(
    order: Order,
    charges: Sequence[payloads.ChargeRequest | Mapping[str, Any]],
    *,
    user: Any = None,
    shopper: Shopper | None = None,
    idempotency_key: str | None = None,
    client: OrderPayClient | None = None,
    account: ConnectedAccount | None = None,
) -> Order:
    """``POST /orders/{id}/pay`` with ``charges`` (the second step) and mirror the answer.

    ``charges`` are :class:`payloads.ChargeRequest` builders or dicts, each checked
    before anything is sent. A stored card (``card.id``) must belong to the
    payer: ``user``, else the order's own user. The call runs as an
    operation scoped by the order: paying again after a decline is a new
    operation, while a repeat of an unanswered call is not. It acts for the
    order's account (``account``, if given, must be it). A card charge
    counts against the card-testing limits first, for ``shopper`` (None:
    the payer alone) and the order's purchase: ``TooManyCardAttempts``, with
    nothing sent, past them.
    """
    check_mirror(order, Order, "order")
    account = order_account(order, account)
    payer = check_user(user) if user is not None else order.user
    body = pay_body(charges)
    check_card_owners(body, payer, account)
    before = list(order.charges.values_list("provider_id", flat=True))
    intent = operations.Intent(
        kind=OperationKind.PAY,
        scope=operations.scope(OperationKind.PAY, order.provider_id, account=account),
        target=order.provider_id,
        body=body,
        order=order,
        basis={"charges": before},
        account=account,
    )
    attempt = None
    if card_testing.sends_a_card(body):
        purchase = card_testing.purchase_of_order(order)
        attempt = card_testing.begin(shopper or Shopper.of_user(payer), purchase)
    paid = cast(Order, operations.run(intent, idempotency_key=idempotency_key, client=client))
    if attempt is not None:
        attempt.declined(card_testing.declined_in(paid, before))
    return paid


def refresh_order(
    order: Order | str,
    *,
    source: str = ChangeSource.SYNC,
    client: OrderPayClient | None = None,
    account: ConnectedAccount | None = None,
) -> Order:
    """Fetch the order from the provider (``GET /orders/{id}``) and mirror it.

    ``order`` is a local order or an ``ORDE_`` id (which need not be mirrored
    yet). ``source`` is what its history rows say (``sync`` for admin and
    management commands, ``notification`` when a notification asked for it).
    A local order is fetched for its own account; an id for ``account``
    (None: the settings' ``TOKEN``).
    """
    if isinstance(order, Order):
        order_id, account = order.provider_id, order_account(order, account)
    else:
        order_id, account = order, check_account(account)
    answer = client_or_default(client, account).get_order(order_id)
    return sync_order(answer, source=source, account=account)


def refresh_order_of_charge(
    charge_id: str,
    *,
    source: str = ChangeSource.SYNC,
    client: OrderPayClient | None = None,
    account: ConnectedAccount | None = None,
) -> Order:
    """Fetch the order a ``CHAR_`` id belongs to (``GET /orders?charge_id=``) and mirror it:
    for code that holds only a charge's id (a notification naming only its charge, which
    this shop never mirrored). ``NotFound`` when this account (``account``: a connected
    one; None: the settings' ``TOKEN``) has no such charge."""
    account = check_account(account)
    answer = client_or_default(client, account).get_order_by_charge(charge_id)
    return sync_order(answer, source=source, account=account)
