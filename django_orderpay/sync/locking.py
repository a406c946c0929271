"""The transaction every sync runs in.

On PostgreSQL (and any database with row locks) the order row's
``SELECT ... FOR UPDATE`` serialises two syncs of the same order. SQLite has
no row locks (Django ignores ``select_for_update`` there) and lets only one
writer in at a time, failing the others at once rather than waiting in
shared-cache and deferred-transaction cases. So on such a database the syncs
of one process take turns on a process-wide lock; across processes SQLite
needs ``"OPTIONS": {"transaction_mode": "IMMEDIATE"}`` as usual.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext

from django.db import transaction

_SERIAL = threading.RLock()


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


def for_update(using: str | None = None) -> str:
    """`` FOR UPDATE`` where rows can be locked (what ``select_for_update()`` adds), else ``""``.

    For the few hot queries written out in SQL (see their docstrings).
    """
    connection = transaction.get_connection(using)
    return " FOR UPDATE" if connection.features.has_select_for_update else ""
