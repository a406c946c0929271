"""The transaction every sync runs in, and the one order its row locks are taken in.

On PostgreSQL (and any database with row locks) the order row's
``SELECT ... FOR NO KEY UPDATE`` serialises two syncs of the same order. SQLite has
no row locks (Django ignores ``select_for_update`` there) and lets only one
writer in at a time, failing the others at once rather than waiting in
shared-cache and deferred-transaction cases. So on such a database the syncs
of one process take turns on a process-wide lock; across processes SQLite
needs ``"OPTIONS": {"transaction_mode": "IMMEDIATE"}`` as usual.

**One lock order, so no two transactions of the package wait for each
other in a circle** (a deadlock, which PostgreSQL ends by failing one of
them): a notification's claim on its body, then the order, then its
charges (by primary key), then card tokens, then operations; an order's
hosted checkout last (its sync claims ``paid_at``), so a checkout's sync
locks the orders it lists that are mirrored already, by id, before the
checkout. The exception is an order new to the mirror: the checkout's sync
inserts it under the checkout's lock, while a notification adopting it holds
its new row and then locks the checkout (to join it); both run once more
when the database ends one for a deadlock. A service
recording an operation takes its shop object's lock (:func:`lock_name`)
and then operations, and no order or charge. Two rules keep every path to
it:

- Rows are locked ``FOR NO KEY UPDATE`` (:func:`for_update`), not ``FOR
  UPDATE``: a sync changes no key, and the stronger lock also blocks the
  ``FOR KEY SHARE`` that PostgreSQL's foreign-key checks take on a
  referenced row. With it, a service inserting an operation that names the
  order (holding the operation's row) waited for a sync holding the order,
  while the sync waited for that operation's row.
- A sync settles only the operations it can lock at once (``SKIP
  LOCKED``): an operation another transaction holds is being called right
  now (a caller's own ``atomic()`` block may hold it while it waits for the
  order), and that call settles it from its own answer.

A deadlock with a transaction of the shop's own (one that locks these rows
in another order) still ends one of them: :func:`once_more_on_conflict`
runs the package's own transactions once more when they are the one
PostgreSQL failed.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import TypeVar

from django.db import DatabaseError, transaction

logger = logging.getLogger("django_orderpay.sync")

_SERIAL = threading.RLock()
T = TypeVar("T")

#: SQLSTATEs of a transaction the database failed for another's sake, which
#: succeeds when run again: ``deadlock_detected`` and ``serialization_failure``.
CONFLICT_SQLSTATES = frozenset({"40P01", "40001"})


@contextmanager
def sync_transaction(using: str | None = None) -> Iterator[None]:
    """``transaction.atomic()``, taking turns per process where rows can't be locked.

    Callers that sync inside a transaction of their own (a notification
    processed under its dedupe lock) should open it with this instead of
    ``atomic()``: the lock must span the whole transaction, and only the
    outermost block can hold it that long.
    """
    connection = transaction.get_connection(using)
    if connection.features.has_select_for_update or connection.in_atomic_block:
        with transaction.atomic(using=using):
            yield
        return
    with _SERIAL, transaction.atomic(using=using):
        yield


def single_write(using: str | None = None) -> AbstractContextManager[None]:
    """For one statement that writes: no transaction of its own where rows can be locked.

    A single statement is atomic by itself (autocommit), so wrapping it in
    ``BEGIN``/``COMMIT`` only costs two round trips; where rows can't be
    locked (SQLite) it still takes the process's turn, as
    :func:`sync_transaction` does.
    """
    connection = transaction.get_connection(using)
    if connection.features.has_select_for_update or connection.in_atomic_block:
        return nullcontext()
    return sync_transaction(using)


def for_update(using: str | None = None, *, skip_locked: bool = False) -> str:
    """`` FOR NO KEY UPDATE`` where rows can be locked so, `` FOR UPDATE`` where only so,
    else ``""`` (what ``select_for_update(no_key=no_key())`` adds); ``SKIP LOCKED`` on request.

    For the few hot queries written out in SQL (see their docstrings).
    """
    features = transaction.get_connection(using).features
    if not features.has_select_for_update:
        return ""
    lock = " FOR NO KEY UPDATE" if features.has_select_for_no_key_update else " FOR UPDATE"
    if skip_locked and features.has_select_for_update_skip_locked:
        lock += " SKIP LOCKED"
    return lock


def no_key(using: str | None = None) -> bool:
    """``select_for_update(no_key=...)``: ``FOR NO KEY UPDATE`` where the database has it."""
    return bool(transaction.get_connection(using).features.has_select_for_no_key_update)


#: The first half of the package's advisory locks' keys (PostgreSQL's two-key form).
ADVISORY_NAMESPACE = 0x6F70  # "op"


def lock_name(name: str, using: str | None = None) -> None:
    """Hold a lock on ``name`` until this transaction ends, whatever row it stands for.

    PostgreSQL's ``pg_advisory_xact_lock``, keyed by a digest of ``name``
    (two names sharing a key only take turns). Elsewhere the transaction
    itself stands for it: SQLite runs one writer at a time (across
    processes with ``transaction_mode`` ``IMMEDIATE``, within one through
    :func:`sync_transaction`). Taken before any row lock of the transaction.
    """
    connection = transaction.get_connection(using)
    if connection.vendor != "postgresql":
        return
    key = int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "big", signed=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [ADVISORY_NAMESPACE, key])


def is_conflict(error: BaseException) -> bool:
    """Whether ``error`` is the database failing this transaction for another's sake."""
    cause = error.__cause__ if isinstance(error, DatabaseError) else None
    code = getattr(cause, "sqlstate", None) or getattr(cause, "pgcode", None)
    return code in CONFLICT_SQLSTATES


def once_more_on_conflict(work: Callable[[], T], using: str | None = None) -> T:
    """``work()`` (which runs its own transaction), run once more if a deadlock or a
    serialization failure ended it.

    Only where ``work`` is the outermost transaction: inside a caller's
    ``atomic()`` block the caller's whole transaction is lost, and only the
    caller can run it again. ``work`` must be safe to run twice (everything
    it did was rolled back; signals wait for the commit).
    """
    if transaction.get_connection(using).in_atomic_block:
        return work()
    try:
        return work()
    except DatabaseError as error:
        if not is_conflict(error):
            raise
        logger.warning("a transaction was ended by the database (%s); running it again", error)
    return work()
