"""What a shop calls: create, pay, capture, cancel, refresh, split, stored cards, deeplinks,
and PagBank's hosted Checkout.

Every service validates its body through :mod:`django_orderpay.payloads`,
calls the provider through :mod:`django_orderpay.client` with an explicit or
derived idempotency key, and mirrors the answer through
:mod:`django_orderpay.sync` (source ``api``) before returning, so the local
copy is right before any notification arrives. A declined charge is not an
exception: it comes back with status ``DECLINED``. See ``docs/services.md``.
"""

from __future__ import annotations

from .card_storage import store_card
from .cards import CardTokenNotOwned, pay_with_card_token, remove_card_token, token_charge
from .charges import cancel_charge, capture_charge
from .checkouts import (
    activate_checkout,
    create_checkout,
    inactivate_checkout,
    payable_checkout,
    refresh_checkout,
)
from .deeplinks import simulate_deeplink_payment
from .fees import InstallmentPlan, installment_plans
from .in_flight import in_flight_for
from .keys import clear_public_key_cache, get_public_key
from .orders import create_order, pay_order, refresh_order, refresh_order_of_charge
from .pix import simulate_pix_payment
from .splits import get_split, platform_splits
from .threeds import ThreeDSSession, create_3ds_session

__all__ = [
    "CardTokenNotOwned",
    "InstallmentPlan",
    "ThreeDSSession",
    "activate_checkout",
    "cancel_charge",
    "capture_charge",
    "clear_public_key_cache",
    "create_3ds_session",
    "create_checkout",
    "create_order",
    "get_public_key",
    "get_split",
    "in_flight_for",
    "inactivate_checkout",
    "installment_plans",
    "pay_order",
    "pay_with_card_token",
    "payable_checkout",
    "platform_splits",
    "refresh_checkout",
    "refresh_order",
    "refresh_order_of_charge",
    "remove_card_token",
    "simulate_deeplink_payment",
    "simulate_pix_payment",
    "store_card",
    "token_charge",
]
