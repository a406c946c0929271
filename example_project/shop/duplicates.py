"""A purchase paid twice is refunded at once: the shop keeps the first payment.

A shopper may leave a deeplink, a Pix QR code or a boleto open and pay by
card, then pay the open one too: PagBank has no call to close them. When
django-orderpay sees the second payment (``payment_duplicated``), the shop
gives it back. If the refund fails, staff find the purchase under the
admin's "Paid more than once" filter.
"""

from __future__ import annotations

import logging
from typing import Any

from django_orderpay import services
from django_orderpay.exceptions import OrderPayError
from django_orderpay.models import Charge

from .models import Purchase

logger = logging.getLogger(__name__)


def refund_duplicate_payment(sender: type, charge: Charge, others: list[Charge], **_: Any) -> None:
    """``payment_duplicated`` receiver: refund ``charge``, the later payment of a purchase."""
    if not isinstance(charge.order.shop_object, Purchase):
        return
    try:
        services.cancel_charge(charge)
    except OrderPayError:
        logger.exception("the second payment %s of a purchase was not refunded", charge.provider_id)
    else:
        logger.info("refunded %s: the purchase was paid already", charge.provider_id)
