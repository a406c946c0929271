"""Inserting rows that may already exist, in one statement: ``INSERT ... ON CONFLICT DO NOTHING``.

A row that might be inserted by someone else at the same moment (a new
order two syncs race to mirror, a notification's claim on its body) used to
cost a savepoint around the insert and a rollback to it on the
``IntegrityError``: three round trips where one does. Django's
``bulk_create(ignore_conflicts=True)`` can't say which rows it skipped, so
the statement is compiled by the ORM and run here, returning the key of
every row that went in. On PostgreSQL a conflicting row of a transaction
still in progress makes the insert wait for that transaction's end (and
then skip the row if it committed); SQLite runs it as ``INSERT OR IGNORE``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from django.db import connections, models, router
from django.db.models.constants import OnConflict
from django.db.models.sql.subqueries import InsertQuery

M = TypeVar("M", bound=models.Model)


def insert_new(rows: Sequence[M], *, key: str = "pk") -> list[M]:
    """Insert ``rows`` (of one model, auto primary key), skipping any that conflict.

    Returns the rows inserted, their primary keys set. Several rows need
    ``key``, a unique field that tells them apart in the answer.
    """
    if not rows:
        return []
    if key == "pk" and len(rows) > 1:
        raise ValueError("inserting several rows needs key=, a unique field")
    model = type(rows[0])
    meta = model._meta
    using = router.db_for_write(model)
    query = InsertQuery(model, on_conflict=OnConflict.IGNORE)
    query.insert_values([f for f in meta.concrete_fields if f is not meta.pk], list(rows))
    compiler = query.get_compiler(using=using)
    compiler.returning_fields = [meta.pk] if key == "pk" else [meta.pk, meta.get_field(key)]
    inserted: dict[Any, Any] = {}  # key -> primary key, of the rows that went in
    with connections[using].cursor() as cursor:
        for sql, params in compiler.as_sql():
            cursor.execute(sql, params)
            for answer in cursor.fetchall():
                inserted[answer[-1]] = answer[0]
    went_in = []
    for row in rows:
        pk = next(iter(inserted.values()), None) if key == "pk" else inserted.get(getattr(row, key))
        if pk is None:
            continue
        row.pk = pk
        row._state.adding = False
        row._state.db = using
        went_in.append(row)
    return went_in
