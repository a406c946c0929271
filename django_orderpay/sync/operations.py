"""Settling open operations from the provider's state, as each sync mirrors it.

An operation whose call ended without an answer stays open (see
``django_orderpay.services.operations``). Whatever mirrors the order next (a
notification, ``refresh_order``, ``orderpay_sync``, another call's answer)
may prove it succeeded:

- a create: a new order with its ``reference_id`` and its amount (the order
  is adopted: it gets the operation's user and shop object);
- a pay: a charge on its order that was not there when the call started;
- a capture: the charge is paid;
- a void: the authorised charge is cancelled; a refund: the refunded sum
  reached what was refunded when the call started, plus the refunds that
  succeeded since, plus its amount. A sum cannot say *which* refund made
  it: the refund whose answer is being synced counts first (it is certain),
  and while two or more other refunds of one charge are open none of them is
  proven by the sum (a refund that never arrived would be taken for one that
  did): their repeats and ``orderpay_sync`` send their keys, and the
  provider answers each.

Absence proves nothing (the call may still be on its way), so nothing here
closes an operation as refused: that takes the provider's answer to its key.
A settled operation stays unreported: the caller's next repeat hears of it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Sum
from django.utils import timezone

from ..models import (
    Charge,
    ChargeStatus,
    Operation,
    OperationKind,
    OperationState,
    Order,
)
from ..models.operations import open_state_sql
from .batching import Writes
from .locking import for_update
from .reading import columns, rows


def _open_operations(order: Order, *, new_order: bool) -> tuple[list[Operation], dict[int, int]]:
    """The open operations ``order`` may prove done, oldest first, locked; and, per charge,
    how many cancels are open on it (those locked elsewhere counted too).

    Its own, and, for an order this sync has just inserted, the creates
    still waiting for its ``reference_id``. An operation another
    transaction holds is skipped (``SKIP LOCKED``): a call is under way
    with it, and settles it from its own answer; waiting for it could close
    a circle (see :mod:`.locking`). What ``Operation.objects.open().filter(Q(order=...) |
    Q(kind=CREATE, order=None, target=...)).order_by("pk")`` says, written
    out (see :mod:`.reading`): Django took about 1.4 ms to build and compile
    that query on every ``create_order`` (measured on PostgreSQL), more
    than the query's own round trip.
    """
    is_open, states = open_state_sql()
    table = Operation._meta.db_table
    wanted = "order_id = %s"
    params: list[object] = [order.pk]
    if new_order and order.reference_id:
        # Only a create made for the order's own account: another account's
        # order of the same reference is not its answer.
        account = "account_id IS NULL" if order.account_id is None else "account_id = %s"
        wanted += f" OR (kind = %s AND order_id IS NULL AND target = %s AND {account})"
        params += [OperationKind.CREATE, order.reference_id]
        if order.account_id is not None:
            params.append(order.account_id)
    # The count is a subquery: it is not locked, so it sees the cancels skipped here.
    cancels = (
        f"(SELECT COUNT(other.id) FROM {table} other WHERE other.charge_id = {table}.charge_id"  # noqa: S608
        f" AND other.kind = %s AND other.{is_open})"
    )
    # Only the table's name and placeholders are formatted in; values are parameters.
    sql = (
        f"SELECT {columns(Operation)}, {cancels} FROM {table}"  # noqa: S608
        f" WHERE {is_open} AND ({wanted}) ORDER BY id{for_update(skip_locked=True)}"
    )
    found = rows(Operation, sql, [OperationKind.CANCEL, *states, *states, *params])
    operations, open_cancels = [], {}
    for operation, (count,) in found:
        operations.append(operation)
        open_cancels[operation.charge_id or 0] = int(count)
    return operations, open_cancels


@dataclass
class Answered:
    """The operation whose call returned the payload being synced, and whether its caller hears it.

    When the sync proves it done, it is settled in the sync's own
    transaction with everything the call's success writes (the order, no
    error, ``reported``), in the one update, and ``settled`` says so: the
    caller has nothing left to write.
    """

    operation: Operation
    reported: bool
    settled: bool = False


def success_fields(order: Order, *, reported: bool) -> dict[str, Any]:
    """What a call's success writes on its operation: succeeded, its order, no error, heard."""
    fields: dict[str, Any] = {"state": OperationState.SUCCEEDED, "order": order, "error": ""}
    if reported:
        fields["reported"] = True
    return fields


def settle(
    order: Order,
    charges: Sequence[Charge],
    *,
    new_order: bool,
    writes: Writes,
    answered: Answered | None = None,
) -> None:
    """Close the open operations of ``order`` (locked) that its new state proves done.

    Their updates are queued on ``writes``, with the sync's closing writes.
    """
    open_operations, open_cancels = _open_operations(order, new_order=new_order)
    if not open_operations:
        return
    by_pk = {charge.pk: charge for charge in charges}
    settled: list[tuple[Operation, dict[str, Any]]] = []
    taken: set[str] = set()
    refunds: dict[int, int] = {}  # charge pk -> refunded sum the earlier open refunds reach
    if answered is not None:
        # The answered call is certain: what it proves is taken before any guess.
        open_operations.sort(key=lambda operation: operation.pk != answered.operation.pk)
    ambiguous = _ambiguous_refunds(open_operations, open_cancels, answered)
    for operation in open_operations:
        if operation.pk in ambiguous:
            continue
        links = _proof(operation, order, charges, by_pk, taken, refunds)
        if links is not None:
            settled.append((operation, links))
    now = timezone.now()
    for operation, links in settled:
        fields: dict[str, Any] = {
            "state": OperationState.SUCCEEDED,
            "resolved_at": now,
            "updated_at": now,
            **links,
        }
        if answered is not None and operation.pk == answered.operation.pk:
            fields.update(success_fields(order, reported=answered.reported))
            for name, value in fields.items():
                setattr(answered.operation, name, value)
            answered.settled = True
        for name, value in fields.items():
            setattr(operation, name, value)
        writes.update(operation, list(fields))
        if operation.kind == OperationKind.CREATE:
            _adopt(order, operation)


def _ambiguous_refunds(
    operations: Sequence[Operation], open_cancels: Mapping[int, int], answered: Answered | None
) -> set[int]:
    """The open refunds (not the answered one) sharing their charge with another: unprovable.

    ``open_cancels`` counts every open cancel of a charge, those another
    transaction holds too: one of them may be the refund that arrived.
    """
    ambiguous = set()
    for operation in operations:
        if answered is not None and operation.pk == answered.operation.pk:
            continue
        if not _is_refund(operation):
            continue
        others = open_cancels.get(operation.charge_id or 0, 0)
        if answered is not None and answered.operation.charge_id == operation.charge_id:
            others -= answered.operation.kind == OperationKind.CANCEL and answered.operation.is_open
        if others > 1:
            ambiguous.add(operation.pk)
    return ambiguous


def _is_refund(operation: Operation) -> bool:
    return (
        operation.kind == OperationKind.CANCEL
        and operation.basis.get("status") != ChargeStatus.AUTHORIZED
    )


def _refunded_since(operation: Operation) -> int:
    """Cents refunded on its charge by refunds that succeeded after ``operation`` began.

    Its ``basis`` is the refunded sum it saw; these came on top of it.
    """
    if operation.charge_id is None:
        return 0
    later = Operation.objects.filter(
        kind=OperationKind.CANCEL,
        charge_id=operation.charge_id,
        state=OperationState.SUCCEEDED,
        resolved_at__gte=operation.created_at,
    ).exclude(pk=operation.pk)
    return later.aggregate(total=Sum("amount", default=0))["total"]


def _proof(
    operation: Operation,
    order: Order,
    charges: Sequence[Charge],
    by_pk: dict[int, Charge],
    taken: set[str],
    refunds: dict[int, int],
) -> dict[str, Any] | None:
    """The links to write when ``order`` proves ``operation`` done, else None."""
    if operation.kind == OperationKind.CREATE:
        wanted = operation.basis.get("amount")
        if wanted is not None and wanted != requested_total(order.data):
            return None
        return {"order": order}
    if operation.kind == OperationKind.PAY:
        known = set(operation.basis.get("charges") or ())
        for charge in charges:
            if charge.provider_id not in known and charge.provider_id not in taken:
                taken.add(charge.provider_id)
                return {"charge": charge}
        return None
    target = by_pk.get(operation.charge_id or 0)
    if target is None:
        return None
    charge = target
    if operation.kind == OperationKind.CAPTURE:
        paid = charge.status == ChargeStatus.PAID or charge.amount_paid > 0
        return {} if paid else None
    if not _is_refund(operation):  # a void
        return {} if charge.status == ChargeStatus.CANCELED else None
    seen = int(operation.basis.get("refunded") or 0) + _refunded_since(operation)
    reached = max(seen, refunds.get(charge.pk, 0))
    needed = reached + (operation.amount or 0)
    if charge.amount_refunded >= needed:
        refunds[charge.pk] = needed
        return {}
    return None


def requested_total(data: Mapping[str, Any]) -> int:
    """Cents an order asks for, in a request or an answer: charges, deeplinks, QR codes."""
    total = 0
    for key in ("charges", "deep_links", "qr_codes"):
        for entry in data.get(key) or ():
            value = (entry.get("amount") or {}).get("value") if isinstance(entry, Mapping) else 0
            total += value if isinstance(value, int) and not isinstance(value, bool) else 0
    return total


def _adopt(order: Order, operation: Operation) -> None:
    """Give an adopted order the user and shop object its create named (when it has none)."""
    if order.user_id is None and operation.user_id is not None:
        order.user_id = operation.user_id
    if order.content_type_id is None and operation.content_type_id is not None:
        order.content_type_id = operation.content_type_id
        order.object_id = operation.object_id
