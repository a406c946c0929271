"""Pix: paying a QR code in the sandbox, and closing orders whose QR codes expired unpaid."""

from __future__ import annotations

from django_orderpay.client import OrderPayClient
from django_orderpay.exceptions import FieldError, PayloadError
from django_orderpay.models import ChangeSource, Order, QrCode

from ._common import check_mirror, client_or_default, order_account
from .orders import refresh_order


def simulate_pix_payment(order: Order, *, client: OrderPayClient | None = None) -> Order:
    """Pay ``order``'s Pix QR code as its payer would (sandbox and emulator only).

    ``POST /pix/pay/{QRCO_id}``, then the order is fetched again and answered
    mirrored (the provider also notifies the new PAID charge). Outside the
    sandbox and the emulator the client raises ``ConfigurationError``.
    """
    check_mirror(order, Order, "order")
    qr_code = QrCode.objects.filter(order=order).order_by("pk").first()
    if qr_code is None:
        message = f"order {order.provider_id} has no Pix QR code"
        raise PayloadError([FieldError("qr_codes", message)])
    api = client_or_default(client, order_account(order))
    api.simulate_pix_payment(qr_code.provider_id)
    return refresh_order(order, source=ChangeSource.API, client=api)
