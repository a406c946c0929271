"""Paying a deeplink order through the sandbox's (or the emulator's) payment simulator."""

from __future__ import annotations

from django_orderpay.client import OrderPayClient
from django_orderpay.exceptions import FieldError, PayloadError
from django_orderpay.models import ChangeSource, DeepLink, Order

from ._common import check_mirror, client_or_default, order_account
from .orders import refresh_order


def simulate_deeplink_payment(
    order: Order,
    *,
    status: str | None = None,
    card_number: str | None = None,
    client: OrderPayClient | None = None,
) -> Order:
    """Pay ``order``'s deeplink as its payer would in the app (sandbox and emulator only).

    Give ``status`` (``"PAID"`` or ``"DECLINED"``: a balance payment) or
    ``card_number`` (a test card). The simulator answers only the bare status
    (``"PAID"``, ``"DECLINED"``) and notifies the charge; the order is fetched
    again and answered mirrored, so it is right before the notification
    arrives. Outside the sandbox and the emulator the client raises
    ``ConfigurationError``.
    """
    check_mirror(order, Order, "order")
    if (status is None) == (card_number is None):
        raise PayloadError([FieldError("status", "give status or card_number, not both")])
    deeplink = DeepLink.objects.filter(order=order).first()
    if deeplink is None:
        raise PayloadError([FieldError("deep_links", f"order {order.provider_id} has no deeplink")])
    api = client_or_default(client, order_account(order))
    if status is not None:
        api.simulate_deeplink_balance(deeplink.deeplink_id, status)
    else:
        api.simulate_deeplink_credit_card(deeplink.deeplink_id, card_number or "")
    return refresh_order(order, source=ChangeSource.API, client=api)
