"""Charge rows from charge answers: upsert, monotonic, with history."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db.models import Q
from django.utils import timezone

from ..models import Charge, ChargeStatusChange, Order, Split, charge_transition_allowed
from ..signals import announce_status_change
from .cards import sync_card_tokens
from .parse import ChargeState, SyncError

#: Columns a newer copy may leave empty without meaning "cleared": a cancel
#: answer need not repeat the recurrence reference or the paid time.
STICKY_COLUMNS = (
    "brand_reference_id",
    "paid_at",
    "card_brand",
    "card_first_digits",
    "card_last_digits",
    "recurring_type",
    "split_method",
)
UPDATE_FIELDS = (
    "reference_id",
    "status",
    "amount_value",
    "amount_paid",
    "amount_refunded",
    "currency",
    "installments",
    "capture",
    "capture_before",
    "payment_response_code",
    "payment_response_message",
    "card_brand",
    "card_first_digits",
    "card_last_digits",
    "card_token",
    "recurring_type",
    "brand_reference_id",
    "split_method",
    "paid_at",
    "created_at",
    "data",
    "synced_at",
)


def supersedes(row: Charge, state: ChargeState) -> bool:
    """Whether ``state`` is at least as new as the stored ``row``.

    A different status must be reachable by an allowed transition; the same
    status must not show smaller paid or refunded sums. Anything else is a
    late copy of an older state.
    """
    if state.status != row.status:
        return charge_transition_allowed(row.status, state.status)
    return state.amount_paid >= row.amount_paid and state.amount_refunded >= row.amount_refunded


def _lock(order: Order, states: Sequence[ChargeState]) -> dict[str, Charge]:
    ids = [state.provider_id for state in states]
    # One query, rows locked in primary-key order: every sync takes charge
    # locks in the same order, so two of them cannot deadlock.
    rows = Charge.objects.select_for_update().filter(Q(order=order) | Q(provider_id__in=ids))
    known: dict[str, Charge] = {}
    for row in rows.order_by("pk"):
        if row.order_id != order.pk:
            index = ids.index(row.provider_id)
            raise SyncError(f"charges[{index}].id", f"{row.provider_id} belongs to another order")
        row.order = order
        known[row.provider_id] = row
    return known


def _apply(row: Charge, state: ChargeState, token: Any, now: Any) -> None:
    old_paid, old_refunded = row.amount_paid, row.amount_refunded
    for name, value in state.columns.items():
        if value in ("", None) and name in STICKY_COLUMNS:
            continue
        setattr(row, name, value)
    # Sums never shrink, whatever a copy says.
    row.amount_paid = max(old_paid, state.amount_paid)
    row.amount_refunded = max(old_refunded, state.amount_refunded)
    if token is not None:
        row.card_token = token
    row.data = state.data
    row.synced_at = now


def apply_charges(order: Order, states: Sequence[ChargeState], *, source: str) -> list[Charge]:
    """Upsert ``states`` under ``order`` (already locked); all the order's charges.

    A new charge counts as a transition from ``""``. Each transition gets a
    history row now and its signals after commit.
    """
    known = _lock(order, states)
    # user_id, not user: the owner's row is never needed, only its key.
    tokens = sync_card_tokens(states, owner_id=order.user_id, known_charge_ids=known.keys())
    now = timezone.now()
    new: list[Charge] = []
    changed: list[Charge] = []
    transitions: list[tuple[Charge, str, str]] = []
    for state in states:
        token = tokens.get(state.card.token_id) if state.card else None
        row = known.get(state.provider_id)
        if row is None:
            row = Charge(order=order, provider_id=state.provider_id, card_token=token)
            _apply(row, state, token, now)
            new.append(row)
            transitions.append((row, "", state.status))
            continue
        same_token = token is None or row.card_token_id == token.pk
        if not supersedes(row, state) or (row.data == state.data and same_token):
            continue
        old_status = row.status
        _apply(row, state, token, now)
        changed.append(row)
        if old_status != row.status:
            transitions.append((row, old_status, row.status))
    if new:
        Charge.objects.bulk_create(new)
    if changed:
        Charge.objects.bulk_update(changed, UPDATE_FIELDS)
    _record(transitions, source, now)
    charges = [*known.values(), *new]
    _link_splits(charges, states)
    return charges


def _record(transitions: list[tuple[Charge, str, str]], source: str, now: Any) -> None:
    if not transitions:
        return
    ChargeStatusChange.objects.bulk_create(
        ChargeStatusChange(
            charge=row, old_status=old, new_status=new, source=source, created_at=now
        )
        for row, old, new in transitions
    )
    for row, old, new in transitions:
        announce_status_change(row, old, new, source)


def _link_splits(charges: Sequence[Charge], states: Sequence[ChargeState]) -> None:
    """Make the Split row a charge's ``SPLIT`` link names (details come later)."""
    split_ids = {state.provider_id: state.split_id for state in states if state.split_id}
    if not split_ids:
        return
    split_charges = [charge for charge in charges if charge.provider_id in split_ids]
    existing = set(
        Split.objects.filter(charge__in=split_charges).values_list("charge_id", flat=True)
    )
    Split.objects.bulk_create(
        Split(
            charge=charge,
            provider_id=split_ids[charge.provider_id],
            method=charge.split_method,
        )
        for charge in split_charges
        if charge.pk not in existing
    )
