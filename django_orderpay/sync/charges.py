"""Charge rows from charge answers: upsert, monotonic, with history."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from django.utils import timezone

from ..models import (
    Charge,
    ChargeStatusChange,
    Order,
    Split,
    charge_transition_allowed,
)
from ..models.base import attname
from ..models.operations import has_open_operations
from ..signals import ChargeChange, announce_change
from .batching import Writes
from .cards import sync_card_tokens
from .inserting import insert_new
from .locking import for_update
from .parse import ChargeState, SyncError
from .reading import columns, rows

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
#: ``UPDATE_FIELDS`` name -> the attribute holding its value (``card_token_id``).
_ATTNAMES = {name: attname(Charge, name) for name in UPDATE_FIELDS}


def supersedes(row: Charge, state: ChargeState) -> bool:
    """Whether ``state`` is at least as new as the stored ``row``.

    A different status must be reachable by an allowed transition; the same
    status must not show smaller paid or refunded sums. Anything else is a
    late copy of an older state.
    """
    if state.status != row.status:
        return charge_transition_allowed(row.status, state.status)
    return state.amount_paid >= row.amount_paid and state.amount_refunded >= row.amount_refunded


def _lock(order: Order, states: Sequence[ChargeState]) -> tuple[dict[str, Charge], bool | None]:
    """The order's charge rows (and any row naming one of ``states``), locked.

    Also whether the order has an open operation, read in the same query
    (None when no row came back to carry the answer): the caller holds the
    order's lock, so this statement, run after it was granted, sees every
    operation committed before, and most syncs find none to settle.
    """
    ids = [state.provider_id for state in states]
    # One query, rows locked in primary-key order: every sync takes charge
    # locks in the same order, so two of them cannot deadlock. Written out:
    # Django took longer to build and compile
    # select_for_update().filter(Q(order=...) | Q(provider_id__in=...))
    # with the annotation than PostgreSQL took to run it (each sync runs it).
    exists = has_open_operations(order.pk)
    wanted = "order_id = %s"
    if ids:
        wanted += f" OR provider_id IN ({', '.join(['%s'] * len(ids))})"
    # Only columns, the table's name, the EXISTS and placeholders are formatted in.
    sql = (
        f"SELECT {columns(Charge)}, {exists.sql}"  # noqa: S608
        f" FROM {Charge._meta.db_table} WHERE {wanted} ORDER BY id{for_update()}"
    )
    known: dict[str, Charge] = {}
    open_operations: bool | None = None
    for row, (has_open,) in rows(Charge, sql, [*exists.params, order.pk, *ids]):
        if row.order_id != order.pk:
            index = ids.index(row.provider_id)
            raise SyncError(f"charges[{index}].id", f"{row.provider_id} belongs to another order")
        row.order = order
        known[row.provider_id] = row
        open_operations = bool(has_open)  # SQLite answers 0 or 1
    return known, open_operations


def _insert(new: list[Charge], states: Sequence[ChargeState], *, new_order: bool) -> None:
    """Insert the new charge rows, one statement.

    Under an order this sync has just inserted, none of them can exist yet
    but as another order's: they go in with ``ON CONFLICT DO NOTHING``, and
    one skipped is refused by name (``charges[i].id``) rather than as an
    ``IntegrityError``. Under a known order, ``_lock`` has already looked.
    """
    if not new_order:
        Charge.objects.bulk_create(new)
        return
    inserted = {row.provider_id for row in insert_new(new, key="provider_id")}
    for index, state in enumerate(states):
        if state.provider_id not in inserted:
            raise SyncError(f"charges[{index}].id", f"{state.provider_id} belongs to another order")


def _apply(row: Charge, state: ChargeState, token: Any, now: Any) -> list[str]:
    """Copy ``state`` onto ``row``; the names of the columns that changed."""
    before = {name: getattr(row, attname) for name, attname in _ATTNAMES.items()}
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
    return [name for name, attname in _ATTNAMES.items() if getattr(row, attname) != before[name]]


def _save(changed: Sequence[tuple[Charge, list[str]]], writes: Writes) -> None:
    """Write the changed columns of ``changed`` rows in one statement.

    One row, the usual case (a capture, a cancel, a notification), is
    written as ``save(update_fields=...)`` writes it, queued with the
    sync's closing writes (:mod:`.batching`): ``bulk_update`` builds a
    ``CASE WHEN`` per column, which costs Django over ten times as much for
    a single row.
    Two or more rows still take one ``bulk_update``, of the columns that
    changed in any of them, so the statement count never grows with charges.
    """
    if len(changed) == 1:
        row, fields = changed[0]
        writes.update(row, fields)
    elif changed:
        union = set().union(*(fields for _, fields in changed))
        fields = [name for name in UPDATE_FIELDS if name in union]
        Charge.objects.bulk_update([row for row, _ in changed], fields)


def apply_charges(
    order: Order,
    states: Sequence[ChargeState],
    *,
    source: str,
    writes: Writes,
    new_order: bool = False,
) -> tuple[list[Charge], bool | None]:
    """Upsert ``states`` under ``order`` (already locked).

    Returns all the order's charges, and whether the order has an open
    operation (None: not known, look). ``new_order`` says this sync has just
    inserted ``order``: it has no charges to look up or lock. A new charge
    counts as a transition from ``""``. Each transition gets a history row
    and its signals after commit. A changed row and its history row are
    queued on ``writes``, for the caller to flush with its own.
    """
    known: dict[str, Charge] = {}
    open_operations: bool | None = None
    if not new_order:
        known, open_operations = _lock(order, states)
    # user_id, not user: the owner's row is never needed, only its key.
    tokens = sync_card_tokens(
        states,
        owner_id=order.user_id,
        known_charge_ids=known.keys(),
        account_id=order.account_id,
    )
    now = timezone.now()
    new: list[Charge] = []
    changed: list[tuple[Charge, list[str]]] = []
    changes: list[tuple[Charge, ChargeChange]] = []
    for state in states:
        token = tokens.get(state.card.token_id) if state.card else None
        row = known.get(state.provider_id)
        if row is None:
            row = Charge(order=order, provider_id=state.provider_id, card_token=token)
            _apply(row, state, token, now)
            new.append(row)
            changes.append((row, ChargeChange("", row.status, "", row.effective_status)))
            continue
        same_token = token is None or row.card_token_id == token.pk
        if not supersedes(row, state) or (row.data == state.data and same_token):
            continue
        old_status, old_effective, old_refunded = (
            row.status,
            row.effective_status,
            row.amount_refunded,
        )
        changed.append((row, _apply(row, state, token, now)))
        change = ChargeChange(
            old_status,
            row.status,
            old_effective,
            row.effective_status,
            refunded_more=row.amount_refunded - old_refunded,
        )
        if change.matters:
            changes.append((row, change))
    if new:
        _insert(new, states, new_order=new_order)
    _save(changed, writes)
    charges = [*known.values(), *new]
    _record(changes, source, now, charges, writes)
    _link_splits(known.values(), new, states)
    return charges, open_operations


def _record(
    changes: list[tuple[Charge, ChargeChange]],
    source: str,
    now: Any,
    charges: Sequence[Charge],
    writes: Writes,
) -> None:
    """A history row for each status transition now; every change's signals after commit.

    ``charges`` (all the order's, locked) go with the signals: a newly paid
    charge's ``payment_duplicated`` look reads them instead of the database.
    """
    history = [
        ChargeStatusChange(
            charge=row,
            old_status=change.old_status,
            new_status=change.new_status,
            source=source,
            created_at=now,
        )
        for row, change in changes
        if change.old_status != change.new_status
    ]
    if len(history) == 1:  # the usual case: with the sync's closing writes
        writes.insert(history[0])
    else:
        ChargeStatusChange.objects.bulk_create(history)
    for row, change in changes:
        announce_change(row, change, source, charges)


def _link_splits(
    known: Collection[Charge], new: Sequence[Charge], states: Sequence[ChargeState]
) -> None:
    """Make the Split row a charge's ``SPLIT`` link names (details come later)."""
    split_ids = {state.provider_id: state.split_id for state in states if state.split_id}
    if not split_ids:
        return
    split_charges = [charge for charge in [*known, *new] if charge.provider_id in split_ids]
    # Only a charge known before may have its split row already.
    looked_up = [charge for charge in known if charge.provider_id in split_ids]
    existing: set[int] = set()
    if looked_up:
        existing = set(
            Split.objects.filter(charge__in=looked_up).values_list("charge_id", flat=True)
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
