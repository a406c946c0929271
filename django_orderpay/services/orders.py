"""Orders: create (one step or two), pay, refresh.

Each call validates its body, sends it, and mirrors the answer through
``sync`` with source ``api`` before returning, so the local copy is right
before any notification arrives. A declined charge is not an exception: the
returned order (and its charge) has status ``DECLINED``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import models

from django_orderpay import payloads
from django_orderpay.client import OrderPayClient
from django_orderpay.models import ChangeSource, Order
from django_orderpay.sync import sync_order

from . import idempotency
from ._bodies import order_body, pay_body
from ._common import check_mirror, check_shop_object, check_user, client_or_default


def create_order(
    order: payloads.Order | Mapping[str, Any],
    *,
    user: Any = None,
    shop_object: models.Model | None = None,
    idempotency_key: str | None = None,
    client: OrderPayClient | None = None,
) -> Order:
    """``POST /orders`` and mirror the answer; the local :class:`~django_orderpay.models.Order`.

    ``order`` is a :class:`payloads.Order` or a dict shaped as the spec
    shows; with ``charges`` it is paid at once, with ``deep_links`` it gets
    its deeplink, with neither it waits for :func:`pay_order`. ``user`` and
    ``shop_object`` (a saved model instance) are attached to the local order;
    cards stored by its charges belong to ``user`` (``None`` or an anonymous
    user: nobody's). Without an ``idempotency_key`` a stable one is derived
    from the order's ``reference_id``, the orders already mirrored under it
    and the body without card secrets (see :mod:`.idempotency`).

    Raises :class:`~django_orderpay.exceptions.ValidationError` (naming each
    field, ``user`` and ``shop_object`` included) before any network call,
    and the client's ``ProviderError`` family when the provider refuses or
    cannot be reached.
    """
    # The owner and the shop object are checked before the card is charged:
    # a mistake found only while mirroring would leave a paid order unmirrored.
    owner = check_user(user)
    check_shop_object(shop_object)
    body = order_body(order)
    api = client_or_default(client)
    attempt = 0
    reference_id = body.get("reference_id", "")
    if idempotency_key is None:
        attempt = Order.objects.filter(reference_id=reference_id).count()
    answer = idempotency.send(
        idempotency_key,
        lambda generation: idempotency.create_key(
            reference_id, attempt, body, generation=generation
        ),
        lambda key: api.create_order(body, idempotency_key=key),
    )
    return sync_order(answer, source=ChangeSource.API, user=owner, shop_object=shop_object)


def pay_order(
    order: Order,
    charges: Sequence[payloads.Charge | Mapping[str, Any]],
    *,
    idempotency_key: str | None = None,
    client: OrderPayClient | None = None,
) -> Order:
    """``POST /orders/{id}/pay`` with ``charges`` (the second step) and mirror the answer.

    ``charges`` are :class:`payloads.Charge` builders or dicts, each checked
    before anything is sent. The derived idempotency key counts the order's
    known charges, so paying again after a decline is a new operation, while
    a repeat of an unanswered call is not.
    """
    check_mirror(order, Order, "order")
    body = pay_body(charges)
    api = client_or_default(client)
    attempt = order.charges.count() if idempotency_key is None else 0
    answer = idempotency.send(
        idempotency_key,
        lambda generation: idempotency.pay_key(
            order.provider_id, attempt, body, generation=generation
        ),
        lambda key: api.pay_order(order.provider_id, body, idempotency_key=key),
    )
    return sync_order(answer, source=ChangeSource.API)


def refresh_order(
    order: Order | str,
    *,
    source: str = ChangeSource.SYNC,
    client: OrderPayClient | None = None,
) -> Order:
    """Fetch the order from the provider (``GET /orders/{id}``) and mirror it.

    ``order`` is a local order or an ``ORDE_`` id (which need not be mirrored
    yet). ``source`` is what its history rows say (``sync`` for admin and
    management commands, ``notification`` when a notification asked for it).
    """
    order_id = order.provider_id if isinstance(order, Order) else order
    answer = client_or_default(client).get_order(order_id)
    return sync_order(answer, source=source)
