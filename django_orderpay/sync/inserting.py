"""Inserting rows in one statement, and rows that may already exist: ``ON CONFLICT DO NOTHING``.

A row that might be inserted by someone else at the same moment (a new
order two syncs race to mirror, a notification's claim on its body) used to
cost a savepoint around the insert and a rollback to it on the
``IntegrityError``: three round trips where one does. Django's
``bulk_create(ignore_conflicts=True)`` can't say which rows it skipped, so
the statement is compiled by the ORM and run here, returning the key of
every row that went in. On PostgreSQL a conflicting row of a transaction
still in progress makes the insert wait for that transaction's end (and
then skip the row if it committed); SQLite runs it as ``INSERT OR IGNORE``.

One row at a time (the delivery log, a claim, an order, an operation), the
statement's SQL is the same every time for a model: it is compiled once
and kept (:func:`_one_row_sql`), and each insert only works out its values
as the ORM would (``pre_save``, ``get_db_prep_save``). Django compiling it
again cost about as much as the insert's round trip on PostgreSQL; a
``Model.save()`` (signals, the save machinery) twice that. Like
``bulk_create``, these inserts send no ``pre_save``/``post_save``: the
package listens to none, and a shop follows ``django_orderpay.signals``,
sent on every real transition.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from django.db import connections, models, router
from django.db.models.constants import OnConflict
from django.db.models.expressions import RawSQL
from django.db.models.fields import Field
from django.db.models.sql.subqueries import InsertQuery

from . import cursors

M = TypeVar("M", bound=models.Model)

#: (model, database alias, ON CONFLICT DO NOTHING, SQL of any RawSQL values) -> the
#: one-row INSERT's SQL and its fields.
_ONE_ROW: dict[tuple[type[models.Model], str, bool, tuple[str, ...]], tuple[str, list[Field]]] = {}


def _one_row_sql(row: models.Model, using: str, ignore: bool) -> tuple[str, list[Field]]:
    """``INSERT`` of one row like ``row`` returning its key, compiled by the ORM once.

    A value given as :class:`RawSQL` (the same SQL every time, its own
    parameters) is compiled into the statement; other values are one
    placeholder each.
    """
    model = type(row)
    meta = model._meta
    fields = [f for f in meta.concrete_fields if f is not meta.pk]
    raw = tuple(getattr(row, f.attname).sql for f in fields if _is_raw(row, f))
    found = _ONE_ROW.get((model, using, ignore, raw))
    if found is None:
        # A blank row but for the RawSQL values: only the statement's shape is kept.
        shape = model(**{f.attname: getattr(row, f.attname) for f in fields if _is_raw(row, f)})
        query = InsertQuery(model, on_conflict=OnConflict.IGNORE if ignore else None)
        query.insert_values(fields, [shape])
        compiler = query.get_compiler(using=using)
        compiler.returning_fields = [meta.pk]
        [(sql, params)] = compiler.as_sql()
        if len(params) != len(_params(shape, fields, connections[using])):
            raise RuntimeError(f"{model.__name__}: a field's SQL is not one placeholder")
        found = _ONE_ROW[(model, using, ignore, raw)] = (sql, fields)
    return found


def _is_raw(row: models.Model, field: Field) -> bool:
    return isinstance(getattr(row, field.attname), RawSQL)


def _params(row: models.Model, fields: list[Field], connection: Any) -> list[Any]:
    """The statement's parameters for ``row``: each value as the ORM prepares it."""
    params: list[Any] = []
    for field in fields:
        value = getattr(row, field.attname)
        if isinstance(value, RawSQL):
            params.extend(value.params)
        else:
            params.append(field.get_db_prep_save(field.pre_save(row, True), connection))
    return params


def prepare(row: models.Model, *, ignore: bool = False) -> tuple[str, list[Any], str]:
    """The kept ``INSERT`` of ``row`` (``RETURNING`` its key): SQL, parameters, database."""
    using = router.db_for_write(type(row))
    sql, fields = _one_row_sql(row, using, ignore)
    return sql, _params(row, fields, connections[using]), using


def inserted(row: models.Model, key: Any, using: str) -> None:
    """Mark ``row`` as saved under ``key`` (what the insert returned)."""
    row.pk = key
    row._state.adding = False
    row._state.db = using


def _insert_one(row: M, *, ignore: bool) -> bool:
    """Insert ``row`` with the kept statement; False if it conflicted (``ignore``)."""
    sql, params, using = prepare(row, ignore=ignore)
    with cursors.cursor(connections[using], sql) as cursor:
        cursor.execute(sql, params)
        answer = cursor.fetchone()
    if answer is None:
        return False
    inserted(row, answer[0], using)
    return True


def has_expressions(row: models.Model) -> bool:
    """Whether a value is an SQL expression other than RawSQL (not the kept statement)."""
    return any(
        hasattr(value := getattr(row, field.attname, None), "resolve_expression")
        and not isinstance(value, RawSQL)
        for field in row._meta.concrete_fields
    )


def insert(row: M) -> M:
    """Insert one new row (auto primary key), in one statement; the row, its key set.

    What ``row.save(force_insert=True)`` does for these models, without the
    save machinery and with the statement compiled once.
    """
    if has_expressions(row):
        row.save(force_insert=True)
    else:
        _insert_one(row, ignore=False)
    return row


def insert_new(rows: Sequence[M], *, key: str = "pk") -> list[M]:
    """Insert ``rows`` (of one model, auto primary key), skipping any that conflict.

    Returns the rows inserted, their primary keys set. Several rows need
    ``key``, a unique field that tells them apart in the answer.
    """
    if not rows:
        return []
    if key == "pk" and len(rows) > 1:
        raise ValueError("inserting several rows needs key=, a unique field")
    if len(rows) == 1 and not has_expressions(rows[0]):
        return list(rows) if _insert_one(rows[0], ignore=True) else []
    model = type(rows[0])
    meta = model._meta
    using = router.db_for_write(model)
    query = InsertQuery(model, on_conflict=OnConflict.IGNORE)
    query.insert_values([f for f in meta.concrete_fields if f is not meta.pk], list(rows))
    compiler = query.get_compiler(using=using)
    compiler.returning_fields = [meta.pk] if key == "pk" else [meta.pk, meta.get_field(key)]
    keys: dict[Any, Any] = {}  # key -> primary key, of the rows that went in
    with cursors.cursor(connections[using]) as cursor:
        for sql, params in compiler.as_sql():
            cursor.execute(sql, params)
            for answer in cursor.fetchall():
                keys[answer[-1]] = answer[0]
    went_in = []
    for row in rows:
        pk = next(iter(keys.values()), None) if key == "pk" else keys.get(getattr(row, key))
        if pk is None:
            continue
        inserted(row, pk, using)
        went_in.append(row)
    return went_in
