"""django-orderpay in Django admin: orders, charges, cards, splits, operations, deliveries.

Importing this package registers every ModelAdmin with the default admin site
(Django's admin autodiscovery does it). Staff only look at provider state here;
the actions change it through :mod:`django_orderpay.services`.
"""

from __future__ import annotations

from .cards import CardTokenAdmin
from .charges import ChargeAdmin, ChargeStatusChangeInline
from .deliveries import NotificationDeliveryAdmin
from .operations import OperationAdmin, OperationInline
from .orders import ChargeInline, ChargeStatusFilter, DeeplinkInline, OrderAdmin
from .splits import SplitAdmin

__all__ = [
    "CardTokenAdmin",
    "ChargeAdmin",
    "ChargeInline",
    "ChargeStatusChangeInline",
    "ChargeStatusFilter",
    "DeeplinkInline",
    "NotificationDeliveryAdmin",
    "OperationAdmin",
    "OperationInline",
    "OrderAdmin",
    "SplitAdmin",
]
