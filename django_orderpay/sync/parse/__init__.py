"""Provider JSON -> frozen, validated values (no database here).

Every problem is a :class:`SyncError` naming the field path the way the
provider names it (``charges[0].amount.value``), never a ``KeyError``.
A value this version does not know, or text longer than its column, is kept
(with a warning), never refused: the provider's notifications are retried
until they are mirrored.
"""

from __future__ import annotations

from .charges import CardState, ChargeState, parse_charge
from .fields import ENUM_LENGTH, REPLACEMENT, UNSTORABLE, SyncError, storable
from .orders import DeeplinkState, OrderState, QrCodeState, SplitState, parse_order, parse_split

__all__ = [
    "ENUM_LENGTH",
    "REPLACEMENT",
    "UNSTORABLE",
    "CardState",
    "ChargeState",
    "DeeplinkState",
    "OrderState",
    "QrCodeState",
    "SplitState",
    "SyncError",
    "parse_charge",
    "parse_order",
    "parse_split",
    "storable",
]
