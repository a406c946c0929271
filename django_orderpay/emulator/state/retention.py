"""How much the emulator remembers: the newest orders, so a long demo's memory stays bounded.

The provider keeps every order forever; an emulator that did would grow by
megabytes a thousand orders for as long as ``make demo`` runs. Past
``orders`` orders the oldest is forgotten whole (its charges, splits,
deeplink and QR codes, then a ``GET`` of it is a 404, as for an id never
made), and the other stores are held to sizes derived from it: stored
checkouts, cards, idempotent answers and finished notification deliveries. A pending
delivery is never dropped. Set it when building the emulator
(``Emulator(retain_orders=N)``) or on the control plane
(``POST /_emulator/retention``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .store import State

#: Orders kept by default: days of a busy demo, tens of megabytes at most.
DEFAULT_RETAINED_ORDERS = 5000
MAX_RETAINED_ORDERS = 1_000_000
#: Idempotent answers kept per retained order (a create, a pay, a capture, refunds).
ANSWERS_PER_ORDER = 4


@dataclass(frozen=True)
class Retention:
    """Keep the newest ``orders`` orders (and as many cards and finished deliveries)."""

    orders: int = DEFAULT_RETAINED_ORDERS

    def __post_init__(self) -> None:
        orders = self.orders
        if isinstance(orders, bool) or not isinstance(orders, int):
            raise ValueError("retention orders must be a whole number")
        if not 1 <= orders <= MAX_RETAINED_ORDERS:
            raise ValueError(f"retention orders must be 1 to {MAX_RETAINED_ORDERS}")

    @property
    def cards(self) -> int:
        return self.orders

    @property
    def deliveries(self) -> int:
        """Finished notification deliveries kept (an order sends one or a few)."""
        return self.orders

    @property
    def idempotent_answers(self) -> int:
        return self.orders * ANSWERS_PER_ORDER

    def as_json(self) -> dict[str, Any]:
        return {"orders": self.orders}


def forget_order(state: State, order_id: str) -> None:
    """Remove one order and everything that hangs from it."""
    order = state.orders.pop(order_id, None)
    if order is None:
        return
    for charge_id in order.charge_ids:
        charge = state.charges.pop(charge_id, None)
        state.waiting_boletos.discard(charge_id)
        if charge is not None and charge.split_id:
            state.splits.pop(charge.split_id, None)
    if order.deeplink_id:
        state.deeplinks.pop(order.deeplink_id, None)
    for qr_code_id in order.qr_code_ids:
        state.qr_codes.pop(qr_code_id, None)


def _oldest(keys: Any, excess: int) -> list[Any]:
    # Dicts keep insertion order: the first keys are the oldest.
    return [key for key, _ in zip(keys, range(excess), strict=False)]


def trim(state: State) -> int:
    """Hold every store to ``state.retention``; the number of orders forgotten."""
    retention = state.retention
    excess = len(state.orders) - retention.orders
    forgotten = _oldest(state.orders, excess) if excess > 0 else []
    for order_id in forgotten:
        forget_order(state, order_id)
    extra_checkouts = len(state.checkouts) - retention.orders
    if extra_checkouts > 0:
        for checkout_id in _oldest(state.checkouts, extra_checkouts):
            del state.checkouts[checkout_id]
            state.open_checkouts.discard(checkout_id)
    extra_cards = len(state.cards) - retention.cards
    if extra_cards > 0:
        for card_id in _oldest(state.cards, extra_cards):
            del state.cards[card_id]
    extra_keys = len(state.wallet_keys) - retention.cards
    if extra_keys > 0:
        for digest in _oldest(state.wallet_keys, extra_keys):
            del state.wallet_keys[digest]
    state.idempotency.trim(retention.idempotent_answers)
    state.notifier.trim(retention.deliveries)
    return len(forgotten)


def kept(state: State) -> dict[str, int]:
    """How much is remembered now, store by store."""
    return {
        "orders": len(state.orders),
        "charges": len(state.charges),
        "checkouts": len(state.checkouts),
        "cards": len(state.cards),
        "idempotent_answers": len(state.idempotency),
        "deliveries": state.notifier.recorded(),
    }
