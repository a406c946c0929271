"""django-orderpay in Django admin: orders, charges, cards, splits, checkouts, operations,
deliveries, and the card attempts the card-testing limits refused.

Importing this package registers every ModelAdmin with the default admin site
(Django's admin autodiscovery does it). Staff only look at provider state here;
the actions change it through :mod:`django_orderpay.services`.
"""

from __future__ import annotations

from .._deprecation import deprecated_getattr
from .accounts import ConnectedAccountAdmin
from .card_testing import CardAttemptRefusalAdmin
from .cards import CardTokenAdmin
from .charges import ChargeAdmin, ChargeStatusChangeInline
from .checkouts import CheckoutAdmin, CheckoutOrderInline, create_payment_link
from .deliveries import NotificationDeliveryAdmin
from .operations import OperationAdmin, OperationInline
from .orders import ChargeInline, ChargeStatusFilter, DeepLinkInline, OrderAdmin
from .splits import SplitAdmin

__all__ = [
    "CardAttemptRefusalAdmin",
    "CardTokenAdmin",
    "ChargeAdmin",
    "ChargeInline",
    "ChargeStatusChangeInline",
    "ChargeStatusFilter",
    "CheckoutAdmin",
    "CheckoutOrderInline",
    "ConnectedAccountAdmin",
    "DeepLinkInline",
    "NotificationDeliveryAdmin",
    "OperationAdmin",
    "OperationInline",
    "OrderAdmin",
    "SplitAdmin",
    "create_payment_link",
]

#: Old names, still answered with a DeprecationWarning (docs/names.md).
_DEPRECATED = {"DeeplinkInline": ("DeepLinkInline", "the model is DeepLink")}
__getattr__ = deprecated_getattr(__name__, _DEPRECATED, globals())
