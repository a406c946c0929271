"""django-orderpay's models: faithful mirrors of the provider's objects."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django_orderpay._deprecation import deprecated_getattr

from .accounts import AccountState, ConnectAuthorization, ConnectedAccount
from .card_testing import CardAttemptRefusal, LimitKind, LimitScope
from .cards import CardToken
from .charges import Charge, PaymentMethodType, RecurringType, Split, SplitMethod
from .checkouts import Checkout, CheckoutStatus
from .history import AppendOnlyError, ChangeSource, ChargeStatusChange
from .money import format_cents
from .notifications import DeliveryOutcome, NotificationDelivery, redact_headers
from .operations import OPEN_OPERATION_STATES, Operation, OperationKind, OperationState
from .orders import PROVIDER_TIMEZONE, DeepLink, Order, deeplink_expiry
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
    "AccountState",
    "AppendOnlyError",
    "CardAttemptRefusal",
    "CardToken",
    "ChangeSource",
    "Charge",
    "ChargeStatus",
    "ChargeStatusChange",
    "Checkout",
    "CheckoutStatus",
    "ConnectAuthorization",
    "ConnectedAccount",
    "DeepLink",
    "DeliveryOutcome",
    "LimitKind",
    "LimitScope",
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

#: Old names, still answered with a DeprecationWarning (docs/names.md).
_DEPRECATED = {"Deeplink": ("DeepLink", "spelt as the API's deep_links and payloads.DeepLink")}
__getattr__ = deprecated_getattr(__name__, _DEPRECATED, globals())

if TYPE_CHECKING:  # the old name, for type checkers (it warns at run time)
    Deeplink = DeepLink
