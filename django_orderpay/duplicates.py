"""A shop object paid twice: what else holds money for the same purchase.

PagBank has no call to close a deeplink, a Pix QR code or a boleto that a
shopper left open, so a purchase can be paid twice (the app link after a
card, a Pix after a boleto). The rule for "paid twice" lives here, for the
``payment_duplicated`` signal and the admin alike.
"""

from __future__ import annotations

from django.db.models import F, QuerySet

from .models import Charge


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
        .filter(amount_paid__gt=F("amount_refunded"))
        .select_related("order")
        .order_by("paid_at", "pk")
    )
