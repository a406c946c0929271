"""Stored cards: paying with one (its token alone, only by its owner), and removing one."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from django_orderpay import payloads
from django_orderpay.card_testing import Shopper
from django_orderpay.client import OrderPayClient
from django_orderpay.exceptions import CardTokenNotOwned, FieldError, PayloadError
from django_orderpay.models import CardToken, ConnectedAccount, Order

from ._common import check_amount, check_mirror, check_owned, check_user, order_account
from .orders import pay_order

__all__ = ["CardTokenNotOwned", "pay_with_card_token", "remove_card_token", "token_charge"]


def token_charge(
    order: Order,
    card_token: CardToken,
    *,
    amount: int | payloads.Amount | None = None,
    installments: int = 1,
    security_code: str | None = None,
    capture: bool = True,
    subsequent_recurrence: bool = False,
) -> payloads.ChargeRequest:
    """The charge that pays ``order`` with ``card_token`` alone (no owner check).

    ``amount`` None is the order's items total; a ``payloads.Amount`` is sent
    as it is (an installment plan's, with the buyer's interest:
    ``InstallmentPlan.amount()``). With ``subsequent_recurrence``
    the charge is the next payment of the token's Elo recurrence:
    ``recurring`` SUBSEQUENT with the token's ``brand_reference_id`` and
    initial amount, and no security code (the official plugin sends none).
    """
    if isinstance(amount, payloads.Amount):
        value = amount
    else:
        value = payloads.Amount(order.items_total if amount is None else check_amount(amount))
    recurring = None
    if subsequent_recurrence:
        if not card_token.has_recurrence or not card_token.initial_amount:
            raise PayloadError(
                [FieldError("recurring.recurrence_id", "this stored card has no recurrence")]
            )
        if security_code is not None:
            raise PayloadError(
                [FieldError("card.security_code", "is not sent with a subsequent recurrence")]
            )
        recurring = payloads.Recurring.subsequent(
            card_token.brand_reference_id, card_token.initial_amount
        )
    return payloads.ChargeRequest(
        amount=value,
        payment_method=payloads.PaymentMethod(
            card=payloads.Card.token(card_token.provider_id, security_code=security_code),
            installments=installments,
            capture=capture,
        ),
        reference_id=order.reference_id or None,
        recurring=recurring,
    )


def pay_with_card_token(
    order: Order,
    card_token: CardToken,
    *,
    user: Any,
    amount: int | payloads.Amount | None = None,
    installments: int = 1,
    security_code: str | None = None,
    capture: bool = True,
    subsequent_recurrence: bool = False,
    shopper: Shopper | None = None,
    idempotency_key: str | None = None,
    client: OrderPayClient | None = None,
    account: ConnectedAccount | None = None,
) -> Order:
    """Pay ``order`` with a stored card; only the card's owner (``user``) may.

    Raises :class:`CardTokenNotOwned` (no call made) when ``user`` is not the
    token's owner, or the token was stored with another account than the
    order's (a PagBank card token is its account's). Otherwise builds the charge from the token (see
    :func:`token_charge`) and pays through :func:`~.orders.pay_order`, with
    ``idempotency_key`` or the key it derives (and its card-testing limits,
    for ``shopper``).
    """
    check_mirror(order, Order, "order")
    check_mirror(card_token, CardToken, "card_token")
    acting = order_account(order, account)
    check_owned({card_token.provider_id: "card_token"}, check_user(user), acting)
    charge = token_charge(
        order,
        card_token,
        amount=amount,
        installments=installments,
        security_code=security_code,
        capture=capture,
        subsequent_recurrence=subsequent_recurrence,
    )
    return pay_order(
        order,
        [charge],
        user=user,
        shopper=shopper,
        idempotency_key=idempotency_key,
        client=client,
        account=acting,
    )


def remove_card_token(card_token: CardToken, *, user: Any) -> CardToken:
    """Remove one of ``user``'s stored cards: it is offered nowhere and pays nothing again.

    Raises :class:`CardTokenNotOwned` when ``user`` is not its owner (or it was
    removed already). PagBank has no call to delete a stored card: its copy
    stays there, unused; charges made with it keep their link to the row.
    """
    check_mirror(card_token, CardToken, "card_token")
    check_owned({card_token.provider_id: "card_token"}, check_user(user), card_token.account)
    card_token.removed_at = timezone.now()
    card_token.save(update_fields=["removed_at"])
    return card_token
