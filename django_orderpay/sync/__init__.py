"""Provider JSON -> rows: the one way provider state enters the database.

- :func:`sync_order` for Order answers and notification bodies;
- :func:`sync_charge` for answers that are a single charge;
- :func:`sync_split` for a split record;
- :func:`sync_checkout` for a Checkout answer (the hosted page) and its orders;
- :func:`lock_order` for a caller that must hold an order's lock before it
  has the payload (its row then goes to ``sync_order(locked=...)``).
"""

from __future__ import annotations

from .charges import supersedes
from .checkouts import lock_checkout, sync_checkout
from .locking import once_more_on_conflict, single_write, sync_transaction
from .operations import requested_total, settle
from .orders import lock_order, sync_charge, sync_order
from .parse import SyncError, parse_charge, parse_order, parse_split
from .splits import sync_split

__all__ = [
    "SyncError",
    "lock_checkout",
    "lock_order",
    "once_more_on_conflict",
    "parse_charge",
    "parse_order",
    "parse_split",
    "requested_total",
    "settle",
    "single_write",
    "supersedes",
    "sync_charge",
    "sync_checkout",
    "sync_order",
    "sync_split",
    "sync_transaction",
]
