"""Charge and order states, and the rules for moving between them.

The provider documents no transitions, so the table below is the careful
reading of its facts: a charge only moves forward (analysis -> authorised ->
paid -> cancelled), DECLINED and CANCELED are final, and a full refund turns
PAID into CANCELED. A copy of a charge whose status is not reachable from the
stored one is a late, stale copy and is ignored by ``sync``.

Whether the provider answers a *partial* refund with PAID or CANCELED is not
settled (the official plugin accepts only CANCELED after any refund). Either
way the mirror means the same: a charge that kept part of what was paid is
*partially refunded*, and counts as paid (:func:`effective_charge_status`),
not cancelled; more refunds can follow.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from django.db import models
from django.utils.translation import gettext_lazy as _


class ChargeStatus(models.TextChoices):
    """A charge's ``status`` as the provider spells it."""

    AUTHORIZED = "AUTHORIZED", _("Authorized")
    PAID = "PAID", _("Paid")
    IN_ANALYSIS = "IN_ANALYSIS", _("In analysis")
    DECLINED = "DECLINED", _("Declined")
    CANCELED = "CANCELED", _("Canceled")
    WAITING = "WAITING", _("Waiting")


_S = ChargeStatus

#: Where each charge status may go next. A status absent from a set is a step
#: backwards (or out of a final state) and never happens at the provider.
CHARGE_TRANSITIONS: Mapping[str, frozenset[str]] = {
    _S.WAITING: frozenset({_S.IN_ANALYSIS, _S.AUTHORIZED, _S.PAID, _S.DECLINED, _S.CANCELED}),
    _S.IN_ANALYSIS: frozenset({_S.AUTHORIZED, _S.PAID, _S.DECLINED, _S.CANCELED}),
    _S.AUTHORIZED: frozenset({_S.PAID, _S.CANCELED}),
    _S.PAID: frozenset({_S.CANCELED}),
    _S.DECLINED: frozenset(),
    _S.CANCELED: frozenset(),
}

#: Charges in these states may still change without anyone acting on them.
OPEN_CHARGE_STATUSES = frozenset({_S.WAITING, _S.IN_ANALYSIS, _S.AUTHORIZED})
#: Nothing comes out of these.
FINAL_CHARGE_STATUSES = frozenset({_S.DECLINED, _S.CANCELED})


def charge_transition_allowed(old_status: str, new_status: str) -> bool:
    """Whether a charge may move from ``old_status`` to ``new_status``.

    ``old_status`` is ``""`` for a charge seen for the first time: any status
    is a valid start. A status this version does not know (the provider adds
    them) may follow any status but a final one, and be followed by any.
    """
    if not old_status:
        return True
    if old_status in CHARGE_TRANSITIONS and new_status in CHARGE_TRANSITIONS:
        return new_status in CHARGE_TRANSITIONS[old_status]
    return old_status != new_status and old_status not in FINAL_CHARGE_STATUSES


def effective_charge_status(status: str, paid: int, refunded: int) -> str:
    """What a charge's status means for the shop: a partial refund is still paid.

    CANCELED with part of the paid amount kept (``0 < refunded < paid``) is a
    partially refunded charge: it counts as PAID (no ``charge_canceled``, the
    order stays paid, the rest can be refunded).
    """
    if status == _S.CANCELED and 0 < refunded < paid:
        return _S.PAID
    return status


class OrderStatus(models.TextChoices):
    """An order's status, derived from its charges (the provider has none)."""

    CREATED = "CREATED", _("Created")
    WAITING = "WAITING", _("Waiting")
    IN_ANALYSIS = "IN_ANALYSIS", _("In analysis")
    AUTHORIZED = "AUTHORIZED", _("Authorized")
    PAID = "PAID", _("Paid")
    DECLINED = "DECLINED", _("Declined")
    CANCELED = "CANCELED", _("Canceled")
    EXPIRED = "EXPIRED", _("Expired")


#: The derivation rule: the first of these statuses held by any charge names
#: the order. So one paid charge makes the order PAID even after declined
#: attempts; an order whose only charges were refunded is CANCELED; an order
#: whose charges were all declined is DECLINED; an order without charges (a
#: deeplink not yet paid, or a two-step order before pay) is CREATED.
ORDER_STATUS_PRECEDENCE: tuple[str, ...] = (
    OrderStatus.PAID,
    OrderStatus.AUTHORIZED,
    OrderStatus.IN_ANALYSIS,
    OrderStatus.WAITING,
    OrderStatus.CANCELED,
    OrderStatus.DECLINED,
)
#: The first four: a payment made or under way, which an open QR code does not outrank.
_UNDER_WAY = ORDER_STATUS_PRECEDENCE[:4]
_ENDED = ORDER_STATUS_PRECEDENCE[4:]


#: What an order's Pix QR codes say, for :func:`derive_order_status`.
QR_OPEN = "open"
QR_EXPIRED = "expired"


def derive_order_status(charge_statuses: Iterable[str], qr_codes: str = "") -> str:
    """The order status for charges in ``charge_statuses`` (see the rule above).

    Pass each charge's effective status (``Charge.effective_status``), so a
    partially refunded charge keeps its order paid. Statuses this version
    does not know are left out. ``qr_codes`` says whether the order has a
    Pix QR code still payable (``QR_OPEN``: the order is WAITING, whatever
    attempts were declined) or only expired ones (``QR_EXPIRED``: EXPIRED),
    unless a charge is paid, authorised, in analysis or waiting.
    """
    present = set(charge_statuses)
    for status in _UNDER_WAY:
        if status in present:
            return status
    if qr_codes == QR_OPEN:
        return OrderStatus.WAITING
    if qr_codes == QR_EXPIRED:
        return OrderStatus.EXPIRED
    for status in _ENDED:
        if status in present:
            return status
    return OrderStatus.CREATED
