"""A shop object paid twice: what else holds money for the same purchase.

PagBank has no call to close a deeplink, a Pix QR code or a boleto that a
shopper left open, so a purchase can be paid twice (the app link after a
card, a Pix after a boleto). The rule for "paid twice" lives here, for the
``payment_duplicated`` signal and the admin alike.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from django.db.models import F, Q, QuerySet

from .models import Charge

#: A charge holds money while more was paid than refunded: as a query filter...
HOLDS_MONEY = Q(amount_paid__gt=F("amount_refunded"))


def holds_money(charge: Charge) -> bool:
    """...and for a charge in hand (:data:`HOLDS_MONEY`)."""
    return charge.amount_paid > charge.amount_refunded


#: Where a charge without a ``paid_at`` sorts among the others: last, as in the query.
_NEVER = dt.datetime.min.replace(tzinfo=dt.UTC)


def other_payments(charge: Charge) -> QuerySet[Charge]:
    """The other charges still holding money for ``charge``'s shop object.

    A charge holds money while ``amount_paid`` exceeds ``amount_refunded``.
    An order with no shop object is its own purchase: only its own other
    charges count.
    """
    order = charge.order
    if order.content_type_id is None:
        same_purchase = Charge.objects.filter(order_id=order.pk)
    else:
        same_purchase = Charge.objects.filter(
            order__content_type_id=order.content_type_id, order__object_id=order.object_id
        )
    return (
        same_purchase.exclude(pk=charge.pk)
        .filter(HOLDS_MONEY)
        .select_related("order")
        # NULLs last on every database (SQLite puts them first), as other_payments_among.
        .order_by(F("paid_at").asc(nulls_last=True), "pk")
    )


def other_payments_among(charge: Charge, siblings: Sequence[Charge]) -> list[Charge] | None:
    """:func:`other_payments`, answered from ``siblings`` when they are the whole purchase.

    ``siblings`` are every charge of ``charge``'s order, as the sync that just
    wrote them holds them under the order's lock. An order with no shop
    object is its own purchase, so they answer without a query, in the same
    order; with a shop object the purchase spans other orders: None (ask
    :func:`other_payments`).
    """
    if charge.order.content_type_id is not None:
        return None
    others = [other for other in siblings if other.pk != charge.pk and holds_money(other)]
    return sorted(
        others, key=lambda other: (other.paid_at is None, other.paid_at or _NEVER, other.pk)
    )
