"""Rows read with SQL written out, as model instances, without the ORM's work per query.

The few reads every sync makes (the order's lock, its charges' lock) are
written out in SQL (see :mod:`.locking`). ``Model.objects.raw()`` would
still work out, on every query, which column of the answer is which field
and how each is converted: on PostgreSQL that cost as much as the query.
Here the model's columns are named in the query itself, in field order
(:func:`columns`), so the answer's shape is known before it comes, and its
converters are found once per model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from django.db import connections, models, router
from django.db.models.sql.query import Query

from . import cursors

M = TypeVar("M", bound=models.Model)

Converter = tuple[list[Callable[..., Any]], Any]
#: (model, database alias) -> per column index, its converters and the column expression.
_CONVERTERS: dict[tuple[type[models.Model], str], dict[int, Converter]] = {}


#: (model, database alias) -> its columns, quoted, in field order.
_COLUMNS: dict[tuple[type[models.Model], str], str] = {}


def columns(model: type[models.Model], using: str | None = None) -> str:
    """The model's columns in field order, quoted: what a query for :func:`rows` selects first."""
    alias = using or router.db_for_read(model)
    found = _COLUMNS.get((model, alias))
    if found is None:
        quote = connections[alias].ops.quote_name
        fields = model._meta.concrete_fields
        found = _COLUMNS[(model, alias)] = ", ".join(quote(str(f.column)) for f in fields)
    return found


def _converters(model: type[models.Model], using: str) -> dict[int, Converter]:
    found = _CONVERTERS.get((model, using))
    if found is None:
        connection = connections[using]
        compiler = connection.ops.compiler("SQLCompiler")(Query(model), connection, using)
        table = model._meta.db_table
        found = _CONVERTERS[(model, using)] = compiler.get_converters(
            [field.get_col(table) for field in model._meta.concrete_fields]
        )
    return found


def rows(model: type[M], sql: str, params: Sequence[Any]) -> Iterator[tuple[M, tuple[Any, ...]]]:
    """Each row of ``sql`` (which selects :func:`columns` first) as ``(instance, the rest)``.

    ``the rest`` holds any further columns the query selects, as the
    database answered them.
    """
    using = router.db_for_read(model)
    connection = connections[using]
    converters = _converters(model, using)
    width = len(model._meta.concrete_fields)
    attnames = [field.attname for field in model._meta.concrete_fields]
    with cursors.cursor(connection, sql) as cursor:
        cursor.execute(sql, params)
        answer = cursor.fetchall()
    for values in answer:
        fields = list(values[:width])
        for index, (functions, expression) in converters.items():
            value = fields[index]
            for function in functions:
                value = function(value, expression, connection)
            fields[index] = value
        yield model.from_db(using, attnames, fields), tuple(values[width:])
