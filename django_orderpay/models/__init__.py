"""django-orderpay's models: faithful mirrors of the provider's objects."""

from __future__ import annotations

from .cards import CardToken
from .charges import Charge, PaymentMethodType, RecurringType, Split, SplitMethod
from .history import AppendOnlyError, ChangeSource, ChargeStatusChange
from .money import format_cents
from .notifications import DeliveryOutcome, NotificationDelivery, redact_headers
from .operations import OPEN_OPERATION_STATES, Operation, OperationKind, OperationState
from .orders import PROVIDER_TIMEZONE, Deeplink, Order, deeplink_expiry
from .pix import QrCode
from .states import (
    CHARGE_TRANSITIONS,
    OPEN_CHARGE_STATUSES,
    ChargeStatus,
    OrderStatus,
    charge_transition_allowed,
    derive_order_status,
    effective_charge_status,
)

__all__ = [
    "CHARGE_TRANSITIONS",
    "OPEN_CHARGE_STATUSES",
    "OPEN_OPERATION_STATES",
    "PROVIDER_TIMEZONE",
    "AppendOnlyError",
    "CardToken",
    "ChangeSource",
    "Charge",
    "ChargeStatus",
    "ChargeStatusChange",
    "Deeplink",
    "DeliveryOutcome",
    "NotificationDelivery",
    "Operation",
    "OperationKind",
    "OperationState",
    "Order",
    "OrderStatus",
    "PaymentMethodType",
    "QrCode",
    "RecurringType",
    "Split",
    "SplitMethod",
    "charge_transition_allowed",
    "deeplink_expiry",
    "derive_order_status",
    "effective_charge_status",
    "format_cents",
    "redact_headers",
]
