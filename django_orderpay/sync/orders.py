"""The entry points: provider JSON in, locked and upserted rows out."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db import connections, models, router, transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from ..models import (
    ChangeSource,
    Charge,
    ConnectedAccount,
    DeepLink,
    Order,
    OrderStatus,
    QrCode,
    derive_order_status,
)
from ..models.base import attname, known_values
from ..models.states import QR_EXPIRED, QR_OPEN
from ..signals import announce_order_expired
from . import inserting
from .batching import Writes
from .charges import apply_charges
from .inserting import insert_new
from .locking import for_update, no_key, sync_transaction
from .operations import Answered, settle
from .parse import DeeplinkState, OrderState, QrCodeState, SyncError, parse_charge, parse_order
from .reading import columns, rows

logger = logging.getLogger("django_orderpay.sync")


def _check_source(source: str) -> None:
    if source not in known_values(ChangeSource):
        raise ValueError(f"source must be one of {', '.join(ChangeSource.values)}, not {source!r}")


#: The columns a sync may change on an order row (``synced_at`` aside).
ORDER_FIELDS = (
    "reference_id",
    "customer_name",
    "customer_email",
    "customer_tax_id",
    "created_at",
    "user",
    "content_type",
    "object_id",
    "status",
    "data",
)
_ATTNAMES = {name: attname(Order, name) for name in ORDER_FIELDS}


def _snapshot(order: Order) -> dict[str, Any]:
    return {name: getattr(order, attname) for name, attname in _ATTNAMES.items()}


def _lock_or_create(
    state: OrderState,
    user: Any,
    shop_object: Any,
    *,
    expect_new: bool = False,
    account_id: int | None = None,
) -> tuple[Order, bool]:
    """The order row, locked for this transaction, and whether this sync inserted it.

    A new order is inserted complete (its status derived from the answer's
    charges, which are all new to it), so it need not be written twice.
    Two syncs of a new order race to insert it: the loser's insert is
    skipped (``ON CONFLICT DO NOTHING``, after waiting for the winner), and
    it then locks the winner's row instead. ``expect_new`` (a create's
    answer) tries the insert before looking: one round trip where the
    order is new, as it nearly always is then.
    """
    if not expect_new:
        found = lock_order(state.provider_id)
        if found is not None:
            return found, False
    order = Order(
        provider_id=state.provider_id,
        data=state.data,
        status=derive_order_status(
            (charge.effective_status for charge in state.charges), qr_code_state(state.data)
        ),
        synced_at=timezone.now(),
        account_id=account_id,
        **state.columns,
    )
    order.claim(user, shop_object)
    if insert_new([order]):
        return order, True
    logger.debug(
        "order %s was inserted by a concurrent sync or before; locking it", order.provider_id
    )
    winner = lock_order(state.provider_id)
    if winner is None:  # deleted since: as get() would
        raise Order.DoesNotExist(f"order {state.provider_id} is gone")
    return winner, False


def _splice(base: dict[str, Any], charges: Sequence[Charge]) -> dict[str, Any]:
    """``base`` with its ``charges`` replaced by each charge's newest JSON.

    A stale copy of an order must not make ``Order.data`` show a charge in a
    state the charge row has already left.
    """
    by_id = {charge.provider_id: charge for charge in charges}
    ordered = []
    for entry in base.get("charges") or ():
        charge = by_id.pop(str(entry.get("id")), None) if isinstance(entry, dict) else None
        if charge is not None:
            ordered.append(charge)
    ordered.extend(sorted(by_id.values(), key=lambda charge: charge.pk))
    return {**base, "charges": [charge.data for charge in ordered]}


def _finish(
    order: Order,
    charges: Sequence[Charge],
    base: dict[str, Any],
    before: dict[str, Any],
    *,
    source: str,
    writes: Writes,
    new_order: bool = False,
) -> None:
    """Derive the order's status and JSON; write the columns that changed, with ``writes``.

    ``synced_at`` (when we last saw the provider's copy, shown to staff) is
    written on every sync, alone when nothing else changed; an order this
    sync has just inserted complete is not written again.
    """
    order.data = _splice(base, charges)
    order.status = derive_order_status(
        (charge.effective_status for charge in charges), qr_code_state(order.data)
    )
    changed = [name for name, value in _snapshot(order).items() if value != before[name]]
    if order.status == OrderStatus.EXPIRED and before["status"] != OrderStatus.EXPIRED:
        announce_order_expired(order, source)
    if not new_order or changed:
        order.synced_at = timezone.now()
        writes.update(order, [*changed, "synced_at"])
    writes.flush()
    if order.checkout_id is not None and order.status != before["status"]:
        from .checkouts import order_changed  # it syncs orders with this module

        order_changed(order, source)


def _sync_deeplink(order: Order, state: DeeplinkState, *, new_order: bool) -> None:
    # Deeplinks are immutable at the provider and one per order: update in
    # place, under the order lock, so no insert can race. An order inserted
    # by this sync has none yet.
    deeplink = None if new_order else DeepLink.objects.filter(order=order).first()
    if deeplink is None:
        deeplink = DeepLink(order=order)
    deeplink.deeplink_id = state.deeplink_id
    for name, value in state.columns.items():
        setattr(deeplink, name, value)
    deeplink.synced_at = timezone.now()
    deeplink.save()


def qr_code_state(data: dict[str, Any], now: dt.datetime | None = None) -> str:
    """``QR_OPEN`` if one of the order's Pix QR codes may still be paid, ``QR_EXPIRED``
    if all have expired, ``""`` when it has none (read from the order's JSON, no query)."""
    entries = [e for e in data.get("qr_codes") or () if isinstance(e, dict)]
    if not entries:
        return ""
    now = now or timezone.now()
    for entry in entries:
        expires = entry.get("expiration_date")
        moment = parse_datetime(expires) if isinstance(expires, str) else None
        if moment is None or moment > now:
            return QR_OPEN
    return QR_EXPIRED


def _sync_qr_codes(order: Order, states: Sequence[QrCodeState], *, new_order: bool) -> None:
    # Under the order lock, like the deeplink: no insert can race.
    known = {} if new_order else {q.provider_id: q for q in QrCode.objects.filter(order=order)}
    now = timezone.now()
    for state in states:
        row = known.get(state.provider_id) or QrCode(order=order, provider_id=state.provider_id)
        for name, value in state.columns.items():
            setattr(row, name, value)
        row.synced_at = now
        row.save()


def _order_lock_sql(also: str = "") -> str:
    """``SELECT`` of the order named by a ``provider_id`` parameter, locked (:func:`.for_update`).

    What ``select_for_update().get(provider_id=...)`` asks, written out:
    Django building and compiling it cost as much as running it, on every
    sync. ``also`` is a further condition (SQL, no values). Only columns,
    the table's name and ``also`` are formatted in; the id is a parameter.
    """
    return (
        f"SELECT {columns(Order)} FROM {Order._meta.db_table}"  # noqa: S608
        f" WHERE provider_id = %s{also}{for_update()}"
    )


def lock_order(provider_id: str) -> Order | None:
    """The mirrored order ``provider_id``, its row locked until the transaction ends.

    For a caller that must hold the lock before it has the payload to sync
    (a notification re-fetching the order): it hands the row to
    :func:`sync_order` as ``locked``, which then does not lock it again.
    Call it inside :func:`sync_transaction`; None if no such order is mirrored.
    """
    return next((order for order, _ in rows(Order, _order_lock_sql(), [provider_id])), None)


def insert_then_lock_order(row: models.Model, provider_id: str) -> tuple[bool, Order | None]:
    """Insert ``row`` unless it conflicts, then, if it went in, lock order ``provider_id``.

    ``(inserted, the order locked or None)``: :func:`~.inserting.insert_new`
    of one row followed by :func:`lock_order`, run only when the row went
    in. A notification's claim on its body and its order's lock. On
    PostgreSQL it is one statement, one round trip where two were: the
    insert is a ``WITH`` query and the lock a ``LATERAL`` select joined to
    the row it returned, so the insert (with any wait on a conflicting row)
    comes first and the lock is taken only for a row that went in, as with
    two statements. The order's row is locked at its newest version, as
    ``SELECT ... FOR UPDATE`` always returns it. Call it inside
    :func:`sync_transaction`.
    """
    using = router.db_for_write(type(row))
    connection = connections[using]
    if (
        connection.vendor != "postgresql"
        or router.db_for_read(Order) != using
        or inserting.has_expressions(row)
    ):
        if not inserting.insert_new([row]):
            return False, None
        return True, lock_order(provider_id)
    insert, params, _ = inserting.prepare(row, ignore=True)
    key = connection.ops.quote_name(str(type(row)._meta.pk.column))
    # Only the kept statements and names made here are formatted in; values
    # are parameters. The lateral select names the inserted row, so it runs
    # once that row exists, and not at all for a conflict.
    lock = _order_lock_sql(f" AND orderpay_new.{key} IS NOT NULL")
    sql = (
        f"WITH orderpay_new AS ({insert})"  # noqa: S608
        " SELECT orderpay_order.*, orderpay_new.* FROM orderpay_new"
        f" LEFT JOIN LATERAL ({lock}) orderpay_order ON true"
    )
    for order, (new_key,) in rows(Order, sql, [*params, provider_id]):
        inserting.inserted(row, new_key, using)
        return True, (order if order.pk is not None else None)
    return False, None


def check_account(order: Order, account_id: int | None) -> None:
    """The order mirrored here is the account's whose token brought ``payload``.

    Provider ids are unique across accounts, so a mismatch is a misrouted
    call or notification: one account's orders are never written with what
    another account's token was answered.
    """
    if order.account_id != account_id:
        raise SyncError(
            "account",
            f"order {order.provider_id} belongs to another account than the one this "
            "answer was fetched for",
        )


def _callers_transaction(locked: Order, state: OrderState) -> AbstractContextManager[None]:
    """The transaction that locked ``locked`` (checked to be open and to be the payload's order)."""
    if locked.provider_id != state.provider_id:
        raise SyncError("id", f"{state.provider_id} is not the locked order {locked.provider_id}")
    if not transaction.get_connection().in_atomic_block:
        raise ValueError("sync_order(locked=...) must run in the transaction that locked the order")
    return nullcontext()


def sync_order(
    payload: dict[str, Any],
    *,
    source: str,
    user: AbstractBaseUser | AnonymousUser | None = None,
    shop_object: models.Model | None = None,
    locked: Order | None = None,
    expect_new: bool = False,
    answered: Answered | None = None,
    account: ConnectedAccount | None = None,
) -> Order:
    """Mirror a provider Order (create, pay or GET answer, or a notification body).

    Upserts the order, its charges, split records, deeplink and card tokens
    in one transaction, holding the order's row lock. Safe to call twice at
    once and with late copies: charges only move forward (see
    ``django_orderpay.models.states``). ``user`` and ``shop_object`` are
    attached when the order has none yet. Raises :class:`SyncError` naming
    the field of a malformed payload.

    ``locked`` is the order's row as :func:`lock_order` returned it, in the
    caller's transaction: the sync then runs in that transaction as it is
    (no lock taken again, no savepoint), and an error leaves the rollback
    to the caller. ``expect_new`` says the order is most likely not mirrored
    yet (the answer to this shop's create): its row is inserted before it
    is looked for; the outcome is the same either way. ``answered`` is the
    operation whose call returned ``payload`` (see
    :class:`~django_orderpay.sync.operations.Answered`). ``account`` is the
    connected account whose token the payload was answered to (None: the
    settings' ``TOKEN``): a new order is that account's, and an order of
    another account is refused (:class:`SyncError` naming ``account``).
    """
    _check_source(source)
    state = parse_order(payload)
    account_id = account.pk if account is not None else None
    block = sync_transaction() if locked is None else _callers_transaction(locked, state)
    with block:
        if locked is None:
            order, new_order = _lock_or_create(
                state, user, shop_object, expect_new=expect_new, account_id=account_id
            )
        else:
            order, new_order = locked, False
        check_account(order, account_id)
        before = _snapshot(order)
        order.claim(user, shop_object)
        for name, value in state.columns.items():
            if value not in ("", None):
                setattr(order, name, value)
        writes = Writes()
        charges, open_operations = apply_charges(
            order, state.charges, source=source, writes=writes, new_order=new_order
        )
        if state.deeplink is not None:
            _sync_deeplink(order, state.deeplink, new_order=new_order)
        if state.qr_codes:
            _sync_qr_codes(order, state.qr_codes, new_order=new_order)
        if open_operations is not False:
            settle(order, charges, new_order=new_order, writes=writes, answered=answered)
        _finish(
            order, charges, state.data, before, source=source, writes=writes, new_order=new_order
        )
    return order


def sync_charge(
    payload: dict[str, Any],
    *,
    source: str,
    order: Order | None = None,
    answered: Answered | None = None,
    account: ConnectedAccount | None = None,
) -> Charge:
    """Mirror a provider Charge (GET /charges, capture and cancel answers).

    A charge answer names no order, so the charge must be known already
    (its order synced before) or ``order`` given. ``answered``: as
    :func:`sync_order`'s.
    """
    _check_source(source)
    state = parse_charge(payload)
    with sync_transaction():
        order_pk = order.pk if order is not None else None
        if order_pk is None:
            order_pk = (
                Charge.objects.filter(provider_id=state.provider_id)
                .values_list("order_id", flat=True)
                .order_by()
                .first()
            )
        if order_pk is None:
            raise SyncError("id", f"charge {state.provider_id} is unknown; sync its order first")
        locked = Order.objects.select_for_update(no_key=no_key()).get(pk=order_pk)
        check_account(locked, account.pk if account is not None else None)
        before = _snapshot(locked)
        writes = Writes()
        charges, open_operations = apply_charges(locked, [state], source=source, writes=writes)
        if open_operations is not False:
            settle(locked, charges, new_order=False, writes=writes, answered=answered)
        _finish(locked, charges, locked.data, before, source=source, writes=writes)
    return next(charge for charge in charges if charge.provider_id == state.provider_id)
