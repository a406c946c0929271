"""Signals for what happened to a shop's payments.

Each fires once per real transition, only after the transaction that
recorded it commits: a receiver that ships goods on ``charge_paid`` never
acts on a state that was rolled back. Receivers get keyword arguments:

- ``charge_status_changed``: ``charge``, ``old_status`` (``""`` when the
  charge is first seen), ``new_status``, ``source`` (``api``,
  ``notification``, ``sync``); sender ``Charge``.
- ``charge_paid``, ``charge_declined``, ``charge_canceled``: ``charge``,
  ``old_status``, ``source``; sender ``Charge``.
- ``card_stored``: ``card_token``; sender ``CardToken``.

A receiver that raises does not stop the others; its error is logged.
"""

from __future__ import annotations

import logging
from functools import partial

from django.db import transaction
from django.dispatch import Signal

from .models import CardToken, Charge, ChargeStatus

logger = logging.getLogger(__name__)

charge_status_changed = Signal()
charge_paid = Signal()
charge_declined = Signal()
charge_canceled = Signal()
card_stored = Signal()

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


def _send_status_signals(charge: Charge, old_status: str, new_status: str, source: str) -> None:
    _send(
        charge_status_changed,
        Charge,
        charge=charge,
        old_status=old_status,
        new_status=new_status,
        source=source,
    )
    specific = _STATUS_SIGNALS.get(new_status)
    if specific is not None:
        _send(specific, Charge, charge=charge, old_status=old_status, source=source)


def announce_status_change(charge: Charge, old_status: str, new_status: str, source: str) -> None:
    """Send the status signals for one transition once the transaction commits."""
    transaction.on_commit(partial(_send_status_signals, charge, old_status, new_status, source))


def announce_card_stored(card_token: CardToken) -> None:
    """Send ``card_stored`` for a new token once the transaction commits."""
    transaction.on_commit(partial(_send, card_stored, CardToken, card_token=card_token))
