"""Signals for what happened to a shop's payments.

Each fires once per real transition, only after the transaction that
recorded it commits: a receiver that ships goods on ``charge_paid`` never
acts on a state that was rolled back. Receivers get keyword arguments:

- ``charge_status_changed``: ``charge``, ``old_status`` (``""`` when the
  charge is first seen), ``new_status``, ``source`` (``api``,
  ``notification``, ``sync``); sender ``Charge``.
- ``charge_paid``, ``charge_declined``, ``charge_canceled``: ``charge``,
  ``old_status``, ``source``; sender ``Charge``. They follow what the status
  *means* (``Charge.effective_status``): a partial refund that the provider
  answers with CANCELED leaves the charge paid, so it sends no
  ``charge_canceled``; the refund of the rest does.
- ``charge_refunded``: ``charge``, ``amount`` (cents given back by this
  change), ``refunded`` (in all), ``partial`` (part of the payment is kept),
  ``source``; sender ``Charge``. Once per growth of the refunded sum.
- ``card_stored``: ``card_token``; sender ``CardToken``.
- ``order_expired``: ``order``, ``source``; sender ``Order``. An order whose
  Pix QR code expired unpaid, once the provider confirmed it (``sync`` or
  ``manage.py orderpay_expire``): release what the purchase held.
- ``payment_duplicated``: ``charge`` (just paid), ``others`` (the charges that
  already held money for the same shop object), ``source``; sender
  ``Charge``. Sent after ``charge_paid`` when the purchase was paid already
  (a deeplink, Pix or boleto left open and paid after a card): refund one of
  them (``services.cancel_charge``), as the example shop does.
- ``account_connected``: ``account`` (a ``ConnectedAccount``), ``user`` (who
  authorised it), ``created`` (False: authorised again); sender
  ``ConnectedAccount``. Sent after the Connect callback stored its tokens.
- ``account_needs_authorization``: ``account``, ``reason``; sender
  ``ConnectedAccount``. PagBank refused the account's tokens (or the platform
  disconnected it): tell its seller to authorise again.
- ``checkout_paid``: ``checkout``, ``order`` (the order of the payment),
  ``source``; sender ``Checkout``. Once per checkout: the first payment made
  on its page seen paid (a second one is a ``payment_duplicated``).
- ``checkout_expired``: ``checkout``, ``source``; sender ``Checkout``. Once,
  when the checkout's time has run out and none of its payments holds or may
  still bring money (none paid, authorised, in analysis or waiting): release
  what the purchase held. A checkout paid before it expired is never
  announced expired (a paid purchase must not be cancelled by its expiry).
- ``card_attempts_refused``: ``refusal`` (the
  :class:`~django_orderpay.models.CardAttemptRefusal` row), ``shopper``
  (:class:`~django_orderpay.card_testing.Shopper`), ``scope`` (``order``,
  ``shopper``, ``address``), ``kind`` (``attempts``, ``declines``), ``limit``,
  ``count``; sender ``CardAttemptRefusal``. Sent at once (no transaction is
  involved), for each card attempt the card-testing limits refuse: alert
  staff, block the address, ask for a CAPTCHA.

A receiver that raises does not stop the others; its error is logged.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from django.db import transaction
from django.dispatch import Signal

from .duplicates import other_payments, other_payments_among
from .models import (
    CardAttemptRefusal,
    CardToken,
    Charge,
    ChargeStatus,
    Checkout,
    ConnectedAccount,
    Order,
)

logger = logging.getLogger(__name__)

charge_status_changed = Signal()
charge_paid = Signal()
charge_declined = Signal()
charge_canceled = Signal()
charge_refunded = Signal()
card_stored = Signal()
order_expired = Signal()
payment_duplicated = Signal()
account_connected = Signal()
account_needs_authorization = Signal()
card_attempts_refused = Signal()
checkout_paid = Signal()
checkout_expired = Signal()

_STATUS_SIGNALS: dict[str, Signal] = {
    ChargeStatus.PAID: charge_paid,
    ChargeStatus.DECLINED: charge_declined,
    ChargeStatus.CANCELED: charge_canceled,
}


def _send(signal: Signal, sender: type, **kwargs: object) -> None:
    # send_robust: one shop receiver failing must not keep the others (or
    # the rest of the on_commit callbacks) from hearing about a payment.
    for receiver, result in signal.send_robust(sender, **kwargs):
        if isinstance(result, Exception):
            logger.error("orderpay signal receiver %r failed", receiver, exc_info=result)


def _send_status_signals(
    charge: Charge, change: ChargeChange, source: str, siblings: Sequence[Charge] = ()
) -> None:
    if change.old_status != change.new_status:
        _send(
            charge_status_changed,
            Charge,
            charge=charge,
            old_status=change.old_status,
            new_status=change.new_status,
            source=source,
        )
    if change.old_effective != change.new_effective:
        specific = _STATUS_SIGNALS.get(change.new_effective)
        if specific is not None:
            _send(specific, Charge, charge=charge, old_status=change.old_status, source=source)
        if change.new_effective == ChargeStatus.PAID:
            _announce_if_duplicated(charge, source, siblings)
    if change.refunded_more:
        _send(
            charge_refunded,
            Charge,
            charge=charge,
            amount=change.refunded_more,
            refunded=charge.amount_refunded,
            partial=charge.is_partially_refunded,
            source=source,
        )


def _announce_if_duplicated(charge: Charge, source: str, siblings: Sequence[Charge]) -> None:
    # After commit, outside the sync's transaction: a shop's receiver may call the
    # provider (a refund). The order's own charges, as the sync left them under its
    # lock, answer for an order without a shop object; else a query, once newly paid.
    found = other_payments_among(charge, siblings) if siblings else None
    others = found if found is not None else list(other_payments(charge))
    if others:
        logger.warning(
            "charge %s paid what %s had paid already",
            charge.provider_id,
            ", ".join(other.provider_id for other in others),
        )
        _send(payment_duplicated, Charge, charge=charge, others=others, source=source)


@dataclass(frozen=True)
class ChargeChange:
    """What one sync changed of a charge, as the signals tell it."""

    old_status: str
    new_status: str
    old_effective: str
    new_effective: str
    refunded_more: int = 0

    @property
    def matters(self) -> bool:
        return (
            self.old_status != self.new_status
            or self.old_effective != self.new_effective
            or self.refunded_more > 0
        )


def announce_change(
    charge: Charge, change: ChargeChange, source: str, siblings: Sequence[Charge] = ()
) -> None:
    """Send the signals of one charge's change once the transaction commits.

    ``siblings``: every charge of its order, as the sync holds them (locked).
    """
    transaction.on_commit(partial(_send_status_signals, charge, change, source, siblings))


def announce_order_expired(order: Order, source: str) -> None:
    """Send ``order_expired`` once the transaction commits."""
    transaction.on_commit(partial(_send, order_expired, Order, order=order, source=source))


def announce_card_stored(card_token: CardToken) -> None:
    """Send ``card_stored`` for a new token once the transaction commits."""
    transaction.on_commit(partial(_send, card_stored, CardToken, card_token=card_token))


def announce_account_connected(account: ConnectedAccount, user: object, created: bool) -> None:
    """Send ``account_connected`` once the transaction commits."""
    transaction.on_commit(
        partial(
            _send,
            account_connected,
            ConnectedAccount,
            account=account,
            user=user,
            created=created,
        )
    )


def announce_account_needs_authorization(account: ConnectedAccount, reason: str) -> None:
    """Send ``account_needs_authorization`` once the transaction commits."""
    transaction.on_commit(
        partial(
            _send, account_needs_authorization, ConnectedAccount, account=account, reason=reason
        )
    )


def announce_checkout_paid(checkout: Checkout, order: Order, source: str) -> None:
    """Send ``checkout_paid`` once the transaction commits."""
    transaction.on_commit(
        partial(_send, checkout_paid, Checkout, checkout=checkout, order=order, source=source)
    )


def announce_checkout_expired(checkout: Checkout, source: str) -> None:
    """Send ``checkout_expired`` once the transaction commits."""
    transaction.on_commit(
        partial(_send, checkout_expired, Checkout, checkout=checkout, source=source)
    )


def announce_duplicates_of(charge: Charge, source: str) -> None:
    """After commit, ``payment_duplicated`` for a paid ``charge`` if its purchase was paid
    already (for a charge that joined its shop object after it was paid: a checkout's)."""
    transaction.on_commit(partial(_announce_if_duplicated, charge, source, ()))


def announce_card_attempts_refused(**kwargs: object) -> None:
    """Send ``card_attempts_refused`` now: a refusal writes nothing a rollback could undo."""
    _send(card_attempts_refused, CardAttemptRefusal, **kwargs)
